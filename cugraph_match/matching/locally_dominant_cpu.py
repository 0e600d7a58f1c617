"""Locally-dominant matching on the CPU: bulk-synchronous rounds with prange.

Every round works on a list of unmatched vertices whose candidate must be
(re)computed; the writes of one round never conflict, so no atomics are
needed (the two vertices of a mutual pair write the same values).  Each step
is its own parallel function; the driver loop is sequential.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def _heaviest_unmatched(v, offsets, indices, mate, next_edge):
    """First unmatched neighbour in v's row (rows are in preference order).

    Matched vertices stay matched, so the pointer only moves forward.
    """
    j = next_edge[v]
    end = offsets[v + 1]
    while j < end and mate[indices[j]] >= 0:
        j += 1
    next_edge[v] = j
    return indices[j] if j < end else -1


@njit(cache=True, nogil=True)
def _exclusive_prefix_sum(counts):
    out = np.empty(counts.shape[0] + 1, dtype=np.int64)
    total = 0
    for i in range(counts.shape[0]):
        out[i] = total
        total += counts[i]
    out[counts.shape[0]] = total
    return out


@njit(cache=True, parallel=True)
def _point(work, offsets, indices, mate, candidate, in_work, next_edge):
    for t in prange(work.shape[0]):
        v = work[t]
        in_work[v] = True
        candidate[v] = _heaviest_unmatched(v, offsets, indices, mate, next_edge)


@njit(cache=True, parallel=True)
def _match_mutual(work, candidate, mate, in_work):
    """Match mutual pointers; return the newly matched vertices, each once.

    Each vertex of a pair that is in ``work`` enqueues itself, and also its
    partner when the partner is not in ``work``.
    """
    size = work.shape[0]
    adds = np.zeros(size, dtype=np.int64)
    for t in prange(size):
        v = work[t]
        partner = candidate[v]
        if partner >= 0 and candidate[partner] == v:
            mate[v] = partner
            mate[partner] = v
            adds[t] = 1 if in_work[partner] else 2
    slot = _exclusive_prefix_sum(adds)
    matched = np.empty(slot[size], dtype=np.int64)
    for t in prange(size):
        if adds[t] > 0:
            matched[slot[t]] = work[t]
            if adds[t] == 2:
                matched[slot[t] + 1] = candidate[work[t]]
    for t in prange(size):
        in_work[work[t]] = False
    return matched


@njit(cache=True, parallel=True)
def _next_work(matched, offsets, indices, mate, candidate):
    """Unmatched vertices that pointed at a newly matched one.

    Each such x is found exactly once, from its own candidate.
    """
    m = matched.shape[0]
    counts = np.zeros(m, dtype=np.int64)
    for t in prange(m):
        u = matched[t]
        found = 0
        for j in range(offsets[u], offsets[u + 1]):
            x = indices[j]
            if mate[x] < 0 and candidate[x] == u:
                found += 1
        counts[t] = found
    starts = _exclusive_prefix_sum(counts)
    work = np.empty(starts[m], dtype=np.int64)
    for t in prange(m):
        u = matched[t]
        k = starts[t]
        for j in range(offsets[u], offsets[u + 1]):
            x = indices[j]
            if mate[x] < 0 and candidate[x] == u:
                work[k] = x
                k += 1
    return work


@njit(cache=True)
def locally_dominant_mates(offsets, indices):
    """Return ``mate`` (-1 when unmatched) and the number of rounds taken.

    Rows must be in preference order (``structure.csr.preference_csr``); the weights are
    then implicit in the order.
    """
    n = offsets.shape[0] - 1
    mate = np.full(n, -1, dtype=np.int64)
    candidate = np.full(n, -1, dtype=np.int64)
    in_work = np.zeros(n, dtype=np.bool_)
    work = np.arange(n, dtype=np.int64)
    next_edge = offsets[:-1].astype(np.int64)
    rounds = 0
    while work.shape[0] > 0:
        rounds += 1
        _point(work, offsets, indices, mate, candidate, in_work, next_edge)
        matched = _match_mutual(work, candidate, mate, in_work)
        work = _next_work(matched, offsets, indices, mate, candidate)
    return mate, rounds
