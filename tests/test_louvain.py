"""Modularity against NetworkX, Louvain against igraph's sequential Louvain, and bad input."""

from __future__ import annotations

import random

import networkx as nx
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
CUGRAPH_INPUTS = sorted((SHARED_DATA / "cugraph").glob("*.*"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")


def nx_graph(edges, weighted=True):
    """The library's graph semantics in NetworkX: undirected, duplicates keep the
    largest weight, self-loops kept."""
    graph = nx.Graph()
    weights = edges["weight"] if weighted and "weight" in edges else [1.0] * len(edges)
    for u, v, w in zip(edges["src"], edges["dst"], weights):
        if not graph.has_edge(u, v) or graph[u][v]["weight"] < w:
            graph.add_edge(u, v, weight=float(w))
    return graph


def partitions(edges, vertices, seed=0):
    rng = np.random.default_rng(seed)
    parts, _ = cm.louvain(edges, backend="cpu")
    return {
        "singletons": pd.DataFrame({"vertex": vertices, "community": range(len(vertices))}),
        "one": pd.DataFrame({"vertex": vertices, "community": 0}),
        "louvain": parts,
        "random": pd.DataFrame({"vertex": vertices,
                                "community": rng.integers(0, 7, len(vertices))}),
    }


def as_sets(parts):
    return [set(group) for _, group in parts.groupby("community")["vertex"]]


def edge_list_modularity(edges, parts, resolution=1.0):
    """Modularity as NetworkX defines it, summed straight from the edge list
    (the library's semantics: undirected, a duplicate keeps its largest
    weight, a self-loop counts once inside its community and twice in its
    vertex's degree): sum over communities of L_c / m - resolution *
    (d_c / 2m)^2.  Shares no code with ``cm.modularity``."""
    u, v = edges["src"].to_numpy(), edges["dst"].to_numpy()
    w = edges["weight"].to_numpy(np.float64) if "weight" in edges else np.ones(len(edges))
    pairs = pd.DataFrame({"lo": np.minimum(u, v), "hi": np.maximum(u, v), "w": w})
    pairs = pairs.groupby(["lo", "hi"], as_index=False)["w"].max()
    community = pd.Series(parts["community"].to_numpy(), index=parts["vertex"].to_numpy())
    cu = community.reindex(pairs["lo"].to_numpy()).to_numpy()
    cv = community.reindex(pairs["hi"].to_numpy()).to_numpy()
    w = pairs["w"].to_numpy()
    m = w.sum()
    inside = w[cu == cv].sum()
    degree = pd.Series(np.concatenate([w, w])).groupby(np.concatenate([cu, cv])).sum()
    return inside / m - resolution * float((degree.to_numpy() ** 2).sum()) / (2.0 * m) ** 2


#: NetworkX's graph and modularity (pure Python) are the oracle up to this
#: many edges; above it, measured on the 2-core machine, they took 4-14 s a
#: graph (wing, MIT8, astro-ph, wiki-Vote: a tenth of the unit pass's slowest
#: items) and the edge-list sum is the oracle there, itself checked equal to
#: NetworkX's on every graph below.
NETWORKX_EDGES = 50_000


@needs_shared
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_modularity_equals_networkx_and_the_edge_list_sum(path):
    edges, _ = read_graph(path)
    unweighted = edges.drop(columns=["weight"], errors="ignore")
    weighted = unweighted.assign(
        weight=np.random.default_rng(3).integers(1, 10, len(edges)).astype(np.float64))
    small = len(edges) <= NETWORKX_EDGES
    # each frame's NetworkX graph and partitions are made once, for both resolutions
    for frame, resolutions in [(unweighted, (1.0, 0.5)), (weighted, (1.0, 2.5))]:
        graph = nx_graph(frame) if small else None
        vertices = sorted(graph.nodes) if small else \
            np.unique(np.concatenate([frame["src"], frame["dst"]])).tolist()
        for name, parts in partitions(frame, vertices).items():
            sets = as_sets(parts) if small else None
            for resolution in resolutions:
                ours = cm.modularity(frame, parts, resolution=resolution)
                summed = edge_list_modularity(frame, parts, resolution)
                assert ours == pytest.approx(summed, abs=1e-9), (name, resolution)
                if small:
                    theirs = nx.community.modularity(graph, sets, weight="weight",
                                                     resolution=resolution)
                    assert ours == pytest.approx(theirs, abs=1e-9), (name, resolution)
                    assert summed == pytest.approx(theirs, abs=1e-9), (name, resolution)


@needs_shared
@pytest.mark.parametrize("path", CUGRAPH_INPUTS, ids=lambda p: p.name)
def test_modularity_self_loops_and_duplicates_as_networkx(path):
    edges, _ = read_graph(path)
    graph = nx_graph(edges)
    vertices = sorted(graph.nodes, key=str)
    if len({type(v) for v in vertices}) > 1:
        pytest.skip("mixed id types")
    vertices = sorted(vertices)
    for parts in partitions(edges, vertices).values():
        theirs = nx.community.modularity(graph, as_sets(parts), weight="weight")
        assert cm.modularity(edges, parts) == pytest.approx(theirs, abs=1e-9)
        # the other oracle keeps NetworkX's self-loop and duplicate conventions
        assert edge_list_modularity(edges, parts) == pytest.approx(theirs, abs=1e-9)


def igraph_modularity(edges, seeds=(0, 1, 2)):
    """Mean modularity of igraph's community_multilevel (a sequential Louvain)."""
    ig = pytest.importorskip("igraph")
    graph = nx_graph(edges)
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    g = ig.Graph(n=len(nodes), edges=[(index[u], index[v]) for u, v in graph.edges])
    g.es["weight"] = [d["weight"] for _, _, d in graph.edges(data=True)]
    values = []
    for seed in seeds:
        random.seed(seed)  # igraph draws from Python's random module
        values.append(g.modularity(g.community_multilevel(weights="weight"), weights="weight"))
    return float(np.mean(values))


@needs_shared
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_louvain_quality_against_igraph(path):
    edges, _ = read_graph(path)
    parts, q = cm.louvain(edges, backend="cpu")
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-12)
    assert q >= 0.99 * igraph_modularity(edges)
    assert parts["vertex"].tolist() == sorted(set(edges["src"]) | set(edges["dst"]))


@settings(max_examples=examples(60), deadline=None)
@given(edges=edge_frames(string_ids=False), resolution=st.sampled_from([0.5, 1.0, 2.0]),
       seed=st.integers(0, 100))
def test_reported_q_is_the_modularity_and_labels_are_dense(edges, resolution, seed):
    parts, q = cm.louvain(edges, resolution=resolution, seed=seed, backend="cpu")
    assert q == pytest.approx(cm.modularity(edges, parts, resolution=resolution), abs=1e-12)
    first_seen = parts.drop_duplicates("community")["community"].tolist()
    assert first_seen == list(range(len(first_seen)))  # 0..k-1 in order of first vertex
    graph = nx_graph(edges)
    assert q == pytest.approx(nx.community.modularity(graph, as_sets(parts), weight="weight",
                                                      resolution=resolution), abs=1e-9)


@settings(max_examples=examples(40), deadline=None)
@given(edges=edge_frames(max_vertices=12, max_edges=30, string_ids=False))
def test_no_single_move_improves_the_result(edges):
    """With threshold 0 the last phase ends when no vertex moves: the result is a
    local optimum; moving any one vertex to a neighbouring community cannot raise Q."""
    parts, q = cm.louvain(edges, threshold=0.0, backend="cpu")
    graph = nx_graph(edges)
    community = dict(zip(parts["vertex"], parts["community"]))
    for v in graph.nodes:
        for c in {community[u] for u in graph.neighbors(v)} - {community[v]}:
            moved = parts.assign(community=[c if x == v else community[x]
                                            for x in parts["vertex"]])
            assert cm.modularity(edges, moved) <= q + 1e-12


@settings(max_examples=examples(30), deadline=None)
@given(case=multigraphs_with_isolated())
def test_isolated_vertices_get_their_own_community(case):
    graph, edges, isolated = case
    if all(u == v for u, v in graph.edges()):
        return  # no edge weight: louvain refuses (tested below)
    parts, q = cm.louvain(graph, backend="cpu")
    lone = parts.set_index("vertex").loc[isolated, "community"]
    assert lone.is_unique
    assert not parts.set_index("vertex").drop(index=isolated)["community"].isin(lone).any()
    assert q == pytest.approx(cm.modularity(graph, parts), abs=1e-12)


def test_resolution_controls_community_size():
    edges = cm.datasets.load("netscience")
    few = cm.louvain(edges, resolution=0.2, backend="cpu")[0]["community"].nunique()
    many = cm.louvain(edges, resolution=5.0, backend="cpu")[0]["community"].nunique()
    assert few < many


def test_same_seed_same_result():
    edges = cm.datasets.load("lesmis")
    a = cm.louvain(edges, seed=4, backend="cpu")
    b = cm.louvain(edges, seed=4, backend="cpu")
    pd.testing.assert_frame_equal(a[0], b[0])
    assert a[1] == b[1]


def test_two_triangles_by_hand():
    edges = pd.DataFrame({"src": [0, 0, 1, 3, 3, 4, 2], "dst": [1, 2, 2, 4, 5, 5, 3]})
    parts, q = cm.louvain(edges, backend="cpu")
    assert parts["community"].tolist() == [0, 0, 0, 1, 1, 1]
    # m = 7; each triangle: 3 internal edges, degree sum 7
    assert q == pytest.approx(2 * (3 / 7 - (7 / 14) ** 2))


def test_networkx_directed_needs_symmetrize():
    graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4)])
    with pytest.raises(ValueError, match="louvain needs an undirected graph, got a directed "
                                         "DiGraph; pass symmetrize=True"):
        cm.louvain(graph, backend="cpu")
    parts, q = cm.louvain(graph, symmetrize=True, backend="cpu")
    assert q == pytest.approx(cm.modularity(graph, parts, symmetrize=True))
    with pytest.raises(ValueError, match="modularity needs an undirected graph"):
        cm.modularity(graph, parts)


