"""The numba kernels a worker runs on its part of a distributed graph.

A worker owns a contiguous range ``[own_lo, own_hi)`` of its local vertex
ids (its share of the caller's ids, in sorted order) and keeps the ghost
endpoints of its cut edges beside them.  Its preference rows
(``structure.csr.preference_csr`` over the local graph) carry local edge
keys; since local ids are in the caller's sorted order and every edge at a
vertex lives in its owner's part, the local keys order the edges at any
owned vertex exactly as the global greedy order does.  So every comparison
of two offers happens on the worker that owns the vertex holding them, with
the single-machine offer word ``key << 32 | proposer``.

Workers name a cut edge by its place in the list of cut edges between the
two of them, sorted by (max, min) id: both sides sort the same edges by the
same order, so a message is one 32-bit word, ``place << 2 | kind``.

The superstep is b-Suitor (Khan et al.) with the owner of the proposed-to
vertex deciding: a proposal to a ghost is sent to its owner and the proposer
waits; the owner places it, or sends back a *release* (refused, or later
displaced), after which the proposer goes on down its row.  The greedy
b-matching is the unique stable outcome whatever the order of proposals, so
the result equals the single-machine one.
"""

import numpy as np
from numba import njit

from ..structure.heap import heap_replace_root

_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)
PROPOSE = 0
RELEASE = 1
CLOSED = 2
_REFUSED = -2
_TAKEN_FREE = -1


@njit(cache=True, nogil=True, inline="always")
def _place(p, word, slot_start, slots):
    """Offer ``word`` to owned vertex p: -1 taken into a free slot, -2 refused,
    else the displaced proposer (p's weakest offer, which ``word`` beats).
    Free slots are 0 words in p's full min-heap (an all-zero slice is a
    valid heap, as in the GPU kernels), so taking a free slot is replacing a
    0 root, and no count of held offers is read."""
    base = slot_start[p]
    cap = slot_start[p + 1] - base
    if cap == 0:
        return np.int64(_REFUSED)
    root = slots[base]
    if word <= root:
        return np.int64(_REFUSED)
    heap_replace_root(slots, base, cap, word)
    if root == 0:
        return np.int64(_TAKEN_FREE)
    return np.int64(root & _LOW)


@njit(cache=True, nogil=True, inline="always")
def _pair_word(a, b):
    """``max << 32 | min``: cut edges sort by it within one other worker's share."""
    return (np.uint64(max(a, b)) << _SHIFT) | np.uint64(min(a, b))


@njit(cache=True, nogil=True, inline="always")
def _cut_place(cut_start, cut_own, cut_ghost, k, a, b):
    """Place of cut edge (a, b) in the list shared with worker k: a binary
    search of the list's (max, min) pairs, made from its two ends as it
    reads them (no array of pairs kept: 8 bytes per cut edge)."""
    pair = _pair_word(a, b)
    start = cut_start[k]
    stop = cut_start[k + 1]
    while start < stop:  # lower bound
        mid = (start + stop) >> 1
        if _pair_word(cut_own[mid], cut_ghost[mid]) < pair:
            start = mid + 1
        else:
            stop = mid
    return start - cut_start[k]


@njit(cache=True, nogil=True)
def _grown(out_w, out_m, n_out, size):
    """The message buffers grown to hold at least ``size`` words (doubled at
    least), their first ``n_out`` kept."""
    size = max(size, 2 * out_w.shape[0] + 16)
    bigger_w = np.empty(size, dtype=out_w.dtype)
    bigger_w[:n_out] = out_w[:n_out]
    bigger_m = np.empty(size, dtype=out_m.dtype)
    bigger_m[:n_out] = out_m[:n_out]
    return bigger_w, bigger_m


