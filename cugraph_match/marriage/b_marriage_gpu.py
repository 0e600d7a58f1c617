"""Lock-free b-marriage in numba.cuda.

The single-capacity design (``_stable_marriage_kernels_gpu``) holds an
acceptor's suitor as one position updated by ``atomic.min``.  Here an
acceptor with capacity ``c`` has ``c`` slots of positions, kept sorted, and
a proposal is an *insertion cascade* of ``atomic.min`` s: the proposer's
position is the value carried into slot 0; at each slot ``atomic.min``
leaves the smaller value there and the thread carries on with the larger
one; whatever comes out of the last slot is the suitor she drops (the
proposer himself when he did not make her top ``c``, nobody when a slot was
free).  No lock and no retry:

* every value is conserved (each ``atomic.min`` swaps, it never loses one),
  so each dropped suitor is dropped exactly once, by exactly one thread;
* a value leaves only after passing every slot, each of which then held a
  smaller value, and slots only decrease: the ``c`` kept suitors are the
  ``c`` best she has ever been offered, as in the sequential algorithm;
* after concurrent cascades at one acceptor finish, her slots are sorted
  again (a carry leaving slot ``i`` is at least slot ``i``'s final value).

A proposal is skipped when all ``c`` slots hold better suitors (they keep
them for good).  Copies of one proposer share his pointer, advanced with
``atomic.add`` (several copies may search at once), so each entry of his
list is tried by exactly one copy.  Persistent warps take copies from a
global counter, as in the single-capacity kernel.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64

from ..structure.checks import check_launch
from ..structure.device import FULL_MASK, WIDE_BLOCK, launch
from .stable_marriage_gpu import SENTINEL, resident_blocks, take_work

_NONE = int64(-1)


@cuda.jit(device=True, inline=True)
def all_slots_better(slots, s0, c, key):
    for i in range(c):
        if cuda.ldcg(slots, s0 + i) > key:
            return False
    return True


@cuda.jit(device=True, inline=True)
def propose_copy(cur, p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
                 slot_off, slots, cap, nxt):
    """One entry of ``cur``'s list.  Returns the proposer whose copy must go
    on: ``cur`` when refused, the dropped suitor, or -1 (accepted into a
    free slot, or ``cur`` ran out of list)."""
    start = int64(p_off[cur * p_step])
    length = int64(p_off[cur * p_step + 1]) - start
    vp = cuda.atomic.add(nxt, cur, 1)
    if vp >= length:
        return _NONE
    j = start + vp
    a = int64(p_tgt[j])
    c = int64(cap[a])
    key = int64(p_key[j * k_entry + cur * k_prop])
    s0 = int64(slot_off[a])
    if c == 0 or all_slots_better(slots, s0, c, key):
        return cur
    carry = key
    for i in range(c):
        old = cuda.atomic.min(slots, s0 + i, carry)
        if old > carry:
            carry = old
        if carry == SENTINEL:
            return _NONE
    if carry == key:
        return cur
    return int64(a_prop[a_off[a * a_step] + carry])


@cuda.jit(**WIDE_BLOCK)
def b_marriage_kernel(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
                      slot_off, slots, cap, nxt, copy_owner, counter, n_copies, solo):
    lane = cuda.laneid
    lower = (int64(1) << lane) - 1
    cur = _NONE
    more = True
    while True:
        if more:
            item, more = take_work(cur < 0, more, counter, n_copies, lane, lower)
            if item >= 0:
                cur = int64(copy_owner[item])
        if cuda.ballot_sync(FULL_MASK, cur >= 0) == 0:
            break
        # Up to ``solo`` entries per lane, then back to the warp-wide refill.
        steps = 0
        while cur >= 0 and steps < solo:
            cur = propose_copy(cur, p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off,
                               a_step, a_prop, slot_off, slots, cap, nxt)
            steps += 1


def b_propose_gpu(layout, slot_off, cap, copy_owner, xp, threads_per_block: int = 128,
                  solo_entries: int = 4):
    """Run the b-marriage kernel; return ``(slots, nxt)``."""
    check_launch(threads_per_block, whole_warps=True, non_negative={"solo_entries": solo_entries})
    solo = max(1, solo_entries)  # each lane must make progress between refills
    n_p = layout.n_proposers
    slots = xp.full(int(slot_off[-1]), np.iinfo(np.int64).max, dtype=np.int64)
    nxt = xp.zeros(n_p, dtype=np.int64)
    n_copies = int(copy_owner.shape[0])
    if n_copies == 0 or slots.shape[0] == 0:
        return slots, nxt
    counter = xp.zeros(1, dtype=np.int64)
    blocks = min(-(-n_copies // threads_per_block), resident_blocks(threads_per_block))
    launch(b_marriage_kernel, blocks, threads_per_block, xp,
        *layout.args(), slot_off, slots, cap, nxt, copy_owner, counter, n_copies, solo)
    return slots, nxt
