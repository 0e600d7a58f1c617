"""The GPU assignment kernels in Numba's simulator (NUMBA_ENABLE_CUDASIM=1).

Tiny instances only (every simulated thread is a Python thread).  The GPU
path (Jacobi bidding kernels, then the host's exact finish) must reach the
CPU's optimal value on every problem kind, and return a valid matching.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linear_sum_assignment

import cugraph_match as cm
from cugraph_match.structure.backend import HOST_AS_DEVICE, resolve_backend

pytestmark = pytest.mark.cudasim


def total(result, maximize):
    assert result["src"].is_unique and result["dst"].is_unique
    return len(result), result["weight"].sum()


def instance(rng, n_left, n_right, per_left, kind):
    left = np.repeat(np.arange(n_left), per_left)
    right = rng.integers(0, n_right, left.shape[0])
    if n_left <= n_right:
        right[::per_left] = rng.permutation(n_right)[:n_left]
    weights = rng.random(left.shape[0]) if kind == "float" else \
        rng.integers(1, 6, left.shape[0])  # few distinct values: ties
    return pd.DataFrame({"src": left, "dst": right, "weight": weights})


def test_gpu_backend_is_simulated():
    assert resolve_backend("gpu").xp is HOST_AS_DEVICE


@pytest.mark.parametrize("kind,shape,flags", [
    ("float", (6, 6), (False, True)),   # the auction warm start
    ("int", (6, 6), (True, True)),      # the auction on integer costs with ties
    ("float", (4, 7), (False, True)),   # rectangular: the ε = 0 rounds
    ("int", (7, 4), (True, False)),     # maximum weight: private options
    ("int", (5, 5), (False, False)),    # cheapest of maximum cardinality
    ("float", (6, 4), (True, False)),
])
def test_gpu_equals_cpu(kind, shape, flags):
    rng = np.random.default_rng(sum(shape) + len(kind))
    frame = instance(rng, *shape, 3, kind)
    maximize, perfect = flags
    cpu = cm.assignment(frame, maximize=maximize, perfect=perfect, backend="cpu")
    gpu = cm.assignment(frame, maximize=maximize, perfect=perfect, backend="gpu")
    assert isinstance(gpu, pd.DataFrame)
    size, value = total(gpu, maximize)
    assert size == len(cpu)
    assert value == pytest.approx(cpu["weight"].sum(), rel=1e-12)
    pairs = set(zip(frame["src"], frame["dst"]))
    assert set(zip(gpu["src"], gpu["dst"])) <= pairs


def test_gpu_rounded_bids_keep_the_optimum():
    """A bid's w1 - w0 rounded up in float64 (0.9 from -0.1 - -1.0): the
    column's reduced cost ended above the second best's, the host freed the
    row, and the column, free below potential 0, lost to a worse one."""
    rows, cols = cm.assignment(np.array([[1.0, 0.1]]), maximize=True, backend="gpu")
    assert cols.tolist() == [0]
    frame = pd.DataFrame({"src": [1, 1, 0], "dst": [2, 1, 0], "weight": [0.1, -1.0, -1.0]})
    assert cm.assignment(frame, backend="gpu")["weight"].sum() == -2.0
    rng = np.random.default_rng(0)
    for _ in range(40):  # 23 of 150 such instances were not optimal
        shape = sorted(int(s) for s in rng.integers(1, 7, 2))
        matrix = rng.choice([0.1, 0.2, 0.3, 0.7, 1.1, 2.3, -0.4], size=shape) * \
            rng.choice([1, 1e-3, 10])
        maximize = bool(rng.integers(2))
        rows, cols = cm.assignment(matrix, maximize=maximize, backend="gpu")
        r, c = linear_sum_assignment(matrix, maximize=maximize)
        assert matrix[rows, cols].sum() == pytest.approx(matrix[r, c].sum(), rel=1e-12,
                                                          abs=1e-12)


def test_gpu_names_the_same_record_as_the_cpu():
    """Hall's condition first fails at row 1 (0 -> {1}, 1 -> {1}); the GPU's
    bids served row 1 first and named row 0."""
    import scipy.sparse as sp

    frame = pd.DataFrame({"src": [0, 1, 2, 2, 2], "dst": [1, 1, 0, 1, 2], "weight": 1.0})
    matrix = sp.csr_matrix((np.ones(5), (frame["src"], frame["dst"])), shape=(3, 3))
    dense = np.array([[np.inf, 1.0], [np.inf, 2.0]])
    for data, kwargs, message in ((frame, {"perfect": True}, "source id 1 cannot be linked"),
                                  (matrix, {"perfect": True}, "row 1 cannot be matched"),
                                  (dense, {}, "row 1 cannot be served")):
        for backend in ("cpu", "gpu"):
            with pytest.raises(ValueError, match=message):
                cm.assignment(data, backend=backend, **kwargs)


def test_gpu_infeasible_perfect():
    # rectangular (the ε = 0 rounds stall, the host's search finds no path)
    frame = pd.DataFrame({"src": [0, 1, 2, 2], "dst": [5, 5, 6, 7], "weight": [1.0] * 4})
    frame = pd.concat([frame, pd.DataFrame({"src": [2], "dst": [8], "weight": [1.0]})])
    with pytest.raises(ValueError, match="perfect=True"):
        cm.assignment(frame, perfect=True, backend="gpu")


@pytest.mark.parametrize("maximize", [False, True])
def test_gpu_dense(maximize):
    rng = np.random.default_rng(1)
    for shape in [(5, 5), (3, 6)]:
        matrix = rng.integers(0, 4, shape).astype(np.float64)
        matrix[0, 0] = -np.inf if maximize else np.inf
        rows, cols = cm.assignment(matrix, maximize=maximize, backend="gpu")
        r, c = linear_sum_assignment(matrix, maximize=maximize)
        np.testing.assert_array_equal(rows, r)
        assert matrix[rows, cols].sum() == matrix[r, c].sum()
