"""Graph coarsening by contracting a matching, one level or a whole hierarchy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..structure.backend import to_backend
from ..structure.checks import (check_flag, check_seed, plain, real_value, require_unique_ids,
                                require_vertex_frame)
from ..structure.edges import (UndirectedEdges, WeightedGraph, contract_graph, find_edges,
                               index_dtype, require_finite_weights)
from ..structure.graph import Graph, as_graph, internal_ids
from ..structure.inputs import DEFAULT_WEIGHT, frame_library
from ..structure.output import edge_list_frame, host_or_device, vertex_frame
from ..structure.progress import Stopwatch, log_step
from .maximal import METHODS, maximal_mates


def coarsen(graph: Any, matching, source: str = "src", destination: str = "dst",
            weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
            return_graph: bool = False):
    """Contract every matched pair of ``matching`` into one coarse vertex.

    Unmatched vertices become coarse vertices on their own.  Parallel edges
    between two coarse vertices merge into one whose weight is the sum.
    The edge inside a matched pair is kept, as the weight of a self-loop on
    its coarse vertex (cuGraph's convention for contracted graphs, so the
    total edge weight is preserved and the next level can carry it on).

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
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
    return_graph : bool
        Return the coarse graph as a :class:`~cugraph_match.Graph` instead
        of a frame: every coarse vertex (those with no edge too), the summed
        weights and the self-loops, ready for the next call
        (:func:`~cugraph_match.louvain`, a matching, ``coarsen`` again) with
        nothing read twice and no merge by hand.

    Returns
    -------
    coarse : DataFrame, or cm.Graph with ``return_graph=True``
        ``src | dst | weight`` with ``src <= dst``, one row per coarse edge
        (``src == dst`` for a self-loop holding internal weight), sorted.
        Coarse vertices are numbered ``0..k-1`` in the order of their
        smallest fine vertex; one with no edge at all appears only in
        ``mapping`` (the Graph holds it).
    mapping : DataFrame
        ``vertex | coarse_vertex``, one row per fine vertex.
        :func:`project_partition` carries a result on the coarse vertices
        (a partition, say) back to the fine ones through it.

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

    Chained: the coarse level as a Graph, its communities back on the fine vertices.

    >>> coarse, mapping = cm.coarsen(path, cm.suitor_matching(path, backend="cpu"),
    ...                              backend="cpu", return_graph=True)
    >>> coarse
    Graph(3 vertices, 2 edges, weighted, backend='cpu')
    >>> parts, q = cm.louvain(coarse)
    >>> cm.project_partition(parts, mapping)["community"].tolist()
    [0, 0, 0, 0]
    """
    check_flag(return_graph, "return_graph")
    g = as_graph(graph, source, destination, weight, backend)
    xp = g.backend.xp
    level = g.weighted_graph()
    mate = _mate_array(g, matching, xp)
    coarse_of, coarse = _contract(level, mate, xp)
    mapping = vertex_frame(g.labels, g.frame_lib, "coarse_vertex", coarse_of.astype(np.int64))
    if return_graph:
        return _level_graph(coarse, g), mapping
    return _edge_frame(coarse, g.frame_lib, xp), mapping


def _level_graph(coarse: WeightedGraph, fine: Graph) -> Graph:
    """A contracted level as a :class:`Graph` over coarse ids ``0..k-1``
    (int64 labels), on the fine graph's backend and frame library, its
    self-loops kept (as internal weight)."""
    xp, lib = fine.backend.xp, fine.frame_lib
    labels = lib.Series(host_or_device(xp.arange(coarse.n, dtype=np.int64), lib), name="vertex")
    loop = coarse.loop if bool((coarse.loop > 0).any()) else None
    return Graph._from_parts(fine.backend, lib, labels,
                             UndirectedEdges(coarse.n, coarse.lo, coarse.hi, coarse.w, loop),
                             weighted=True)


def project_partition(partition, mappings):
    """Carry a result on coarse vertices back to the fine vertices.

    Each fine vertex takes the row of its coarse vertex: a Louvain
    partition of a coarse level becomes a partition of the graph it was
    contracted from, or of the original graph through a whole hierarchy.

    Parameters
    ----------
    partition : DataFrame
        ``vertex | ...`` with one row per coarse vertex (``vertex`` holding
        the coarse ids) and any other columns, e.g. ``vertex | community``
        from :func:`~cugraph_match.louvain`.
    mappings : DataFrame or sequence of DataFrames
        :func:`coarsen`'s ``vertex | coarse_vertex`` mapping, or the
        mappings of several levels, finest first (as
        :func:`coarsen_hierarchy` returns them:
        ``[mapping for coarse, mapping in levels]``).

    Returns
    -------
    DataFrame
        The columns of ``partition``, one row per fine vertex of the first
        mapping, in its order (``vertex`` now the fine ids); in the first
        mapping's frame library.

    Raises
    ------
    ValueError
        A coarse vertex without a row in ``partition`` (or a row for an id
        that is no coarse vertex), named with the count and the first one.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> mapping = pd.DataFrame({"vertex": [10, 11, 12, 13], "coarse_vertex": [0, 0, 1, 1]})
    >>> parts = pd.DataFrame({"vertex": [0, 1], "community": ["a", "b"]})
    >>> cm.project_partition(parts, mapping)
       vertex community
    0      10         a
    1      11         a
    2      12         b
    3      13         b
    """
    levels = [mappings] if hasattr(mappings, "columns") else list(mappings)
    if not levels:
        raise ValueError("mappings is empty: give coarsen's mapping, or a hierarchy's mappings")
    names = ["mapping"] if len(levels) == 1 else [f"mappings[{i}]" for i in range(len(levels))]
    for level, name in zip(levels, names):
        require_vertex_frame(level, ("vertex", "coarse_vertex"), name)
        require_unique_ids(level["vertex"], name)  # one row per fine vertex
    require_vertex_frame(partition, ("vertex",), "partition")
    carried = [c for c in partition.columns if c != "vertex"]
    if not carried:
        raise ValueError("partition has no column besides 'vertex' to carry to the fine vertices")
    if "coarse_vertex" in carried:
        raise ValueError("partition has a column 'coarse_vertex', the name the mapping's own "
                         "column takes; rename it")
    require_unique_ids(partition["vertex"], "partition")
    current, source = partition, "partition"
    for level, name in zip(reversed(levels), reversed(names)):
        current = _project_once(current, level, carried, name, source)
        source = f"{name}'s 'vertex'"  # the next level's coarse rows: this one's fine ids
    return current


def _unused_name(base: str, taken) -> str:
    """A column name for the join's own use that none of ``taken`` has."""
    name = base
    while name in taken:
        name += "_"
    return name


