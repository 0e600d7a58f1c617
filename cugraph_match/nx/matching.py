"""NetworkX's matching functions on the ``cugraph_match`` backend.

``maximal_matching`` returns exactly NetworkX's matching: NetworkX scans
``G.edges()`` once and keeps every edge whose ends are both still free, which
is the greedy matching in that edge order.  Giving each edge the weight
``m - (its place in G.edges())`` makes that order the heaviest-first order,
and for distinct weights the greedy matching is unique and is what
:func:`cugraph_match.suitor_matching`'s Suitor kernels compute: the GPU path.
On the CPU one sequential pass over the pairs in that order computes it
directly (no sort; ``matching_cpu.py``); tests check both against NetworkX
and against a direct ``cm.suitor_matching`` call.

The three checks follow NetworkX's loop over the matching's edges exactly —
the first edge that fails decides, and it fails on the first of: not a
2-tuple (NetworkXError), a node not in G (NetworkXError), a self-loop, not an
edge of G, a node already matched (False) — but decide it with array
operations over all edges at once.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from .graph import NxGraph, from_networkx


# NetworkX's is_maximal_matching unpacks G.edges as pairs; a multigraph's are
# (u, v, key) triples, so it raises ValueError once it reaches that loop.
MULTIGRAPH_MAXIMALITY = (
    "is_maximal_matching on a multigraph: NetworkX's maximality loop raises ValueError on "
    "its (u, v, key) edges; left to NetworkX so that the behaviour stays NetworkX's")


def _converted(G) -> NxGraph:
    """The backend graph of ``G`` (a direct call may pass a NetworkX graph)."""
    return G if isinstance(G, NxGraph) else from_networkx(G)


def _refuse_directed_or_multigraph(graph: NxGraph) -> None:
    import networkx as nx

    if graph.directed:
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    if graph.multigraph:
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def greedy_pairs(graph: NxGraph, device: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Node positions ``(lo, hi)`` of the pairs NetworkX's ``maximal_matching`` picks.

    On the GPU the edges, weighted by their place in ``G.edges()`` (first =
    heaviest), go through :func:`cugraph_match.suitor_matching`'s kernels; on
    the CPU one sequential pass in that order
    (:func:`~cugraph_match.nx.matching_cpu.greedy_matching_in_order`) is the
    same greedy matching without the sort.
    """
    from ..structure.backend import resolve_backend, to_backend

    n = len(graph.nodes)
    if n == 0 or not (graph.src != graph.dst).any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    backend = resolve_backend(device)
    if backend.name == "gpu":
        from ..matching.suitor import suitor_mates

        prepared = graph.cached(("edge_order", backend.name),
                                lambda: _edge_order_graph(graph, backend))
        mate, _ = suitor_mates(prepared, weighted=True)
        mate = to_backend(mate, np).astype(np.int64)
    else:
        from .matching_cpu import greedy_matching_in_order

        mate = greedy_matching_in_order(graph.src, graph.dst, n)
    lo = np.flatnonzero(mate > np.arange(n))
    return lo, mate[lo]


def _edge_order_graph(graph: NxGraph, backend):
    """A ``cm.Graph`` whose edge weights are ``m - place in G.edges()`` (int64: exact)."""
    import pandas as pd

    from ..structure.backend import to_backend
    from ..structure.edges import undirected_edges
    from ..structure.graph import Graph

    xp = backend.xp
    m = graph.src.shape[0]
    order_weight = np.arange(m, 0, -1, dtype=np.int64)
    edges = undirected_edges(to_backend(graph.src, xp), to_backend(graph.dst, xp),
                             to_backend(order_weight, xp), len(graph.nodes), xp)
    labels = pd.Series(np.arange(len(graph.nodes), dtype=np.int64), name="vertex")
    return Graph._from_parts(backend, pd, labels, edges, weighted=True)


def maximal_matching(G, *, device: str = "auto") -> set:
    """NetworkX's ``maximal_matching``: a maximal matching, as a set of edges.

    Parameters
    ----------
    G : NxGraph or networkx.Graph
        Undirected, not a multigraph (NetworkX raises NetworkXNotImplemented
        otherwise, and so does this).
    device : {"auto", "cpu", "gpu"}
        GPU: Suitor kernels; CPU: one greedy pass (the backend passes
        ``nx.config.backends.cugraph_match.device``).

    Returns
    -------
    set of tuple
        Exactly ``networkx.maximal_matching(G)``: the greedy matching in
        ``G.edges()`` order, each edge ``(u, v)`` as ``G.edges()`` yields it.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import matching
    >>> G = nx.Graph([(1, 2), (1, 3), (2, 3), (2, 4), (3, 5), (4, 5)])
    >>> sorted(matching.maximal_matching(G, device="cpu")) == sorted(nx.maximal_matching(G))
    True
    """
    graph = _converted(G)
    _refuse_directed_or_multigraph(graph)
    lo, hi = greedy_pairs(graph, device)
    nodes = graph.nodes_array
    return set(zip(nodes[lo], nodes[hi]))


