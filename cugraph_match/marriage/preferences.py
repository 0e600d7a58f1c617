"""Shared plumbing of the stable-marriage family (stable marriage, b-marriage,
popular matching, blocking pairs).

Preferences arrive as two long-format frames::

    proposer_prefs: proposer | acceptor | rank     (one row per list entry)
    acceptor_prefs: acceptor | proposer | rank

and go through the same steps for every algorithm:

1. validation at the frame level (columns, nulls, rank dtype), written with
   calls pandas and cuDF share;
2. renumbering of each side on its own: proposer ids and acceptor ids are two
   id spaces (proposer ``1`` and acceptor ``1`` are different people), each
   renumbered into the sorted order of its distinct ids;
3. per person, the list sorted by rank; a person naming the same other
   twice, or giving two entries the same rank, is a ``ValueError`` naming
   that person;
4. the *rank inversion* join of the two lists on (proposer, acceptor): it
   keeps only mutual pairs and stores, beside each entry of a proposer's
   list, the acceptor's *position* of that proposer in the acceptor's
   mutual list (0 = her favourite).  Kernels then hold an acceptor's current
   suitor as that position: a smaller number is a better suitor, and the
   acceptor's list maps a position back to the proposer;
5. CSR by (proposer, rank) for the proposers and by (acceptor, rank) for the
   acceptors, on the backend's array module.

The CPU backend does steps 3-5 in linear passes (``_preferences_cpu``, the
position-array join of Manne et al.); the GPU backend does them with device
sorts (``build_preferences_sorted``, also runnable on NumPy, tested equal).

Ranks: smaller is better; within one person's list ranks must be distinct
and finite, and only their order matters (they need not start at 1 or be
consecutive; integers and floats both work).

A *layout* (``Layout``) is what the kernels read: either the CSR above or
the compact *master-list* form, where every proposer shares one list and
every acceptor shares one list (two permutation vectors), stored as a CSR
whose rows all alias the same row (row stride 0).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..structure.backend import Backend, resolve_backend, series_values, to_backend
from ..structure.checks import (capacity_scalar, capacity_series, describe_row, first_true,
                                not_numbers, plain, require_column_names,
                                require_unique_columns)
from ..structure.edges import index_dtype
from ..structure.inputs import frame_library
from ..structure.output import host_or_device, nullable
from ..structure.renumber import category_values, describe_id_types, renumber
from ..structure.sort_xp import lexsort_xp

PROPOSER, ACCEPTOR, RANK = "proposer", "acceptor", "rank"
CAPACITY = "capacity"
# An acceptor's held suitor is the position of that suitor in her list, held
# in an int64; SENTINEL means "nobody".  Popular matching adds LEVEL_BIAS to
# the position of a level-0 proposer, so every level-1 proposer (smaller
# number) beats every level-0 one; lists are far shorter than 2**40.
SENTINEL = np.iinfo(np.int64).max
LEVEL_BIAS = 1 << 40


# --------------------------------------------------------------------------
# the kernels' view of an instance
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Kernel arguments describing both sides' preference lists.

    Proposer ``u``'s list is ``p_tgt[p_off[u * p_step] : p_off[u * p_step + 1]]``
    (acceptor ids, best first).  The acceptor's position of ``u`` at entry
    ``j`` is ``p_key[j * k_entry + u * k_prop]``.  Acceptor ``a``'s list
    starts at ``a_off[a * a_step]`` in ``a_prop`` (proposer ids, best first).

    CSR instances have ``p_step = k_entry = a_step = 1`` and ``k_prop = 0``;
    master-list instances have ``p_off = a_off = [0, n]``, ``p_step =
    a_step = k_entry = 0``, ``k_prop = 1`` and ``p_key`` = every proposer's
    position in the acceptors' common list.
    """

    p_off: Any
    p_step: int
    p_tgt: Any
    p_key: Any
    k_entry: int
    k_prop: int
    a_off: Any
    a_step: int
    a_prop: Any
    n_proposers: int
    n_acceptors: int

    def args(self) -> tuple:
        return (self.p_off, self.p_step, self.p_tgt, self.p_key, self.k_entry, self.k_prop,
                self.a_off, self.a_step, self.a_prop)

    @property
    def master(self) -> bool:
        return self.p_step == 0

    def list_lengths(self, xp):
        """Length of every proposer's list."""
        if self.master:
            return xp.full(self.n_proposers, int(self.p_off[1]), dtype=np.int64)
        return xp.diff(self.p_off).astype(np.int64)

    def acceptor_degrees(self, xp):
        """Length of every acceptor's list."""
        if self.master:
            return xp.full(self.n_acceptors, int(self.a_off[1]), dtype=np.int64)
        return xp.diff(self.a_off).astype(np.int64)

    def proposer_at(self, acceptor, position, xp):
        """The proposer an acceptor ranks at ``position`` (arrays)."""
        start = self.a_off[acceptor * self.a_step] if not self.master else 0
        return self.a_prop[start + position]


