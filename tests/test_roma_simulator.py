"""The ROMA CUDA kernels in Numba's simulator (NUMBA_ENABLE_CUDASIM=1).

The simulator runs one block at a time with its threads as Python threads,
so the warps of one block race each other (the sparse kernel's warps do),
but blocks never do: the dense kernel's lock failures are exercised by
phases run with some locks already held.  Small graphs only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.structure.backend import HOST_AS_DEVICE
from roma_oracle import (adjacency, best_centred_gain, best_flip_gain, complete_weight,
                         frame_mates, mates_of, matched_weight)

pytestmark = pytest.mark.cudasim


def _matrix(kind, n, seed):
    rng = np.random.default_rng(seed)
    if kind == "ties":
        upper = rng.integers(0, 3, (n, n)).astype(np.float32)
    elif kind == "exponential":
        upper = rng.exponential(1 / 3.5, (n, n))
    else:
        upper = rng.random((n, n)).astype(np.float32)
    matrix = np.triu(upper, 1)
    return matrix + matrix.T


def _check_complete(matrix, result, info):
    n = matrix.shape[0]
    mate = frame_mates(result, n)
    assert (mate >= 0).sum() == n - n % 2
    matched = np.flatnonzero(mate >= 0)
    assert (mate[mate[matched]] == matched).all()
    weight = complete_weight(matrix, mate)
    assert weight == pytest.approx(info.weight, rel=1e-6, abs=1e-9)
    assert weight >= info.start_weight - 1e-9
    if info.converged:  # a phase without a flip proves a flip-local optimum
        assert best_flip_gain(matrix, mate) <= 1e-9
    return mate


@pytest.mark.parametrize("kind,n,threads,start", [
    ("uniform", 10, 64, "pairs"),
    ("ties", 7, 32, "greedy"),
    ("exponential", 8, 128, "pairs"),
])
def test_dense_kernel_valid_and_locally_optimal(kind, n, threads, start):
    matrix = _matrix(kind, n, seed=n)
    result, info = cm.roma_matching(matrix, initial=start, threshold=0.0, phases=20,
                                    backend="gpu", threads_per_block=threads, return_info=True)
    assert isinstance(result, pd.DataFrame)
    _check_complete(matrix, result, info)
    assert info.converged and all(a == f for a, f in zip(info.attempts, info.flips))
    if start == "greedy":  # the kernels' locally-dominant rounds give the CPU's Suitor start
        cpu = cm.roma_matching(matrix, initial="greedy", phases=0, backend="cpu",
                               return_info=True)[1]
        assert info.start_weight == pytest.approx(cpu.start_weight)


def test_dense_kernel_from_points():
    points = np.random.default_rng(3).random((9, 2))
    matrix = np.sqrt(((points[:, None] - points[None]) ** 2).sum(axis=2))
    result, info = cm.roma_matching(points=points, threshold=0.0, phases=20, backend="gpu",
                                    threads_per_block=32, return_info=True)
    _check_complete(matrix, result, info)


def test_dense_phase_gives_up_on_held_locks():
    """Vertices locked by someone else keep their mates; the rest still improves."""
    from cugraph_match.matching.roma_gpu import dense_phase_gpu

    n = 10
    matrix = _matrix("uniform", n, seed=1)
    mate = np.arange(n) ^ 1  # pairs 0-1, 2-3, ...
    mw = matrix[np.arange(n), mate].astype(np.float64)
    locks = np.full(n, -1, dtype=np.int64)
    held = [2, 7]
    locks[held] = 99
    counters = np.zeros(2, dtype=np.int64)
    start = mw.sum() / 2
    flips, attempts = dense_phase_gpu(matrix, np.zeros((0, 1)), n, mate, mw, locks, 0.0,
                                      counters, 32)
    assert flips > 0 and (locks[held] == 99).all() and (np.delete(locks, held) == -1).all()
    assert (mate[held] == np.array(held) ^ 1).all()
    assert (mate[mate] == np.arange(n)).all()
    assert mw.sum() / 2 > start
    np.testing.assert_allclose(mw, matrix[np.arange(n), mate])


def _small_graph(seed, n=11, m=20, ties=False):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    weight = rng.integers(1, 4, m).astype(float) if ties else rng.random(m) + 0.1
    return pd.DataFrame({"src": src, "dst": dst, "weight": weight})


@pytest.mark.parametrize("seed,threads,ties,start", [
    (1, 32, False, "greedy"),
    (2, 64, True, "empty"),
    (3, 128, False, "empty"),
])
def test_sparse_kernel_valid_and_locally_optimal(seed, threads, ties, start):
    edges = _small_graph(seed, ties=ties)
    result, info = cm.roma_matching(edges, initial=start, threshold=0.0, phases=20,
                                    backend="gpu", threads_per_block=threads, return_info=True)
    assert cm.is_matching(edges, result)
    adj = adjacency(edges["src"], edges["dst"], edges["weight"])
    mate = mates_of(result)
    weight = matched_weight(adj, mate)
    assert weight == pytest.approx(info.weight) and weight >= info.start_weight - 1e-9
    assert info.converged and best_centred_gain(adj, mate) <= 1e-9


def test_sparse_phase_gives_up_on_held_locks():
    from cugraph_match.matching.roma_gpu import sparse_phase_gpu

    edges = _small_graph(4)
    g = cm.Graph(edges, backend="gpu")
    rows = g.neighbour_csr()
    n = g.num_vertices
    mate = np.full(n, -1, dtype=np.int64)
    mw = np.zeros(n)
    locks = np.full(n, -1, dtype=np.int64)
    held = [0, 5, 9]
    locks[held] = 99
    counters = np.zeros(2, dtype=np.int64)
    flips, _ = sparse_phase_gpu(rows.offsets, rows.indices, rows.weights.astype(np.float64),
                                mate, mw, locks, 0.0, counters, 64)
    assert flips > 0 and (mate[held] == -1).all() and (locks[held] == 99).all()
    matched = np.flatnonzero(mate >= 0)
    assert (mate[mate[matched]] == matched).all()
    assert g.backend.xp is HOST_AS_DEVICE


def test_kernels_compare_gains_exactly():
    """Weights 3.5, 3.25 and 2**54 on a 4-cycle, whose two matchings weigh
    the same after float64 rounding (test_roma's WIDE_EDGES): under the
    locks each kernel compares the gain exactly, so the phases end on the
    heavier matching and stop there (before 2026-11-28 the rounded gains
    swapped the two back and forth)."""
    from fractions import Fraction

    edges = pd.DataFrame({"src": [0, 2, 0, 1], "dst": [1, 3, 3, 2],
                          "weight": [3.5, 2.0**54, 2.0**54, 3.25]})
    matrix = np.zeros((4, 4))
    for a, b, w in zip(edges["src"], edges["dst"], edges["weight"]):
        matrix[a, b] = matrix[b, a] = w
    light = pd.DataFrame({"vertex": [0, 1, 2, 3], "mate": [3, 2, 1, 0]})
    runs = [cm.roma_matching(edges, initial=start, threshold=0.0, phases=8, backend="gpu",
                             return_info=True) for start in ("empty", light)]
    runs += [cm.roma_matching(matrix, initial=light, threshold=0.0, phases=8, backend="gpu",
                              return_info=True)]
    for result, info in runs:
        assert frame_mates(result, 4).tolist() == [1, 0, 3, 2]
        weight = sum(Fraction(float(w)) for w in result["weight"]) / 2
        assert weight == 2**54 + Fraction(7, 2) and info.converged