def _project_once(coarse_rows, mapping, carried, name: str, source: str):
    """One level: ``vertex | carried`` on the fine vertices of ``mapping``;
    ``source`` names where ``coarse_rows`` came from, for errors."""
    lib = frame_library(mapping)
    if frame_library(coarse_rows) is not lib:  # one library for the join
        coarse_rows = coarse_rows.to_pandas() if lib is pd else lib.from_pandas(coarse_rows)
    coarse_ids = mapping["coarse_vertex"]
    known = coarse_rows["vertex"].isin(coarse_ids)
    if not bool(known.all()):
        unknown = coarse_rows["vertex"][~known]
        raise ValueError(f"{source}: {len(unknown)} vertex id(s) are not coarse vertices of "
                         f"{name}; first is {plain(unknown.iloc[0])!r}")
    # the join's own columns named apart from the caller's (a carried column
    # of the same name was overwritten, or raised a KeyError)
    found = _unused_name("__cugraph_match_found__", carried)
    position = _unused_name("__cugraph_match_position__", carried)
    values = coarse_rows.rename(columns={"vertex": "coarse_vertex"})[["coarse_vertex", *carried]]
    values = values.assign(**{found: True})
    fine = mapping[["vertex", "coarse_vertex"]].reset_index(drop=True)
    fine = fine.assign(**{position: np.arange(len(fine), dtype=np.int64)})
    joined = fine.merge(values, on="coarse_vertex", how="left")
    missing = joined[found].isna()
    if bool(missing.any()):
        first = joined[missing].sort_values(position)["coarse_vertex"].iloc[0]
        count = len(joined[missing]["coarse_vertex"].unique())
        raise ValueError(f"{source} lacks {count} coarse vertex/vertices of {name}; first is "
                         f"{plain(first)!r}")
    joined = joined.sort_values(position)
    return joined[["vertex", *carried]].reset_index(drop=True)