def master_layout(proposer_order, acceptor_order, xp) -> Layout:
    """The layout of a master-list instance (validated).

    ``proposer_order``: the acceptors (ids ``0..n_a-1``) in the order every
    proposer ranks them; ``acceptor_order``: the proposers (``0..n_p-1``) in
    the order every acceptor ranks them.  Lists are complete.
    """
    orders = []
    for name, order in (("proposer_order", proposer_order), ("acceptor_order", acceptor_order)):
        if type(order).__module__.split(".")[0] not in ("cupy", "cudf"):
            # read on the host first: the same errors whatever the backend (a
            # device copy refused lists of strings with another error), and a
            # ragged list is this function's error, not NumPy's
            given = order
            if callable(getattr(given, "isna", None)):  # pandas' nullable arrays: NumPy reads
                null = np.asarray(given.isna(), dtype=bool)  # nulls as NaN, a float64 array
                if null.ndim == 1 and null.any():
                    raise ValueError(f"{name} has {int(null.sum())} null value(s); first at "
                                     f"position {int(np.argmax(null))}")
            try:
                order = np.asarray(given)
            except (TypeError, ValueError):
                raise TypeError(f"{name} must be a 1-D integer array, got a "
                                f"{type(given).__name__} that is not one (ragged or "
                                f"mixed)") from None
            if order.ndim == 0:
                raise TypeError(f"{name} must be a 1-D integer array, got "
                                f"{type(given).__name__}")
            if order.dtype.kind not in "iu" and not (order.ndim == 1 and order.shape[0] == 0):
                raise TypeError(f"{name} must be a 1-D integer array, got "
                                f"{order.ndim}-D {order.dtype}")
        order = to_backend(order, xp)
        if order.ndim == 1 and order.shape[0] == 0:
            raise ValueError(f"{name} is empty: there is nobody to match")
        if order.ndim != 1 or order.dtype.kind not in "iu":
            raise TypeError(f"{name} must be a 1-D integer array, got "
                            f"{order.ndim}-D {order.dtype}")
        n = int(order.shape[0])
        inside = (order >= 0) & (order < n)
        if not bool(inside.all()):
            first = int(xp.argmin(inside))
            raise ValueError(f"{name} must be a permutation of 0..{n - 1}; position {first} "
                             f"holds {int(order[first])}")
        order = order.astype(index_dtype(n), copy=False)
        seen = xp.bincount(order, minlength=n)
        if bool((seen != 1).any()):
            missing = int(xp.argmin(seen))
            raise ValueError(f"{name} must be a permutation of 0..{n - 1}; {missing} is missing")
        orders.append(order)
    p_order, a_order = orders
    n_a, n_p = int(p_order.shape[0]), int(a_order.shape[0])
    rank_of = xp.empty(n_p, dtype=index_dtype(n_p))
    rank_of[a_order] = xp.arange(n_p, dtype=rank_of.dtype)
    return Layout(xp.asarray(np.array([0, n_a], dtype=np.int64)), 0, p_order, rank_of, 0, 1,
                  xp.asarray(np.array([0, n_p], dtype=np.int64)), 0, a_order, n_p, n_a)


# --------------------------------------------------------------------------
# prepared frames
# --------------------------------------------------------------------------


