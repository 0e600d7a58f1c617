"""NetworkX's Louvain, modularity and partition checks on the ``cugraph_match`` backend.

Louvain runs cugraph_match's own kernels (``community/louvain_cpu.py``,
``community/louvain_gpu.py``) under NetworkX's rules for levels, which
differ from :func:`cugraph_match.louvain`'s defaults:

- a level's move phase repeats passes until a pass moves no vertex
  (NetworkX), not until a pass gains less than a threshold, and without the
  coarse 10⁻² threshold cm.louvain uses on large levels;
- a level that moves no vertex ends the run without being yielded, except
  the first level, which is always yielded;
- after yielding a level, the run stops when that level's modularity gain is
  at most ``threshold`` (``<=``, as NetworkX);
- no refinement phase: every partition is the unfolding of a level, so
  ``louvain_communities(..., max_level=k)`` equals the k-th partition of
  ``louvain_partitions``, as in NetworkX.

The visiting order of each level is a permutation drawn from ``seed`` by
NumPy, not NetworkX's ``random.shuffle``, and ties between equally good
communities go to the lowest community id, so the partition for a given seed
is a different (equally valid) Louvain partition from NetworkX's.
Communities are listed in NetworkX's order: by the node (at the last level,
the vertex) whose singleton community each grew from.
"""

from __future__ import annotations

import itertools
import random
import warnings
from collections import deque
from collections.abc import Iterator
from itertools import chain

import numpy as np

from .graph import NxGraph, from_networkx


def _converted(G, weight) -> NxGraph:
    if isinstance(G, NxGraph):
        return G
    return from_networkx(G, weight=weight)


def _refuse_directed(graph: NxGraph, what: str) -> None:
    if graph.directed:
        raise NotImplementedError(
            f"{what} on a directed graph optimises directed modularity (Dugué & Perez), "
            f"which cugraph_match's Louvain kernels do not: left to NetworkX")


def _integer_seed(seed) -> int:
    """An int for NumPy's generator from NetworkX's ``seed``.

    Through the dispatcher ``seed`` is the ``random.Random``-like object
    NetworkX's ``py_random_state`` decorator makes of the caller's int, None
    (the global ``random`` state) or generator; one draw from it, as NetworkX's
    own Louvain draws its shuffles, keeps ``seed=None`` random and a given
    seed reproducible.  A direct call gets the same treatment, so an int seed
    gives the same partition both ways.
    """
    if seed is None:
        return random.randrange(2**32)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return random.Random(int(seed)).randrange(2**32)
    return int(seed.randrange(2**32))


# --------------------------------------------------------------------------
# partitions <-> arrays
# --------------------------------------------------------------------------


def partition_sets(graph: NxGraph, community: np.ndarray) -> list[set]:
    """Community codes ``0..k-1`` per node position → list of node sets, in code order."""
    community = np.asarray(community)
    if community.shape[0] == 0:
        return []  # no node, no community (np.split would give one empty part)
    k = int(community.max()) + 1
    order = np.argsort(community, kind="stable")
    bounds = np.cumsum(np.bincount(community, minlength=k))[:-1]
    nodes = graph.nodes_array[order]
    return [set(part) for part in np.split(nodes, bounds)]


def label_codes(labels, xp):
    """Relabel to ``0..k-1`` in order of the labels themselves; returns (codes, k).

    A community's label is the vertex whose own singleton community it grew
    from, as in NetworkX, whose next level numbers the communities the same
    way (the non-empty ones, by label); so the communities of every level come
    out in NetworkX's order.
    """
    distinct, inverse = xp.unique(labels, return_inverse=True)
    return inverse.ravel().astype(np.int64), int(distinct.shape[0])


def partition_codes(graph: NxGraph, communities: list) -> np.ndarray | None:
    """The community index of every node, or None when ``communities`` is not a
    partition of the nodes in NetworkX's sense (``is_partition``)."""
    sizes = list(map(len, communities))
    total = sum(sizes)
    n = len(graph.nodes)
    if total != n:
        return None
    members = list(chain.from_iterable(communities))
    position = graph.positions(members)
    if (position < 0).any():
        return None  # a member that is not a node, so fewer than n distinct nodes
    codes = np.full(n, -1, dtype=np.int64)
    codes[position] = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    if (codes < 0).any():
        return None  # n members, all nodes, yet one node missing: some node twice
    return codes


# --------------------------------------------------------------------------
# Louvain
# --------------------------------------------------------------------------


