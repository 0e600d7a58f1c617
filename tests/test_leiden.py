"""Leiden: every community connected, Q equal to the modularity, quality against
igraph's Leiden and our Louvain, determinism, bad input, progress logging, and
the NetworkX backend's leiden_communities / leiden_partitions."""

from __future__ import annotations

import io
import logging
import random
import subprocess
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from oracle import REPO, SHARED_DATA
from strategies import edge_frames, multigraphs_with_isolated

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
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


def disconnected_pieces(edges, parts) -> int:
    """How many more connected pieces the communities have than there are
    communities (0: every community induces a connected subgraph), by SciPy's
    connected components of the edges inside communities."""
    ids = parts["vertex"].to_numpy()
    community = parts["community"].to_numpy()
    order = np.argsort(ids, kind="stable")
    src = order[np.searchsorted(ids[order], edges["src"].to_numpy())]
    dst = order[np.searchsorted(ids[order], edges["dst"].to_numpy())]
    inside = community[src] == community[dst]
    n = len(ids)
    matrix = sp.coo_matrix((np.ones(int(inside.sum())), (src[inside], dst[inside])), shape=(n, n))
    pieces, _ = connected_components(matrix, directed=False)
    return pieces - len(np.unique(community))


def check_result(edges, parts, q, resolution=1.0):
    """The contract every call must meet."""
    assert disconnected_pieces(edges, parts) == 0
    assert q == pytest.approx(cm.modularity(edges, parts, resolution=resolution), abs=1e-12)
    first_seen = parts.drop_duplicates("community")["community"].tolist()
    assert first_seen == list(range(len(first_seen)))  # 0..k-1 in order of first vertex
    assert parts["vertex"].is_monotonic_increasing


# --------------------------------------------------------------------------
# connectivity and Q
# --------------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(edges=edge_frames(string_ids=False), resolution=st.sampled_from([0.5, 1.0, 2.0]),
       theta=st.sampled_from([0.0, 0.01, 1.0]), seed=st.integers(0, 100),
       max_level=st.sampled_from([1, 2, 100]))
def test_every_community_is_connected_and_q_is_the_modularity(edges, resolution, theta, seed,
                                                              max_level):
    parts, q = cm.leiden(edges, resolution=resolution, theta=theta, seed=seed,
                         max_level=max_level, backend="cpu")
    check_result(edges, parts, q, resolution)
    # the run cut at max_level keeps what its last level reached (splitting only adds)
    from cugraph_match.community.leiden import leiden_levels
    from cugraph_match.structure.backend import resolve_backend

    g = cm.Graph(edges, backend="cpu").weighted_graph()
    reached = [level_q for _, level_q, final in
               leiden_levels(g, resolution, 1e-7, max_level, resolve_backend("cpu"), seed, theta)
               if not final]
    assert q >= max(reached) - 1e-12
    graph = nx_graph(edges)
    communities = [set(g) for _, g in parts.groupby("community")["vertex"]]
    assert all(nx.is_connected(graph.subgraph(c)) for c in communities)
    assert q == pytest.approx(nx.community.modularity(graph, communities, weight="weight",
                                                      resolution=resolution), abs=1e-9)


@settings(max_examples=examples(40), deadline=None)
@given(edges=edge_frames(max_vertices=40, max_edges=120, string_ids=False),
       seed=st.integers(0, 100))
def test_the_refinement_not_the_safety_net_makes_communities_connected(edges, seed):
    """A run that ends on its own (not cut by max_level) leaves the final
    connected-components split nothing to do: the refinement and Leiden's
    empty-community moves separated every piece."""
    from cugraph_match.community.leiden import leiden_levels
    from cugraph_match.structure.backend import resolve_backend

    g = cm.Graph(edges, backend="cpu").weighted_graph()
    levels = list(leiden_levels(g, 1.0, 1e-7, 1000, resolve_backend("cpu"), seed))
    assert len(levels) < 1000
    last, final = levels[-2][0], levels[-1][0]
    np.testing.assert_array_equal(last, final)