@dataclass
class PreparedPreferences:
    """Mutual, rank-inverted preference lists on one backend, plus labels.

    Internal proposer ``i`` is ``proposer_labels[i]`` (sorted caller ids),
    likewise for acceptors.  ``prop_*`` is the proposers' CSR in preference
    order with, per entry, the acceptor and the acceptor's position of the
    proposer (``prop_keys``); ``acc_*`` the acceptors' CSR in preference
    order.  ``extra_proposers``/``extra_acceptors`` are the internal ids of
    the extra id Series passed to :func:`prepare_preferences`.
    """

    backend: Backend
    frame_lib: Any
    columns: tuple[str, str, str]
    proposer_labels: Any
    acceptor_labels: Any
    prop_offsets: Any
    prop_acceptors: Any
    prop_keys: Any
    acc_offsets: Any
    acc_proposers: Any
    extra_proposers: Any = None
    extra_acceptors: Any = None

    @property
    def n_proposers(self) -> int:
        return len(self.proposer_labels)

    @property
    def n_acceptors(self) -> int:
        return len(self.acceptor_labels)

    @property
    def num_pairs(self) -> int:
        """Mutually acceptable (proposer, acceptor) pairs."""
        return int(self.prop_acceptors.shape[0])

    def layout(self) -> Layout:
        return Layout(self.prop_offsets, 1, self.prop_acceptors, self.prop_keys, 1, 0,
                      self.acc_offsets, 1, self.acc_proposers, self.n_proposers, self.n_acceptors)


def distinct_columns(proposer, acceptor, rank) -> None:
    """The three column names must differ: one column read as both sides'
    ids (or as ids and ranks) makes every list name its own author, and
    what failed after that named a repeated entry, or nothing."""
    names = {"proposer": proposer, "acceptor": acceptor, "rank": rank}
    require_column_names(**names)
    seen: dict = {}
    for name, value in names.items():
        if value in seen:
            raise ValueError(f"{seen[value]} and {name} name the same column {value!r}; "
                             f"each must be a column of its own")
        seen[value] = name


def _check_frame(frame, name: str, person: str, other: str, rank: str) -> None:
    """Columns present (once each), no null id or rank, ranks numeric and finite."""
    cols = (person, other, rank)
    require_unique_columns(frame, cols, name)
    for col in cols:
        if col not in frame.columns:
            raise ValueError(f"{name} has no column {col!r}; its columns are {list(frame.columns)}")
    for col in cols:
        nulls = frame[col].isna()
        n_bad = int(nulls.sum())
        if n_bad:
            raise ValueError(f"{name} column {col!r} has {n_bad} null value(s); first is "
                             f"{describe_row(frame, first_true(nulls), cols)}")
    # a categorical rank is read by its values, as categorical ids, weights
    # and capacities are: its category order says nothing about preference
    r = category_values(frame[rank])
    kind = getattr(r.dtype, "kind", None)
    if kind == "O":
        bad = not_numbers(r)
        n_bad = int(bad.sum())
        if n_bad:
            raise TypeError(f"{name} rank column {rank!r} has {n_bad} non-numeric value(s); "
                            f"first is {describe_row(frame, first_true(bad), cols)}")
    elif kind not in ("i", "u", "f"):
        raise TypeError(f"{name} rank column {rank!r} must be numeric (integer or float), "
                        f"got dtype {r.dtype}")
    if kind in ("f", "O"):
        infinite = (r == np.inf) | (r == -np.inf)
        n_bad = int(infinite.sum())
        if n_bad:
            raise ValueError(f"{name} rank column {rank!r} has {n_bad} infinite value(s); first "
                             f"is {describe_row(frame, first_true(infinite), cols)}")


def _row_pair(frame, earlier: int, row: int):
    """Two rows' index labels, as every message names rows, and a note of
    their positions when the labels are equal (an index repeated by
    pd.concat: "rows 0 and 0" located neither)."""
    first, second = plain(frame.index[earlier]), plain(frame.index[row])
    return first, second, "" if first != second else f", at positions {earlier} and {row}"


def _cell(frame, col: str, position: int):
    value = frame[col].iloc[position]
    return value.item() if hasattr(value, "item") else value


