"""Input adapters: every supported graph object -> its edge rows as frame-library
Series (unvalidated), plus the vertices that carry no edge.

Supported: cuDF and pandas edge-list frames, ``cugraph.Graph``,
``networkx.Graph`` (and its directed and multi-graph kinds) and SciPy sparse
matrices.  A new input kind (a Dask frame, say) is one more adapter in
:data:`INPUT_ADAPTERS`; everything after this stage sees only an
:class:`EdgeInput`.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from .checks import check_flag, require_column_names, require_unique_columns

DEFAULT_WEIGHT = "weight"


@dataclass
class EdgeInput:
    """Edges as frame-library Series plus the vertices that carry no edge."""

    frame_lib: Any  # pandas or cudf
    frame: Any  # DataFrame with the caller's rows (never modified)
    source: str
    destination: str
    weight: str | None
    extra_vertices: Any = None  # Series of isolated vertex ids, or None


def frame_library(obj: Any) -> Any | None:
    module = type(obj).__module__
    if module.startswith("pandas"):
        return pd
    if module.startswith("cudf"):
        import cudf

        return cudf
    return None


def from_dataframe(obj, source, destination, weight) -> EdgeInput | None:
    """A pandas or cuDF edge-list frame as an :class:`EdgeInput` (None for
    anything else): its columns checked to exist once each; no column named
    like the default weight means unweighted (with a warning naming any other
    numeric column, which the caller may have meant)."""
    lib = frame_library(obj)
    if lib is None or not hasattr(obj, "columns"):
        return None
    require_column_names(source=source, destination=destination, weight=weight)
    require_unique_columns(obj, [c for c in (source, destination, weight) if c is not None],
                           "the edge list")
    if weight is not None and weight in (source, destination):  # (it weighed edges by an id)
        raise ValueError(f"weight names the id column {weight!r}: the weights are a column of "
                         f"their own (weight=None for unweighted)")
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
        warn_of_numeric_columns(obj, (source, destination))
        weight = None  # no column named like the default: unweighted
    return EdgeInput(lib, obj, source, destination, weight)


def numeric_columns(frame, skip) -> list:
    """The frame's integer and float columns (nullable ones too; booleans not),
    except ``skip``."""
    found = []
    for col, dtype in frame.dtypes.items():
        kind = getattr(getattr(dtype, "numpy_dtype", dtype), "kind", None)
        if col not in skip and kind in ("i", "u", "f"):
            found.append(col)
    return found


def warn_of_numeric_columns(frame, skip) -> None:
    """An edge list without a ``weight`` column is unweighted; when it has
    another numeric column the caller may have meant that one: say so, naming
    it (``weight=None`` says "unweighted" and never warns)."""
    numeric = numeric_columns(frame, skip)
    if numeric:
        warnings.warn(f"the edge list has no {DEFAULT_WEIGHT!r} column, so every weight is 1, "
                      f"but it has numeric column(s) {numeric}: pass weight={numeric[0]!r} to "
                      f"weigh the edges by it, or weight=None for unweighted (which silences "
                      f"this warning)", UserWarning, stacklevel=_caller_stacklevel())


def _caller_stacklevel() -> int:
    """``warnings.warn``'s stacklevel, for a warning raised one call below this
    one, that names the first frame outside this package: the caller's line."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
        level += 1
    return level


def _from_cugraph(obj, source, destination, weight) -> EdgeInput | None:
    if type(obj).__module__.split(".")[0] != "cugraph":  # cugraph_match's own are not
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
    return from_dataframe(frame, src, dst, wcol)


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
        # integer weights keep their exact order: int64, or uint64 past 2**63 - 1
        # (anything else is left to the validation, which names the first bad row)
        if numeric and not all(-2**63 <= x < 2**63 for x in values) and \
                all(0 <= x < 2**64 for x in values):
            return "uint64"
        if all(-2**63 <= x < 2**63 for x in values):
            return "int64"
        return object
    if numeric and values and all(isinstance(x, (int, float, np.integer, np.floating))
                                  and not isinstance(x, bool) for x in values) \
            and not any(_float64_may_round(x) for x in values):
        return "float64"
    # anything else, longdouble weights and integers past 2**53 beside floats
    # among them, is left as objects to the validation, which reads them
    # exactly or names the first one float64 would round
    return object


