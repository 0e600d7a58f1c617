"""Properties of a matching frame: its weight and whether it is a matching of a graph."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..structure.backend import to_backend
from ..structure.checks import check_flag, not_numbers, plain, require_vertex_frame
from ..structure.edges import find_edges
from ..structure.graph import Graph, as_graph, search_labels
from ..structure.inputs import DEFAULT_WEIGHT, computed
from ..structure.renumber import category_values


def matching_weight(matching) -> float:
    """Total weight of the matched edges of a ``vertex | mate | weight`` frame.

    Each matched edge appears in two rows (once per endpoint) and is counted
    once; a row without a mate counts nothing, whatever its weight.
    A Dask frame (what a Dask matching returns) is computed first.

    Examples
    --------
    >>> import pandas as pd, cugraph_match as cm
    >>> m = cm.suitor_matching(pd.DataFrame({"src": [0, 1], "dst": [1, 2],
    ...                                      "weight": [2.0, 5.0]}), backend="cpu")
    >>> cm.matching_weight(m)
    5.0
    """
    matching = computed(matching)  # a Dask matching's frame: one row per vertex
    require_vertex_frame(matching, ("vertex", "mate", "weight"), "matching")
    # rows without a mate are not matched, whatever their weight says
    weights = _numeric_weights(matching["weight"][matching["mate"].notna()])
    # in float64: integer sums wrap (two uint64 2**64 - 1 made 2**64 - 2)
    return half_of_doubled_sum(weights.astype(np.float64))


def _numeric_weights(weights):
    """A matching's ``weight`` column with a numeric dtype (an object column
    of numbers as float64), or a TypeError naming the first bad value."""
    kind = getattr(getattr(weights.dtype, "numpy_dtype", weights.dtype), "kind", "O")
    if kind == "O":
        bad = not_numbers(weights) & weights.notna()
        if int(bad.sum()):
            raise TypeError(f"matching column 'weight' has {int(bad.sum())} non-numeric "
                            f"value(s); first is {plain(weights[bad].iloc[0])!r}")
        return weights.astype(np.float64)
    if kind not in "iuf":
        raise TypeError(f"matching column 'weight' must be numeric, got dtype {weights.dtype}")
    return weights


def half_of_doubled_sum(weights) -> float:
    """Half the sum of ``weights`` (a Series or a NumPy/CuPy array) in which
    every matched edge's weight appears twice, once per end: the weight of
    the matching.  Each edge is counted twice, so 2w may overflow where w
    does not: the halves are summed then."""
    with np.errstate(over="ignore"):  # (past float64's largest the weight is inf)
        total = float(weights.sum())
        if math.isinf(total):
            return float((weights / 2.0).sum())
    return total / 2.0


def is_matching(graph: Any, matching, source: str = "src", destination: str = "dst",
                weight: str | None = DEFAULT_WEIGHT, maximal: bool = False) -> bool:
    """True when ``matching`` is a valid matching of ``graph``.

    Valid means: every vertex of the graph has exactly one row; ``mate`` is
    symmetric (v's mate has v as mate); no vertex is its own mate (as
    :func:`coarsen` also refuses); every matched pair is an edge of the graph
    (self-loops never count); and, when the frame has a ``weight`` column, it
    holds that edge's weight (the largest among duplicates) exactly, or
    rounded to float32 in a float32 column, and is null for unmatched rows.  With
    ``maximal=True`` it must also leave no edge with both ends unmatched.
    A Dask ``matching`` (what a Dask matching returns) is computed first; a
    Dask ``graph`` is refused (call ``.compute()`` on it).

    Examples
    --------
    >>> import pandas as pd, cugraph_match as cm
    >>> edges = pd.DataFrame({"src": [0, 1], "dst": [1, 2]})
    >>> cm.is_matching(edges, cm.suitor_matching(edges, backend="cpu"), maximal=True)
    True
    """
    maximal = check_flag(maximal, "maximal")
    matching = computed(matching)  # a Dask matching's frame: one row per vertex
    if isinstance(graph, Graph) and graph.bipartite:  # its refusal, not the frame's columns
        as_graph(graph, source, destination, weight, backend="cpu")
    require_vertex_frame(matching, ("vertex", "mate"), "matching")
    return matches_prepared(as_graph(graph, source, destination, weight, backend="cpu"),
                            matching, maximal)


def _weights_equal(stated, expected: np.ndarray, matched: np.ndarray) -> bool:
    """Each matched row's stated weight is its edge's, exactly; an unmatched
    row's is null.  A float32 column (what float32 and unweighted graphs
    give) is compared with the edge weight rounded to float32; integers are
    compared as integers (float64 would tie 2**53 + 1 with 2**53)."""
    null = stated.isna().to_numpy()
    if (null == matched).any():
        return False
    kind = getattr(stated.dtype, "numpy_dtype", stated.dtype)
    values = stated[~null].to_numpy(dtype=kind)
    expected = expected[matched]
    if kind.kind in "iu" and expected.dtype.kind in "iu":
        if kind != expected.dtype:  # int64 beside uint64: NumPy would compare in float64
            return values.astype(object).tolist() == expected.astype(object).tolist()
        return bool((values == expected).all())
    if kind == np.float32:
        return bool((values == expected.astype(np.float32)).all())
    return bool((values.astype(np.float64) == expected.astype(np.float64)).all())


def matches_prepared(graph: Graph, matching, maximal: bool = False) -> bool:
    """:func:`is_matching` on a prepared graph (any backend; checked on the host)."""
    graph = graph.on("cpu")
    frame = matching.to_pandas() if hasattr(matching, "to_pandas") else matching
    labels = graph.labels.to_pandas() if hasattr(graph.labels, "to_pandas") else graph.labels
    n = graph.num_vertices
    if len(frame) != n or frame["vertex"].duplicated().any():
        return False
    vertex_ids = category_values(frame["vertex"])
    vertex_pos = search_labels(labels, vertex_ids, "matching column 'vertex'")
    vertex_pos = np.clip(np.asarray(vertex_pos), 0, n - 1)
    if not (labels.iloc[vertex_pos].to_numpy() == vertex_ids.to_numpy()).all():
        return False  # a row names a vertex the graph does not have
    matched = frame["mate"].notna().to_numpy()
    mate = np.full(n, -1, dtype=np.int64)
    mates = category_values(frame["mate"])[matched]
    mate_pos = np.clip(np.asarray(search_labels(labels, mates, "matching column 'mate'")),
                       0, n - 1)
    if not (labels.iloc[mate_pos].to_numpy() == mates.to_numpy()).all():
        return False
    mate[vertex_pos[matched]] = mate_pos
    has = mate >= 0
    if (mate[has] == np.flatnonzero(has)).any():
        return False  # a vertex matched to itself (coarsen refuses the same frame)
    if (mate[mate[has]] != np.flatnonzero(has)).any():
        return False
    edges = graph.edges
    v = np.flatnonzero(has & (np.arange(n) < mate))
    found, at = find_edges(edges, v, mate[v], np)
    if not found.all():
        return False  # some matched pair is not an edge (self-loops never count)
    if "weight" in frame.columns:
        w = to_backend(edges.w, np) if edges.w is not None else np.ones(edges.num_edges)
        by_vertex = np.zeros(n, dtype=w.dtype)
        by_vertex[v] = w[at]
        by_vertex[mate[v]] = w[at]
        if not _weights_equal(_numeric_weights(frame["weight"]), by_vertex[vertex_pos],
                              has[vertex_pos]):
            return False
    if maximal:
        free = ~has
        if (free[to_backend(edges.lo, np)] & free[to_backend(edges.hi, np)]).any():
            return False
    return True