def _rank_values(series, xp):
    """A validated rank column as a plain numeric array of the backend."""
    series = category_values(series)  # by value (a sort of the codes ranked by category order)
    dtype = series.dtype
    if getattr(dtype, "kind", None) == "O":  # pandas object column of numbers (validated)
        # only the order within a list matters: Python compares ints of any
        # size and floats exactly, so dense ranks from a sort of the Python
        # values keep every distinction (a cast to float64 merged ranks past
        # 2**53, and one to int64 overflowed past 2**63)
        codes, _ = pd.factorize(series, sort=True)
        return series_values(pd.Series(codes.astype(np.int64)), xp)
    if not isinstance(dtype, np.dtype):  # nullable Int64/Float64, validated null-free
        series = series.astype(getattr(dtype, "numpy_dtype", np.float64))
        dtype = series.dtype
    if dtype.kind == "f" and dtype.itemsize > 8:
        # longdouble, which neither the numba kernels nor CuPy read: dense ranks
        # from NumPy's exact sort (float64 could merge ranks that differ)
        _, codes = np.unique(series.to_numpy(), return_inverse=True)
        return series_values(pd.Series(codes.reshape(-1).astype(np.int64)), xp)
    if dtype.kind == "f" and dtype.itemsize < 4:
        series = series.astype(np.float64)  # float16: exact in float64
    elif not dtype.isnative:
        series = series.astype(dtype.newbyteorder("="))  # the kernels read native order
    return series_values(series, xp)


def prepare_preferences(proposer_prefs, acceptor_prefs, proposer: str = PROPOSER,
                        acceptor: str = ACCEPTOR, rank: str = RANK, backend: str = "auto",
                        extra_proposers=None, extra_acceptors=None) -> PreparedPreferences:
    """Validate, renumber, rank-invert and build both CSRs on ``backend``.

    ``extra_proposers``/``extra_acceptors`` (Series of ids, optional) are
    renumbered with the frames' ids, so callers can map other ids (a
    matching, capacities) into the same internal ids.
    """
    be = resolve_backend(backend)
    lib = frame_library(proposer_prefs)
    for name, frame in (("proposer_prefs", proposer_prefs), ("acceptor_prefs", acceptor_prefs)):
        if frame_library(frame) is None or not hasattr(frame, "columns"):
            raise TypeError(f"{name} must be a cuDF or pandas DataFrame, got "
                            f"{type(frame).__module__}.{type(frame).__name__}")
    if frame_library(acceptor_prefs) is not lib:
        raise TypeError("proposer_prefs and acceptor_prefs must both be pandas or both cuDF "
                        f"DataFrames, got {type(proposer_prefs).__module__} and "
                        f"{type(acceptor_prefs).__module__}")
    distinct_columns(proposer, acceptor, rank)
    _check_frame(proposer_prefs, "proposer_prefs", proposer, acceptor, rank)
    _check_frame(acceptor_prefs, "acceptor_prefs", acceptor, proposer, rank)
    if len(proposer_prefs) == 0 and len(acceptor_prefs) == 0:
        raise ValueError("proposer_prefs and acceptor_prefs are both empty: there is nobody "
                         "to match")

    # the two sides are two id spaces, each renumbered on its own (no
    # placeholder for absent extras: an empty int64 one made float32, Int32,
    # string or bool ids come back as float64, Int64 or object)
    (pp, ap, *extra_p_codes), p_labels = renumber(
        [proposer_prefs[proposer], acceptor_prefs[proposer]]
        + ([] if extra_proposers is None else [extra_proposers]), lib, be.xp, "proposer ids")
    (pa, aa, *extra_a_codes), a_labels = renumber(
        [proposer_prefs[acceptor], acceptor_prefs[acceptor]]
        + ([] if extra_acceptors is None else [extra_acceptors]), lib, be.xp, "acceptor ids")
    p_labels.name, a_labels.name = proposer, acceptor
    n_p, n_a = len(p_labels), len(a_labels)
    if max(n_p, n_a) >= 2**31:
        raise ValueError(f"at most 2**31 - 1 people per side are supported, got {n_p} "
                         f"proposers and {n_a} acceptors")

    xp = be.xp
    pp, pa, ap, aa = (to_backend(c, xp).astype(np.int64, copy=False) for c in (pp, pa, ap, aa))
    pr = _rank_values(proposer_prefs[rank], xp)
    ar = _rank_values(acceptor_prefs[rank], xp)
    sides = (("proposer_prefs", proposer_prefs, proposer, acceptor, "proposer", "acceptor"),
             ("acceptor_prefs", acceptor_prefs, acceptor, proposer, "acceptor", "proposer"))
    if be.name == "cpu":
        from .preferences_cpu import build_preferences_cpu

        built = build_preferences_cpu(pp, pa, pr, ap, aa, ar, n_p, n_a)
    else:
        built = build_preferences_sorted(pp, pa, pr, ap, aa, ar, n_p, n_a, xp)
    errors, arrays = built
    for side, (entry, rank_err) in zip(sides, errors):
        name, frame, person_col, other_col, person, other = side
        _raise_duplicates(name, frame, person_col, other_col, rank, person, other, entry, rank_err)
    p_off, p_tgt, p_key, a_off, a_prop = arrays
    p_off = p_off.astype(index_dtype(int(p_tgt.shape[0]) + 1), copy=False)
    a_off = a_off.astype(index_dtype(int(a_prop.shape[0]) + 1), copy=False)
    p_tgt = p_tgt.astype(index_dtype(n_a), copy=False)
    a_prop = a_prop.astype(index_dtype(n_p), copy=False)
    p_key = p_key.astype(index_dtype(max(n_p, 1)), copy=False)
    return PreparedPreferences(
        be, lib, (proposer, acceptor, rank), p_labels, a_labels, p_off, p_tgt, p_key, a_off,
        a_prop,
        None if extra_proposers is None else to_backend(extra_p_codes[0], xp).astype(np.int64),
        None if extra_acceptors is None else to_backend(extra_a_codes[0], xp).astype(np.int64))