def _float64_may_round(x) -> bool:
    """An edge attribute float64 may not hold exactly: a float wider than 64
    bits, or an integer past 2**53 in magnitude (beside floats)."""
    if isinstance(x, np.floating):
        return x.dtype.itemsize > 8
    return isinstance(x, (int, np.integer)) and not -2**53 <= x <= 2**53


def _from_scipy(obj, source, destination, weight) -> EdgeInput | None:
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover
        return None
    if not sp.issparse(obj):
        return None
    if obj.shape[0] != obj.shape[1]:
        raise ValueError(f"a sparse adjacency matrix must be square, got shape {obj.shape}")
    # A sparse matrix means what SciPy says it means: an entry stored twice is
    # their sum (SciPy's CSR and COO forms agree on that, and so must we).  The
    # sum is taken on a copy; the caller's matrix keeps its duplicates.
    coo = obj.tocoo(copy=True)
    coo.sum_duplicates()
    frame = pd.DataFrame({"src": coo.row.astype(np.int64), "dst": coo.col.astype(np.int64)})
    extra = pd.Series(np.arange(obj.shape[0], dtype=np.int64))
    if weight is None:  # unweighted, as for every other input: each stored entry an edge
        return EdgeInput(pd, frame, "src", "dst", None, extra)
    frame["weight"] = coo.data
    return EdgeInput(pd, frame, "src", "dst", "weight", extra)


def is_distributed_input(obj: Any) -> bool:
    """A Dask or Dask-cuDF collection, or a ``cugraph_match.dask.DistributedGraph``
    (told by module name, so that dask is never imported to ask)."""
    module = type(obj).__module__
    return module.startswith(("dask.", "dask_cudf", "cugraph_match.dask"))


def computed(values: Any) -> Any:
    """Per-vertex values (capacities, a partition: one row per vertex) given
    as a Dask collection, computed; anything else as it is.  Both the Dask
    path and one machine read them so: a pandas graph's b or partition may
    come from a Dask pipeline too."""
    if is_distributed_input(values) and hasattr(values, "compute"):
        return values.compute()
    return values


DISTRIBUTED_FUNCTIONS = ("suitor_matching", "locally_dominant_matching", "b_suitor_matching",
                         "modularity", "louvain", "leiden")


def _from_dask(obj, source, destination, weight) -> EdgeInput | None:
    """Dask edge lists take the distributed path (``cugraph_match.dask``) at the
    top of the functions that have one; any other function gets here."""
    if not is_distributed_input(obj):
        return None
    raise TypeError(f"a Dask input is taken by {', '.join(DISTRIBUTED_FUNCTIONS)} (computed "
                    f"across the workers); for other functions call .compute() on the edge "
                    f"list first")


def check_stats(return_stats, graph: Any) -> bool:
    """``return_stats`` must be True or False ('no' would be read as True),
    and True only for a Dask input: it reports a distributed run, and
    single-machine calls have none."""
    return_stats = check_flag(return_stats, "return_stats")
    if return_stats and not is_distributed_input(graph):
        raise ValueError("return_stats=True reports a distributed run: it is for Dask inputs")
    return return_stats


# New input kinds are one more adapter here; the algorithms only ever see a
# Graph.  Dask frames are recognised first and routed to the distributed path.
INPUT_ADAPTERS: list[Callable[..., EdgeInput | None]] = [
    _from_dask,
    from_dataframe,
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
        "expected a cuDF or pandas edge-list DataFrame, a cugraph.Graph, a networkx.Graph, "
        f"a SciPy sparse matrix or a Dask DataFrame, got {type(graph).__module__}.{type(graph).__name__}"
    )


def is_directed_input(graph: Any) -> bool:
    """True for graph objects that declare themselves directed (NetworkX, cuGraph)."""
    is_directed = getattr(graph, "is_directed", None)
    if callable(is_directed) and not hasattr(graph, "columns"):
        try:
            return bool(is_directed())
        except Exception:  # pragma: no cover - an object with an unrelated method
            return False
    return False
