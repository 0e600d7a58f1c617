"""Match a bundled graph with both algorithms and both kinds of input frame.

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