@njit(cache=True, nogil=True, inline="always")
def _worker_of_cut(cut_start, c):
    """The worker whose share of the cut-edge list holds cut edge ``c``: the
    last k with ``cut_start[k] <= c`` (an empty share starts where the next
    begins, so it is never the last such).  ``cut_start`` is p + 1 words, in
    cache, where an owner lookup of the ghost end is a random read."""
    lo = 0
    hi = cut_start.shape[0]
    while lo < hi:  # upper bound of c
        mid = (lo + hi) >> 1
        if cut_start[mid] <= c:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(cache=True, nogil=True)
def superstep(offsets, indices, keys, slot_start, slots, next_edge, owner_of, me, own_lo, own_hi,
              cut_start, cut_own, cut_ghost, cut_key, entry_cut, out_pending, floor,
              open_until, quiet, first, closing, in_worker, in_word, out_w, out_m):
    """One superstep of distributed b-Suitor on this worker's part.

    ``first``: every owned vertex owes as many proposals as it has slots
    (the first superstep; ``closing`` then lists those of capacity 0 with
    edges); ``in_worker[t]``/``in_word[t]`` are the incoming messages
    (sender, ``place << 2 | kind``).  Returns the outgoing messages as
    ``(worker, word)`` buffers (grown when full; the first ``count`` entries
    are this superstep's), ``count`` and the number of local proposals made.
    State (``slots``, ``next_edge``, ``out_pending``, ``floor``,
    ``open_until``) is updated in place; ``quiet[v]`` is true for the local
    vertices without a cut edge (and the ghosts).

    Besides proposals and releases, a worker tells the proposer's worker
    when a cut edge has *closed*: its owned end v is full and holds only
    offers better than that edge, so any proposal along it would be refused
    (offers only get better).  A vertex's row is best first, so its closed
    entries are a suffix, which ``open_until[v]`` marks and which only
    grows: a binary search of the row's keys for the weakest offer finds its
    new start.  Closing edge c closes every edge at v ranked below c too
    (v's weakest offer is above them all), so one notice per (vertex,
    worker) each time the suffix grows suffices: it names the best cut edge
    to that worker among the newly closed entries, and the
    receiver raises ``floor[v]`` (key + 1 of the best closed edge at ghost v;
    its local keys order the edges at v as the sender's do) and skips every
    entry to v with a key below it without asking.  Measured at R-MAT 20 on
    2 workers: the first superstep's notices fell from one per cut edge
    (6.5 M words a worker) to one per such vertex.  A per-edge notice (the
    GPU kernels send those) means the same to the receiver.
    """
    # Every owed proposal and every incoming message puts at most one vertex
    # on the stack, and a pop puts at most one back (the proposer it
    # displaced): the stack never outgrows their count.  Each owned vertex
    # is listed in ``changed`` once.  So both are sized here, and the hot
    # loop appends with plain stores.
    n = slot_start.shape[0] - 1
    owed = slot_start[n] if first else 0
    stack = np.empty(owed + in_word.shape[0] + 1, dtype=np.int64)
    top = 0
    if first:  # each owned vertex once per slot, in id order
        for v in range(own_lo, own_hi):
            for _ in range(slot_start[v], slot_start[v + 1]):
                stack[top] = v
                top += 1
    changed = np.empty(n, dtype=np.int64)  # owned vertices whose weakest offer rose
    # each listed once: a vertex taking many offers in one superstep would
    # otherwise be listed once per offer (the list grew to the row entries);
    # a vertex without a cut edge (``quiet``) is never listed: it has no
    # notice to send, and most vertices of a graph with locality are such
    listed = quiet.copy()
    n_changed = 0
    for t in range(closing.shape[0]):  # capacity 0: closed to everyone from the start
        listed[closing[t]] = True
        changed[n_changed] = closing[t]
        n_changed += 1
    n_out = 0
    # Every incoming message, and every pop of the stack, sends one word or
    # pushes one vertex, never both: so before the closed notices this
    # superstep sends at most owed + incoming words, and the buffers are
    # grown to that here, once.  Growing them inside the loops (the arrays
    # reassigned there) made Numba count references to them at every step
    # of the proposal loop: measured, NRT_decref was half of the supersteps'
    # time, 0.41 -> 0.13 CPU s on the 2048^2 grid on 2 workers.
    if out_w.shape[0] < owed + in_word.shape[0]:
        out_w, out_m = _grown(out_w, out_m, n_out, owed + in_word.shape[0])
    workers = cut_start.shape[0] - 1
    best_closed = np.full(workers, -1, dtype=np.int64)  # per vertex: cut edge named to k
    told = np.empty(workers, dtype=np.int64)  # the workers a vertex names one to
    for t in range(in_worker.shape[0]):
        k = in_worker[t]
        place = np.int64(in_word[t] >> 2)
        kind = in_word[t] & 3
        c = cut_start[k] + place
        if kind == PROPOSE:
            g = cut_ghost[c]
            p = cut_own[c]
            word = (np.uint64(cut_key[c]) << _SHIFT) | np.uint64(g)
            r = _place(p, word, slot_start, slots)
            if r == _REFUSED:
                out_w[n_out] = k
                out_m[n_out] = np.uint32((place << 2) | RELEASE)
                n_out += 1
            else:
                if not listed[p]:
                    listed[p] = True
                    changed[n_changed] = p
                    n_changed += 1
                if r >= 0:
                    if r >= own_lo and r < own_hi:
                        stack[top] = r
                        top += 1
                    else:
                        k2 = owner_of[r]
                        out_w[n_out] = k2
                        out_m[n_out] = np.uint32(
                            (_cut_place(cut_start, cut_own, cut_ghost, k2, r, p) << 2) | RELEASE)
                        n_out += 1
        elif kind == RELEASE:
            out_pending[c] = False
            stack[top] = cut_own[c]
            top += 1
        else:
            g = cut_ghost[c]
            level = np.uint32(cut_key[c]) + np.uint32(1)
            if level > floor[g]:
                floor[g] = level
    proposals = 0
    while top > 0:
        top -= 1
        u = stack[top]
        j = next_edge[u]
        end = offsets[u + 1]
        while j < end:
            p = indices[j]
            if p < own_lo or p >= own_hi:  # a ghost (owned ids are a range): its owner decides
                k = owner_of[p]
                if keys[j] < floor[p]:  # closed: p would refuse it
                    j += 1
                    continue
                c = entry_cut[j]
                place = c - cut_start[k]
                out_pending[c] = True
                out_w[n_out] = k
                out_m[n_out] = np.uint32((place << 2) | PROPOSE)
                n_out += 1
                j += 1
                break
            proposals += 1
            word = (np.uint64(keys[j]) << _SHIFT) | np.uint64(u)
            r = _place(p, word, slot_start, slots)
            if r != _REFUSED:
                j += 1
                if not listed[p]:
                    listed[p] = True
                    changed[n_changed] = p
                    n_changed += 1
                if r >= 0:
                    if r >= own_lo and r < own_hi:
                        stack[top] = r
                        top += 1
                    else:
                        k2 = owner_of[r]
                        out_w[n_out] = k2
                        out_m[n_out] = np.uint32(
                            (_cut_place(cut_start, cut_own, cut_ghost, k2, r, p) << 2) | RELEASE)
                        n_out += 1
                break
            j += 1
        next_edge[u] = j
    # at most one notice per listed vertex and other worker: room for them
    # made once, as above
    if out_w.shape[0] - n_out < (workers - 1) * n_changed:
        out_w, out_m = _grown(out_w, out_m, n_out, n_out + (workers - 1) * n_changed)
    for t in range(n_changed):
        v = changed[t]
        base = slot_start[v]
        cap = slot_start[v + 1] - base
        if cap == 0:
            weakest = np.uint32(0xFFFFFFFF)  # above every key
        elif slots[base] == 0:  # a free slot
            continue
        else:
            weakest = np.uint32(slots[base] >> _SHIFT)
        # the row's open entries end where its keys fall below the weakest
        # offer: a binary search (keys fall along a row), not a walk back
        # over every newly closed entry (measured at R-MAT 20 on 2 workers:
        # the walk, with an owner lookup per cut entry, was 0.35 of the
        # supersteps' 0.78 CPU s)
        end = open_until[v]
        lo = offsets[v]
        hi = end
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[mid] < weakest:
                hi = mid
            else:
                lo = mid + 1
        open_until[v] = lo
        # the newly closed entries are [lo, end); the notice to worker k
        # names the first cut edge to k among them (the best: rows are best
        # first), so a forward scan stops once every other worker is named
        n_told = 0
        for j in range(lo, end):
            c = entry_cut[j]
            if c >= 0:
                k = _worker_of_cut(cut_start, c)
                if best_closed[k] < 0:
                    best_closed[k] = c
                    told[n_told] = k
                    n_told += 1
                    if n_told == workers - 1:
                        break
        for i in range(n_told):
            k = told[i]
            out_w[n_out] = k
            out_m[n_out] = np.uint32(((best_closed[k] - cut_start[k]) << 2) | CLOSED)
            n_out += 1
            best_closed[k] = -1
    return out_w, out_m, n_out, proposals


