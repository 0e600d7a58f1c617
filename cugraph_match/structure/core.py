"""Shared plumbing used by every algorithm.

Input (any supported graph object) -> validated, undirected, de-duplicated edge
list -> renumbered CSR on the chosen backend -> algorithm -> output frame in the
caller's frame library and the caller's vertex ids.

Two libraries are threaded through this module:

* the *frame library* (``pandas`` or ``cudf``) follows the input, and every
  frame-level step (validation, renumbering, output) is written with calls
  both libraries share, so the pandas tests exercise the cuDF logic too;
* the *array module* ``xp`` (``numpy`` or ``cupy``) follows the backend and
  holds the CSR the kernels read.
"""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

# Vertex ids are packed beside a 32-bit weight key in one 64-bit word, so a
# graph may have at most 2**32 - 1 vertices (the all-ones id is a sentinel).
MAX_VERTICES = 2**32 - 1
DEFAULT_WEIGHT = "weight"


# --------------------------------------------------------------------------
# backends
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    """Where an algorithm runs.

    ``name`` is ``"cpu"`` or ``"gpu"``; ``xp`` is the array module holding the
    CSR (``numpy`` or ``cupy``); ``simulated`` is true when the GPU kernels run
    in Numba's CUDA simulator on NumPy arrays.
    """

    name: str
    xp: Any
    simulated: bool = False


def cuda_simulator_enabled() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def gpu_available() -> bool:
    """True when a real CUDA device, Numba's CUDA target and CuPy are all usable."""
    if cuda_simulator_enabled():
        return False
    try:
        import cupy  # noqa: F401  (importable is part of "usable")
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:
        return False


def resolve_backend(backend: str) -> Backend:
    """Turn ``"auto" | "cpu" | "gpu"`` into a :class:`Backend`.

    ``"auto"`` picks the GPU when a real one is usable (never the simulator).
    ``"gpu"`` under ``NUMBA_ENABLE_CUDASIM=1`` runs the CUDA kernels in the
    simulator on NumPy arrays.
    """
    if backend not in ("auto", "cpu", "gpu"):
        raise ValueError(f"backend must be 'auto', 'cpu' or 'gpu', got {backend!r}")
    if backend == "cpu" or (backend == "auto" and not gpu_available()):
        return Backend("cpu", np)
    if cuda_simulator_enabled():
        return Backend("gpu", np, simulated=True)
    if not gpu_available():
        raise RuntimeError(
            "backend='gpu' needs a CUDA GPU with CuPy and numba-cuda installed "
            "(pip install 'cugraph_match[gpu]'); none is usable here. "
            "Use backend='cpu' or 'auto'."
        )
    import cupy

    return Backend("gpu", cupy)


def to_backend(array: Any, xp: Any) -> Any:
    """Move an array to the backend's array module (no copy when already there)."""
    if xp is np:
        if type(array).__module__.startswith("cupy"):
            return array.get()
        return np.asarray(array)
    return xp.asarray(array)


# --------------------------------------------------------------------------
# input adapters: anything -> EdgeInput (frame-level, in pandas or cuDF)
# --------------------------------------------------------------------------


@dataclass
class EdgeInput:
    """Edges as frame-library Series plus the vertices that carry no edge."""

    frame_lib: Any  # pandas or cudf
    frame: Any  # DataFrame with the caller's rows (never modified)
    source: str
    destination: str
    weight: str | None
    extra_vertices: Any = None  # Series of isolated vertex ids, or None


def _frame_library(obj: Any) -> Any | None:
    module = type(obj).__module__
    if module.startswith("pandas"):
        return pd
    if module.startswith("cudf"):
        import cudf

        return cudf
    return None


def _from_dataframe(obj, source, destination, weight) -> EdgeInput | None:
    lib = _frame_library(obj)
    if lib is None or not hasattr(obj, "columns"):
        return None
    for role, col in (("source", source), ("destination", destination)):
        if col not in obj.columns:
            raise ValueError(
                f"{role} column {col!r} not found; the frame has columns {list(obj.columns)}"
            )
    if weight is not None and weight not in obj.columns:
        if weight != DEFAULT_WEIGHT:
            raise ValueError(
                f"weight column {weight!r} not found; the frame has columns {list(obj.columns)}"
            )
        weight = None  # no column named like the default: unweighted
    return EdgeInput(lib, obj, source, destination, weight)


