"""Leiden's refinement and the connected-components split on the GPU (numba.cuda).

Same discipline as the GPU Louvain (``louvain_gpu``): weights are int64 fixed
point, so every sum is exact in any order and the result is the same on every
run; decisions are made in bulk-synchronous rounds and committed by the host.

Refinement (deterministic greedy; the CPU's θ draws have no equivalent here):
every vertex starts alone; each round, every vertex that is still alone and
well connected to its community S of the move phase's partition,
E(v, S − v) ≥ γ k_v (K_S − k_v) / 2m, picks the refined community R inside S
of largest gain E(v, R) − γ k_v K_R / 2m among those well connected to S
(E(R, S − R) ≥ γ K_R (K_S − K_R) / 2m), ties to the lowest label.  This is
Louvain's move kernel run on the rows restricted to edges inside S (so only
refined communities inside S are seen) with the graph's full degrees, and
with the community totals of refined communities that are not well
connected replaced by +inf (their gain is −inf).  Conflicts, resolved on the
host: a move into a singleton whose own vertex moves this round is
cancelled (the kernel's singleton rule already stops two singletons from
swapping), and ``commit_moves`` admits the movers into each refined
community in order of gain while they still gain.  A refined community
grows only by vertices with an edge into it whose members do not move, so it
stays connected.  Rounds stop when none moves.

The split (``components_gpu``): min-label hooking and pointer jumping over
the edges inside communities, until nothing changes; labels only decrease and
stay inside their component, so every component ends labelled by its
smallest vertex whatever order the threads ran in.
"""

from __future__ import annotations

import numpy as np
from ..structure.community_gpu import (  # noqa: F401 - the split's kernels, named here too
    bucket_tables, commit_moves, components_gpu, hook_kernel, jump_kernel, move_bucket,
    segment_sum)
from ..structure.sort_xp import bincount_xp

# A refinement round moves at least one vertex or ends it; rounds beyond this
# (long chains merging pairwise) stop with a valid, less merged refinement.
MAX_ROUNDS = 128


def refine_gpu(offsets, indices, weights, loop, parts, resolution: float, xp):
    """The refined partition of ``parts`` (labels: a member's vertex id) and how
    many vertices joined another's community; int64 fixed-point weights."""
    n = int(offsets.shape[0]) - 1
    row = xp.searchsorted(offsets, xp.arange(indices.shape[0], dtype=offsets.dtype),
                          side="right") - 1
    k = segment_sum(weights, row, n, xp) + 2 * loop
    two_m = float(int(k.sum()))
    same = parts[row] == parts[indices]  # the rows restricted to edges inside communities
    inner_row, inner_indices = row[same], indices[same]
    inner_weights = weights[same].astype(np.int64)
    inner_offsets = xp.zeros(n + 1, dtype=offsets.dtype)
    # no edge inside any community leaves inner_row empty (bincount_xp: CuPy 13.6 raises)
    inner_offsets[1:] = xp.cumsum(bincount_xp(inner_row, xp, minlength=n))
    inside = segment_sum(inner_weights, inner_row, n, xp)  # E(v, S - v)
    community_total = segment_sum(k, parts, n, xp)[parts]  # K_S of each vertex's S
    scale = resolution / two_m if two_m else 0.0
    well = inside.astype(np.float64) >= \
        scale * k.astype(np.float64) * (community_total - k).astype(np.float64)
    refined = xp.arange(n, dtype=np.int64)
    new_refined = refined.copy()
    improvement = xp.zeros(n, dtype=np.float64)
    buckets, tables = bucket_tables(inner_offsets, xp)
    joined = 0
    for _ in range(MAX_ROUNDS):
        size = xp.bincount(refined, minlength=n)
        candidate = well & (size[refined] == 1)
        if not bool(candidate.any()):
            break
        total = segment_sum(k, refined, n, xp)  # K_R (a nonempty label R holds vertex R)
        within = refined[inner_row] == refined[inner_indices]
        outside = segment_sum(inside, refined, n, xp) - \
            segment_sum(xp.where(within, inner_weights, 0), refined[inner_row], n, xp)
        connected = outside.astype(np.float64) >= \
            scale * total.astype(np.float64) * (community_total - total).astype(np.float64)
        # a refined community not well connected to S is never a target
        target_total = xp.where(connected, total.astype(np.float64), np.inf)
        new_refined[:] = refined
        improvement[:] = 0.0
        for members, group, slots in buckets:
            members = members[candidate[members]]
            if members.shape[0]:
                move_bucket(members, group, slots, tables, inner_offsets, inner_indices,
                            inner_weights, refined, k, target_total, size, two_m, resolution,
                            new_refined, improvement, xp)
        moving = new_refined != refined
        # a singleton label's only member is its own vertex: a move into a
        # singleton that leaves this round is cancelled
        into_leaver = moving & (size[new_refined] == 1) & moving[new_refined]
        new_refined[into_leaver] = refined[into_leaver]
        before = refined.copy()
        commit_moves(xp.flatnonzero(candidate).astype(np.int64), refined, new_refined, improvement,
                k, two_m, resolution, xp)
        moved = int((refined != before).sum())
        if moved == 0:
            break
        joined += moved
    return refined, joined