def louvain_levels(graph: NxGraph, weight, resolution: float, threshold: float, seed: int,
                   device: str = "auto") -> Iterator[np.ndarray]:
    """Yield every level's community (codes per node position) under NetworkX's rules.

    See the module notes for the rules; ``seed`` is an int.
    """
    from ..community.louvain import MAX_PASSES, level_rows, rows_of_graph
    from ..community.modularity import modularity_of
    from ..structure.backend import resolve_backend, to_backend
    from ..structure.edges import contract_graph, sum_safe

    n = len(graph.nodes)
    if graph.src.shape[0] == 0:
        yield np.arange(n, dtype=np.int64)  # no edge: every node alone, as NetworkX
        return
    backend = resolve_backend(device)
    xp = backend.xp
    prepared = graph.cached(("weighted", weight, backend.name),
                            lambda: _weighted_graph(graph, weight, backend))
    given = prepared.weighted_graph()
    # weights near 1e308 or 1e-308, or a resolution whose products with the
    # degrees overflow, rescaled by a power of two as cm.louvain and the
    # Leiden here do (the partition and Q unchanged): unscaled, the moves
    # compared inf or 0 and gave singletons or one community
    g = sum_safe(given, xp, resolution)
    rows = (rows_of_graph(prepared) if g is given else None) or level_rows(g, xp)
    community = xp.arange(n, dtype=np.int64)  # node -> its vertex at the current level
    level_graph = g
    mod = modularity_of(g, community, resolution, xp)
    for level in itertools.count():
        start = xp.arange(level_graph.n, dtype=np.int64)
        moved = start.copy()
        if backend.name == "gpu":
            from ..community.louvain_gpu import contract_gpu, move_phase_gpu

            moved, q = move_phase_gpu(*rows, level_graph.loop, moved, resolution, 0.0,
                                      MAX_PASSES, xp)
            improved = bool((moved != start).any())
        else:
            from ..community.louvain_cpu import move_phase

            order = np.random.default_rng([seed, level]).permutation(level_graph.n)
            q, passes = move_phase(*rows, level_graph.loop, moved, resolution, 0.0, MAX_PASSES,
                                   order)
            improved = passes > 1  # with threshold 0, passes stop only at a pass without moves
        if level and not improved:
            return
        if backend.name == "gpu":
            coarse, level_community = contract_gpu(*rows, level_graph.loop, moved, xp)
            k = coarse.n
        else:
            level_community, k = label_codes(moved, xp)
            coarse = None
        community = level_community[community]
        yield to_backend(community, np)
        if q - mod <= threshold:
            return
        mod = q
        level_graph = coarse if coarse is not None else \
            contract_graph(level_graph, level_community, k, xp)
        rows = level_rows(level_graph, xp)


def _weighted_graph(graph: NxGraph, weight, backend):
    """The ``cm.Graph`` of the pairs with their (summed) positive weights."""
    import pandas as pd

    from ..structure.backend import to_backend
    from ..structure.edges import undirected_edges
    from ..structure.graph import Graph

    xp = backend.xp
    w = graph.louvain_weights(weight)
    edges = undirected_edges(to_backend(graph.src, xp), to_backend(graph.dst, xp),
                             to_backend(w, xp), len(graph.nodes), xp)
    labels = pd.Series(np.arange(len(graph.nodes), dtype=np.int64), name="vertex")
    return Graph._from_parts(backend, pd, labels, edges, weighted=weight is not None)


def louvain_partitions(G, weight="weight", resolution=1, threshold=0.0000001, seed=None, *,
                       device: str = "auto") -> Iterator[list[set]]:
    """NetworkX's ``community.louvain_partitions``: the partition of every level.

    Parameters
    ----------
    G : NxGraph or networkx.Graph
        Undirected (a directed graph raises NotImplementedError, which sends
        the call back to NetworkX); multigraph edges are summed per pair.
    weight : str or None
        Edge attribute of the weights (missing: 1); None: every edge 1.
        Negative, infinite or NaN weights, or all zero, raise
        NotImplementedError (NetworkX then runs the call).
    resolution : float
        γ of the modularity.
    threshold : float
        The run stops after a level whose modularity gain is at most this.
    seed : int, random.Random or None
        Seeds the visiting order (the CPU's; the GPU's order is fixed).
    device : {"auto", "cpu", "gpu"}

    Yields
    ------
    list of set
        A partition of the nodes (communities in NetworkX's order, see the
        module notes).

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import community
    >>> levels = list(community.louvain_partitions(nx.karate_club_graph(), seed=1, device="cpu"))
    >>> len(levels) >= 1 and all(nx.community.is_partition(nx.karate_club_graph(), p) for p in levels)
    True
    """
    graph = _converted(G, weight)
    _refuse_directed(graph, "louvain_partitions")
    # refusals now, not at the first next(): NetworkX falls back only on a
    # NotImplementedError raised by the call itself
    graph.louvain_weights(weight)
    return _partitions(graph, weight, float(resolution), threshold, _integer_seed(seed), device)


def _partitions(graph: NxGraph, weight, resolution: float, threshold: float, seed: int,
                device: str) -> Iterator[list[set]]:
    for community in louvain_levels(graph, weight, resolution, threshold, seed, device):
        yield partition_sets(graph, community)


