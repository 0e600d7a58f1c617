"""Preference lists -> rank-inverted CSRs on the CPU (numba.njit), in linear
passes plus per-list sorts.

The join is the position-array scheme of Manne et al. (CSC 2016): for each
proposer, tag every acceptor that ranked him with his position in her list,
then walk his own list and keep the entries whose acceptor carries his tag.
No global sort, so an instance with tens of millions of entries is built in
a second or two instead of the minute NumPy's sorts would take.  The result
equals ``preferences.build_preferences_sorted`` exactly (tested).
"""

import numpy as np
from numba import njit, prange

_NONE = np.int64(-1)
_BIG = np.iinfo(np.int64).max


@njit(cache=True)
def _group(person, n):
    """Counting sort: offsets and the row numbers grouped by person (rows ascending)."""
    off = np.zeros(n + 1, dtype=np.int64)
    for i in range(person.shape[0]):
        off[person[i] + 1] += 1
    for p in range(n):
        off[p + 1] += off[p]
    fill = off[:-1].copy()
    rows = np.empty(person.shape[0], dtype=np.int64)
    for i in range(person.shape[0]):
        p = person[i]
        rows[fill[p]] = i
        fill[p] += 1
    return off, rows


_SHORT = 32  # lists up to this long are insertion-sorted in place (no allocation)


@njit(cache=True)
def _stable_order(seg, key):
    """``seg`` (row numbers) reordered by ``key[row]``, stably."""
    if seg.shape[0] > _SHORT:
        return seg[np.argsort(key[seg], kind="mergesort")]
    out = seg.copy()
    for i in range(1, out.shape[0]):
        row = out[i]
        k = key[row]
        j = i - 1
        while j >= 0 and key[out[j]] > k:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = row
    return out


@njit(cache=True)
def _first_repeat(ordered, key, out):
    """In rows ``ordered`` stably by ``key``: the smallest row repeating an
    earlier row's key, and the first row of that key, into ``out`` (kept if smaller)."""
    start = 0
    for i in range(1, ordered.shape[0]):
        if key[ordered[i]] != key[ordered[i - 1]]:
            start = i
        elif ordered[i] < out[0]:
            out[0] = ordered[i]
            out[1] = ordered[start]


@njit(cache=True, parallel=True)
def _sort_lists(off, rows, other, rank, n):
    """Sort every person's rows by rank, in place in ``rows``.

    Also finds repeated entries (same other twice) and repeated ranks: per
    person, the smallest row repeating an earlier row's value and that
    earlier row.  Sorts are stable and rows start ascending, so in a run of
    equal values the first is the earliest row.
    """
    bad = np.full((n, 4), _BIG, dtype=np.int64)  # entry row, earlier, rank row, earlier
    for p in prange(n):
        lo, hi = off[p], off[p + 1]
        if hi - lo < 2:
            continue
        seg = rows[lo:hi]
        _first_repeat(_stable_order(seg, other), other, bad[p, 0:2])
        by_rank = _stable_order(seg, rank)
        _first_repeat(by_rank, rank, bad[p, 2:4])
        rows[lo:hi] = by_rank
    first = np.full(4, _NONE, dtype=np.int64)
    for k in (0, 2):
        best = _BIG
        for p in range(n):
            if bad[p, k] < best:
                best = bad[p, k]
                first[k] = bad[p, k]
                first[k + 1] = bad[p, k + 1]
    return first


