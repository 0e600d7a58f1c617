"""ROMA: local search past the ½ of greedy matchings, by random-order phases of
maximum-gain 2-augmentations (Maue and Sanders; on the GPU after Hovland,
"Maximum weighted matching on a GPU", 2020)."""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..structure.backend import Backend, resolve_backend, to_backend
from ..structure.edges import find_edges
from ..structure.graph import Graph, as_graph, internal_ids
from ..structure.inputs import DEFAULT_WEIGHT, frame_library
from ..structure.output import matching_frame
from ..structure.progress import log_step, progress_enabled
from ..structure.validation import (numpy_seed, plain, require_unique_ids,
                                    require_vertex_frame)
from . import roma_cpu as cpu

#: Where a phase may start: the greedy matching (Suitor's), an empty one
#: (sparse graphs), or vertices paired in order (complete graphs, the thesis').
SPARSE_STARTS = ("greedy", "suitor", "empty")
COMPLETE_STARTS = ("pairs", "greedy", "suitor")
#: Threads per block by default: the thesis' best for complete graphs (a block
#: per matching edge), four warps for sparse graphs (a warp per centre).
DENSE_THREADS = 1024
SPARSE_THREADS = 128
#: Rows of the weight matrix checked at a time on the device (bounds the temporaries).
CHECK_ELEMENTS = 1 << 26
#: Integer weights above this in magnitude are refused: gains are computed in
#: float64, which holds every integer only up to 2**53, and a rounded gain could
#: make a "gaining" augmentation lose weight.
EXACT_INTEGER_LIMIT = 2**53


@dataclass
class RomaInfo:
    """What a :func:`roma_matching` run did (``return_info=True``).

    ``flips[i]`` is the number of augmentations applied in phase i (flips on
    complete graphs); ``attempts[i]`` the number tried under locks on the
    GPU (equal to ``flips`` on the CPU, where nothing races); ``phase_seconds``
    the wall time of each phase; ``start_seconds`` the time to build the
    start matching.  ``converged`` is True when the last phase applied
    nothing: then no augmentation gains more than the threshold.
    """

    start_weight: float
    weight: float = 0.0
    flips: list = field(default_factory=list)
    attempts: list = field(default_factory=list)
    phase_seconds: list = field(default_factory=list)
    start_seconds: float = 0.0
    converged: bool = False

    @property
    def phases(self) -> int:
        return len(self.flips)


