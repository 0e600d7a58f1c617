"""ROMA local search on the CPU (numba.njit): sequential phases in a seeded
random vertex order.

Two kinds of graph:

* **complete** (Hovland's thesis): a dense symmetric weight matrix, or
  points whose Euclidean distances are the weights, computed when read.
  The matching is perfect (an odd ``n`` gets a padding vertex ``n`` whose
  edges weigh 0), and an augmentation is the flip of two matching edges
  (u, mu), (z, p) into (u, z), (mu, p).  Scanning every vertex z ≠ u, mu
  once covers both flips of every other matching edge: z = x gives
  {(u, x), (mu, y)} and z = y gives {(u, y), (mu, x)};
* **sparse** (beyond the thesis): on the neighbour rows, the maximum-gain
  2-augmentation centred at a vertex v (Pettie and Sanders): v's new mate a
  and, when v is matched to u, u's new mate b, each of a and b leaving its
  own mate (if any) unmatched; a and b may be mates of each other (an
  alternating 4-cycle) or unmatched (an augmenting path).

Every vertex keeps ``mw[v]``, the weight of its matched edge (0 when
unmatched), so a candidate's gain needs no search for the edges it removes.
Gains are float64 whatever the weight dtype.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .roma_common import compile_gain_exceeds

NO_VERTEX = -1
exact_gain_exceeds = compile_gain_exceeds(njit(inline="always"))


# -- complete graphs ----------------------------------------------------------


@njit(inline="always")
def pair_weight(matrix, points, n, i, j):
    """w(i, j) of the complete graph: ``matrix[i, j]``, or the Euclidean
    distance of ``points[i]`` and ``points[j]`` when ``matrix`` is empty; 0
    when either end is the padding vertex ``n``."""
    if i >= n or j >= n:
        return 0.0
    if matrix.shape[0] == 0:
        total = 0.0
        for k in range(points.shape[1]):
            d = np.float64(points[i, k]) - np.float64(points[j, k])
            total += d * d
        return np.sqrt(total)
    return np.float64(matrix[i, j])


@njit(cache=True, nogil=True)
def dense_best_flip(matrix, points, n, mate, mw, u):
    """(z, gain) of u's best flip: u takes z, u's mate takes z's mate.

    Ties go to the smallest z.  ``z`` is -1 only when there is no other
    matching edge (two vertices).
    """
    size = mate.shape[0]
    mu = mate[u]
    base = mw[u]
    best = -np.inf
    best_z = NO_VERTEX
    for z in range(size):
        if z == u or z == mu:
            continue
        gain = (pair_weight(matrix, points, n, u, z)
                + pair_weight(matrix, points, n, mu, mate[z]) - base - mw[z])
        if gain > best:
            best = gain
            best_z = z
    return best_z, best


@njit(inline="always")
def dense_flip(matrix, points, n, mate, mw, u, z):
    """Re-pair (u, mate[u]), (z, mate[z]) as (u, z), (mate[u], mate[z])."""
    mu = mate[u]
    p = mate[z]
    mate[u] = z
    mate[z] = u
    mate[mu] = p
    mate[p] = mu
    w_uz = pair_weight(matrix, points, n, u, z)
    w_mp = pair_weight(matrix, points, n, mu, p)
    mw[u] = w_uz
    mw[z] = w_uz
    mw[mu] = w_mp
    mw[p] = w_mp


@njit(cache=True, nogil=True)
def dense_phase(matrix, points, n, mate, mw, order, threshold):
    """One sequential ROMA phase over ``order``: each vertex makes its best
    flip when that gains more than ``threshold``.  Returns the flips made."""
    flips = 0
    for i in range(order.shape[0]):
        u = order[i]
        z, gain = dense_best_flip(matrix, points, n, mate, mw, u)
        # ranked by the rounded gain, made only when the exact one exceeds the threshold
        if z >= 0 and gain > threshold and exact_gain_exceeds(
                pair_weight(matrix, points, n, u, z),
                pair_weight(matrix, points, n, mate[u], mate[z]), mw[u], mw[z], 0.0,
                threshold):
            dense_flip(matrix, points, n, mate, mw, u, z)
            flips += 1
    return flips


@njit(cache=True, nogil=True, parallel=True)
def dense_max_flip_gain(matrix, points, n, mate, mw):
    """The largest flip gain over all vertices (``-inf`` with one matching edge)."""
    size = mate.shape[0]
    best = np.full(size, -np.inf)
    for u in prange(size):
        best[u] = dense_best_flip(matrix, points, n, mate, mw, u)[1]
    return best.max() if size else -np.inf


@njit(inline="always")
def _heavier(w1, a1, b1, w2, a2, b2):
    """Edge (a1, b1) of weight w1 before (a2, b2) of weight w2 in the
    project's order: heavier, or equally heavy with the larger (max, min)."""
    if w1 != w2:
        return w1 > w2
    hi1, hi2 = max(a1, b1), max(a2, b2)
    if hi1 != hi2:
        return hi1 > hi2
    return min(a1, b1) > min(a2, b2)


