"""The host side of the input pipeline, in ``numba``: linear passes around
the sorts of ``sort_cpu``.

Each function here does one stage for :mod:`~cugraph_match.structure`'s
dispatchers (``validation``, ``renumber``, ``edges``, ``csr``); the GPU side
of each stage is written with CuPy array operations beside its dispatcher.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def scan_float_weights(w):
    """Counts and first positions of NaN, infinite and non-positive weights.

    Returns ``(nan, first_nan, inf, first_inf, nonpositive, first_nonpositive)``
    (first = -1 when the count is 0).  NaN is not counted as non-positive.
    """
    nan = inf = nonpos = 0
    first_nan = first_inf = first_nonpos = -1
    for i in range(w.shape[0]):
        x = w[i]
        if x != x:
            if nan == 0:
                first_nan = i
            nan += 1
        elif x == np.inf or x == -np.inf:
            if inf == 0:
                first_inf = i
            inf += 1
            if x < 0:
                if nonpos == 0:
                    first_nonpos = i
                nonpos += 1
        elif x <= 0:
            if nonpos == 0:
                first_nonpos = i
            nonpos += 1
    return nan, first_nan, inf, first_inf, nonpos, first_nonpos


@njit(cache=True, nogil=True)
def scan_integer_weights(w):
    """Count and first position of non-positive integer weights."""
    bad = 0
    first = -1
    for i in range(w.shape[0]):
        if w[i] <= 0:
            if bad == 0:
                first = i
            bad += 1
    return bad, first


# --------------------------------------------------------------------------
# renumbering
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True, parallel=True)
def min_max(ids):
    """(min, max) of a non-empty integer array, in its own dtype."""
    chunks = 64
    n = ids.shape[0]
    step = (n + chunks - 1) // chunks
    lows = np.empty(chunks, dtype=ids.dtype)
    highs = np.empty(chunks, dtype=ids.dtype)
    for c in prange(chunks):
        start = min(n - 1, c * step)
        lo = ids[start]
        hi = ids[start]
        for i in range(start, min(n, (c + 1) * step)):
            x = ids[i]
            if x < lo:
                lo = x
            if x > hi:
                hi = x
        lows[c] = lo
        highs[c] = hi
    return lows.min(), highs.max()


@njit(cache=True, nogil=True, parallel=True)
def mark_present(ids, low, present):
    """``present[id - low] = 1`` for every id (concurrent writes all write 1)."""
    for i in prange(ids.shape[0]):
        present[np.uint64(ids[i]) - np.uint64(low)] = 1


@njit(cache=True, nogil=True)
def dense_codes(present, code_of):
    """``code_of[x]`` = how many present values lie below x; returns the count."""
    count = 0
    for x in range(present.shape[0]):
        code_of[x] = count
        count += present[x]
    return count


@njit(cache=True, nogil=True, parallel=True)
def lookup_codes(ids, low, code_of, out):
    for i in prange(ids.shape[0]):
        out[i] = code_of[np.uint64(ids[i]) - np.uint64(low)]


@njit(cache=True, nogil=True, parallel=True)
def offset_keys(ids, low, out):
    """``ids - low`` as uint64 (order-preserving for any integer dtype)."""
    for i in prange(ids.shape[0]):
        out[i] = np.uint64(ids[i]) - np.uint64(low)


@njit(cache=True, nogil=True)
def codes_from_sorted(sorted_keys, positions, codes):
    """Distinct keys in order get codes 0, 1, ...; scatter each element's code
    to its position.  Returns the distinct keys."""
    n = sorted_keys.shape[0]
    distinct = 0
    for i in range(n):
        if i == 0 or sorted_keys[i] != sorted_keys[i - 1]:
            distinct += 1
    values = np.empty(distinct, dtype=np.uint64)
    code = -1
    for i in range(n):
        if i == 0 or sorted_keys[i] != sorted_keys[i - 1]:
            code += 1
            values[code] = sorted_keys[i]
        codes[positions[i]] = code
    return values


# --------------------------------------------------------------------------
# undirected edges: pair keys, duplicates, self-loops
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True, parallel=True)
def pair_keys(u, v, bits, out):
    """``max(u, v) << bits | min(u, v)``: sorted, these order edges by (hi, lo),
    and equal keys are the same undirected edge.  A self-loop keeps lo == hi.
    Returns the number of self-loop rows."""
    loops = 0
    for i in prange(u.shape[0]):
        a = np.uint64(u[i])
        b = np.uint64(v[i])
        if a < b:
            out[i] = (b << bits) | a
        else:
            out[i] = (a << bits) | b
        if a == b:
            loops += 1
    return loops


@njit(cache=True, nogil=True)
def row_offsets(lo, hi, n, offsets):
    """Symmetric row lengths of the edges (lo, hi), prefix-summed into ``offsets``."""
    offsets[:] = 0
    for e in range(lo.shape[0]):
        offsets[lo[e] + 1] += 1
        offsets[hi[e] + 1] += 1
    for r in range(n):
        offsets[r + 1] += offsets[r]


@njit(cache=True, nogil=True, parallel=True)
def scatter_rows(lo, hi, w, offsets, indices, weights, chunks):
    """Both directions of every edge into its rows, in edge order.

    Fed the canonical edges (sorted by (hi, lo)), each row comes out sorted
    by neighbour: its smaller neighbours arrive with the edges whose hi is
    the row, in lo order, before the larger ones, in hi order.  Parallel
    over ``chunks`` stretches of the edges, as
    :func:`scatter_preference_pairs`."""
    m = lo.shape[0]
    n = offsets.shape[0] - 1
    weighted = w.shape[0] > 0
    step = (m + chunks - 1) // chunks
    cursor = np.zeros((chunks, n), dtype=offsets.dtype)
    for c in prange(chunks):
        for e in range(c * step, min(m, (c + 1) * step)):
            cursor[c, lo[e]] += 1
            cursor[c, hi[e]] += 1
    for r in prange(n):
        at = offsets[r]
        for c in range(chunks):
            count = cursor[c, r]
            cursor[c, r] = at
            at += count
    for c in prange(chunks):
        for e in range(c * step, min(m, (c + 1) * step)):
            a = lo[e]
            b = hi[e]
            at = cursor[c, a]
            indices[at] = b
            if weighted:
                weights[at] = w[e]
            cursor[c, a] = at + 1
            at = cursor[c, b]
            indices[at] = a
            if weighted:
                weights[at] = w[e]
            cursor[c, b] = at + 1


@njit(cache=True, nogil=True, parallel=True)
def gather(values, positions, out):
    """``out[i] = values[positions[i]]``, in parallel."""
    for i in prange(positions.shape[0]):
        out[i] = values[positions[i]]


@njit(cache=True, nogil=True)
def dedup_sorted_weighted(sorted_keys, sorted_w, bits, keys_out, w_out, loop_w):
    """Walk pair keys in sorted order, weights already in key order (no gathers):
    writes each distinct non-loop pair key once with its largest weight, and
    each loop's weight to ``loop_w`` (largest per vertex).  Returns the count.

    The outputs may be the inputs themselves: entry j is written after entry
    i >= j has been read, so the walk compacts in place."""
    mask = (np.uint64(1) << bits) - np.uint64(1)
    j = -1
    prev = np.uint64(0)
    for i in range(sorted_keys.shape[0]):
        k = sorted_keys[i]
        x = sorted_w[i]
        lo = k & mask
        if lo == (k >> bits):
            if x > loop_w[lo]:
                loop_w[lo] = x
        elif j < 0 or k != prev:
            j += 1
            keys_out[j] = k
            w_out[j] = x
        elif x > w_out[j]:
            w_out[j] = x
        prev = k
    return j + 1


@njit(cache=True, nogil=True)
def distinct_sorted_pairs(sorted_keys, bits, keys_out, loop_w):
    """Unweighted :func:`dedup_sorted_weighted`: distinct non-loop keys, and 1
    in ``loop_w`` for every vertex with a loop.  Returns the count.  In place
    allowed."""
    mask = (np.uint64(1) << bits) - np.uint64(1)
    j = 0
    prev = np.uint64(0)
    for i in range(sorted_keys.shape[0]):
        k = sorted_keys[i]
        lo = k & mask
        if lo == (k >> bits):
            loop_w[lo] = 1
        elif j == 0 or k != prev:
            keys_out[j] = k
            j += 1
        prev = k
    return j


@njit(cache=True, nogil=True, parallel=True)
def split_pairs(pair_keys, bits, lo, hi):
    mask = (np.uint64(1) << bits) - np.uint64(1)
    for i in prange(pair_keys.shape[0]):
        lo[i] = pair_keys[i] & mask
        hi[i] = pair_keys[i] >> bits


@njit(cache=True, nogil=True, parallel=True)
def join_pairs(lo, hi, bits, out):
    for i in prange(lo.shape[0]):
        out[i] = (np.uint64(hi[i]) << bits) | np.uint64(lo[i])


@njit(cache=True, nogil=True, parallel=True)
def scatter_preference_pairs(ascending_pairs, bits, offsets, indices, keys, chunks):
    """Rows in preference order from the edges' pair keys in ascending weight
    order (ties in (hi, lo) order): read backwards that is the greedy order,
    and edge number g in it gets key ``m - g`` (unique, never 0, larger for
    better edges).  Scattering both directions in greedy order leaves every
    row best first, without sorting any row.

    Parallel over ``chunks`` consecutive stretches of the greedy order: each
    stretch counts its entries per row, the counts become per-stretch row
    cursors (stretch c writes after stretches 0..c-1 in every row), and the
    stretches scatter at once, each row still in greedy order."""
    m = ascending_pairs.shape[0]
    n = offsets.shape[0] - 1
    mask = (np.uint64(1) << bits) - np.uint64(1)
    step = (m + chunks - 1) // chunks
    cursor = np.zeros((chunks, n), dtype=offsets.dtype)
    for c in prange(chunks):
        for g in range(c * step, min(m, (c + 1) * step)):
            p = ascending_pairs[m - 1 - g]
            cursor[c, p & mask] += 1
            cursor[c, p >> bits] += 1
    for r in prange(n):
        at = offsets[r]
        for c in range(chunks):
            count = cursor[c, r]
            cursor[c, r] = at
            at += count
    for c in prange(chunks):
        for g in range(c * step, min(m, (c + 1) * step)):
            p = ascending_pairs[m - 1 - g]
            a = p & mask
            b = p >> bits
            key = m - g
            at = cursor[c, a]
            indices[at] = b
            keys[at] = key
            cursor[c, a] = at + 1
            at = cursor[c, b]
            indices[at] = a
            keys[at] = key
            cursor[c, b] = at + 1


@njit(cache=True, nogil=True, parallel=True)
def coarse_pair_keys(lo, hi, group, bits, keys_out):
    """Contraction: the pair key of every edge's two groups; an edge inside a
    group gets the group's loop key (lo == hi), so a sort gathers what each
    group's self-loop receives as well as the parallel edges."""
    for e in prange(lo.shape[0]):
        a = np.uint64(group[lo[e]])
        b = np.uint64(group[hi[e]])
        if a > b:
            a, b = b, a
        keys_out[e] = (b << bits) | a


