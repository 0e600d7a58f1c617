"""Parallel ROMA on the GPU (numba.cuda), after Hovland's "parallel ROMA 2".

Complete graphs (:func:`dense_phase_kernel`): one block per matching edge
(u, mu), u < mu; the block's threads scan every other vertex z (a
block-stride loop) for the flip (u, mu), (z, p) -> (u, z), (mu, p) of
largest gain, a shared-memory tree reduction picks it (ties to the smaller
z), and thread 0 applies it under locks.  Sparse graphs
(:func:`sparse_phase_kernel`): one warp per matching edge or unmatched
vertex computes the maximum-gain 2-augmentation centred there (the same
candidates as ``roma_cpu.best_augmentation``) with butterfly reductions, and
lane 0 applies it under locks.

Locking (the thesis' scheme made safe, see ``shared/papers/roma_gpu.md``
§3.10): the thesis locks only the two edges' smaller ends, yet a flip
writes the mates of four vertices, so a block could read a half-written
pair, lock an unlocked end of it and flip over it.  Here every vertex whose
mate changes is locked: all of them (four for a flip, up to six for an
augmentation) in ascending order by one compare-and-swap each; any failure
releases what was taken and gives up for the phase (no spinning, so no
deadlock).  Under the locks a fence, then the mates are read again with
atomics and must be what the scan saw, the gain is recomputed from the
static weights and the verified state, exactly (no rounding), and only a
gain above the threshold is written; then a fence and the release.  So
``mate[x]`` is only written while ``locks[x]`` is held, every written state
is a matching, and every applied change raises the weight.  Stale values
read during the scan cost quality, never validity.

Control flow is block-uniform around ``syncthreads`` (thread 0 reads the
block's edge into shared memory first; the thesis let every thread read a
mate that other blocks change) and warp-uniform around shuffles (lane 0's
reads are broadcast).  If a phase starts with a positive-gain change, at
least one is applied: the thread holding the highest lock can always take
its next, higher one; a failed check means someone else changed the
matching.  So a phase without flips proves a local optimum.
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, float64, int64

from ..structure.device import FULL_MASK, WARP, WIDE_BLOCK, launch
from .roma_common import compile_gain_exceeds

FLIPS, ATTEMPTS = 0, 1  # slots of the counters array
MAX_THREADS = 1024
UNLOCKED = -1
NONE = -1
NEG_INF = -math.inf
exact_gain_exceeds = compile_gain_exceeds(cuda.jit(device=True, inline=True))


@cuda.jit(device=True, inline=True)
def pair_weight(matrix, points, n, i, j):
    """As ``roma_cpu.pair_weight``: a matrix entry or a Euclidean distance, 0 for padding."""
    if i >= n or j >= n:
        return 0.0
    if matrix.shape[0] == 0:
        total = 0.0
        for k in range(points.shape[1]):
            d = float64(points[i, k]) - float64(points[j, k])
            total += d * d
        return math.sqrt(total)
    return float64(matrix[i, j])


@cuda.jit(device=True, inline=True)
def read_mate(mate, x):
    """A coherent read of a locked vertex's mate (an atomic, past L1)."""
    return cuda.atomic.add(mate, x, 0)


@cuda.jit(device=True, inline=True)
def lock_all(locks, ids, count, owner):
    """Try-lock ``ids[0:count]`` (ascending) in order; on a failure release
    what was taken and return False."""
    for k in range(count):
        if cuda.atomic.cas(locks, ids[k], UNLOCKED, owner) != UNLOCKED:
            for r in range(k - 1, -1, -1):
                cuda.atomic.exch(locks, ids[r], UNLOCKED)
            return False
    cuda.threadfence()  # what the previous holders wrote is seen before we read it
    return True


@cuda.jit(device=True, inline=True)
def unlock_all(locks, ids, count):
    cuda.threadfence()  # our writes are visible before anyone can take the locks
    for k in range(count - 1, -1, -1):
        cuda.atomic.exch(locks, ids[k], UNLOCKED)


