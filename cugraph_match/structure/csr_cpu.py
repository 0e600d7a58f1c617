"""CSR construction on the CPU (numba.njit): counting sort by row, then a
parallel per-row pass that merges duplicates (keeping the largest weight)
and orders the row by preference: weight descending, then neighbour id
descending.

Produces exactly what ``core.build_csr_sorted`` produces with NumPy/CuPy
sorts, in O(m log d) instead of global sorts.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _scatter_by_row(u, v, w, n):
    degree = np.zeros(n + 1, dtype=np.int64)
    for e in range(u.shape[0]):
        if u[e] != v[e]:
            degree[u[e] + 1] += 1
            degree[v[e] + 1] += 1
    for i in range(n):
        degree[i + 1] += degree[i]
    starts = degree
    fill = starts[:-1].copy()
    cols = np.empty(starts[n], dtype=np.int64)
    ws = np.empty(starts[n], dtype=w.dtype)
    for e in range(u.shape[0]):
        a, b = u[e], v[e]
        if a != b:
            cols[fill[a]] = b
            ws[fill[a]] = w[e]
            fill[a] += 1
            cols[fill[b]] = a
            ws[fill[b]] = w[e]
            fill[b] += 1
    return starts, cols, ws


@njit(cache=True, parallel=True)
def _merge_rows(starts, cols, ws, n):
    unique = np.zeros(n, dtype=np.int64)
    for r in prange(n):
        lo, hi = starts[r], starts[r + 1]
        if hi == lo:
            continue
        order = np.argsort(cols[lo:hi], kind="mergesort")
        row_cols = cols[lo:hi][order]
        row_ws = ws[lo:hi][order]
        k = 0
        for i in range(hi - lo):
            if k > 0 and row_cols[i] == cols[lo + k - 1]:
                if row_ws[i] > ws[lo + k - 1]:
                    ws[lo + k - 1] = row_ws[i]
            else:
                cols[lo + k] = row_cols[i]
                ws[lo + k] = row_ws[i]
                k += 1
        # preference order: weight desc, ties to the larger neighbour id
        row_cols = cols[lo:lo + k][::-1].copy()
        row_ws = ws[lo:lo + k][::-1].copy()
        order = np.argsort(-row_ws, kind="mergesort")
        for i in range(k):
            cols[lo + i] = row_cols[order[i]]
            ws[lo + i] = row_ws[order[i]]
        unique[r] = k
    return unique


@njit(cache=True, parallel=True)
def _compact(starts, cols, ws, unique, offsets, indices, weights):
    for r in prange(unique.shape[0]):
        src, dst = starts[r], offsets[r]
        for i in range(unique[r]):
            indices[dst + i] = cols[src + i]
            weights[dst + i] = ws[src + i]


def build_csr_cpu(u, v, w, n, index_dtype):
    starts, cols, ws = _scatter_by_row(u, v, w, n)
    unique = _merge_rows(starts, cols, ws, n)
    nnz = int(unique.sum())
    offsets = np.zeros(n + 1, dtype=index_dtype(nnz))
    np.cumsum(unique, out=offsets[1:])
    indices = np.empty(nnz, dtype=index_dtype(n))
    weights = np.empty(nnz, dtype=w.dtype)
    _compact(starts, cols, ws, unique, offsets, indices, weights)
    return offsets, indices, weights


@njit(cache=True, parallel=True)
def mate_weights_cpu(offsets, indices, weights, mate):
    """Weight of (v, mate[v]) per vertex, NaN when unmatched.

    A vertex's mate sits near the front of its preference-ordered row, so
    scanning the row is cheaper than any whole-CSR pass.
    """
    n = mate.shape[0]
    out = np.full(n, np.nan, dtype=weights.dtype)
    for v in prange(n):
        if mate[v] >= 0:
            for j in range(offsets[v], offsets[v + 1]):
                if indices[j] == mate[v]:
                    out[v] = weights[j]
                    break
    return out