@njit(cache=True, nogil=True)
def sum_sorted_weighted(sorted_keys, sorted_w, key_out, w_out):
    """The distinct keys of a sorted array and the summed weights of each
    (weights already in key order).  Returns the count.  In place allowed,
    as :func:`dedup_sorted_weighted`."""
    j = -1
    prev = np.uint64(0)
    for i in range(sorted_keys.shape[0]):
        k = sorted_keys[i]
        x = sorted_w[i]
        if j < 0 or k != prev:
            j += 1
            key_out[j] = k
            w_out[j] = x
        else:
            w_out[j] += x
        prev = k
    return j + 1


@njit(cache=True, nogil=True)
def edges_by_source(lo, hi, w, loop, src_out, dst_out, w_out):
    """A level's edges and positive self-loops ordered by (src, dst): a
    counting sort by lo of edges that arrive in (hi, lo) order (stable, so
    each source's edges come out in hi order), each vertex's self-loop first
    among its rows."""
    n = loop.shape[0]
    cursor = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        if loop[v] > 0:
            cursor[v + 1] += 1
    for e in range(lo.shape[0]):
        cursor[lo[e] + 1] += 1
    for v in range(n):
        cursor[v + 1] += cursor[v]
    for v in range(n):
        if loop[v] > 0:
            at = cursor[v]
            src_out[at] = v
            dst_out[at] = v
            w_out[at] = loop[v]
            cursor[v] = at + 1
    for e in range(lo.shape[0]):
        at = cursor[lo[e]]
        src_out[at] = lo[e]
        dst_out[at] = hi[e]
        w_out[at] = w[e]
        cursor[lo[e]] = at + 1
