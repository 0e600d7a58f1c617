"""The GPU Leiden kernels in Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1; tiny graphs)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm

pytestmark = pytest.mark.cudasim


def fixed_rows(edges):
    """Rows, self-loops and fixed-point (here: integer) weights, as the GPU reads them."""
    prepared = cm.Graph(edges, backend="cpu")
    g = prepared.weighted_graph()
    rows = prepared.neighbour_csr()
    return g, rows.offsets, rows.indices, rows.weights.astype(np.int64), g.loop.astype(np.int64)


def two_triangles_and_a_path():
    """Two triangles joined by a bridge, and a path of four: communities to refine."""
    return pd.DataFrame({"src": [0, 0, 1, 2, 3, 3, 4, 6, 7, 8],
                         "dst": [1, 2, 2, 3, 4, 5, 5, 7, 8, 9],
                         "weight": [2.0, 1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 3.0, 1.0]})


def as_nx(offsets, indices):
    graph = nx.Graph()
    n = offsets.shape[0] - 1
    graph.add_nodes_from(range(n))
    row = np.repeat(np.arange(n), np.diff(offsets))
    graph.add_edges_from(zip(row.tolist(), indices.tolist()))
    return graph


@pytest.mark.parametrize("case", ["triangles", "karate"])
def test_refinement_rounds_give_connected_communities_inside_the_partition(case):
    from cugraph_match.community.leiden_gpu import refine_gpu

    edges = two_triangles_and_a_path() if case == "triangles" else cm.datasets.load("karate")
    if case == "karate":
        edges = edges.assign(weight=np.random.default_rng(1).integers(1, 4, len(edges))
                             .astype(np.float64))
    g, offsets, indices, weights, loop = fixed_rows(edges)
    rng = np.random.default_rng(5)
    # one community over everything, and random (mostly disconnected) ones
    for parts in (np.zeros(g.n, dtype=np.int64), rng.integers(0, 3, g.n).astype(np.int64)):
        refined, joined = refine_gpu(offsets, indices, weights, loop, parts, 1.0, np)
        assert joined == g.n - len(np.unique(refined))
        graph = as_nx(offsets, indices)
        for label in np.unique(refined):
            members = np.flatnonzero(refined == label)
            assert label in members  # a label is one of its members
            assert len(set(parts[members])) == 1
            assert nx.is_connected(graph.subgraph(members.tolist()))
        again, _ = refine_gpu(offsets, indices, weights, loop, parts, 1.0, np)
        np.testing.assert_array_equal(refined, again)


def test_refinement_by_hand():
    """Everything in one community: the first triangle merges (1 and 2 join 0),
    the bridge keeps it from being well connected, the path's ends join its middle."""
    from cugraph_match.community.leiden_gpu import refine_gpu

    g, offsets, indices, weights, loop = fixed_rows(two_triangles_and_a_path())
    parts = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int64)
    refined, _ = refine_gpu(offsets, indices, weights, loop, parts, 1.0, np)
    assert refined[:3].tolist() == [0, 0, 0]
    assert 0 not in refined[3:6].tolist()
    assert len(set(refined[6:].tolist())) < 4  # the path merged somewhere


@pytest.mark.parametrize("seed", range(4))
def test_components_kernels_equal_the_cpu_split(seed):
    from cugraph_match.community.leiden_cpu import split_disconnected
    from cugraph_match.community.leiden_gpu import components_gpu

    rng = np.random.default_rng(seed)
    n, m = 40, 50
    edges = pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m)})
    g, offsets, indices, _, _ = fixed_rows(edges.assign(weight=1.0))
    community = rng.integers(0, 4, g.n).astype(np.int64)
    expected, _ = split_disconnected(offsets, indices, community)
    got = components_gpu(offsets, indices, community, np)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name,max_level", [("karate", 5), ("triangles", 100)])
def test_gpu_leiden_connected_valid_and_the_same_on_every_run(name, max_level):
    """Five levels on karate (the simulator is slow; aggregation, refinement on
    an aggregate level and the split all run), the whole run on the small graph."""
    edges = cm.datasets.load("karate") if name == "karate" else two_triangles_and_a_path()
    parts, q = cm.leiden(edges, backend="gpu", max_level=max_level)
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-12)
    assert parts["vertex"].tolist() == sorted(set(edges["src"]) | set(edges["dst"]))
    first_seen = parts.drop_duplicates("community")["community"].tolist()
    assert first_seen == list(range(len(first_seen)))
    graph = nx.from_pandas_edgelist(edges, "src", "dst")
    for _, members in parts.groupby("community")["vertex"]:
        assert nx.is_connected(graph.subgraph(members.tolist()))
    _, cpu_q = cm.leiden(edges, backend="cpu", max_level=max_level)
    assert q >= 0.95 * cpu_q
    again = cm.leiden(edges, backend="gpu", seed=123, max_level=max_level)  # seed unused
    pd.testing.assert_frame_equal(again[0], parts)
    assert again[1] == q


def test_gpu_leiden_when_no_edge_lies_inside_a_community():
    """A forest of paths whose first partition puts the two ends of every edge
    apart: the refinement's rows inside communities are empty, and CuPy 13.6's
    bincount of an empty array raised (the strict stand-in refuses it too)."""
    from cupy_standin import installed

    edges = pd.DataFrame({"src": [-124, -128, 0, -125, 127, -126],
                          "dst": [2, -124, -3, -3, -125, -47]})
    parts, q = cm.leiden(edges, weight=None, backend="cpu")
    with installed():
        gpu_parts, gpu_q = cm.leiden(edges, weight=None, backend="gpu")
    assert gpu_q == pytest.approx(q, abs=1e-12)
    assert gpu_q == pytest.approx(cm.modularity(edges, gpu_parts, weight=None), abs=1e-12)