@settings(max_examples=examples(80), deadline=None)
@given(edges=edge_frames(max_vertices=30, max_edges=90, string_ids=False),
       labels=st.lists(st.integers(0, 3), min_size=30, max_size=30),
       theta=st.sampled_from([0.0, 0.01, 1.0]), seed=st.integers(0, 50))
def test_refined_communities_are_connected_and_inside_the_partition(edges, labels, theta, seed):
    """The refinement kernel alone, from an arbitrary (often disconnected)
    partition: every refined community lies inside one community, induces a
    connected subgraph (NetworkX), and only well-connected vertices join."""
    from cugraph_match.community.leiden_cpu import refine_partition
    from cugraph_match.community.louvain import level_rows
    from cugraph_match.community.louvain_cpu import weighted_degrees

    prepared = cm.Graph(edges, backend="cpu")
    g = prepared.weighted_graph()
    offsets, indices, weights = level_rows(g, np)
    n = g.n
    community = np.asarray(labels[:n], dtype=np.int64)
    k = weighted_degrees(offsets, weights, g.loop)
    rng = np.random.default_rng(seed)
    order, uniform = rng.permutation(n), rng.random(n)
    refined, joined = refine_partition(offsets, indices, weights, k, float(k.sum()), community,
                                       1.0, theta, order, uniform)
    assert joined == n - len(np.unique(refined))
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    row = np.repeat(np.arange(n), np.diff(offsets))
    graph.add_edges_from(zip(row.tolist(), indices.tolist()))
    two_m = float(k.sum())
    for label in np.unique(refined):
        members = np.flatnonzero(refined == label)
        assert len(set(community[members])) == 1
        assert nx.is_connected(graph.subgraph(members.tolist()))
        if len(members) > 1:  # each member was well connected to its community
            s = community[members[0]]
            same = np.flatnonzero(community == s)
            for v in members:
                inside = sum(weights[e] for e in range(offsets[v], offsets[v + 1])
                             if community[indices[e]] == s)
                assert inside >= k[v] * (k[same].sum() - k[v]) / two_m - 1e-9
    again, _ = refine_partition(offsets, indices, weights, k, two_m, community, 1.0, theta,
                                order, uniform)
    np.testing.assert_array_equal(refined, again)


@needs_shared
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_shared_graphs_connected_and_as_good_as_louvain(path):
    """Every shared graph: connected communities, Q = modularity, and (within
    12 levels, about two iterations, to keep the test fast) at least 99.5% of
    our Louvain's Q."""
    edges, _ = read_graph(path)
    parts, q = cm.leiden(edges, max_level=12, backend="cpu")
    check_result(edges, parts, q)
    assert parts["vertex"].tolist() == sorted(set(edges["src"]) | set(edges["dst"]))
    assert q >= 0.995 * cm.louvain(edges, backend="cpu")[1]


def igraph_leiden_modularity(edges, seeds=(0, 1, 2)):
    """Mean modularity of igraph's converged Leiden (n_iterations=-1)."""
    ig = pytest.importorskip("igraph")
    graph = nx_graph(edges)
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    g = ig.Graph(n=len(nodes), edges=[(index[u], index[v]) for u, v in graph.edges])
    g.es["weight"] = [d["weight"] for _, _, d in graph.edges(data=True)]
    values = []
    for seed in seeds:
        random.seed(seed)
        ig.set_random_number_generator(random)
        part = g.community_leiden(objective_function="modularity", weights="weight",
                                  n_iterations=-1)
        values.append(g.modularity(part, weights="weight"))
    return float(np.mean(values))


@needs_shared
@pytest.mark.parametrize("name", ["karate", "lesmis", "jazz", "polblogs", "celegans_metabolic",
                                  "PGPgiantcompo", "hep-th"])
def test_quality_against_igraph_leiden(name):
    """The default run reaches 99.5% of igraph's converged Leiden (the smaller
    shared graphs; the benchmark covers all of them)."""
    edges, _ = read_graph(SHARED_DATA / "graphs" / f"{name}.mtx")
    _, q = cm.leiden(edges, backend="cpu")
    assert q >= 0.995 * igraph_leiden_modularity(edges)