@cuda.jit(device=True, inline=True)
def sort_small(ids, count):
    """Insertion sort of a few ids (the lock order)."""
    for i in range(1, count):
        x = ids[i]
        k = i - 1
        while k >= 0 and ids[k] > x:
            ids[k + 1] = ids[k]
            k -= 1
        ids[k + 1] = x


# -- complete graphs ----------------------------------------------------------


@cuda.jit(device=True)
def try_flip(matrix, points, n, mate, mw, locks, threshold, u, mu, z, counters):
    """Flip (u, mu), (z, mate[z]) into (u, z), (mu, mate[z]) under four locks,
    if the two edges are still matched and the flip still gains enough."""
    p = cuda.ldcg(mate, z)
    if p < 0 or p == u or p == mu or p == z:
        return  # z's edge changed since the scan
    ids = cuda.local.array(4, int64)
    ids[0], ids[1], ids[2], ids[3] = u, mu, z, p
    sort_small(ids, 4)
    if not lock_all(locks, ids, 4, u):
        return
    cuda.atomic.add(counters, ATTEMPTS, 1)
    if (read_mate(mate, u) == mu and read_mate(mate, mu) == u
            and read_mate(mate, z) == p and read_mate(mate, p) == z):
        w_uz = pair_weight(matrix, points, n, u, z)
        w_mp = pair_weight(matrix, points, n, mu, p)
        if exact_gain_exceeds(w_uz, w_mp, pair_weight(matrix, points, n, u, mu),
                              pair_weight(matrix, points, n, z, p), 0.0, threshold):
            mate[u] = z
            mate[z] = u
            mate[mu] = p
            mate[p] = mu
            mw[u] = w_uz
            mw[z] = w_uz
            mw[mu] = w_mp
            mw[p] = w_mp
            cuda.atomic.add(counters, FLIPS, 1)
    unlock_all(locks, ids, 4)


@cuda.jit(device=True, inline=True)
def better_flip(gain_a, z_a, gain_b, z_b):
    """The reduction's order: larger gain, then the smaller z (none = -1 last)."""
    if gain_a != gain_b:
        return gain_a > gain_b
    if z_a < 0:
        return False
    return z_b < 0 or z_a < z_b


@cuda.jit(**WIDE_BLOCK)
def dense_phase_kernel(matrix, points, n, mate, mw, locks, threshold, counters):
    gains = cuda.shared.array(MAX_THREADS, float64)
    targets = cuda.shared.array(MAX_THREADS, int64)
    edge = cuda.shared.array(1, int64)
    tid = cuda.threadIdx.x
    threads = cuda.blockDim.x
    size = mate.shape[0]
    for u in range(cuda.blockIdx.x, size, cuda.gridDim.x):  # block-uniform
        if tid == 0:
            edge[0] = cuda.ldcg(mate, u)
        cuda.syncthreads()
        mu = edge[0]  # one value for the whole block
        if mu > u:  # the edge's smaller end owns it
            base = cuda.ldcg(mw, u)
            best = NEG_INF
            best_z = NONE
            for z in range(tid, size, threads):
                if z != u and z != mu:
                    p = cuda.ldcg(mate, z)
                    if p >= 0:
                        gain = (pair_weight(matrix, points, n, u, z)
                                + pair_weight(matrix, points, n, mu, p)
                                - base - cuda.ldcg(mw, z))
                        if gain > best:  # z ascends per thread: ties keep the smaller
                            best = gain
                            best_z = z
            gains[tid] = best
            targets[tid] = best_z
            cuda.syncthreads()
            stride = threads // 2
            while stride > 0:
                if tid < stride and better_flip(gains[tid + stride], targets[tid + stride],
                                                gains[tid], targets[tid]):
                    gains[tid] = gains[tid + stride]
                    targets[tid] = targets[tid + stride]
                cuda.syncthreads()
                stride //= 2
            if tid == 0 and targets[0] >= 0 and gains[0] > threshold:
                try_flip(matrix, points, n, mate, mw, locks, threshold, u, mu, targets[0],
                         counters)
        cuda.syncthreads()  # the shared slots are reused for the next edge


