"""Coarsening: contraction against a plain-Python reference, weight conservation, hierarchies."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA
from strategies import edge_frames, multigraphs_with_isolated

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")


def canonical_weights(edges):
    """{(lo, hi): weight} with duplicates keeping the largest (loops as (v, v))."""
    out = {}
    weights = edges["weight"] if "weight" in edges else [1.0] * len(edges)
    for u, v, w in zip(edges["src"], edges["dst"], weights):
        key = (min(u, v), max(u, v))
        out[key] = max(out.get(key, 0.0), float(w))
    return out


def reference_contraction(edges, matching):
    """Coarse ids and summed coarse edges, in plain Python."""
    vertices = sorted(set(edges["src"]) | set(edges["dst"]) | set(matching["vertex"]))
    mate = {v: m for v, m in zip(matching["vertex"], matching["mate"]) if not pd.isna(m)}
    representative = {v: min(v, mate[v]) if v in mate else v for v in vertices}
    reps = sorted(set(representative.values()))
    coarse_id = {r: i for i, r in enumerate(reps)}
    mapping = {v: coarse_id[representative[v]] for v in vertices}
    coarse = defaultdict(float)
    for (u, v), w in canonical_weights(edges).items():
        a, b = mapping[u], mapping[v]
        coarse[(min(a, b), max(a, b))] += w
    return mapping, dict(coarse)


def as_dict(coarse):
    return {(int(s), int(d)): float(w) for s, d, w in zip(coarse["src"], coarse["dst"],
                                                          coarse["weight"])}


@settings(max_examples=examples(100), deadline=None)
@given(edges=edge_frames(), method=st.sampled_from(["handshake", "suitor"]),
       seed=st.integers(0, 1000))
def test_contraction_equals_reference(edges, method, seed):
    matching = cm.maximal_matching(edges, method=method, seed=seed, backend="cpu")
    coarse, mapping = cm.coarsen(edges, matching, backend="cpu")
    expected_mapping, expected_coarse = reference_contraction(edges, matching)
    assert dict(zip(mapping["vertex"], mapping["coarse_vertex"])) == expected_mapping
    got = as_dict(coarse)
    assert got.keys() == expected_coarse.keys()
    for key, w in expected_coarse.items():
        assert got[key] == pytest.approx(w, rel=1e-6)
    # the weight is preserved, inside coarse vertices (self-loops) and across
    assert coarse["weight"].sum() == pytest.approx(sum(canonical_weights(edges).values()),
                                                   rel=1e-6)
    assert (coarse["src"] <= coarse["dst"]).all()
    assert not coarse.duplicated(["src", "dst"]).any()


@settings(max_examples=examples(40), deadline=None)
@given(case=multigraphs_with_isolated())
def test_mapping_covers_every_vertex(case):
    graph, edges, isolated = case
    matching = cm.maximal_matching(graph, backend="cpu")
    coarse, mapping = cm.coarsen(graph, matching, backend="cpu")
    assert sorted(mapping["vertex"]) == sorted(graph.nodes)
    pairs = int(matching["mate"].notna().sum()) // 2
    k = graph.number_of_nodes() - pairs
    assert sorted(set(mapping["coarse_vertex"])) == list(range(k))


def test_coarse_level_feeds_back_in():
    """A coarse edge list (with its self-loops) coarsens again and keeps its weight."""
    edges = cm.datasets.load("netscience")
    coarse, _ = cm.coarsen(edges, cm.maximal_matching(edges, backend="cpu"), backend="cpu")
    again, _ = cm.coarsen(coarse, cm.maximal_matching(coarse, backend="cpu"), backend="cpu")
    assert again["weight"].sum() == pytest.approx(edges["weight"].sum())


def test_partial_matching_frame_means_the_rest_unmatched():
    edges = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "d"]})
    coarse, mapping = cm.coarsen(edges, pd.DataFrame({"vertex": ["b", "c"], "mate": ["c", "b"]}),
                                 backend="cpu")
    assert mapping["coarse_vertex"].tolist() == [0, 1, 1, 2]
    assert as_dict(coarse) == {(0, 1): 1.0, (1, 1): 1.0, (1, 2): 1.0}


@pytest.mark.parametrize("matching", ["handshake", "suitor"])
def test_hierarchy_ends_and_shrinks(matching):
    edges = cm.datasets.load("netscience")
    levels = cm.coarsen_hierarchy(edges, min_vertices=100, matching=matching, backend="cpu")
    assert levels
    previous = sorted(set(edges["src"]) | set(edges["dst"]))
    total = edges["weight"].sum()
    for coarse, mapping in levels:
        assert mapping["vertex"].tolist() == previous
        k = int(mapping["coarse_vertex"].max()) + 1
        assert k <= 0.85 * len(previous)  # every kept level removed at least 15%
        assert coarse["weight"].sum() == pytest.approx(total)
        assert coarse[["src", "dst"]].max().max() < k
        previous = list(range(k))
    # it stopped because it is small enough or because the next level would not shrink
    last = levels[-1][1]
    k = int(last["coarse_vertex"].max()) + 1
    if k > 100:
        more = cm.coarsen_hierarchy(levels[-1][0], min_vertices=100, matching=matching,
                                    seed=len(levels), backend="cpu")
        assert more == [] or len(set(more[0][1]["vertex"])) < k  # isolated ones drop out


def test_hierarchy_max_ratio_decides_how_deep():
    edges = cm.datasets.load("netscience")
    strict = cm.coarsen_hierarchy(edges, min_vertices=10, max_ratio=0.7, backend="cpu")
    default = cm.coarsen_hierarchy(edges, min_vertices=10, backend="cpu")
    loose = cm.coarsen_hierarchy(edges, min_vertices=10, max_ratio=0.99, backend="cpu")
    assert len(strict) < len(default) < len(loose)
    # the levels they share are the same levels
    for (a, am), (b, bm) in zip(strict, loose):
        pd.testing.assert_frame_equal(a, b)
        pd.testing.assert_frame_equal(am, bm)


def test_hierarchy_small_graph_has_no_level():
    assert cm.coarsen_hierarchy(cm.datasets.load("karate"), min_vertices=1000,
                                backend="cpu") == []


@needs_shared
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_real_graph_hierarchies_end(path):
    edges, _ = read_graph(path)
    levels = cm.coarsen_hierarchy(edges, min_vertices=50, backend="cpu")
    sizes = [len(mapping) for _, mapping in levels]
    assert sizes == sorted(sizes, reverse=True)
    assert len(levels) < 64
    total = sum(canonical_weights(edges).values())  # pattern graphs: weight 1 per edge
    if levels:
        assert levels[-1][0]["weight"].sum() == pytest.approx(total)


def test_inputs_are_not_modified():
    edges = cm.datasets.load("lesmis")
    matching = cm.maximal_matching(edges, backend="cpu")
    before, matching_before = edges.copy(), matching.copy()
    cm.coarsen(edges, matching, backend="cpu")
    cm.coarsen_hierarchy(edges, min_vertices=10, backend="cpu")
    pd.testing.assert_frame_equal(edges, before)
    pd.testing.assert_frame_equal(matching, matching_before)


PATH = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("matching,error,message", [
    (pd.DataFrame({"vertex": [0, 1]}), ValueError, "matching frame lacks column(s) ['mate']"),
    ([0, 1], TypeError, "matching must be a vertex|mate DataFrame, got list"),
    (pd.DataFrame({"vertex": [0, 1, 1], "mate": [1, 0, 0]}), ValueError,
     "matching: 1 vertex id(s) appear more than once; first is 1"),
    (pd.DataFrame({"vertex": [0, 1], "mate": [1, 2]}), ValueError,
     "matching is not symmetric: 2 vertex/vertices have a mate that is not matched back; "
     "first is 0 -> 1"),
    (pd.DataFrame({"vertex": [0, 3], "mate": [3, 0]}), ValueError,
     "matching pairs 1 vertex pair(s) that are not edges of the graph; first is 0 - 3"),
    (pd.DataFrame({"vertex": [0, 7], "mate": [7, 0]}), ValueError,
     "matching column 'vertex': 1 id(s) are not vertices of the graph; first is 7"),
    # rows without a mate were dropped before their ids were checked
    (pd.DataFrame({"vertex": pd.array([0, 1, 2, 3, 9], dtype="Int64"),
                   "mate": pd.array([1, 0, None, None, None], dtype="Int64")}), ValueError,
     "matching column 'vertex': 1 id(s) are not vertices of the graph; first is 9"),
    (pd.DataFrame({"vertex": pd.array([0, 1, None, 3], dtype="Int64"),
                   "mate": pd.array([1, 0, None, None], dtype="Int64")}), ValueError,
     "matching column 'vertex': 1 null id(s); first is row 2"),
])
def test_bad_matching(matching, error, message):
    with pytest.raises(error) as info:
        cm.coarsen(PATH, matching, backend="cpu")
    assert message in str(info.value)


@pytest.mark.parametrize("kwargs,message", [
    ({"min_vertices": 0}, "min_vertices must be a positive int, got 0"),
    ({"max_levels": -1}, "max_levels must be a non-negative int, got -1"),
    ({"matching": "greedy"}, "matching must be one of ('handshake', 'suitor')"),
    ({"max_ratio": 0}, "max_ratio must be a number in (0, 1], got 0"),
    ({"max_ratio": 1.5}, "max_ratio must be a number in (0, 1], got 1.5"),
    ({"max_ratio": 1j}, "max_ratio must be a number in (0, 1], got 1j"),
    ({"weighted": "no"}, "weighted must be True or False, got 'no'"),
])
def test_bad_hierarchy_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError)) as info:
        cm.coarsen_hierarchy(PATH, backend="cpu", **kwargs)
    assert message in str(info.value)


def test_is_matching_flag_is_checked():
    unmatched = pd.DataFrame({"vertex": [0, 1, 2, 3], "mate": pd.array([None] * 4, dtype="Int64")})
    assert cm.is_matching(PATH, unmatched) and not cm.is_matching(PATH, unmatched, maximal=True)
    with pytest.raises(TypeError, match="maximal must be True or False, got 'no'"):
        cm.is_matching(PATH, unmatched, maximal="no")  # read as True, it said False


def test_hierarchy_stops_when_a_level_contracts_nothing():
    """With max_ratio=1 a level of an edgeless graph (its matching empty) was
    kept, again and again, up to max_levels."""
    two_edges = pd.DataFrame({"src": [0, 2], "dst": [1, 3]})
    levels = cm.coarsen_hierarchy(two_edges, min_vertices=1, max_ratio=1.0, max_levels=6,
                                  backend="cpu")
    assert [len(mapping) for _, mapping in levels] == [4]
    sizes = [int(m["coarse_vertex"].max()) + 1 for _, m in cm.coarsen_hierarchy(
        cm.datasets.load("netscience"), min_vertices=1, max_ratio=1.0, backend="cpu")]
    assert sizes == sorted(set(sizes), reverse=True)  # every level smaller than the last


def test_dtypes():
    coarse, mapping = cm.coarsen(PATH, cm.suitor_matching(PATH, backend="cpu"), backend="cpu")
    assert coarse["src"].dtype == np.int64 and coarse["weight"].dtype == np.float64
    assert mapping["coarse_vertex"].dtype == np.int64


def test_levels_are_logged_at_info(caplog):
    """Each kept level is one progress line (logger ``cugraph_match``, INFO)."""
    with caplog.at_level("INFO", logger="cugraph_match"):
        levels = cm.coarsen_hierarchy(cm.datasets.load("netscience"), min_vertices=200,
                                      backend="cpu")
    lines = [r.getMessage() for r in caplog.records
             if r.getMessage().startswith("coarsen_hierarchy level ")]
    assert len(lines) == len(levels)
    assert lines[0].startswith("coarsen_hierarchy level 0: 1,461 vertices, 2,742 edges, "
                               "coarse vertices 849, coarse edges ")
    assert lines[1].startswith("coarsen_hierarchy level 1: 849 vertices, ")