LFR = [(0.1, 0.9), (0.3, 0.8), (0.5, None)]  # (mixing parameter, lowest NMI asserted)


@pytest.mark.parametrize("mu,nmi_floor", LFR, ids=[f"mu={mu}" for mu, _ in LFR])
def test_lfr_graphs(mu, nmi_floor):
    """LFR benchmark graphs (NetworkX's generator, 300 nodes): connected
    communities, Q at least our Louvain's, and the planted communities found
    while the mixing is low."""
    graph = nx.LFR_benchmark_graph(300, 3, 1.5, mu, average_degree=8, max_degree=40,
                                   min_community=20, seed=1)
    graph.remove_edges_from(nx.selfloop_edges(graph))
    edges = nx.to_pandas_edgelist(graph, source="src", target="dst")
    parts, q = cm.leiden(graph, backend="cpu", seed=3)
    check_result(edges, parts, q)
    assert q >= 0.995 * cm.louvain(graph, backend="cpu", seed=3)[1]
    if nmi_floor is not None:
        planted = {v: min(graph.nodes[v]["community"]) for v in graph}
        truth = [planted[v] for v in parts["vertex"]]
        assert normalized_mutual_information(truth, parts["community"].tolist()) >= nmi_floor


def normalized_mutual_information(a, b) -> float:
    """NMI with the arithmetic-mean normalisation (scikit-learn's default)."""
    _, a = np.unique(a, return_inverse=True)
    _, b = np.unique(b, return_inverse=True)
    joint = np.zeros((a.max() + 1, b.max() + 1))
    np.add.at(joint, (a, b), 1.0)
    joint /= joint.sum()
    pa, pb = joint.sum(1), joint.sum(0)
    nz = joint > 0
    mutual = float((joint[nz] * np.log(joint[nz] / np.outer(pa, pb)[nz])).sum())
    entropy = lambda p: -float((p[p > 0] * np.log(p[p > 0])).sum())  # noqa: E731
    return mutual / ((entropy(pa) + entropy(pb)) / 2) if entropy(pa) + entropy(pb) else 1.0


# --------------------------------------------------------------------------
# the contract shared with louvain
# --------------------------------------------------------------------------


def test_same_seed_same_result_and_graph_reuse():
    edges = cm.datasets.load("lesmis")
    before = edges.copy()
    a = cm.leiden(edges, seed=4, backend="cpu")
    b = cm.leiden(edges, seed=4, backend="cpu")
    pd.testing.assert_frame_equal(a[0], b[0])
    assert a[1] == b[1]
    c = cm.leiden(cm.Graph(edges, backend="cpu"), seed=4, random_state=None)
    pd.testing.assert_frame_equal(a[0], c[0])
    d = cm.leiden(edges, random_state=4, max_iter=100, backend="cpu")
    pd.testing.assert_frame_equal(a[0], d[0])
    pd.testing.assert_frame_equal(edges, before)


def test_two_triangles_by_hand():
    edges = pd.DataFrame({"src": [0, 0, 1, 3, 3, 4, 2], "dst": [1, 2, 2, 4, 5, 5, 3]})
    parts, q = cm.leiden(edges, backend="cpu")
    assert parts["community"].tolist() == [0, 0, 0, 1, 1, 1]
    assert q == pytest.approx(2 * (3 / 7 - (7 / 14) ** 2))


def test_two_cliques_joined_through_a_bridge_stay_apart():
    """Two 5-cliques joined by one edge, at a resolution low enough that
    modularity prefers one community: Leiden may merge them (the bridge keeps
    it connected) but never returns a community without an inside edge path."""
    graph = nx.barbell_graph(5, 0)
    for resolution in (0.05, 0.5, 1.0, 3.0):
        parts, q = cm.leiden(graph, resolution=resolution, backend="cpu")
        edges = nx.to_pandas_edgelist(graph, source="src", target="dst")
        check_result(edges, parts, q, resolution)