def min_maximal_matching(G, *, device: str = "auto") -> set:
    """NetworkX's ``approximation.min_maximal_matching``: what it returns, which is
    ``maximal_matching(G)`` (a maximal matching is at most twice the smallest).

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import matching
    >>> len(matching.min_maximal_matching(nx.star_graph(5), device="cpu"))
    1
    """
    return maximal_matching(G, device=device)


def _check(graph: NxGraph, matching) -> tuple[bool, np.ndarray | None]:
    """NetworkX's loop over ``matching``: (is a matching, matched-node mask).

    Raises NetworkXError where NetworkX does, for the same (first) edge.
    """
    import networkx as nx
    from networkx.algorithms.matching import matching_dict_to_set

    if isinstance(matching, dict):
        matching = matching_dict_to_set(matching)  # NetworkX's own conversion and error
    edges = list(matching)
    count = len(edges)
    n = len(graph.nodes)
    if count == 0:
        return True, np.zeros(n, dtype=bool)
    try:
        lengths = np.fromiter(map(len, edges), dtype=np.int64, count=count)
    except TypeError:
        # an item without a length: NetworkX raises TypeError or returns False
        # depending on which it meets first in the set's order; let it decide
        raise NotImplementedError("matching holds items without a length: left to NetworkX")
    pair = lengths == 2
    pair_at = np.flatnonzero(pair)
    ends = list(chain.from_iterable(edges[i] for i in pair_at.tolist()))
    positions = graph.positions(ends)
    u = np.full(count, -1, dtype=np.int64)
    v = np.full(count, -1, dtype=np.int64)
    u[pair_at], v[pair_at] = positions[0::2], positions[1::2]
    missing = pair & ((u < 0) | (v < 0))
    usable = pair & ~missing
    loop = usable & (u == v)
    proper = usable & ~loop
    not_edge = np.zeros(count, dtype=bool)
    not_edge[proper] = ~graph.has_pairs(u[proper], v[proper])
    # a node is "already matched" at edge i when an earlier edge has it
    first_edge = np.full(n, count, dtype=np.int64)
    ends_at = np.stack([u, v], axis=1).ravel()
    seen = ends_at >= 0
    edge_of_end = np.repeat(np.arange(count, dtype=np.int64), 2)
    np.minimum.at(first_edge, ends_at[seen], edge_of_end[seen])
    repeated = np.zeros(count, dtype=bool)
    repeated[proper] = (first_edge[u[proper]] < np.flatnonzero(proper)) | \
        (first_edge[v[proper]] < np.flatnonzero(proper))
    failing = ~pair | missing | loop | not_edge | repeated
    if failing.any():
        first = int(np.flatnonzero(failing)[0])
        if not pair[first]:
            raise nx.NetworkXError(f"matching has non-2-tuple edge {edges[first]}")
        if missing[first]:
            raise nx.NetworkXError(f"matching contains edge {edges[first]} with node not in G")
        return False, None
    matched = np.zeros(n, dtype=bool)
    matched[u] = True
    matched[v] = True
    return True, matched


def is_matching(G, matching) -> bool:
    """NetworkX's ``is_matching``: whether ``matching`` (a dict or a set of
    2-tuples) is a matching of ``G`` (directed: arcs as given).

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import matching
    >>> G = nx.path_graph(4)
    >>> matching.is_matching(G, {(1, 0), (2, 3)}), matching.is_matching(G, {(0, 1), (1, 2)})
    (True, False)
    """
    return _check(_converted(G), matching)[0]


def is_maximal_matching(G, matching) -> bool:
    """NetworkX's ``is_maximal_matching``: a matching that leaves no edge (other
    than a self-loop) with both ends free.  Multigraphs raise NotImplementedError
    (see ``MULTIGRAPH_MAXIMALITY``).

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import matching
    >>> G = nx.path_graph(4)
    >>> matching.is_maximal_matching(G, {(0, 1), (2, 3)}), matching.is_maximal_matching(G, {(0, 1)})
    (True, False)
    """
    graph = _converted(G)
    if graph.multigraph:
        raise NotImplementedError(MULTIGRAPH_MAXIMALITY)
    valid, matched = _check(graph, matching)
    if not valid:
        return False
    free_edge = ~matched[graph.src] & ~matched[graph.dst] & (graph.src != graph.dst)
    return not bool(free_edge.any())


def is_perfect_matching(G, matching) -> bool:
    """NetworkX's ``is_perfect_matching``: a matching that covers every node.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import matching
    >>> matching.is_perfect_matching(nx.path_graph(4), {0: 1, 1: 0, 2: 3, 3: 2})
    True
    """
    graph = _converted(G)
    valid, matched = _check(graph, matching)
    return valid and bool(matched.all())
