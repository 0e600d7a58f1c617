"""GPU Suitor (Naim et al., HiPC 2015, "NoSync" variant) in numba.cuda.

Design, as in the paper:

* a warp owns a chunk of ``vertices_per_warp`` vertices and keeps its own
  work list of them in shared memory;
* for each vertex of the list in turn, the 32 lanes read its adjacency list
  together (coalesced) and a butterfly (xor-shuffle) reduction gives every
  lane the best candidate.  Rows are in preference order
  (``structure.csr.preference_csr``), so the scan starts at the vertex's pointer and stops
  at the first 32-entry chunk holding an acceptable neighbour; refused
  entries are never read again (offers only grow);
* then one lane per vertex proposes with a single 64-bit ``atomic.max`` on
  the candidate's offer word ``key << 32 | proposer``: lock-free, and the
  value it returns names the displaced suitor, if any;
* displaced vertices, and vertices that lost a race, are compacted back into
  the same warp's work list (ballot + popc prefix sum);
* warps never synchronise with each other, and the host launches one kernel:
  no host round-trip per iteration.

Reads of other vertices' offers use ``ldcg`` (cached in L2 only): L1 is not
coherent between SMs, and a stale value could make a vertex retry the same
lost proposal for as long as the line stays in L1.  A stale read is never
wrong, only slow: offers only grow, so an entry read as refusing refuses
for good, and one read as accepting is settled by the atomic.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64, uint32, uint64

from ..structure.checks import check_launch, check_warp_shared_memory
from ..structure.device import FULL_MASK, WARP, WIDE_BLOCK, launch

_LOW = uint64(0xFFFFFFFF)
_HIGH = uint64(0xFFFFFFFF00000000)
_SHIFT = uint64(32)
_NONE = int64(-1)


@cuda.jit(device=True, inline=True)
def warp_max_u64(value):
    """Butterfly reduction: every lane ends with the warp's maximum.

    Shuffles move signed 64-bit values; offer words stay below 2**63
    (``structure.csr`` keeps keys below 2**31), so the signed view
    orders them the same way.
    """
    word = int64(value)
    offset = 16
    while offset > 0:
        other = cuda.shfl_xor_sync(FULL_MASK, word, offset)
        if other > word:
            word = other
        offset //= 2
    return uint64(word)


@cuda.jit(device=True, inline=True)
def best_acceptable(current, offsets, indices, keys, offer, next_edge, lane):
    """Warp-cooperative: the best neighbour that would accept ``current``.

    Returns the ranked word ``key << 32 | neighbour`` (0 when none) in every
    lane and moves ``current``'s pointer past the chosen entry (or to the
    end): whether the proposal then wins or loses its race, that neighbour
    will never accept ``current`` again.

    Lane 0 alone loads the pointer and broadcasts it: lanes that loaded it
    themselves could see different values (another warp may have handed
    ``current`` over after storing it) and would scan different windows
    before the full-mask shuffles.
    """
    end = offsets[current + 1]
    base = int64(0)
    if lane == 0:
        base = int64(cuda.ldcg(next_edge, current))
    base = cuda.shfl_sync(FULL_MASK, base, 0)
    best = uint64(0)
    while base < end:  # warp-uniform: every lane sees the same best
        j = base + lane
        ranked = uint64(0)
        if j < end:
            v = indices[j]
            key = uint64(keys[j]) << _SHIFT
            if (key | uint64(current)) > cuda.ldcg(offer, v):
                ranked = key | uint64(v)
        best = warp_max_u64(ranked)
        if best != 0:
            if ranked == best:  # exactly one lane: neighbours in a row are distinct
                next_edge[current] = j + 1
            return best
        base += WARP
    if lane == 0:
        next_edge[current] = end
    return best


@cuda.jit(**WIDE_BLOCK)
def suitor_kernel(offsets, indices, keys, offer, next_edge, n, vertices_per_warp):
    # Per warp: [work list | best candidate] of vertices_per_warp words each.
    shared = cuda.shared.array(0, dtype=uint64)
    lane = cuda.laneid
    warp_in_block = cuda.threadIdx.x // WARP
    warp = cuda.blockIdx.x * (cuda.blockDim.x // WARP) + warp_in_block
    work = warp_in_block * 2 * vertices_per_warp
    best_of = work + vertices_per_warp
    lower_lanes = uint32((1 << lane) - 1)

    first = int64(warp) * vertices_per_warp
    count = 0
    if first < n:
        count = min(vertices_per_warp, n - first)
    for i in range(lane, count, WARP):
        shared[work + i] = uint64(first + i)
    cuda.syncwarp(FULL_MASK)

    while count > 0:
        # 1. Best candidate of every listed vertex, one vertex at a time.
        for i in range(count):
            current = int64(shared[work + i])
            best = best_acceptable(current, offsets, indices, keys, offer, next_edge, lane)
            if lane == 0:
                shared[best_of + i] = best
        # The pointer stores above must be visible device-wide before the
        # offers below can hand a vertex to another warp, which then reads
        # its pointer: the storing lanes and the proposing lane differ, so
        # every lane meets at the barrier and fences after it (cumulative).
        cuda.syncwarp(FULL_MASK)
        cuda.threadfence()

        # 2. Propose, one lane per vertex, 32 vertices per pass.
        next_count = 0
        for base in range(0, count, WARP):
            i = base + lane
            follow_up = _NONE
            if i < count:
                current = shared[work + i]
                best = shared[best_of + i]
                if best != 0:
                    offer_word = (best & _HIGH) | current
                    old = cuda.atomic.max(offer, int64(best & _LOW), offer_word)
                    if old < offer_word:
                        if old != 0:
                            follow_up = int64(old & _LOW)  # displaced suitor
                    else:
                        follow_up = int64(current)  # lost a race: try the next one
            # Every lane of this pass has read its slot before any lane
            # overwrites one (writes land at positions <= the slots read so
            # far): the ballot converges the warp, and the barrier orders the
            # shared-memory reads before the writes (a ballot alone gives no
            # memory ordering).
            has = cuda.ballot_sync(FULL_MASK, follow_up >= 0)
            cuda.syncwarp(FULL_MASK)
            if follow_up >= 0:
                shared[work + next_count + cuda.popc(has & lower_lanes)] = uint64(follow_up)
            next_count += cuda.popc(has)
        # A displaced vertex's pointer is read in the next step 1: order that
        # read after the atomic that revealed the displacement (acquire).
        cuda.threadfence()
        cuda.syncwarp(FULL_MASK)
        count = next_count


def suitor_offers_gpu(offsets, indices, keys, xp, vertices_per_warp: int = 8,
                      threads_per_block: int = 128):
    """Launch the Suitor kernel; return the final offer words (on the device)."""
    threads_per_block = check_launch(threads_per_block, whole_warps=True,
                                     positive={"vertices_per_warp": vertices_per_warp})
    # two work lists of vertices_per_warp offer words per warp
    shared_bytes = check_warp_shared_memory(threads_per_block, "vertices_per_warp",
                                            vertices_per_warp, 2 * 8)
    n = int(offsets.shape[0]) - 1
    warps_per_block = threads_per_block // WARP
    warps = -(-n // vertices_per_warp)
    blocks = -(-warps // warps_per_block)
    offer = xp.zeros(n, dtype=np.uint64)
    if n == 0:
        return offer
    next_edge = offsets[:-1].astype(np.int64)
    launch(suitor_kernel, blocks, threads_per_block, xp, offsets, indices, keys, offer,
           next_edge, n, vertices_per_warp, shared_bytes=shared_bytes)
    return offer
