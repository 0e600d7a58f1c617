"""Sequential b-marriage (many-to-many stable assignment) on the CPU (numba.njit).

Each acceptor ``a`` owns ``cap[a]`` slots ``slots[slot_off[a] :
slot_off[a] + cap[a]]`` holding the positions (in her list) of the
proposers she currently keeps, sorted ascending, ``SENTINEL`` when free: the
last slot is her worst kept suitor, the bar a new proposal must clear.  A
proposer with capacity ``b`` is introduced ``b`` times; the copies share one
pointer ``nxt`` into his list, so no two copies propose to the same
acceptor.  A proposal that clears the bar is inserted in order and pushes
out the last slot, whose proposer (one copy of him) proposes again.
"""

import numpy as np
from numba import njit

SENTINEL = np.iinfo(np.int64).max
_NONE = np.int64(-1)


@njit(cache=True, nogil=True)
def _run(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop, slot_off, cap,
         copies, n_p, fifo):
    """Both orders in one body (``fifo``: Gale-Shapley's queue of free copies,
    else McVitie-Wilson's chains); the scan is inlined for speed."""
    slots = np.full(slot_off[-1], SENTINEL, dtype=np.int64)
    nxt = np.zeros(n_p, dtype=np.int64)
    total = 0
    for u in range(n_p):
        total += copies[u]
    ring = np.empty(total if fifo else 0, dtype=np.int64)
    if fifo:
        k = 0
        for u in range(n_p):
            for _ in range(copies[u]):
                ring[k] = u
                k += 1
    head = 0
    size = total if fifo else 0
    introduced = 0  # MW: next proposer to introduce, and copies of him left
    left = 0
    cur = _NONE
    while True:
        if fifo:
            if size == 0:
                break
            cur = ring[head]
            head = head + 1 if head + 1 < total else 0
            size -= 1
        elif cur < 0:
            while left == 0 and introduced < n_p:
                left = copies[introduced]
                introduced += 1
            if left == 0:
                break
            cur = np.int64(introduced - 1)
            left -= 1
        # one copy of cur proposes until accepted or out of list
        start = p_off[cur * p_step]
        length = p_off[cur * p_step + 1] - start
        vp = nxt[cur]
        out = _NONE
        while vp < length:
            j = start + vp
            vp += 1
            a = p_tgt[j]
            c = cap[a]
            if c == 0:
                continue
            key = np.int64(p_key[j * k_entry + cur * k_prop])
            s0 = slot_off[a]
            worst = slots[s0 + c - 1]
            if key < worst:
                i = c - 1  # insertion in order; the last slot falls out
                while i > 0 and slots[s0 + i - 1] > key:
                    slots[s0 + i] = slots[s0 + i - 1]
                    i -= 1
                slots[s0 + i] = key
                if worst != SENTINEL:
                    out = np.int64(a_prop[a_off[a * a_step] + worst])
                break
        nxt[cur] = vp
        if fifo:
            if out >= 0:
                tail = head + size
                ring[tail if tail < total else tail - total] = out
                size += 1
        else:
            cur = out  # the pushed-out copy proposes at once
    return slots, nxt


def b_mcvitie_wilson(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
                     slot_off, cap, copies, n_p):
    """Every copy of every proposer in id order; a pushed-out copy goes at once.

    Returns ``(slots, nxt)``.
    """
    return _run(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop, slot_off,
                cap, copies, n_p, False)


def b_gale_shapley(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
                   slot_off, cap, copies, n_p):
    """Gale-Shapley order: a FIFO ring of free copies.  Returns ``(slots, nxt)``."""
    return _run(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop, slot_off,
                cap, copies, n_p, True)