def test_inputs_are_not_modified():
    edges = cm.datasets.load("lesmis")
    before = edges.copy()
    parts, _ = cm.louvain(edges, backend="cpu")
    parts_before = parts.copy()
    cm.modularity(edges, parts)
    pd.testing.assert_frame_equal(edges, before)
    pd.testing.assert_frame_equal(parts, parts_before)


EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("kwargs,error,message", [
    ({"resolution": 0}, ValueError, "resolution must be a positive finite number, got 0"),
    ({"resolution": float("nan")}, ValueError, "resolution must be a positive finite number"),
    ({"threshold": -1.0}, ValueError, "threshold must be a non-negative number, got -1.0"),
    ({"max_level": 0}, ValueError, "max_level must be a positive int, got 0"),
    ({"seed": "a"}, TypeError, "seed must be an int, got 'a'"),
    ({"resolution": np.complex128(1)}, ValueError, "resolution must be a positive finite number"),
    ({"threshold": np.complex128(0)}, ValueError, "threshold must be a non-negative number"),
    ({"refine": "False"}, TypeError, "refine must be True or False, got 'False'"),
    ({"symmetrize": "no"}, TypeError, "symmetrize must be True or False, got 'no'"),
])
def test_bad_louvain_arguments(kwargs, error, message):
    with pytest.raises(error) as info:
        cm.louvain(EDGES, backend="cpu", **kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize("scalar", [np.float16, np.float32, np.longdouble, np.int8, np.uint64])
def test_numpy_scalar_arguments_are_read_as_floats(scalar):
    """A float16 or longdouble resolution or threshold passed the checks and
    then crashed in the kernels (Numba takes neither); a float32 one gave its
    dtype to Q.  Every NumPy real scalar is read as the float it holds."""
    edges = cm.datasets.load("karate")
    parts, q = cm.louvain(edges, resolution=scalar(1), threshold=scalar(0), backend="cpu")
    expected = cm.louvain(edges, resolution=1.0, threshold=0.0, backend="cpu")
    pd.testing.assert_frame_equal(parts, expected[0])
    assert type(q) is float and q == expected[1]
    value = cm.modularity(edges, parts, resolution=scalar(1))
    assert type(value) is float and value == cm.modularity(edges, parts)
    parts, q = cm.leiden(edges, resolution=scalar(1), threshold=scalar(0), theta=scalar(1),
                         backend="cpu")
    assert type(q) is float
    assert q == cm.leiden(edges, resolution=1.0, threshold=0.0, theta=1.0, backend="cpu")[1]


def test_bad_edges_and_edgeless_graphs():
    with pytest.raises(ValueError, match="weight column 'weight' has 1 zero or negative"):
        cm.louvain(EDGES.assign(weight=[1.0, 0.0, 2.0]), backend="cpu")
    lonely = nx.Graph()
    lonely.add_nodes_from([1, 2, 3])
    with pytest.raises(ValueError, match="louvain needs at least one edge"):
        cm.louvain(lonely, backend="cpu")
    with pytest.raises(ValueError, match="modularity is undefined for a graph whose total"):
        cm.modularity(lonely, pd.DataFrame({"vertex": [1, 2, 3], "community": [0, 0, 1]}))


@pytest.mark.parametrize("partition,error,message", [
    (pd.DataFrame({"vertex": [0, 1, 2, 3]}), ValueError,
     "partition frame lacks column(s) ['community']"),
    ({0: 1}, TypeError, "partition must be a vertex|community DataFrame, got dict"),
    (pd.DataFrame({"vertex": [0, 1, 2], "community": [0, 0, 1]}), ValueError,
     "partition: 1 vertex/vertices of the graph have no community; first is 3"),
    (pd.DataFrame({"vertex": [0, 1, 2, 3, 3], "community": [0, 0, 1, 1, 1]}), ValueError,
     "partition: 1 vertex id(s) appear more than once; first is 3"),
    (pd.DataFrame({"vertex": [0, 1, 2, 9], "community": [0, 0, 1, 1]}), ValueError,
     "partition column 'vertex': 1 id(s) are not vertices of the graph; first is 9"),
    (pd.DataFrame({"vertex": [0, 1, 2, 3], "community": [0, None, 1, 1]}), ValueError,
     "partition: 1 vertex/vertices have a null community; first is 1"),
    # a null vertex: a TypeError from pandas ("boolean value of NA is ambiguous")
    (pd.DataFrame({"vertex": pd.array([0, 1, None, 3], dtype="Int64"),
                   "community": [0, 0, 1, 1]}), ValueError,
     "partition column 'vertex': 1 null id(s); first is row 2"),
    (pd.DataFrame({"vertex": [0, 1, 2, None], "community": [0, 0, 1, 1]}, dtype=object),
     ValueError, "partition column 'vertex': 1 null id(s); first is row 3"),
    (pd.DataFrame({"vertex": [0.0, 1.0, 2.0, 2.5], "community": [0, 0, 1, 1]}), ValueError,
     "partition column 'vertex': 1 id(s) are not vertices of the graph; first is 2.5"),
])
def test_bad_partitions(partition, error, message):
    with pytest.raises(error) as info:
        cm.modularity(EDGES, partition)
    assert message in str(info.value)


def test_float_vertex_ids_are_compared_exactly():
    """Float partition ids were compared with the graph's integer ids as
    floats, so 2.0**53 found the vertex 2**53 + 1 (and Q was computed for a
    partition the caller did not give); whole floats within range are the
    integers they hold."""
    big = 2**53 + 1
    edges = pd.DataFrame({"src": [0, 0, big], "dst": [big, 5, 5]})
    with pytest.raises(ValueError, match="1 id\\(s\\) are not vertices of the graph"):
        cm.modularity(edges, pd.DataFrame({"vertex": [0.0, 5.0, float(2**53)],
                                           "community": [0, 1, 1]}))
    small = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})
    as_floats = pd.DataFrame({"vertex": [0.0, 1.0, 2.0, 3.0], "community": [0, 0, 1, 1]})
    assert cm.modularity(small, as_floats) == \
        cm.modularity(small, as_floats.astype({"vertex": np.int64}))
    with pytest.raises(ValueError, match="first is 1e\\+20"):
        cm.modularity(small.astype(np.uint64), as_floats.assign(vertex=[0.0, 1.0, 2.0, 1e20]))