@settings(max_examples=examples(30), deadline=None)
@given(case=multigraphs_with_isolated())
def test_isolated_vertices_get_their_own_community(case):
    graph, edges, isolated = case
    if all(u == v for u, v in graph.edges()):
        return  # no edge weight: leiden refuses (tested below)
    parts, q = cm.leiden(graph, backend="cpu")
    lone = parts.set_index("vertex").loc[isolated, "community"]
    assert lone.is_unique
    assert not parts.set_index("vertex").drop(index=isolated)["community"].isin(lone).any()
    assert q == pytest.approx(cm.modularity(graph, parts), abs=1e-12)


def test_resolution_controls_community_size():
    edges = cm.datasets.load("netscience")
    few = cm.leiden(edges, resolution=0.2, backend="cpu")[0]["community"].nunique()
    many = cm.leiden(edges, resolution=5.0, backend="cpu")[0]["community"].nunique()
    assert few < many


def test_directed_needs_symmetrize_and_string_ids():
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("d", "e"), ("e", "f"), ("f", "d")])
    with pytest.raises(ValueError, match="leiden needs an undirected graph, got a directed "
                                         "DiGraph; pass symmetrize=True"):
        cm.leiden(graph, backend="cpu")
    parts, q = cm.leiden(graph, symmetrize=True, backend="cpu")
    assert parts["vertex"].tolist() == list("abcdef")
    assert parts["community"].tolist() == [0, 0, 0, 1, 1, 1]
    assert q == pytest.approx(cm.modularity(graph, parts, symmetrize=True))


EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("kwargs,error,message", [
    ({"resolution": 0}, ValueError, "resolution must be a positive finite number, got 0"),
    ({"resolution": float("nan")}, ValueError, "resolution must be a positive finite number"),
    ({"threshold": -1.0}, ValueError, "threshold must be a non-negative number, got -1.0"),
    ({"max_level": 0}, ValueError, "max_level must be a positive int, got 0"),
    ({"max_level": 2.0}, ValueError, "max_level must be a positive int, got 2.0"),
    ({"max_iter": 0}, ValueError, "max_iter must be a positive int, got 0"),
    ({"max_level": 5, "max_iter": 7}, ValueError, "max_level=5 and max_iter=7 name the same"),
    ({"seed": "a"}, TypeError, "seed must be an int, got 'a'"),
    ({"random_state": 1.5}, TypeError, "random_state must be an int, got 1.5"),
    ({"seed": 2, "random_state": 3}, ValueError, "seed=2 and random_state=3 name the same"),
    # an argument equal to its alias in Python (True == 1, 1.0 == 1) went unchecked
    ({"seed": True, "random_state": 1}, ValueError, "seed=True and random_state=1 name the"),
    ({"seed": 1.0, "random_state": 1}, ValueError, "seed=1.0 and random_state=1 name the"),
    ({"max_level": 1.0, "max_iter": 1}, ValueError, "max_level=1.0 and max_iter=1 name the"),
    ({"max_level": True, "max_iter": 1}, ValueError, "max_level=True and max_iter=1 name the"),
    ({"theta": np.complex128(0)}, ValueError, "theta must be a non-negative finite number"),
    ({"symmetrize": "no"}, TypeError, "symmetrize must be True or False, got 'no'"),
    ({"theta": -0.1}, ValueError, "theta must be a non-negative finite number, got -0.1"),
    ({"theta": float("inf")}, ValueError, "theta must be a non-negative finite number"),
    ({"theta": True}, ValueError, "theta must be a non-negative finite number, got True"),
    ({"backend": "tpu"}, ValueError, "backend must be 'auto', 'cpu' or 'gpu', got 'tpu'"),
])
def test_bad_leiden_arguments(kwargs, error, message):
    kwargs.setdefault("backend", "cpu")
    with pytest.raises(error) as info:
        cm.leiden(EDGES, **kwargs)
    assert message in str(info.value)


