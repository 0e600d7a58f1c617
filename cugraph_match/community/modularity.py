"""Modularity of a partition of a graph's vertices."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..structure.backend import to_backend
from ..structure.checks import check_flag, check_partition_values, check_resolution
from ..structure.edges import WeightedGraph, sum_safe
from ..structure.graph import (Graph, as_graph, internal_ids, lacking_ids_error,
                               require_undirected)
from ..structure.inputs import DEFAULT_WEIGHT, computed, is_distributed_input
from ..structure.sort_xp import bincount_xp


def modularity(graph: Any, partition, resolution: float = 1.0, source: str = "src",
               destination: str = "dst", weight: str | None = DEFAULT_WEIGHT,
               symmetrize: bool = False) -> float:
    """Newman's modularity Q of ``partition`` on ``graph``, with resolution γ.

    Q = Σ_c [ L_c / m − γ (d_c / 2m)² ], where m is the total edge weight,
    L_c the weight of the edges inside community c and d_c the summed
    weighted degree of its vertices.  A self-loop counts once in m and L_c
    and twice in its vertex's degree, as in ``networkx.community.modularity``.

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The graph, undirected: (u, v) and (v, u) are one edge, duplicates keep
        their largest weight, self-loops are kept.  A directed graph object
        is an error unless ``symmetrize=True``.
    partition : DataFrame
        ``vertex | community``, one row per vertex of the graph (community
        labels of any type), as :func:`louvain` returns, or
        ``vertex | partition`` as ``cugraph.louvain`` returns.
    resolution : float
        γ > 0; larger values favour smaller communities.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`.
    symmetrize : bool
        Accept a directed graph object, taking its edges as undirected.

    Returns
    -------
    float

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> two_triangles = pd.DataFrame({"src": [0, 0, 1, 3, 3, 4, 2],
    ...                               "dst": [1, 2, 2, 4, 5, 5, 3]})
    >>> parts = pd.DataFrame({"vertex": range(6), "community": [0, 0, 0, 1, 1, 1]})
    >>> round(cm.modularity(two_triangles, parts), 6)
    0.357143
    """
    check_flag(symmetrize, "symmetrize")
    if is_distributed_input(graph):
        from ..dask.modularity import modularity_dask

        return modularity_dask(graph, partition, resolution, source, destination, weight)
    require_undirected(graph, symmetrize, "modularity")
    resolution = check_resolution(resolution)
    prepared = as_graph(graph, source, destination, weight,
                        backend="auto" if isinstance(graph, Graph) else "cpu")
    community = community_codes(prepared, computed(partition))
    return modularity_of(prepared.weighted_graph(), community, resolution, prepared.backend.xp)


def modularity_of(g: WeightedGraph, community, resolution: float, xp) -> float:
    """Q of internal community codes ``0..k-1`` on a :class:`WeightedGraph`.

    Weights beyond 2**±256 are rescaled by a power of two first (exact, and Q
    does not change), so weights near 1e308 or 1e-308 give the right Q, never
    nan (``edges.sum_safe``).
    """
    g = sum_safe(g, xp)
    two_m = 2.0 * float(g.w.sum() + g.loop.sum())
    if two_m == 0.0:
        raise ValueError("modularity is undefined for a graph whose total edge weight is 0")
    k = int(community.max()) + 1 if g.n else 0
    # no edge, or no edge inside a community: empty bincounts (bincount_xp)
    degree = bincount_xp(g.lo, xp, g.w, g.n) + bincount_xp(g.hi, xp, g.w, g.n) + 2.0 * g.loop
    total = xp.bincount(community, weights=degree, minlength=k)
    same = community[g.lo] == community[g.hi]
    inside = bincount_xp(community[g.lo][same], xp, g.w[same], k) + \
        xp.bincount(community, weights=g.loop, minlength=k)
    return float((inside / (two_m / 2.0)).sum() - resolution * ((total / two_m) ** 2).sum())


def community_codes(graph: Graph, partition):
    """The ``vertex | community`` (or cuGraph's ``vertex | partition``) frame
    as community codes per internal vertex."""
    column = check_partition_values(partition)
    xp = graph.backend.xp
    vertex = internal_ids(graph, partition["vertex"], "partition column 'vertex'")
    n = len(graph.labels)
    if len(partition) != n:
        given = np.zeros(n, dtype=bool)
        given[to_backend(vertex, np)] = True
        lacking = int(np.flatnonzero(~given)[0])
        raise lacking_ids_error("partition", n - len(partition), graph.labels.iloc[lacking],
                                "community")
    codes, _ = graph.frame_lib.factorize(partition[column])
    community = xp.empty(n, dtype=np.int64)
    community[vertex] = to_backend(np.asarray(codes) if not hasattr(codes, "get") else codes,
                                   xp).astype(np.int64)
    return community
