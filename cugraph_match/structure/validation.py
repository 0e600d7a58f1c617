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
import pandas as pd

from . import pipeline_cpu as host
from .checks import describe_row, first_true, not_numbers
from .inputs import EdgeInput


def _describe_position(edges: EdgeInput, position: int) -> str:
    """'row <label> (src=…, dst=…, weight=…)' for the row at ``position``."""
    cols = [c for c in (edges.source, edges.destination, edges.weight) if c is not None]
    return describe_row(edges.frame, position, cols)


def null_or_nan(series):
    """Mask of the nulls of a column and, in a pandas float column backed by
    Arrow or a nullable ``Float64`` array, of its NaN values too: there NaN is
    a value, not a null, and ``isna()`` does not see it (NumPy float columns
    and cuDF ones report NaN through ``isna()`` already)."""
    nulls = series.isna()
    dtype = series.dtype
    if (type(series).__module__.startswith("pandas") and not isinstance(dtype, np.dtype)
            and getattr(dtype, "kind", None) == "f"):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        nulls = nulls | pd.Series(np.isnan(values), index=series.index)
    return nulls


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
    "inexact": (TypeError, "weight column {col!r} has {count} longdouble value(s) that float64, "
                           "the dtype the kernels compute in, cannot hold exactly (rounded, "
                           "overflowing to inf or underflowing to 0); first is {row}; cast the "
                           "column to float64 to accept the rounding"),
    "nan": (ValueError, "weight column {col!r} has {count} null/NaN value(s); first is {row}"),
    "infinite": (ValueError, "weight column {col!r} has {count} infinite value(s); "
                             "first is {row}"),
    "non_positive": (ValueError, "weight column {col!r} has {count} zero or negative value(s) "
                                 "(weights must be positive); first is {row}"),
}
EMPTY_MESSAGE = "the edge list is empty: the graph has no vertex"
#: The weight checks in the order :func:`edge_problems` makes them (the
#: distributed paths raise the first one with bad rows in any partition).
WEIGHT_CHECKS = ("non_numeric", "dtype", "inexact", "nan", "infinite", "non_positive")


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
        nulls = null_or_nan(frame[col])
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
            return
        # Python numbers: read exactly (int64/uint64 for integers, float64 otherwise)
        values = w.astype(object_weight_dtype(w, lambda mask: _describe_row(edges, mask),
                                              col)).to_numpy()
        yield from _numpy_weight_problems(edges, col, values)
        return
    if kind not in ("i", "u", "f"):
        yield "dtype", col, 0, w.dtype
        return
    values = _numpy_column(w)
    if values is not None:
        yield from _numpy_weight_problems(edges, col, values)
        return
    nulls = null_or_nan(w)
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


def native_weight_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype weights are computed in: float32 and float64 stay, other
    floats (float16, longdouble, a non-native byte order) become float64,
    integers int64 or uint64 (exact)."""
    if dtype.kind == "f":
        return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)
    return np.dtype(np.uint64 if dtype.kind == "u" else np.int64)


def native_values(values: np.ndarray) -> np.ndarray:
    """NumPy weights the numba scans can read: native-order integers of any
    width, float32 and float64 as they are; others converted as
    :func:`native_weight_dtype` says -- a copy, the caller's array untouched."""
    dtype = values.dtype
    if dtype.kind in "iu" and dtype.isnative:
        return values
    target = native_weight_dtype(dtype)
    return values if dtype == target else values.astype(target)


def inexact_in_float64(values: np.ndarray) -> np.ndarray | None:
    """Mask of the values of a float array wider than 64 bits (longdouble)
    that float64 does not hold exactly, or None for any other array (every
    float16/float32 value and every integer kept as an integer is exact).
    NaN is left to the NaN check."""
    if values.dtype.kind != "f" or values.dtype.itemsize <= 8:
        return None
    with np.errstate(over="ignore", under="ignore"):
        rounded = values.astype(np.float64)
    return (rounded != values) & ~np.isnan(values)


def _numpy_weight_problems(edges: EdgeInput, col: str, values: np.ndarray):
    """One pass over a NumPy weight column (see the module notes)."""
    inexact = inexact_in_float64(values)
    if inexact is not None and inexact.any():
        # before the cast below: 1e4000 would be reported as infinite and
        # 1e-4000 as zero, and 1 + 2**-60 would tie with 1
        yield "inexact", col, int(inexact.sum()), _describe_position(edges,
                                                                     int(np.argmax(inexact)))
        return
    values = native_values(values)
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


def object_weight_dtype(w, where, col: str, positive: bool = True) -> np.dtype:
    """The dtype an object weight column of Python numbers is read as, exactly.

    Integers only: int64, or uint64 when one passes 2**63 - 1 and none is
    negative (integer weights are their own sort keys, exact at any size).
    Floats, or floats beside integers up to 2**53: float64.  Anything float64
    or one 64-bit integer dtype cannot hold exactly raises a TypeError naming
    the column, the count and the first such row (``where(mask)``).
    ``positive``: the caller's weights must be positive (the graphs'), so a
    zero or negative weight beside ones past 2**63 - 1 is named as such;
    else (the assignment's costs) only a negative one conflicts with uint64.
    """
    integral = w.map(lambda x: isinstance(x, numbers.Integral)).astype(bool)
    if bool(integral.all()):
        if len(w) == 0:
            return np.dtype(np.int64)
        if bool(w.map(lambda x: -2**63 <= x < 2**63).all()):
            return np.dtype(np.int64)
        outside = ~w.map(lambda x: -2**63 <= x < 2**64).astype(bool)
        if bool(outside.any()):
            raise TypeError(f"weight column {col!r} has {int(outside.sum())} integer weight(s) "
                            f"outside the 64-bit range (int64, or uint64 up to 2**64 - 1); "
                            f"first is {where(outside)}")
        if positive:
            non_positive = w.map(lambda x: x <= 0).astype(bool)
            if bool(non_positive.any()):  # beside weights past 2**63 - 1: no one integer dtype
                raise bad_rows_error("non_positive", col, int(non_positive.sum()),
                                     where(non_positive))
        negative = w.map(lambda x: x < 0).astype(bool)
        if bool(negative.any()):
            raise TypeError(f"weight column {col!r} has {int(negative.sum())} negative integer "
                            f"weight(s) beside weights past 2**63 - 1, which no one 64-bit "
                            f"integer type holds (int64 ends at 2**63 - 1, uint64 begins at "
                            f"0); first is {where(negative)}")
        return np.dtype(np.uint64)
    wide = w.map(lambda x: isinstance(x, np.floating) and x.dtype.itemsize > 8
                 and not np.isnan(x) and np.float64(x) != x).astype(bool)
    if bool(wide.any()):  # longdouble scalars, as a longdouble column is checked
        raise bad_rows_error("inexact", col, int(wide.sum()), where(wide))
    inexact = integral & ~w.map(lambda x: isinstance(x, numbers.Integral)
                                and -2**53 <= x <= 2**53).astype(bool)
    if bool(inexact.any()):
        raise TypeError(f"weight column {col!r} mixes floats with {int(inexact.sum())} integer "
                        f"weight(s) beyond 2**53, which float64 cannot order exactly; first is "
                        f"{where(inexact)}; give the column one dtype (integers only are read "
                        f"exactly as int64 or uint64)")
    return np.dtype(np.float64)