def test_bad_edges_and_edgeless_graphs():
    with pytest.raises(ValueError, match="weight column 'weight' has 1 zero or negative"):
        cm.leiden(EDGES.assign(weight=[1.0, 0.0, 2.0]), backend="cpu")
    with pytest.raises(ValueError, match="weight column 'weight' has 1 null/NaN"):
        cm.leiden(EDGES.assign(weight=[1.0, np.nan, 2.0]), backend="cpu")
    lonely = nx.Graph()
    lonely.add_nodes_from([1, 2, 3])
    with pytest.raises(ValueError, match="leiden needs at least one edge"):
        cm.leiden(lonely, backend="cpu")


def test_extreme_weights_give_the_same_partition():
    """Weights near the ends of float64 are rescaled first (as Louvain's): the
    partition does not change and Q is never nan."""
    edges = cm.datasets.load("karate")
    base, q = cm.leiden(edges, backend="cpu", theta=0.0)
    for scale in (1e300, 1e-300):
        parts, q_scaled = cm.leiden(edges.assign(weight=edges["weight"] * scale), backend="cpu",
                                    theta=0.0)
        pd.testing.assert_frame_equal(parts, base)
        assert q_scaled == pytest.approx(q, abs=1e-12)


# --------------------------------------------------------------------------
# progress logging
# --------------------------------------------------------------------------


def test_levels_are_logged_at_info(caplog):
    edges = cm.datasets.load("netscience")
    with caplog.at_level(logging.INFO, logger="cugraph_match"):
        cm.leiden(edges, backend="cpu")
        cm.louvain(edges, backend="cpu")
    lines = [r.getMessage() for r in caplog.records if r.name == "cugraph_match"]
    leiden = [x for x in lines if x.startswith("leiden level 0:")]
    assert leiden and "1,461 vertices, 2,742 edges, communities" in leiden[0]
    assert " Q 0." in leiden[0] and leiden[0].endswith(" s")
    assert any(x.startswith("leiden refinement level 0: 1,461 vertices") for x in lines)
    assert any(x.startswith("louvain level 0: 1,461 vertices, 2,742 edges") for x in lines)


def test_show_progress_attaches_one_handler_and_removes_it():
    logger = logging.getLogger("cugraph_match")
    level, handlers = logger.level, list(logger.handlers)
    out = io.StringIO()
    cm.show_progress(stream=out)
    cm.show_progress(stream=out)  # again: replaces, does not add
    assert len(logger.handlers) == len(handlers) + 1
    cm.leiden(cm.datasets.load("karate"), backend="cpu")
    cm.show_progress(False)
    assert logger.handlers == handlers and logger.level == level
    text = out.getvalue()
    assert "cugraph_match: leiden level 0: 34 vertices, 78 edges" in text
    cm.leiden(cm.datasets.load("karate"), backend="cpu")
    assert out.getvalue() == text  # detached: nothing more
    with pytest.raises(TypeError, match="enable must be True or False, got 'no'"):
        cm.show_progress("no")  # attached the handler
    assert logger.handlers == handlers


def test_silent_by_default():
    """A fresh process that configures no logging prints nothing (compiles included)."""
    code = ("import cugraph_match as cm; cm.leiden(cm.datasets.load('karate'), backend='cpu'); "
            "cm.louvain(cm.datasets.load('karate'), backend='cpu')")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""


def test_first_compile_is_announced_once(caplog):
    """A kernel of the package compiled for the first time says so at INFO
    (once); one compiled inside it is part of the same wait (DEBUG)."""
    from numba import njit

    namespace = {"__name__": "cugraph_match._compile_probe"}
    exec("def inner(x):\n    return x + 1\n\ndef outer(x):\n    return inner(x) * 2\n",
         namespace)
    inner = njit(namespace["inner"])
    namespace["inner"] = inner
    outer = njit(namespace["outer"])
    with caplog.at_level(logging.DEBUG, logger="cugraph_match"):
        assert outer(3) == 8
        assert outer(4) == 10
    records = [(r.levelno, r.getMessage()) for r in caplog.records
               if "_compile_probe" in r.getMessage()]
    assert [level for level, _ in records] == [logging.INFO, logging.DEBUG]
    assert records[0][1].startswith("compiling _compile_probe.outer")
    assert records[1][1].startswith("compiling _compile_probe.inner")


