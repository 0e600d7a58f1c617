"""Validation at the boundary: every bad input is refused with the column (or
argument), the number of bad rows and the first one, before anything
reaches a kernel.

Edge lists are checked by :func:`validate`.  For the common case, a pandas
frame with NumPy columns, one ``numba`` pass over the weights counts NaN,
infinite and non-positive values at once (the ids of an integer column
cannot be null); only when something is wrong are the frame-level masks
built, to name the first bad row.  cuDF frames are checked with Series
operations that run on the device.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import pipeline_cpu as host
from .inputs import EdgeInput


def plain(value):
    """A NumPy scalar as the Python value, so messages read ``3``, not ``np.int64(3)``."""
    return value.item() if isinstance(value, np.generic) else value


def _describe_position(edges: EdgeInput, position: int) -> str:
    """'row <label> (src=…, dst=…, weight=…)' for the row at ``position``."""
    frame = edges.frame
    cols = [c for c in (edges.source, edges.destination, edges.weight) if c is not None]
    bad = frame[cols].iloc[position:position + 1]
    if hasattr(bad, "to_pandas"):
        bad = bad.to_pandas()
    values = ", ".join(f"{c}={bad[c].iloc[0]!r}" for c in cols)
    return f"row {bad.index[0]!r} ({values})"


def first_true(mask) -> int:
    """Position of the first True of a boolean Series or array (pandas, cuDF, NumPy, CuPy)."""
    values = mask.to_numpy() if hasattr(mask, "to_numpy") else mask
    if hasattr(values, "get"):
        values = values.get()
    return int(np.flatnonzero(np.asarray(values))[0])


def not_numbers(series, integral: bool = False):
    """Mask of the values of an object column that are not numbers (not
    integers with ``integral``); booleans never count as numbers.

    pandas object columns hold Python objects, checked one by one.  A cuDF
    column of dtype object holds strings, none of them a number; its
    ``map`` would compile the lambda as a UDF and fail on strings instead of
    answering, so it is not used there.
    """
    if type(series).__module__.startswith("cudf"):
        return series.notna()
    kind = numbers.Integral if integral else numbers.Real
    return ~series.map(lambda x: isinstance(x, kind) and not isinstance(x, bool)).astype(bool)


def _describe_row(edges: EdgeInput, mask) -> str:
    return _describe_position(edges, first_true(mask))


def _numpy_column(series) -> np.ndarray | None:
    """The column's NumPy values when it is a pandas column of a NumPy dtype."""
    if type(series).__module__.startswith("pandas") and isinstance(series.dtype, np.dtype):
        return series.to_numpy()
    return None


# What each per-row check reports: the exception and the message, filled with
# the column, the number of bad rows and the first one.  The distributed path
# (``cugraph_match.dask``) counts the same checks partition by partition and
# raises through :func:`bad_rows_error`, so both paths say the same thing.
BAD_ROW_MESSAGES = {
    "null_id": (ValueError, "column {col!r} has {count} null vertex id(s); first is {row}"),
    "non_numeric": (TypeError, "weight column {col!r} has {count} non-numeric value(s); "
                               "first is {row}"),
    "nan": (ValueError, "weight column {col!r} has {count} null/NaN value(s); first is {row}"),
    "infinite": (ValueError, "weight column {col!r} has {count} infinite value(s); "
                             "first is {row}"),
    "non_positive": (ValueError, "weight column {col!r} has {count} zero or negative value(s) "
                                 "(weights must be positive); first is {row}"),
}
EMPTY_MESSAGE = "the edge list is empty: there is no vertex to match"


def bad_rows_error(kind: str, col: str, count: int, row: str) -> Exception:
    """The exception :func:`validate` raises for ``count`` bad rows of one check."""
    error, template = BAD_ROW_MESSAGES[kind]
    return error(template.format(col=col, count=count, row=row))


