"""Graph coarsening by contracting a matching, one level or a whole hierarchy."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..structure.core import (DEFAULT_WEIGHT, Backend, PreparedGraph, WeightedGraph, _host_or_device, _plain,
                   build_csr, canonical_graph, contract_graph, internal_ids, read_edges,
                   require_unique_ids, require_vertex_frame, to_backend)
from .maximal import METHODS, maximal_mates


def coarsen(graph: Any, matching, source: str = "src", destination: str = "dst",
            weight: str | None = DEFAULT_WEIGHT, backend: str = "auto"):
    """Contract every matched pair of ``matching`` into one coarse vertex.

    Unmatched vertices become coarse vertices on their own.  Parallel edges
    between two coarse vertices merge into one whose weight is the sum.
    The edge inside a matched pair is kept, as the weight of a self-loop on
    its coarse vertex (cuGraph's convention for contracted graphs, so the
    total edge weight is preserved and the next level can carry it on).

    Parameters
    ----------
    graph : cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The fine graph, undirected.  (u, v) and (v, u) are one edge and
        duplicates keep their largest weight, as in every algorithm here;
        self-loops are kept as internal weight (a coarse level fed back in
        keeps its own).
    matching : DataFrame
        ``vertex | mate`` (null mate when unmatched), e.g. from
        :func:`~cugraph_match.maximal_matching`.  Vertices it omits are
        unmatched.  Each matched pair must be an edge of ``graph``.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`.
    backend : {"auto", "gpu", "cpu"}

    Returns
    -------
    coarse : DataFrame
        ``src | dst | weight`` with ``src <= dst``, one row per coarse edge
        (``src == dst`` for a self-loop holding internal weight), sorted.
        Coarse vertices are numbered ``0..k-1`` in the order of their
        smallest fine vertex; one with no edge at all appears only in
        ``mapping``.
    mapping : DataFrame
        ``vertex | coarse_vertex``, one row per fine vertex.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> path = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
    ...                      "weight": [1.0, 5.0, 1.0]})
    >>> coarse, mapping = cm.coarsen(path, cm.suitor_matching(path, backend="cpu"),
    ...                              backend="cpu")
    >>> coarse
       src  dst  weight
    0    0    1     1.0
    1    1    1     5.0
    2    1    2     1.0
    >>> mapping["coarse_vertex"].tolist()
    [0, 1, 1, 2]
    """
    edges = read_edges(graph, source, destination, weight, backend)
    xp = edges.backend.xp
    level = canonical_graph(edges.u, edges.v, edges.w, len(edges.labels), xp)
    mate = _mate_array(edges, level, matching, xp)
    coarse_of, coarse = _contract(level, mate, xp)
    lib = edges.frame_lib
    mapping = lib.DataFrame({
        "vertex": edges.labels,
        "coarse_vertex": lib.Series(_host_or_device(coarse_of, lib)),
    })
    return _edge_frame(coarse, lib, xp), mapping


def coarsen_hierarchy(graph: Any, min_vertices: int = 1000, matching: str = "handshake",
                      weighted: bool = True, seed: int = 0, max_levels: int = 64,
                      source: str = "src", destination: str = "dst",
                      weight: str | None = DEFAULT_WEIGHT, backend: str = "auto") -> list:
    """Coarsen repeatedly: the first phase of a multilevel partitioner.

    Each level matches the current graph (:func:`maximal_matching` with
    ``method=matching``) and contracts it with :func:`coarsen`'s rules.  It
    stops when the graph has at most ``min_vertices`` vertices, when a level
    would remove fewer than 5% of the vertices (that level is not kept), or
    after ``max_levels`` levels.

    Parameters
    ----------
    graph : cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The fine graph, as in :func:`coarsen`.
    min_vertices : int
        Stop once a level has this many vertices or fewer.
    matching : {"handshake", "suitor"}
        The matching that picks the pairs.
    weighted : bool
        Heavy-edge matching (the usual choice for coarsening) or random.
    seed : int
        Seed of the handshake matching; level i uses ``seed + i``.
    max_levels : int
        Upper bound on the number of levels.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`.
    backend : {"auto", "gpu", "cpu"}

    Returns
    -------
    list of (DataFrame, DataFrame)
        One ``(coarse, mapping)`` pair per level, as :func:`coarsen` returns
        them: level 0 maps the caller's vertices, level i the vertices of
        level i - 1.  Empty when ``graph`` is already small enough.

    Examples
    --------
    >>> import cugraph_match as cm
    >>> levels = cm.coarsen_hierarchy(cm.datasets.load("netscience"), min_vertices=200,
    ...                               backend="cpu")
    >>> [int(mapping["coarse_vertex"].max()) + 1 for coarse, mapping in levels]
    [849, 555, 436, 377, 351]
    """
    if matching not in METHODS:
        raise ValueError(f"matching must be one of {METHODS}, got {matching!r}")
    if isinstance(min_vertices, bool) or not isinstance(min_vertices, (int, np.integer)) \
            or min_vertices < 1:
        raise ValueError(f"min_vertices must be a positive int, got {min_vertices!r}")
    if isinstance(max_levels, bool) or not isinstance(max_levels, (int, np.integer)) \
            or max_levels < 0:
        raise ValueError(f"max_levels must be a non-negative int, got {max_levels!r}")
    edges = read_edges(graph, source, destination, weight, backend)
    be, lib = edges.backend, edges.frame_lib
    xp = be.xp
    level = canonical_graph(edges.u, edges.v, edges.w, len(edges.labels), xp)
    labels = edges.labels
    levels = []
    while level.n > min_vertices and len(levels) < max_levels:
        mate = maximal_mates(_prepared(level, be, lib, weighted), matching, weighted,
                             seed + len(levels))
        coarse_of, coarse = _contract(level, mate, xp)
        if coarse.n > 0.95 * level.n:
            break  # stopped shrinking
        mapping = lib.DataFrame({"vertex": labels,
                                 "coarse_vertex": lib.Series(_host_or_device(coarse_of, lib))})
        levels.append((_edge_frame(coarse, lib, xp), mapping))
        labels = lib.Series(_host_or_device(xp.arange(coarse.n, dtype=np.int64), lib),
                            name="vertex")
        level = coarse
    return levels


def _prepared(level: WeightedGraph, be: Backend, lib, weighted: bool) -> PreparedGraph:
    """The CSR of a level, for the matching kernels."""
    xp = be.xp
    w = level.w if weighted else xp.ones(level.lo.shape[0], dtype=np.float32)
    offsets, indices, weights = build_csr(level.lo, level.hi, w, level.n, xp)
    labels = lib.Series(_host_or_device(xp.arange(level.n, dtype=np.int64), lib), name="vertex")
    return PreparedGraph(be, lib, labels, offsets, indices, weights, weighted)


def _contract(level: WeightedGraph, mate, xp):
    """Coarse id of every vertex (pairs share one), and the contracted graph."""
    n = level.n
    vertex = xp.arange(n, dtype=np.int64)
    representative = xp.where(mate >= 0, xp.minimum(vertex, mate), vertex)
    is_rep = representative == vertex
    rank = xp.cumsum(is_rep) - 1
    coarse_of = rank[representative].astype(np.int64)
    return coarse_of, contract_graph(level, coarse_of, int(is_rep.sum()), xp)


def _edge_frame(level: WeightedGraph, lib, xp):
    """``src | dst | weight`` of a level: its edges and its positive self-loops, sorted."""
    has_loop = xp.flatnonzero(level.loop > 0)
    src = xp.concatenate([level.lo, has_loop])
    dst = xp.concatenate([level.hi, has_loop])
    w = xp.concatenate([level.w, level.loop[has_loop]])
    order = xp.lexsort(xp.stack([dst, src]))
    return lib.DataFrame({"src": lib.Series(_host_or_device(src[order], lib)),
                          "dst": lib.Series(_host_or_device(dst[order], lib)),
                          "weight": lib.Series(_host_or_device(w[order], lib))})


def _mate_array(edges, level: WeightedGraph, matching, xp):
    """The caller's ``vertex | mate`` frame as a validated internal ``mate`` array."""
    require_vertex_frame(matching, ("vertex", "mate"), "matching")
    require_unique_ids(matching["vertex"], "matching")
    n = level.n
    paired = matching[matching["mate"].notna()]
    vertex = internal_ids(edges, paired["vertex"], "matching column 'vertex'")
    mate_of = internal_ids(edges, paired["mate"], "matching column 'mate'")
    mate = xp.full(n, -1, dtype=np.int64)
    mate[vertex] = mate_of
    matched = mate >= 0
    back = mate[xp.where(matched, mate, 0)]
    bad = matched & (back != xp.arange(n, dtype=np.int64))
    if bool(bad.any()):
        v = int(to_backend(xp.flatnonzero(bad), np)[0])
        raise ValueError(f"matching is not symmetric: {int(bad.sum())} vertex/vertices have a "
                         f"mate that is not matched back; first is "
                         f"{_plain(edges.labels.iloc[v])!r} -> "
                         f"{_plain(edges.labels.iloc[int(mate[v])])!r}")
    lo = xp.flatnonzero(matched & (xp.arange(n) < mate))
    code = lo * max(n, 1) + mate[lo]
    edge_code = level.lo * max(n, 1) + level.hi  # sorted (``_canonical``)
    at = xp.clip(xp.searchsorted(edge_code, code), 0, max(edge_code.shape[0] - 1, 0))
    is_edge = (edge_code[at] == code) if edge_code.shape[0] else xp.zeros(code.shape[0], bool)
    if not bool(is_edge.all()):
        v = int(to_backend(lo[~is_edge], np)[0])
        raise ValueError(f"matching pairs {int((~is_edge).sum())} vertex pair(s) that are not "
                         f"edges of the graph; first is {_plain(edges.labels.iloc[v])!r} - "
                         f"{_plain(edges.labels.iloc[int(mate[v])])!r}")
    return mate
