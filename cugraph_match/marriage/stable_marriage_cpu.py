"""Sequential proposal algorithms on the CPU (numba.njit): McVitie-Wilson
(a displaced proposer proposes again at once) and Gale-Shapley (a FIFO
queue of free proposers), for stable marriage and, with levels, for
Huang-Kavitha popular matching.

State, shared with the GPU kernels:

* ``held[a]``: the acceptor's current suitor as her position of him
  (``preferences.SENTINEL`` when nobody), so "u beats the holder" is one
  integer comparison and the position maps back to the proposer through
  her list.  Popular matching adds ``LEVEL_BIAS`` to the position of a
  level-0 proposer, so any level-1 proposer beats any level-0 one;
* ``nxt[u]``: how far ``u`` has read his list.  With ``max_level`` = 1 a
  proposer reads his list twice, the second time at level 1: his virtual
  position ``vp`` runs over ``[0, 2 * len)``, level ``vp // len``, entry
  ``vp % len``.

Both algorithms skip an acceptor that holds a better suitor (she would
reject the proposal) and never look at an entry twice: holders only get
better, so an acceptor that refuses once refuses for good.  The instance is
read through a ``preferences.Layout`` (CSR, or master lists with stride 0).
"""

import numpy as np
from numba import njit

SENTINEL = np.iinfo(np.int64).max
LEVEL_BIAS = np.int64(1 << 40)
_NONE = np.int64(-1)


@njit(cache=True, nogil=True)
def _run(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop, n_p, n_a,
         max_level, fifo):
    """Both algorithms in one body: ``fifo`` picks Gale-Shapley's queue,
    otherwise McVitie-Wilson's chain.  (The scan stays in this function: a
    call per proposal made the whole run several times slower.)"""
    held = np.full(n_a, SENTINEL, dtype=np.int64)
    nxt = np.zeros(n_p, dtype=np.int64)
    # GS: a ring of free proposers; each is in it at most once, so n_p slots do.
    ring = np.arange(n_p if fifo else 0, dtype=np.int64)
    head = 0
    size = n_p if fifo else 0
    introduced = 0
    cur = _NONE
    while True:
        if fifo:
            if size == 0:
                break
            cur = ring[head]
            head = head + 1 if head + 1 < n_p else 0
            size -= 1
        elif cur < 0:
            if introduced == n_p:
                break
            cur = np.int64(introduced)
            introduced += 1
        # cur proposes to the first acceptor of his list who would accept him
        start = p_off[cur * p_step]
        length = p_off[cur * p_step + 1] - start
        limit = (max_level + 1) * length
        vp = nxt[cur]
        displaced = _NONE
        while vp < limit:
            level = 1 if vp >= length else 0  # levels are 0 or 1: no division
            j = start + vp - level * length
            key = np.int64(p_key[j * k_entry + cur * k_prop]) + (max_level - level) * LEVEL_BIAS
            a = p_tgt[j]
            old = held[a]
            if key < old:
                held[a] = key
                if old != SENTINEL:
                    displaced = np.int64(a_prop[a_off[a * a_step] + (old & (LEVEL_BIAS - 1))])
                break
            vp += 1
        nxt[cur] = vp + 1 if vp < limit else limit
        if fifo:
            if displaced >= 0:
                tail = head + size
                ring[tail if tail < n_p else tail - n_p] = displaced
                size += 1
        else:
            cur = displaced  # McVitie-Wilson: the displaced proposer goes at once
    return held, nxt


def mcvitie_wilson(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
                   n_p, n_a, max_level):
    """McVitie-Wilson: introduce proposers in id order; a displaced one proposes at once.

    The recursion of the original is a loop: each proposal displaces at most
    one proposer, so the chain needs no stack.  Returns ``(held, nxt)``.
    """
    return _run(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop, n_p, n_a,
                max_level, False)


def gale_shapley(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop,
                 n_p, n_a, max_level):
    """Gale-Shapley with a FIFO queue of free proposers.  Returns ``(held, nxt)``."""
    return _run(p_off, p_step, p_tgt, p_key, k_entry, k_prop, a_off, a_step, a_prop, n_p, n_a,
                max_level, True)


@njit(cache=True)
def mates_from_held_cpu(held, a_off, a_step, a_prop, n_p):
    """``preferences.mates_from_held`` in one pass."""
    mate = np.full(n_p, _NONE, dtype=np.int64)
    for a in range(held.shape[0]):
        if held[a] != SENTINEL:
            mate[a_prop[a_off[a * a_step] + (held[a] & (LEVEL_BIAS - 1))]] = a
    return mate
