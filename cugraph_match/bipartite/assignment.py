"""Exact assignment (linear sum assignment and bipartite weighted matching)
between two tables, on the CPU or the GPU.

Two input forms:

* a dense cost matrix (NumPy or CuPy), solved as SciPy's
  ``linear_sum_assignment`` solves it and returned the same way;
* a candidate-pair edge list (pandas or cuDF) whose ``source`` and
  ``destination`` columns are two separate id spaces (left record 0 and right
  record 0 are different records), returned as the linked pairs, one row per
  pair.  A SciPy sparse matrix (rows = left, columns = right) is read as such an
  edge list and returned as ``(row_ind, col_ind)``.

What is optimised (``maximize``, ``perfect``) is decided in
:func:`_objective`; the solvers live in ``assignment_cpu`` (numba) and
``assignment_gpu`` (numba.cuda + CuPy).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..structure.backend import resolve_backend
from ..structure.inputs import frame_library, warn_of_numeric_columns
from ..structure.output import output_weights
from ..structure.renumber import renumber
from ..structure.checks import check_flag, describe_row, first_true, not_numbers, plain
from ..structure.validation import (bad_rows_error, inexact_in_float64, null_or_nan,
                                    object_weight_dtype)
from . import assignment_cpu as K

LOG = logging.getLogger("cugraph_match")

SOURCE, DESTINATION, WEIGHT = "src", "dst", "weight"
# Integer costs are solved exactly in int64.  Potentials and path lengths stay
# within a few (records + 1) * spread of the costs (a shortest path has at
# most 2 * records edges), so the spread may be at most 2**60 / (records + 1),
# records counted on both sides; beyond it the call is refused (never wrapped).
INTEGER_LIMIT = 2**60
INT_INF = np.int64(2**62)  # larger than any path length under that limit


# --------------------------------------------------------------------------
# the objective
# --------------------------------------------------------------------------


def _mode(maximize: bool, perfect: bool) -> int:
    """Which problem the flags ask for (see :func:`assignment`, Notes)."""
    if perfect:
        return K.PERFECT
    return K.DUMMY_EXIT if maximize else K.MAX_CARDINALITY


def _check_flags(maximize, perfect, backend) -> None:
    check_flag(maximize, "maximize")
    check_flag(perfect, "perfect")
    if backend not in ("auto", "cpu", "gpu"):
        raise ValueError(f"backend must be 'auto', 'cpu' or 'gpu', got {backend!r}")


def _integer_costs(values: np.ndarray, maximize: bool, shift: bool, rows: int, what: str):
    """Exact int64 costs to minimise from integer weights: ``w - min`` (or
    ``max - w`` when maximising) when a constant shift leaves the optimum
    unchanged (every feasible answer has the same number of pairs), else
    ``w`` (or ``-w``).  Refuses spreads the exact arithmetic cannot hold."""
    if values.shape[0] == 0:
        return values.astype(np.int64)
    low, high = int(values.min()), int(values.max())
    if shift:
        spread = high - low
        base = high if maximize else low
    else:
        spread = max(abs(low), abs(high))
        base = 0
    if (rows + 1) * spread > INTEGER_LIMIT:
        raise ValueError(
            f"{what}: integer weights spanning {spread} (from {low} to {high}) with {rows} "
            f"records exceed the exact-arithmetic limit: (records + 1) * spread must be at "
            f"most 2**60 = {INTEGER_LIMIT}; give float weights (solved in float64) or a "
            f"narrower range")
    if values.dtype.kind == "u":
        # uint64 above 2**63: shift in unsigned arithmetic, then the small
        # difference fits int64
        if maximize:
            shifted = (np.uint64(base % 2**64) - values).view(np.int64)
            return shifted if shift else -values.astype(np.int64)
        return (values - np.uint64(base % 2**64)).view(np.int64)
    values = values.astype(np.int64)
    if maximize:
        return np.int64(base) - values if shift else -values
    return values - np.int64(base)


def _float_costs(values: np.ndarray, maximize: bool) -> np.ndarray:
    """float64 costs to minimise, scaled by a power of two (exact) so that the
    largest magnitude is about 1: no overflow in path sums of weights near
    10**308, no underflow of weights near 10**-308."""
    costs = values.astype(np.float64)  # a copy: the caller's array is never touched
    if maximize:
        np.negative(costs, out=costs)
    if costs.shape[0]:
        top = float(np.max(np.abs(costs[np.isfinite(costs)]), initial=0.0))
        if top > 0:
            _, exponent = np.frexp(top)
            costs = np.ldexp(costs, -int(exponent))
    return costs


# --------------------------------------------------------------------------
# dense matrices
# --------------------------------------------------------------------------


def _dense_costs(matrix: np.ndarray, maximize: bool):
    """Validated costs to minimise (C-contiguous, rows <= columns) and the
    ``inf`` sentinel; ``transposed`` when the caller's rows were the longer side."""
    if matrix.ndim != 2:
        raise ValueError(f"a cost matrix must be 2-D, got {matrix.ndim}-D of shape "
                         f"{matrix.shape}")
    kind = matrix.dtype.kind
    if kind not in "biuf":
        raise TypeError(f"a cost matrix must be numeric (bool, integer or float), got dtype "
                        f"{matrix.dtype}")
    nr, nc = matrix.shape
    transposed = nr > nc
    inexact = inexact_in_float64(matrix)
    if inexact is not None and inexact.any():
        at = np.argwhere(inexact)[0]
        raise TypeError(f"cost matrix has {int(inexact.sum())} longdouble entr(y/ies) that "
                        f"float64, the dtype the solver computes in, cannot hold exactly "
                        f"(rounded, overflowing to inf or underflowing to 0); first at row "
                        f"{at[0]}, column {at[1]}; cast it to float64 to accept the rounding")
    if kind == "f":
        nan = np.isnan(matrix)
        if nan.any():
            at = np.argwhere(nan)[0]
            raise ValueError(f"cost matrix contains {int(nan.sum())} NaN entr(y/ies); first at "
                             f"row {at[0]}, column {at[1]}")
        bad_inf = np.isposinf(matrix) if maximize else np.isneginf(matrix)
        if bad_inf.any():
            at = np.argwhere(bad_inf)[0]
            sign = "+" if maximize else "-"
            allowed = "-inf" if maximize else "inf"
            raise ValueError(
                f"cost matrix contains {int(bad_inf.sum())} {sign}inf entr(y/ies) (first at row "
                f"{at[0]}, column {at[1]}); a forbidden pair is {allowed} when "
                f"maximize={bool(maximize)}")
        costs = _float_costs(matrix.reshape(-1), maximize).reshape(matrix.shape)
        inf = np.inf
    else:
        values = matrix.reshape(-1)
        if kind == "b":
            values = values.astype(np.int64)
        costs = _integer_costs(values, maximize, True, nr + nc,
                               "cost matrix").reshape(matrix.shape)
        inf = INT_INF
    if transposed:
        costs = costs.T
    return np.ascontiguousarray(costs), inf, transposed