def _from_cugraph(obj, source, destination, weight) -> EdgeInput | None:
    if not type(obj).__module__.startswith("cugraph"):
        return None
    frame = obj.view_edge_list()
    cols = list(frame.columns)
    src = getattr(obj, "source_columns", None) or cols[0]
    dst = getattr(obj, "destination_columns", None) or cols[1]
    src = src[0] if isinstance(src, list) else src
    dst = dst[0] if isinstance(dst, list) else dst
    wcol = getattr(obj, "weight_column", None)
    if wcol is None and len(cols) > 2:
        wcol = cols[2]
    if not getattr(obj, "is_weighted", lambda: wcol is not None)():
        wcol = None
    return _from_dataframe(frame, src, dst, wcol)


def _from_networkx(obj, source, destination, weight) -> EdgeInput | None:
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - networkx is a base dependency
        return None
    if not isinstance(obj, nx.Graph):
        return None
    edges = obj.edges(data=True)  # a multigraph's parallel edges come out one by one
    us, vs, ws = [], [], []
    for u, v, data in edges:
        us.append(u)
        vs.append(v)
        ws.append(data.get(weight, 1) if weight is not None else 1)  # NetworkX: missing means 1
    nodes = list(obj.nodes)
    frame = pd.DataFrame({"src": pd.Series(us, dtype=_nx_dtype(us or nodes)),
                          "dst": pd.Series(vs, dtype=_nx_dtype(vs or nodes)),
                          "weight": pd.Series(ws, dtype=_nx_dtype(ws, numeric=True))})
    extra = pd.Series(nodes, dtype=_nx_dtype(nodes)) if nodes else None
    return EdgeInput(pd, frame, "src", "dst", "weight", extra)


def _nx_dtype(values, numeric=False):
    if numeric and not values:
        return "float64"
    if values and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in values):
        return "int64"
    if numeric and values and all(isinstance(x, (int, float, np.integer, np.floating))
                                  and not isinstance(x, bool) for x in values):
        return "float64"
    return object


def _from_scipy(obj, source, destination, weight) -> EdgeInput | None:
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover
        return None
    if not sp.issparse(obj):
        return None
    if obj.shape[0] != obj.shape[1]:
        raise ValueError(f"a sparse adjacency matrix must be square, got shape {obj.shape}")
    coo = obj.tocoo()
    frame = pd.DataFrame({"src": coo.row.astype(np.int64), "dst": coo.col.astype(np.int64),
                          "weight": coo.data})
    extra = pd.Series(np.arange(obj.shape[0], dtype=np.int64))
    return EdgeInput(pd, frame, "src", "dst", "weight", extra)


# New input kinds (a Dask-cuDF frame, say) are one more adapter here; the
# algorithms only ever see a PreparedGraph.
INPUT_ADAPTERS: list[Callable[..., EdgeInput | None]] = [
    _from_dataframe,
    _from_cugraph,
    _from_networkx,
    _from_scipy,
]


def read_input(graph: Any, source: str = "src", destination: str = "dst",
               weight: str | None = DEFAULT_WEIGHT) -> EdgeInput:
    """Recognise the caller's graph object and return its edges (unvalidated)."""
    for adapter in INPUT_ADAPTERS:
        found = adapter(graph, source, destination, weight)
        if found is not None:
            return found
    raise TypeError(
        "expected a cuDF or pandas edge-list DataFrame, a cugraph.Graph, a networkx.Graph "
        f"or a SciPy sparse matrix, got {type(graph).__module__}.{type(graph).__name__}"
    )


# --------------------------------------------------------------------------
# validation (frame-level, shared by pandas and cuDF)
# --------------------------------------------------------------------------


def _describe_row(edges: EdgeInput, mask) -> str:
    """'row <label> (src=…, dst=…, weight=…)' for the first True of ``mask``."""
    frame = edges.frame
    cols = [c for c in (edges.source, edges.destination, edges.weight) if c is not None]
    bad = frame[cols][mask].head(1)
    if hasattr(bad, "to_pandas"):
        bad = bad.to_pandas()
    label = bad.index[0]
    values = ", ".join(f"{c}={bad[c].iloc[0]!r}" for c in cols)
    return f"row {label!r} ({values})"


def _count(mask) -> int:
    return int(mask.sum())


