"""Sequential b-Suitor on the CPU (numba.njit).

Vertex p holds up to ``cap[p]`` offers, each a uint64 ``key << 32 | proposer``
(see ``structure.csr``: keys are unique per edge, so one integer comparison orders offers).  The
offers p holds live in ``slots[slot_start[p]:slot_start[p + 1]]`` as a binary
min-heap, so the weakest held offer, the one a newcomer must beat, is the
root: O(1) to test, O(log b) to replace.  ``cap`` is already clipped to the
degree, so a slot array never outgrows the edge count.
"""

import numpy as np
from numba import njit

from ..structure.heap import heap_push, heap_replace_root

_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


@njit(cache=True, nogil=True)
def _propose_once(u, offsets, indices, keys, slot_start, held, slots, next_edge):
    """Place one offer of ``u`` with the best neighbour that accepts it.

    Returns the displaced proposer, -1 when the offer took a free slot, or -2
    when nobody left on u's list would accept it.  Rows are in preference
    order and a vertex's weakest held offer only grows, so a neighbour that
    refuses ``u`` once refuses it forever: one pointer per vertex suffices.
    """
    j = next_edge[u]
    end = offsets[u + 1]
    while j < end:
        p = indices[j]
        cap = slot_start[p + 1] - slot_start[p]
        if cap > 0:
            word = (np.uint64(keys[j]) << _SHIFT) | np.uint64(u)
            base = slot_start[p]
            if held[p] < cap:
                heap_push(slots, base, held[p], word)
                held[p] += 1
                next_edge[u] = j + 1
                return np.int64(-1)
            if word > slots[base]:
                displaced = np.int64(slots[base] & _LOW)
                heap_replace_root(slots, base, cap, word)
                next_edge[u] = j + 1
                return displaced
        j += 1
    next_edge[u] = end
    return np.int64(-2)


@njit(cache=True, nogil=True)
def b_suitor_slots(offsets, indices, keys, slot_start, eager):
    """Run b-Suitor; return ``slots`` (the offers each vertex holds, 0 = empty).

    ``eager`` re-proposes for a displaced vertex at once (McVitie-Wilson, a
    chain on one stack); otherwise displaced vertices wait in a FIFO queue
    (Gale-Shapley, "delayed" rounds).  Both end in the same state: the
    greedy b-matching is the unique stable outcome.
    """
    n = offsets.shape[0] - 1
    slots = np.zeros(slot_start[n], dtype=np.uint64)
    held = np.zeros(n, dtype=np.int64)
    next_edge = offsets[:-1].astype(np.int64)
    if eager:
        for u in range(n):
            for _ in range(slot_start[u + 1] - slot_start[u]):
                current = np.int64(u)
                while current >= 0:  # the chain of displacements
                    current = _propose_once(current, offsets, indices, keys, slot_start,
                                            held, slots, next_edge)
        return slots
    # Delayed: a FIFO of outstanding offers.  Each entry is one offer owed by a
    # vertex; at most cap(u) initial entries per vertex plus one per eviction.
    queue = np.empty(max(slot_start[n], 1), dtype=np.int64)
    head = 0
    tail = 0
    size = queue.shape[0]
    for u in range(n):
        for _ in range(slot_start[u + 1] - slot_start[u]):
            queue[tail % size] = u
            tail += 1
    # Outstanding offers never exceed the total capacity, so the ring never overflows.
    while head < tail:
        u = queue[head % size]
        head += 1
        displaced = _propose_once(u, offsets, indices, keys, slot_start, held, slots, next_edge)
        if displaced >= 0:
            queue[tail % size] = displaced
            tail += 1
    return slots


@njit(cache=True, nogil=True)
def matched_pairs_cpu(slots, slot_start):
    """The b-matching from the final offers: (p, q) with q in S(p) and p in S(q).

    At termination the offer sets are symmetric (each edge of the greedy
    b-matching is both ends' choice); requiring both directions keeps the
    output a valid b-matching even if that ever failed.  Linear time: the
    holders of each vertex's offers are bucketed (a counting sort), then for
    each p the vertices p holds are stamped and p's holders looked up.
    Returns (lo, hi, key) with lo < hi and the edge's weight key, sorted.
    """
    n = slot_start.shape[0] - 1
    # holder_start/holder: for each u, the vertices q holding u's offer, q ascending
    holder_start = np.zeros(n + 1, dtype=np.int64)
    for s in range(slots.shape[0]):
        if slots[s] != 0:
            holder_start[np.int64(slots[s] & _LOW) + 1] += 1
    for u in range(n):
        holder_start[u + 1] += holder_start[u]
    fill = holder_start[:-1].copy()
    holder = np.empty(holder_start[n], dtype=np.int64)
    holder_key = np.empty(holder_start[n], dtype=np.uint32)
    for q in range(n):
        for s in range(slot_start[q], slot_start[q + 1]):
            if slots[s] != 0:
                u = np.int64(slots[s] & _LOW)
                holder[fill[u]] = q
                holder_key[fill[u]] = np.uint32(slots[s] >> _SHIFT)
                fill[u] += 1
    stamp = np.full(n, -1, dtype=np.int64)
    lo = np.empty(holder.shape[0] // 2 + 1, dtype=np.int64)
    hi = np.empty(holder.shape[0] // 2 + 1, dtype=np.int64)
    key = np.empty(holder.shape[0] // 2 + 1, dtype=np.uint32)
    count = 0
    for p in range(n):
        for s in range(slot_start[p], slot_start[p + 1]):
            if slots[s] != 0:
                stamp[np.int64(slots[s] & _LOW)] = p  # p holds this vertex's offer
        for h in range(holder_start[p], holder_start[p + 1]):
            q = holder[h]  # q holds p's offer
            if q > p and stamp[q] == p:
                lo[count] = p
                hi[count] = q
                key[count] = holder_key[h]
                count += 1
    return lo[:count], hi[:count], key[:count]
