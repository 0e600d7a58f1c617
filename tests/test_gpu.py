"""The CUDA kernels on a real GPU (skipped without one).

Run on a GPU machine with ``pytest tests/test_gpu.py``; the simulator pass
(tests/test_simulator.py) covers the same kernels on machines without one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.structure.backend import gpu_available
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA, assert_equal_matchings, greedy_matching

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_available(), reason="no usable CUDA GPU (CuPy + numba-cuda)")]

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
LAUNCHES = [(1, 128), (8, 128), (16, 256), (32, 64), (256, 128)]


def oracle_of(edges):
    return greedy_matching(edges["src"], edges["dst"], edges.get("weight"))


@pytest.mark.parametrize("how", ["random", "equal"])
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_real_graphs_every_launch(path, how):
    edges, _ = read_graph(path)
    rng = np.random.default_rng(1)
    edges["weight"] = (1.0 - rng.random(len(edges))).astype(np.float32) if how == "random" else 1.0
    expected = oracle_of(edges)
    for vpw, tpb in LAUNCHES:
        result = cm.suitor_matching(edges, backend="gpu", vertices_per_warp=vpw,
                                    threads_per_block=tpb)
        assert isinstance(result, pd.DataFrame)
        assert_equal_matchings(result, expected)
    assert_equal_matchings(cm.locally_dominant_matching(edges, backend="gpu"), expected)


def test_rmat_equals_cpu():
    rng = np.random.default_rng(5)
    n, m = 1 << 16, 1 << 20
    edges = pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m),
                          "weight": rng.integers(1, 8, m).astype(np.float64)})  # many ties
    cpu = cm.suitor_matching(edges, backend="cpu")
    for vpw in (1, 8, 64):
        assert cm.suitor_matching(edges, backend="gpu", vertices_per_warp=vpw).equals(cpu)
    assert cm.locally_dominant_matching(edges, backend="gpu").equals(cpu)


def test_cudf_in_cudf_out():
    cudf = pytest.importorskip("cudf")
    edges = cm.datasets.load("netscience")
    result = cm.suitor_matching(cudf.from_pandas(edges), backend="gpu")
    assert type(result).__module__.startswith("cudf")
    assert_equal_matchings(result.to_pandas(), oracle_of(edges))


@pytest.mark.parametrize("b", [1, 2, 5, 10, 64])
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_b_suitor_real_graphs(path, b):
    edges, _ = read_graph(path)
    edges["weight"] = np.random.default_rng(2).integers(1, 8, len(edges)).astype(np.float32)
    cpu = cm.b_suitor_matching(edges, b=b, backend="cpu")
    for heap_above in (0, 32):  # the locked heaps and the lock-free slots
        gpu = cm.b_suitor_matching(edges, b=b, backend="gpu", heap_above=heap_above)
        pd.testing.assert_frame_equal(gpu, cpu)


def test_b_suitor_rmat_hub_contention_equals_cpu():
    """R-MAT-like skew: hubs receive thousands of concurrent offers."""
    rng = np.random.default_rng(9)
    n, m = 1 << 16, 1 << 21
    src = (rng.pareto(1.2, m) * 10).astype(np.int64) % n
    edges = pd.DataFrame({"src": src, "dst": rng.integers(0, n, m),
                          "weight": rng.integers(1, 4, m).astype(np.float64)})
    for b in (1, 3, 40):
        pd.testing.assert_frame_equal(cm.b_suitor_matching(edges, b=b, backend="gpu"),
                                      cm.b_suitor_matching(edges, b=b, backend="cpu"))


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_handshake_and_coarsening_equal_cpu(path):
    edges, _ = read_graph(path)
    for weighted in (True, False):
        gpu = cm.maximal_matching(edges, weighted=weighted, seed=3, backend="gpu")
        assert cm.is_matching(edges, gpu, maximal=True)
        pd.testing.assert_frame_equal(
            gpu, cm.maximal_matching(edges, weighted=weighted, seed=3, backend="cpu"))
    gpu_levels = cm.coarsen_hierarchy(edges, min_vertices=100, backend="gpu")
    cpu_levels = cm.coarsen_hierarchy(edges, min_vertices=100, backend="cpu")
    assert len(gpu_levels) == len(cpu_levels)
    for (gc, gm), (cc, cmap) in zip(gpu_levels, cpu_levels):
        pd.testing.assert_frame_equal(gc, cc)
        pd.testing.assert_frame_equal(gm, cmap)


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_louvain_real_graphs(path):
    edges, _ = read_graph(path)
    parts, q = cm.louvain(edges, backend="gpu")
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-9)
    assert q >= 0.97 * cm.louvain(edges, backend="cpu")[1]


def test_louvain_rmat_global_bucket():
    """R-MAT hubs exceed 319 neighbours: the block-per-vertex global-table kernel runs."""
    rng = np.random.default_rng(11)
    n, m = 1 << 14, 1 << 18
    src = (rng.pareto(1.1, m) * 5).astype(np.int64) % n
    edges = pd.DataFrame({"src": src, "dst": rng.integers(0, n, m)})
    parts, q = cm.louvain(edges, backend="gpu")
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-9)
    assert q >= 0.97 * cm.louvain(edges, backend="cpu")[1]
