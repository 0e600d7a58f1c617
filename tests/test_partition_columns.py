"""modularity reads cuGraph's ``vertex | partition`` frames as well as ``vertex | community``."""

from __future__ import annotations

import networkx as nx
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from strategies import edge_frames


@settings(max_examples=examples(40), deadline=None)
@given(edges=edge_frames(string_ids=False), data=st.data())
def test_partition_column_means_the_same_as_community(edges, data):
    vertices = sorted(set(edges["src"]) | set(edges["dst"]))
    labels = data.draw(st.lists(st.integers(0, 3), min_size=len(vertices),
                                max_size=len(vertices)))
    ours = pd.DataFrame({"vertex": vertices, "community": labels})
    theirs = pd.DataFrame({"vertex": vertices, "partition": labels})
    q = cm.modularity(edges, theirs)
    assert q == cm.modularity(edges, ours)
    # NetworkX's modularity of the same communities (duplicates keep the largest weight)
    graph = nx.Graph()
    graph.add_nodes_from(vertices)
    weights = edges["weight"] if "weight" in edges else [1.0] * len(edges)
    for u, v, w in zip(edges["src"], edges["dst"], weights):
        if not graph.has_edge(u, v) or graph[u][v]["weight"] < w:
            graph.add_edge(u, v, weight=float(w))
    if graph.size(weight="weight") == 0:
        return
    communities = [{v for v, c in zip(vertices, labels) if c == k} for k in set(labels)]
    assert q == pytest.approx(nx.community.modularity(graph, communities), abs=1e-9)


def test_cugraph_louvain_frame_shape_is_taken_from_our_louvain():
    edges = cm.datasets.load("karate")
    parts, q = cm.louvain(edges, backend="cpu")
    as_cugraph = parts.rename(columns={"community": "partition"})
    assert cm.modularity(edges, as_cugraph) == pytest.approx(q)
    g = cm.Graph(edges, backend="cpu")
    assert cm.modularity(g, as_cugraph) == pytest.approx(q)


@pytest.mark.parametrize("partition,error,message", [
    (pd.DataFrame({"vertex": [0, 1, 2, 3], "community": [0, 0, 1, 1], "partition": [0, 0, 1, 1]}),
     ValueError, "partition has both a 'community' and a 'partition' column"),
    (pd.DataFrame({"vertex": [0, 1, 2, 3], "partition": [0, None, 1, 1]}), ValueError,
     "partition: 1 vertex/vertices have a null partition; first is 1"),
    (pd.DataFrame({"vertex": [0, 1, 2], "partition": [0, 0, 1]}), ValueError,
     "partition: 1 vertex/vertices of the graph have no community; first is 3"),
    (pd.DataFrame({"vertex": [0, 1, 2, 3], "label": [0, 0, 1, 1]}), ValueError,
     "partition frame lacks column(s) ['community'] (or cuGraph's 'partition')"),
])
def test_bad_partition_frames(partition, error, message):
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})
    with pytest.raises(error) as info:
        cm.modularity(edges, partition)
    assert message in str(info.value)
