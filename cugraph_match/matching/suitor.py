"""½-approximate weighted matching by the Suitor algorithm."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..structure.checks import check_launch, check_warp_shared_memory
from ..structure.bipartite import check_bipartite_flag, check_unmatched
from ..structure.graph import Graph, as_graph
from ..structure.inputs import DEFAULT_WEIGHT, is_distributed_input, check_stats
from .mates import mates_frame, mates_from_offers, mates_from_offers_cpu, weights_of_keys


def suitor_matching(graph: Any, source: str = "src", destination: str = "dst",
                    weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
                    vertices_per_warp: int = 8, threads_per_block: int = 128,
                    return_stats: bool = False, *, bipartite: bool = False,
                    unmatched: str = "drop"):
    """Greedy weighted matching computed by Suitor, on the GPU or the CPU.

    Every vertex proposes to the heaviest neighbour whose current offer it
    beats; a displaced suitor proposes again.  The result is exactly the
    greedy matching (heaviest edge first), a ½-approximation of the
    maximum-weight matching, for every backend and launch configuration.

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The graph, taken as undirected.  (u, v) and (v, u) are one edge,
        duplicate edges keep their largest weight and self-loops are dropped.
        A :class:`~cugraph_match.Graph` is used as built (no re-reading).
    source, destination : str
        Edge-list column names of the two endpoints (frames only).
    weight : str or None
        Weight column name.  ``None``, or the default name when no such
        column exists, makes every weight 1.  Weights must be positive and
        finite.
    backend : {"auto", "gpu", "cpu"}
        ``"auto"`` uses the GPU when one is usable.  On a Dask input it
        places each worker's part and supersteps: ``"gpu"`` on every worker's
        GPU, ``"auto"`` there when the partitions are cuDF and every worker's
        GPU is usable (not with ``bipartite=True``; ids other than integers
        are built on the host); the result is the same.  Where the rows
        stay (each worker's own, or moved to their vertices' owners) is the
        Dask setting ``cugraph_match.dask.layout``: ``"auto"`` (the
        default) chooses from a sample of rows, ``"edge"`` or ``"vertex"``
        force one (README, *Distributed*); the result is the same.
    vertices_per_warp, threads_per_block : int
        GPU launch configuration (the paper found 8 vertices per warp best).
        They change the speed, never the result.
    return_stats : bool
        Dask input only: also return the run's figures (supersteps, messages
        and bytes moved per superstep, the build's cut edges and bytes).
    bipartite : bool
        Two tables: ``source`` ids and ``destination`` ids are separate
        vertex sets even where their values are equal (left record 0 and
        right record 0 are two records), every row an edge from one side to
        the other; a NetworkX graph's sides come from its ``bipartite`` node
        attribute, a sparse matrix is a biadjacency matrix.  See
        :class:`~cugraph_match.Graph`.
    unmatched : {"drop", "left", "right", "both"}
        With ``bipartite=True``: ``"drop"`` returns the linked pairs only;
        ``"left"`` also every left record without a pair (destination and
        weight null), as a left join keeps every left row; ``"right"`` the
        pairs then every unmatched right record (source null); ``"both"``
        all of them.

    Returns
    -------
    DataFrame
        One row per vertex, sorted by vertex: ``vertex``, ``mate`` (null when
        unmatched) and ``weight`` of the matched edge (null when unmatched).
        cuDF when the input lives on the GPU (cuDF or cuGraph), else pandas.
        With ``bipartite=True`` the linked pairs instead, one row per pair,
        columns named after ``source``, ``destination`` and ``weight``
        (``"weight"`` when unweighted), sorted by source id; unmatched
        records as ``unmatched`` says (unmatched right records last).

    Notes
    -----
    Ties are broken so that the greedy matching is unique: edge (u, v) beats
    (x, y) when its weight is larger, or the weights are equal and
    (max(u, v), min(u, v)) > (max(x, y), min(x, y)) in the sorted order of
    the vertex ids.  Two-sided: every right id counts after every left id,
    so at equal weight (l, r) beats (l', r') when (r, l) > (r', l') (each
    side in its own sorted order).

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
    ...                       "weight": [1.0, 3.0, 1.0]})
    >>> cm.suitor_matching(edges, backend="cpu")
       vertex  mate  weight
    0       0  <NA>    <NA>
    1       1     2     3.0
    2       2     1     3.0
    3       3  <NA>    <NA>

    Two tables whose keys collide (left 0 and right 0 are different records):

    >>> cand = pd.DataFrame({"left_id": [0, 1, 2, 0, 2], "right_id": [1, 2, 0, 0, 1],
    ...                      "score": [.9, .8, .95, .1, .2]})
    >>> cm.suitor_matching(cand, "left_id", "right_id", "score", backend="cpu",
    ...                    bipartite=True)
       left_id  right_id  score
    0        0         1   0.90
    1        1         2   0.80
    2        2         0   0.95
    """
    # the launch arguments are checked whatever the backend: a bad value is a
    # bad value before any GPU is involved (each warp keeps two work lists of
    # vertices_per_warp 8-byte words in shared memory)
    threads = check_launch(threads_per_block, whole_warps=True,
                           positive={"vertices_per_warp": vertices_per_warp})
    # a NumPy int8/int16 wrapped in the shared-memory product (1000 passed
    # as np.int16 was accepted) and in the kernel's warp count
    vertices_per_warp = int(vertices_per_warp)
    check_warp_shared_memory(threads, "vertices_per_warp", vertices_per_warp, 2 * 8)
    bipartite = check_bipartite_flag(bipartite) or getattr(graph, "bipartite", False) is True
    unmatched = check_unmatched(unmatched, bipartite)
    return_stats = check_stats(return_stats, graph)
    if is_distributed_input(graph):
        if bipartite:
            from ..dask.bipartite import two_sided_dask

            return two_sided_dask(graph, source, destination, weight, backend, return_stats,
                                  unmatched)
        from ..dask.matching import matching_dask

        return matching_dask(graph, source, destination, weight, backend, return_stats)
    g = as_graph(graph, source, destination, weight, backend, bipartite=bipartite)
    mate, keys = suitor_mates(g, vertices_per_warp=vertices_per_warp,
                              threads_per_block=threads_per_block)
    return mates_frame(g, mate, weights_of_keys(g, keys), unmatched)


def suitor_mates(graph: Graph, vertices_per_warp: int = 8, threads_per_block: int = 128,
                 weighted: bool = True):
    """``mate`` (-1 unmatched) of the greedy matching of a prepared graph, and
    each vertex's matched-edge key (0 when unmatched).  ``weighted=False``
    matches as if every weight were 1."""
    xp = graph.backend.xp
    pref = graph.preference_csr(weighted)
    if graph.backend.name == "gpu":
        from .suitor_gpu import suitor_offers_gpu

        offer = suitor_offers_gpu(pref.offsets, pref.indices, pref.keys, xp,
                                  vertices_per_warp=vertices_per_warp,
                                  threads_per_block=threads_per_block)
        mate = mates_from_offers(offer, xp)
    else:
        from .suitor_cpu import suitor_offers

        offer = suitor_offers(pref.offsets, pref.indices, pref.keys)
        mate = mates_from_offers_cpu(offer)
    keys = xp.where(mate >= 0, offer >> np.uint64(32), 0).astype(np.uint32)
    return mate, keys