#: Edge visits the search for the first unservable record may make (about
#: a second on the CPU); beyond it the solver's own failing record is named,
#: as one that cannot be served together with those the solver served.
FIRST_UNMATCHABLE_BUDGET = 200_000_000


def _first_unmatchable(rows, cols, nr: int, nc: int, solver_bad: int) -> tuple[int, bool]:
    """``(record, first)``: the first record in order that cannot be served
    together with those before it (``first``), or the solver's failing
    record when the search ran past its budget (then ``first`` is False).
    Both backends name the same record."""
    indptr, indices, _, _ = K.rows_from_pairs(np.asarray(rows, dtype=np.int64),
                                              np.asarray(cols, dtype=np.int64),
                                              np.zeros(len(rows), dtype=np.int8), nr, nc)
    found = K.first_unmatchable_row(indptr, indices, nr, nc, FIRST_UNMATCHABLE_BUDGET)
    return (int(found), True) if found >= 0 else (int(solver_bad), False)


def _dense_assignment(matrix, maximize: bool, backend):
    costs, inf, transposed = _dense_costs(matrix, maximize)
    nr, nc = costs.shape
    if nr == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy()
    if backend.name == "gpu":
        from .assignment_gpu import solve_dense_gpu

        col4row, bad = solve_dense_gpu(costs, inf, backend)
    else:
        col4row, bad = K.solve_dense(costs, inf, 2)
    if bad >= 0:
        side = "column" if transposed else "row"
        finite = np.isfinite(costs) if costs.dtype.kind == "f" else costs < inf
        bad, first = _first_unmatchable(*np.nonzero(finite), nr, nc, bad)
        raise ValueError(f"cost matrix is infeasible: no assignment gives every {side} a "
                         f"finite-cost partner ({side} {bad} cannot be served together "
                         f"with the {side}s {'before it' if first else 'served'})")
    if transposed:
        order = np.argsort(col4row, kind="stable")
        return col4row[order].astype(np.int64), order.astype(np.int64)
    return np.arange(nr, dtype=np.int64), col4row.astype(np.int64)