def _raise_duplicates(name, frame, person_col, other_col, rank_col, person, other,
                      entry, rank_err) -> None:
    """``entry``/``rank_err`` = (row, earlier row) of the first repeated entry/rank, or -1."""
    row, earlier = entry
    if row >= 0:
        first, second, positions = _row_pair(frame, earlier, row)
        raise ValueError(
            f"{name}: {person} {_cell(frame, person_col, row)!r} lists {other} "
            f"{_cell(frame, other_col, row)!r} more than once (rows {first!r} and "
            f"{second!r}{positions}); each list may name each {other} once")
    row, earlier = rank_err
    if row >= 0:
        first, second, positions = _row_pair(frame, earlier, row)
        raise ValueError(
            f"{name}: {person} {_cell(frame, person_col, row)!r} gives rank "
            f"{_cell(frame, rank_col, row)!r} to more than one {other} "
            f"({_cell(frame, other_col, earlier)!r} in row {first!r} and "
            f"{_cell(frame, other_col, row)!r} in row {second!r}{positions}); ranks within "
            f"one list must be distinct")


# --------------------------------------------------------------------------
# the sorting builder (GPU path; runs on NumPy too)
# --------------------------------------------------------------------------


def _first_repeat(keys_sorted, rows_sorted, xp):
    """(row, earlier row) of the smallest row repeating an earlier row's key, or (-1, -1).

    ``keys_sorted``/``rows_sorted``: sorted by (key, row).
    """
    if keys_sorted.shape[0] < 2:
        return (-1, -1)
    same = keys_sorted[1:] == keys_sorted[:-1]
    if not bool(same.any()):
        return (-1, -1)
    later = xp.where(same, rows_sorted[1:], np.iinfo(np.int64).max)
    at = int(xp.argmin(later))
    row = int(rows_sorted[at + 1])
    # the earliest row of that key: walk back to the start of its run
    key = keys_sorted[at + 1]
    first = int(xp.searchsorted(keys_sorted, key, side="left"))
    return (row, int(rows_sorted[first]))


