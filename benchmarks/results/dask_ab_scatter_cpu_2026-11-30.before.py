"""The owned rows' scatter as it was before 453e696 (its entries placed
through the ``_place_entry`` helper), for ``benchmarks/dask_ab.py --setting
functions``: ``cugraph_match.dask.build``'s ``_scatter_owned`` and
``_scatter_owned_in_order`` as of ab976d5, not cached."""

import numpy as np
from numba import njit


@njit(nogil=True, inline="always")
def _place_entry(row, other, key, c, cursor, indices, keys, entry_cut):
    """Owned ``row``'s next entry: neighbour ``other``, the edge's key, its cut edge."""
    at = cursor[row]
    indices[at] = other
    keys[at] = key
    if c >= 0:  # the rest stays -1 (filled in order beforehand: no cache miss here)
        entry_cut[at] = c
    cursor[row] = at + 1


@njit(nogil=True)
def _scatter_owned(ascending_pairs, cut_ascending, bits, own_lo, own_hi, offsets, indices, keys,
                   cut_key, entry_cut):
    """``pipeline_cpu.scatter_preference_pairs`` writing owned rows only:
    edge g of the greedy order (the ascending order read backwards) gets key
    ``m - g`` and goes to the rows of its owned ends, each row best first; a
    cut edge's key and its owned end's entry are written as it is placed.
    ``cut_ascending`` empty: each word carries its cut number + 1 above the
    pair (:func:`_join_pair_cut`)."""
    m = ascending_pairs.shape[0]
    mask = (np.uint64(1) << bits) - np.uint64(1)
    carried = cut_ascending.shape[0] == 0
    cut_shift = bits + bits
    cursor = offsets[:-1].copy()
    for g in range(m):
        p = ascending_pairs[m - 1 - g]
        if carried:
            c = np.int64(p >> cut_shift) - 1
        else:
            c = np.int64(cut_ascending[m - 1 - g])
        a = np.int64(p & mask)
        b = np.int64((p >> bits) & mask)
        key = m - g
        if c >= 0:
            cut_key[c] = key
        if a >= own_lo and a < own_hi:
            _place_entry(a, b, key, c, cursor, indices, keys, entry_cut)
        if b >= own_lo and b < own_hi:
            _place_entry(b, a, key, c, cursor, indices, keys, entry_cut)


@njit(nogil=True)
def _scatter_owned_in_order(lo, hi, owner_of, cut_start, own_lo, own_hi, offsets, indices, keys,
                            cut_key, entry_cut):
    """:func:`_scatter_owned` for unweighted edges: the greedy order is the
    edge set's (max, min) order read backwards, so edge e is read in place
    (key ``e + 1``) and a cut edge's number is counted down from the end of
    its ghost owner's share (:func:`_number_cut_edges` counts up in the
    forward order)."""
    m = lo.shape[0]
    cursor = offsets[:-1].copy()
    below = cut_start[1:].copy()  # per owner: the number of the last cut edge met, going back
    for g in range(m):
        e = m - 1 - g
        a = lo[e]
        b = hi[e]
        key = m - g
        a_owned = a >= own_lo and a < own_hi
        b_owned = b >= own_lo and b < own_hi
        c = -1
        if a_owned != b_owned:
            k = owner_of[b] if a_owned else owner_of[a]
            c = below[k] - 1
            below[k] = c
            cut_key[c] = key
        if a_owned:
            _place_entry(a, b, key, c, cursor, indices, keys, entry_cut)
        if b_owned:
            _place_entry(b, a, key, c, cursor, indices, keys, entry_cut)

