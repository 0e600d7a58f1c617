"""Hypothesis strategies for small graphs with ties, duplicates and self-loops."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st


@st.composite
def edge_frames(draw, max_vertices: int = 24, max_edges: int = 60, string_ids: bool | None = None):
    """A pandas edge list: few distinct weights (ties), multi-edges, self-loops, gaps in ids."""
    n = draw(st.integers(1, max_vertices))
    # ids with gaps and negatives, so renumbering is exercised
    ids = draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n, unique=True))
    m = draw(st.integers(1, max_edges))
    pick = st.integers(0, n - 1)
    src = [ids[draw(pick)] for _ in range(m)]
    dst = [ids[draw(pick)] for _ in range(m)]
    tied = draw(st.booleans())
    if tied:
        weight = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=m, max_size=m))
    else:
        weight = draw(st.lists(st.floats(0.125, 100.0, allow_nan=False, width=32),
                               min_size=m, max_size=m))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    if string_ids is None:
        string_ids = draw(st.booleans())
    if string_ids:
        src = [f"v{x}" for x in src]
        dst = [f"v{x}" for x in dst]
    return pd.DataFrame({"src": src, "dst": dst, "weight": np.asarray(weight, dtype=dtype)})


@st.composite
def multigraphs_with_isolated(draw, max_vertices: int = 24, max_edges: int = 60):
    """(networkx.MultiGraph, edge frame, isolated ids): parallel edges kept as
    such, self-loops, and vertices with no edge at all, which an edge list
    cannot carry."""
    import networkx as nx

    edges = draw(edge_frames(max_vertices, max_edges, string_ids=False))
    used = set(edges["src"]) | set(edges["dst"])
    isolated = draw(st.lists(st.integers(-2000, 2000).filter(lambda x: x not in used),
                             max_size=6, unique=True))
    graph = nx.MultiGraph()
    graph.add_nodes_from(isolated)
    for u, v, w in zip(edges["src"], edges["dst"], edges["weight"]):
        graph.add_edge(int(u), int(v), weight=float(w))
    return graph, edges, isolated
