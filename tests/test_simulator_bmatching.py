"""b-Suitor, handshake and coarsening kernels in Numba's CUDA simulator
(NUMBA_ENABLE_CUDASIM=1; small graphs only: every simulated thread is a
Python thread)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA, edge_tuples, greedy_b_matching
from strategies import edge_frames, multigraphs_with_isolated

pytestmark = [pytest.mark.cudasim,
              # SplitMix64 multiplies wrap on purpose; NumPy scalars warn about it in the simulator
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]



@pytest.mark.parametrize("heap_above", [0, 2, 32])  # all heaps, mixed, all scanned slots
@pytest.mark.parametrize("threads_per_block", [1, 32, 64])
@pytest.mark.parametrize("b", [1, 2, 3, 100])
def test_b_suitor_kernel_equals_greedy(b, threads_per_block, heap_above):
    edges = cm.datasets.load("lesmis")
    result = cm.b_suitor_matching(edges, b=b, backend="gpu", threads_per_block=threads_per_block,
                                  heap_above=heap_above)
    assert edge_tuples(result) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"], b)


def test_b_suitor_kernel_ties_and_per_vertex_b():
    edges, _ = read_graph(SHARED_DATA / "graphs" / "jazz.mtx")
    edges["weight"] = np.float32(1.0)  # every weight tied: contention on the same targets
    vertices = sorted(set(edges["src"]) | set(edges["dst"]))
    b = dict(zip(vertices, np.random.default_rng(3).integers(0, 5, len(vertices)).tolist()))
    for heap_above in (0, 32):
        result = cm.b_suitor_matching(edges, b=pd.Series(b), backend="gpu", heap_above=heap_above)
        assert edge_tuples(result) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"],
                                                      b)
        assert result.equals(cm.b_suitor_matching(edges, b=pd.Series(b), backend="cpu"))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=edge_frames(max_vertices=16, max_edges=40), b=st.sampled_from([0, 1, 2, 4]),
       heap_above=st.sampled_from([0, 1, 32]))
def test_b_suitor_kernel_hypothesis(edges, b, heap_above):
    result = cm.b_suitor_matching(edges, b=b, backend="gpu", threads_per_block=32,
                                  heap_above=heap_above)
    assert edge_tuples(result) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"], b)


def test_pair_extraction_paths_agree():
    from cugraph_match.matching.b_suitor_cpu import b_suitor_slots, matched_pairs_cpu
    from cugraph_match.matching.b_suitor_gpu import matched_pairs_sorted

    graph = cm.Graph(cm.datasets.load("netscience"), backend="cpu")
    pg = graph.preference_csr()
    degree = np.diff(pg.offsets)
    slot_start = np.zeros(graph.num_vertices + 1, dtype=np.int64)
    slot_start[1:] = np.cumsum(np.minimum(3, degree))
    slots = b_suitor_slots(pg.offsets, pg.indices, pg.keys, slot_start, True)
    for x, y in zip(matched_pairs_cpu(slots, slot_start),
                    matched_pairs_sorted(slots, slot_start, np)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("low_degree_first", [True, False])
@pytest.mark.parametrize("name", ["karate", "lesmis"])
def test_handshake_kernels_equal_cpu(name, weighted, low_degree_first):
    edges = cm.datasets.load(name)
    for seed in (0, 1):
        kwargs = dict(weighted=weighted, seed=seed, low_degree_first=low_degree_first)
        gpu = cm.maximal_matching(edges, backend="gpu", **kwargs)
        assert cm.is_matching(edges, gpu, maximal=True)
        pd.testing.assert_frame_equal(gpu, cm.maximal_matching(edges, backend="cpu", **kwargs))


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=multigraphs_with_isolated(max_vertices=16, max_edges=40), weighted=st.booleans())
def test_handshake_kernels_hypothesis(case, weighted):
    graph, edges, isolated = case
    gpu = cm.maximal_matching(graph, weighted=weighted, backend="gpu")
    assert cm.is_matching(graph, gpu, maximal=True)
    pd.testing.assert_frame_equal(gpu, cm.maximal_matching(graph, weighted=weighted,
                                                           backend="cpu"))


def test_coarsening_on_the_gpu_backend_equals_cpu():
    edges = cm.datasets.load("lesmis")
    gpu = cm.coarsen_hierarchy(edges, min_vertices=10, backend="gpu")
    cpu = cm.coarsen_hierarchy(edges, min_vertices=10, backend="cpu")
    assert len(gpu) == len(cpu) > 0
    for (gc, gm), (cc, cmap) in zip(gpu, cpu):
        pd.testing.assert_frame_equal(gc, cc)
        pd.testing.assert_frame_equal(gm, cmap)