def validate(edges: EdgeInput) -> None:
    """Raise a ValueError/TypeError naming the column, the count and the first bad row."""
    frame = edges.frame
    if len(frame) == 0 and (edges.extra_vertices is None or len(edges.extra_vertices) == 0):
        raise ValueError("the edge list is empty: there is no vertex to match")
    for col in (edges.source, edges.destination):
        nulls = frame[col].isna()
        n_bad = _count(nulls)
        if n_bad:
            raise ValueError(
                f"column {col!r} has {n_bad} null vertex id(s); first is {_describe_row(edges, nulls)}"
            )
    if edges.weight is None:
        return
    col = edges.weight
    w = frame[col]
    kind = getattr(w.dtype, "kind", None)
    if kind == "O":
        bad = ~w.map(lambda x: isinstance(x, numbers.Real) and not isinstance(x, bool))
        n_bad = _count(bad)
        if n_bad:
            raise TypeError(
                f"weight column {col!r} has {n_bad} non-numeric value(s); first is "
                f"{_describe_row(edges, bad)}"
            )
    if kind not in ("i", "u", "f"):
        raise TypeError(
            f"weight column {col!r} must be numeric (integer or float), got dtype {w.dtype}"
        )
    nulls = w.isna()
    n_bad = _count(nulls)
    if n_bad:
        raise ValueError(
            f"weight column {col!r} has {n_bad} null/NaN value(s); first is {_describe_row(edges, nulls)}"
        )
    if kind == "f":
        infinite = (w == np.inf) | (w == -np.inf)
        n_bad = _count(infinite)
        if n_bad:
            raise ValueError(
                f"weight column {col!r} has {n_bad} infinite value(s); first is "
                f"{_describe_row(edges, infinite)}"
            )
    non_positive = w <= 0
    n_bad = _count(non_positive)
    if n_bad:
        raise ValueError(
            f"weight column {col!r} has {n_bad} zero or negative value(s) (weights must be "
            f"positive); first is {_describe_row(edges, non_positive)}"
        )


def _is_numpy_dtype(dtype) -> bool:
    try:
        np.dtype(dtype)
        return True
    except TypeError:
        return False


# --------------------------------------------------------------------------
# renumbering and CSR
# --------------------------------------------------------------------------


@dataclass
class PreparedGraph:
    """An undirected graph in CSR form on one backend, plus its vertex labels.

    Internal vertex ``i`` is ``labels[i]``; labels are the caller's ids in
    sorted order, so comparing internal ids compares caller ids.  Every
    undirected edge is stored in both rows.
    """

    backend: Backend
    frame_lib: Any
    labels: Any  # frame-library Series, internal id -> caller id
    offsets: Any  # xp int32/int64, length n + 1
    indices: Any  # xp int32/int64, length 2m
    weights: Any  # xp float32/float64, length 2m
    weighted: bool  # False when every weight defaulted to 1

    @property
    def num_vertices(self) -> int:
        return len(self.labels)

    @property
    def num_edges(self) -> int:
        """Undirected edges (self-loops and duplicates removed)."""
        return int(self.indices.shape[0]) // 2


def _series_values(series, xp):
    """A Series' values as an array of the backend's module."""
    if hasattr(series, "to_cupy") and xp is not np:
        return series.to_cupy()
    if hasattr(series, "to_numpy"):
        return to_backend(series.to_numpy(), xp)
    return to_backend(series.values, xp)


def _weight_dtype(dtype) -> np.dtype:
    dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)


def prepare_graph(graph: Any, source: str = "src", destination: str = "dst",
                  weight: str | None = DEFAULT_WEIGHT, backend: str = "auto") -> PreparedGraph:
    """Validate, renumber and build the CSR of ``graph`` on ``backend``.

    Semantics: undirected; (u, v) and (v, u) are one edge; duplicates keep
    the largest weight; self-loops are dropped (their vertices are kept);
    no weight column means every weight is 1 (float32).
    """
    edges = read_edges(graph, source, destination, weight, backend)
    offsets, indices, weights = build_csr(edges.u, edges.v, edges.w, len(edges.labels),
                                          edges.backend.xp)
    return PreparedGraph(edges.backend, edges.frame_lib, edges.labels, offsets, indices, weights,
                         edges.weighted)


