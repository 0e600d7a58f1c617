"""Louvain community detection (Naim, Manne, Halappanavar, Tumeo's GPU design; CPU too)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..structure.backend import to_backend
from ..structure.checks import (check_flag, check_positive_int, check_resolution, check_seed,
                                check_threshold, numpy_seed)
from ..structure.csr import neighbour_csr
from ..structure.edges import UndirectedEdges, WeightedGraph, contract_graph, sum_safe
from ..structure.graph import as_graph, require_undirected
from ..structure.inputs import DEFAULT_WEIGHT, is_distributed_input
from ..structure.output import vertex_frame
from ..structure.progress import Stopwatch, log_step
from .modularity import modularity_of

# The paper's thresholds: a coarse one while the graph is large, which stops
# the expensive first phases early at almost no cost in modularity.
COARSE_THRESHOLD = 1e-2
COARSE_ABOVE_VERTICES = 100_000
MAX_PASSES = 1000  # guard on passes per phase; a phase ends on its threshold long before


def louvain(graph: Any, source: str = "src", destination: str = "dst",
            weight: str | None = DEFAULT_WEIGHT, resolution: float = 1.0,
            threshold: float = 1e-7, max_level: int = 100, backend: str = "auto",
            symmetrize: bool = False, seed: int = 0, refine: bool = True):
    """Communities of maximal modularity by the Louvain method, on the GPU or the CPU.

    Each phase moves vertices to the neighbouring community of largest
    modularity gain until a pass gains less than the threshold; then every
    community becomes one vertex (internal weight as a self-loop) and the
    next level starts.  It stops when a level gains less than the threshold,
    nothing moves, or after ``max_level`` levels.  While a level has more
    than 100,000 vertices the threshold is 10⁻² (the paper's coarse
    threshold), below that ``threshold``.

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The graph, undirected: (u, v) and (v, u) are one edge, duplicates keep
        their largest weight, self-loops are kept (and count twice in their
        vertex's degree).  A directed graph object is an error unless
        ``symmetrize=True``.  A Dask (or Dask-cuDF) edge list, or a
        :class:`cugraph_match.dask.DistributedGraph`, runs on the workers of
        its ``dask.distributed`` cluster (see ``cugraph_match/dask/louvain.py``;
        the passes on the workers' GPUs with ``backend="gpu"``, or ``"auto"``
        on Dask-cuDF partitions when every worker has a working GPU): the
        result is a Dask frame, the contract the same except the exact
        partition.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`.
        No weight column means every weight is 1.
    resolution : float
        γ in the modularity (as in cuGraph and NetworkX); larger values give
        smaller communities.
    threshold : float
        A phase, and the whole run, ends when its modularity gain falls below
        this.
    max_level : int
        At most this many levels (phases followed by aggregation).
    backend : {"auto", "gpu", "cpu"}
    symmetrize : bool
        Accept a directed graph object, taking its edges as undirected.
    refine : bool
        After the last level, run one more move phase on the original
        vertices, starting from the partition found (the refinement of
        NetworKit's PLM).  It never lowers modularity; on the graphs in
        ``shared/data/graphs`` it raised it by 0.0-1.2% (karate: 0.4151 to
        0.4198, the optimum).
    seed : int
        Seed of the CPU's vertex visiting order (a random order per level,
        as in the original Louvain code); the result is deterministic for a
        seed.  Any int is accepted on both backends (a negative one is taken
        modulo 2**64); anything else raises a TypeError on both.  The GPU
        order is fixed by the degree buckets, and the GPU result is the same
        on every run: it accumulates weights as int64 fixed-point numbers
        (the total degree scaled by a power of two to just below 2**61), so
        its atomic sums are exact whatever order they land in, and it sorts
        each contracted level into one canonical order.  The rounding moves
        a weight by at most 2**-62 of the total; one smaller than that
        counts as 0.

    Returns
    -------
    parts : DataFrame
        ``vertex | community``, one row per vertex, sorted by vertex;
        communities are numbered ``0..k-1`` in order of their first vertex.
        cuDF when the input lives on the GPU, else pandas; a Dask frame
        partitioned by vertex (known divisions) for a Dask input.
    q : float
        The modularity of ``parts``, equal to :func:`modularity` of it.

    Notes
    -----
    Heuristics from the paper (after Lu et al.): ties between communities of
    equal gain go to the lowest community id, and on the GPU a vertex alone
    in its community moves into another singleton community only if that
    one's id is lower (all vertices of a bucket move at once there, and the
    rule stops singletons swapping).  The CPU visits vertices in a seeded
    random order and commits each move at once; the GPU commits after each
    degree bucket, so the two may find different, equally good, partitions.

    Examples
    --------
    >>> import cugraph_match as cm
    >>> parts, q = cm.louvain(cm.datasets.load("karate"), backend="cpu")
    >>> round(q, 4), parts["community"].nunique()
    (0.4198, 4)
    """
    resolution, threshold = check_resolution(resolution), check_threshold(threshold)
    check_positive_int(max_level, "max_level")
    seed, refine = check_seed(seed), check_flag(refine, "refine")
    check_flag(symmetrize, "symmetrize")
    if is_distributed_input(graph):
        from ..dask.louvain import louvain_dask

        return louvain_dask(graph, source, destination, weight, resolution, threshold,
                            max_level, backend, seed, bool(refine), louvain_of_edge_frame,
                            COARSE_THRESHOLD, COARSE_ABOVE_VERTICES, MAX_PASSES)
    require_undirected(graph, symmetrize, "louvain")
    prepared = as_graph(graph, source, destination, weight, backend)
    given = prepared.weighted_graph()
    if given.n == 0 or (given.w.shape[0] == 0 and not bool((given.loop > 0).any())):
        raise ValueError("louvain needs at least one edge: the graph has no edge weight")
    # weights near 1e308 (or 1e-308) are rescaled exactly; the partition and Q
    # do not depend on the scale
    g = sum_safe(given, prepared.backend.xp, resolution)
    community = louvain_communities(g, resolution, threshold, max_level, prepared.backend,
                                    seed, refine=bool(refine),
                                    rows=rows_of_graph(prepared) if g is given else None)
    q = level_modularity(g, community, resolution, prepared.backend, fixed=False)
    return vertex_frame(prepared.labels, prepared.frame_lib, "community", community), q


def louvain_of_edge_frame(frame, resolution: float, threshold: float, max_level: int,
                          seed: int, backend: str = "cpu", refine: bool = False) -> pd.Series:
    """Louvain of a pandas ``src | dst | weight`` edge list (without
    refinement unless ``refine``), on ``backend``: the community of each
    vertex, indexed by vertex id (the Dask path's last levels, on one worker;
    on its GPU when the passes ran on the workers' GPUs; with the refinement
    when the whole graph is small enough to run there)."""
    prepared = as_graph(frame, "src", "dst", "weight", backend)
    g = sum_safe(prepared.weighted_graph(), prepared.backend.xp, resolution)
    community = louvain_communities(g, resolution, threshold, max_level, prepared.backend,
                                    seed, refine=refine)
    return pd.Series(to_backend(community, np), index=to_backend(prepared.labels, np))


def louvain_communities(g: WeightedGraph, resolution: float, threshold: float, max_level: int,
                        backend, seed: int = 0, refine: bool = True, rows=None):
    """Community of every vertex (codes ``0..k-1`` by first vertex) of a WeightedGraph.

    ``rows`` are g's (offsets, indices, float64 weights) when already built;
    the first level and the refinement both read them (the CPU's only: the
    GPU works on g in fixed point, see ``louvain_gpu.fixed_point``).
    """
    xp = backend.xp
    if backend.name == "gpu":
        from .louvain_gpu import fixed_point

        g, _ = fixed_point(g, xp)  # exact sums: the same partition on every run
        rows = None
    first_rows = rows if rows is not None else level_rows(g, xp)
    community = xp.arange(g.n, dtype=np.int64)  # original vertex -> current level's vertex
    level_graph = g
    q = level_modularity(g, community, resolution, backend)
    clock = Stopwatch()
    for level in range(max_level):
        limit = COARSE_THRESHOLD if level_graph.n > COARSE_ABOVE_VERTICES else threshold
        csr = first_rows if level_graph is g else level_rows(level_graph, xp)
        # a partition's modularity is the same on the level graph and, unfolded, on g
        moved, new_q = _move_phase(csr, level_graph.loop,
                                   xp.arange(level_graph.n, dtype=np.int64), resolution, limit,
                                   backend, [seed, level])
        if backend.name == "gpu":
            from .louvain_gpu import contract_gpu

            coarse, level_community = contract_gpu(*csr, level_graph.loop, moved, xp)
            k = coarse.n
        else:
            level_community, k = first_appearance_codes(moved, xp)
        log_step("louvain level", level, level_graph.n, int(level_graph.lo.shape[0]),
                 clock.lap(), communities=k, Q=float(new_q))
        if k == level_graph.n:
            break  # nothing merged: the partition is final
        candidate = level_community[community]
        if new_q < q:
            break  # never return a worse partition than the previous level's
        gained, community, q = new_q - q, candidate, new_q
        if gained < threshold:
            break
        level_graph = coarse if backend.name == "gpu" else \
            contract_graph(level_graph, level_community, k, xp)
    del csr
    if refine and g.n:
        refined, refined_q = _move_phase(first_rows, g.loop, community.copy(), resolution, threshold,
                                         backend, [seed, 2**31])  # its own order stream
        log_step("louvain refinement", None, g.n, int(g.lo.shape[0]), clock.lap(),
                 Q=float(max(refined_q, q)))
        if refined_q > q:
            community = refined
    return first_appearance_codes(community, xp)[0]


def level_modularity(g: WeightedGraph, community, resolution: float, backend,
                     fixed: bool = True) -> float:
    """Q of ``community`` on g: on the GPU from exact fixed-point sums (the same
    on every run; ``fixed=False`` converts a float graph first), on the CPU
    by :func:`modularity_of`."""
    if backend.name != "gpu":
        return modularity_of(g, community, resolution, backend.xp)
    from .louvain_gpu import fixed_point, fixed_point_modularity

    if not fixed:
        g, _ = fixed_point(g, backend.xp)
    return fixed_point_modularity(g, community, resolution, backend.xp)


def rows_of_graph(prepared):
    """A prepared graph's own neighbour rows when they hold float64 weights (the
    kernels' type; pandas' default), so Louvain and every later call share them."""
    e = prepared.edges
    if e.w is not None and e.w.dtype == np.float64:
        rows = prepared.neighbour_csr()
        return rows.offsets, rows.indices, rows.weights
    return None


def level_rows(g: WeightedGraph, xp):
    """(offsets, indices, weights) of a level, rows in neighbour order (Louvain
    reads whole rows, so it needs no preference order)."""
    rows = neighbour_csr(UndirectedEdges(g.n, g.lo, g.hi, g.w, None), xp)
    return rows.offsets, rows.indices, rows.weights


def _move_phase(csr, loop, community, resolution, threshold, backend, order_seed,
                leiden_moves=False):
    """One move phase from ``community`` on either backend; returns the new
    communities and their modularity.  ``order_seed`` seeds the CPU's random
    visiting order; ``leiden_moves`` makes the CPU's phase Leiden's fast local
    moving (see ``louvain_cpu.move_phase``)."""
    offsets, indices, weights = csr
    if backend.name == "gpu":
        from .louvain_gpu import move_phase_gpu

        return move_phase_gpu(offsets, indices, weights, loop, community, resolution,
                              threshold, MAX_PASSES, backend.xp)
    from .louvain_cpu import move_phase

    order = np.random.default_rng([numpy_seed(int(s)) for s in order_seed]).permutation(
        loop.shape[0])
    q, _ = move_phase(offsets, indices, weights, loop, community, resolution, threshold,
                      MAX_PASSES, order, leiden_moves)
    return community, q


def first_appearance_codes(labels, xp):
    """Relabel to ``0..k-1`` in order of first appearance; returns (codes, k)."""
    distinct, first, inverse = xp.unique(labels, return_index=True, return_inverse=True)
    order = xp.argsort(first)
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.shape[0], dtype=order.dtype)
    return rank[inverse.ravel()].astype(np.int64), int(distinct.shape[0])
