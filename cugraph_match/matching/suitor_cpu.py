"""Sequential Suitor on the CPU (numba.njit).

The state is one uint64 per vertex, ``offer[v] = key << 32 | proposer``: the
best proposal v holds, 0 when none.  See ``core.weight_keys`` for why a plain
integer comparison of these words is the tie-breaking order.
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
    are in preference order (``core.build_csr``) and offers only grow, so a
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
def mates_from_offers_cpu(offer):
    """``core.mates_from_offers`` in one pass (NumPy's eight passes dominate on small graphs)."""
    n = offer.shape[0]
    mate = np.full(n, -1, dtype=np.int64)
    for u in range(n):
        if offer[u] != 0:
            s = np.int64(offer[u] & _LOW)
            if np.int64(offer[s] & _LOW) == u and offer[s] != 0:
                mate[u] = s
    return mate