@dataclass
class RenumberedEdges:
    """The caller's edge rows in internal ids (as given: loops and duplicates kept)."""

    backend: Backend
    frame_lib: Any
    labels: Any  # frame-library Series, internal id -> caller id (sorted)
    u: Any  # xp int64
    v: Any  # xp int64
    w: Any  # xp float32/float64
    weighted: bool


def is_directed_input(graph: Any) -> bool:
    """True for graph objects that declare themselves directed (NetworkX, cuGraph)."""
    is_directed = getattr(graph, "is_directed", None)
    if callable(is_directed) and not hasattr(graph, "columns"):
        try:
            return bool(is_directed())
        except Exception:  # pragma: no cover - an object with an unrelated method
            return False
    return False


def require_undirected(graph: Any, symmetrize: bool, what: str) -> None:
    """Refuse a directed graph object unless the caller asked to symmetrise it."""
    if is_directed_input(graph) and not symmetrize:
        raise ValueError(f"{what} needs an undirected graph, got a directed "
                         f"{type(graph).__name__}; pass symmetrize=True to treat each "
                         f"edge as undirected")


def read_edges(graph: Any, source: str = "src", destination: str = "dst",
               weight: str | None = DEFAULT_WEIGHT, backend: str = "auto") -> RenumberedEdges:
    """Read, validate and renumber ``graph``'s edge rows onto ``backend``."""
    be = resolve_backend(backend)
    edges = read_input(graph, source, destination, weight)
    validate(edges)
    lib, frame = edges.frame_lib, edges.frame
    src, dst = frame[edges.source], frame[edges.destination]

    # Renumber: codes into the sorted distinct ids, so internal order ==
    # caller order.  factorize hashes once; pandas and cuDF both offer it.
    parts = [src, dst] + ([edges.extra_vertices] if edges.extra_vertices is not None else [])
    parts = _common_integer_ids(parts)
    ids = lib.concat(parts, ignore_index=True)
    if lib is pd and ids.dtype == object and pd.api.types.infer_dtype(ids, skipna=True) in (
            "mixed", "mixed-integer"):
        raise TypeError(
            f"vertex ids in {edges.source!r}/{edges.destination!r} cannot be ordered "
            f"(mixed types: {sorted({type(x).__name__ for x in ids})})"
        )
    try:
        codes, uniques = lib.factorize(ids, sort=True)
    except TypeError as err:
        raise TypeError(
            f"vertex ids in {edges.source!r}/{edges.destination!r} cannot be ordered "
            f"(mixed types?): {err}"
        ) from None
    labels = lib.Series(uniques, name="vertex")
    n = len(labels)
    if n > MAX_VERTICES:
        raise ValueError(f"at most {MAX_VERTICES} vertices are supported, got {n}")

    xp = be.xp
    codes = to_backend(codes, xp)
    m = len(src)
    u = codes[:m].astype(np.int64, copy=False)
    v = codes[m:2 * m].astype(np.int64, copy=False)
    if edges.weight is not None:
        wcol = frame[edges.weight]
        w_dtype = _weight_dtype(wcol.dtype)
        if not _is_numpy_dtype(wcol.dtype):  # pandas nullable Int64/Float64, validated null-free
            wcol = wcol.astype(w_dtype)
        w = _series_values(wcol, xp).astype(w_dtype, copy=False)
    else:
        w = xp.ones(u.shape[0], dtype=np.float32)
    return RenumberedEdges(be, lib, labels, u, v, w, edges.weight is not None)


def _common_integer_ids(parts):
    """Cast integer id columns to one integer dtype (NumPy would promote int64 + uint64
    to float64, which merges ids above 2**53)."""
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
    return [p.astype(object) for p in parts]


def index_dtype(limit: int) -> np.dtype:
    return np.dtype(np.int32) if limit < 2**31 else np.dtype(np.int64)


def build_csr(u, v, w, n: int, xp):
    """Symmetric CSR from an edge list in internal ids.

    Drops self-loops, merges (u, v)/(v, u) and duplicates keeping the maximum
    weight.  Each row lists its neighbours in preference order, heaviest
    first and, at equal weight, larger id first (the tie order of
    ``weight_keys``), so the kernels find a vertex's best remaining
    candidate by advancing a pointer.  NumPy arrays go through the
    numba builder (linear passes and per-row sorts); CuPy arrays through
    device sorts.
    """
    if xp is np:
        from .csr_cpu import build_csr_cpu

        return build_csr_cpu(np.ascontiguousarray(u), np.ascontiguousarray(v),
                             np.ascontiguousarray(w), n, index_dtype)
    return build_csr_sorted(u, v, w, n, xp)


