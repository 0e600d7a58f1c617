"""NetworkX's ``bipartite.minimum_weight_full_matching`` on the ``cugraph_match``
backend, through the exact assignment solver (``cm.assignment``).

NetworkX builds the dense ``|U| × |V|`` biadjacency matrix (infinity where
there is no edge) and hands it to SciPy's ``linear_sum_assignment``; here the
edges between the two node sets go to the sparse solver as a two-sided edge
list, with NetworkX's semantics around it:

* the node sets are NetworkX's ``bipartite.sets(G, top_nodes)``: ``top_nodes``
  as given (every member counts, a non-node included) and the other nodes;
  without it, a disconnected graph raises ``AmbiguousSolution``, a graph
  that is not two-colourable ``NetworkXError``, and otherwise the colour
  class of the first node is the top set;
* only edges between the two sets count (as NetworkX's biadjacency matrix
  keeps them); a missing weight is 1, ``weight=None`` makes every weight 1;
* the matching must saturate the smaller set (a *full* matching), else
  ``ValueError`` as SciPy's "cost matrix is infeasible";
* the result is NetworkX's dict, both directions of every pair.

Ties between equally light full matchings may be broken differently from
SciPy's.  Directed graphs and multigraphs are declined (``can_run``): their
biadjacency matrix drops arcs by direction or keeps one parallel edge
arbitrarily, which is NetworkX's to define.
"""

from __future__ import annotations

import numpy as np

from .graph import NxGraph, from_networkx

NON_FINITE = ("minimum_weight_full_matching with a NaN or infinite weight: SciPy reads an "
              "infinite entry as a missing edge and refuses NaN; left to NetworkX")


def solver():
    """The exact assignment solver (``cugraph_match.bipartite.assignment``), or
    None in a build without it (then the function is not registered)."""
    try:
        from ..bipartite.assignment import assignment
    except ImportError:
        return None
    return assignment


def node_sets(graph: NxGraph, top_nodes=None) -> tuple[list, list, np.ndarray, np.ndarray]:
    """NetworkX's ``bipartite.sets``: the top set ``U`` and the other set ``V``
    as node lists, and every node's place in them (``-1`` outside).

    ``U`` may hold members of ``top_nodes`` that are not nodes (NetworkX
    counts them: they are rows without an edge).
    """
    n = len(graph.nodes)
    in_u = np.full(n, -1, dtype=np.int64)
    in_v = np.full(n, -1, dtype=np.int64)
    if top_nodes is not None:
        top = list(dict.fromkeys(top_nodes))  # a set's members, once each
        positions = graph.positions(top)
        is_top = np.zeros(n, dtype=bool)
        is_top[positions[positions >= 0]] = True
        U = top
        V = [graph.nodes[i] for i in np.flatnonzero(~is_top)]
        in_u[positions[positions >= 0]] = np.flatnonzero(positions >= 0)
        in_v[~is_top] = np.arange(len(V))
        return U, V, in_u, in_v
    colour = _two_colouring(graph)  # a lone isolated node is in neither set, as in NetworkX
    top_positions = np.flatnonzero(colour == 1)
    other = np.flatnonzero(colour == 0)
    in_u[top_positions] = np.arange(len(top_positions))
    in_v[other] = np.arange(len(other))
    return ([graph.nodes[i] for i in top_positions], [graph.nodes[i] for i in other],
            in_u, in_v)


def _two_colouring(graph: NxGraph) -> np.ndarray:
    """NetworkX's ``color`` of a connected graph: 1 for the first node's class,
    0 for the other (``-1`` for a lone isolated node); raises as
    ``bipartite.sets`` does."""
    import networkx as nx
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    n = len(graph.nodes)
    if n == 0:  # pragma: no cover - declined by can_run (NetworkX: NetworkXPointlessConcept)
        return np.zeros(0, dtype=np.int64)
    adjacency = sp.coo_array((np.ones(graph.src.shape[0]), (graph.src, graph.dst)),
                             shape=(n, n)).tocsr()
    count, _ = connected_components(adjacency, directed=False)
    if count > 1:
        raise nx.AmbiguousSolution("Disconnected graph: Ambiguous solution for bipartite sets.")
    if n == 1 and graph.src.shape[0] == 0:
        return np.full(1, -1, dtype=np.int64)
    order, parent = breadth_first_order(adjacency, 0, directed=False,
                                        return_predecessors=True)
    depth = np.zeros(n, dtype=np.int64)
    for v in order[1:]:  # breadth-first: a parent's depth is known before its children's
        depth[v] = depth[parent[v]] + 1
    colour = 1 - (depth & 1)
    if (colour[graph.src] == colour[graph.dst]).any():  # an odd cycle, a self-loop included
        raise nx.NetworkXError("Graph is not bipartite.")
    return colour


def minimum_weight_full_matching(G, top_nodes=None, weight="weight", *,
                                 device: str = "auto") -> dict:
    """NetworkX's ``bipartite.minimum_weight_full_matching`` by ``cm.assignment``."""
    import pandas as pd

    graph = G if isinstance(G, NxGraph) else from_networkx(G, weight=weight)
    assignment = solver()
    if assignment is None:
        raise NotImplementedError("minimum_weight_full_matching needs cm.assignment, which "
                                  "this build of cugraph_match lacks")
    U, V, in_u, in_v = node_sets(graph, top_nodes)
    import networkx as nx

    if not U:
        raise nx.NetworkXError("row_order is empty list")
    weights = graph.pair_weights(weight)
    if not np.isfinite(weights).all():
        raise NotImplementedError(NON_FINITE)
    rows = np.where(in_u[graph.src] >= 0, in_u[graph.src], in_u[graph.dst])
    columns = np.where(in_u[graph.src] >= 0, in_v[graph.dst], in_v[graph.src])
    between = (rows >= 0) & (columns >= 0)
    rows, columns, weights = rows[between], columns[between], weights[between]
    full = min(len(U), len(V))
    if not rows.shape[0]:
        if full == 0 and graph.number_of_edges() == 0:
            return {}
        raise ValueError("no full matching exists: no edge joins the two node sets "
                         "(SciPy: cost matrix is infeasible)")
    smaller, larger = (rows, columns) if len(U) <= len(V) else (columns, rows)
    if np.unique(smaller).shape[0] < full or np.unique(larger).shape[0] < full:
        raise ValueError(f"no full matching exists: {full} node(s) of the smaller set must "
                         f"all be matched, and some have no edge (SciPy: cost matrix is "
                         f"infeasible)")
    pairs = assignment(pd.DataFrame({"u": rows, "v": columns, "w": weights}), "u", "v", "w",
                       maximize=False, perfect=True, backend=device)
    if hasattr(pairs, "to_pandas"):
        pairs = pairs.to_pandas()
    pairs = pairs[pairs["u"].notna() & pairs["v"].notna()]
    if len(pairs) != full:
        raise ValueError(f"no full matching exists: at most {len(pairs)} of the {full} nodes "
                         f"of the smaller set can be matched (SciPy: cost matrix is "
                         f"infeasible)")
    left = [U[i] for i in pairs["u"].astype(np.int64).tolist()]
    right = [V[j] for j in pairs["v"].astype(np.int64).tolist()]
    matching = dict(zip(left, right))
    matching.update(zip(right, left))
    return matching
