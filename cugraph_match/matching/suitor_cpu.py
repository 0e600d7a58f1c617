"""Sequential Suitor on the CPU (numba.njit).

The state is one uint64 per vertex, ``offer[v] = key << 32 | proposer``: the
best proposal v holds, 0 when none.  Keys are unique per edge and larger for
better edges (``structure.csr``), so comparing words compares offers.
"""

import numpy as np
from numba import njit

_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


@njit(cache=True, nogil=True)
def suitor_offers(offsets, indices, keys):
    """Run Suitor (McVitie-Wilson on the graph) and return the final offers.

    Each vertex proposes to the neighbour it ranks highest among those whose
    held offer it beats; a displaced proposer proposes again at once.  Rows
    are in preference order (``structure.csr.preference_csr``) and offers only grow, so a
    neighbour that refuses once refuses forever: each vertex keeps a pointer
    into its row and the whole run reads every entry about once.  With no
    concurrency every proposal succeeds, so there is no retry path.
    """
    n = offsets.shape[0] - 1
    offer = np.zeros(n, dtype=np.uint64)
    next_edge = offsets[:-1].astype(np.int64)
    for start in range(n):
        current = start
        while True:
            j = next_edge[current]
            end = offsets[current + 1]
            word = np.uint64(0)
            while j < end:
                word = (np.uint64(keys[j]) << _SHIFT) | np.uint64(current)
                if word > offer[indices[j]]:
                    break
                j += 1
            if j == end:
                next_edge[current] = end
                break  # nobody left who would accept `current`
            next_edge[current] = j + 1  # the target will only ever hold better offers
            target = indices[j]
            displaced = offer[target]
            offer[target] = word
            if displaced == 0:
                break
            current = np.int64(displaced & _LOW)
    return offer


@njit(cache=True, nogil=True)
def suitor_scan(offsets, indices, weights):
    """Suitor as the paper states it, on rows in any order (the neighbour rows):
    every proposal scans the proposer's whole row for the best neighbour whose
    held offer it beats.  O(m·Δ) in the worst case; kept to measure against
    :func:`suitor_offers`, which walks preference rows with a pointer.

    Offers compare as (weight, proposer): at equal weight the larger
    proposer wins, which at a fixed vertex is the project's tie order.  An
    empty ``weights`` means every weight is 1.  Returns ``mate`` (-1 when
    unmatched).
    """
    n = offsets.shape[0] - 1
    weighted = weights.shape[0] > 0
    held_w = np.zeros(n, dtype=np.float64)
    held_from = np.full(n, -1, dtype=np.int64)
    for start in range(n):
        current = start
        while current >= 0:
            best = -1
            best_w = 0.0
            for j in range(offsets[current], offsets[current + 1]):
                x = indices[j]
                w = np.float64(weights[j]) if weighted else 1.0
                # would x take current's offer, and is x the best such so far?
                if w > held_w[x] or (w == held_w[x] and current > held_from[x]):
                    if best < 0 or w > best_w or (w == best_w and x > best):
                        best, best_w = x, w
            if best < 0:
                break
            displaced = held_from[best]
            held_w[best] = best_w
            held_from[best] = current
            current = displaced
    mate = np.full(n, -1, dtype=np.int64)
    for v in range(n):
        s = held_from[v]
        if s >= 0 and held_from[s] == v:
            mate[v] = s
    return mate