# --------------------------------------------------------------------------
# edge lists
# --------------------------------------------------------------------------


@dataclass
class Candidates:
    """A validated edge list: internal ids per side, weights, labels."""

    frame_lib: Any
    left: np.ndarray  # int64 codes 0..n_left-1
    right: np.ndarray
    weights: np.ndarray | None  # the caller's weights as a NumPy array (native dtype)
    left_labels: Any
    right_labels: Any
    columns: tuple[str, str, str]


def _host(values) -> np.ndarray:
    """A column's values on the host (``.get()`` for device arrays)."""
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    if hasattr(values, "get"):
        values = values.get()
    return np.asarray(values)


def _weight_values(frame, col: str, cols) -> np.ndarray:
    """The weight column as a plain NumPy array, refusing what is not a finite number."""
    w = frame[col]
    kind = getattr(w.dtype, "kind", None)
    if kind == "O":
        bad = not_numbers(w)
        if int(bad.sum()):
            raise TypeError(f"weight column {col!r} has {int(bad.sum())} non-numeric "
                            f"value(s); first is {describe_row(frame, first_true(bad), cols)}")
        dtype = object_weight_dtype(w, lambda mask: describe_row(frame, first_true(mask), cols),
                                    col, positive=False)
        w = w.astype(dtype)
        kind = dtype.kind
    elif kind not in ("i", "u", "f"):
        raise TypeError(f"weight column {col!r} must be numeric (integer or float), got "
                        f"dtype {w.dtype}")
    nulls = null_or_nan(w)
    if int(nulls.sum()):
        raise ValueError(f"weight column {col!r} has {int(nulls.sum())} null/NaN value(s); "
                         f"first is {describe_row(frame, first_true(nulls), cols)}")
    if not isinstance(w.dtype, np.dtype):  # nullable extension dtypes, null-free now
        w = w.astype(getattr(w.dtype, "numpy_dtype", np.float64))
    values = _host(w)
    inexact = inexact_in_float64(values)
    if inexact is not None and inexact.any():
        raise bad_rows_error("inexact", col, int(inexact.sum()),
                             describe_row(frame, first_true(inexact), cols))
    if values.dtype.kind == "f":
        infinite = ~np.isfinite(values)
        if infinite.any():
            raise ValueError(f"weight column {col!r} has {int(infinite.sum())} infinite "
                             f"value(s); first is {describe_row(frame, first_true(infinite), cols)}"
                             f"; leave a pair that may not be linked out of the edge list")
        if values.dtype not in (np.float32, np.float64):
            values = values.astype(np.float64)
    elif not values.dtype.isnative or values.dtype.itemsize < 8:
        values = values.astype(np.uint64 if values.dtype.kind == "u" else np.int64)
    return values