@njit(cache=True, nogil=True)
def slot_starts(offsets, cap_owned, own_lo, own_hi, slot_start):
    """Each owned vertex's slots, its capacity clipped to its degree, as
    starts into one slot array (``slot_start``, zeros of length n + 1,
    written; a ghost has none); returns the owned vertices of capacity 0
    with edges (closed to everyone from the start)."""
    n = slot_start.shape[0] - 1
    total = 0
    closing = 0
    for v in range(own_lo, own_hi):
        degree = offsets[v + 1] - offsets[v]
        cap = min(cap_owned[v - own_lo], degree)
        closing += (cap == 0) & (degree > 0)
        total += cap
        slot_start[v + 1] = total
    for v in range(own_hi, n):
        slot_start[v + 1] = total
    out = np.empty(closing, dtype=np.int64)
    at = 0
    for v in range(own_lo, own_hi):
        if slot_start[v + 1] == slot_start[v] and offsets[v + 1] > offsets[v]:
            out[at] = v
            at += 1
    return out


@njit(cache=True, nogil=True)
def quiet_vertices(offsets, entry_cut, own_lo, own_hi):
    """True for the local vertices with no cut edge in their row (every
    ghost, whose row is empty here): they never send a closed notice."""
    quiet = np.ones(offsets.shape[0] - 1, dtype=np.bool_)
    for r in range(own_lo, own_hi):
        for j in range(offsets[r], offsets[r + 1]):
            if entry_cut[j] >= 0:
                quiet[r] = False
                break
    return quiet


