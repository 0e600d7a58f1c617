"""Lock-free McVitie-Wilson (and round-synchronous Gale-Shapley) in numba.cuda,
for stable marriage and, with levels, Huang-Kavitha popular matching.

Design (Manne, Naim, Lerring, Halappanavar, CSC 2016, with the paper's
CUDA MW bottlenecks addressed):

* an acceptor's current suitor is held as her *position* of him, one int64
  per acceptor (``held``); a proposal is one ``atomic.min`` on it.  The
  value it returns says everything: larger than the proposer's position
  means he won and the old value names the displaced suitor (through her
  list), smaller means someone better got there first.  No lock, no CAS
  retry loop, and no ABA: a holder only ever gets better;
* a displaced proposer is continued at once by the thread that displaced
  him (McVitie-Wilson's recursion as a loop), so a rejected proposer's
  state never goes through a queue;
* each lane first reads a few entries of its own proposer's list by itself
  (``solo`` entries: on random lists most proposals succeed within a
  couple of entries); a proposer that needs more is scanned by the whole
  warp, 32 consecutive entries per step with a ballot picking the first
  acceptable one.  On the "hard" master-list instance every proposer reads
  past thousands of taken acceptors, and the warp reads them 32 at a time;
* persistent warps take proposers from a global counter, so a warp whose
  lanes finish early refills them instead of idling until its slowest
  lane's chain ends (the paper's one-thread-per-man launch had no load
  balancing);
* reads of ``held`` and ``nxt`` use ``ldcg`` (L2, coherent across SMs).  A
  stale value is never wrong, only slow: ``held`` only decreases, so a
  stale value can only make an acceptor look acceptable, and the atomic
  settles it; a stale (smaller) ``nxt`` makes a proposer re-read entries
  that all refuse him for good.

Gale-Shapley runs the same candidate search in rounds: every free proposer
of the round proposes once, losers and displaced proposers form the next
round's frontier (a warp-aggregated atomic append), one kernel per round.

All warp primitives are called by all 32 lanes with the full mask; loops
around them are warp-uniform.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64

from ..structure.checks import check_launch
from ..structure.device import FULL_MASK, WARP, WIDE_BLOCK, launch

SENTINEL = int64(np.iinfo(np.int64).max)
LEVEL_BIAS = int64(1 << 40)
_NONE = int64(-1)


@cuda.jit(device=True, inline=True)
def ballot_bits(predicate):
    """The warp's ballot as a non-negative int64: bit ``i`` set when lane ``i``'s
    ``predicate`` holds.

    Numba types ``ballot_sync`` as a *signed* int32, so widening it as it
    comes sign-extends lane 31's bit over the high word: ``popc`` then
    counts 32 lanes too many and ``ffs`` names lanes past 31.  On a lent H100
    (2026-11-27) that made each warp take 64 proposers for its 32 lanes,
    half of them never proposing.
    """
    return int64(cuda.ballot_sync(FULL_MASK, predicate)) & int64(FULL_MASK)


@cuda.jit(device=True, inline=True)
def row(u, p_off, p_step):
    """(start, length) of ``u``'s list."""
    start = int64(p_off[u * p_step])
    return start, int64(p_off[u * p_step + 1]) - start


@cuda.jit(device=True, inline=True)
def entry(u, start, length, vp, p_tgt, p_key, k_entry, k_prop, max_level):
    """(acceptor, u's key at her) at virtual position ``vp`` of ``u``'s list.

    Levels are 0 or 1, so the level is a comparison (no 64-bit division on
    the scan's critical path).
    """
    level = int64(1) if vp >= length else int64(0)
    j = start + vp - level * length
    key = int64(p_key[j * k_entry + u * k_prop]) + (max_level - level) * LEVEL_BIAS
    return int64(p_tgt[j]), key