def build_csr_sorted(u, v, w, n: int, xp):
    """``build_csr`` with array-module sorts only (the GPU path)."""
    keep = u != v
    u, v, w = u[keep], v[keep], w[keep]
    lo = xp.minimum(u, v)
    hi = xp.maximum(u, v)
    # Sort by (lo, hi, weight) and keep the last, i.e. heaviest, of each pair.
    order = xp.lexsort(xp.stack([w, hi, lo]))
    lo, hi, w = lo[order], hi[order], w[order]
    if lo.shape[0]:
        last = xp.ones(lo.shape[0], dtype=bool)
        last[:-1] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
        lo, hi, w = lo[last], hi[last], w[last]
    rows = xp.concatenate([lo, hi])
    cols = xp.concatenate([hi, lo])
    ws = xp.concatenate([w, w])
    # rows ascending; within a row weight descending, then neighbour descending
    order = xp.lexsort(xp.stack([-cols.astype(np.float64), -ws.astype(np.float64),
                                 rows.astype(np.float64)]))
    rows, cols, ws = rows[order], cols[order], ws[order]
    counts = xp.bincount(rows, minlength=n) if rows.shape[0] else xp.zeros(n, dtype=np.int64)
    nnz = int(cols.shape[0])
    offsets = xp.zeros(n + 1, dtype=index_dtype(nnz))
    offsets[1:] = xp.cumsum(counts)
    indices = cols.astype(index_dtype(n), copy=False)
    return offsets, indices, ws


# --------------------------------------------------------------------------
# weighted graphs with self-loops (coarsening, community detection)
# --------------------------------------------------------------------------


@dataclass
class WeightedGraph:
    """An undirected graph in internal ids, each edge once (``lo < hi``), plus
    each vertex's self-loop weight (0 when none).  Weights are float64.

    The weighted degree of v is the weight of its edges plus twice its
    self-loop, as in NetworkX; the total weight counts each edge and each
    self-loop once.
    """

    n: int
    lo: Any
    hi: Any
    w: Any
    loop: Any


