"""A tour of cugraph_match on bundled and generated data: matching, b-matching,
coarsening, communities and stable marriage.

Run: python examples/quickstart.py
"""

import networkx as nx

import cugraph_match as cm

edges = cm.datasets.load("lesmis")  # pandas: src | dst | weight

suitor = cm.suitor_matching(edges)  # backend="auto": the GPU when one is usable
dominant = cm.locally_dominant_matching(edges)
print(suitor.head())
print("same matching:", suitor.equals(dominant))
print("weight:", cm.matching_weight(suitor), "valid:", cm.is_matching(edges, suitor, maximal=True))

# NetworkX in, pandas out; compare with the exact maximum-weight matching
graph = nx.from_pandas_edgelist(edges, "src", "dst", "weight")
exact = sum(graph[u][v]["weight"] for u, v in nx.max_weight_matching(graph))
print(f"greedy / exact weight: {cm.matching_weight(cm.suitor_matching(graph)) / exact:.3f}")

# b-matching: every vertex in at most 2 matched edges (one row per edge)
print(cm.b_suitor_matching(edges, b=2).head())

# a prepared graph: read, checked and de-duplicated once, reused by every call below
graph_once = cm.Graph(edges)
print(graph_once, "| same matching:", cm.suitor_matching(graph_once).equals(suitor))

# coarsening: heavy-edge handshake matching, contracted level by level
levels = cm.coarsen_hierarchy(edges, min_vertices=10)
print("vertices per level:", [len(mapping) for _, mapping in levels])

# communities, and the modularity of any partition
parts, q = cm.louvain(edges)
print(f"louvain: {parts['community'].nunique()} communities, Q = {q:.4f}")
print("Q recomputed:", round(cm.modularity(edges, parts), 4))

# stable marriage on a generated instance (Lerring's "easy" kind)
proposer_prefs, acceptor_prefs = cm.datasets.stable_marriage_instance(1000, kind="easy", seed=0)
pairs = cm.stable_marriage(proposer_prefs, acceptor_prefs)
print("married:", int(pairs["acceptor"].notna().sum()), "blocking pairs:",
      len(cm.blocking_pairs(proposer_prefs, acceptor_prefs, pairs)))