@njit(cache=True, nogil=True)
def matched_pairs(slots, slot_start, own_lo, own_hi, cut_own, cut_ghost, out_pending):
    """The b-matching edges at this worker's vertices: (lo, hi, key) in local
    ids, sorted, each once (a cut edge appears at both its workers).  (p, q) is matched when each holds the
    other's offer; that q (a ghost) holds p's offer is ``out_pending`` of
    their cut edge once no message is in flight."""
    n = slot_start.shape[0] - 1
    # holders of each owned vertex's offer: owned holders from the slots,
    # ghost holders from the pending proposals
    holder_start = np.zeros(n + 1, dtype=np.int64)
    for q in range(own_lo, own_hi):
        for s in range(slot_start[q], slot_start[q + 1]):
            if slots[s] != 0:
                u = np.int64(slots[s] & _LOW)
                if u >= own_lo and u < own_hi:
                    holder_start[u + 1] += 1
    for c in range(cut_own.shape[0]):
        if out_pending[c]:
            holder_start[cut_own[c] + 1] += 1
    for u in range(n):
        holder_start[u + 1] += holder_start[u]
    fill = holder_start[:-1].copy()
    holder = np.empty(holder_start[n], dtype=np.int64)
    for q in range(own_lo, own_hi):
        for s in range(slot_start[q], slot_start[q + 1]):
            if slots[s] != 0:
                u = np.int64(slots[s] & _LOW)
                if u >= own_lo and u < own_hi:
                    holder[fill[u]] = q
                    fill[u] += 1
    for c in range(cut_own.shape[0]):
        if out_pending[c]:
            holder[fill[cut_own[c]]] = cut_ghost[c]
            fill[cut_own[c]] += 1
    stamp = np.full(n, -1, dtype=np.int64)
    stamp_key = np.zeros(n, dtype=np.uint32)
    size = holder.shape[0] + 1
    lo = np.empty(size, dtype=np.int64)
    hi = np.empty(size, dtype=np.int64)
    key = np.empty(size, dtype=np.uint32)
    count = 0
    for p in range(own_lo, own_hi):
        for s in range(slot_start[p], slot_start[p + 1]):
            if slots[s] != 0:
                q = np.int64(slots[s] & _LOW)
                stamp[q] = p  # p holds q's offer
                stamp_key[q] = np.uint32(slots[s] >> _SHIFT)
        for h in range(holder_start[p], holder_start[p + 1]):
            q = holder[h]  # q holds p's offer
            ghost = q < own_lo or q >= own_hi
            if (q > p or ghost) and stamp[q] == p:
                lo[count] = min(p, q)
                hi[count] = max(p, q)
                key[count] = stamp_key[q]
                count += 1
    lo, hi, key = lo[:count], hi[:count], key[:count]
    order = np.argsort((lo.astype(np.uint64) << _SHIFT) | hi.astype(np.uint64))
    return lo[order], hi[order], key[order]