@cuda.jit(device=True, inline=True)
def heavier(w1, a1, b1, w2, a2, b2):
    """As ``roma_cpu._heavier``: the project's edge order."""
    if w1 != w2:
        return w1 > w2
    hi1 = max(a1, b1)
    hi2 = max(a2, b2)
    if hi1 != hi2:
        return hi1 > hi2
    return min(a1, b1) > min(a2, b2)


@cuda.jit(**WIDE_BLOCK)
def dense_candidates_kernel(matrix, points, n, mate, candidate):
    """Greedy start, one round: each unmatched vertex's heaviest unmatched vertex."""
    weights = cuda.shared.array(MAX_THREADS, float64)
    targets = cuda.shared.array(MAX_THREADS, int64)
    state = cuda.shared.array(1, int64)
    tid = cuda.threadIdx.x
    threads = cuda.blockDim.x
    size = mate.shape[0]
    for u in range(cuda.blockIdx.x, size, cuda.gridDim.x):
        if tid == 0:
            state[0] = mate[u]
        cuda.syncthreads()
        if state[0] < 0:
            best_w = NEG_INF
            best_z = NONE
            for z in range(tid, size, threads):
                if z != u and mate[z] < 0:
                    w = pair_weight(matrix, points, n, u, z)
                    if best_z < 0 or heavier(w, u, z, best_w, u, best_z):
                        best_w = w
                        best_z = z
            weights[tid] = best_w
            targets[tid] = best_z
            cuda.syncthreads()
            stride = threads // 2
            while stride > 0:
                if tid < stride:
                    z = targets[tid + stride]
                    if z >= 0 and (targets[tid] < 0 or heavier(weights[tid + stride], u, z,
                                                                weights[tid], u, targets[tid])):
                        weights[tid] = weights[tid + stride]
                        targets[tid] = z
                cuda.syncthreads()
                stride //= 2
            if tid == 0:
                candidate[u] = targets[0]
        elif tid == 0:
            candidate[u] = NONE
        cuda.syncthreads()


@cuda.jit
def dense_match_kernel(candidate, mate, counters):
    """Greedy start, one round: mutual candidates match (locally dominant pairs)."""
    u = cuda.grid(1)
    if u < mate.shape[0]:
        c = candidate[u]
        if c >= 0 and candidate[c] == u:
            mate[u] = c
            cuda.atomic.add(counters, 0, 1)


# -- sparse graphs ------------------------------------------------------------


@cuda.jit(device=True, inline=True)
def before(g1, x1, g2, x2):
    """Candidate order: larger gain, then the smaller vertex (none = -1 last)."""
    if g1 != g2:
        return g1 > g2
    if x1 < 0:
        return False
    return x2 < 0 or x1 < x2


@cuda.jit(device=True, inline=True)
def warp_top_two(g1, x1, w1, g2, x2, w2):
    """Butterfly merge of every lane's two best (gain, vertex, weight): every
    lane ends with the warp's two best (vertices are distinct across lanes)."""
    offset = 16
    while offset > 0:
        og1 = cuda.shfl_xor_sync(FULL_MASK, g1, offset)
        ox1 = cuda.shfl_xor_sync(FULL_MASK, x1, offset)
        ow1 = cuda.shfl_xor_sync(FULL_MASK, w1, offset)
        og2 = cuda.shfl_xor_sync(FULL_MASK, g2, offset)
        ox2 = cuda.shfl_xor_sync(FULL_MASK, x2, offset)
        ow2 = cuda.shfl_xor_sync(FULL_MASK, w2, offset)
        if before(og1, ox1, g1, x1):
            # the other's best leads; the second is the better of our best and its second
            if before(g1, x1, og2, ox2):
                g2, x2, w2 = g1, x1, w1
            else:
                g2, x2, w2 = og2, ox2, ow2
            g1, x1, w1 = og1, ox1, ow1
        elif before(og1, ox1, g2, x2):
            g2, x2, w2 = og1, ox1, ow1
        offset //= 2
    return g1, x1, w1, g2, x2, w2