def _candidates(frame, source, destination, weight) -> Candidates:
    lib = frame_library(frame)
    source = SOURCE if source is None else source
    destination = DESTINATION if destination is None else destination
    # weight=None: unweighted, a column named "weight" or not (until
    # 2026-11-27 None meant the default name, against the package's contract)
    unweighted = weight is None
    explicit_weight = weight is not None and weight != WEIGHT
    weight = WEIGHT if weight is None else weight
    for name, value in (("source", source), ("destination", destination), ("weight", weight)):
        if not isinstance(value, str) and not np.isscalar(value):
            raise TypeError(f"{name} must be a column name, got {value!r}")
    if source == destination:
        raise ValueError(f"source and destination name the same column {source!r}; the two "
                         f"sides of a candidate pair are two columns")
    columns = list(frame.columns)
    if len(set(columns)) != len(columns):
        repeated = sorted({str(c) for c in columns if columns.count(c) > 1})
        raise ValueError(f"the edge list has repeated column names {repeated}")
    for role, col in (("source", source), ("destination", destination)):
        if col not in frame.columns:
            raise ValueError(f"{role} column {col!r} not found; the frame has columns "
                             f"{columns}")
    if unweighted or weight not in frame.columns:
        if explicit_weight:
            raise ValueError(f"weight column {weight!r} not found; the frame has columns "
                             f"{columns}")
        if not unweighted:  # the default name absent: say so if another column was meant
            warn_of_numeric_columns(frame, (source, destination))
        has_weight = False
    else:
        has_weight = True
        if weight in (source, destination):
            raise ValueError(f"weight names the id column {weight!r}")
    cols = [source, destination] + ([weight] if has_weight else [])
    for col in (source, destination):
        nulls = null_or_nan(frame[col])
        if int(nulls.sum()):
            raise ValueError(f"column {col!r} has {int(nulls.sum())} null id(s); first is "
                             f"{describe_row(frame, first_true(nulls), cols)}")
    weights = _weight_values(frame, weight, cols) if has_weight else None
    (left,), left_labels = renumber([frame[source]], lib, np, f"source ids ({source!r})")
    (right,), right_labels = renumber([frame[destination]], lib, np,
                                      f"destination ids ({destination!r})")
    left_labels.name, right_labels.name = source, destination
    return Candidates(lib, np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64),
                      weights, left_labels, right_labels, (source, destination, weight))


def _edge_costs(weights: np.ndarray | None, m: int, mode: int, maximize: bool, rows: int,
                what: str):
    """Costs to minimise for every input row, the rows kept (None: all) and ``inf``."""
    if weights is None:
        # unit weights: every answer of one cardinality costs the same
        return np.zeros(m, dtype=np.int64) if mode != K.DUMMY_EXIT else \
            np.full(m, -1, dtype=np.int64), None, INT_INF
    keep = None
    if mode == K.DUMMY_EXIT:
        # a pair is worth linking only for a positive weight (the empty
        # matching weighs 0)
        positive = weights > 0
        if not positive.all():
            keep = np.flatnonzero(positive)
            weights = weights[keep]
    if weights.dtype.kind == "f":
        return _float_costs(weights, maximize), keep, np.inf
    return _integer_costs(weights, maximize, mode != K.DUMMY_EXIT, rows, what), keep, INT_INF


def _solve(rows, cols, costs, nr, nc, mode, inf, backend):
    """(positions of the chosen input rows, bad row) on one backend."""
    if backend.name == "gpu":
        from .assignment_gpu import solve_pairs_gpu

        return solve_pairs_gpu(rows, cols, costs, nr, nc, mode, inf, backend)
    indptr, indices, csr_cost, origin = K.rows_from_pairs(rows, cols, costs, nr, nc)
    col4row, bad = K.solve_sparse(indptr, indices, csr_cost, nr, nc, mode, inf)
    if bad >= 0:
        return None, bad
    return K.chosen_origins(indptr, indices, origin, col4row), -1


def _solve_pairs(left, right, costs, n_left: int, n_right: int, mode: int, inf, backend):
    """Solve on internal ids.  Returns ``(positions, bad, first, swap)``: the
    chosen input rows (positions into ``left``/``right``) ordered by left id,
    or ``bad >= 0``, the internal id (on the side processed row by row; the
    right side when ``swap``) of a record no perfect matching can serve: the
    first in order that cannot be served with those before it when ``first``
    (see :func:`_first_unmatchable`)."""
    swap = n_left > n_right  # the smaller side is processed row by row
    rows, cols = (right, left) if swap else (left, right)
    nr, nc = (n_right, n_left) if swap else (n_left, n_right)
    positions, bad = _solve(rows, cols, costs, nr, nc, mode, inf, backend)
    if bad >= 0:  # the first record, in order, that cannot be served with those before it
        return (None, *_first_unmatchable(rows, cols, nr, nc, bad), swap)
    order = np.argsort(left[positions], kind="stable")
    return positions[order], -1, True, swap


