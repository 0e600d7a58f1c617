"""Independent references for the ROMA tests: plain Python and NumPy, no project code.

A centred 2-augmentation is checked by building the matching it produces and
weighing it, not by the gain formulas the kernels use.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd


def adjacency(src, dst, weight=None):
    """{v: {x: w}} with the largest weight of duplicate edges, self-loops dropped."""
    weight = [1.0] * len(src) if weight is None else weight
    adj: dict = {}
    for u, v, w in zip(src, dst, weight):
        if u == v:
            continue
        w = float(w)
        for a, b in ((u, v), (v, u)):
            row = adj.setdefault(a, {})
            row[b] = max(row.get(b, -np.inf), w)
    return adj


def mates_of(matching) -> dict:
    """A ``vertex | mate`` frame as {vertex: mate or None}."""
    return {v: (None if pd.isna(m) else m) for v, m in zip(matching["vertex"], matching["mate"])}


def matched_weight(adj, mate) -> float:
    return sum(adj[v][m] for v, m in mate.items() if m is not None) / 2.0


def best_centred_gain(adj, mate) -> float:
    """The largest gain of any 2-augmentation centred at any vertex.

    For each v (mate u or none), every choice of v's new mate a and u's new
    mate b (neighbours, or none) gives the matching M minus every matched
    edge at v, u, a, b plus (v, a) and (u, b); its weight minus w(M) is the
    gain.  These are exactly the alternating paths and cycles with at most
    two non-matching edges, all at v or u.
    """
    base = matched_weight(adj, mate)
    best = -np.inf
    for v in adj:
        u = mate.get(v)
        side_a = [None] + [a for a in adj[v] if a != u]
        side_b = [None] + ([b for b in adj[u] if b != v] if u is not None else [])
        for a, b in itertools.product(side_a, side_b):
            if a is not None and a == b:
                continue
            touched = {x for x in (v, u, a, b) if x is not None}
            new = {x: m for x, m in mate.items()
                   if m is not None and x not in touched and m not in touched}
            if a is not None:
                new[v], new[a] = a, v
            if b is not None:
                new[u], new[b] = b, u
            best = max(best, matched_weight(adj, new) - base)
    return best


def max_weight_nx(adj) -> float:
    """Exact maximum weight matching (NetworkX blossom)."""
    g = nx.Graph()
    for v, row in adj.items():
        for x, w in row.items():
            g.add_edge(v, x, weight=w)
    return sum(g[u][v]["weight"] for u, v in nx.max_weight_matching(g))


def max_weight_rustworkx(adj) -> float:
    """Exact maximum weight matching by rustworkx (integer weights only)."""
    import rustworkx as rx

    ids = {v: i for i, v in enumerate(adj)}
    g = rx.PyGraph()
    g.add_nodes_from(list(adj))
    g.add_edges_from([(ids[v], ids[x], int(w)) for v, row in adj.items() for x, w in row.items()
                      if ids[v] < ids[x]])
    nodes = list(adj)
    return float(sum(adj[nodes[a]][nodes[b]]
                     for a, b in rx.max_weight_matching(g, weight_fn=lambda w: w)))


def complete_weight(matrix, mate) -> float:
    """Weight of a mate array on a dense matrix (mate -1 = unmatched)."""
    v = np.flatnonzero(mate > np.arange(len(mate)))
    return float(np.asarray(matrix, dtype=np.float64)[v, mate[v]].sum())


def best_flip_gain(matrix, mate) -> float:
    """The largest gain of flipping two matching edges, over every pair and
    both re-pairings (a padding vertex for odd n weighs 0)."""
    w = np.asarray(matrix, dtype=np.float64)
    n = w.shape[0]
    mate = np.asarray(mate, dtype=np.int64).copy()
    if n % 2:
        padded = np.zeros((n + 1, n + 1))
        padded[:n, :n] = w
        w = padded
        free = np.flatnonzero(mate < 0)
        assert len(free) == 1, "odd n leaves exactly one vertex unmatched"
        mate = np.append(mate, free[0])
        mate[free[0]] = n
    edges = [(u, int(mate[u])) for u in range(len(mate)) if u < mate[u]]
    best = -np.inf
    for (a, b), (c, d) in itertools.combinations(edges, 2):
        now = w[a, b] + w[c, d]
        best = max(best, w[a, c] + w[b, d] - now, w[a, d] + w[b, c] - now)
    return best


def complete_optimum(matrix) -> float:
    """Exact maximum weight matching of the complete graph (NetworkX)."""
    w = np.asarray(matrix, dtype=np.float64)
    g = nx.Graph()
    n = w.shape[0]
    g.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if w[i, j] > 0:
                g.add_edge(i, j, weight=w[i, j])
    return sum(w[u, v] for u, v in nx.max_weight_matching(g))


def frame_mates(matching, n) -> np.ndarray:
    """A ``vertex | mate`` frame over 0..n-1 as a mate array (-1 unmatched)."""
    mate = np.full(n, -1, dtype=np.int64)
    for v, m in zip(matching["vertex"], matching["mate"]):
        if not pd.isna(m):
            mate[int(v)] = int(m)
    return mate