@njit(cache=True, nogil=True)
def _refill(matrix, points, n, u, size, suitor, held, cand_w, cand_z):
    """u's best ``k`` acceptable vertices (those whose held offer u beats),
    best first, in one pass over u's row; returns how many were found."""
    k = cand_z.shape[1]
    count = 0
    for z in range(size):
        if z == u:
            continue
        w = pair_weight(matrix, points, n, u, z)
        s = suitor[z]
        if s >= 0 and not _heavier(w, u, z, held[z], s, z):
            continue  # z holds a better offer, now and for good
        if count == k and not _heavier(w, u, z, cand_w[u, k - 1], u, cand_z[u, k - 1]):
            continue
        i = count if count < k else k - 1  # insert, dropping the last when full
        while i > 0 and _heavier(w, u, z, cand_w[u, i - 1], u, cand_z[u, i - 1]):
            cand_w[u, i] = cand_w[u, i - 1]
            cand_z[u, i] = cand_z[u, i - 1]
            i -= 1
        cand_w[u, i] = w
        cand_z[u, i] = z
        if count < k:
            count += 1
    return count


@njit(cache=True, nogil=True)
def dense_greedy(matrix, points, n, size, buffer=64):
    """The greedy matching of the complete graph on ``size`` vertices (n real
    ones plus the padding vertex when ``size > n``), by Suitor.

    A proposal goes to the proposer's best acceptable vertex (one whose held
    offer it beats).  Offers only grow, so a vertex that refuses once
    refuses for good: each vertex keeps its ``buffer`` best acceptable
    vertices, best first, from one pass over its row, proposes down that
    list skipping those that have since become unacceptable, and passes
    over its row again only when the list runs out (rather than once per
    proposal, or sorting every row).  Unique under the project's tie order.
    """
    k = max(1, min(buffer, size))
    cand_w = np.empty((size, k))
    cand_z = np.empty((size, k), dtype=np.int64)
    filled = np.zeros(size, dtype=np.int64)  # entries of u's list
    at = np.zeros(size, dtype=np.int64)  # u's next entry
    suitor = np.full(size, NO_VERTEX, dtype=np.int64)
    held = np.full(size, -np.inf)
    for start in range(size):
        u = start
        while u >= 0:
            target = NO_VERTEX
            w = 0.0
            while target < 0:
                if at[u] == filled[u]:
                    if 0 < filled[u] < k and at[u] > 0:
                        break  # the last pass found every acceptable vertex: none left
                    filled[u] = _refill(matrix, points, n, u, size, suitor, held, cand_w,
                                        cand_z)
                    at[u] = 0
                    if filled[u] == 0:
                        break
                z = cand_z[u, at[u]]
                at[u] += 1
                s = suitor[z]
                if s < 0 or _heavier(cand_w[u, at[u] - 1], u, z, held[z], s, z):
                    target = z
                    w = cand_w[u, at[u] - 1]
            if target < 0:
                break  # nobody accepts u (only when nobody is left)
            displaced = suitor[target]
            suitor[target] = u
            held[target] = w
            u = displaced
    return suitor


@njit(cache=True, nogil=True)
def dense_mate_weights(matrix, points, n, mate):
    """``mw[v] = w(v, mate[v])`` (0 when unmatched)."""
    mw = np.zeros(mate.shape[0])
    for v in range(mate.shape[0]):
        if mate[v] >= 0:
            mw[v] = pair_weight(matrix, points, n, v, mate[v])
    return mw


