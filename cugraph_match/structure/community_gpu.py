"""The GPU kernels Louvain's and Leiden's local moving share: one machine's
(``community/louvain_gpu.py``, ``community/leiden_gpu.py``) and a Dask
worker's (``dask/louvain_worker_gpu.py``), so they live below both.

A move kernel scores every vertex of a list at once against the partition
and community totals it is given and writes each one's best community and
gain (the design and bucket table: ``community/louvain_gpu.py``;
:func:`bucket_tables` and :func:`move_bucket` set up and launch them);
:func:`commit_moves` admits the movers; :func:`components_gpu` labels the
connected components inside communities (Leiden's split, and a Dask worker's
local groups).  Weights are int64 fixed point wherever the kernels add
them, so every sum is exact in any order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, float64, int64

from .device import FULL_MASK, WARP, launch
from .edges import to_host
from .sort_xp import lexsort_xp

BLOCK = 128
WARPS_PER_BLOCK = BLOCK // WARP  # a compile-time constant for the shared arrays
SHARED_SLOTS = 512  # the largest shared table use per block: 4 x 127 (bucket 5)
# (largest degree, threads per vertex, table slots); 0 slots = per-vertex global table
BUCKETS = ((4, 4, 7), (8, 8, 13), (16, 16, 29), (32, 32, 53), (84, 32, 127), (319, 128, 479),
           (None, 128, 0))
EMPTY = -1


@cuda.jit(device=True)
def clear_table(lane, group, table_comm, table_weight, base, size):
    """Empty a table (the group's threads share the slots); callers then sync."""
    for s in range(lane, size, group):
        table_comm[base + s] = EMPTY
        table_weight[base + s] = 0


@cuda.jit(device=True)
def insert_weight(c, w, table_comm, table_weight, base, size):
    """Add w to community c's slot, claiming an empty one with CAS if c has none."""
    h = c % size
    step = 1 + c % (size - 1)
    while True:
        old = cuda.atomic.cas(table_comm, base + h, int64(EMPTY), c)
        if old == EMPTY or old == c:
            cuda.atomic.add(table_weight, base + h, w)
            return
        h = (h + step) % size  # size is prime: the probe visits every slot


@cuda.jit(device=True)
def accumulate_row(v, lane, group, offsets, indices, weights, community, table_comm, table_weight,
                base, size):
    """Add v's edge weights into its table, keyed by the neighbour's community."""
    for e in range(offsets[v] + lane, offsets[v + 1], group):
        insert_weight(community[indices[e]], weights[e], table_comm, table_weight, base, size)


@cuda.jit(device=True)
def _lookup(c, table_comm, table_weight, base, size):
    """The weight accumulated for community c (0 when absent)."""
    h = c % size
    step = 1 + c % (size - 1)
    for _ in range(size):
        found = table_comm[base + h]
        if found == c:
            return table_weight[base + h]
        if found == EMPTY:
            return int64(0)
        h = (h + step) % size
    return int64(0)


@cuda.jit(device=True)
def _better(gain, c, best_gain, best):
    return c >= 0 and (best < 0 or gain > best_gain or (gain == best_gain and c < best))


@cuda.jit(device=True)
def _score(v, lane, group, table_comm, table_weight, base, size, community, k, a, csize,
           two_m, resolution):
    """This thread's best (gain, community) among the slots it owns."""
    own = community[v]
    best = int64(-1)
    best_gain = float64(0.0)
    for s in range(lane, size, group):
        c = table_comm[base + s]
        if c == EMPTY or c == own:
            continue
        if csize[own] == 1 and csize[c] == 1 and c > own:
            continue  # singleton rule
        gain = float64(table_weight[base + s]) \
            - resolution * float64(k[v]) * float64(a[c]) / two_m
        if _better(gain, c, best_gain, best):
            best_gain = gain
            best = c
    return best_gain, best


@cuda.jit(device=True)
def _reduce(best_gain, best, group, red_gain, red_comm):
    """Best (gain, community) of the group; valid in the group's first thread."""
    width = min(group, WARP)
    offset = width // 2
    while offset > 0:  # uniform across the block: every lane takes part
        other_gain = cuda.shfl_xor_sync(FULL_MASK, best_gain, offset)
        other = cuda.shfl_xor_sync(FULL_MASK, best, offset)
        if _better(other_gain, other, best_gain, best):
            best_gain = other_gain
            best = other
        offset //= 2
    if group > WARP:  # one vertex per block: combine the warps' results
        tid = cuda.threadIdx.x
        if tid % WARP == 0:
            red_gain[tid // WARP] = best_gain
            red_comm[tid // WARP] = best
        cuda.syncthreads()
        if tid == 0:
            for w in range(1, WARPS_PER_BLOCK):
                if _better(red_gain[w], red_comm[w], best_gain, best):
                    best_gain = red_gain[w]
                    best = red_comm[w]
        cuda.syncthreads()
    return best_gain, best


@cuda.jit(device=True)
def _decide(v, best_gain, best, table_comm, table_weight, base, size, community, k, a,
            two_m, resolution, new_community, improvement):
    own = community[v]
    stay = float64(_lookup(own, table_comm, table_weight, base, size)) \
        - resolution * float64(k[v]) * float64(a[own] - k[v]) / two_m
    if best >= 0 and best_gain > stay:
        new_community[v] = best
        improvement[v] = best_gain - stay
    else:
        new_community[v] = own
        improvement[v] = 0.0


@cuda.jit
def move_shared_kernel(vertices, count, group, size, offsets, indices, weights, community, k, a,
                       csize, two_m, resolution, new_community, improvement):
    """Buckets 1-6: ``BLOCK // group`` vertices per block, tables in shared memory."""
    table_comm = cuda.shared.array(SHARED_SLOTS, int64)
    table_weight = cuda.shared.array(SHARED_SLOTS, int64)
    red_gain = cuda.shared.array(WARPS_PER_BLOCK, float64)
    red_comm = cuda.shared.array(WARPS_PER_BLOCK, int64)
    tid = cuda.threadIdx.x
    slot = tid // group
    lane = tid % group
    t = cuda.blockIdx.x * (BLOCK // group) + slot
    active = t < count
    v = vertices[t] if active else 0
    base = slot * size
    clear_table(lane, group, table_comm, table_weight, base, size)
    cuda.syncthreads()
    if active:
        accumulate_row(v, lane, group, offsets, indices, weights, community, table_comm,
                    table_weight, base, size)
    cuda.syncthreads()
    best_gain = float64(0.0)
    best = int64(-1)
    if active:
        best_gain, best = _score(v, lane, group, table_comm, table_weight, base, size,
                                 community, k, a, csize, two_m, resolution)
    best_gain, best = _reduce(best_gain, best, group, red_gain, red_comm)
    if active and lane == 0:
        _decide(v, best_gain, best, table_comm, table_weight, base, size, community, k, a,
                two_m, resolution, new_community, improvement)


@cuda.jit
def move_global_kernel(vertices, count, table_start, table_comm, table_weight, offsets, indices,
                       weights, community, k, a, csize, two_m, resolution, new_community,
                       improvement):
    """Bucket 7: one block per vertex (grid-strided), its table in global memory."""
    red_gain = cuda.shared.array(WARPS_PER_BLOCK, float64)
    red_comm = cuda.shared.array(WARPS_PER_BLOCK, int64)
    lane = cuda.threadIdx.x
    for t in range(cuda.blockIdx.x, count, cuda.gridDim.x):  # uniform across the block
        v = vertices[t]
        base = table_start[t]
        size = table_start[t + 1] - base
        clear_table(lane, BLOCK, table_comm, table_weight, base, size)
        cuda.syncthreads()
        accumulate_row(v, lane, BLOCK, offsets, indices, weights, community, table_comm,
                    table_weight, base, size)
        cuda.syncthreads()
        best_gain, best = _score(v, lane, BLOCK, table_comm, table_weight, base, size,
                                 community, k, a, csize, two_m, resolution)
        best_gain, best = _reduce(best_gain, best, BLOCK, red_gain, red_comm)
        if lane == 0:
            _decide(v, best_gain, best, table_comm, table_weight, base, size, community, k, a,
                    two_m, resolution, new_community, improvement)
        cuda.syncthreads()  # the table is reused by the block's next vertex


def primes_above(values, xp):
    """The smallest prime strictly above each value (host sieve, small)."""
    values = np.asarray(values)
    top = int(values.max()) if values.size else 2
    limit = max(2 * top + 16, 32)
    sieve = np.ones(limit + 1, dtype=bool)
    sieve[:2] = False
    for p in range(2, int(math.isqrt(limit)) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    primes = np.flatnonzero(sieve)
    return xp.asarray(primes[np.searchsorted(primes, values, side="right")])


def degree_buckets(offsets, xp):
    """Vertex lists of the seven buckets (degree-0 vertices cannot move and are left out)."""
    degree = offsets[1:] - offsets[:-1]
    buckets = []
    low = 0
    for high, group, size in BUCKETS:
        if high is None:
            members = xp.flatnonzero(degree > low)
            members = members[xp.argsort(-degree[members], kind="stable")]
        else:
            members = xp.flatnonzero((degree > low) & (degree <= high))
            low = high
        buckets.append((members.astype(np.int64), group, size))
    return buckets


def bucket_tables(offsets, xp) -> tuple[list, tuple]:
    """The degree buckets of a CSR (:func:`degree_buckets`) and the global
    tables of its last bucket: (slot starts, keys, weights), each vertex's
    table the smallest prime above 1.5 x its degree."""
    buckets = degree_buckets(offsets, xp)
    big = buckets[-1][0]
    table_start = xp.zeros(int(big.shape[0]) + 1, dtype=np.int64)
    if big.shape[0]:
        degree = offsets[1:] - offsets[:-1]
        table_start[1:] = xp.cumsum(primes_above(to_host(1.5 * degree[big]), xp))
    room = max(int(table_start[-1]), 1)
    return buckets, (table_start, xp.empty(room, dtype=np.int64),
                     xp.empty(room, dtype=np.int64))


def move_bucket(members, group: int, size: int, tables: tuple, offsets, indices, weights,
                community, k, a, csize, two_m: float, resolution: float, new_community,
                improvement, xp) -> None:
    """Launch the move kernel of one bucket (``group`` threads and ``size``
    shared slots per vertex; ``size`` 0: a block per vertex and the global
    ``tables`` of :func:`bucket_tables`) over ``members``, writing each one's
    best community and gain."""
    count = int(members.shape[0])
    if size:
        launch(move_shared_kernel, -(-count // (BLOCK // group)), BLOCK, xp,
               members, count, group, size, offsets, indices, weights, community, k, a, csize,
               two_m, resolution, new_community, improvement)
    else:
        launch(move_global_kernel, min(count, 4096), BLOCK, xp,
               members, count, *tables, offsets, indices, weights, community, k, a, csize,
               two_m, resolution, new_community, improvement)


def segment_sum(values, groups, size: int, xp):
    """Exact int64 sums of ``values`` per group (``groups`` in ``0..size-1``),
    the same whatever order the device adds them in."""
    values = values.astype(np.int64, copy=False)
    if xp.__name__ == "cupy":
        import cupyx

        # CuPy's scatter_add has no int64 kernel (CUDA's 64-bit atomicAdd is
        # unsigned); two's-complement sums wrap identically in uint64, so the
        # int64 view of the unsigned sum is the exact signed sum.
        out = xp.zeros(size, dtype=np.uint64)
        cupyx.scatter_add(out, groups, values.view(np.uint64))
        return out.view(np.int64)
    out = xp.zeros(size, dtype=np.int64)
    xp.add.at(out, groups, values)
    return out


def commit_moves(members, community, new_community, improvement, k, two_m, resolution, xp):
    """Commit a bucket's moves, admitting the movers into each community in
    order of decreasing improvement while it stays positive.

    Every decision of a bucket saw the community totals from before the
    bucket.  When many vertices pick the same community at once (all the
    leaves of a star pick the hub's), each raises its total and the later
    joiners' gains can turn negative: mover v, after the movers ranked
    ahead of it with degree sum K, still gains iff
    improvement(v) > γ k_v K / 2m.  The others stay for the next pass.  This
    admission step is ours, not the paper's; without it a 400-leaf star
    with paired leaves ends at Q = 0.18 where sequential Louvain finds 0.29.
    """
    movers = members[new_community[members] != community[members]]
    if movers.shape[0] == 0:
        return
    target = new_community[movers]
    gain = improvement[movers]
    order = lexsort_xp([movers, -gain, target], xp)
    movers, target, gain = movers[order], target[order], gain[order]
    degree = k[movers]  # int64: the running sums below are exact
    ahead = xp.cumsum(degree) - degree
    segment_start = xp.searchsorted(target, target, side="left")
    ahead = ahead - ahead[segment_start]  # degree of the movers ranked ahead, same target
    admitted = gain > resolution * degree.astype(np.float64) * ahead.astype(np.float64) / two_m
    community[movers[admitted]] = target[admitted]


@cuda.jit
def hook_kernel(offsets, indices, community, label, changed):
    """Each edge inside a community hooks the larger of its ends' labels under the
    smaller (an atomic min on the larger label's own entry)."""
    v = cuda.grid(1)
    if v >= label.shape[0]:
        return
    c = community[v]
    for e in range(offsets[v], offsets[v + 1]):
        u = indices[e]
        if community[u] != c:
            continue
        lu = label[u]
        lv = label[v]
        if lu < lv:
            cuda.atomic.min(label, lv, lu)
            changed[0] = 1
        elif lv < lu:
            cuda.atomic.min(label, lu, lv)
            changed[0] = 1


@cuda.jit
def jump_kernel(label, changed):
    """Pointer jumping: a vertex takes its label's label."""
    v = cuda.grid(1)
    if v >= label.shape[0]:
        return
    own = label[v]
    up = label[own]
    if up < own:
        label[v] = up
        changed[0] = 1


def components_gpu(offsets, indices, community, xp):
    """Label of every vertex: the smallest vertex of its connected component
    within its community.

    Memory ordering: a thread may read a label another thread is lowering;
    it then hooks with a value that is still a label of the same component,
    only later than it could have, and the next round sees the lower one.
    The host repeats both kernels until a round changes nothing, so the
    fixed point (one label per component, its smallest vertex, which no
    edge can lower) does not depend on the order the threads ran in.
    """
    n = int(offsets.shape[0]) - 1
    label = xp.arange(n, dtype=np.int64)
    changed = xp.zeros(1, dtype=np.int32)
    blocks = max(-(-n // BLOCK), 1)
    while True:
        changed[:] = 0
        launch(hook_kernel, blocks, BLOCK, xp, offsets, indices, community, label, changed)
        launch(jump_kernel, blocks, BLOCK, xp, label, changed)
        if not int(changed[0]):
            return label