def weight_dtype_error(col: str, dtype) -> TypeError:
    return TypeError(f"weight column {col!r} must be numeric (integer or float), got dtype {dtype}")


def edge_problems(edges: EdgeInput):
    """The checks of :func:`validate` in order, lazily: yields ``(kind, column,
    count, first bad row)`` for every check with bad rows, and
    ``("dtype", column, 0, dtype)`` for a weight column that is not numeric
    (after which nothing more is checked)."""
    frame = edges.frame
    for col in (edges.source, edges.destination):
        values = _numpy_column(frame[col])
        if values is not None and values.dtype.kind in "iu":
            continue  # an integer NumPy column holds no nulls
        nulls = frame[col].isna()
        n_bad = int(nulls.sum())
        if n_bad:
            yield "null_id", col, n_bad, _describe_row(edges, nulls)
    if edges.weight is None:
        return
    col = edges.weight
    w = frame[col]
    kind = getattr(w.dtype, "kind", None)
    if kind == "O":
        bad = not_numbers(w)
        n_bad = int(bad.sum())
        if n_bad:
            yield "non_numeric", col, n_bad, _describe_row(edges, bad)
    if kind not in ("i", "u", "f"):
        yield "dtype", col, 0, w.dtype
        return
    values = _numpy_column(w)
    if values is not None:
        yield from _numpy_weight_problems(edges, col, values)
        return
    nulls = w.isna()
    n_bad = int(nulls.sum())
    if n_bad:
        yield "nan", col, n_bad, _describe_row(edges, nulls)
    if kind == "f":
        infinite = (w == np.inf) | (w == -np.inf)
        n_bad = int(infinite.sum())
        if n_bad:
            yield "infinite", col, n_bad, _describe_row(edges, infinite)
    non_positive = w <= 0
    n_bad = int(non_positive.sum())
    if n_bad:
        yield "non_positive", col, n_bad, _describe_row(edges, non_positive)


def problem_error(kind: str, col: str, count: int, detail) -> Exception:
    """The exception of one problem as :func:`edge_problems` yields it."""
    if kind == "dtype":
        return weight_dtype_error(col, detail)
    return bad_rows_error(kind, col, count, detail)


def validate(edges: EdgeInput) -> None:
    """Raise a ValueError/TypeError naming the column, the count and the first bad row."""
    if len(edges.frame) == 0 and (edges.extra_vertices is None or len(edges.extra_vertices) == 0):
        raise ValueError(EMPTY_MESSAGE)
    for problem in edge_problems(edges):
        raise problem_error(*problem)


def _numpy_weight_problems(edges: EdgeInput, col: str, values: np.ndarray):
    """One pass over a NumPy weight column (see the module notes)."""
    if values.dtype.kind == "f":
        nan, first_nan, inf, first_inf, nonpos, first_nonpos = host.scan_float_weights(values)
        if nan:
            yield "nan", col, nan, _describe_position(edges, first_nan)
        if inf:
            yield "infinite", col, inf, _describe_position(edges, first_inf)
    else:
        nonpos, first_nonpos = host.scan_integer_weights(values)
    if nonpos:
        yield "non_positive", col, nonpos, _describe_position(edges, first_nonpos)


def require_vertex_frame(frame, columns, what: str) -> None:
    """A per-vertex frame (matching, partition, capacities) must be a DataFrame
    with ``columns``; raise naming ``what`` and the missing columns."""
    if not hasattr(frame, "columns"):
        raise TypeError(f"{what} must be a {'|'.join(columns)} DataFrame, got "
                        f"{type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} frame lacks column(s) {missing}; it has {list(frame.columns)}")


def require_unique_ids(ids, what: str) -> None:
    """Raise naming ``what``, the count and the first repeated id."""
    duplicated = ids.duplicated()
    count = int(duplicated.sum())
    if count:
        first = ids[duplicated].iloc[0]
        raise ValueError(f"{what}: {count} vertex id(s) appear more than once; "
                         f"first is {plain(first)!r}")
