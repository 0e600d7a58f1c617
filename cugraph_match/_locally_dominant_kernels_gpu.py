"""GPU locally-dominant matching in numba.cuda: bulk-synchronous rounds.

Each round, one warp per listed vertex finds its heaviest unmatched
neighbour: rows are in preference order (``core.build_csr``) and matched
vertices stay matched, so the warp scans from the vertex's pointer and stops
at the first 32-entry chunk with an unmatched neighbour; one thread per listed
vertex matches mutual pointers; one warp per newly matched vertex collects
the neighbours that pointed at it (warp-aggregated atomic append).  The host
reads one counter per round, as cuGraph's C++ implementation does.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64, uint32

from ._suitor_kernels_gpu import FULL_MASK, WARP


@cuda.jit
def candidates_kernel(work, size, offsets, indices, mate, candidate, next_edge, stamp, round_id):
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


@cuda.jit
def match_kernel(work, size, candidate, mate, stamp, round_id, matched, matched_count):
    t = cuda.grid(1)
    if t < size:
        v = work[t]
        c = candidate[v]
        if c >= 0 and candidate[c] == v:
            mate[v] = c
            mate[c] = v
            # Each vertex of the pair that is in this round's list enqueues
            # itself; the partner is enqueued by v only when it is not listed.
            if stamp[c] == round_id:
                matched[cuda.atomic.add(matched_count, 0, 1)] = v
            else:
                slot = cuda.atomic.add(matched_count, 0, 2)
                matched[slot] = v
                matched[slot + 1] = c


@cuda.jit
def next_work_kernel(matched, size, offsets, indices, mate, candidate, work, work_count):
    lane = cuda.laneid
    lower_lanes = uint32((1 << lane) - 1)
    warp = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP
    warps = (cuda.gridDim.x * cuda.blockDim.x) // WARP
    for t in range(warp, size, warps):
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
                slot = cuda.atomic.add(work_count, 0, cuda.popc(bits))
            slot = cuda.shfl_sync(FULL_MASK, slot, 0)
            if wanted:
                work[slot + cuda.popc(bits & lower_lanes)] = x


def locally_dominant_mates_gpu(offsets, indices, xp, threads_per_block: int = 128):
    """Run LD rounds on the device; return ``mate`` (-1 unmatched) and the round count."""
    if threads_per_block % WARP or not 0 < threads_per_block <= 1024:
        raise ValueError(f"threads_per_block must be a multiple of 32 in [32, 1024], "
                         f"got {threads_per_block}")
    n = int(offsets.shape[0]) - 1
    mate = xp.full(n, -1, dtype=np.int64)
    candidate = xp.full(n, -1, dtype=np.int64)
    stamp = xp.zeros(n, dtype=np.int64)
    next_edge = offsets[:-1].astype(np.int64)
    work = xp.arange(n, dtype=np.int64)
    spare = xp.empty(n, dtype=np.int64)
    matched = xp.empty(n, dtype=np.int64)
    counter = xp.zeros(1, dtype=np.int64)
    warps_per_block = threads_per_block // WARP
    size = n
    rounds = 0
    while size > 0:
        rounds += 1
        warp_blocks = -(-size // warps_per_block)
        thread_blocks = -(-size // threads_per_block)
        candidates_kernel[warp_blocks, threads_per_block](
            work, size, offsets, indices, mate, candidate, next_edge, stamp, rounds)
        counter[0] = 0
        match_kernel[thread_blocks, threads_per_block](
            work, size, candidate, mate, stamp, rounds, matched, counter)
        m = int(counter[0])
        counter[0] = 0
        if m:
            next_work_kernel[-(-m // warps_per_block), threads_per_block](
                matched, m, offsets, indices, mate, candidate, spare, counter)
            size = int(counter[0])
        else:
            size = 0
        work, spare = spare, work
    return mate, rounds