@cuda.jit(device=True, inline=True)
def find_candidates(cur, p_off, p_step, p_tgt, p_key, k_entry, k_prop, held, nxt,
                    max_level, solo, lane):
    """Warp-collective: each lane's first acceptable entry.

    Returns ``(cur, cand)``: ``cand`` is the virtual position of the first
    entry of ``cur``'s list whose acceptor holds a worse suitor (or nobody)
    right now.  A lane whose proposer has nothing left returns
    ``cur = -1`` (he stays single; his pointer is set past his list).
    """
    cand = _NONE
    vp = _NONE
    limit = int64(0)
    if cur >= 0:
        start, length = row(cur, p_off, p_step)
        limit = (max_level + 1) * length
        vp = cuda.ldcg(nxt, cur)
        steps = 0
        while vp < limit and steps < solo:
            a, key = entry(cur, start, length, vp, p_tgt, p_key, k_entry, k_prop, max_level)
            if key < cuda.ldcg(held, a):
                cand = vp
                break
            vp += 1
            steps += 1
        if cand < 0 and vp >= limit:
            nxt[cur] = limit
            cur = _NONE

    # Proposers still searching: the warp scans their lists one at a time.
    want = ballot_bits(cur >= 0 and cand < 0)
    while want != 0:
        leader = int64(cuda.ffs(want)) - 1
        who = cuda.shfl_sync(FULL_MASK, cur, leader)
        base = cuda.shfl_sync(FULL_MASK, vp, leader)
        who_start, who_length = row(who, p_off, p_step)
        who_limit = (max_level + 1) * who_length
        found = _NONE
        while base < who_limit:  # warp-uniform
            t = base + lane
            ok = False
            if t < who_limit:
                a, key = entry(who, who_start, who_length, t, p_tgt, p_key, k_entry, k_prop,
                               max_level)
                ok = key < cuda.ldcg(held, a)
            hits = ballot_bits(ok)
            if hits != 0:
                found = base + int64(cuda.ffs(hits)) - 1
                break
            base += WARP
        if lane == leader:
            if found >= 0:
                cand = found
            else:
                nxt[cur] = who_limit
                cur = _NONE
        want &= want - 1
    return cur, cand


@cuda.jit(device=True, inline=True)
def propose(cur, cand, p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
            held, nxt, max_level):
    """One lock-free proposal.  Returns (won, displaced proposer or -1)."""
    start, length = row(cur, p_off, p_step)
    a, key = entry(cur, start, length, cand, p_tgt, p_key, k_entry, k_prop, max_level)
    # Advance first: win or lose, this acceptor never accepts ``cur`` again.
    # The fence publishes the pointer before the offer: whoever displaces
    # ``cur`` later learns it from this atomic and then reads his pointer.
    nxt[cur] = cand + 1
    cuda.threadfence()
    old = cuda.atomic.min(held, a, key)
    # ... and, on our side, the displaced proposer's pointer is read only
    # after the atomic that named him.
    cuda.threadfence()
    if old > key:
        if old == SENTINEL:
            return True, _NONE
        return True, int64(a_prop[a_off[a * a_step] + (old & (LEVEL_BIAS - 1))])
    return False, _NONE


@cuda.jit(device=True, inline=True)
def take_work(idle, more, counter, total, lane, lower):
    """Warp-collective: every idle lane takes the next unstarted work item.

    One ``atomic.add`` per warp on the global ``counter`` hands out
    consecutive items (neighbouring lists, so neighbouring memory).  Returns
    ``(item or -1, more)``; ``more`` turns False once the counter is spent.
    """
    item = _NONE
    need = ballot_bits(idle)
    if need != 0:
        taken = int64(cuda.popc(need))
        first = int64(0)
        if lane == 0:
            first = cuda.atomic.add(counter, 0, taken)
        first = cuda.shfl_sync(FULL_MASK, first, 0)
        if first + taken >= total:
            more = False
        if idle:
            mine = first + int64(cuda.popc(need & lower))
            if mine < total:
                item = mine
    return item, more