def test_modularity_symmetrize_is_a_flag():
    parts = pd.DataFrame({"vertex": [0, 1, 2, 3], "community": [0, 0, 1, 1]})
    with pytest.raises(TypeError, match="symmetrize must be True or False, got 'no'"):
        cm.modularity(EDGES, parts, symmetrize="no")


def test_string_community_labels():
    parts = pd.DataFrame({"vertex": [0, 1, 2, 3], "community": ["a", "a", "b", "b"]})
    numeric = parts.assign(community=[0, 0, 1, 1])
    assert cm.modularity(EDGES, parts) == cm.modularity(EDGES, numeric)


@pytest.mark.parametrize("algorithm", ["louvain", "leiden"])
@pytest.mark.parametrize("resolution", [1e306, 1e307, 4e307])
def test_a_resolution_near_float64_max_gives_the_singletons(algorithm, resolution):
    """resolution * k_v * a_c overflowed near 1e307 on the karate club: the
    move phase compared inf with finite gains and merged every vertex into
    one community (Q = 1 - resolution = -1e307, against the singletons'
    -5.1e305; Leiden stopped at 32 communities).  At such a resolution every
    merge loses, so the singletons are the answer, with their exact Q."""
    karate = nx.to_pandas_edgelist(nx.karate_club_graph(), source="src", target="dst")
    parts, q = getattr(cm, algorithm)(karate, resolution=resolution, backend="cpu")
    assert parts["community"].nunique() == len(parts)
    singletons = parts.assign(community=np.arange(len(parts)))
    assert q == pytest.approx(cm.modularity(karate, singletons, resolution=resolution),
                              rel=1e-12)
    assert q > -resolution / 10


def test_a_resolution_overflowing_at_any_scale_is_refused():
    karate = cm.datasets.load("karate")
    for f in (cm.louvain, cm.leiden):
        with pytest.raises(ValueError, match=r"resolution 1e\+308 is too large.*above 4\.494e\+307"):
            f(karate, resolution=1e308, backend="cpu")
    # a rescaling that would push the smallest weight out of float64's normal range
    spread = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
                           "weight": [1e-300, 1e77, 1.0]})
    with pytest.raises(ValueError, match="too large for this graph's weights.*use a resolution "
                                         "below"):
        cm.louvain(spread, resolution=1e200, backend="cpu")
    cm.louvain(spread, resolution=1e150, backend="cpu")  # under the bound it names
