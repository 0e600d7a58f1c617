"""The GPU Louvain kernels in Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1; small graphs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA

pytestmark = pytest.mark.cudasim


def reference_decision(v, offsets, indices, weights, community, k, a, csize, two_m, resolution):
    """The move rule in plain Python: best neighbouring community by gain, ties to
    the lowest id, the singleton rule, and a move only if it beats staying."""
    to = {}
    for e in range(offsets[v], offsets[v + 1]):
        c = int(community[indices[e]])
        to[c] = to.get(c, 0.0) + float(weights[e])
    own = int(community[v])
    stay = to.get(own, 0.0) - resolution * k[v] * (a[own] - k[v]) / two_m
    best, best_gain = None, None
    for c in sorted(to):
        if c == own or (csize[own] == 1 and csize[c] == 1 and c > own):
            continue
        gain = to[c] - resolution * k[v] * a[c] / two_m
        if best is None or gain > best_gain:
            best, best_gain = c, gain
    return best if best is not None and best_gain > stay else own


def hub_graph(leaves=400):
    """A hub above the 319-degree bucket (global hash table), plus small cliques."""
    rng = np.random.default_rng(0)
    src = [0] * leaves + list(range(1, leaves, 2))
    dst = list(range(1, leaves + 1)) + list(range(2, leaves + 1, 2))
    return pd.DataFrame({"src": src, "dst": dst,
                         "weight": rng.integers(1, 5, len(src)).astype(np.float64)})


@pytest.mark.parametrize("graph", ["lesmis", "jazz", "hub"])
def test_each_bucket_kernel_decides_like_the_reference(graph):
    """One launch per bucket from a random partition, against plain Python.
    The kernels' int64 fixed-point sums are exact, so ties compare exactly."""
    from cugraph_match.community import louvain_gpu as gpu

    if graph == "lesmis":
        edges = cm.datasets.load("lesmis")
    elif graph == "jazz":
        edges, _ = read_graph(SHARED_DATA / "graphs" / "jazz.mtx")
    else:
        edges = hub_graph()
    edges = edges.assign(weight=np.random.default_rng(1).integers(1, 4, len(edges))
                         .astype(np.float64))
    prepared = cm.Graph(edges, backend="cpu")
    g = prepared.weighted_graph()
    rows = prepared.neighbour_csr()
    # the kernels take int64 fixed-point weights; these weights are integers already
    offsets, indices, weights = rows.offsets, rows.indices, rows.weights.astype(np.int64)
    loop = g.loop.astype(np.int64)
    rng = np.random.default_rng(2)
    # ids below n/3 drawn at random: communities of all sizes, singletons included
    community = rng.integers(0, max(g.n // 3, 1), g.n).astype(np.int64)
    k = np.zeros(g.n, dtype=np.int64)
    for v in range(g.n):
        k[v] = weights[offsets[v]:offsets[v + 1]].sum() + 2 * loop[v]
    two_m = float(k.sum())
    a = np.bincount(community, weights=k, minlength=g.n).astype(np.int64)
    csize = np.bincount(community, minlength=g.n)
    checked = 0
    for members, group, size in gpu.degree_buckets(offsets, np):
        if members.shape[0] == 0:
            continue
        new = community.copy()
        if size:
            gpu.move_shared_kernel[-(-members.shape[0] // (gpu.BLOCK // group)), gpu.BLOCK](
                members, members.shape[0], group, size, offsets, indices, weights, community, k,
                a, csize, two_m, 1.0, new, np.zeros(g.n))
        else:
            sizes = gpu.primes_above(1.5 * np.diff(offsets)[members], np)
            start = np.zeros(members.shape[0] + 1, dtype=np.int64)
            start[1:] = np.cumsum(sizes)
            gpu.move_global_kernel[2, gpu.BLOCK](
                members, members.shape[0], start, np.empty(start[-1], np.int64),
                np.empty(start[-1], np.int64), offsets, indices, weights, community, k, a,
                csize, two_m, 1.0, new, np.zeros(g.n))
        for v in members:
            assert new[v] == reference_decision(v, offsets, indices, weights, community, k, a,
                                                csize, two_m, 1.0), (graph, group, v)
            checked += 1
    assert checked == int((np.diff(offsets) > 0).sum())


def test_commit_admits_movers_while_they_still_gain():
    from cugraph_match.community.louvain_gpu import commit_moves

    # four vertices of degree 2 all choose community 9 with improvements 3, 2, 1, 0.5;
    # two_m = 8, γ = 1: mover i still gains iff improvement > 2 * (2 * i) / 8 = i / 2
    members = np.array([0, 1, 2, 3, 4])
    community = np.array([0, 1, 2, 3, 4])
    new = np.array([9, 9, 9, 9, 4])
    improvement = np.array([1.0, 3.0, 0.5, 2.0, 0.0])
    k = np.full(5, 2.0)
    commit_moves(members, community, new, improvement, k, 8.0, 1.0, np)
    # ranked 1 (3.0 > 0), 3 (2.0 > 0.5), 0 (1.0 ≤ 1.0: stays), 2 (0.5 ≤ 1.5: stays)
    assert community.tolist() == [0, 9, 2, 9, 4]


@pytest.mark.parametrize("name", ["karate", "lesmis", "dolphins"])
def test_gpu_louvain_valid_and_close_to_cpu(name):
    if name == "dolphins":
        edges, _ = read_graph(SHARED_DATA / "cugraph" / "dolphins.mtx")
    else:
        edges = cm.datasets.load(name)
    parts, q = cm.louvain(edges, backend="gpu")
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-12)
    assert parts["vertex"].tolist() == sorted(set(edges["src"]) | set(edges["dst"]))
    first_seen = parts.drop_duplicates("community")["community"].tolist()
    assert first_seen == list(range(len(first_seen)))
    _, cpu_q = cm.louvain(edges, backend="cpu")
    # Vertices of a bucket move together, so the GPU may settle elsewhere than
    # the sequential CPU; measured GPU/CPU: karate 1.000, lesmis 0.999,
    # dolphins 0.966, polbooks 1.000, jazz 1.000, celegans 0.981, the hub graph
    # 0.983.  The band asserted is 0.95.
    assert q >= 0.95 * cpu_q


def test_gpu_louvain_hub_graph_uses_the_global_bucket():
    edges = hub_graph()
    parts, q = cm.louvain(edges, backend="gpu")
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-12)
    assert q >= 0.95 * cm.louvain(edges, backend="cpu")[1]


def test_gpu_louvain_is_the_same_on_every_run():
    """Fixed-point sums: nothing depends on the order atomics land in (the
    simulator's threads interleave differently from run to run as well)."""
    edges = cm.datasets.load("lesmis")
    edges = edges.assign(weight=edges["weight"] * 0.1)  # inexact in binary: real rounding
    first = cm.louvain(edges, backend="gpu")
    for _ in range(2):
        again = cm.louvain(edges, backend="gpu")
        pd.testing.assert_frame_equal(again[0], first[0])
        assert again[1] == first[1]


def test_fixed_point_scaling():
    from cugraph_match.community.louvain_gpu import fixed_point, fixed_point_modularity
    from cugraph_match.structure.edges import WeightedGraph

    g = WeightedGraph(4, np.array([0, 1, 0]), np.array([1, 2, 3]), np.array([1e300, 3e299, 1.0]),
                      np.array([0.0, 2e299, 0.0, 0.0]))
    fixed, scale = fixed_point(g, np)
    total = 2 * (g.w.sum() + g.loop.sum())
    assert 2**59 <= total * scale < 2**61 and fixed.w.dtype == np.int64
    assert fixed.w[2] == 0  # below 2**-62 of the total: rounds to 0, documented
    community = np.array([0, 0, 1, 1])
    expected = cm.modularity(pd.DataFrame({"src": [0, 1, 0, 1], "dst": [1, 2, 3, 1],
                                           "weight": [1e300, 3e299, 1.0, 2e299]}),
                             pd.DataFrame({"vertex": range(4), "community": community}))
    assert fixed_point_modularity(fixed, community, 1.0, np) == pytest.approx(expected, abs=1e-12)


def test_primes_and_buckets():
    from cugraph_match.community import louvain_gpu as gpu

    assert gpu.primes_above(np.array([1.5 * 4, 1.5 * 8, 1.5 * 84, 1.5 * 319, 13]), np).tolist() \
        == [7, 13, 127, 479, 17]
    offsets = np.array([0, 0, 4, 9, 41, 126, 526], dtype=np.int64)  # degrees 0 4 5 32 85 400
    buckets = gpu.degree_buckets(offsets, np)
    assert [b[0].tolist() for b in buckets] == [[1], [2], [], [3], [], [4], [5]]
    assert [(b[1], b[2]) for b in buckets] == [(h[1], h[2]) for h in gpu.BUCKETS]


@pytest.mark.parametrize("graph,groups", [("lesmis", 20), ("lesmis", 3), ("hub", 50),
                                          ("loops", 4)])
def test_contraction_kernels_equal_the_sort_based_contraction(graph, groups):
    """The paper's hashing CONTRACT (all three community buckets: a warp, a block,
    a block with a global table) against ``structure.edges.contract_graph``."""
    from cugraph_match.community.louvain_gpu import contract_gpu
    from cugraph_match.structure.edges import contract_graph

    if graph == "lesmis":
        edges = cm.datasets.load("lesmis")
    elif graph == "hub":
        edges = hub_graph()
    else:  # self-loops and an isolated-by-contraction vertex
        edges = pd.DataFrame({"src": [0, 0, 1, 2, 3, 3, 5], "dst": [0, 1, 2, 2, 4, 3, 6],
                              "weight": [2.0, 1.0, 3.0, 4.0, 1.0, 5.0, 1.0]})
    prepared = cm.Graph(edges, backend="cpu")
    g = prepared.weighted_graph()
    rows = prepared.neighbour_csr()
    offsets, indices, weights = rows.offsets, rows.indices, rows.weights
    community = np.random.default_rng(groups).integers(0, groups, g.n).astype(np.int64) * 3
    # fixed-point weights (these are integers already)
    got, new_id = contract_gpu(offsets, indices, weights.astype(np.int64),
                               g.loop.astype(np.int64), community, np)
    used = np.unique(community)
    assert new_id.tolist() == np.searchsorted(used, community).tolist()
    expected = contract_graph(g, new_id, used.shape[0], np)
    assert got.n == expected.n
    np.testing.assert_allclose(got.loop, expected.loop)
    # both in the canonical (hi, lo) order: the GPU's slot order does not leak out
    assert got.lo.tolist() == expected.lo.tolist()
    assert got.hi.tolist() == expected.hi.tolist()
    np.testing.assert_allclose(got.w, expected.w)
