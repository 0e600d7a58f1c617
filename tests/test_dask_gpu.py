"""The Dask matchings with the supersteps on a real GPU: a one-GPU cluster
(``dask_cuda.LocalCUDACluster`` when installed, else one worker process on
the machine's GPU) against the single-GPU call and the CPU workers, row for
row (``bash ci/gpu.sh OUT check-dask``; skipped without a GPU; the same
kernels in the simulator: tests/test_dask_gpu_simulator.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from cugraph_match.structure.backend import gpu_available
from oracle import SHARED_DATA

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_available(), reason="no usable CUDA GPU (CuPy + numba-cuda)")]

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_dask import with_dtypes  # noqa: E402
from rmat import rmat_edges  # noqa: E402


@pytest.fixture(scope="module")
def gpu_client():
    try:
        from dask_cuda import LocalCUDACluster

        cluster = LocalCUDACluster(n_workers=1, threads_per_worker=1, dashboard_address=None)
    except ImportError:  # one worker process: the machine's one GPU
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        yield client


GRAPHS = [("rmat16", lambda: rmat_edges(16, seed=1)),
          # pandas' default dtypes, and no weight column: the device build's
          # wide-key and unweighted paths
          ("rmat16-int64", lambda: with_dtypes(rmat_edges(16, seed=3), "int64")),
          ("rmat16-unweighted", lambda: with_dtypes(rmat_edges(16, seed=4), "unweighted"))] + [
    (name, lambda name=name: read_graph(SHARED_DATA / "graphs" / f"{name}.mtx")[0])
    for name in ("jazz", "netscience", "power", "hep-th")
    if (SHARED_DATA / "graphs" / f"{name}.mtx").exists()]


@pytest.mark.parametrize("name,make", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("partitions", [1, 4])
def test_one_gpu_cluster_equals_the_single_gpu_call(gpu_client, name, make, partitions):
    edges = make()
    frame = dd.from_pandas(edges, npartitions=partitions)
    mates, stats = cm.suitor_matching(frame, backend="gpu", return_stats=True)
    assert stats["device"] == "gpu" and stats["build"]["device"] == "gpu"
    mates = mates.compute()
    pd.testing.assert_frame_equal(mates, cm.suitor_matching(frame, backend="cpu").compute())
    # the parts built on the host, copied to the GPU for the supersteps
    host_built = cm.dask.DistributedGraph(frame, backend="cpu")
    pd.testing.assert_frame_equal(cm.suitor_matching(host_built, backend="gpu").compute(), mates)
    single = cm.suitor_matching(edges, backend="gpu")
    pd.testing.assert_frame_equal(mates.reset_index(drop=True), single.reset_index(drop=True))
    vertices = np.unique(np.concatenate([edges["src"].to_numpy(), edges["dst"].to_numpy()]))
    b = pd.Series(np.random.default_rng(7).integers(0, 6, len(vertices)), index=vertices)
    pairs = cm.b_suitor_matching(frame, b=b, backend="gpu").compute()
    pd.testing.assert_frame_equal(pairs.reset_index(drop=True), cm.b_suitor_matching(
        edges, b=b, backend="gpu").reset_index(drop=True))


def test_cudf_partitions_are_built_and_matched_on_the_gpu(gpu_client):
    """Dask-cuDF in: the parts built on the worker's GPU (``backend="auto"``),
    the supersteps there, cuDF partitions out, equal to the CPU result."""
    cudf = pytest.importorskip("cudf")
    dask_cudf = pytest.importorskip("dask_cudf")
    edges = rmat_edges(14, seed=2)
    frame = dask_cudf.from_cudf(cudf.from_pandas(edges), npartitions=3)
    mates, stats = cm.suitor_matching(frame, return_stats=True)
    assert stats["device"] == "gpu" and stats["build"]["device"] == "gpu"
    got = mates.compute()
    assert type(got).__module__.startswith("cudf")
    pd.testing.assert_frame_equal(got.to_pandas(nullable=True).reset_index(drop=True),
                                  cm.suitor_matching(edges, backend="cpu"), check_dtype=False)


LOUVAIN_GRAPHS = GRAPHS[:1] + GRAPHS[3:5]  # R-MAT 16, jazz, netscience


@pytest.mark.parametrize("name,make", LOUVAIN_GRAPHS, ids=[g[0] for g in LOUVAIN_GRAPHS])
def test_louvain_passes_on_the_worker_gpu_equal_the_single_gpu_call(gpu_client, name, make,
                                                                    monkeypatch):
    """Louvain with every level on the one worker's GPU
    (``dask/louvain_worker_gpu.py``) is the single GPU's move step level by
    level: the same Q as the single-GPU call; Leiden keeps the contract and
    the CPU's quality band (tests/test_dask_louvain_gpu.py in the simulator)."""
    from cugraph_match.dask import louvain as dask_louvain

    monkeypatch.setattr(dask_louvain, "FINISH_EDGES", 0)
    monkeypatch.setattr(dask_louvain, "FINISH_SHARE", 0.0)
    edges = make()
    frame = dd.from_pandas(edges, npartitions=4)
    result, q = cm.louvain(frame, backend="gpu", refine=False)
    assert q == pytest.approx(cm.louvain(edges, backend="gpu", refine=False)[1], rel=1e-9)
    parts = result.compute()
    assert q == pytest.approx(cm.modularity(edges, parts), rel=1e-9)
    result, q = cm.leiden(frame, backend="gpu")
    assert q == pytest.approx(cm.modularity(edges, result.compute()), rel=1e-9)
    assert q >= 0.95 * cm.leiden(edges, backend="cpu")[1]
    # as shipped: a small graph goes to the worker at once, and its finish
    # there is the single GPU's Louvain; a larger one finishes there too
    monkeypatch.undo()
    result, q = cm.louvain(frame, backend="gpu", refine=False)
    single = cm.louvain(edges, backend="gpu", refine=False)[1]
    if len(edges) <= dask_louvain.FINISH_EDGES:
        assert q == pytest.approx(single, rel=1e-9)
    assert q >= 0.99 * single
    assert q == pytest.approx(cm.modularity(edges, result.compute()), rel=1e-9)
