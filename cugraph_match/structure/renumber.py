"""Caller ids -> internal ids ``0..n-1`` in the sorted order of the ids, and back.

Internal order equals caller order, so comparing internal ids compares the
caller's ids: the tie rule of the matchings is stated on caller ids and
holds on internal ones.

Three ways, fastest first:

* **dense** (integer ids whose range is at most a few times their count,
  the usual case): mark the ids present in a table over the range, count
  the marks below each slot, look every id up.  Linear, no sort.
* **sorted** (integer ids spread wide, e.g. hashes): one integer sort of
  ``id - min`` with positions (``sort_cpu``; CuPy's radix sort on the
  device), codes assigned in one walk.
* **factorize** (strings, floats, objects): the frame library's own
  ``factorize(sort=True)``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from . import pipeline_cpu as host
from .backend import to_backend
from .edges import index_dtype
from .sort_cpu import bit_width, sort_with_positions

# A table of this many slots per id (or 2**16 slots, whichever is more) is
# cheaper than sorting the ids.
DENSE_SLOTS_PER_ID = 2


def category_values(series):
    """A categorical id column as its values (the categories' dtype).

    Ids are ordered by value everywhere: a categorical column sorted by its
    category order would order its ids differently from the same ids in a
    plain column, or in a second categorical column with other categories.
    Any other column is returned as it is.
    """
    dtype = series.dtype
    if getattr(dtype, "name", None) == "category" or type(dtype).__name__ == "CategoricalDtype":
        return series.astype(dtype.categories.dtype)
    return series


def unorderable_types(ids) -> list[str] | None:
    """The Python types of an object id column when its values cannot be
    ordered together (say ints and strings), else None.

    One type throughout (tuples from ``nx.grid_2d_graph``, say) or numbers of
    any kind (ints and floats compare exactly in Python) can be ordered.
    """
    types = {type(x) for x in ids}
    if len(types) <= 1:
        return None
    if all(issubclass(t, numbers.Real) and not issubclass(t, (bool, np.bool_)) for t in types):
        return None
    return sorted(t.__name__ for t in types)


def describe_id_types(ids) -> str:
    """What kind of ids a column holds, for messages: its dtype, or for an
    object column the Python types of its values."""
    dtype = getattr(ids, "dtype", None)
    if dtype is not None and dtype != object:
        return str(dtype)
    names = sorted({type(x).__name__ for x in ids if not _is_null(x)})
    return "/".join(names) if names else "no value"


def _is_null(value) -> bool:
    """None, NaN or pandas' NA/NaT."""
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # array-like values (tuples) are not null
        return False


def common_integer_ids(parts):
    """Cast integer id columns to one integer dtype (NumPy would promote int64 +
    uint64 to float64, which merges ids above 2**53)."""
    dtypes = [getattr(p.dtype, "numpy_dtype", p.dtype) for p in parts]
    if not all(isinstance(d, np.dtype) and d.kind in "iu" for d in dtypes):
        return parts
    common = np.result_type(*dtypes)
    if common.kind != "f":
        return parts
    if all(int(p.max()) <= np.iinfo(np.int64).max for p in parts if len(p) and p.dtype.kind == "u"):
        return [p.astype(np.int64) for p in parts]
    if all(int(p.min()) >= 0 for p in parts if len(p) and p.dtype.kind == "i"):
        return [p.astype(np.uint64) for p in parts]
    if any(type(p).__module__.startswith("cudf") for p in parts):
        # cuDF has no column of Python ints: astype(object) would make strings,
        # which order lexicographically
        raise TypeError("vertex ids mix negative int64 values with uint64 values above "
                        "2**63 - 1; no integer dtype holds both: cast the id columns to one")
    return [p.astype(object) for p in parts]


def native_byte_order(part):
    """A numeric column in native byte order, the same dtype otherwise (a new
    Series only when its order is not native): Numba reads no other, nor do
    pandas' row takes.  Other columns as they are."""
    dtype = part.dtype
    if isinstance(dtype, np.dtype) and not dtype.isnative:
        return part.astype(dtype.newbyteorder("="))
    return part


def native_ids(part, what: str):
    """A NumPy-backed id column the numba kernels can read, as a new Series
    (the caller's is never modified): float16 ids become float64 (exact);
    longdouble ids float64 when that is exact, else a TypeError naming
    ``what``; a non-native byte order the same dtype in native order."""
    dtype = part.dtype
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iuf":
        return part
    if dtype.kind == "f" and dtype.itemsize not in (4, 8):
        values = part.to_numpy()
        cast = values.astype(np.float64)
        differ = (cast.astype(dtype) != values) & ~np.isnan(values)
        if differ.any():
            at = int(np.flatnonzero(differ)[0])
            raise TypeError(f"{what}: {int(differ.sum())} id(s) of dtype {dtype} are not exact "
                            f"as float64; first is {values[at]!r}; give the ids an integer, "
                            f"float64 or string dtype")
        return part.astype(np.float64)
    return native_byte_order(part)


def _integer_dtype(part) -> np.dtype | None:
    dtype = part.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return dtype
    return None


def renumber(parts: list, lib, xp, what: str) -> tuple[list, Any]:
    """Internal ids of every part (Series of caller ids) and the labels.

    Returns one ``xp`` code array per part (int32 below 2**31 vertices, else
    int64) and the sorted distinct ids as a Series of ``lib`` named
    ``vertex``.  ``what`` names the ids in errors.
    """
    parts = [native_ids(category_values(p), what) for p in parts]
    present = [p for p in parts if len(p)]
    if present:
        cast = iter(common_integer_ids(present))
        parts = [next(cast) if len(p) else p for p in parts]
    dtypes = {_integer_dtype(p) for p in parts if len(p)}
    if len(dtypes) == 1 and None not in dtypes:
        dtype = dtypes.pop()
        if lib is pd:
            codes, labels = _integer_host([p.to_numpy() for p in parts], dtype)
            return [to_backend(c, xp) for c in codes], pd.Series(labels, name="vertex")
        import cupy  # a cuDF frame: renumber where its columns live

        codes, labels = _integer_xp([p.to_cupy() for p in parts], dtype, cupy)
        return [to_backend(c, xp) for c in codes], lib.Series(labels, name="vertex")
    _refuse_inexact_float_promotion(parts, what)
    return _factorize(parts, lib, xp, what)


def renumber_integer_arrays(arrays: list, xp) -> tuple[list, Any]:
    """Integer id arrays of one dtype, already in ``xp``, renumbered together:
    one code array per input (int32 below 2**31 ids, else int64) and the
    sorted distinct ids as an ``xp`` array of that dtype.  The integer path
    of :func:`renumber`, for callers that hold plain arrays rather than
    Series (a Dask worker's pieces on its GPU)."""
    dtype = arrays[0].dtype
    if xp is np:
        return _integer_host(arrays, dtype)
    return _integer_xp(arrays, dtype, xp)


def _refuse_inexact_float_promotion(parts, what: str) -> None:
    """Integer id columns beside float ones are joined as float64, which would
    merge integer ids beyond 2**53 that float64 cannot hold exactly (2**53 and
    2**53 + 1, say): raise a TypeError naming ``what`` unless every integer id
    is exact as float64."""
    kinds = [getattr(getattr(p.dtype, "numpy_dtype", p.dtype), "kind", None)
             for p in parts if len(p)]
    if "f" not in kinds:
        return
    for p in parts:
        dtype = getattr(p.dtype, "numpy_dtype", p.dtype)
        if not len(p) or getattr(dtype, "kind", None) not in ("i", "u"):
            continue
        values = p.to_numpy() if isinstance(p.dtype, np.dtype) else \
            p.dropna().to_numpy(dtype=dtype)
        if hasattr(values, "get"):  # pragma: no cover - a cuDF column on the device
            values = values.get()
        big = (values > 2**53) | (values < -2**53) if dtype.kind == "i" else values > 2**53
        if not big.any():
            continue
        wide = values[big]
        # as Python ints: casting float64 back to the dtype can wrap at its top
        inexact = np.array([int(float(v)) != int(v) for v in wide.tolist()], dtype=bool)
        if inexact.any():
            first = wide[np.flatnonzero(inexact)[0]]
            raise TypeError(f"{what} mix integer ids with float ids, and {int(inexact.sum())} "
                            f"integer id(s) beyond 2**53 (first is {int(first)}) would be "
                            f"rounded, and merged, as float64; give the id columns (and "
                            f"vertices) one dtype")


def _shifted_back(offsets, low: int, dtype):
    """``offsets + low`` in ``dtype``, for uint64 offsets from ``low``: wrapping
    64-bit arithmetic gives the exact id for signed and unsigned dtypes."""
    wide = np.dtype(np.int64) if dtype.kind == "i" else np.dtype(np.uint64)
    return (offsets.astype(np.uint64) + np.uint64(low % 2**64)).view(wide).astype(dtype)


def _bounds(arrays):
    lows, highs = [], []
    for a in arrays:
        if a.shape[0]:
            lo, hi = host.min_max(a)
            lows.append(int(lo))
            highs.append(int(hi))
    return min(lows), max(highs)


def _integer_host(arrays, dtype):
    """Renumber integer id arrays on the host (dense table or integer sort)."""
    arrays = [a.astype(dtype, copy=False) for a in arrays]
    total = sum(a.shape[0] for a in arrays)
    if total == 0:
        return [np.zeros(0, dtype=np.int32) for _ in arrays], np.zeros(0, dtype=dtype)
    low, high = _bounds(arrays)
    span = high - low + 1
    low_value = dtype.type(low)
    if span <= max(DENSE_SLOTS_PER_ID * total, 2**16):
        marks = np.zeros(span, dtype=np.uint8)
        for a in arrays:
            host.mark_present(a, low_value, marks)
        code_of = np.empty(span, dtype=index_dtype(span))
        count = host.dense_codes(marks, code_of)
        offsets = np.flatnonzero(marks)
        del marks
        labels = _shifted_back(offsets, low, dtype)
        codes = []
        for a in arrays:
            out = np.empty(a.shape[0], dtype=index_dtype(count))
            host.lookup_codes(a, low_value, code_of, out)
            codes.append(out)
        return codes, labels
    keys = np.empty(total, dtype=np.uint64)
    start = 0
    for a in arrays:
        host.offset_keys(a, low_value, keys[start:start + a.shape[0]])
        start += a.shape[0]
    sorted_keys, positions = sort_with_positions(keys, bit_width(span - 1))
    del keys
    all_codes = np.empty(total, dtype=index_dtype(total))
    values = host.codes_from_sorted(sorted_keys, positions, all_codes)
    del sorted_keys, positions
    labels = _shifted_back(values, low, dtype)
    codes, start = [], 0
    for a in arrays:
        codes.append(all_codes[start:start + a.shape[0]])
        start += a.shape[0]
    return codes, labels


def _integer_xp(arrays, dtype, xp):
    """:func:`_integer_host` on the device: the dense table filled and read by
    kernels (no index temporaries), or CuPy's sort-based ``unique``."""
    from . import pipeline_gpu as dev

    arrays = [a.astype(dtype, copy=False) for a in arrays]
    total = sum(int(a.shape[0]) for a in arrays)
    if total == 0:
        return [xp.zeros(0, dtype=np.int32) for _ in arrays], xp.zeros(0, dtype=dtype)
    low = min(int(a.min()) for a in arrays if a.shape[0])
    high = max(int(a.max()) for a in arrays if a.shape[0])
    span = high - low + 1
    shift = dtype.type(low)
    if span <= max(DENSE_SLOTS_PER_ID * total, 2**16):
        marks = xp.zeros(span, dtype=np.uint8)
        for a in arrays:
            dev.launch(dev.mark_present, int(a.shape[0]), xp, a, shift, marks)
        code_of = xp.cumsum(marks, dtype=index_dtype(span + 1)) - 1
        labels = _shifted_back(xp.flatnonzero(marks), low, dtype)
        del marks
        codes = []
        for a in arrays:
            out = xp.empty(a.shape[0], dtype=index_dtype(span))
            dev.launch(dev.lookup_codes, int(a.shape[0]), xp, a, shift, code_of, out)
            codes.append(out)
        return codes, labels
    joined = xp.concatenate(arrays)
    labels, inverse = xp.unique(joined, return_inverse=True)
    inverse = inverse.ravel().astype(index_dtype(total))
    codes, start = [], 0
    for a in arrays:
        codes.append(inverse[start:start + a.shape[0]])
        start += a.shape[0]
    return codes, labels.astype(dtype)


def _factorize(parts, lib, xp, what: str):
    """Any orderable ids (strings, floats, objects): the frame library's factorize."""
    ids = lib.concat(parts, ignore_index=True)
    if lib is pd and ids.dtype == object:
        mixed = unorderable_types(ids)
        if mixed:
            raise TypeError(f"{what} cannot be ordered (mixed types: {mixed}); give every "
                            f"id the same type")
    try:
        codes, uniques = lib.factorize(ids, sort=True)
    except TypeError as err:
        raise TypeError(f"{what} cannot be ordered (mixed types?): {err}") from None
    labels = lib.Series(uniques, name="vertex")
    codes = to_backend(codes if not hasattr(codes, "values") else codes.values, xp)
    codes = codes.astype(index_dtype(max(len(labels), 1)), copy=False)
    out, start = [], 0
    for p in parts:
        out.append(codes[start:start + len(p)])
        start += len(p)
    return out, labels
