"""Suitor and locally-dominant matching on the CPU backend against independent oracles."""

from __future__ import annotations

import networkx as nx
import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA, assert_equal_matchings, brute_force_max_weight, greedy_matching
from strategies import edge_frames, multigraphs_with_isolated

ALGORITHMS = {
    "suitor": cm.suitor_matching,
    "locally_dominant": cm.locally_dominant_matching,
}
GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
CUGRAPH_INPUTS = sorted((SHARED_DATA / "cugraph").glob("*.*"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")


def oracle_of(edges):
    return greedy_matching(edges["src"], edges["dst"],
                           edges["weight"] if "weight" in edges else None)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=edge_frames())
def test_equals_greedy_oracle(algorithm, edges):
    before = edges.copy(deep=True)
    result = ALGORITHMS[algorithm](edges, backend="cpu")
    assert_equal_matchings(result, oracle_of(edges))
    pd.testing.assert_frame_equal(edges, before)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=edge_frames())
def test_row_scanning_suitor_equals_the_pointer_suitor(edges):
    """The paper's Suitor (whole rows rescanned, rows in any order) and ours
    (pointer over preference rows) end in the same matching."""
    from cugraph_match.matching.suitor import suitor_mates
    from cugraph_match.matching.suitor_cpu import suitor_scan

    g = cm.Graph(edges, backend="cpu")
    rows = g.neighbour_csr()
    weights = rows.weights if rows.weights is not None else np.zeros(0, dtype=np.float32)
    np.testing.assert_array_equal(suitor_scan(rows.offsets, rows.indices, weights),
                                  suitor_mates(g)[0])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@settings(max_examples=examples(80), deadline=None)
@given(case=multigraphs_with_isolated())
def test_equals_greedy_oracle_with_isolated_vertices(algorithm, case):
    graph, edges, isolated = case
    expected = greedy_matching(edges["src"], edges["dst"], edges["weight"], isolated)
    assert_equal_matchings(ALGORITHMS[algorithm](graph, backend="cpu"), expected)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@settings(max_examples=examples(60), deadline=None)
@given(edges=edge_frames(max_vertices=9, max_edges=14, string_ids=False))
def test_half_approximation_of_exact(algorithm, edges):
    result = ALGORITHMS[algorithm](edges, backend="cpu")
    graph = nx.Graph()
    for u, v, w in zip(edges["src"], edges["dst"], edges["weight"]):
        if u != v and (not graph.has_edge(u, v) or graph[u][v]["weight"] < w):
            graph.add_edge(u, v, weight=float(w))
    exact = nx.max_weight_matching(graph)
    exact_weight = sum(graph[u][v]["weight"] for u, v in exact)
    assert exact_weight == pytest.approx(
        brute_force_max_weight(edges["src"], edges["dst"], edges["weight"]))
    assert cm.matching_weight(result) >= 0.5 * exact_weight - 1e-6
    assert cm.is_matching(edges, result, maximal=True)


def _weighted(path, how):
    edges, vertices = read_graph(path)
    rng = np.random.default_rng(20261122)
    if how == "random":
        # seeded, uniform in (0, 1]; float32 so ties between distinct edges are possible too
        edges["weight"] = (1.0 - rng.random(len(edges))).astype(np.float32)
    elif how == "equal":
        edges["weight"] = 1.0
    elif "weight" not in edges:
        edges["weight"] = 1.0
    return edges


@needs_shared
@pytest.mark.parametrize("how", ["random", "equal"])
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_real_graphs(path, how):
    edges = _weighted(path, how)
    expected = oracle_of(edges)
    results = {name: f(edges, backend="cpu") for name, f in ALGORITHMS.items()}
    for name, result in results.items():
        assert_equal_matchings(result, expected)
    assert results["suitor"].equals(results["locally_dominant"])


@needs_shared
@pytest.mark.parametrize("path", CUGRAPH_INPUTS, ids=lambda p: p.name)
def test_cugraph_awkward_inputs(path):
    """String ids, self-loops, multi-edges, one-direction edges, isolated vertices."""
    edges, vertices = read_graph(path)
    expected = oracle_of(edges)
    for f in ALGORITHMS.values():
        assert_equal_matchings(f(edges, backend="cpu"), expected)
    # as a NetworkX graph the declared isolated vertices come back too, unmatched
    graph = nx.Graph()
    graph.add_nodes_from(vertices)
    for u, v, w in zip(edges["src"], edges["dst"], edges.get("weight", [1.0] * len(edges))):
        if not graph.has_edge(u, v) or graph[u][v]["weight"] < w:
            graph.add_edge(u, v, weight=w)
    expected_all = greedy_matching(edges["src"], edges["dst"], edges.get("weight"), vertices)
    for f in ALGORITHMS.values():
        assert_equal_matchings(f(graph, backend="cpu"), expected_all)


@pytest.mark.parametrize("name", ["karate", "lesmis", "netscience"])
def test_shipped_graphs_half_of_networkx_exact(name):
    edges = cm.datasets.load(name)
    graph = nx.from_pandas_edgelist(edges, "src", "dst", "weight")
    exact = nx.max_weight_matching(graph)
    exact_weight = sum(graph[u][v]["weight"] for u, v in exact)
    for f in ALGORITHMS.values():
        result = f(edges, backend="cpu")
        assert cm.matching_weight(result) >= 0.5 * exact_weight
        assert_equal_matchings(result, oracle_of(edges))


@needs_shared
def test_locally_dominant_independent_of_thread_count():
    edges = _weighted(SHARED_DATA / "graphs" / "astro-ph.mtx", "equal")
    threads = numba.get_num_threads()
    try:
        results = []
        for count in sorted({1, threads}):
            numba.set_num_threads(count)
            results.append(cm.locally_dominant_matching(edges, backend="cpu"))
    finally:
        numba.set_num_threads(threads)
    assert all(r.equals(results[0]) for r in results)


def test_adversarial_path_many_rounds():
    """Increasing weights along a path: LD needs ~n/2 rounds, Suitor long chains."""
    n = 2001
    edges = pd.DataFrame({"src": np.arange(n - 1), "dst": np.arange(1, n),
                          "weight": np.arange(1, n, dtype=np.float64)})
    for f in ALGORITHMS.values():
        assert_equal_matchings(f(edges, backend="cpu"), oracle_of(edges))


def test_complete_graph_all_ties():
    graph = nx.complete_graph(40)
    expected = greedy_matching([u for u, v in graph.edges], [v for u, v in graph.edges])
    for f in ALGORITHMS.values():
        assert_equal_matchings(f(graph, backend="cpu"), expected)