def _side_sorted(person, pair, rank, xp):
    """Sort one frame's rows; report its repeated entries and ranks.

    ``pair`` encodes (proposer, acceptor) the same way for both frames.
    Returns the rows in (person, rank) order, ``pair`` sorted (ties by
    row) with those rows, and ((row, earlier row) of the first repeated
    entry, same for ranks).
    """
    m = person.shape[0]
    rows = xp.arange(m, dtype=np.int64)
    if m:
        _, rank_code = xp.unique(rank, return_inverse=True)
        rank_code = rank_code.reshape(-1).astype(np.int64)
        n_codes = int(rank_code.max()) + 1
    else:
        rank_code, n_codes = rows, 1
    by_rank = person * n_codes + rank_code
    order = lexsort_xp([rows, by_rank], xp)
    rank_err = _first_repeat(by_rank[order], order, xp)
    pair_order = lexsort_xp([rows, pair], xp)
    pair_sorted = pair[pair_order]
    entry_err = _first_repeat(pair_sorted, pair_order, xp)
    return order, pair_sorted, pair_order, (entry_err, rank_err)


def build_preferences_sorted(pp, pa, pr, ap, aa, ar, n_p: int, n_a: int, xp):
    """Steps 3-5 with whole-array sorts (the GPU path; runs on NumPy too).

    Inputs are the internal ids and ranks of the two frames' rows.  Returns
    ``(errors, arrays)``: per frame, ((row, earlier row) of the first
    repeated entry, same for ranks), -1 when none; and ``(p_off, p_tgt,
    p_key, a_off, a_prop)``, None when there are errors.  Produces exactly
    what ``_preferences_cpu.build_preferences_cpu`` produces.
    """
    p_rank_order, _, _, p_err = _side_sorted(pp, pp * n_a + pa, pr, xp)
    a_rank_order, join_sorted, join_rows, a_err = _side_sorted(aa, ap * n_a + aa, ar, xp)
    errors = (p_err, a_err)
    if any(row >= 0 for err in errors for row, _ in err):
        return errors, None

    # Join on (proposer, acceptor): proposer row i <-> acceptor row a_row_of_p[i].
    kp = pp * n_a + pa
    m_a = int(join_sorted.shape[0])
    if m_a:
        at = xp.minimum(xp.searchsorted(join_sorted, kp), m_a - 1)
        found = join_sorted[at] == kp
        a_row_of_p = xp.where(found, join_rows[at], -1)
    else:
        found = xp.zeros(kp.shape[0], dtype=bool)
        a_row_of_p = xp.full(kp.shape[0], -1, dtype=np.int64)
    mutual_a = xp.zeros(m_a, dtype=bool)
    mutual_a[a_row_of_p[found]] = True

    # Acceptor CSR over the mutual entries in rank order; position in the list.
    sel_a = a_rank_order[mutual_a[a_rank_order]]
    a_off = _offsets(aa[sel_a], n_a, xp)
    pos_of_row = xp.full(m_a, -1, dtype=np.int64)
    pos_of_row[sel_a] = xp.arange(sel_a.shape[0], dtype=np.int64) - a_off[aa[sel_a]]

    # Proposer CSR over the mutual entries in rank order; key = acceptor's position.
    sel_p = p_rank_order[found[p_rank_order]]
    p_off = _offsets(pp[sel_p], n_p, xp)
    return errors, (p_off, pa[sel_p], pos_of_row[a_row_of_p[sel_p]], a_off, ap[sel_a])


def _offsets(rows_sorted, n: int, xp):
    off = xp.zeros(n + 1, dtype=np.int64)
    if rows_sorted.shape[0]:
        off[1:] = xp.cumsum(xp.bincount(rows_sorted, minlength=n))
    return off


# --------------------------------------------------------------------------
# capacities
# --------------------------------------------------------------------------


