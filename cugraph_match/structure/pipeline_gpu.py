"""The device side of the input pipeline: ``numba.cuda`` element kernels around
CuPy's radix sorts.

Each kernel writes its outputs straight into arrays of the final width
(int32 ids, uint32 keys), so a stage allocates no temporaries of the
``a.astype(...) << 32 | b`` kind.  That is what keeps the peak device
memory of the whole pipeline at 64 bytes per undirected edge (the
accounting is in README.md, "GPU memory").

One thread per element, 256 threads per block; every kernel reads and
writes disjoint entries (no atomics), except :func:`mark_present`, whose
concurrent writes all store 1.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64, uint64

from .device import launch as on_stream

THREADS = 256


def launch(kernel, size: int, xp, *args) -> None:
    """Run ``kernel`` with one thread per element of a ``size``-element range
    (a small range gets one block of just enough warps), on CuPy's current
    stream."""
    if size > 0:
        threads = min(THREADS, -(-size // 32) * 32)
        on_stream(kernel, -(-size // threads), threads, xp, *args)


# --------------------------------------------------------------------------
# renumbering
# --------------------------------------------------------------------------


@cuda.jit
def mark_present(ids, low, present):
    i = cuda.grid(1)
    if i < ids.shape[0]:
        present[uint64(ids[i]) - uint64(low)] = 1


@cuda.jit
def lookup_codes(ids, low, code_of, out):
    i = cuda.grid(1)
    if i < ids.shape[0]:
        out[i] = code_of[uint64(ids[i]) - uint64(low)]


# --------------------------------------------------------------------------
# undirected edges
# --------------------------------------------------------------------------


@cuda.jit
def pair_keys(u, v, bits, out):
    """``max << bits | min`` per row; a self-loop keeps lo == hi."""
    i = cuda.grid(1)
    if i < u.shape[0]:
        a = uint64(u[i])
        b = uint64(v[i])
        if a < b:
            out[i] = (b << uint64(bits)) | a
        else:
            out[i] = (a << uint64(bits)) | b


@cuda.jit
def edge_starts(sorted_keys, bits, flag):
    """1 where a distinct, non-loop pair key starts in the sorted keys."""
    i = cuda.grid(1)
    if i < sorted_keys.shape[0]:
        k = sorted_keys[i]
        mask = (uint64(1) << uint64(bits)) - uint64(1)
        first = i == 0 or k != sorted_keys[i - 1]
        flag[i] = 1 if first and (k & mask) != (k >> uint64(bits)) else 0


@cuda.jit
def dedup_groups(sorted_keys, sorted_w, bits, slot, lo, hi, w_out, loop_w):
    """The thread at the start of each run of equal keys takes the run's
    largest weight: an edge written to its slot (``slot`` = inclusive count
    of edge starts), or a self-loop to its vertex.  Runs are duplicates of
    one edge, so the forward walks add up to one pass."""
    i = cuda.grid(1)
    n = sorted_keys.shape[0]
    if i >= n:
        return
    k = sorted_keys[i]
    if i > 0 and sorted_keys[i - 1] == k:
        return
    weighted = sorted_w.shape[0] > 0
    best = sorted_w[i] if weighted else 1
    j = i + 1
    while j < n and sorted_keys[j] == k:
        if weighted and sorted_w[j] > best:
            best = sorted_w[j]
        j += 1
    mask = (uint64(1) << uint64(bits)) - uint64(1)
    a = k & mask
    b = k >> uint64(bits)
    if a == b:
        loop_w[int64(a)] = best
        return
    at = slot[i] - 1
    lo[at] = a
    hi[at] = b
    if weighted:
        w_out[at] = best


# --------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------


@cuda.jit
def place_keys(lo, hi, out):
    """``row << 32 | p`` for both directions of edge p: sorted, they group the
    rows and keep each row in order of p."""
    p = cuda.grid(1)
    m = lo.shape[0]
    if p < m:
        out[p] = (uint64(lo[p]) << uint64(32)) | uint64(p)
        out[m + p] = (uint64(hi[p]) << uint64(32)) | uint64(p)


@cuda.jit
def decode_preference(packed, lo, hi, indices, keys):
    """Entry i of the sorted place keys: its neighbour (the edge's other end)
    and its key ``m - p`` (p the edge's place in greedy order)."""
    i = cuda.grid(1)
    if i < packed.shape[0]:
        word = packed[i]
        p = int64(word & uint64(0xFFFFFFFF))
        row = int64(word >> uint64(32))
        indices[i] = int64(lo[p]) + int64(hi[p]) - row
        keys[i] = lo.shape[0] - p


@cuda.jit
def decode_neighbours(packed, lo, hi, w, indices, weights):
    """Entry i of the sorted place keys: its neighbour and the edge's weight
    (``w`` empty: unweighted)."""
    i = cuda.grid(1)
    if i < packed.shape[0]:
        word = packed[i]
        p = int64(word & uint64(0xFFFFFFFF))
        row = int64(word >> uint64(32))
        indices[i] = int64(lo[p]) + int64(hi[p]) - row
        if w.shape[0] > 0:
            weights[i] = w[p]


def empty_weights(xp):
    return xp.zeros(0, dtype=np.float32)