def roma_matching(graph: Any = None, source: str = "src", destination: str = "dst",
                  weight: str | None = DEFAULT_WEIGHT, *, points: Any = None,
                  initial: Any = None, phases: int = 8, threshold: float = 1e-5,
                  seed: int = 0, backend: str = "auto", threads_per_block: int | None = None,
                  return_info: bool = False):
    """A heavier matching than greedy, by ROMA local search (expected 2/3 − ε).

    Starting from ``initial``, each phase visits every vertex v (on the CPU in
    a random order drawn from ``seed``) and applies the maximum-gain
    2-augmentation centred at v when it gains more than ``threshold``: an
    alternating path or cycle of at most two non-matching edges, each at v
    or v's mate.  That is, v takes a new mate a and v's old mate u takes a
    new mate b (either may be none), and the old mates of a and b become
    unmatched; when a and b were mates of each other it is a 4-cycle, when
    unmatched an augmenting path.  Phases stop after ``phases`` or after one
    that changes nothing (a local optimum, every 2-augmentation gains at
    most ``threshold``).  On a graph, a local optimum for ``threshold=0``
    (no centred 2-augmentation gains) has at least 2/3 of the maximum
    weight.  On a complete graph only flips are tried, so a local optimum
    is a flip-local optimum, which guarantees only 1/2 (2/3 is not
    guaranteed: a 6-vertex weight matrix started from ``"pairs"`` converges
    at 4 where the maximum is 7).  The weight never decreases.

    Two kinds of graph:

    * **a graph** (an edge list, ``cm.Graph``, cuGraph/NetworkX graph or
      SciPy sparse matrix, as for :func:`~cugraph_match.suitor_matching`):
      the general centred 2-augmentations above, from the greedy matching
      (Suitor's) by default;
    * **a complete graph**: ``graph`` a dense symmetric ``n × n`` weight
      matrix (NumPy, or CuPy for the GPU; every off-diagonal pair is an
      edge, zeros included; the diagonal is ignored), or ``points`` (an
      ``n × d`` array) whose Euclidean distances are the weights, computed
      when read (no matrix).  As in Hovland's thesis the matching is perfect
      (an odd n gets a padding vertex whose edges weigh 0) and an
      augmentation flips two matching edges (u, mu), (x, y) into (u, x),
      (mu, y) or (u, y), (mu, x).  Default start: vertices paired in order
      (0-1, 2-3, ...), as in the thesis.

    Parameters
    ----------
    graph : cm.Graph, DataFrame, cugraph.Graph, networkx.Graph, scipy.sparse matrix, or a 2-D NumPy/CuPy array
        The graph (see above); leave it out when giving ``points``.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`
        (not for matrices or points).  Gains are computed in float64, so
        integer weights (edge lists, integer weight matrices) must be at
        most 2**53 in magnitude (exact in float64); larger ones are refused.
    points : array-like of shape (n, d), optional
        Coordinates of a complete geometric graph: a NumPy or CuPy array, or
        anything NumPy turns into a real array (nested lists, a DataFrame).
        They must be finite and their squared distances too (each
        coordinate's range squared, summed, must not overflow float64).
    initial : DataFrame or str, optional
        The start: a ``vertex | mate`` frame (a matching of the graph, e.g.
        from :func:`~cugraph_match.suitor_matching`; vertices without a row
        start unmatched; a ``weight`` column is ignored), ``"greedy"`` (alias
        ``"suitor"``), ``"empty"`` (graphs) or ``"pairs"`` (complete graphs).
        On a complete graph a start that is not perfect is completed by
        pairing its unmatched vertices in order.
    phases : int
        At most this many phases (8 by default, as the thesis; 0 returns the start).
    threshold : float
        Only changes gaining more than this are made (1e-5, the thesis' value;
        ≥ 0).  It stops long tails of negligible flips.
    seed : int
        Seed of the CPU's random vertex orders: the same seed gives the same
        matching (any int; a negative one is taken modulo 2**64, as
        :func:`~cugraph_match.louvain` does).  The GPU's order is the
        hardware's (not deterministic).
    backend : {"auto", "gpu", "cpu"}
    threads_per_block : int, optional
        GPU launch: threads per block (a power of two in [32, 1024], default
        1024, for complete graphs: a block per matching edge; a multiple of
        32 in [32, 1024], default 128, for graphs: a warp per centre); checked
        on every backend.  Changes the order
        of work, never the validity.
    return_info : bool
        Also return a :class:`RomaInfo` (flips, times and weights per phase).

    Returns
    -------
    DataFrame, or (DataFrame, RomaInfo)
        ``vertex | mate | weight`` as :func:`~cugraph_match.suitor_matching`
        returns it (cuDF for cuDF/cuGraph/CuPy input, else pandas).  For a
        matrix or points, vertices are ``0..n-1`` and the weight column has
        the matrix's dtype if float32 or float64; an integer matrix gives
        float64, a float16 one float32, and points float64.  An odd n leaves
        one vertex unmatched.

    Notes
    -----
    Deviations from the thesis, each for a reason: the GPU locks every
    vertex whose mate changes (four per flip) in ascending order, where the
    thesis locks two edge representatives, which lets a block flip over a
    half-written pair; block-uniform control flow and a deterministic
    tie-break (larger gain, then the smaller vertex); gains are computed in
    float64; geometric weights may be computed from points on the fly rather
    than read from a matrix; and graphs that are not complete get the
    general 2-augmentations (the thesis handles complete graphs only).  The
    CPU runs the phases sequentially.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cugraph_match as cm
    >>> edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
    ...                       "weight": [2.0, 3.0, 2.0]})
    >>> cm.matching_weight(cm.suitor_matching(edges, backend="cpu"))
    3.0
    >>> better = cm.roma_matching(edges, backend="cpu")
    >>> better["mate"].tolist(), cm.matching_weight(better)
    ([1, 0, 3, 2], 4.0)
    >>> W = np.array([[0, 1, 5, 1], [1, 0, 1, 5], [5, 1, 0, 1], [1, 5, 1, 0]], dtype=np.float32)
    >>> m, info = cm.roma_matching(W, backend="cpu", return_info=True)
    >>> m["mate"].tolist(), cm.matching_weight(m), info.start_weight, info.converged
    ([2, 3, 0, 1], 10.0, 2.0, True)
    """
    _check_scalars(phases, threshold, seed, return_info)
    complete = points is not None or _is_dense_array(graph)
    if complete:
        if points is not None and graph is not None:
            raise ValueError("give either graph (a weight matrix or edges) or points, not both")
        changed = [name for name, value, default in (("source", source, "src"),
                                                     ("destination", destination, "dst"),
                                                     ("weight", weight, DEFAULT_WEIGHT))
                   if value != default]
        if changed:
            raise ValueError(f"{', '.join(changed)} cannot be set for a weight matrix or points")
        problem = _complete_problem(graph, points, backend)
        frame, info = _roma_complete(problem, initial, phases, threshold, seed, threads_per_block)
    else:
        if graph is None:
            raise ValueError("no graph given: pass edges, a cm.Graph, a weight matrix or points=")
        _check_integer_edge_weights(graph, weight)
        g = as_graph(graph, source, destination, weight, backend)
        _check_integer_graph_weights(g)
        frame, info = _roma_sparse(g, initial, phases, threshold, seed, threads_per_block)
    return (frame, info) if return_info else frame