# --------------------------------------------------------------------------
# the NetworkX backend
# --------------------------------------------------------------------------


@pytest.fixture
def nx_cpu():
    """The backend's CPU kernels (the simulator pass checks the GPU ones); no
    cache warnings."""
    config = nx.config.backends.cugraph_match
    before = config.device
    config.device = "cpu"
    nx.config.warnings_to_ignore.add("cache")
    yield
    config.device = before


def test_networkx_dispatch_equals_the_direct_call(nx_cpu):
    from cugraph_match.nx import leiden as nx_leiden

    graph = nx.LFR_benchmark_graph(300, 3, 1.5, 0.3, average_degree=8, max_degree=40,
                                   min_community=20, seed=1)
    graph.remove_edges_from(nx.selfloop_edges(graph))
    dispatched = nx.community.leiden_communities(graph, seed=7, backend="cugraph_match")
    direct = nx_leiden.leiden_communities(graph, seed=7, device="cpu")
    assert dispatched == direct
    assert nx.community.is_partition(graph, dispatched)
    assert all(nx.is_connected(graph.subgraph(c)) for c in dispatched)
    levels = list(nx.community.leiden_partitions(graph, seed=random.Random(7),
                                                 backend="cugraph_match"))
    assert len(levels) >= 2
    for partition in levels:
        assert nx.community.is_partition(graph, partition)
        assert all(nx.is_connected(graph.subgraph(c)) for c in partition)
    for k in range(1, len(levels) + 2):
        assert nx.community.leiden_communities(graph, max_level=k, seed=7,
                                               backend="cugraph_match") == \
            levels[min(k, len(levels)) - 1]
    assert levels[-1] == dispatched
    # the communities of the last level are those of cm.leiden on the same graph
    parts, q = cm.leiden(graph, seed=nx_seed(7), backend="cpu")
    assert sorted(map(sorted, dispatched)) == \
        sorted(map(sorted, (set(g) for _, g in parts.groupby("community")["vertex"])))
    assert nx.community.modularity(graph, dispatched) == pytest.approx(q, abs=1e-9)


def nx_seed(seed: int) -> int:
    """The int seed the NetworkX backend derives from NetworkX's ``seed``."""
    return random.Random(seed).randrange(2**32)


def test_networkx_weights_edgeless_and_refusals(nx_cpu):
    graph = nx.karate_club_graph()
    unweighted = nx.community.leiden_communities(graph, weight=None, seed=2,
                                                 backend="cugraph_match")
    weighted = nx.community.leiden_communities(graph, seed=2, backend="cugraph_match")
    assert nx.community.modularity(graph, unweighted, weight=None) > 0.41
    assert nx.community.modularity(graph, weighted) > 0.44
    empty = nx.Graph()
    empty.add_nodes_from(["x", 3, (1, 2)])  # unorderable node types
    assert nx.community.leiden_communities(empty, backend="cugraph_match") == \
        [{"x"}, {3}, {(1, 2)}]
    with pytest.raises(ValueError, match="max_level argument must be a positive integer"):
        nx.community.leiden_communities(graph, max_level=0, backend="cugraph_match")
    from cugraph_match.nx.interface import BackendInterface

    assert BackendInterface.can_run("leiden_communities", (graph,), {"weight": len}) \
        .startswith("weight=")
    assert "resolution" in BackendInterface.can_run("leiden_partitions", (graph,),
                                                    {"resolution": float("nan")})
    assert BackendInterface.should_run("leiden_communities", (nx.path_graph(3),), {}) is True
    negative = nx.path_graph(4)
    negative.edges[0, 1]["weight"] = -1.0
    with pytest.raises(NotImplementedError):
        nx.community.leiden_communities(negative, backend="cugraph_match")