@cuda.jit(device=True, inline=True)
def warp_best(gain, a, b, wa, wb):
    """Butterfly arg-max of (gain, a, b) with weights beside; ties to the smaller (a, b)."""
    offset = 16
    while offset > 0:
        og = cuda.shfl_xor_sync(FULL_MASK, gain, offset)
        oa = cuda.shfl_xor_sync(FULL_MASK, a, offset)
        ob = cuda.shfl_xor_sync(FULL_MASK, b, offset)
        owa = cuda.shfl_xor_sync(FULL_MASK, wa, offset)
        owb = cuda.shfl_xor_sync(FULL_MASK, wb, offset)
        if before(og, oa, gain, a) or (og == gain and oa == a and ob < b):
            gain, a, b, wa, wb = og, oa, ob, owa, owb
        offset //= 2
    return gain, a, b, wa, wb


@cuda.jit(device=True, inline=True)
def keep_top_two(gain, x, w, g1, x1, w1, g2, x2, w2):
    if before(gain, x, g1, x1):
        return gain, x, w, g1, x1, w1
    if before(gain, x, g2, x2):
        return g1, x1, w1, gain, x, w
    return g1, x1, w1, g2, x2, w2


@cuda.jit(device=True, inline=True)
def row_weight(offsets, indices, weights, row, x):
    """w(row, x) by binary search of the row (sorted by neighbour); -inf when absent."""
    lo = offsets[row]
    hi = offsets[row + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        y = indices[mid]
        if y < x:
            lo = mid + 1
        elif y > x:
            hi = mid
        else:
            return float64(weights[mid])
    return NEG_INF


@cuda.jit(device=True, inline=True)
def best_cycle(offsets, indices, weights, mate, mw, v, u, base, lane):
    """This lane's best 4-cycle v-a-b-u (b = mate[a]): the shorter row is
    scanned and the mate's edge searched in the other.  Returns (gain, a, b, w(v,a), w(u,b))."""
    best, ba, bb, bwa, bwb = NEG_INF, NONE, NONE, 0.0, 0.0
    scan_v = offsets[v + 1] - offsets[v] <= offsets[u + 1] - offsets[u]
    near = v if scan_v else u
    far = u if scan_v else v
    for j in range(offsets[near] + lane, offsets[near + 1], WARP):
        x = indices[j]
        if x == far:
            continue
        y = cuda.ldcg(mate, x)
        if y < 0 or y == near or y == far:
            continue
        w_far = row_weight(offsets, indices, weights, far, y)
        if w_far == NEG_INF:
            continue
        w_near = float64(weights[j])
        gain = w_near + w_far - base - cuda.ldcg(mw, x)
        a, b, wa, wb = (x, y, w_near, w_far) if scan_v else (y, x, w_far, w_near)
        if before(gain, a, best, ba) or (gain == best and a == ba and b < bb):
            best, ba, bb, bwa, bwb = gain, a, b, wa, wb
    return best, ba, bb, bwa, bwb


@cuda.jit(device=True)
def try_augment(mate, mw, locks, threshold, v, u, a, b, w_va, w_ub, counters):
    """v takes a, u = mate[v] takes b (either may be -1), the old mates of a
    and b are left unmatched: under locks on every vertex whose mate changes,
    if the state is still the scanned one and the gain still exceeds the threshold."""
    old_a = cuda.ldcg(mate, a) if a >= 0 else NONE
    old_b = cuda.ldcg(mate, b) if b >= 0 else NONE
    if old_a >= 0 and (old_a == v or old_a == u or old_a == a):
        return
    if old_b >= 0 and (old_b == v or old_b == u or old_b == b):
        return
    cycle = a >= 0 and b >= 0 and old_a == b
    if cycle != (b >= 0 and a >= 0 and old_b == a):
        return  # a half-written pair: stale
    ids = cuda.local.array(6, int64)
    count = 0
    for x in (v, u, a, b):
        if x >= 0:
            ids[count] = x
            count += 1
    if not cycle:
        if old_a >= 0:
            ids[count] = old_a
            count += 1
        if old_b >= 0:
            ids[count] = old_b
            count += 1
    sort_small(ids, count)
    for k in range(1, count):
        if ids[k] == ids[k - 1]:
            return  # not the distinct vertices of a 2-augmentation: stale
    if not lock_all(locks, ids, count, v):
        return
    cuda.atomic.add(counters, ATTEMPTS, 1)
    same = read_mate(mate, v) == u
    if same and u >= 0:
        same = read_mate(mate, u) == v
    if same and a >= 0:
        same = read_mate(mate, a) == old_a and (old_a < 0 or read_mate(mate, old_a) == a)
    if same and b >= 0:
        same = read_mate(mate, b) == old_b and (old_b < 0 or read_mate(mate, old_b) == b)
    if same:
        removed_v = cuda.atomic.add(mw, v, 0.0)  # w(v, u); 0 when v is unmatched
        removed_a = cuda.atomic.add(mw, a, 0.0) if a >= 0 else 0.0
        removed_b = cuda.atomic.add(mw, b, 0.0) if b >= 0 and not cycle else 0.0
        # exactly, not rounded: a rounded gain could favour a lighter matching
        if exact_gain_exceeds(w_va if a >= 0 else 0.0, w_ub if b >= 0 else 0.0, removed_v,
                              removed_a, removed_b, threshold):
            for k in range(count):
                mate[ids[k]] = NONE
                mw[ids[k]] = 0.0
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
            cuda.atomic.add(counters, FLIPS, 1)
    unlock_all(locks, ids, count)


@cuda.jit(**WIDE_BLOCK)
def sparse_phase_kernel(offsets, indices, weights, mate, mw, locks, threshold, counters):
    lane = cuda.laneid
    warp = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP
    warps = (cuda.gridDim.x * cuda.blockDim.x) // WARP
    n = mate.shape[0]
    for v in range(warp, n, warps):  # warp-uniform loop
        u = NONE
        base = 0.0
        if lane == 0:
            u = cuda.ldcg(mate, v)
            base = cuda.ldcg(mw, v)
        u = cuda.shfl_sync(FULL_MASK, u, 0)  # one value for the whole warp
        base = cuda.shfl_sync(FULL_MASK, base, 0)
        if u >= 0 and u < v:
            continue  # the edge's smaller end owns it
        # v's side: the two best g_v(a) = w(v, a) - mw[a] over a != u
        g1, a1, wa1, g2, a2, wa2 = NEG_INF, NONE, 0.0, NEG_INF, NONE, 0.0
        for j in range(offsets[v] + lane, offsets[v + 1], WARP):
            a = indices[j]
            if a != u:
                w = float64(weights[j])
                g1, a1, wa1, g2, a2, wa2 = keep_top_two(w - cuda.ldcg(mw, a), a, w,
                                                        g1, a1, wa1, g2, a2, wa2)
        g1, a1, wa1, g2, a2, wa2 = warp_top_two(g1, a1, wa1, g2, a2, wa2)
        best, best_a, best_b, best_wa, best_wb = NEG_INF, NONE, NONE, 0.0, 0.0
        if u < 0:
            best, best_a, best_wa = g1, a1, wa1
        else:
            # u's side
            h1, b1, wb1, h2, b2, wb2 = NEG_INF, NONE, 0.0, NEG_INF, NONE, 0.0
            for j in range(offsets[u] + lane, offsets[u + 1], WARP):
                b = indices[j]
                if b != v:
                    w = float64(weights[j])
                    h1, b1, wb1, h2, b2, wb2 = keep_top_two(w - cuda.ldcg(mw, b), b, w,
                                                            h1, b1, wb1, h2, b2, wb2)
            h1, b1, wb1, h2, b2, wb2 = warp_top_two(h1, b1, wb1, h2, b2, wb2)
            cg, ca, cb, cwa, cwb = best_cycle(offsets, indices, weights, mate, mw, v, u, base,
                                              lane)
            best, best_a, best_b, best_wa, best_wb = warp_best(cg, ca, cb, cwa, cwb)
            # one side, both sides (all lanes hold the same values: uniform)
            if a1 >= 0 and g1 - base > best:
                best, best_a, best_b, best_wa, best_wb = g1 - base, a1, NONE, wa1, 0.0
            if b1 >= 0 and h1 - base > best:
                best, best_a, best_b, best_wa, best_wb = h1 - base, NONE, b1, 0.0, wb1
            if a1 >= 0 and b1 >= 0:
                if a1 != b1:
                    if g1 + h1 - base > best:
                        best, best_a, best_b, best_wa, best_wb = g1 + h1 - base, a1, b1, wa1, wb1
                else:
                    if b2 >= 0 and g1 + h2 - base > best:
                        best, best_a, best_b, best_wa, best_wb = g1 + h2 - base, a1, b2, wa1, wb2
                    if a2 >= 0 and g2 + h1 - base > best:
                        best, best_a, best_b, best_wa, best_wb = g2 + h1 - base, a2, b1, wa2, wb1
        if lane == 0 and (best_a >= 0 or best_b >= 0) and best > threshold:
            try_augment(mate, mw, locks, threshold, v, u, best_a, best_b, best_wa, best_wb,
                        counters)


# -- host drivers ---------------------------------------------------------------
# Every launch goes through structure.device.launch: on CuPy's current stream,
# so the counters read back below are read after the kernel, in a user's stream.


def _xp_of(array):
    if type(array).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def dense_greedy_gpu(matrix, points, n, size, xp, threads_per_block):
    """The greedy matching of the complete graph, by locally-dominant rounds
    (each round matches at least the heaviest remaining pair)."""
    mate = xp.full(size, NONE, dtype=np.int64)
    candidate = xp.full(size, NONE, dtype=np.int64)
    counters = xp.zeros(1, dtype=np.int64)
    while True:
        counters[:] = 0
        launch(dense_candidates_kernel, size, threads_per_block, xp, matrix, points, n, mate,
               candidate)
        launch(dense_match_kernel, -(-size // 128), 128, xp, candidate, mate, counters)
        if int(counters[0]) == 0:
            return mate


def phase_counts(counters):
    host = counters.get() if hasattr(counters, "get") else np.asarray(counters)
    return int(host[FLIPS]), int(host[ATTEMPTS])


def dense_phase_gpu(matrix, points, n, mate, mw, locks, threshold, counters, threads_per_block):
    """One parallel phase; returns (flips, attempts)."""
    counters[:] = 0
    launch(dense_phase_kernel, mate.shape[0], threads_per_block, _xp_of(mate), matrix, points, n,
           mate, mw, locks, float(threshold), counters)
    return phase_counts(counters)


def sparse_phase_gpu(offsets, indices, weights, mate, mw, locks, threshold, counters,
                     threads_per_block):
    """One parallel phase; returns (augmentations, attempts)."""
    counters[:] = 0
    n = mate.shape[0]
    warps_per_block = threads_per_block // WARP
    blocks = max(1, -(-n // warps_per_block))
    launch(sparse_phase_kernel, blocks, threads_per_block, _xp_of(mate), offsets, indices,
           weights, mate, mw, locks, float(threshold), counters)
    return phase_counts(counters)
