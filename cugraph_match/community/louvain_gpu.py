"""GPU Louvain move phase in numba.cuda (Naim, Manne, Halappanavar & Tumeo, IPDPS 2017).

Vertices are dealt to seven degree buckets, processed one after another;
each bucket gives a vertex a matching group of threads:

=========  ==========================  ================================
degree     threads per vertex          hash table
=========  ==========================  ================================
1-4        4                           shared, 7 slots
5-8        8                           shared, 13 slots
9-16       16                          shared, 29 slots
17-32      32 (a warp)                 shared, 53 slots
33-84      32 (a warp)                 shared, 127 slots
85-319     128 (a block)               shared, 479 slots
> 319      128 (a block)               global, smallest prime > 1.5 deg
=========  ==========================  ================================

(Table sizes are the smallest primes above 1.5 x the bucket's largest
degree.)  The group's threads take the vertex's edges in turn and add each
edge's weight to the slot of the neighbour's community in an
open-addressing table with double hashing: a compare-and-swap claims an
empty slot, an atomic add accumulates.  After a barrier each thread scores
the slots it owns by the modularity gain, and a reduction (warp shuffles,
then shared memory across the warps of a block) picks the best community,
ties to the lowest id.  A vertex alone in its community joins another
singleton only if that one's id is lower, so two singletons never swap.
The host commits the bucket's moves (see ``_commit`` for the admission
step we add) and recomputes the community totals before the next bucket,
and reads one scalar (the modularity) per pass.

Aggregation (``contract_gpu``) is the paper's CONTRACT: renumber the
communities by a prefix sum, group vertices by community, and merge each
community's edges with the same hashing, a warp per community of summed
degree up to 84 (127-slot shared tables), a block up to 319 (479 slots),
and a block with a global table beyond (the paper's bounds were 127 and
479 with tables of those sizes; ours keep the move phase's load factor).
Blocks are always 128 threads; large-degree vertices are sorted by degree
so neighbouring blocks get similar work.
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, int64

from ..structure.community_gpu import (  # noqa: F401 - the kernels' home names them here too
    BLOCK, BUCKETS, EMPTY, SHARED_SLOTS, WARPS_PER_BLOCK, accumulate_row, bucket_tables,
    clear_table, commit_moves, degree_buckets, insert_weight, move_bucket, move_global_kernel,
    move_shared_kernel, primes_above, segment_sum)
from ..structure.device import launch
from ..structure.edges import WeightedGraph, to_host
from ..structure.sort_xp import lexsort_xp

# --------------------------------------------------------------------------
# aggregation: one coarse vertex per community, merged by the same hashing
# --------------------------------------------------------------------------

# (largest summed member degree, threads per community, table slots); 0 = global table
MERGE_BUCKETS = ((84, 32, 127), (319, 128, 479), (None, 128, 0))


@cuda.jit(device=True)
def _merge_one(active, c, lane, group, com_start, members, offsets, indices, weights, loop,
               community, table_comm, table_weight, base, size, out_start, out_count, out_nbr,
               out_weight):
    """Hash community c's edges by neighbouring community, then write its table out.

    An edge inside c is met from both ends and lands on key c twice; a
    self-loop is added twice too, so key c's total is twice c's new self-loop.
    Every thread of the block calls this (``active`` false for a group with
    no community), so the barriers are reached uniformly.
    """
    clear_table(lane, group, table_comm, table_weight, base, size)
    cuda.syncthreads()
    first = com_start[c] if active else 0
    last = com_start[c + 1] if active else 0
    for i in range(first, last):  # members one after another
        v = members[i]
        accumulate_row(v, lane, group, offsets, indices, weights, community, table_comm,
                    table_weight, base, size)
        if lane == 0 and loop[v] > 0:
            insert_weight(c, 2 * loop[v], table_comm, table_weight, base, size)
    cuda.syncthreads()
    for s in range(lane, size, group):
        key = table_comm[base + s]
        if active and key != EMPTY:
            at = out_start[c] + cuda.atomic.add(out_count, c, 1)
            out_nbr[at] = key
            out_weight[at] = table_weight[base + s]
    cuda.syncthreads()


@cuda.jit
def merge_shared_kernel(coms, count, group, size, com_start, members, offsets, indices, weights,
                        loop, community, out_start, out_count, out_nbr, out_weight):
    """Communities of summed degree <= 319: a warp or a block each, tables in shared memory."""
    table_comm = cuda.shared.array(SHARED_SLOTS, int64)
    table_weight = cuda.shared.array(SHARED_SLOTS, int64)
    tid = cuda.threadIdx.x
    slot = tid // group
    lane = tid % group
    t = cuda.blockIdx.x * (BLOCK // group) + slot
    active = t < count
    c = coms[t] if active else int64(0)
    _merge_one(active, c, lane, group, com_start, members, offsets, indices, weights, loop,
               community, table_comm, table_weight, slot * size, size, out_start, out_count,
               out_nbr, out_weight)


@cuda.jit
def merge_global_kernel(coms, count, table_start, table_comm, table_weight, com_start, members,
                        offsets, indices, weights, loop, community, out_start, out_count, out_nbr,
                        out_weight):
    """Communities of larger summed degree: a block each (grid-strided), global tables."""
    lane = cuda.threadIdx.x
    for t in range(cuda.blockIdx.x, count, cuda.gridDim.x):
        base = table_start[t]
        _merge_one(True, coms[t], lane, BLOCK, com_start, members, offsets, indices, weights,
                   loop, community, table_comm, table_weight, base, table_start[t + 1] - base,
                   out_start, out_count, out_nbr, out_weight)


def contract_gpu(offsets, indices, weights, loop, community, xp) -> tuple[WeightedGraph, object]:
    """The paper's CONTRACT: renumber communities by a prefix sum, group vertices
    by community, merge each community's edges by hashing in degree buckets.
    Returns the contracted graph and the new id of every vertex."""
    n = int(offsets.shape[0]) - 1
    used = xp.bincount(community, minlength=n) > 0
    new_id = xp.cumsum(used) - 1  # ids of the non-empty communities, in order
    k = int(used.sum())
    group = new_id[community]
    degree = (offsets[1:] - offsets[:-1]).astype(np.int64)
    com_degree = segment_sum(degree, group, k, xp)
    com_start = xp.zeros(k + 1, dtype=np.int64)
    com_start[1:] = xp.cumsum(xp.bincount(group, minlength=k))
    members = xp.argsort(group, kind="stable").astype(np.int64)  # vertices grouped by community
    out_start = xp.zeros(k + 1, dtype=np.int64)
    out_start[1:] = xp.cumsum(com_degree + 1)  # at most one entry per edge, plus the self-loop
    out_count = xp.zeros(k, dtype=np.int64)
    out_nbr = xp.empty(int(out_start[-1]), dtype=np.int64)
    out_weight = xp.empty(int(out_start[-1]), dtype=np.int64)
    low = -1
    for high, threads, size in MERGE_BUCKETS:
        mask = com_degree > low if high is None else (com_degree > low) & (com_degree <= high)
        coms = xp.flatnonzero(mask).astype(np.int64)
        count = int(coms.shape[0])
        if high is not None:
            low = high
        if count == 0:
            continue
        if size:
            launch(merge_shared_kernel, -(-count // (BLOCK // threads)), BLOCK, xp,
                coms, count, threads, size, com_start, members, offsets, indices, weights, loop,
                group, out_start, out_count, out_nbr, out_weight)
        else:
            coms = coms[xp.argsort(-com_degree[coms], kind="stable")]
            sizes = primes_above(to_host(1.5 * com_degree[coms]), xp)
            table_start = xp.zeros(count + 1, dtype=np.int64)
            table_start[1:] = xp.cumsum(sizes)
            launch(merge_global_kernel, min(count, 4096), BLOCK, xp,
                coms, count, table_start, xp.empty(int(table_start[-1]), dtype=np.int64),
                xp.empty(int(table_start[-1]), dtype=np.int64), com_start, members, offsets,
                indices, weights, loop, group, out_start, out_count, out_nbr, out_weight)
    slot = xp.arange(out_nbr.shape[0], dtype=np.int64)
    owner = xp.searchsorted(out_start, slot, side="right") - 1
    filled = slot - out_start[owner] < out_count[owner]
    owner, nbr, w = owner[filled], out_nbr[filled], out_weight[filled]
    self_loop = xp.zeros(k, dtype=np.int64)
    inside = owner == nbr
    self_loop[owner[inside]] = w[inside] // 2  # met from both ends: always even
    once = owner < nbr  # each coarse edge was written by both its ends
    lo, hi, w = owner[once], nbr[once], w[once]
    # The kernels wrote the slots in the order their threads got there; the
    # canonical (hi, lo) order makes the next level the same on every run.
    order = lexsort_xp([lo, hi], xp)
    return WeightedGraph(k, lo[order], hi[order], w[order], self_loop), group


def move_phase_gpu(offsets, indices, weights, loop, community, resolution: float,
                   threshold: float, max_passes: int, xp):
    """Run passes from ``community`` until one gains less than ``threshold``;
    return the communities and their modularity.

    ``weights`` and ``loop`` are int64 fixed-point weights (:func:`fixed_point`):
    every sum is exact, so no result depends on the order atomics land in.
    """
    n = int(offsets.shape[0]) - 1
    row = xp.searchsorted(offsets, xp.arange(indices.shape[0], dtype=offsets.dtype),
                          side="right") - 1 if n else xp.zeros(0, dtype=np.int64)
    k = segment_sum(weights, row, n, xp) + 2 * loop
    two_m = float(int(k.sum()))
    new_community = community.copy()
    improvement = xp.zeros(n, dtype=np.float64)
    buckets, tables = bucket_tables(offsets, xp)
    once = row < indices  # each undirected edge once, for the modularity
    graph = WeightedGraph(n, row[once], indices[once], weights[once], loop)
    q = fixed_point_modularity(graph, community, resolution, xp)
    for _ in range(max_passes):
        before = community.copy()
        for members, group, size in buckets:
            count = int(members.shape[0])
            if count == 0:
                continue
            a = segment_sum(k, community, n, xp)
            csize = xp.bincount(community, minlength=n)
            move_bucket(members, group, size, tables, offsets, indices, weights, community, k,
                        a, csize, two_m, resolution, new_community, improvement, xp)
            commit_moves(members, community, new_community, improvement, k, two_m, resolution, xp)
        new_q = fixed_point_modularity(graph, community, resolution, xp)
        if new_q < q:
            community = before  # a synchronous pass may overshoot: keep the better one
            break
        gained, q = new_q - q, new_q
        if gained < threshold or bool((community == before).all()):
            break
    return community, q


# --------------------------------------------------------------------------
# fixed point: exact, order-free sums
# --------------------------------------------------------------------------

# Every sum the kernels form (a row, a community's total, a contracted edge)
# is at most the graph's total degree; it is kept below 2**61.
FIXED_POINT_BITS = 61


def fixed_point(graph: WeightedGraph, xp) -> tuple[WeightedGraph, float]:
    """``graph`` with its weights as int64 multiples of ``1 / scale``, and ``scale``.

    Float atomic adds land in whatever order the threads get there, and
    float addition is not associative, so float sums would differ from run
    to run in their last bits, and a near-tie between two communities with
    them.  Integer sums are exact in any order.  ``scale`` is the power of
    two that puts the total degree just below 2**61, so the rounding is at
    most 2**-62 of the total per weight; a weight below that (a dynamic
    range past 10**18) rounds to 0.  Multiplying by a power of two is exact,
    and so is the modularity's scale: it cancels.
    """
    total = 2.0 * (float(graph.w.sum()) + float(graph.loop.sum()))
    exponent = FIXED_POINT_BITS - 1 - math.frexp(total)[1] if total > 0 else 0
    scale = math.ldexp(1.0, exponent)
    w = xp.rint(graph.w * scale).astype(np.int64)
    loop = xp.rint(graph.loop * scale).astype(np.int64)
    return WeightedGraph(graph.n, graph.lo, graph.hi, w, loop), scale


def fixed_point_modularity(graph: WeightedGraph, community, resolution: float, xp) -> float:
    """Q of ``community`` on a fixed-point graph: the community sums are exact
    integers, so Q is the same on every run (``modularity.modularity_of``
    uses float bincounts, whose atomic sums are not)."""
    n = graph.n
    k = segment_sum(graph.w, graph.lo, n, xp) + segment_sum(graph.w, graph.hi, n, xp) \
        + 2 * graph.loop
    two_m = float(int(k.sum()))
    if two_m == 0.0:
        raise ValueError("modularity is undefined for a graph whose total edge weight is 0")
    same = community[graph.lo] == community[graph.hi]
    inside = int(graph.w[same].sum()) + int(graph.loop.sum())
    total = segment_sum(k, community, n, xp).astype(np.float64)
    return inside / (two_m / 2.0) - resolution * float(((total / two_m) ** 2).sum())

