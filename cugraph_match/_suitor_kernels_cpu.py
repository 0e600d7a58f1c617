"""Sequential Suitor on the CPU (numba.njit).

The state is one uint64 per vertex, ``offer[v] = key << 32 | proposer``: the
best proposal v holds, 0 when none.  See ``core.weight_keys`` for why a plain
integer comparison of these words is the tie-breaking order.
"""

import numpy as np
from numba import njit

_LOW = np.uint64(0xFFFFFFFF)
_HIGH = np.uint64(0xFFFFFFFF00000000)
_SHIFT = np.uint64(32)


@njit(cache=True, nogil=True)
def suitor_offers(offsets, indices, keys):
    """Run Suitor (McVitie-Wilson on the graph) and return the final offers.

    Each vertex proposes to the neighbour it ranks highest among those whose
    held offer it beats; a displaced proposer proposes again at once.  With
    no concurrency every proposal succeeds, so there is no retry path.
    """
    n = offsets.shape[0] - 1
    offer = np.zeros(n, dtype=np.uint64)
    for start in range(n):
        current = start
        while True:
            best = np.uint64(0)  # key << 32 | neighbour, as `current` ranks them
            target = -1
            for j in range(offsets[current], offsets[current + 1]):
                v = indices[j]
                key = np.uint64(keys[j]) << _SHIFT
                ranked = key | np.uint64(v)
                if ranked > best and (key | np.uint64(current)) > offer[v]:
                    best = ranked
                    target = v
            if target < 0:
                break  # nobody left who would accept `current`
            displaced = offer[target]
            offer[target] = (best & _HIGH) | np.uint64(current)
            if displaced == 0:
                break
            current = np.int64(displaced & _LOW)
    return offer
