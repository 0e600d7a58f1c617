"""GPU locally-dominant matching in numba.cuda: bulk-synchronous rounds.

Each round, one warp per listed vertex finds its heaviest unmatched
neighbour: rows are in preference order (``structure.csr.preference_csr``) and matched
vertices stay matched, so the warp scans from the vertex's pointer and stops
at the first 32-entry chunk with an unmatched neighbour; one thread per listed
vertex matches mutual pointers; one warp per newly matched vertex collects
the neighbours that pointed at it (warp-aggregated atomic append).  The host
reads one counter per round (the next list's length) and writes none: each
counter is reset by the kernel that runs before the one that fills it.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64, uint32

from ..structure.checks import check_launch
from ..structure.device import FULL_MASK, WARP, WIDE_BLOCK, launch

MATCHED, NEXT = 0, 1  # slots of the counters array


@cuda.jit(**WIDE_BLOCK)
def candidates_kernel(work, size, offsets, indices, mate, candidate, next_edge, stamp, round_id,
                      counters):
    if cuda.grid(1) == 0:
        counters[MATCHED] = 0  # filled by match_kernel, next in the stream
    lane = cuda.laneid
    warp = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP
    warps = (cuda.gridDim.x * cuda.blockDim.x) // WARP
    for t in range(warp, size, warps):  # warp-uniform loop
        v = work[t]
        end = offsets[v + 1]
        base = next_edge[v]
        found = False
        while base < end and not found:  # warp-uniform: `found` comes from a ballot
            j = base + lane
            free = j < end and mate[indices[j]] < 0
            bits = cuda.ballot_sync(FULL_MASK, free)
            if bits != 0:
                found = True
                if lane == cuda.ffs(bits) - 1:  # the first free entry is the heaviest
                    next_edge[v] = j
                    candidate[v] = indices[j]
            else:
                base += WARP
        if lane == 0:
            if not found:
                next_edge[v] = end
                candidate[v] = -1
            stamp[v] = round_id


@cuda.jit(**WIDE_BLOCK)
def match_kernel(work, size, candidate, mate, stamp, round_id, matched, counters):
    t = cuda.grid(1)
    if t == 0:
        counters[NEXT] = 0  # filled by next_work_kernel, next in the stream
    if t < size:
        v = work[t]
        c = candidate[v]
        if c >= 0 and candidate[c] == v:
            mate[v] = c
            mate[c] = v
            # Each vertex of the pair that is in this round's list enqueues
            # itself; the partner is enqueued by v only when it is not listed.
            if stamp[c] == round_id:
                matched[cuda.atomic.add(counters, MATCHED, 1)] = v
            else:
                slot = cuda.atomic.add(counters, MATCHED, 2)
                matched[slot] = v
                matched[slot + 1] = c


@cuda.jit(**WIDE_BLOCK)
def next_work_kernel(matched, offsets, indices, mate, candidate, work, counters):
    lane = cuda.laneid
    lower_lanes = uint32((1 << lane) - 1)
    warp = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP
    warps = (cuda.gridDim.x * cuda.blockDim.x) // WARP
    for t in range(warp, counters[MATCHED], warps):  # the count stays on the device
        u = matched[t]
        start = offsets[u]
        end = offsets[u + 1]
        for base in range(start, end, WARP):
            j = base + lane
            wanted = False
            x = int64(-1)
            if j < end:
                x = int64(indices[j])
                wanted = mate[x] < 0 and candidate[x] == u
            # One atomic per warp step instead of one per appended vertex.
            bits = cuda.ballot_sync(FULL_MASK, wanted)
            slot = 0
            if lane == 0 and bits != 0:
                slot = cuda.atomic.add(counters, NEXT, cuda.popc(bits))
            slot = cuda.shfl_sync(FULL_MASK, slot, 0)
            if wanted:
                work[slot + cuda.popc(bits & lower_lanes)] = x


def locally_dominant_mates_gpu(offsets, indices, xp, threads_per_block: int = 128):
    """Run LD rounds on the device; return ``mate`` (-1 unmatched) and the round count."""
    threads_per_block = check_launch(threads_per_block, whole_warps=True)
    n = int(offsets.shape[0]) - 1
    mate = xp.full(n, -1, dtype=np.int64)
    candidate = xp.full(n, -1, dtype=np.int64)
    stamp = xp.zeros(n, dtype=np.int64)
    next_edge = offsets[:-1].astype(np.int64)
    work = xp.arange(n, dtype=np.int64)
    spare = xp.empty(n, dtype=np.int64)
    matched = xp.empty(n, dtype=np.int64)
    counters = xp.zeros(2, dtype=np.int64)
    warps_per_block = threads_per_block // WARP
    size = n
    rounds = 0
    while size > 0:
        rounds += 1
        launch(candidates_kernel, -(-size // warps_per_block), threads_per_block, xp,
               work, size, offsets, indices, mate, candidate, next_edge, stamp, rounds, counters)
        launch(match_kernel, -(-size // threads_per_block), threads_per_block, xp,
               work, size, candidate, mate, stamp, rounds, matched, counters)
        # At most min(2 * size, n) vertices were matched; surplus warps exit at once.
        launch(next_work_kernel, -(-min(2 * size, n) // warps_per_block), threads_per_block, xp,
               matched, offsets, indices, mate, candidate, spare, counters)
        size = int(counters[NEXT])  # the round's only transfer
        work, spare = spare, work
    return mate, rounds
