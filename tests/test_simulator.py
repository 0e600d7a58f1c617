"""The CUDA kernels in Numba's simulator (run with NUMBA_ENABLE_CUDASIM=1).

Contract: with the simulator enabled, backend="gpu" runs the CUDA kernels on
NumPy arrays and returns pandas.  Small graphs only: every simulated thread
is a Python thread.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples

import cugraph_match as cm
from cugraph_match.structure.backend import HOST_AS_DEVICE, resolve_backend
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA, assert_equal_matchings, greedy_matching
from strategies import edge_frames, multigraphs_with_isolated

pytestmark = pytest.mark.cudasim

# (vertices_per_warp, threads_per_block): single-vertex warps, the paper's 8,
# a chunk not a power of two, chunks longer than a warp (several passes of
# the proposal step), and several warps per block.
LAUNCHES = [(1, 32), (8, 64), (3, 32), (40, 32), (8, 128)]


def oracle_of(edges):
    return greedy_matching(edges["src"], edges["dst"], edges.get("weight"))


def test_gpu_backend_is_simulated():
    backend = resolve_backend("gpu")
    assert backend.simulated and backend.xp is HOST_AS_DEVICE
    assert resolve_backend("auto").name == "cpu"  # never picks the simulator


@pytest.mark.parametrize("vertices_per_warp,threads_per_block", LAUNCHES)
def test_suitor_karate_every_launch(vertices_per_warp, threads_per_block):
    edges = cm.datasets.load("karate")
    result = cm.suitor_matching(edges, backend="gpu", vertices_per_warp=vertices_per_warp,
                                threads_per_block=threads_per_block)
    assert isinstance(result, pd.DataFrame)
    assert_equal_matchings(result, oracle_of(edges))


@pytest.mark.parametrize("threads_per_block", [32, 64])
def test_locally_dominant_karate(threads_per_block):
    edges = cm.datasets.load("karate")
    result = cm.locally_dominant_matching(edges, backend="gpu", threads_per_block=threads_per_block)
    assert_equal_matchings(result, oracle_of(edges))


# one case per (graph, weights, algorithm), so that the pass's workers share them out
@pytest.mark.parametrize("algorithm", ["suitor", "locally_dominant"])
@pytest.mark.parametrize("weights", ["own", "random"])
@pytest.mark.parametrize("name", ["lesmis.mtx", "jazz.mtx"])
def test_real_graphs_random_and_equal_weights(name, weights, algorithm):
    """The graph's own weights (jazz: none, so all equal) and random float32 ones."""
    path = SHARED_DATA / "graphs" / name
    if not path.exists():
        pytest.skip(f"{path} missing")
    edges, _ = read_graph(path)
    if weights == "random":
        edges["weight"] = (1.0 - np.random.default_rng(7).random(len(edges))).astype(np.float32)
    elif "weight" not in edges:
        edges["weight"] = 1.0
    matching = {"suitor": cm.suitor_matching,
                "locally_dominant": cm.locally_dominant_matching}[algorithm]
    assert_equal_matchings(matching(edges, backend="gpu"), oracle_of(edges))


@pytest.mark.parametrize("name", ["karate_str.mtx", "dolphins_s_loop.csv",
                                  "karate_multi_edge.csv", "karate-asymmetric.csv"])
def test_cugraph_awkward_inputs(name):
    path = SHARED_DATA / "cugraph" / name
    if not path.exists():
        pytest.skip(f"{path} missing")
    edges, _ = read_graph(path)
    expected = oracle_of(edges)
    assert_equal_matchings(cm.suitor_matching(edges, backend="gpu", vertices_per_warp=4), expected)
    assert_equal_matchings(cm.locally_dominant_matching(edges, backend="gpu"), expected)


@settings(max_examples=examples(12), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edges=edge_frames(max_vertices=16, max_edges=40))
def test_hypothesis_graphs(edges):
    expected = oracle_of(edges)
    assert_equal_matchings(cm.suitor_matching(edges, backend="gpu", vertices_per_warp=2,
                                              threads_per_block=32), expected)
    assert_equal_matchings(cm.locally_dominant_matching(edges, backend="gpu",
                                                        threads_per_block=32), expected)


@settings(max_examples=examples(6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=multigraphs_with_isolated(max_vertices=12, max_edges=30))
def test_hypothesis_graphs_with_isolated_vertices(case):
    graph, edges, isolated = case
    expected = greedy_matching(edges["src"], edges["dst"], edges["weight"], isolated)
    assert_equal_matchings(cm.suitor_matching(graph, backend="gpu", vertices_per_warp=3,
                                              threads_per_block=64), expected)
    assert_equal_matchings(cm.locally_dominant_matching(graph, backend="gpu"), expected)


def test_float64_weights_dense_rank_keys():
    """float64 weights that differ only beyond float32 precision."""
    graph = nx.cycle_graph(12)
    edges = nx.to_pandas_edgelist(graph, "src", "dst")
    edges["weight"] = 1.0 + np.arange(len(edges)) * 1e-12
    assert_equal_matchings(cm.suitor_matching(edges, backend="gpu"), oracle_of(edges))
    assert_equal_matchings(cm.locally_dominant_matching(edges, backend="gpu"), oracle_of(edges))
