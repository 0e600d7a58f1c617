"""Leiden community detection (Traag, Waltman & van Eck 2019), on the GPU and the CPU."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..structure.backend import to_backend
from ..structure.edges import sum_safe
from ..structure.graph import as_graph, require_undirected
from ..structure.inputs import DEFAULT_WEIGHT, is_distributed_input
from ..structure.output import vertex_frame
from ..structure.progress import Stopwatch, log_step
from ..structure.checks import (check_flag, check_positive_int, check_resolution, check_seed,
                                check_threshold, numpy_seed, real_value)
from .louvain import (COARSE_ABOVE_VERTICES, COARSE_THRESHOLD, MAX_PASSES, _move_phase,
                      first_appearance_codes, level_modularity, level_rows, rows_of_graph)

# θ in units of the graph's mean edge weight: exp(ΔH / θw̄) with θ = 0.01 makes
# a gain one mean edge larger e^100 times likelier, so the refinement is
# greedy but for near-ties, as igraph's default β = 0.01 (see leiden_cpu).
DEFAULT_THETA = 0.01


def leiden(graph: Any, source: str = "src", destination: str = "dst",
           weight: str | None = DEFAULT_WEIGHT, resolution: float = 1.0, max_level: int = 100,
           theta: float = DEFAULT_THETA, seed: int = 0, threshold: float = 1e-7,
           backend: str = "auto", symmetrize: bool = False, *, max_iter: int | None = None,
           random_state: int | None = None):
    """Communities of high modularity, each one connected, by the Leiden method.

    Each level runs three phases (Traag, Waltman & van Eck, "From Louvain to
    Leiden: guaranteeing well-connected communities", 2019):

    1. *local moving*: Louvain's move phase, from the previous level's
       partition (singletons at the first level);
    2. *refinement*: inside every community found, vertices start alone and
       merge only into sub-communities they are well connected to, so each
       refined community is connected;
    3. *aggregation*: every refined community becomes one vertex, and the
       next level starts from the unrefined communities (a community the
       refinement split is several vertices there, which the next move phase
       may separate).

    The run stops when a level's move phase leaves every vertex alone, or
    when a level gains less than ``threshold`` and the refinement split
    nothing; as igraph's ``n_iterations=-1``, it then starts again from the
    original vertices with the partition found while an iteration gains
    enough; ``max_level`` bounds the levels of all iterations together.
    Finally any community that is not connected (possible when
    ``max_level`` cut the run short, or after a level aggregated by its
    communities because the refinement merged nothing) is split into its
    connected components, which never lowers modularity.  Every returned
    community induces a connected subgraph.

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The graph, as in :func:`louvain`: undirected, duplicates keep their
        largest weight, self-loops kept (twice in their vertex's degree); a
        directed graph object is an error unless ``symmetrize=True``.  A Dask
        (or Dask-cuDF) edge list, or a
        :class:`cugraph_match.dask.DistributedGraph`, runs on the workers of
        its ``dask.distributed`` cluster (the design is in
        ``cugraph_match/dask/louvain.py``; the passes on the workers' GPUs as
        for :func:`louvain`): the result is a Dask frame, every community
        still connected, the exact partition not one machine's.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`.
        No weight column means every weight is 1.
    resolution : float
        γ in the modularity (as in cuGraph and NetworkX).
    max_level : int
        At most this many levels (``max_iter`` is cuGraph's name for it).
    theta : float
        Randomness of the refinement (cuGraph's and the paper's θ): a vertex
        joins a sub-community with probability ∝ exp(ΔH / (θ w̄)), ΔH its
        gain in edge weight and w̄ the graph's mean edge weight, so θ does not
        depend on the weights' scale; 0.01 (the default, igraph's β) is
        greedy but for near-ties, 0 fully greedy.  The GPU refines greedily
        (deterministic rounds) whatever θ is.
    seed : int
        Seed of the CPU's visiting orders and refinement draws
        (``random_state`` is cuGraph's name for it); the result is the same
        for a seed.  Any int, as :func:`louvain`.  The GPU result does not
        depend on the seed and is the same on every run.
    threshold : float
        The run ends after a level that gains less than this while the
        refinement splits nothing, and takes another iteration from the
        original vertices only while the last one gained this much (10⁻² on
        graphs of more than 100,000 vertices).  The CPU's move phase is the
        paper's fast local moving, which runs until no vertex moves (a pass
        must gain 10⁻² while a level has more than 100,000 vertices, as in
        :func:`louvain`); the GPU's synchronous passes stop when one gains
        less than ``threshold``.
    backend : {"auto", "gpu", "cpu"}
    symmetrize : bool
        Accept a directed graph object, taking its edges as undirected.
    max_iter, random_state : int, optional
        cuGraph's names for ``max_level`` and ``seed``.

    Returns
    -------
    parts : DataFrame
        ``vertex | community``, one row per vertex, sorted by vertex;
        communities numbered ``0..k-1`` in order of their first vertex.
        cuDF when the input lives on the GPU, else pandas; a Dask frame
        partitioned by vertex (known divisions) for a Dask input.
    q : float
        The modularity of ``parts``, equal to :func:`modularity` of it.

    Examples
    --------
    >>> import cugraph_match as cm
    >>> parts, q = cm.leiden(cm.datasets.load("karate"), backend="cpu")
    >>> round(q, 4), parts["community"].nunique()
    (0.4198, 4)
    """
    max_level = _alias(max_level, max_iter, 100, "max_level", "max_iter")
    seed = _alias(seed, random_state, 0, "seed", "random_state")
    check_flag(symmetrize, "symmetrize")
    if not is_distributed_input(graph):
        require_undirected(graph, symmetrize, "leiden")
    resolution, threshold = check_resolution(resolution), check_threshold(threshold)
    check_positive_int(max_level, "max_iter" if max_iter is not None else "max_level")
    given_theta, theta = theta, real_value(theta)
    if theta is None or not math.isfinite(theta) or theta < 0:
        raise ValueError(f"theta must be a non-negative finite number, got {given_theta!r}")
    seed = check_seed(seed, "random_state" if random_state is not None else "seed")
    if is_distributed_input(graph):
        from ..dask.louvain import louvain_dask

        return louvain_dask(graph, source, destination, weight, resolution, threshold,
                            max_level, backend, seed, True,
                            functools.partial(leiden_of_edge_frame, theta=float(theta)),
                            COARSE_THRESHOLD, COARSE_ABOVE_VERTICES, MAX_PASSES,
                            leiden=True)
    prepared = as_graph(graph, source, destination, weight, backend)
    given = prepared.weighted_graph()
    if given.n == 0 or (given.w.shape[0] == 0 and not bool((given.loop > 0).any())):
        raise ValueError("leiden needs at least one edge: the graph has no edge weight")
    g = sum_safe(given, prepared.backend.xp, resolution)
    community = leiden_communities(g, resolution, threshold, max_level, prepared.backend, seed,
                                   float(theta),
                                   rows=rows_of_graph(prepared) if g is given else None)
    q = level_modularity(g, community, resolution, prepared.backend, fixed=False)
    return vertex_frame(prepared.labels, prepared.frame_lib, "community", community), q


def _alias(value, alias, default, name: str, alias_name: str):
    """``value``, or cuGraph's ``alias`` for it when given; both differing is an
    error.  Values compare with their types (``True == 1`` and ``1.0 == 1``
    in Python: a value that its own check would refuse went unchecked)."""
    if alias is None:
        return value

    def same(a, b) -> bool:
        return type(a) is type(b) and a == b

    if not same(value, default) and not same(value, alias):
        raise ValueError(f"{name}={value!r} and {alias_name}={alias!r} name the same "
                         f"parameter; give one of them")
    return alias


def leiden_of_edge_frame(frame, resolution: float, threshold: float, max_level: int, seed: int,
                         theta: float = DEFAULT_THETA, backend: str = "cpu",
                         counts: dict | None = None) -> pd.Series:
    """Leiden of a pandas ``src | dst | weight`` edge list on ``backend``: the
    community of each vertex, indexed by vertex id (the Dask path's last
    levels, on one worker; on its GPU when the passes ran on the workers'
    GPUs); ``counts["levels"]``: the levels it ran (:func:`leiden_levels`)."""
    prepared = as_graph(frame, "src", "dst", "weight", backend)
    g = sum_safe(prepared.weighted_graph(), prepared.backend.xp, resolution)
    community = leiden_communities(g, resolution, threshold, max_level, prepared.backend, seed,
                                   theta, counts=counts)
    return pd.Series(to_backend(community, np), index=to_backend(prepared.labels, np))


def leiden_communities(g, resolution: float, threshold: float, max_level: int, backend,
                       seed: int = 0, theta: float = DEFAULT_THETA, rows=None,
                       counts: dict | None = None):
    """Community of every vertex (codes ``0..k-1`` by first vertex) of a
    WeightedGraph (``counts``: see :func:`leiden_levels`)."""
    community = None
    for community, _, final in leiden_levels(g, resolution, threshold, max_level, backend, seed,
                                             theta, rows, every_level=False, counts=counts):
        if final:
            break
    return community


def leiden_levels(g, resolution: float, threshold: float, max_level: int, backend,
                  seed: int = 0, theta: float = DEFAULT_THETA, rows=None,
                  connected_levels: bool = False, every_level: bool = True,
                  counts: dict | None = None):
    """Yield ``(community, q, final)`` after each level's move phase that moved a
    vertex (the first level's always; none with ``every_level=False``), then
    once with ``final=True``: the result, its communities split into
    connected components.  ``counts["levels"]``, when given, is kept at the
    number of levels (move phases, at most ``max_level``) run so far.

    ``community`` holds codes ``0..k-1`` by first vertex of g's vertices and
    ``q`` its modularity (the last ``q`` is that of the unsplit partition;
    splitting only raises it).  A level's partition may hold a disconnected
    community, which later levels separate; ``connected_levels=True`` yields
    every level split into connected components too (the NetworkX backend's
    partitions).
    """
    xp = backend.xp
    if backend.name == "gpu":
        from .louvain_gpu import fixed_point

        g, _ = fixed_point(g, xp)  # exact sums: the same partition on every run
        rows = None
    first = _Level(g.n, g.loop, rows if rows is not None else level_rows(g, xp))
    mean_weight = float(g.w.sum()) / g.w.shape[0] if g.w.shape[0] else 1.0
    enough = COARSE_THRESHOLD if g.n > COARSE_ABOVE_VERTICES else threshold
    fine = threshold if backend.name == "gpu" else 0.0
    member = xp.arange(g.n, dtype=np.int64)  # original vertex -> current level's vertex
    start = xp.arange(g.n, dtype=np.int64)   # the level's initial partition
    level = first
    q = _singletons_modularity(g, first, resolution, backend)
    iteration_q = q  # Q when the current iteration started
    parts = start  # the level's partition: g's vertex v is in parts[member[v]]
    clock = Stopwatch()
    for depth in range(max_level):
        if counts is not None:
            counts["levels"] = depth + 1
        # the CPU's fast local moving runs until no vertex moves; the GPU's
        # synchronous passes stop on Louvain's threshold (they may cycle)
        limit = COARSE_THRESHOLD if level.n > COARSE_ABOVE_VERTICES else fine
        moved, new_q = _move_phase(level.rows, level.loop, start.copy(), resolution, limit,
                                   backend, [seed, depth], leiden_moves=True)
        parts, k = first_appearance_codes(moved, xp)
        gained, q = new_q - q, new_q
        log_step("leiden level", depth, level.n, level.edges, clock.lap(), communities=k,
                 Q=float(q))
        if every_level and (depth == 0 or bool((moved != start).any())):
            if connected_levels:
                yield _split_disconnected(first.rows, parts[member], backend)[0], q, False
            else:
                yield first_appearance_codes(parts[member], xp)[0], q, False
        converged = k == level.n  # every vertex alone: nothing left to aggregate
        if not converged:
            refined, joined = _refine(level, parts, resolution, theta, mean_weight, backend,
                                      [seed, depth, 1])
            refined, k_refined = first_appearance_codes(refined, xp)
            log_step("leiden refinement level", depth, level.n, level.edges, clock.lap(),
                     refined_communities=k_refined, joined=joined)
            # the level gained nothing and the refinement split nothing
            converged = gained < threshold and k_refined == k
        if converged:
            # another iteration (igraph's n_iterations) while the last one gained
            # enough: the original vertices move again, from the partition found
            if level is first or q - iteration_q < enough:
                break
            parts = start = parts[member]
            iteration_q, level, member = q, first, xp.arange(g.n, dtype=np.int64)
            continue
        if k_refined == level.n:
            # the refinement merged nothing: aggregate by the communities
            # themselves (as igraph does), else the graph would not shrink
            refined, k_refined, start = parts, k, xp.arange(k, dtype=np.int64)
        else:
            start = xp.empty(k_refined, dtype=np.int64)
            start[refined] = parts  # a refined community lies inside one community
        level = _aggregate(level, refined, k_refined, backend)
        member, parts = refined[member], start
    final, extra = _split_disconnected(first.rows, parts[member], backend)
    if extra:
        log_step("leiden connectivity split", None, g.n, first.edges, clock.lap(),
                 new_communities=extra)
    yield final, q, True


@dataclass
class _Level:
    """A level's graph as Louvain's kernels read it: rows (offsets, indices,
    weights; no self-loops) and every vertex's self-loop weight."""

    n: int
    loop: Any
    rows: tuple

    @property
    def edges(self) -> int:
        return int(self.rows[1].shape[0]) // 2


def _singletons_modularity(g, first: _Level, resolution: float, backend) -> float:
    """Q of the partition into singletons: Σ loop / m − γ Σ k² / (2m)²."""
    if backend.name == "gpu":
        return level_modularity(g, backend.xp.arange(g.n, dtype=np.int64), resolution, backend)
    from .louvain_cpu import weighted_degrees

    k = weighted_degrees(*first.rows[::2], first.loop)
    two_m = float(k.sum())
    return float(first.loop.sum()) / (two_m / 2) - resolution * float(((k / two_m) ** 2).sum())


def _refine(level: _Level, parts, resolution, theta, mean_weight, backend, order_seed):
    """The refined partition of ``parts`` (labels in ``0..n-1``) and how many joined."""
    offsets, indices, weights = level.rows
    if backend.name == "gpu":
        from .leiden_gpu import refine_gpu

        return refine_gpu(offsets, indices, weights, level.loop, parts, resolution, backend.xp)
    from .leiden_cpu import refine_partition
    from .louvain_cpu import weighted_degrees

    k = weighted_degrees(offsets, weights, level.loop)
    rng = np.random.default_rng([numpy_seed(int(s)) for s in order_seed])
    order = rng.permutation(level.n)
    uniform = rng.random(level.n) if theta > 0 else np.zeros(0)
    refined, joined = refine_partition(offsets, indices, weights, k, float(k.sum()), parts,
                                       resolution, theta * mean_weight, order, uniform)
    return refined, int(joined)


def _aggregate(level: _Level, refined, k: int, backend) -> _Level:
    """The level contracted by ``refined`` (codes ``0..k-1``)."""
    if backend.name == "gpu":
        from .louvain_gpu import contract_gpu

        # codes 0..k-1 are all used, so CONTRACT keeps them as the coarse ids
        coarse, _ = contract_gpu(*level.rows, level.loop, refined, backend.xp)
        return _Level(coarse.n, coarse.loop, level_rows(coarse, backend.xp))
    from .leiden_cpu import aggregate_rows

    offsets, indices, weights, loop = aggregate_rows(*level.rows, level.loop, refined, k)
    return _Level(k, loop, (offsets, indices, weights))


def _split_disconnected(rows, community, backend):
    """``community`` with each community's connected components apart (codes
    ``0..k-1`` by first vertex), and how many communities were split."""
    xp = backend.xp
    codes, k = first_appearance_codes(community, xp)
    offsets, indices, _ = rows
    if backend.name == "gpu":
        from .leiden_gpu import components_gpu

        labels = components_gpu(offsets, indices, codes, xp)
    else:
        from .leiden_cpu import split_disconnected

        labels, _ = split_disconnected(offsets, indices, codes)
    split, pieces = first_appearance_codes(labels, xp)
    return split, pieces - k
