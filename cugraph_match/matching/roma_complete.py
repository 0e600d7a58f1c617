"""ROMA on complete graphs (Hovland's thesis): a dense weight matrix, or points
whose Euclidean distances are the weights, computed when read.  The matching
is perfect (odd n: a padding vertex with zero edges); a change flips two
matching edges."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..structure.backend import Backend, resolve_backend, to_backend
from ..structure.checks import plain, require_unique_ids
from ..structure.validation import inexact_in_float64
from ..structure.output import matching_frame
from . import roma_cpu as cpu
from .properties import half_of_doubled_sum
from .roma_common import (LARGEST_SAFE_WEIGHT, RomaInfo, launch_threads, phase_orders,
                          require_symmetric, run_phases, start_name, too_large)

#: Where a phase may start on a complete graph: vertices paired in order (the
#: thesis'), or the greedy matching.
COMPLETE_STARTS = ("pairs", "greedy", "suitor")
#: Threads per block by default: the thesis' best (a block per matching edge).
DENSE_THREADS = 1024
#: Rows of the weight matrix checked at a time on the device (bounds the temporaries).
CHECK_ELEMENTS = 1 << 26


def _check_integer_matrix(matrix, xp) -> None:
    """An integer weight matrix: every off-diagonal |W[i, j]| <= 2**51 (the
    count and the first bad entry named); ``matrix`` as given, not converted."""
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        return  # the shape check names it
    columns = xp.arange(matrix.shape[0])
    (count,), (first,) = _count_in_bands(
        matrix, xp, lambda band, i, i0: (too_large(band) & (columns[None, :] != i),), 1)
    n = matrix.shape[0]
    if count:
        i, j = divmod(first, n)
        value = plain(to_backend(matrix[i, j:j + 1], np)[0])
        raise ValueError(f"weight matrix has {count} integer off-diagonal value(s) above 2**51 "
                         f"in magnitude, where float64 gains (sums of three weights) stop "
                         f"being exact; first is W[{i}, {j}] = {value!r}; convert it to float "
                         f"or scale it down")


@dataclass
class CompleteProblem:
    n: int  # real vertices
    size: int  # n rounded up to even (the padding vertex is n)
    matrix: Any  # (n, n), or (0, 0) for points
    points: Any  # (n, d), or (0, 1) for a matrix
    backend: Backend
    frame_lib: Any
    out_dtype: Any


def complete_problem(matrix, points, backend: str) -> CompleteProblem:
    be = resolve_backend(backend)
    xp = be.xp
    on_device = type(matrix if points is None else points).__module__.startswith("cupy")
    frame_lib = _cudf_or_pandas() if on_device else pd  # CuPy in, cuDF out
    if points is None:
        values = _numeric_array(matrix, "weight matrix", xp, _check_integer_matrix)
        if values.ndim != 2 or values.shape[0] != values.shape[1]:
            raise ValueError(f"weight matrix must be square (n × n), got shape {values.shape}")
        n = int(values.shape[0])
        _check_matrix(values, xp)
        _check_largest(values, xp)
        coords = xp.zeros((0, 1), dtype=np.float64)
        out_dtype = np.float32 if values.dtype == np.float32 else np.float64
    else:
        coords = _numeric_array(points, "points", xp)
        if coords.ndim != 2 or coords.shape[1] < 1:
            raise ValueError(f"points must be an (n, d) array with d >= 1, got shape "
                             f"{coords.shape}")
        n = int(coords.shape[0])
        finite = xp.isfinite(coords).all(axis=1)
        bad = int((~finite).sum())
        if bad:
            row = int(to_backend(xp.flatnonzero(~finite)[:1], np)[0])
            raise ValueError(f"points has {bad} row(s) with NaN or infinite coordinates; "
                             f"first is row {row}")
        if n:
            high, low = coords.max(axis=0).astype(np.float64), coords.min(axis=0).astype(np.float64)
            with np.errstate(over="ignore", invalid="ignore"):
                span = high - low
                bound = float((span * span).sum())
            if not np.isfinite(bound):
                raise ValueError("points are too far apart: their squared distances overflow "
                                 "float64 (the sum over coordinates of (max - min)**2 is not "
                                 "finite); scale them down")
            if float(span.max()) > 0.0 and bound < SMALLEST_SQUARED_SPAN:
                raise ValueError("points are too close together: their squared distances "
                                 "underflow float64 (the sum over coordinates of (max - min)**2 "
                                 "is below 2**-1000, and distances would read as 0); scale them "
                                 "up")
        values = xp.zeros((0, 0), dtype=np.float64)
        out_dtype = np.float64
    if n == 0:
        raise ValueError("the weight matrix (or points) is empty: there is no vertex to match")
    return CompleteProblem(n, n + (n & 1), values, coords, be, frame_lib, out_dtype)


#: Points whose squared spread is below this lose their distances to underflow.
SMALLEST_SQUARED_SPAN = 2.0**-1000


def _check_largest(matrix, xp) -> None:
    """No off-diagonal weight of 2**1021 or more: a flip's gain adds two
    weights, which overflowed to inf near 1.7e308 and took losing flips (an
    edge list is scaled down instead; a matrix is not copied for it)."""
    # float32 holds nothing that large off the diagonal (inf is refused there);
    # the diagonal may hold the largest value: it is never read
    if matrix.dtype != np.float64 or matrix.shape[0] < 2 or \
            float(matrix.max()) < LARGEST_SAFE_WEIGHT:
        return
    columns = xp.arange(matrix.shape[0])
    (count,), (first,) = _count_in_bands(
        matrix, xp,
        lambda band, i, i0: ((band >= LARGEST_SAFE_WEIGHT) & (columns[None, :] != i),), 1)
    if count:
        i, j = divmod(first, matrix.shape[0])
        value = plain(to_backend(matrix[i, j:j + 1], np)[0])
        raise ValueError(f"weight matrix has {count} off-diagonal value(s) of 2**1021 (about "
                         f"2.2e307) or more, where a flip's gain (a sum of weights) overflows "
                         f"float64; first is W[{i}, {j}] = {value!r}; scale it down")


def _cudf_or_pandas():
    try:
        import cudf

        return cudf
    except ImportError:  # CuPy without cuDF: results come back in pandas
        return pd


def _numeric_array(array, what: str, xp, check_integers=None):
    """``array`` on the backend, C-contiguous float32/float64 (integers become
    float64, float16 float32); never the caller's array modified.  Input that
    is not CuPy goes through ``np.asarray`` first (lists, DataFrames);
    ``check_integers(array, xp)`` checks integer input before the conversion."""
    if not type(array).__module__.startswith("cupy"):
        try:
            array = np.asarray(array)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{what} must be an array of real numbers, got "
                            f"{type(array).__name__} ({error})") from None
    dtype = array.dtype
    if dtype.kind == "b" or dtype.kind not in "iuf":
        raise TypeError(f"{what} must hold real numbers (integer or float), got dtype {dtype}")
    target = dtype if dtype in (np.float32, np.float64) else \
        (np.dtype(np.float32) if dtype == np.float16 else np.dtype(np.float64))
    if dtype.itemsize > 8 and isinstance(array, np.ndarray):
        _refuse_rounded_longdouble(array, what)
        array = array.astype(target)  # longdouble: no CuPy array holds it, cast before the move
    values = to_backend(array, xp)
    if dtype.kind in "iu" and check_integers is not None:
        check_integers(values, xp)
    return xp.ascontiguousarray(values.astype(target, copy=False))


def _refuse_rounded_longdouble(array: np.ndarray, what: str) -> None:
    """A longdouble weight matrix or points: a TypeError naming the count and
    the first value float64 would round (a weight matrix's diagonal is never
    read, so not checked), before the cast that would round it."""
    inexact = inexact_in_float64(array)
    if inexact is None:
        return
    matrix = what == "weight matrix"
    if matrix and inexact.ndim == 2 and inexact.shape[0] == inexact.shape[1]:
        np.fill_diagonal(inexact, False)
    if inexact.any():
        at = tuple(int(i) for i in np.argwhere(inexact)[0])
        name = "W" if matrix else "points"
        raise TypeError(f"{what} has {int(inexact.sum())} longdouble value(s) that float64, the "
                        f"dtype the kernels compute in, cannot hold exactly (rounded, "
                        f"overflowing to inf or underflowing to 0); first is "
                        f"{name}{list(at)} = {plain(array[at])!r}; cast it to float64 to accept "
                        f"the rounding")


def _check_matrix(matrix, xp) -> None:
    """Off-diagonal entries finite, non-negative and symmetric (the count and
    the first bad entry named); the diagonal is never read."""
    n = matrix.shape[0]
    if xp is np:
        counts, first = cpu.scan_weight_matrix(matrix, 64)
        counts, first = counts.tolist(), first.tolist()
    else:
        counts, first = _scan_matrix_xp(matrix, xp)
    what = ("NaN or infinite", "negative (weights must be >= 0)", "asymmetric")
    for k in range(3):
        if counts[k]:
            i, j = divmod(first[k], n)
            value = plain(to_backend(matrix[i, j:j + 1], np)[0])
            mirror = plain(to_backend(matrix[j, i:i + 1], np)[0])
            detail = (f"W[{i}, {j}] = {value!r} but W[{j}, {i}] = {mirror!r}" if k == 2
                      else f"W[{i}, {j}] = {value!r}")
            noun = "pair(s)" if k == 2 else "off-diagonal value(s)"
            raise ValueError(f"weight matrix has {counts[k]} {what[k]} {noun}; first is {detail}")


def _scan_matrix_xp(matrix, xp):
    """:func:`roma_cpu.scan_weight_matrix` with array operations (device)."""
    columns = xp.arange(matrix.shape[0])

    def masks(band, i, i0):
        off = columns[None, :] != i
        return (off & ~xp.isfinite(band),
                off & (band < 0),
                (columns[None, :] > i) & (band != matrix[:, i0:i0 + band.shape[0]].T))

    return _count_in_bands(matrix, xp, masks, 3)


def _count_in_bands(matrix, xp, masks_of, kinds: int):
    """Count the entries of each of the ``kinds`` masks ``masks_of(band, i, i0)``
    gives for a band of rows (``i`` the band's row numbers as a column, ``i0``
    the first), a band at a time to bound the temporaries; returns (counts,
    first flat index of each, -1 when none)."""
    n = matrix.shape[0]
    rows = max(1, CHECK_ELEMENTS // max(n, 1))
    counts, first = [0] * kinds, [-1] * kinds
    for i0 in range(0, n, rows):
        band = matrix[i0:i0 + rows]
        i = xp.arange(i0, i0 + band.shape[0])[:, None]
        for k, mask in enumerate(masks_of(band, i, i0)):
            count = int(mask.sum())
            if count:
                counts[k] += count
                if first[k] < 0:
                    first[k] = int(to_backend(xp.flatnonzero(mask.ravel())[:1], np)[0]) + i0 * n
    return counts, first


def _complete_start(problem: CompleteProblem, initial, threads):
    """The start matching (``mate`` over ``size`` vertices, perfect) on the backend."""
    xp = problem.backend.xp
    gpu = problem.backend.name == "gpu"
    name = start_name(initial, COMPLETE_STARTS, "pairs")
    size, n = problem.size, problem.n
    if name == "greedy":
        if gpu:
            from .roma_gpu import dense_greedy_gpu

            return dense_greedy_gpu(problem.matrix, problem.points, n, size, xp, threads)
        return cpu.dense_greedy(problem.matrix, problem.points, n, size)
    mate = np.full(size, -1, dtype=np.int64)
    if name is None:
        mate[:n] = _dense_initial(initial, n)
    free = np.flatnonzero(mate < 0)
    mate[free[0::2]] = free[1::2]
    mate[free[1::2]] = free[0::2]
    return to_backend(mate, xp)


def _dense_initial(frame, n: int) -> np.ndarray:
    """A ``vertex | mate`` frame over vertices 0..n-1 as a mate array (-1 unmatched)."""
    frame = frame.to_pandas() if hasattr(frame, "to_pandas") else frame
    require_unique_ids(frame["vertex"], "initial")
    mate = np.full(n, -1, dtype=np.int64)
    columns = {}
    for col in ("vertex", "mate"):
        values = frame[col]
        present = values.notna().to_numpy()
        ids = values[present]
        if len(ids) and ids.dtype.kind not in "iuf":
            raise TypeError(f"initial {col!r} must hold integer vertex ids 0..{n - 1} of the "
                            f"weight matrix, got dtype {ids.dtype}")
        as_float = ids.to_numpy(dtype=np.float64)
        bad = (as_float != np.round(as_float)) | (as_float < 0) | (as_float >= n)
        if col == "vertex" and not present.all():
            bad = np.concatenate([bad, np.ones(int((~present).sum()), dtype=bool)])
        if bad.any():
            first = ids.iloc[int(np.flatnonzero(bad)[0])] if np.flatnonzero(bad)[0] < len(ids) \
                else None
            raise ValueError(f"initial {col!r}: {int(bad.sum())} value(s) are not vertices "
                             f"0..{n - 1} of the weight matrix; first is {plain(first)!r}")
        columns[col] = (present, as_float.astype(np.int64))
    vertex = columns["vertex"][1]
    matched, mates = columns["mate"]
    mate[vertex[matched]] = mates
    require_symmetric(mate, lambda v: v)
    return mate


def roma_complete(problem: CompleteProblem, initial, phases, threshold, seed, threads_per_block):
    xp = problem.backend.xp
    gpu = problem.backend.name == "gpu"
    threads = launch_threads(threads_per_block, DENSE_THREADS, True)
    clock = time.perf_counter()
    mate = _complete_start(problem, initial, threads)
    matrix, points, n = problem.matrix, problem.points, problem.n
    mw = _dense_mate_weights_xp(problem, mate) if gpu else \
        cpu.dense_mate_weights(matrix, points, n, mate)
    info = RomaInfo(start_weight=half_of_doubled_sum(mw),
                    start_seconds=time.perf_counter() - clock)
    if gpu:
        from .roma_gpu import dense_phase_gpu

        locks = xp.full(problem.size, -1, dtype=np.int64)
        counters = xp.zeros(2, dtype=np.int64)
        run = lambda _: dense_phase_gpu(matrix, points, n, mate, mw, locks, threshold,  # noqa: E731
                                        counters, threads)
    else:
        run = lambda order: (cpu.dense_phase(matrix, points, n, mate, mw, order,  # noqa: E731
                                             float(threshold)),) * 2
    run_phases(run, None if gpu else phase_orders(seed, problem.size), phases, info, n,
               n * (n - 1) // 2, mw)
    info.weight = half_of_doubled_sum(mw)
    real = mate[:n]
    real = xp.where(real >= n, -1, real)  # the padding vertex's partner stays unmatched
    lib = problem.frame_lib
    ids = np.arange(n, dtype=np.int64) if lib is pd else xp.arange(n, dtype=np.int64)
    frame = matching_frame(lib.Series(ids, name="vertex"), lib, real,
                           mw[:n].astype(problem.out_dtype))
    return frame, info


def _dense_mate_weights_xp(problem: CompleteProblem, mate):
    xp = problem.backend.xp
    v = xp.arange(problem.size)
    real = (v < problem.n) & (mate < problem.n)
    vv, mm = xp.minimum(v, problem.n - 1), xp.minimum(mate, problem.n - 1)
    if problem.points.shape[0]:
        d = problem.points[vv].astype(np.float64) - problem.points[mm].astype(np.float64)
        w = xp.sqrt((d * d).sum(axis=1))
    else:
        w = problem.matrix[vv, mm].astype(np.float64)
    return xp.where(real, w, 0.0)