@cuda.jit(**WIDE_BLOCK)
def mcvitie_wilson_kernel(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
                          held, nxt, counter, n_p, max_level, solo):
    lane = cuda.laneid
    lower = (int64(1) << lane) - 1
    cur = _NONE
    more = True  # warp-uniform: the counter may still hold unintroduced proposers
    while True:
        if more:
            item, more = take_work(cur < 0, more, counter, n_p, lane, lower)
            if item >= 0:
                cur = item
        if cuda.ballot_sync(FULL_MASK, cur >= 0) == 0:
            break
        cur, cand = find_candidates(cur, p_off, p_step, p_tgt, p_key, k_entry, k_prop, held,
                                    nxt, max_level, solo, lane)
        if cand >= 0:
            won, displaced = propose(cur, cand, p_off, p_step, p_tgt, p_key, k_entry, k_prop,
                                     a_off, a_step, a_prop, held, nxt, max_level)
            if won:
                cur = displaced  # -1 when she was free: take a new proposer
            # lost the race: ``cur`` goes on from his next entry


@cuda.jit(**WIDE_BLOCK)
def gale_shapley_round_kernel(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step,
                              a_prop, held, nxt, frontier, count, next_frontier, next_count,
                              max_level, solo):
    lane = cuda.laneid
    lower = (int64(1) << lane) - 1
    warp = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP
    stride = (cuda.gridDim.x * cuda.blockDim.x) // WARP * WARP
    base = int64(warp) * WARP
    while base < count:  # warp-uniform
        i = base + lane
        cur = _NONE
        if i < count:
            cur = int64(frontier[i])
        cur, cand = find_candidates(cur, p_off, p_step, p_tgt, p_key, k_entry, k_prop, held,
                                    nxt, max_level, solo, lane)
        follow = _NONE
        if cand >= 0:
            won, displaced = propose(cur, cand, p_off, p_step, p_tgt, p_key, k_entry, k_prop,
                                     a_off, a_step, a_prop, held, nxt, max_level)
            follow = displaced if won else cur
        has = ballot_bits(follow >= 0)
        if has != 0:
            at = int64(0)
            if lane == 0:
                at = cuda.atomic.add(next_count, 0, int64(cuda.popc(has)))
            at = cuda.shfl_sync(FULL_MASK, at, 0)
            if follow >= 0:
                next_frontier[at + int64(cuda.popc(has & lower))] = follow
        base += stride


def resident_blocks(threads_per_block: int) -> int:
    """Blocks that fill the device once (persistent kernels); 2 in the simulator."""
    try:
        sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    except Exception:  # the simulator's fake device has no such attribute
        return 2
    return int(sms) * max(1, 2048 // threads_per_block)


def propose_gpu(layout, xp, algorithm: str, max_level: int = 0, threads_per_block: int = 128,
                solo_entries: int = 4):
    """Run MW (persistent kernel) or GS (one kernel per round); return ``(held, nxt)``."""
    check_launch(threads_per_block, whole_warps=True, non_negative={"solo_entries": solo_entries})
    n_p, n_a = layout.n_proposers, layout.n_acceptors
    held = xp.full(n_a, np.iinfo(np.int64).max, dtype=np.int64)
    nxt = xp.zeros(n_p, dtype=np.int64)
    if n_p == 0 or n_a == 0:
        return held, nxt
    args = layout.args()
    if algorithm == "mcvitie_wilson":
        counter = xp.zeros(1, dtype=np.int64)
        blocks = min(-(-n_p // threads_per_block), resident_blocks(threads_per_block))
        launch(mcvitie_wilson_kernel, blocks, threads_per_block, xp,
            *args, held, nxt, counter, n_p, max_level, solo_entries)
        return held, nxt
    frontier = xp.arange(n_p, dtype=np.int64)
    next_frontier = xp.empty(n_p, dtype=np.int64)
    next_count = xp.zeros(1, dtype=np.int64)
    count = n_p
    most = resident_blocks(threads_per_block)
    while count:
        next_count[0] = 0
        blocks = min(-(-count // threads_per_block), most)
        launch(gale_shapley_round_kernel, blocks, threads_per_block, xp,
            *args, held, nxt, frontier, count, next_frontier, next_count, max_level,
            solo_entries)
        count = int(next_count[0])  # the one host read per round
        frontier, next_frontier = next_frontier, frontier
    return held, nxt
