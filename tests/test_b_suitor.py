"""b-Suitor against an independent greedy b-matching, exact optima and bad input."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from cugraph_match.matching.b_suitor import b_suitor_pairs, capacities
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA, brute_force_max_b_matching, edge_tuples, greedy_b_matching
from strategies import edge_frames

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
CUGRAPH_INPUTS = sorted((SHARED_DATA / "cugraph").glob("*.*"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")



def oracle(edges, b):
    return greedy_b_matching(edges["src"], edges["dst"], edges["weight"], b)


@st.composite
def graphs_with_capacities(draw):
    """An edge frame with ties, plus b as an int or per vertex, 0 and huge included."""
    edges = draw(edge_frames())
    vertices = sorted(set(edges["src"]) | set(edges["dst"]))
    if draw(st.booleans()):
        b = draw(st.sampled_from([0, 1, 2, 3, 1000]))
    else:
        b = {v: draw(st.sampled_from([0, 1, 2, 3, 5, 10**6])) for v in vertices}
    return edges, b


def as_argument(b):
    return b if isinstance(b, int) else pd.Series(b)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=graphs_with_capacities())
def test_equals_greedy_b_matching(case):
    edges, b = case
    result = cm.b_suitor_matching(edges, b=as_argument(b), backend="cpu")
    assert edge_tuples(result) == oracle(edges, b)


@settings(max_examples=examples(60), deadline=None)
@given(case=graphs_with_capacities())
def test_eager_and_delayed_reproposal_agree(case):
    edges, b = case
    pg = cm.Graph(edges, backend="cpu")
    cap = capacities(pg, edges, as_argument(b))
    eager = b_suitor_pairs(pg, cap, eager=True)
    delayed = b_suitor_pairs(pg, cap, eager=False)
    for x, y in zip(eager, delayed):
        np.testing.assert_array_equal(x, y)


@settings(max_examples=examples(80), deadline=None)
@given(edges=edge_frames())
def test_b_one_is_suitor(edges):
    pairs = cm.b_suitor_matching(edges, b=1, backend="cpu")
    mates = cm.suitor_matching(edges, backend="cpu")
    matched = mates[mates["mate"].notna()]
    from_suitor = sorted((v, m, float(w)) for v, m, w in
                         zip(matched["vertex"], matched["mate"], matched["weight"]) if v < m)
    assert edge_tuples(pairs) == from_suitor


@settings(max_examples=examples(60), deadline=None)
@given(case=graphs_with_capacities())
def test_capacities_respected_and_pairs_are_edges(case):
    edges, b = case
    result = cm.b_suitor_matching(edges, b=as_argument(b), backend="cpu")
    load = pd.concat([result["src"], result["dst"]]).value_counts()
    for v, count in load.items():
        assert count <= (b if isinstance(b, int) else b[v])
    assert not result.duplicated(["src", "dst"]).any()
    assert (result["src"] < result["dst"]).all()
    known = {(min(u, v), max(u, v)) for u, v in zip(edges["src"], edges["dst"]) if u != v}
    assert all((u, v) in known for u, v in zip(result["src"], result["dst"]))


@settings(max_examples=examples(60), deadline=None)
@given(case=graphs_with_capacities())
def test_greedy_is_maximal_and_stable(case):
    """No unmatched edge has spare capacity at both ends, and none beats the weakest
    matched edge at both ends (the no-blocking-edge property of the greedy)."""
    edges, b = case
    result = cm.b_suitor_matching(edges, b=as_argument(b), backend="cpu")
    capacity = (lambda v: b) if isinstance(b, int) else b.__getitem__
    taken = {(u, v) for u, v in zip(result["src"], result["dst"])}
    load = pd.concat([result["src"], result["dst"]]).value_counts().to_dict()
    heaviest = {}
    for u, v, w in zip(edges["src"], edges["dst"], edges["weight"]):
        if u != v:
            key = (min(u, v), max(u, v))
            heaviest[key] = max(heaviest.get(key, 0.0), float(w))
    for (u, v), w in heaviest.items():
        if (u, v) not in taken:
            assert load.get(u, 0) >= capacity(u) or load.get(v, 0) >= capacity(v)


@settings(max_examples=examples(60), deadline=None)
@given(edges=edge_frames(max_vertices=7, max_edges=12, string_ids=False),
       b=st.sampled_from([1, 2, 3]))
def test_half_of_exact_b_matching(edges, b):
    result = cm.b_suitor_matching(edges, b=b, backend="cpu")
    exact = brute_force_max_b_matching(edges["src"], edges["dst"], edges["weight"], b)
    assert result["weight"].sum() >= 0.5 * exact - 1e-6


def test_huge_b_takes_every_edge():
    edges = cm.datasets.load("lesmis")
    result = cm.b_suitor_matching(edges, b=10**9, backend="cpu")
    assert len(result) == len(edges)
    assert result["weight"].sum() == pytest.approx(edges["weight"].sum())


def test_zero_b_takes_nothing():
    edges = cm.datasets.load("karate")
    result = cm.b_suitor_matching(edges, b=0, backend="cpu")
    assert len(result) == 0 and list(result.columns) == ["src", "dst", "weight"]


@needs_shared
@pytest.mark.parametrize("b", [2, 5])
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_real_graphs(path, b):
    edges, _ = read_graph(path)
    rng = np.random.default_rng(20261122)
    if "weight" not in edges:
        # few distinct values: many ties on purpose
        edges["weight"] = rng.integers(1, 8, len(edges)).astype(np.float32)
    result = cm.b_suitor_matching(edges, b=b, backend="cpu")
    assert edge_tuples(result) == oracle(edges, b)


@needs_shared
def test_real_graph_per_vertex_b():
    edges, _ = read_graph(SHARED_DATA / "graphs" / "polblogs.mtx")
    edges["weight"] = 1.0  # all ties
    vertices = sorted(set(edges["src"]) | set(edges["dst"]))
    rng = np.random.default_rng(7)
    b = dict(zip(vertices, rng.integers(0, 6, len(vertices)).tolist()))
    frame = pd.DataFrame({"vertex": list(b), "b": list(b.values())})
    result = cm.b_suitor_matching(edges, b=frame, backend="cpu")
    assert edge_tuples(result) == oracle(edges, b)


@needs_shared
@pytest.mark.parametrize("path", CUGRAPH_INPUTS, ids=lambda p: p.name)
def test_cugraph_awkward_inputs(path):
    edges, vertices = read_graph(path)
    if "weight" not in edges:
        edges["weight"] = 1.0
    result = cm.b_suitor_matching(edges, b=3, backend="cpu")
    assert edge_tuples(result) == oracle(edges, 3)


def test_networkx_node_attribute_and_isolated_vertex():
    graph = nx.Graph()
    graph.add_node("lonely", cap=4)
    graph.add_edge("a", "b", weight=3.0)
    graph.add_edge("a", "c", weight=2.0)
    graph.add_edge("b", "c", weight=1.0)
    nx.set_node_attributes(graph, {"a": 2, "b": 1, "c": 2}, "cap")
    result = cm.b_suitor_matching(graph, b="cap", backend="cpu")
    assert edge_tuples(result) == [("a", "b", 3.0), ("a", "c", 2.0)]


def test_input_is_not_modified():
    edges = cm.datasets.load("lesmis")
    b = pd.Series(2, index=sorted(set(edges["src"]) | set(edges["dst"])))
    before, b_before = edges.copy(), b.copy()
    cm.b_suitor_matching(edges, b=b, backend="cpu")
    pd.testing.assert_frame_equal(edges, before)
    pd.testing.assert_series_equal(b, b_before)


EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("b,error,message", [
    (-1, ValueError, "b must be non-negative, got -1"),
    (1.5, TypeError, "b must be an integer"),
    (True, TypeError, "b must be an int"),
    ([1, 2], TypeError, "got list"),
    ("cap", ValueError, "names a node attribute, which only a networkx.Graph"),
    (pd.Series([1, 1, 1], index=[0, 1, 2]), ValueError,
     "b Series: 1 vertex/vertices of the graph have no capacity; first is 3"),
    (pd.Series([1, 1, 1, 1, 1], index=[0, 1, 2, 3, 9]), ValueError,
     "b Series: 1 id(s) are not vertices of the graph; first is 9"),
    (pd.Series([1, -2, 1, 1], index=[0, 1, 2, 3]), ValueError,
     "b Series: 1 negative capacity value(s); first is for vertex 1"),
    (pd.Series([1, 2.5, 1, 1], index=[0, 1, 2, 3]), TypeError,
     "b Series: 1 capacity value(s) are not integers; first is for vertex 1"),
    (pd.Series([1, None, 1, 1], index=[0, 1, 2, 3]), ValueError,
     "b Series: 1 null capacity value(s); first is for vertex 1"),
    (pd.Series([1, 1, 1, 1, 2], index=[0, 1, 2, 3, 3]), ValueError,
     "b Series: 1 vertex id(s) appear more than once; first is 3"),
    (pd.DataFrame({"vertex": [0, 1, 2, 3], "cap": [1, 1, 1, 1]}), ValueError,
     "the b frame lacks column(s) ['b']"),
    (pd.DataFrame({"vertex": [0, 1, 2, 3], "b": ["1", "1", "1", "1"]}), TypeError,
     "b frame: 4 capacity value(s) are not integers; first is for vertex 0"),
])
def test_bad_b(b, error, message):
    with pytest.raises(error) as info:
        cm.b_suitor_matching(EDGES, b=b, backend="cpu")
    assert message in str(info.value)


@pytest.mark.parametrize("dtype", [pd.SparseDtype("int64", 0), pd.SparseDtype("float64", 0),
                                   "category"], ids=str)
def test_sparse_and_categorical_capacities_read_by_value(dtype):
    """A pandas sparse capacity Series raised AttributeError ('SparseDtype'
    object has no attribute 'itemsize'; before 2026-11-28): now read as its
    dense values, and a categorical one by value, with the same checks."""
    b = pd.Series([1, 2, 1, 1], index=[0, 1, 2, 3])
    pd.testing.assert_frame_equal(cm.b_suitor_matching(EDGES, b=b.astype(dtype), backend="cpu"),
                                  cm.b_suitor_matching(EDGES, b=b, backend="cpu"))
    with pytest.raises(ValueError, match="b Series: 1 negative capacity value"):
        cm.b_suitor_matching(EDGES, b=b.where(b != 2, -1).astype(dtype), backend="cpu")


def test_bad_node_attribute():
    graph = nx.Graph()
    graph.add_edge(0, 1, weight=1.0)
    graph.nodes[0]["cap"] = 1
    with pytest.raises(ValueError, match=r"node attribute 'cap': 1 node\(s\) lack it; first is 1"):
        cm.b_suitor_matching(graph, b="cap", backend="cpu")


def test_bad_edges_are_reported_as_for_every_algorithm():
    bad = EDGES.assign(weight=[1.0, -1.0, 2.0])
    with pytest.raises(ValueError, match="zero or negative"):
        cm.b_suitor_matching(bad, b=2, backend="cpu")