def _pairs_frame(cand: Candidates, positions: np.ndarray):
    """``source | destination | weight`` of the chosen input rows."""
    lib = cand.frame_lib
    source, destination, weight = cand.columns
    left_ids = cand.left_labels.take(cand.left[positions]).reset_index(drop=True)
    right_ids = cand.right_labels.take(cand.right[positions]).reset_index(drop=True)
    if cand.weights is None:  # weights of 1 as the matchings report them (float32)
        w = np.ones(positions.shape[0], dtype=np.float32)
    else:
        w = output_weights(cand.weights[positions])
    if lib is pd:
        return pd.DataFrame({source: left_ids, destination: right_ids, weight: w}, copy=False)
    return lib.DataFrame({source: left_ids, destination: right_ids, weight: w})


def _infeasible(cand: Candidates, bad: int, first: bool, swap: bool, n_left: int,
                n_right: int):
    side = "destination" if swap else "source"
    labels = cand.right_labels if swap else cand.left_labels
    smaller = min(n_left, n_right)
    others = "ordered before it" if first else "linked"
    return ValueError(
        f"perfect=True: no matching links all {smaller} {side} ids (the smaller side); "
        f"{side} id {plain(labels.iloc[bad])!r} cannot be linked together with the {side} "
        f"ids {others} (Hall's condition fails); use perfect=False for the best "
        f"matching that leaves records unlinked")


def _refuse_graphs(data) -> None:
    """A graph object is not a cost matrix: NumPy read a NetworkX graph as a
    1-D array of its nodes and a ``cm.Graph`` as one object, which made the
    errors speak of matrix shapes."""
    library = type(data).__module__.split(".")[0]
    taken = "cm.assignment takes a cost matrix, an edge list or a SciPy sparse matrix"
    if library == "networkx":
        raise TypeError(f"{taken}, not a NetworkX graph: "
                        f"nx.bipartite.minimum_weight_full_matching(G, backend='cugraph_match') "
                        f"runs this solver on one, or pass nx.to_pandas_edgelist(G) with "
                        f"source=, destination= and weight= naming its columns")
    if library == "cugraph":
        raise TypeError(f"{taken}, not a cuGraph graph: pass its G.view_edge_list() with "
                        f"source=, destination= and weight= naming its columns")
    if library == "cugraph_match":
        raise TypeError(f"{taken}, not a {type(data).__name__}: pass the edge list it was "
                        f"built from (the solver reads the candidate pairs as given)")


def _edge_list_assignment(frame, source, destination, weight, maximize, perfect, backend):
    cand = _candidates(frame, source, destination, weight)
    n_left, n_right = len(cand.left_labels), len(cand.right_labels)
    mode = _mode(maximize, perfect)
    costs, keep, inf = _edge_costs(cand.weights, cand.left.shape[0], mode, maximize,
                                   n_left + n_right, f"weight column {cand.columns[2]!r}")
    left, right = cand.left, cand.right
    if keep is not None:
        left, right = left[keep], right[keep]
    LOG.debug("assignment: %d left, %d right, %d candidate pairs, mode %d, %s backend",
              n_left, n_right, left.shape[0], mode, backend.name)
    positions, bad, first, swap = _solve_pairs(left, right, costs, n_left, n_right, mode, inf,
                                               backend)
    if bad >= 0:
        raise _infeasible(cand, bad, first, swap, n_left, n_right)
    if keep is not None:
        positions = keep[positions]
    return _pairs_frame(cand, positions)