@njit(cache=True)
def _invert(p_off, p_rows, pa, a_off, a_rows, ap, n_p, n_a):
    """The join: mutual entries only, each proposer entry keyed by the
    acceptor's position of the proposer among her mutual entries."""
    m_a = a_rows.shape[0]
    m_p = p_rows.shape[0]
    owner = np.empty(m_a, dtype=np.int64)  # acceptor of every acceptor-CSR entry
    for a in range(n_a):
        for e in range(a_off[a], a_off[a + 1]):
            owner[e] = a
    # acceptor-CSR entries grouped by the proposer they name
    t_off = np.zeros(n_p + 1, dtype=np.int64)
    for e in range(m_a):
        t_off[ap[a_rows[e]] + 1] += 1
    for p in range(n_p):
        t_off[p + 1] += t_off[p]
    fill = t_off[:-1].copy()
    t_entry = np.empty(m_a, dtype=np.int64)
    for e in range(m_a):
        p = ap[a_rows[e]]
        t_entry[fill[p]] = e
        fill[p] += 1

    tag = np.full(n_a, _NONE, dtype=np.int64)
    link = np.zeros(n_a, dtype=np.int64)
    p_link = np.full(m_p, _NONE, dtype=np.int64)
    mutual_a = np.zeros(m_a, dtype=np.bool_)
    for p in range(n_p):
        for t in range(t_off[p], t_off[p + 1]):
            e = t_entry[t]
            tag[owner[e]] = p
            link[owner[e]] = e
        for j in range(p_off[p], p_off[p + 1]):
            a = pa[p_rows[j]]
            if tag[a] == p:
                p_link[j] = link[a]
                mutual_a[link[a]] = True

    acc_off = np.zeros(n_a + 1, dtype=np.int64)
    pos = np.full(m_a, _NONE, dtype=np.int64)
    for a in range(n_a):
        c = 0
        for e in range(a_off[a], a_off[a + 1]):
            if mutual_a[e]:
                pos[e] = c
                c += 1
        acc_off[a + 1] = acc_off[a] + c
    acc_prop = np.empty(acc_off[n_a], dtype=np.int64)
    k = 0
    for e in range(m_a):
        if mutual_a[e]:
            acc_prop[k] = ap[a_rows[e]]
            k += 1

    prop_off = np.zeros(n_p + 1, dtype=np.int64)
    for p in range(n_p):
        c = 0
        for j in range(p_off[p], p_off[p + 1]):
            if p_link[j] >= 0:
                c += 1
        prop_off[p + 1] = prop_off[p] + c
    prop_tgt = np.empty(prop_off[n_p], dtype=np.int64)
    prop_key = np.empty(prop_off[n_p], dtype=np.int64)
    k = 0
    for j in range(m_p):
        if p_link[j] >= 0:
            prop_tgt[k] = pa[p_rows[j]]
            prop_key[k] = pos[p_link[j]]
            k += 1
    return prop_off, prop_tgt, prop_key, acc_off, acc_prop


def _rank_key(rank: np.ndarray) -> np.ndarray:
    """Ranks as int64 or float64, keeping their order and their ties.

    Only the order within a list matters, so one integer and one float type
    suffice, and ``_sort_lists`` (parallel per-list sorts, 4-17 s to compile
    per signature on the 2-core machine) compiles for two rank types instead
    of one per rank dtype a caller brings.  uint64 maps to int64 by flipping
    the top bit, which keeps the order of every value.
    """
    if rank.dtype.kind == "f":
        return rank.astype(np.float64, copy=False)
    if rank.dtype == np.uint64:
        return (rank ^ np.uint64(1 << 63)).view(np.int64)
    return rank.astype(np.int64, copy=False)


def build_preferences_cpu(pp, pa, pr, ap, aa, ar, n_p: int, n_a: int):
    """``preferences.build_preferences_sorted`` for NumPy arrays, in linear passes."""
    pr, ar = _rank_key(pr), _rank_key(ar)
    p_off, p_rows = _group(pp, n_p)
    p_bad = _sort_lists(p_off, p_rows, pa, pr, n_p)
    a_off, a_rows = _group(aa, n_a)
    a_bad = _sort_lists(a_off, a_rows, ap, ar, n_a)
    errors = tuple(((int(b[0]), int(b[1])), (int(b[2]), int(b[3]))) for b in (p_bad, a_bad))
    if any(row >= 0 for err in errors for row, _ in err):
        return errors, None
    return errors, _invert(p_off, p_rows, pa, a_off, a_rows, ap, n_p, n_a)