def louvain_communities(G, weight="weight", resolution=1, threshold=0.0000001, max_level=None,
                        seed=None, *, device: str = "auto") -> list[set]:
    """NetworkX's ``community.louvain_communities``: the last partition of
    :func:`louvain_partitions`, or its ``max_level``-th.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import community
    >>> G = nx.karate_club_graph()
    >>> parts = community.louvain_communities(G, seed=1, device="cpu")
    >>> nx.community.modularity(G, parts) > 0.4
    True
    """
    if max_level is not None and max_level <= 0:  # NetworkX's check and message
        raise ValueError("max_level argument must be a positive integer or None")
    partitions = louvain_partitions(G, weight, resolution, threshold, seed, device=device)
    if max_level is not None:
        partitions = itertools.islice(partitions, max_level)
    return deque(partitions, maxlen=1).pop()


# --------------------------------------------------------------------------
# quality
# --------------------------------------------------------------------------


def is_partition(G, communities) -> bool:
    """NetworkX's ``community.is_partition``: the communities are disjoint and cover
    the nodes (members that are not nodes make it False).

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import community
    >>> community.is_partition(nx.path_graph(3), [{0, 1}, {2}]), community.is_partition(nx.path_graph(3), [{0, 1}])
    (True, False)
    """
    if not isinstance(communities, list):
        communities = list(communities)
    return partition_codes(_converted(G, None), communities) is not None


def modularity(G, communities, weight="weight", resolution=1) -> float:
    """NetworkX's ``community.modularity`` of a partition (directed and multigraphs too).

    Q = Σ_c L_c / m − γ k_c^out k_c^in / (2m)² undirected (k^out = k^in = the
    degree, a self-loop counted twice), Σ_c L_c / m − γ k_c^out k_c^in / m²
    directed; L_c counts a community's inner edges once (parallel edges each).

    Raises
    ------
    NotAPartition
        When ``communities`` is not a partition of the nodes.
    ZeroDivisionError
        When the total weight is 0, as in NetworkX; nan (and NumPy's
        RuntimeWarning) instead when a weight is a NumPy number, as NetworkX
        divides NumPy zeros then.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import community
    >>> G = nx.barbell_graph(3, 0)
    >>> round(community.modularity(G, [{0, 1, 2}, {3, 4, 5}]), 12)
    0.357142857143
    """
    from networkx.algorithms.community.quality import NotAPartition

    graph = _converted(G, weight)
    if not isinstance(communities, list):
        communities = list(communities)
    codes = partition_codes(graph, communities)
    if codes is None:
        raise NotAPartition(G, communities)
    k = len(communities)
    n = len(graph.nodes)
    w = graph.pair_weights(weight)
    src, dst = graph.src, graph.dst
    out_degree = np.bincount(src, weights=w, minlength=n)
    in_degree = np.bincount(dst, weights=w, minlength=n)
    if not float(out_degree.sum()) and weight is not None and graph.numpy_zero_total:
        warnings.warn("divide by zero encountered in scalar divide", RuntimeWarning,
                      stacklevel=2)
        return float("nan")
    if graph.directed:
        m = float(out_degree.sum())
        norm = 1 / m**2
        out_c = np.bincount(codes, weights=out_degree, minlength=k)
        in_c = np.bincount(codes, weights=in_degree, minlength=k)
    else:
        degree = out_degree + in_degree  # a self-loop's pair adds to both: twice
        degree_sum = float(degree.sum())
        m = degree_sum / 2
        norm = 1 / degree_sum**2
        out_c = in_c = np.bincount(codes, weights=degree, minlength=k)
    inside = codes[src] == codes[dst]
    inner = np.bincount(codes[src[inside]], weights=w[inside], minlength=k)
    return float(np.sum(inner / m - resolution * out_c * in_c * norm))


def partition_quality(G, partition) -> tuple[float, float]:
    """NetworkX's ``community.partition_quality``: (coverage, performance).

    Counts are exact integers, so the result equals NetworkX's; performance is
    -1.0 for a multigraph, as in NetworkX.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import community
    >>> community.partition_quality(nx.barbell_graph(3, 0), [{0, 1, 2}, {3, 4, 5}]) == (6 / 7, 14 / 15)
    True
    """
    import networkx as nx

    graph = _converted(G, None)
    partition = list(partition)
    codes = partition_codes(graph, partition)
    if codes is None:  # NetworkX's require_partition decorator checks before dispatching
        raise nx.NetworkXError("`partition` is not a valid partition of the nodes of G")
    count = graph.multiplicity if graph.multiplicity is not None else \
        np.ones(graph.src.shape[0], dtype=np.int64)
    inside = codes[graph.src] == codes[graph.dst]
    intra = int(count[inside].sum())
    inter = int(count[~inside].sum())
    n = len(graph.nodes)
    total_pairs = n * (n - 1)
    if not graph.directed:
        total_pairs //= 2
    coverage = intra / (intra + inter)
    if graph.multigraph:
        return coverage, -1.0
    sizes = [len(block) for block in partition]
    possible_inter = (sum(sizes) ** 2 - sum(s * s for s in sizes)) // 2
    if graph.directed:
        possible_inter *= 2
    performance = (intra + possible_inter - inter) / total_pairs
    return coverage, performance
