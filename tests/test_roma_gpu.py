"""ROMA's CUDA kernels on a real GPU (skipped without one): valid, never
below the start, locally optimal when converged, and about as good as the
CPU's sequential ROMA, for several launch configurations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from cugraph_match.structure.backend import gpu_available
from oracle import SHARED_DATA
from roma_oracle import complete_weight, frame_mates

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_available(), reason="no usable CUDA GPU (CuPy + numba-cuda)")]

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))


@pytest.mark.parametrize("threads", [128, 1024])
@pytest.mark.parametrize("kind", ["uniform", "exponential"])
def test_complete_graph_against_cpu(kind, threads):
    import cupy

    rng = np.random.default_rng(11)
    n = 2048
    upper = rng.random((n, n)) if kind == "uniform" else rng.exponential(1 / 3.5, (n, n))
    matrix = np.triu(upper, 1).astype(np.float32)
    matrix = matrix + matrix.T
    result, info = cm.roma_matching(cupy.asarray(matrix), threads_per_block=threads,
                                    phases=50, threshold=0.0, backend="gpu", return_info=True)
    frame = result.to_pandas() if hasattr(result, "to_pandas") else result
    mate = frame_mates(frame, n)
    assert (mate[mate] == np.arange(n)).all() and (mate != np.arange(n)).all()
    weight = complete_weight(matrix, mate)
    assert weight == pytest.approx(info.weight, rel=1e-6) and weight > info.start_weight
    cpu = cm.roma_matching(matrix, phases=50, threshold=0.0, backend="cpu", return_info=True)[1]
    assert weight >= 0.99 * cpu.weight
    if info.converged:
        best = cm.matching.roma_cpu.dense_max_flip_gain(matrix, np.zeros((0, 1)), n, mate,
                                                       matrix[np.arange(n), mate].astype(float))
        assert best <= 1e-9


@pytest.mark.parametrize("threads", [32, 128, 512, 1024])  # 1024: the register cap
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_real_graphs_against_cpu(path, threads):
    edges, _ = read_graph(path)
    edges["weight"] = np.random.default_rng(2).random(len(edges)) + 0.01
    result, info = cm.roma_matching(edges, threads_per_block=threads, backend="gpu",
                                    return_info=True)
    assert isinstance(result, pd.DataFrame) and cm.is_matching(edges, result)
    assert info.weight >= info.start_weight
    cpu = cm.roma_matching(edges, backend="cpu", return_info=True)[1]
    assert info.weight >= 0.98 * cpu.weight