def canonical_graph(u, v, w, n: int, xp) -> WeightedGraph:
    """Edge rows -> each undirected edge once, the largest weight of duplicates
    kept (as in :func:`prepare_graph`), and self-loops kept (largest per vertex)."""
    w = w.astype(np.float64)
    loop = u == v
    loop_weight = xp.zeros(n, dtype=np.float64)
    if bool(loop.any()):
        order = xp.lexsort(xp.stack([w[loop], u[loop]]))
        lu, lw = u[loop][order], w[loop][order]
        last = xp.ones(lu.shape[0], dtype=bool)
        last[:-1] = lu[1:] != lu[:-1]
        loop_weight[lu[last]] = lw[last]
    keep = ~loop
    lo = xp.minimum(u[keep], v[keep])
    hi = xp.maximum(u[keep], v[keep])
    w = w[keep]
    code = lo * max(n, 1) + hi
    order = xp.lexsort(xp.stack([w, code]))
    code, w = code[order], w[order]
    last = xp.ones(code.shape[0], dtype=bool)
    last[:-1] = code[1:] != code[:-1]
    code, w = code[last], w[last]
    return WeightedGraph(n, code // max(n, 1), code % max(n, 1), w, loop_weight)


def unordered_csr(graph: WeightedGraph, xp):
    """CSR (offsets, indices, weights) of a WeightedGraph without self-loops, rows
    in no particular order: for algorithms that do not walk rows by preference
    (Louvain), which so skip :func:`build_csr`'s per-row sorts."""
    if xp is np:
        from .csr_cpu import _scatter_by_row

        offsets, indices, weights = _scatter_by_row(graph.lo, graph.hi, graph.w, graph.n)
    else:
        rows = xp.concatenate([graph.lo, graph.hi])
        order = xp.argsort(rows)
        indices = xp.concatenate([graph.hi, graph.lo])[order]
        weights = xp.concatenate([graph.w, graph.w])[order]
        offsets = xp.zeros(graph.n + 1, dtype=np.int64)
        offsets[1:] = xp.cumsum(xp.bincount(rows, minlength=graph.n))
    nnz = int(indices.shape[0])
    return (offsets.astype(index_dtype(nnz), copy=False),
            indices.astype(index_dtype(graph.n), copy=False), weights)


def contract_graph(graph: WeightedGraph, group, k: int, xp) -> WeightedGraph:
    """Merge the vertices of each group (``group[v]`` in ``0..k-1``) into one:
    edges inside a group add to its self-loop, parallel edges sum; the total
    weight is preserved."""
    cu, cv = group[graph.lo], group[graph.hi]
    inside = cu == cv
    loop = xp.bincount(group, weights=graph.loop, minlength=k)[:k] if graph.n else \
        xp.zeros(k, dtype=np.float64)
    if bool(inside.any()):
        loop = loop + xp.bincount(cu[inside], weights=graph.w[inside], minlength=k)[:k]
    across = ~inside
    a = xp.minimum(cu[across], cv[across])
    b = xp.maximum(cu[across], cv[across])
    code = a * max(k, 1) + b
    distinct, inverse = xp.unique(code, return_inverse=True)
    summed = xp.bincount(inverse.ravel(), weights=graph.w[across], minlength=distinct.shape[0])
    return WeightedGraph(k, distinct // max(k, 1), distinct % max(k, 1),
                         summed.astype(np.float64), loop.astype(np.float64))


# --------------------------------------------------------------------------
# the tie-breaking order
# --------------------------------------------------------------------------


def weight_keys(weights, xp):
    """An order-preserving uint32 key per weight, never 0 (0 means "no offer").

    Edge (u, v) beats (x, y) iff its weight is larger, or the weights are
    equal and (max(u,v), min(u,v)) is larger.  Packed as ``key << 32 | id``
    in one uint64, a single integer max realises that order: among a
    vertex's neighbours the larger neighbour id wins a tie, and among offers
    to a vertex the larger proposer id wins.

    * float32: positive IEEE-754 bit patterns order like the values, so the
      key is the bit pattern itself (positive floats are never 0).
    * float64: does not fit in 32 bits; the key is the dense rank of the
      weight among the distinct weights, plus one.

    Keys stay below 2**31 (the largest positive float32 is 0x7F7FFFFF), so
    packed words stay below 2**63 and the GPU kernels may move them through
    signed 64-bit warp shuffles.
    """
    if weights.dtype == np.float32:
        return weights.view(np.uint32)
    distinct = xp.unique(weights)
    if distinct.shape[0] >= 2**31:
        raise ValueError(f"at most 2**31 - 1 distinct float64 weights are supported, "
                         f"got {distinct.shape[0]}")
    return (xp.searchsorted(distinct, weights) + 1).astype(np.uint32)


def weights_of_keys(keys, all_keys, weights, xp):
    """Invert :func:`weight_keys`: the weight each of ``keys`` stands for, where
    ``all_keys = weight_keys(weights, xp)``.  float64 keys are ranks, so a
    scatter of ``weights`` by ``all_keys`` is the table (no second sort)."""
    if weights.dtype == np.float32:
        return keys.astype(np.uint32).view(np.float32)
    table = xp.zeros(int(all_keys.max()) + 1 if all_keys.shape[0] else 1, dtype=weights.dtype)
    table[all_keys] = weights
    return table[keys.astype(np.int64)]


# --------------------------------------------------------------------------
# caller ids -> internal ids
# --------------------------------------------------------------------------


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
                         f"first is {_plain(first)!r}")