def capacities(capacity, labels, side: str, id_col: str, lib, xp, name: str):
    """Per-person capacities (int64 array on the backend) from a scalar, a
    Series indexed by id, or a frame with columns ``id_col`` and ``capacity``.

    Capacities of any integer or float dtype and size are accepted (integral
    values only); values at or above ``CAPACITY_CEILING`` (2**62, longer than
    any list) are stored as it, so they behave as the caller's value does:
    unbounded.
    """
    n = len(labels)
    if isinstance(capacity, (numbers.Real, np.bool_)):
        return xp.full(n, capacity_scalar(capacity, name), dtype=np.int64)
    cap_lib = frame_library(capacity)
    if cap_lib is None:
        raise TypeError(f"{name} must be an int, a Series (index = {side} id) or a DataFrame "
                        f"with columns {id_col!r} and {CAPACITY!r}, got "
                        f"{type(capacity).__module__}.{type(capacity).__name__}")
    if cap_lib is not lib:
        raise TypeError(f"{name} must come from the same frame library as the preferences "
                        f"({lib.__name__}), got {cap_lib.__name__}")
    if hasattr(capacity, "columns"):
        require_unique_columns(capacity, (id_col, CAPACITY), name)
        for col in (id_col, CAPACITY):
            if col not in capacity.columns:
                raise ValueError(f"{name} has no column {col!r}; its columns are "
                                 f"{list(capacity.columns)}")
        frame = capacity[[id_col, CAPACITY]].reset_index(drop=True)
    else:
        frame = lib.DataFrame({id_col: capacity.index.to_series().reset_index(drop=True),
                               CAPACITY: capacity.reset_index(drop=True)})
    null_ids = frame[id_col].isna()
    if int(null_ids.sum()):
        raise ValueError(f"{name}: {int(null_ids.sum())} null {side} id(s); first is "
                         f"{describe_row(frame, first_true(null_ids), (id_col, CAPACITY))}")
    def where(mask) -> str:
        return describe_row(frame, first_true(mask), (id_col, CAPACITY))

    frame = frame.assign(**{CAPACITY: capacity_series(frame[CAPACITY], name, where)})
    repeated = frame[id_col].duplicated()
    if int(repeated.sum()):
        raise ValueError(f"{name} gives {side} {_cell(frame, id_col, first_true(repeated))!r} "
                         f"more than one capacity")
    people = lib.DataFrame({id_col: labels.reset_index(drop=True),
                            "_code": lib.Series(np.arange(n, dtype=np.int64))})
    try:
        merged = people.merge(frame, on=id_col, how="left")
    except (ValueError, TypeError):  # pandas' own message advises pd.concat: not ours to give
        raise TypeError(f"{name} ids ({describe_id_types(frame[id_col])}) do not have the "
                        f"type of the {side} ids in the preferences "
                        f"({describe_id_types(labels)})") from None
    merged = merged.sort_values("_code").reset_index(drop=True)
    missing = merged[CAPACITY].isna()
    n_missing = int(missing.sum())
    if n_missing:
        raise ValueError(f"{name} gives no capacity for {n_missing} {side}(s) of the "
                         f"preferences; first is {_cell(merged, id_col, first_true(missing))!r}")
    return series_values(merged[CAPACITY].astype(np.int64), xp)


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def mates_from_held(layout: Layout, held, xp, level_bias: int = 0):
    """Acceptors' held positions -> ``mate`` per proposer (-1 when single)."""
    n_p = layout.n_proposers
    mate = xp.full(n_p, -1, dtype=np.int64)
    acceptors = xp.nonzero(held != SENTINEL)[0]
    if acceptors.shape[0]:
        pos = held[acceptors] % LEVEL_BIAS if level_bias else held[acceptors]
        mate[layout.proposer_at(acceptors, pos, xp)] = acceptors
    return mate


def mate_frame(prep: PreparedPreferences, mate):
    """``proposer | acceptor``, one row per proposer in id order, null acceptor when single."""
    lib = prep.frame_lib
    xp = prep.backend.xp
    proposer, acceptor, _ = prep.columns
    matched = mate >= 0
    safe = xp.where(matched, mate, 0)
    if prep.n_acceptors == 0:
        acceptor_col = lib.Series([None] * prep.n_proposers, dtype=object)
    else:
        acceptor_col = prep.acceptor_labels.take(host_or_device(safe, lib)).reset_index(drop=True)
    acceptor_col = nullable(acceptor_col, lib).where(lib.Series(host_or_device(matched, lib)))
    return lib.DataFrame({proposer: prep.proposer_labels.reset_index(drop=True),
                          acceptor: acceptor_col})


def pair_frame(prep: PreparedPreferences, p_ids, a_ids):
    """``proposer | acceptor`` for internal id arrays (already in output order)."""
    lib = prep.frame_lib
    proposer, acceptor, _ = prep.columns
    return lib.DataFrame({
        proposer: prep.proposer_labels.take(host_or_device(p_ids, lib)).reset_index(drop=True),
        acceptor: prep.acceptor_labels.take(host_or_device(a_ids, lib)).reset_index(drop=True)})
