"""Coarsening that chains: the coarse level as a cm.Graph, and results on coarse
vertices carried back to the fine ones (project_partition)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from strategies import edge_frames, multigraphs_with_isolated


def edge_dict(frame):
    return {(int(s), int(d)): float(w) for s, d, w in zip(frame["src"], frame["dst"],
                                                          frame["weight"])}


def graph_edge_dict(g):
    """{(lo, hi): weight} of a cm.Graph over ids 0..k-1, self-loops as (v, v)."""
    e = g.edges
    out = {(int(a), int(b)): float(w) for a, b, w in zip(e.lo, e.hi, e.w)}
    if e.loop is not None:
        out.update({(v, v): float(w) for v, w in enumerate(e.loop) if w > 0})
    return out


@settings(max_examples=examples(40), deadline=None)
@given(case=multigraphs_with_isolated(), seed=st.integers(0, 100))
def test_coarse_graph_is_the_coarse_frame_with_every_vertex(case, seed):
    graph, _, _ = case
    matching = cm.maximal_matching(graph, seed=seed, backend="cpu")
    frame, mapping = cm.coarsen(graph, matching, backend="cpu")
    g, mapping_too = cm.coarsen(graph, matching, backend="cpu", return_graph=True)
    pd.testing.assert_frame_equal(mapping, mapping_too)
    assert isinstance(g, cm.Graph) and g.backend.name == "cpu"
    # every coarse vertex, the isolated ones too (the frame cannot hold them)
    assert g.num_vertices == int(mapping["coarse_vertex"].max()) + 1
    assert g.labels.tolist() == list(range(g.num_vertices))
    assert graph_edge_dict(g) == pytest.approx(edge_dict(frame))


@settings(max_examples=examples(40), deadline=None)
@given(edges=edge_frames(), data=st.data())
def test_modularity_survives_the_round_trip(edges, data):
    # a partition of the coarse graph and its projection onto the fine graph
    # have the same Q: contraction keeps every community's inside weight
    # (a pair's edge as a self-loop) and degree sum, and the total weight
    matching = cm.maximal_matching(edges, backend="cpu")
    g, mapping = cm.coarsen(edges, matching, backend="cpu", return_graph=True)
    k = g.num_vertices
    labels = data.draw(st.lists(st.integers(0, 3), min_size=k, max_size=k))
    parts = pd.DataFrame({"vertex": range(k), "community": labels})
    fine = cm.project_partition(parts, mapping)
    assert fine["vertex"].tolist() == mapping["vertex"].tolist()
    coarse_of = dict(zip(mapping["vertex"], mapping["coarse_vertex"]))
    assert fine["community"].tolist() == [labels[coarse_of[v]] for v in fine["vertex"]]
    assert cm.modularity(g, parts) == pytest.approx(cm.modularity(edges, fine), abs=1e-12)


def test_chain_matching_coarsen_louvain_back_to_the_fine_graph():
    edges = cm.datasets.load("karate")
    g = cm.Graph(edges, backend="cpu", vertices=[100])  # one vertex with no edge
    coarse, mapping = cm.coarsen(g, cm.suitor_matching(g), return_graph=True)
    parts, q = cm.louvain(coarse)
    assert len(parts) == coarse.num_vertices  # the isolated coarse vertex has its row
    fine = cm.project_partition(parts, mapping)
    assert fine["vertex"].tolist() == g.labels.tolist()
    assert cm.modularity(g, fine) == pytest.approx(q)
    again, _ = cm.coarsen(coarse, cm.maximal_matching(coarse), return_graph=True)
    assert again.num_vertices < coarse.num_vertices


def test_project_through_a_hierarchy():
    edges = cm.datasets.load("netscience")
    levels = cm.coarsen_hierarchy(edges, min_vertices=300, backend="cpu")
    assert len(levels) >= 2
    mappings = [mapping for _, mapping in levels]
    k = int(mappings[-1]["coarse_vertex"].max()) + 1
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, size=k)
    parts = pd.DataFrame({"vertex": np.arange(k), "community": labels,
                          "score": rng.random(k)})
    fine = cm.project_partition(parts, mappings)
    # plain Python: follow every fine vertex down the levels
    down = [dict(zip(m["vertex"], m["coarse_vertex"])) for m in mappings]
    expected = []
    for v in mappings[0]["vertex"]:
        c = v
        for step in down:
            c = step[c]
        expected.append(c)
    assert fine["vertex"].tolist() == mappings[0]["vertex"].tolist()
    assert fine["community"].tolist() == labels[expected].tolist()
    assert fine["score"].tolist() == parts["score"].to_numpy()[expected].tolist()
    assert list(fine.columns) == ["vertex", "community", "score"]


def test_project_keeps_the_fine_ids_and_the_values_dtype():
    mapping = pd.DataFrame({"vertex": ["x", "y", "z"], "coarse_vertex": [1, 0, 1]})
    parts = pd.DataFrame({"vertex": [1, 0], "community": pd.array([7, 8], dtype="Int64")})
    fine = cm.project_partition(parts, mapping)
    assert fine["vertex"].tolist() == ["x", "y", "z"]
    assert fine["community"].tolist() == [7, 8, 7] and fine["community"].dtype == "Int64"
    pd.testing.assert_frame_equal(parts, pd.DataFrame({"vertex": [1, 0], "community":
                                                       pd.array([7, 8], dtype="Int64")}))


@pytest.mark.parametrize("parts,mappings,error,words", [
    (pd.DataFrame({"vertex": [0], "community": [0]}),
     pd.DataFrame({"vertex": [5, 6, 7], "coarse_vertex": [0, 1, 2]}),
     ValueError, "partition lacks 2 coarse vertex/vertices of mapping; first is 1"),
    (pd.DataFrame({"vertex": [0, 1, 9], "community": [0, 0, 1]}),
     pd.DataFrame({"vertex": [5, 6], "coarse_vertex": [0, 1]}),
     ValueError, "1 vertex id(s) are not coarse vertices of mapping; first is 9"),
    (pd.DataFrame({"vertex": [0, 0], "community": [0, 1]}),
     pd.DataFrame({"vertex": [5], "coarse_vertex": [0]}),
     ValueError, "partition: 1 vertex id(s) appear more than once; first is 0"),
    (pd.DataFrame({"vertex": [0]}), pd.DataFrame({"vertex": [5], "coarse_vertex": [0]}),
     ValueError, "no column besides 'vertex'"),
    (pd.DataFrame({"vertex": [0], "community": [0]}), [], ValueError, "mappings is empty"),
    (pd.DataFrame({"vertex": [0], "community": [0]}), pd.DataFrame({"vertex": [5]}),
     ValueError, "mapping frame lacks column(s) ['coarse_vertex']"),
    (pd.DataFrame({"vertex": [0], "community": [0]}),
     [pd.DataFrame({"vertex": [5], "coarse_vertex": [0]}), pd.DataFrame({"vertex": [1]})],
     ValueError, "mappings[1] frame lacks column(s) ['coarse_vertex']"),
    ([0, 1], pd.DataFrame({"vertex": [5], "coarse_vertex": [0]}), TypeError,
     "partition must be a vertex DataFrame"),
    # a fine vertex twice gave two rows for it
    (pd.DataFrame({"vertex": [0, 1], "community": [0, 1]}),
     pd.DataFrame({"vertex": [5, 5, 6], "coarse_vertex": [0, 1, 1]}),
     ValueError, "mapping: 1 vertex id(s) appear more than once; first is 5"),
    # the ids that do not fit are the second mapping's, not the partition's
    (pd.DataFrame({"vertex": [0], "community": [0]}),
     [pd.DataFrame({"vertex": [10, 11], "coarse_vertex": [0, 1]}),
      pd.DataFrame({"vertex": [0, 7], "coarse_vertex": [0, 0]})],
     ValueError, "mappings[1]'s 'vertex': 1 vertex id(s) are not coarse vertices of "
                 "mappings[0]; first is 7"),
])
def test_project_refuses_what_does_not_fit(parts, mappings, error, words):
    with pytest.raises(error) as info:
        cm.project_partition(parts, mappings)
    assert words in str(info.value)


@pytest.mark.parametrize("name", ["__cugraph_match_found__", "__cugraph_match_position__"])
def test_project_carries_columns_named_like_the_joins_own(name):
    """The join's helper columns overwrote a carried column of their name
    (or raised a KeyError)."""
    parts = pd.DataFrame({"vertex": [0, 1], name: [5, 6]})
    mapping = pd.DataFrame({"vertex": [10, 11, 12], "coarse_vertex": [0, 0, 1]})
    result = cm.project_partition(parts, mapping)
    assert result.to_dict("list") == {"vertex": [10, 11, 12], name: [5, 5, 6]}


def test_return_graph_must_be_a_bool():
    edges = pd.DataFrame({"src": [0], "dst": [1]})
    with pytest.raises(TypeError, match="return_graph must be True or False"):
        cm.coarsen(edges, pd.DataFrame({"vertex": [0, 1], "mate": [1, 0]}), return_graph="yes")
