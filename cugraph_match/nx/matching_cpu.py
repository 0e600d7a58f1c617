"""The CPU kernel of the NetworkX backend's ``maximal_matching`` (numba.njit)."""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def greedy_matching_in_order(src, dst, n):
    """``mate`` (-1 unmatched) of the greedy matching that takes the pairs
    ``(src[e], dst[e])`` in order and keeps each whose ends are both free
    (self-loops never).  On the CPU this single pass is the whole algorithm;
    Suitor finds the same matching only after sorting the edges by weight."""
    mate = np.full(n, -1, dtype=np.int64)
    for e in range(src.shape[0]):
        u = src[e]
        v = dst[e]
        if u != v and mate[u] < 0 and mate[v] < 0:
            mate[u] = v
            mate[v] = u
    return mate