def coarsen_hierarchy(graph: Any, min_vertices: int = 1000, matching: str = "handshake",
                      weighted: bool = True, seed: int = 0, max_levels: int = 64,
                      source: str = "src", destination: str = "dst",
                      weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
                      max_ratio: float = 0.85) -> list:
    """Coarsen repeatedly: the first phase of a multilevel partitioner.

    Each level matches the current graph (:func:`maximal_matching` with
    ``method=matching``) and contracts it with :func:`coarsen`'s rules.  It
    stops when the graph has at most ``min_vertices`` vertices, when a level
    would keep more than ``max_ratio`` of the previous level's vertices or
    would contract nothing (that level is not kept), or after ``max_levels``
    levels.  Only the levels'
    frames are kept; each level's graph is dropped once the next is built.

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
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
    max_ratio : float
        In (0, 1].  A level is kept only while it has at most this fraction
        of the previous level's vertices; 0.85 is METIS's coarsening cut-off.
        On skewed graphs a maximal matching leaves most leaves of a hub
        unmatched, so levels shrink more and more slowly (R-MAT 18: 24%,
        18%, 14%, 12%, ... of the vertices) while each still costs about as
        much as the first; the cut-off stops there, before the levels'
        frames outgrow the input.

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
    [849, 555, 436]
    """
    if matching not in METHODS:
        raise ValueError(f"matching must be one of {METHODS}, got {matching!r}")
    weighted = check_flag(weighted, "weighted")
    if isinstance(min_vertices, bool) or not isinstance(min_vertices, (int, np.integer)) \
            or min_vertices < 1:
        raise ValueError(f"min_vertices must be a positive int, got {min_vertices!r}")
    ratio = real_value(max_ratio)
    if ratio is None or not 0 < ratio <= 1:
        raise ValueError(f"max_ratio must be a number in (0, 1], got {max_ratio!r}")
    max_ratio = ratio
    if isinstance(max_levels, bool) or not isinstance(max_levels, (int, np.integer)) \
            or max_levels < 0:
        raise ValueError(f"max_levels must be a non-negative int, got {max_levels!r}")
    seed = check_seed(seed)
    g = as_graph(graph, source, destination, weight, backend)
    be, lib, xp = g.backend, g.frame_lib, g.backend.xp
    labels = g.labels
    level, current = None, g
    levels = []
    clock = Stopwatch()
    while current.num_vertices > min_vertices and len(levels) < max_levels:
        n = current.num_vertices
        m = current.num_edges
        mate = maximal_mates(current, matching, weighted, seed + len(levels))
        if current is g and not isinstance(graph, Graph):
            g.release_rows()  # a graph of our own: its rows are not needed again
        # the level's size is known from the matching: no contraction is
        # spent on a level that would not be kept
        pairs = int((mate >= 0).sum()) // 2
        if n - pairs > max_ratio * n or pairs == 0:
            # shrinking too slowly to be worth a level; or not at all (no edge
            # left between two vertices: every later level would be this one)
            break
        coarse_of, coarse = _contract(current.weighted_graph() if level is None else level,
                                      mate, xp)
        del mate
        levels.append((_edge_frame(coarse, lib, xp),
                       vertex_frame(labels, lib, "coarse_vertex", coarse_of.astype(np.int64))))
        log_step("coarsen_hierarchy level", len(levels) - 1, n, m, clock.lap(),
                 coarse_vertices=coarse.n, coarse_edges=int(coarse.lo.shape[0]))
        del coarse_of
        labels = lib.Series(host_or_device(xp.arange(coarse.n, dtype=np.int64), lib),
                            name="vertex")
        level = coarse
        # the next level's graph: weights only when the matching reads them
        current = Graph._from_parts(be, lib, None,
                                    UndirectedEdges(coarse.n, coarse.lo, coarse.hi,
                                                    coarse.w if weighted else None, None),
                                    weighted)
    return levels