def _sparse_matrix_assignment(matrix, maximize, perfect, backend):
    """A SciPy sparse matrix: stored entries are the candidate pairs (rows =
    left, columns = right; duplicates summed, as SciPy reads them)."""
    coo = matrix.tocoo(copy=True)
    coo.sum_duplicates()
    nr, nc = coo.shape
    data = np.asarray(coo.data)
    if data.dtype.kind not in "biuf":
        raise TypeError(f"a sparse cost matrix must be numeric, got dtype {data.dtype}")
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    if data.dtype.kind == "f" and not np.isfinite(data).all():
        bad = ~np.isfinite(data)
        at = int(np.flatnonzero(bad)[0])
        raise ValueError(f"sparse cost matrix has {int(bad.sum())} NaN/infinite stored "
                         f"entr(y/ies); first at row {int(coo.row[at])}, column "
                         f"{int(coo.col[at])}; leave a forbidden pair unstored")
    mode = _mode(maximize, perfect)
    rows = np.asarray(coo.row, dtype=np.int64)
    cols = np.asarray(coo.col, dtype=np.int64)
    costs, keep, inf = _edge_costs(data, rows.shape[0], mode, maximize, nr + nc,
                                   "sparse cost matrix")
    if keep is not None:
        rows, cols = rows[keep], cols[keep]
    positions, bad, first, swap = _solve_pairs(rows, cols, costs, nr, nc, mode, inf, backend)
    if bad >= 0:
        side = "column" if swap else "row"
        raise ValueError(f"perfect=True: no full matching exists ({side} {int(bad)} cannot "
                         f"be matched together with the {side}s "
                         f"{'before it' if first else 'matched'})")
    return rows[positions], cols[positions]


# --------------------------------------------------------------------------
# the public function
# --------------------------------------------------------------------------


