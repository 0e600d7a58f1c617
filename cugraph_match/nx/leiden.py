"""NetworkX's ``leiden_communities`` and ``leiden_partitions`` on the ``cugraph_match`` backend.

NetworkX (≥ 3.5) declares both functions but has no implementation of its
own: they run only on a backend.  Here they run cugraph_match's Leiden
(``community/leiden.py``: Louvain's move phase, the refinement into
well-connected sub-communities, aggregation on the refined partition) under
NetworkX's documented semantics:

- ``leiden_partitions`` yields the partition of every level whose move
  phase moved a vertex (the first level's always), each community split
  into its connected components (no community of a yielded partition is
  disconnected); the run ends when a level gains nothing and the refinement
  splits nothing, after further iterations from the partition found while
  they gain (as :func:`cugraph_match.leiden`);
- ``leiden_communities(..., max_level=k)`` is the k-th partition of
  ``leiden_partitions`` (the last one when there are fewer);
- a graph without edges gives every node its own community.

``seed`` (an int, a ``random.Random`` or None) seeds the visiting orders and
the refinement's draws; communities are listed by their first node in
NetworkX's node order.  Directed graphs never reach the backend (NetworkX
raises ``NetworkXNotImplemented`` first).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

import numpy as np

from .community import _converted, _integer_seed, _weighted_graph, partition_sets
from .graph import NxGraph

# cm.leiden's defaults: NetworkX's signature has no threshold or level cap
THRESHOLD = 1e-7
MAX_LEVELS = 100


def leiden_levels(graph: NxGraph, weight, resolution: float, seed: int,
                  device: str = "auto") -> Iterator[np.ndarray]:
    """Yield every level's communities (codes per node position), each connected."""
    from ..community.leiden import leiden_levels as levels
    from ..community.louvain import rows_of_graph
    from ..structure.backend import resolve_backend, to_backend
    from ..structure.edges import sum_safe

    n = len(graph.nodes)
    if graph.src.shape[0] == 0:
        yield np.arange(n, dtype=np.int64)  # no edge: every node alone
        return
    backend = resolve_backend(device)
    prepared = graph.cached(("weighted", weight, backend.name),
                            lambda: _weighted_graph(graph, weight, backend))
    given = prepared.weighted_graph()
    g = sum_safe(given, backend.xp, resolution)
    rows = rows_of_graph(prepared) if g is given else None
    for community, _, final in levels(g, resolution, THRESHOLD, MAX_LEVELS, backend, seed,
                                      rows=rows, connected_levels=True):
        if final:
            return
        yield to_backend(community, np)


def leiden_partitions(G, weight="weight", resolution=1, seed=None, *,
                      device: str = "auto") -> Iterator[list[set]]:
    """NetworkX's ``community.leiden_partitions``: the partition of every level.

    Parameters
    ----------
    G : NxGraph or networkx.Graph
        Undirected; multigraph edges are summed per pair.
    weight : str or None
        Edge attribute of the weights (missing: 1); None: every edge 1.
        Negative, infinite or NaN weights, or all zero, raise
        NotImplementedError.
    resolution : float
        γ of the modularity.
    seed : int, random.Random or None
        Seeds the CPU's visiting orders and the refinement's draws.
    device : {"auto", "cpu", "gpu"}

    Yields
    ------
    list of set
        A partition of the nodes into connected communities.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import leiden
    >>> G = nx.karate_club_graph()
    >>> levels = list(leiden.leiden_partitions(G, seed=1, device="cpu"))
    >>> all(nx.is_connected(G.subgraph(c)) for p in levels for c in p)
    True
    """
    graph = _converted(G, weight)
    # refusals now, not at the first next(): NetworkX falls back only on a
    # NotImplementedError raised by the call itself
    graph.louvain_weights(weight)
    return _partitions(graph, weight, float(resolution), _integer_seed(seed), device)


def _partitions(graph: NxGraph, weight, resolution: float, seed: int,
                device: str) -> Iterator[list[set]]:
    for community in leiden_levels(graph, weight, resolution, seed, device):
        yield partition_sets(graph, community)


def leiden_communities(G, weight="weight", resolution=1, max_level=None, seed=None, *,
                       device: str = "auto") -> list[set]:
    """NetworkX's ``community.leiden_communities``: the last partition of
    :func:`leiden_partitions`, or its ``max_level``-th.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx import leiden
    >>> G = nx.karate_club_graph()
    >>> parts = leiden.leiden_communities(G, seed=1, device="cpu")
    >>> round(nx.community.modularity(G, parts), 4)
    0.4449
    """
    if max_level is not None and max_level <= 0:  # NetworkX's check and message
        raise ValueError("max_level argument must be a positive integer or None")
    partitions = leiden_partitions(G, weight, resolution, seed, device=device)
    if max_level is not None:
        partitions = itertools.islice(partitions, max_level)
    return deque(partitions, maxlen=1).pop()