def _contract(level: WeightedGraph, mate, xp):
    """Coarse id of every vertex (pairs share one), and the contracted graph."""
    n = level.n
    vertex = xp.arange(n, dtype=np.int64)
    representative = xp.where(mate >= 0, xp.minimum(vertex, mate), vertex)
    is_rep = representative == vertex
    rank = xp.cumsum(is_rep) - 1
    coarse_of = rank[representative].astype(index_dtype(max(n, 1)))
    coarse = contract_graph(level, coarse_of, int(is_rep.sum()), xp)
    # merged weights are summed: near 1e308 the sum is inf, which no later call accepts
    return coarse_of, require_finite_weights(coarse, xp, "coarsen")


def _edge_frame(level: WeightedGraph, lib, xp):
    """``src | dst | weight`` of a level: its edges and its positive self-loops,
    sorted by (src, dst).

    The level's edges are sorted by (hi, lo); a stable sort by lo alone (a
    counting sort on the host, a radix sort of the ids on the device) orders
    them by (lo, hi), and each vertex's self-loop goes first among its rows
    (its dst is the smallest)."""
    if xp is np:
        from ..structure.pipeline_cpu import edges_by_source

        size = int(level.lo.shape[0]) + int(np.count_nonzero(level.loop > 0))
        src = np.empty(size, dtype=np.int64)
        dst = np.empty(size, dtype=np.int64)
        w = np.empty(size, dtype=np.float64)
        edges_by_source(level.lo, level.hi, level.w, level.loop, src, dst, w)
        return edge_list_frame(lib, src, dst, w)
    has_loop = xp.flatnonzero(level.loop > 0).astype(level.lo.dtype)
    src = xp.concatenate([has_loop, level.lo])
    dst = xp.concatenate([has_loop, level.hi])
    w = xp.concatenate([level.loop[has_loop], level.w])
    order = stable_order(src, xp)
    # coarse ids are int64 in the frames, whatever the internal width
    return edge_list_frame(lib, src[order].astype(np.int64), dst[order].astype(np.int64),
                           w[order])


def stable_order(values, xp):
    """Stable ascending order of non-negative integer ids."""
    if xp is np:
        from ..structure.sort_cpu import stable_argsort

        return stable_argsort(values.astype(np.uint64))
    from ..structure.sort_xp import stable_argsort_xp

    return stable_argsort_xp(values, xp)


def _mate_array(graph: Graph, matching, xp):
    """The caller's ``vertex | mate`` frame as a validated internal ``mate`` array."""
    require_vertex_frame(matching, ("vertex", "mate"), "matching")
    require_unique_ids(matching["vertex"], "matching")
    n = graph.num_vertices
    labels = graph.labels
    paired = matching[matching["mate"].notna()]
    if len(paired) < len(matching):  # the unmatched rows' ids are checked too (null, unknown)
        internal_ids(graph, matching["vertex"], "matching column 'vertex'")
    vertex = internal_ids(graph, paired["vertex"], "matching column 'vertex'")
    mate_of = internal_ids(graph, paired["mate"], "matching column 'mate'")
    mate = xp.full(n, -1, dtype=np.int64)
    mate[vertex] = mate_of
    matched = mate >= 0
    to_itself = mate == xp.arange(n, dtype=np.int64)
    if bool(to_itself.any()):
        v = int(to_backend(xp.flatnonzero(to_itself), np)[0])
        raise ValueError(f"matching pairs {int(to_itself.sum())} vertex/vertices with "
                         f"themselves; first is {plain(labels.iloc[v])!r} (an unmatched "
                         f"vertex has a null mate)")
    back = mate[xp.where(matched, mate, 0)]
    bad = matched & (back != xp.arange(n, dtype=np.int64))
    if bool(bad.any()):
        v = int(to_backend(xp.flatnonzero(bad), np)[0])
        raise ValueError(f"matching is not symmetric: {int(bad.sum())} vertex/vertices have a "
                         f"mate that is not matched back; first is "
                         f"{plain(labels.iloc[v])!r} -> {plain(labels.iloc[int(mate[v])])!r}")
    lo = xp.flatnonzero(matched & (xp.arange(n) < mate))
    found, _ = find_edges(graph.edges, lo, mate[lo], xp)
    if not bool(found.all()):
        v = int(to_backend(lo[~found], np)[0])
        raise ValueError(f"matching pairs {int((~found).sum())} vertex pair(s) that are not "
                         f"edges of the graph; first is {plain(labels.iloc[v])!r} - "
                         f"{plain(labels.iloc[int(mate[v])])!r}")
    return mate