def _is_cupy(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "cupy"


def assignment(data: Any, source: str | None = None, destination: str | None = None,
               weight: str | None = WEIGHT, *, maximize: bool = False, perfect: bool = False,
               backend: str = "auto"):
    """Exact optimal assignment between two sets of records.

    Parameters
    ----------
    data : numpy.ndarray, cupy.ndarray, pandas.DataFrame, cudf.DataFrame or scipy.sparse matrix
        A dense cost (or, with ``maximize=True``, benefit) matrix, rows
        against columns, rectangular allowed; or an edge list of candidate
        pairs whose ``source`` ids (left records) and ``destination`` ids
        (right records) are two separate id spaces; or a SciPy sparse matrix
        whose stored entries are the candidate pairs (rows = left, columns =
        right, duplicates summed as SciPy reads them).  A stored zero is a
        pair of weight 0, where SciPy's ``min_weight_full_bipartite_matching``
        drops it (with a warning): call ``eliminate_zeros()`` first for
        SciPy's problem.
    source, destination : str, optional
        Edge-list column names of the left and right ids (default ``"src"``,
        ``"dst"``).  Ids may be integers or strings; a left id and a right id
        of equal value are different records.
    weight : str or None
        Edge-list weight column (default ``"weight"``; when the frame has no
        column of the default name, or ``weight=None``, every pair weighs 1,
        as for the matchings; a name given explicitly must be a column).
        Weights may be
        negative or zero; NaN and infinite weights are refused (a pair that
        may not be linked is simply left out).  A pair listed twice keeps its
        best weight for the objective (the smallest when minimising, the
        largest when maximising).
    maximize : bool
        Maximise the total weight instead of minimising the total cost.
    perfect : bool
        Edge lists and sparse matrices only.  ``True``: every record of the
        smaller side must be linked (``ValueError`` naming a record when no
        such matching exists); the optimum among those matchings.
        ``False``: see Notes.
    backend : {"auto", "gpu", "cpu"}
        ``"auto"`` uses the GPU when one is usable.

    Returns
    -------
    tuple of arrays or DataFrame
        Dense and sparse matrices: ``(row_ind, col_ind)`` as SciPy returns
        them (int64; ``row_ind`` ascending; CuPy arrays for a CuPy input).
        Edge lists: the linked pairs, one row per pair, sorted by source id,
        columns named after ``source``, ``destination`` and ``weight`` (the
        caller's weights; float64, float32 staying float32; weights of 1 as
        float32 without a weight column, as the matchings report them); cuDF
        in, cuDF out.  Unlinked records have no row.

    Notes
    -----
    Dense matrices follow SciPy's ``linear_sum_assignment``: every row or
    every column (the smaller side) is assigned; ``inf`` entries (``-inf``
    when maximising) are forbidden; NaN (and ``-inf`` when minimising,
    ``+inf`` when maximising) raise; ``ValueError("cost matrix is
    infeasible ...")`` when the forbidden entries leave no full assignment.
    ``perfect`` does not apply.

    Edge lists and sparse matrices, ``perfect=False``:

    * ``maximize=True``: the maximum-weight matching, of any cardinality.
      A pair of weight <= 0 is never linked (leaving both unlinked is as
      good).  This is ``networkx.max_weight_matching`` on the bipartite graph.
    * ``maximize=False``: the cheapest matching among those of maximum
      cardinality (as ``networkx.min_weight_matching``; when a perfect
      matching of the smaller side exists, it is SciPy's
      ``min_weight_full_bipartite_matching``).  Minimising over matchings of
      any size would return the empty matching for non-negative costs.

    Exactness: integer weights are solved in int64 and the optimum is exact;
    weights spanning more than ``2**60 / (n + 1)`` (``n`` the number of
    records, both sides) are refused with a ``ValueError`` (the span counts
    from the lowest weight, a constant shift changing no optimum, except when
    maximising with unmatched records allowed, where it counts from 0).  Float
    weights are solved in float64 (scaled by a power of two, exactly) with the
    same arithmetic as SciPy's solvers: the result is optimal up to rounding,
    about ``n`` units in the last place of the largest weight.  When several
    assignments are optimal, which one is returned is deterministic for a
    given input but not otherwise specified; the CPU and GPU return the same
    optimal value.

    Algorithm (``README.md``, "Exact assignment"): Jonker and Volgenant's
    shortest augmenting paths (augmenting row reduction, then Dijkstra on
    reduced costs with a binary heap), warm-started on square problems by an
    ε-scaling auction (Bertsekas) whose prices are made exact before the
    searches.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> cost = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> cm.assignment(cost, backend="cpu")
    (array([0, 1, 2]), array([1, 0, 2]))
    >>> cand = pd.DataFrame({"left_id": [0, 1, 2, 0, 2], "right_id": [1, 2, 0, 0, 1],
    ...                      "score": [.9, .8, .95, .1, .2]})
    >>> cm.assignment(cand, "left_id", "right_id", "score", maximize=True, backend="cpu")
       left_id  right_id  score
    0        0         1   0.90
    1        1         2   0.80
    2        2         0   0.95
    """
    _check_flags(maximize, perfect, backend)
    maximize, perfect = bool(maximize), bool(perfect)
    if frame_library(data) is not None and hasattr(data, "columns"):
        be = resolve_backend(backend)
        return _edge_list_assignment(data, source, destination, weight, maximize, perfect, be)
    _refuse_graphs(data)
    if source is not None or destination is not None or weight not in (None, WEIGHT):
        raise TypeError("source, destination and weight name the columns of an edge list; "
                        f"a {type(data).__module__}.{type(data).__name__} has none")
    if type(data).__module__.startswith("scipy.sparse"):
        be = resolve_backend(backend)
        return _sparse_matrix_assignment(data, maximize, perfect, be)
    if _is_cupy(data):
        be = resolve_backend(backend)
        import cupy

        # validation and the exact finish run on the host (see assignment_gpu)
        rows, cols = _dense_assignment(data.get(), maximize, be)
        return cupy.asarray(rows), cupy.asarray(cols)
    if frame_library(data) is not None:
        raise TypeError(f"a {type(data).__name__} is neither an edge list (a DataFrame) nor a "
                        f"cost matrix")
    try:
        matrix = np.asarray(data)
    except Exception as err:
        raise TypeError(f"data must be a cost matrix, an edge list or a SciPy sparse matrix; "
                        f"got {type(data).__module__}.{type(data).__name__} ({err})") from None
    if matrix.dtype == object:
        raise TypeError(f"data must be a cost matrix, an edge list or a SciPy sparse matrix; "
                        f"got {type(data).__module__}.{type(data).__name__} holding objects")
    be = resolve_backend(backend)
    return _dense_assignment(matrix, maximize, be)