def internal_ids(graph, ids, what: str):
    """Internal ids (an ``xp`` int64 array) of the caller's vertex ids ``ids``.

    ``graph`` is a :class:`PreparedGraph` or :class:`RenumberedEdges` (its
    ``labels``, ``backend`` and ``frame_lib`` are used); ``ids`` is a Series
    of the frame library.  Raises a ValueError naming ``what``, the count
    and the first id that is not a vertex of the graph.
    """
    pg = graph
    labels = pg.labels
    n = len(labels)
    if len(ids) == 0:
        return pg.backend.xp.zeros(0, dtype=np.int64)
    try:
        pos = labels.searchsorted(ids)
    except TypeError as err:
        raise TypeError(f"{what}: ids of type {ids.dtype} cannot be compared with the graph's "
                        f"vertex ids ({labels.dtype}): {err}") from None
    pos = to_backend(_as_array(pos), np).astype(np.int64)
    clipped = np.clip(pos, 0, max(n - 1, 0))
    found = labels.take(_host_or_device(clipped, pg.frame_lib)).reset_index(drop=True)
    given = ids.reset_index(drop=True)
    same = found == given
    same = to_backend(_as_array(same), np).astype(bool)
    if n == 0 or not same.all():
        bad = np.flatnonzero(~same) if n else np.arange(len(ids))
        first = given.iloc[int(bad[0])]
        raise ValueError(f"{what}: {len(bad)} id(s) are not vertices of the graph; "
                         f"first is {_plain(first)!r}")
    return to_backend(clipped, pg.backend.xp)


def _plain(value):
    """A NumPy scalar as the Python value, so messages read ``3``, not ``np.int64(3)``."""
    return value.item() if isinstance(value, np.generic) else value


def _as_array(values):
    """Series or array values as a NumPy or CuPy array (``to_backend`` moves them)."""
    if type(values).__module__.startswith("cupy"):
        return values
    if hasattr(values, "to_numpy"):
        return values.to_numpy()
    if hasattr(values, "values_host"):
        return values.values_host
    return np.asarray(values)


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def row_ids(offsets, xp):
    """The row of every CSR entry (CuPy's ``repeat`` takes no array of counts)."""
    if xp is np:
        return np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    nnz = int(offsets[-1])
    return xp.searchsorted(offsets, xp.arange(nnz, dtype=offsets.dtype), side="right") - 1


def mate_weights(pg: PreparedGraph, mate):
    """Weight of the edge (v, mate[v]) for every vertex (NaN when unmatched)."""
    if pg.backend.xp is np:
        from .csr_cpu import mate_weights_cpu

        return mate_weights_cpu(pg.offsets, pg.indices, pg.weights, mate)
    return mate_weights_by_rows(pg.offsets, pg.indices, pg.weights, mate, pg.backend.xp)


def mate_weights_by_rows(offsets, indices, weights, mate, xp):
    """``mate_weights`` with whole-array operations only (the GPU path)."""
    rows = row_ids(offsets, xp)
    hit = indices == mate[rows]
    out = xp.full(mate.shape[0], np.nan, dtype=weights.dtype)
    out[rows[hit]] = weights[hit]
    return out


def _host_or_device(array, frame_lib):
    """An array the frame library can wrap without leaving its device."""
    if frame_lib is pd:
        return to_backend(array, np)
    return array


def _nullable(series, frame_lib):
    """pandas needs extension dtypes to hold nulls in int/str columns; cuDF does not."""
    if frame_lib is not pd:
        return series
    kind = series.dtype.kind if isinstance(series.dtype, np.dtype) else None
    if kind in ("i", "u"):
        return series.astype(str(series.dtype).capitalize().replace("Uint", "UInt"))
    if kind == "f":
        return series.astype(str(series.dtype).capitalize())
    return series


def matching_frame(pg: PreparedGraph, mate):
    """The ``vertex | mate | weight`` frame (null mate and weight when unmatched)."""
    lib = pg.frame_lib
    xp = pg.backend.xp
    mate_w = mate_weights(pg, mate)
    matched = mate >= 0
    safe = xp.where(matched, mate, 0)
    vertex = pg.labels  # already 0..n-1 indexed
    mate_col = _nullable(vertex.take(_host_or_device(safe, lib)).reset_index(drop=True), lib)
    mask = lib.Series(_host_or_device(matched, lib))
    mate_col = mate_col.where(mask)
    weight_col = _nullable(lib.Series(_host_or_device(mate_w, lib)), lib).where(mask)
    return lib.DataFrame({"vertex": vertex, "mate": mate_col, "weight": weight_col})


def mates_from_offers(offer, xp):
    """Suitor state -> mates: u and v are matched iff each holds the other's offer."""
    has = offer != 0
    suitor = (offer & np.uint64(0xFFFFFFFF)).astype(np.int64)
    suitor = xp.where(has, suitor, -1)
    back = suitor[xp.where(has, suitor, 0)]
    n = offer.shape[0]
    mutual = has & (back == xp.arange(n, dtype=np.int64))
    return xp.where(mutual, suitor, -1)