@njit(cache=True, nogil=True)
def owned_mates(slots, slot_start, own_lo, own_hi, cut_own, cut_ghost, out_pending, mate, key):
    """:func:`matched_pairs` for a matching (at most one slot per vertex),
    written per owned vertex: ``mate[p - own_lo]`` the local id of p's
    mate (left as it is when p is unmatched), ``key`` their edge's.  p and q
    are matched when each holds the other's offer; a ghost q holds p's
    offer when p's proposal along their cut edge is pending (``out_pending``)."""
    for p in range(own_lo, own_hi):
        s = slot_start[p]
        if slot_start[p + 1] == s or slots[s] == 0:
            continue
        q = np.int64(slots[s] & _LOW)
        if q >= own_lo and q < own_hi:
            t = slot_start[q]
            if slot_start[q + 1] > t and slots[t] != 0 and np.int64(slots[t] & _LOW) == p:
                mate[p - own_lo] = q
                key[p - own_lo] = np.uint32(slots[s] >> _SHIFT)
    for c in range(cut_own.shape[0]):
        if out_pending[c]:
            u = np.int64(cut_own[c])
            s = slot_start[u]
            if slot_start[u + 1] > s and slots[s] != 0 and \
                    np.int64(slots[s] & _LOW) == np.int64(cut_ghost[c]):
                mate[u - own_lo] = cut_ghost[c]
                key[u - own_lo] = np.uint32(slots[s] >> _SHIFT)


@njit(cache=True, nogil=True)
def modularity_sums(offsets, indices, keys, weight_of_key, loop, code, own_lo, own_hi):
    """This worker's share of modularity: total weight and weight inside
    communities of the edges whose smaller end it owns (self-loops once), and
    every owned vertex's weighted degree (a self-loop twice)."""
    total = 0.0
    inside = 0.0
    degree = np.zeros(own_hi - own_lo, dtype=np.float64)
    for r in range(own_lo, own_hi):
        d = 2.0 * loop[r]
        total += loop[r]
        inside += loop[r]
        for j in range(offsets[r], offsets[r + 1]):
            x = indices[j]
            w = weight_of_key[keys[j]]
            d += w
            if x > r:
                total += w
                if code[x] == code[r]:
                    inside += w
        degree[r - own_lo] = d
    return total, inside, degree