# -- arguments ------------------------------------------------------------------


def _check_scalars(phases, threshold, seed, return_info) -> None:
    if isinstance(phases, bool) or not isinstance(phases, (int, np.integer)):
        raise TypeError(f"phases must be an int, got {phases!r}")
    if phases < 0:
        raise ValueError(f"phases must be >= 0, got {phases}")
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a real number, got {threshold!r}")
    if not np.isfinite(threshold) or threshold < 0:
        raise ValueError(f"threshold must be finite and >= 0, got {threshold!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not isinstance(return_info, (bool, np.bool_)):
        raise TypeError(f"return_info must be a bool, got {return_info!r}")


def _too_large(values):
    """Mask of integer ``values`` above :data:`EXACT_INTEGER_LIMIT` in magnitude
    (no abs: it wraps for int64's minimum)."""
    mask = values > EXACT_INTEGER_LIMIT
    if values.dtype.kind == "i":
        mask |= values < -EXACT_INTEGER_LIMIT
    return mask


def _check_integer_edge_weights(graph, weight) -> None:
    """An edge list's integer ``weight`` column: every |w| <= 2**53, or a
    ValueError naming the column, the count and the first bad row."""
    if weight is None or not hasattr(graph, "columns") or weight not in graph.columns:
        return
    column = graph[weight]
    if getattr(column, "ndim", 1) != 1 or column.dtype.kind not in "iu":
        return  # repeated columns and the like: as_graph names the problem
    present = np.asarray(to_backend(column.notna().to_numpy(), np), dtype=bool)
    kind = np.dtype(np.uint64 if column.dtype.kind == "u" else np.int64)
    values = np.asarray(to_backend(column[column.notna()].to_numpy(dtype=kind), np))
    bad = _too_large(values)
    count = int(bad.sum())
    if count:
        at = int(np.flatnonzero(bad)[0])
        row = int(np.flatnonzero(present)[at])
        raise ValueError(f"weight column {weight!r} has {count} integer value(s) above 2**53 "
                         f"in magnitude, which float64 (the gains' type) cannot hold exactly; "
                         f"first is row {row} ({plain(values[at])!r}); convert the weights "
                         f"to float or scale them down")


def _check_integer_graph_weights(g: Graph) -> None:
    """The same for any other graph input (cm.Graph, NetworkX, SciPy): the
    first bad edge named by its ends."""
    w = g.edges.w
    if w is None or w.dtype.kind not in "iu":
        return
    xp = g.backend.xp
    bad = _too_large(w)
    count = int(bad.sum())
    if count:
        e = int(to_backend(xp.flatnonzero(bad)[:1], np)[0])
        lo = int(to_backend(g.edges.lo[e:e + 1], np)[0])
        hi = int(to_backend(g.edges.hi[e:e + 1], np)[0])
        labels = g.labels
        value = plain(to_backend(w[e:e + 1], np)[0])
        raise ValueError(f"weight: {count} integer edge weight(s) above 2**53 in magnitude, "
                         f"which float64 (the gains' type) cannot hold exactly; first is edge "
                         f"({plain(labels.iloc[lo])!r}, {plain(labels.iloc[hi])!r}) = "
                         f"{value!r}; convert the weights to float or scale them down")


def _check_integer_matrix(matrix, xp) -> None:
    """An integer weight matrix: every off-diagonal |W[i, j]| <= 2**53 (the
    count and the first bad entry named); ``matrix`` as given, not converted."""
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        return  # the shape check names it
    columns = xp.arange(matrix.shape[0])
    (count,), (first,) = _count_in_bands(
        matrix, xp, lambda band, i, i0: (_too_large(band) & (columns[None, :] != i),), 1)
    n = matrix.shape[0]
    if count:
        i, j = divmod(first, n)
        value = plain(to_backend(matrix[i, j:j + 1], np)[0])
        raise ValueError(f"weight matrix has {count} integer off-diagonal value(s) above 2**53 "
                         f"in magnitude, which float64 (the gains' type) cannot hold exactly; "
                         f"first is W[{i}, {j}] = {value!r}; convert it to float or scale it "
                         f"down")


def _is_dense_array(obj) -> bool:
    return isinstance(obj, np.ndarray) or type(obj).__module__.startswith("cupy")


def _start_name(initial, allowed, default) -> str | None:
    """The start's name, or None when ``initial`` is a frame."""
    if initial is None:
        return default
    if isinstance(initial, str):
        if initial not in allowed:
            raise ValueError(f"initial must be a vertex|mate frame or one of {allowed}, "
                             f"got {initial!r}")
        return "greedy" if initial == "suitor" else initial
    require_vertex_frame(initial, ("vertex", "mate"), "initial")
    return None


def _threads(threads_per_block, default: int, power_of_two: bool) -> int:
    """The GPU launch's threads per block, checked on every backend."""
    if threads_per_block is None:
        return default
    if isinstance(threads_per_block, bool) or \
            not isinstance(threads_per_block, (int, np.integer)):
        raise TypeError(f"threads_per_block must be an int, got {threads_per_block!r}")
    t = int(threads_per_block)
    if not 32 <= t <= 1024 or t % 32 or (power_of_two and t & (t - 1)):
        kind = "a power of two" if power_of_two else "a multiple of 32"
        raise ValueError(f"threads_per_block must be {kind} in [32, 1024], got {t}")
    return t


def _phase_orders(seed: int, size: int):
    """The CPU's vertex order of each phase: a fresh permutation per phase."""
    rng = np.random.default_rng(numpy_seed(seed))  # any int seed, negative ones too
    while True:
        yield rng.permutation(size).astype(np.int64)


# -- complete graphs --------------------------------------------------------------


@dataclass
class _Complete:
    n: int  # real vertices
    size: int  # n rounded up to even (the padding vertex is n)
    matrix: Any  # (n, n), or (0, 0) for points
    points: Any  # (n, d), or (0, 1) for a matrix
    backend: Backend
    frame_lib: Any
    out_dtype: Any


def _complete_problem(matrix, points, backend: str) -> _Complete:
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
        values = xp.zeros((0, 0), dtype=np.float64)
        out_dtype = np.float64
    if n == 0:
        raise ValueError("the weight matrix (or points) is empty: there is no vertex to match")
    return _Complete(n, n + (n & 1), values, coords, be, frame_lib, out_dtype)


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
    values = to_backend(array, xp)
    if dtype.kind in "iu" and check_integers is not None:
        check_integers(values, xp)
    return xp.ascontiguousarray(values.astype(target, copy=False))


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


def _complete_start(problem: _Complete, initial, threads):
    """The start matching (``mate`` over ``size`` vertices, perfect) on the backend."""
    xp = problem.backend.xp
    gpu = problem.backend.name == "gpu"
    name = _start_name(initial, COMPLETE_STARTS, "pairs")
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
    _require_symmetric(mate, lambda v: v)
    return mate


def _require_symmetric(mate: np.ndarray, label) -> None:
    """Every matched v's mate names v back (and nobody is their own mate)."""
    v = np.flatnonzero(mate >= 0)
    back = mate[mate[v]]
    bad = (back != v) | (mate[v] == v)
    if bad.any():
        x = int(v[np.flatnonzero(bad)[0]])
        y = int(mate[x])
        raise ValueError(f"initial is not a matching: {int(bad.sum())} vertex(es) are not their "
                         f"mate's mate; first is {plain(label(x))!r} (mate "
                         f"{plain(label(y))!r}, whose mate is "
                         f"{'none' if mate[y] < 0 else repr(plain(label(int(mate[y]))))})")


def _roma_complete(problem: _Complete, initial, phases, threshold, seed, threads_per_block):
    xp = problem.backend.xp
    gpu = problem.backend.name == "gpu"
    threads = _threads(threads_per_block, DENSE_THREADS, True)
    clock = time.perf_counter()
    mate = _complete_start(problem, initial, threads)
    matrix, points, n = problem.matrix, problem.points, problem.n
    mw = _dense_mate_weights_xp(problem, mate) if gpu else \
        cpu.dense_mate_weights(matrix, points, n, mate)
    info = RomaInfo(start_weight=float(mw.sum()) / 2.0,
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
    _run_phases(run, None if gpu else _phase_orders(seed, problem.size), phases, info, n,
                n * (n - 1) // 2, mw)
    info.weight = float(mw.sum()) / 2.0
    real = mate[:n]
    real = xp.where(real >= n, -1, real)  # the padding vertex's partner stays unmatched
    lib = problem.frame_lib
    ids = np.arange(n, dtype=np.int64) if lib is pd else xp.arange(n, dtype=np.int64)
    frame = matching_frame(lib.Series(ids, name="vertex"), lib, real,
                           mw[:n].astype(problem.out_dtype))
    return frame, info


def _dense_mate_weights_xp(problem: _Complete, mate):
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


def _run_phases(run, orders, phases: int, info: RomaInfo, vertices: int, edges: int,
                mw) -> None:
    """Phases until ``phases`` or one without a change; per-phase figures into
    ``info``, and a progress line per phase (the weight read only when shown)."""
    for phase in range(phases):
        order = next(orders) if orders is not None else None
        clock = time.perf_counter()
        flips, attempts = run(order)
        info.phase_seconds.append(time.perf_counter() - clock)
        info.flips.append(int(flips))
        info.attempts.append(int(attempts))
        if progress_enabled():
            log_step("roma phase", phase, vertices, edges, info.phase_seconds[-1],
                     flips=int(flips), weight=float(mw.sum()) / 2.0)
        if flips == 0:
            info.converged = True
            break


# -- sparse graphs ----------------------------------------------------------------


def _sparse_start(g: Graph, initial):
    """(mate, mw): the start on the graph's backend, mw[v] = w(v, mate[v]) in float64."""
    from .mates import weights_of_keys
    from .suitor import suitor_mates

    xp = g.backend.xp
    n = g.num_vertices
    name = _start_name(initial, SPARSE_STARTS, "greedy")
    if name == "empty":
        return xp.full(n, -1, dtype=np.int64), xp.zeros(n, dtype=np.float64)
    if name == "greedy":
        mate, keys = suitor_mates(g)
        mw = weights_of_keys(g, keys).astype(np.float64)
        return mate.astype(np.int64), xp.where(mate >= 0, mw, 0.0)
    mate = _graph_initial(g, initial)
    v = xp.flatnonzero(mate >= 0)
    found, at = find_edges(g.edges, v, mate[v], xp)
    if not bool(found.all()):
        first = int(to_backend(v[xp.flatnonzero(~found)[:1]], np)[0])
        labels = g.labels
        x, y = labels.iloc[first], labels.iloc[int(to_backend(mate[first:first + 1], np)[0])]
        raise ValueError(f"initial is not a matching of the graph: "
                         f"{int((~found).sum()) // 2} matched pair(s) are not edges; first is "
                         f"({plain(x)!r}, {plain(y)!r})")
    mw = xp.zeros(n, dtype=np.float64)
    w = g.edges.w
    mw[v] = w[at].astype(np.float64) if w is not None else 1.0
    return mate, mw


def _graph_initial(g: Graph, frame):
    """The caller's ``vertex | mate`` frame as an internal mate array on the host, checked."""
    lib = g.frame_lib
    if frame_library(frame) is not lib:  # one library for the id lookups
        frame = frame.to_pandas() if lib is pd else lib.from_pandas(frame[["vertex", "mate"]])
    require_unique_ids(frame["vertex"], "initial")
    # every vertex id is checked, those with a null mate too (as for matrices)
    known = frame["vertex"].notna()
    internal_ids(g, frame["vertex"][known], "initial 'vertex'")
    present = frame["mate"].notna()
    vertex = to_backend(internal_ids(g, frame["vertex"][present], "initial 'vertex'"), np)
    mates = to_backend(internal_ids(g, frame["mate"][present], "initial 'mate'"), np)
    mate = np.full(g.num_vertices, -1, dtype=np.int64)
    mate[vertex] = mates
    labels = g.labels.to_pandas() if hasattr(g.labels, "to_pandas") else g.labels
    _require_symmetric(mate, lambda x: labels.iloc[x])
    return to_backend(mate, g.backend.xp)


def _roma_sparse(g: Graph, initial, phases, threshold, seed, threads_per_block):
    xp = g.backend.xp
    gpu = g.backend.name == "gpu"
    threads = _threads(threads_per_block, SPARSE_THREADS, False)
    clock = time.perf_counter()
    mate, mw = _sparse_start(g, initial)
    info = RomaInfo(start_weight=float(mw.sum()) / 2.0,
                    start_seconds=time.perf_counter() - clock)
    n = g.num_vertices
    if phases and g.num_edges:
        rows = g.neighbour_csr()
        weights = rows.weights.astype(np.float64) if rows.weights is not None else \
            xp.ones(rows.indices.shape[0], dtype=np.float64)
        if gpu:
            from .roma_gpu import sparse_phase_gpu

            locks = xp.full(n, -1, dtype=np.int64)
            counters = xp.zeros(2, dtype=np.int64)
            run = lambda _: sparse_phase_gpu(rows.offsets, rows.indices, weights,  # noqa: E731
                                             mate, mw, locks, threshold, counters, threads)
            orders = None
        else:
            stamp = np.full(n, -1, dtype=np.int64)
            w_at_u = np.zeros(n, dtype=np.float64)
            epoch = [0]

            def run(order):
                flips, epoch[0] = cpu.sparse_phase(rows.offsets, rows.indices, weights, mate, mw,
                                                   order, float(threshold), stamp, w_at_u,
                                                   epoch[0])
                return flips, flips

            orders = _phase_orders(seed, n)
        _run_phases(run, orders, phases, info, n, g.num_edges, mw)
    elif phases:
        info.flips, info.attempts, info.phase_seconds, info.converged = [0], [0], [0.0], True
    info.weight = float(mw.sum()) / 2.0
    w = g.edges.w
    out = np.float32 if w is None or w.dtype == np.float32 else np.float64
    return matching_frame(g.labels, g.frame_lib, mate, mw.astype(out)), info