def _scan_weight_matrix(matrix, tile):
    """Off-diagonal entries that are NaN/inf, negative, or differ from their
    mirror, in one tiled pass (the diagonal is never read).

    Returns ``counts`` (non-finite, negative, asymmetric pairs) and, for
    each, the first offending entry in row-major order as ``i * n + j`` (-1
    when none).  Each tile of the upper triangle is compared with its mirror
    tile, so both are read once while they sit in cache.
    """
    n = matrix.shape[0]
    tiles = (n + tile - 1) // tile
    counts = np.zeros((tiles, 3), dtype=np.int64)
    first = np.full((tiles, 3), -1, dtype=np.int64)
    for ti in prange(tiles):
        i0 = ti * tile
        i1 = min(n, i0 + tile)
        for i in range(i0, i1):
            for j in range(n):
                if j == i:
                    continue
                w = matrix[i, j]
                at = i * n + j
                if not np.isfinite(w):
                    counts[ti, 0] += 1
                    if first[ti, 0] < 0:
                        first[ti, 0] = at
                elif w < 0:
                    counts[ti, 1] += 1
                    if first[ti, 1] < 0:
                        first[ti, 1] = at
        for tj in range(ti, tiles):
            j0 = tj * tile
            j1 = min(n, j0 + tile)
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    a = matrix[i, j]
                    b = matrix[j, i]
                    if a != b and not (np.isnan(a) and np.isnan(b)):
                        counts[ti, 2] += 1
                        at = i * n + j
                        if first[ti, 2] < 0 or at < first[ti, 2]:
                            first[ti, 2] = at
    total = np.zeros(3, dtype=np.int64)
    earliest = np.full(3, -1, dtype=np.int64)
    for ti in range(tiles):
        for k in range(3):
            total[k] += counts[ti, k]
            if first[ti, k] >= 0 and (earliest[k] < 0 or first[ti, k] < earliest[k]):
                earliest[k] = first[ti, k]
    return total, earliest


_scan_serial = njit(cache=True, nogil=True)(_scan_weight_matrix)
_scan_parallel = njit(cache=True, nogil=True, parallel=True)(_scan_weight_matrix)
#: Below this many entries a parallel region costs more than it saves.
PARALLEL_ENTRIES = 1 << 22


def scan_weight_matrix(matrix, tile=64):
    """:func:`_scan_weight_matrix`, in parallel for large matrices."""
    scan = _scan_parallel if matrix.size >= PARALLEL_ENTRIES else _scan_serial
    return scan(matrix, tile)


# -- sparse graphs: centred 2-augmentations ---------------------------------


@njit(inline="always")
def _keep_top_two(gain, x, g1, x1, g2, x2):
    """Insert (gain, x) into the two best (g1, x1) >= (g2, x2); first seen wins ties."""
    if gain > g1:
        return gain, x, g1, x1
    if gain > g2:
        return g1, x1, gain, x
    return g1, x1, g2, x2


@njit(cache=True, nogil=True)
def best_augmentation(v, offsets, indices, weights, mate, mw, stamp, w_at_u, epoch):
    """The maximum-gain 2-augmentation centred at v.

    Returns ``(gain, a, b, w_va, w_ub)``: v's new mate a and, when v is
    matched to u, u's new mate b (-1 for none), with the weights of the two
    new edges.  With ``g_v(a) = w(v, a) - mw[a]`` (what taking a from its
    mate gains) the candidates are:

    * v unmatched: the best ``g_v(a)`` (an augmenting path v-a, or v-a-a');
    * v matched to u: one side, ``g_v(a) - w(v, u)`` or ``g_u(b) - w(v, u)``;
      both sides, ``g_v(a) + g_u(b) - w(v, u)`` for a ≠ b (the two best of
      each side suffice); and the 4-cycles v-a-b-u with b = mate[a], whose
      gain adds back the edge (a, b) that the two-sided sum subtracted twice.

    ``stamp``/``w_at_u`` are scratch: entries with ``stamp[x] == epoch`` mark
    u's neighbours x and the weight w(u, x).  Ties keep the first candidate
    found (rows are sorted by neighbour), so the result is deterministic.
    """
    u = mate[v]
    best = -np.inf
    best_a = NO_VERTEX
    best_b = NO_VERTEX
    best_wa = 0.0
    best_wb = 0.0
    if u < 0:
        for j in range(offsets[v], offsets[v + 1]):
            a = indices[j]
            w = np.float64(weights[j])
            gain = w - mw[a]
            if gain > best:
                best, best_a, best_wa = gain, a, w
        return best, best_a, best_b, best_wa, best_wb

    base = mw[v]
    # u's side: mark its neighbours, keep the two best g_u(b)
    gu1, bu1, gu2, bu2 = -np.inf, NO_VERTEX, -np.inf, NO_VERTEX
    for j in range(offsets[u], offsets[u + 1]):
        b = indices[j]
        if b == v:
            continue
        w = np.float64(weights[j])
        stamp[b] = epoch
        w_at_u[b] = w
        gu1, bu1, gu2, bu2 = _keep_top_two(w - mw[b], b, gu1, bu1, gu2, bu2)
    # v's side: the two best g_v(a), and the 4-cycles through a and its mate
    gv1, av1, gv2, av2 = -np.inf, NO_VERTEX, -np.inf, NO_VERTEX
    wv1, wv2 = 0.0, 0.0
    for j in range(offsets[v], offsets[v + 1]):
        a = indices[j]
        if a == u:
            continue
        w = np.float64(weights[j])
        gain = w - mw[a]
        if gain > gv1:
            gv2, av2, wv2 = gv1, av1, wv1
            gv1, av1, wv1 = gain, a, w
        elif gain > gv2:
            gv2, av2, wv2 = gain, a, w
        p = mate[a]
        if p >= 0 and stamp[p] == epoch:
            cycle = w + w_at_u[p] - base - mw[a]
            if cycle > best:
                best, best_a, best_b, best_wa, best_wb = cycle, a, p, w, w_at_u[p]
    if av1 >= 0 and gv1 - base > best:
        best, best_a, best_b, best_wa, best_wb = gv1 - base, av1, NO_VERTEX, wv1, 0.0
    if bu1 >= 0 and gu1 - base > best:
        best, best_a, best_b, best_wa, best_wb = gu1 - base, NO_VERTEX, bu1, 0.0, w_at_u[bu1]
    if av1 >= 0 and bu1 >= 0:
        if av1 != bu1:
            both = gv1 + gu1 - base
            if both > best:
                best, best_a, best_b, best_wa, best_wb = both, av1, bu1, wv1, w_at_u[bu1]
        else:
            # the best of both sides is one vertex: pair it with the other side's second
            if bu2 >= 0:
                both = gv1 + gu2 - base
                if both > best:
                    best, best_a, best_b, best_wa, best_wb = both, av1, bu2, wv1, w_at_u[bu2]
            if av2 >= 0:
                both = gv2 + gu1 - base
                if both > best:
                    best, best_a, best_b, best_wa, best_wb = both, av2, bu1, wv2, w_at_u[bu1]
    return best, best_a, best_b, best_wa, best_wb


@njit(inline="always")
def _release(mate, mw, x):
    if x >= 0:
        mate[x] = NO_VERTEX
        mw[x] = 0.0


@njit(cache=True, nogil=True)
def apply_augmentation(v, a, b, w_va, w_ub, mate, mw):
    """v takes a, v's mate takes b (either may be -1); the old mates of v, a
    and b are released first, so 4-cycles and paths need no special case."""
    u = mate[v]
    old_a = mate[a] if a >= 0 else NO_VERTEX
    old_b = mate[b] if b >= 0 else NO_VERTEX
    _release(mate, mw, v)
    _release(mate, mw, u)
    _release(mate, mw, a)
    _release(mate, mw, old_a)
    _release(mate, mw, b)
    _release(mate, mw, old_b)
    if a >= 0:
        mate[v] = a
        mate[a] = v
        mw[v] = w_va
        mw[a] = w_va
    if b >= 0:
        mate[u] = b
        mate[b] = u
        mw[u] = w_ub
        mw[b] = w_ub


@njit(inline="always")
def _exceeds_exactly(v, a, b, w_va, w_ub, mate, mw, threshold):
    """The candidate's gain recomputed exactly from what it adds (v-a, u-b)
    and removes (v's edge, a's and b's; one edge when a and b are mates)."""
    removed_a = mw[a] if a >= 0 else 0.0
    removed_b = mw[b] if b >= 0 and mate[b] != a else 0.0
    return exact_gain_exceeds(w_va if a >= 0 else 0.0, w_ub if b >= 0 else 0.0, mw[v],
                              removed_a, removed_b, threshold)


@njit(cache=True, nogil=True)
def sparse_phase(offsets, indices, weights, mate, mw, order, threshold, stamp, w_at_u, epoch):
    """One sequential ROMA phase over ``order``.  Returns (augmentations, epoch)."""
    flips = 0
    for i in range(order.shape[0]):
        v = order[i]
        epoch += 1
        gain, a, b, w_va, w_ub = best_augmentation(v, offsets, indices, weights, mate, mw,
                                                   stamp, w_at_u, epoch)
        if gain > threshold and _exceeds_exactly(v, a, b, w_va, w_ub, mate, mw, threshold):
            apply_augmentation(v, a, b, w_va, w_ub, mate, mw)
            flips += 1
    return flips, epoch
