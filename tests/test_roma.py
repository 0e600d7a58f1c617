"""ROMA on the CPU backend: validity, monotone weight, local optimality at
convergence, determinism, and the ratio to exact optima (NetworkX on small
graphs, rustworkx on the shared real graphs)."""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st
from numba import njit

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from cugraph_match.matching.roma_common import compile_gain_exceeds
from cugraph_match.matching.roma_cpu import exact_gain_exceeds
from oracle import SHARED_DATA
from roma_oracle import (adjacency, best_centred_gain, best_flip_gain, complete_optimum,
                         complete_weight, frame_mates, mates_of, matched_weight, max_weight_nx,
                         max_weight_rustworkx)
from strategies import edge_frames

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")
# rustworkx's blossom takes seconds beyond these; the benchmark covers the rest
EXACT_GRAPHS = ["karate", "lesmis", "jazz", "celegans_metabolic", "polblogs", "power"]


def _check_sparse(graph, edges, result, info, threshold):
    """Valid; never below the start; locally optimal when it says it converged."""
    assert cm.is_matching(graph, result)
    adj = adjacency(edges["src"], edges["dst"], edges["weight"])
    mate = mates_of(result)
    weight = matched_weight(adj, mate)
    assert weight == pytest.approx(cm.matching_weight(result), rel=1e-6)  # float32 column
    assert weight == pytest.approx(info.weight, rel=1e-9)
    assert weight >= info.start_weight - 1e-9 * max(1.0, weight)
    if info.converged:
        assert best_centred_gain(adj, mate) <= threshold + 1e-9
    return adj, weight


@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=edge_frames(max_vertices=10, max_edges=18), seed=st.integers(0, 3),
       start=st.sampled_from(["greedy", "empty"]))
def test_sparse_two_thirds_of_exact_and_local_optimum(edges, seed, start):
    before = edges.copy(deep=True)
    result, info = cm.roma_matching(edges, initial=start, seed=seed, threshold=0.0,
                                    phases=1000, backend="cpu", return_info=True)
    pd.testing.assert_frame_equal(edges, before)
    assert info.converged  # every applied change gains: the search ends
    g = cm.Graph(edges, backend="cpu")
    adj, weight = _check_sparse(g, edges, result, info, 0.0)
    assert weight >= 2.0 / 3.0 * max_weight_nx(adj) - 1e-9
    if start == "greedy":
        assert info.start_weight == pytest.approx(cm.matching_weight(cm.suitor_matching(g)),
                                                  rel=1e-6)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=edge_frames(max_vertices=16, max_edges=40), seed=st.integers(0, 2**31))
def test_sparse_default_settings_deterministic(edges, seed):
    g = cm.Graph(edges, backend="cpu")
    first, info = cm.roma_matching(g, seed=seed, return_info=True)
    adj, weight = _check_sparse(g, edges, first, info, 1e-5)
    assert cm.roma_matching(g, seed=seed).equals(first)
    assert info.phases <= 8 and len(info.phase_seconds) == info.phases


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=edge_frames(max_vertices=12, max_edges=24, string_ids=True))
def test_sparse_from_a_given_matching(edges):
    """Any start: another matching of the graph, a Graph, NetworkX and SciPy inputs agree."""
    g = cm.Graph(edges, backend="cpu")
    start = cm.maximal_matching(g, weighted=False, seed=3)
    result, info = cm.roma_matching(edges, initial=start, backend="cpu", return_info=True)
    assert info.start_weight == pytest.approx(cm.matching_weight(start), rel=1e-6)
    _check_sparse(g, edges, result, info, 1e-5)
    assert cm.roma_matching(g, initial=start).equals(result)
    # the default start is Suitor's, and passing Suitor's frame is the same
    suitor = cm.suitor_matching(g)
    assert cm.roma_matching(g, initial=suitor).equals(cm.roma_matching(g))


@needs_shared
@pytest.mark.parametrize("name", EXACT_GRAPHS)
def test_real_graphs_against_rustworkx(name):
    """≥ 2/3 of rustworkx's exact optimum (integer weights, seeded); the gap is printed."""
    path = SHARED_DATA / "graphs" / f"{name}.mtx"
    edges, _ = read_graph(path)
    edges["weight"] = np.random.default_rng(20261123).integers(1, 1 << 20, len(edges))
    suitor = cm.suitor_matching(edges, backend="cpu")
    result, info = cm.roma_matching(edges, backend="cpu", return_info=True)
    assert cm.is_matching(edges, result)
    adj = adjacency(edges["src"], edges["dst"], edges["weight"])
    exact = max_weight_rustworkx(adj)
    weight, greedy = cm.matching_weight(result), cm.matching_weight(suitor)
    assert weight == pytest.approx(matched_weight(adj, mates_of(result)))
    assert greedy <= weight <= exact
    assert weight >= 2.0 / 3.0 * exact
    print(f"{name}: Suitor gap {100 * (1 - greedy / exact):.3f}%, ROMA gap "
          f"{100 * (1 - weight / exact):.3f}% after {info.phases} phases")


def test_unweighted_networkx_and_scipy_inputs():
    g = nx.path_graph(6)
    result = cm.roma_matching(g, backend="cpu")
    assert cm.matching_weight(result) == 3.0
    assert result["weight"].dtype == cm.suitor_matching(g, backend="cpu")["weight"].dtype
    matrix = sp.coo_matrix(([2.0, 3.0, 2.0], ([0, 1, 2], [1, 2, 3])), shape=(5, 5))
    result = cm.roma_matching(matrix, backend="cpu")
    assert result["mate"].tolist()[:4] == [1, 0, 3, 2] and pd.isna(result["mate"][4])


def test_no_edges_and_zero_phases():
    edges = pd.DataFrame({"src": [0, 1], "dst": [0, 1], "weight": [1.0, 2.0]})  # loops only
    result, info = cm.roma_matching(edges, backend="cpu", return_info=True)
    assert result["mate"].isna().all() and info.converged
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [2.0, 3.0, 2.0]})
    start, info = cm.roma_matching(edges, phases=0, backend="cpu", return_info=True)
    assert start.equals(cm.suitor_matching(edges, backend="cpu")) and info.phases == 0


def test_negative_and_numpy_seeds():
    """Any int seeds the CPU order (a negative one modulo 2**64, as louvain), on
    both kinds of graph; the same seed gives the same matching."""
    rng = np.random.default_rng(5)
    edges = pd.DataFrame({"src": rng.integers(0, 30, 120), "dst": rng.integers(0, 30, 120),
                          "weight": rng.random(120)})
    W = rng.random((12, 12))
    W = W + W.T
    for graph in (edges, W):
        negative = cm.roma_matching(graph, seed=-1, backend="cpu")
        assert negative.equals(cm.roma_matching(graph, seed=2**64 - 1, backend="cpu"))
        assert cm.roma_matching(graph, seed=np.int64(-1), backend="cpu").equals(negative)
    greedy = cm.matching_weight(cm.suitor_matching(edges, backend="cpu"))
    assert cm.matching_weight(cm.roma_matching(edges, seed=-7, backend="cpu")) >= greedy


# -- complete graphs ------------------------------------------------------------


@st.composite
def weight_matrices(draw, max_n=11):
    n = draw(st.integers(1, max_n))
    values = st.sampled_from([0.0, 1.0, 2.0, 3.0]) if draw(st.booleans()) else \
        st.floats(0.0, 10.0, allow_nan=False, width=32)
    upper = np.array(draw(st.lists(values, min_size=n * n, max_size=n * n))).reshape(n, n)
    matrix = np.triu(upper, 1)
    matrix = matrix + matrix.T
    np.fill_diagonal(matrix, draw(st.sampled_from([0.0, np.nan, -1.0])))  # never read
    return matrix.astype(draw(st.sampled_from([np.float32, np.float64])))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrix=weight_matrices(), start=st.sampled_from(["pairs", "greedy"]),
       seed=st.integers(0, 5))
def test_complete_flips_local_optimum(matrix, start, seed):
    before = matrix.copy()
    result, info = cm.roma_matching(matrix, initial=start, seed=seed, threshold=0.0, phases=1000,
                                    backend="cpu", return_info=True)
    np.testing.assert_array_equal(matrix, before)
    n = matrix.shape[0]
    mate = frame_mates(result, n)
    assert (mate >= 0).sum() == n - n % 2  # perfect, but for odd n's padding partner
    matched = np.flatnonzero(mate >= 0)
    assert (mate[mate[matched]] == matched).all() and (mate[matched] != matched).all()
    weight = complete_weight(matrix, mate)
    assert weight == pytest.approx(cm.matching_weight(result), rel=1e-6)
    assert weight >= info.start_weight - 1e-9
    assert result["weight"].dtype == ("Float32" if matrix.dtype == np.float32 else "Float64")
    assert info.converged and best_flip_gain(matrix, mate) <= 1e-9
    # a flip-local optimum of non-negative weights holds half the optimum
    assert 2 * weight >= complete_optimum(matrix) - 1e-9
    again = cm.roma_matching(matrix, initial=start, seed=seed, threshold=0.0, phases=1000,
                             backend="cpu")
    assert again.equals(result)


@pytest.mark.parametrize("kind", ["uniform", "exponential", "geometric"])
def test_complete_against_exact(kind):
    """The thesis' three distributions at n = 64: ≥ 2/3 of NetworkX's optimum
    (observed on these; flips guarantee only 1/2, see the counterexample test)
    and within a few percent (the thesis: 0.96%, 7.4%, 0.0002% at n = 1024)."""
    rng = np.random.default_rng(5)
    n = 64
    if kind == "geometric":
        points = rng.random((n, 2))
        matrix = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    else:
        upper = rng.random((n, n)) if kind == "uniform" else rng.exponential(1 / 3.5, (n, n))
        matrix = np.triu(upper, 1)
        matrix = matrix + matrix.T
    result, info = cm.roma_matching(matrix, backend="cpu", return_info=True)
    exact = complete_optimum(matrix)
    weight = cm.matching_weight(result)
    assert info.start_weight < weight <= exact + 1e-9
    assert weight >= 2 / 3 * exact
    assert 1 - weight / exact < {"uniform": 0.05, "exponential": 0.2, "geometric": 0.02}[kind]
    if kind == "geometric":  # the same run from points, weights computed on the fly
        from_points = cm.roma_matching(points=points, backend="cpu")
        pd.testing.assert_frame_equal(from_points, result)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrix=weight_matrices(max_n=13))
def test_complete_greedy_start_is_suitor(matrix):
    """The dense greedy start equals Suitor on the same graph as an edge list
    (positive weights: a zero is an edge of the complete graph but not a
    valid edge-list weight)."""
    n = matrix.shape[0]
    matrix = matrix + np.float32(0.5)
    i, j = np.triu_indices(n, 1)
    if len(i) == 0:
        return
    edges = pd.DataFrame({"src": i, "dst": j, "weight": matrix[i, j]})
    start = cm.roma_matching(matrix, initial="greedy", phases=0, backend="cpu")
    expected = frame_mates(cm.suitor_matching(edges, backend="cpu"), n)
    np.testing.assert_array_equal(frame_mates(start, n), expected)
    # candidate lists shorter than a row: the refill path gives the same matching
    from cugraph_match.matching.roma_cpu import dense_greedy

    size = n + n % 2
    for buffer in (1, 2):
        mate = dense_greedy(matrix, np.zeros((0, 1)), n, size, buffer)[:n]
        np.testing.assert_array_equal(np.where(mate >= n, -1, mate), expected)


def test_complete_odd_n_and_start_frames():
    matrix = np.array([[0, 4, 1], [4, 0, 1], [1, 1, 0]], dtype=np.float64)
    result = cm.roma_matching(matrix, backend="cpu")
    assert result["mate"].tolist()[:2] == [1, 0] and pd.isna(result["mate"][2])
    # a start frame that is not perfect is completed by pairing in order
    start = pd.DataFrame({"vertex": [0, 3], "mate": [3, 0]})
    matrix = np.ones((4, 4))
    result, info = cm.roma_matching(matrix, initial=start, backend="cpu", return_info=True)
    assert result["mate"].tolist() == [3, 2, 1, 0] and info.start_weight == 2.0


# -- bad input ------------------------------------------------------------------


def _square(n=4, dtype=np.float64):
    matrix = np.arange(n * n, dtype=dtype).reshape(n, n)
    return matrix + matrix.T


@pytest.mark.parametrize("mutate,error,match", [
    (lambda m: m[:, :3], ValueError, r"square .* shape \(4, 3\)"),
    (lambda m: np.zeros((0, 0)), ValueError, "empty"),
    (lambda m: m.astype(bool), TypeError, "dtype bool"),
    (lambda m: m.astype(complex), TypeError, "dtype complex"),
    (lambda m: np.where(np.eye(4)[::-1] > 0, np.nan, m), ValueError,
     r"4 NaN or infinite off-diagonal value\(s\); first is W\[0, 3\] = nan"),
    (lambda m: np.where(np.eye(4)[::-1] > 0, -1.0, m), ValueError,
     r"4 negative .*first is W\[0, 3\] = -1.0"),
    (lambda m: m + np.triu(np.ones((4, 4)), 2), ValueError,
     r"3 asymmetric pair\(s\); first is W\[0, 2\] = 11.0 but W\[2, 0\] = 10.0"),
])
def test_bad_matrices(mutate, error, match):
    matrix = mutate(_square())
    before = matrix.copy()
    with pytest.raises(error, match=match):
        cm.roma_matching(matrix, backend="cpu")
    np.testing.assert_array_equal(matrix, before)


def test_bad_points_and_arguments():
    with pytest.raises(ValueError, match=r"points has 1 row\(s\) .* first is row 2"):
        cm.roma_matching(points=np.array([[0.0, 1], [1, 1], [np.inf, 0]]), backend="cpu")
    with pytest.raises(ValueError, match=r"\(n, d\)"):
        cm.roma_matching(points=np.zeros(4), backend="cpu")
    with pytest.raises(ValueError, match="not both"):
        cm.roma_matching(_square(), points=np.zeros((4, 2)), backend="cpu")
    with pytest.raises(ValueError, match="weight cannot be set"):
        cm.roma_matching(_square(), weight="w", backend="cpu")
    with pytest.raises(ValueError, match="no graph given"):
        cm.roma_matching(backend="cpu")
    edges = cm.datasets.load("karate")
    for kwargs, error, match in [
        ({"phases": -1}, ValueError, "phases must be >= 0"),
        ({"phases": 2.5}, TypeError, "phases must be an int"),
        ({"phases": True}, TypeError, "phases must be an int"),
        ({"threshold": -1e-3}, ValueError, r"threshold must be finite \(within float64\) and >= 0"),
        ({"threshold": 10**400}, ValueError, "threshold must be finite"),
        ({"threshold": float("nan")}, ValueError, "threshold"),
        ({"threshold": "0"}, TypeError, "threshold must be a real number"),
        ({"seed": 1.5}, TypeError, "seed must be an int"),
        ({"initial": "pairs"}, ValueError, "initial must be a vertex|mate frame or one of"),
        ({"initial": [0, 1]}, TypeError, "initial must be a vertex|mate DataFrame"),
        ({"threads_per_block": 48}, ValueError, "multiple of 32"),
        ({"return_info": 1}, TypeError, "return_info must be True or False"),
        ({"backend": "tpu"}, ValueError, "backend must be"),
    ]:
        with pytest.raises(error, match=match):
            cm.roma_matching(edges, **kwargs)
    with pytest.raises(ValueError, match="threads_per_block must be a power of two"):
        cm.roma_matching(_square(), threads_per_block=96, backend="cpu")


def test_bad_initial_matchings():
    edges = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "d"],
                          "weight": [1.0, 2.0, 1.0]})
    cases = [
        (pd.DataFrame({"vertex": ["a", "b"], "mate": ["b", "c"]}),
         r"not a matching: 2 vertex\(es\) .* first is 'a' \(mate 'b', whose mate is 'c'\)"),
        (pd.DataFrame({"vertex": ["a", "c"], "mate": ["c", "a"]}),
         r"1 matched pair\(s\) are not edges; first is \('a', 'c'\)"),
        (pd.DataFrame({"vertex": ["a", "z"], "mate": ["z", "a"]}),
         r"initial 'vertex': 1 id\(s\) are not vertices of the graph; first is 'z'"),
        (pd.DataFrame({"vertex": ["a", "a"], "mate": ["b", "b"]}),
         r"initial: 1 vertex id\(s\) appear more than once; first is 'a'"),
        (pd.DataFrame({"vertex": ["a"]}), r"initial frame lacks column\(s\) \['mate'\]"),
    ]
    for frame, match in cases:
        with pytest.raises(ValueError, match=match):
            cm.roma_matching(edges, initial=frame, backend="cpu")
    matrix = np.ones((4, 4))
    for frame, match in [
        (pd.DataFrame({"vertex": [0, 1], "mate": [1, 2]}), r"not a matching: .*first is 0"),
        (pd.DataFrame({"vertex": [0, 5], "mate": [5, 0]}),
         r"initial 'vertex': 1 value\(s\) are not vertices 0..3 .*first is 5"),
        (pd.DataFrame({"vertex": [0, 1], "mate": [0, pd.NA]}, dtype="Int64"),
         r"not a matching: 1 vertex\(es\) .*first is 0 \(mate 0"),
    ]:
        with pytest.raises(ValueError, match=match):
            cm.roma_matching(matrix, initial=frame, backend="cpu")


def test_complete_flip_local_optimum_can_be_below_two_thirds():
    """The 2/3 guarantee is for graphs' centred 2-augmentations; a complete
    graph's flip-local optimum guarantees only 1/2 (documented limit)."""
    matrix = np.array([[0, 1, 1, 1, 1, 1], [1, 0, 1, 0, 3, 0], [1, 1, 0, 1, 3, 3],
                       [1, 0, 1, 0, 0, 0], [1, 3, 3, 0, 0, 1], [1, 0, 3, 0, 1, 0]],
                      dtype=np.float64)
    assert complete_optimum(matrix) == pytest.approx(7.0)
    stuck = pd.DataFrame({"vertex": [0, 1, 2, 3, 4, 5], "mate": [1, 0, 4, 5, 2, 3]})
    for initial, seed in [("pairs", 3), (stuck, 0)]:  # seed 3's order reaches it from pairs
        result, info = cm.roma_matching(matrix, initial=initial, threshold=0.0, phases=100,
                                        seed=seed, backend="cpu", return_info=True)
        assert info.converged
        assert frame_mates(result, 6).tolist() == [1, 0, 4, 5, 2, 3]
        assert cm.matching_weight(result) == pytest.approx(4.0)  # 4 < 2/3 * 7, 4 >= 1/2 * 7
        assert best_flip_gain(matrix, frame_mates(result, 6)) <= 0


def test_integer_weights_beyond_float64_refused():
    big = [2**60 + 2**59 + 195, 2**60 + 129, 2**59 + 65]
    edges = pd.DataFrame({"src": [0, 0, 1], "dst": [1, 2, 3],
                          "weight": np.array(big, dtype=np.int64)})
    with pytest.raises(ValueError, match=r"weight column 'weight' has 3 integer value\(s\) "
                                         r"above 2\*\*51 .*first is row 0 "
                                         r"\(1729382256910270659\)"):
        cm.roma_matching(edges, backend="cpu")
    nullable = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
                             "w": pd.array([None, 5, -2**53 - 1], dtype="Int64")})
    with pytest.raises(ValueError, match=r"weight column 'w' has 1 .*first is row 2"):
        cm.roma_matching(nullable, weight="w", backend="cpu")
    G = nx.Graph()
    G.add_edge("a", "b", weight=3)
    G.add_edge("b", "c", weight=2**54)
    with pytest.raises(ValueError, match=r"weight: 1 integer edge weight\(s\) above 2\*\*51 "
                                         r".*first is edge \('b', 'c'\) = 18014398509481984"):
        cm.roma_matching(G, backend="cpu")
    # at the limit: exact in float64, accepted, and never lighter than the start
    fine = edges.assign(weight=np.array([2**51, 2**51 - 1, 2**50], dtype=np.int64))
    _, info = cm.roma_matching(fine, backend="cpu", return_info=True)
    assert info.weight >= info.start_weight
    matrix = np.zeros((3, 3), dtype=np.int64)
    matrix[0, 2] = matrix[2, 0] = -(2**62)
    matrix[1, 1] = 2**62  # the diagonal is never read
    with pytest.raises(ValueError, match=r"weight matrix has 2 integer off-diagonal value\(s\) "
                                         r"above 2\*\*51 .*first is W\[0, 2\] = "
                                         r"-4611686018427387904"):
        cm.roma_matching(matrix, backend="cpu")
    matrix[0, 2] = matrix[2, 0] = 2**51
    assert cm.matching_weight(cm.roma_matching(matrix, backend="cpu")) == 2.0**51
    # a self-loop's weight is not a matching's: an edge list refused it where
    # a cm.Graph of the same rows (its loops apart) did not
    looped = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 2],
                           "weight": np.array([3, 2, 2**60], dtype=np.int64)})
    pd.testing.assert_frame_equal(cm.roma_matching(looped, backend="cpu"),
                                  cm.roma_matching(cm.Graph(looped, backend="cpu")))


def test_integer_gains_are_exact_at_the_limit():
    """Weights 2**53 and 2**53 - 1 on a 4-cycle (accepted until 2026-11-27):
    a gain adds three weights, rounded in float64, and the zero-gain flip
    looked positive, so ROMA flipped every phase and never converged.  The
    limit is 2**51 now; there the same cycle converges at once."""
    top = 2**51
    edges = pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0],
                          "weight": np.array([top, top - 1, top, top - 1], dtype=np.int64)})
    _, info = cm.roma_matching(edges, phases=4, backend="cpu", return_info=True)
    assert info.flips == [0] and info.converged
    with pytest.raises(ValueError, match=r"above 2\*\*51"):
        cm.roma_matching(edges.assign(weight=edges["weight"] * 4), backend="cpu")


def test_weights_near_the_top_of_float64():
    """A 4-cycle whose matched edges weigh 1.7e308 and the others 1e308: the
    flip's gain summed two weights to inf and the losing flip was taken in
    every phase.  An edge list's weights are now divided by a power of two
    for the phases (the result, weights included, the same as the scaled
    copy's, scaled back); a weight matrix that large is refused."""
    edges = pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0],
                          "weight": [1.7e308, 1.0e308, 1.7e308, 1.0e308]})
    result, info = cm.roma_matching(edges, phases=4, backend="cpu", return_info=True)
    assert info.flips == [0] and info.converged
    assert frame_mates(result, 4).tolist() == [1, 0, 3, 2]
    assert result["weight"].tolist() == [1.7e308] * 4
    assert info.weight == info.start_weight  # (both inf: the matching weighs 3.4e308)
    small = cm.roma_matching(edges.assign(weight=np.ldexp(edges["weight"].to_numpy(), -600)),
                             phases=4, backend="cpu")
    assert frame_mates(small, 4).tolist() == [1, 0, 3, 2]
    np.testing.assert_array_equal(np.ldexp(result["weight"].to_numpy(dtype=np.float64), -600),
                                  small["weight"].to_numpy(dtype=np.float64))
    matrix = np.ones((4, 4))
    matrix[0, 1] = matrix[1, 0] = 1.7e308
    with pytest.raises(ValueError, match=r"weight matrix has 2 off-diagonal value\(s\) of "
                                         r"2\*\*1021 .*first is W\[0, 1\] = 1.7e\+308"):
        cm.roma_matching(matrix, backend="cpu")
    # points so close that their squared distances underflow: every weight read 0
    points = np.ldexp(np.arange(8, dtype=np.float64).reshape(4, 2), -560)
    with pytest.raises(ValueError, match="points are too close together"):
        cm.roma_matching(points=points, backend="cpu")


def test_points_overflow_and_array_likes():
    with pytest.raises(ValueError, match="points are too far apart: their squared distances "
                                         "overflow float64"):
        cm.roma_matching(points=np.array([[1e200], [-1e200], [0], [1]]), backend="cpu")
    with pytest.raises(ValueError, match="points are too far apart"):
        cm.roma_matching(points=[[1e308, 0.0], [-1e308, 0.0]], backend="cpu")
    expected = cm.roma_matching(points=np.array([[0.0, 0], [1, 0], [5, 5], [6, 5]]),
                                backend="cpu")
    as_list = cm.roma_matching(points=[[0, 0], [1, 0], [5, 5], [6, 5]], backend="cpu")
    as_frame = cm.roma_matching(points=pd.DataFrame({"x": [0, 1, 5, 6], "y": [0, 0, 5, 5]}),
                                backend="cpu")
    pd.testing.assert_frame_equal(as_list, expected)
    pd.testing.assert_frame_equal(as_frame, expected)
    with pytest.raises(TypeError, match="points must hold real numbers .*dtype <U1"):
        cm.roma_matching(points=[["a"], ["b"]], backend="cpu")
    with pytest.raises(TypeError, match="points must be an array of real numbers, got list"):
        cm.roma_matching(points=[[1.0], [2.0, 3.0]], backend="cpu")


def test_initial_unknown_vertex_with_null_mate_refused():
    edges = pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"], "weight": [1.0, 2.0]})
    frame = pd.DataFrame({"vertex": ["a", "b", "z"], "mate": ["b", "a", None]})
    with pytest.raises(ValueError, match=r"initial 'vertex': 1 id\(s\) are not vertices of the "
                                         r"graph; first is 'z'"):
        cm.roma_matching(edges, initial=frame, backend="cpu")
    ok = pd.DataFrame({"vertex": ["a", "b", "c"], "mate": ["b", "a", None]})
    assert cm.matching_weight(cm.roma_matching(edges, initial=ok, backend="cpu")) == 2.0


def test_phases_are_logged_at_info(caplog):
    """One progress line per phase (logger ``cugraph_match``, INFO), with the
    matching's weight after it."""
    edges = cm.datasets.load("netscience")
    with caplog.at_level("INFO", logger="cugraph_match"):
        result, info = cm.roma_matching(edges, backend="cpu", return_info=True)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("roma phase ")]
    assert len(lines) == info.phases
    assert lines[0].startswith(f"roma phase 0: 1,461 vertices, 2,742 edges, flips "
                               f"{info.flips[0]:,}, weight ")
    assert f"weight {info.weight:.6g}," in lines[-1]


def _exact_weight(result) -> Fraction:
    """A matching frame's weight as an exact rational (each edge counted once)."""
    return sum((Fraction(float(w)) for w in result["weight"].dropna()), Fraction(0)) / 2


#: A path 1-2-3-4 closed by 1-4: the matching {1-2, 3-4} weighs 2**54 + 3.5
#: and {1-4, 2-3} 2**54 + 3.25, and in float64 both sums round alike, so a
#: rounded gain could not tell them apart.
WIDE_EDGES = pd.DataFrame({"src": [1, 3, 1, 2], "dst": [2, 4, 4, 3],
                           "weight": [3.5, 2.0**54, 2.0**54, 3.25]})


def test_threshold_fraction_and_python_int_read_by_value():
    """A Fraction or a Python int past 2**63 as the threshold raised NumPy's
    "ufunc 'isfinite' not supported" (before 2026-11-28): read by value now."""
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [2.0, 3.0, 2.0]})
    assert cm.roma_matching(edges, threshold=Fraction(1, 2), backend="cpu")["mate"].tolist() == \
        [1, 0, 3, 2]  # the path's gain of 1 exceeds 1/2
    assert cm.roma_matching(edges, threshold=2**64, backend="cpu")["mate"].tolist()[1] == 2


@pytest.mark.parametrize("start", ["greedy", "empty"])
def test_float_weights_wider_than_float64_never_lose_weight(start):
    """Before 2026-11-28 the rounded gain of the swap to the lighter matching
    looked positive: from the empty start the phases swapped back and forth
    (3 flips, then 2 in every phase, never converging), and a run could end
    on the lighter matching.  Gains are now compared exactly."""
    result, info = cm.roma_matching(WIDE_EDGES, initial=start, phases=8, seed=0,
                                    backend="cpu", return_info=True)
    assert _exact_weight(result) == 2**54 + Fraction(7, 2)
    assert frame_mates(result.assign(vertex=result["vertex"] - 1,
                                     mate=result["mate"] - 1), 4).tolist() == [1, 0, 3, 2]
    assert info.converged and info.phases <= 2


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 3))
def test_wide_float_weights_converge_without_losing_weight(data, seed):
    """Weights of very different magnitudes (a few units, or 2**54 and
    2**55, whose sums with them round): every phase keeps or raises the exact weight, and the run
    converges well within the phases a finite number of strict gains needs."""
    n = data.draw(st.integers(4, 6))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    chosen = data.draw(st.lists(st.sampled_from(pairs), min_size=3, max_size=8, unique=True))
    weight = data.draw(st.lists(st.sampled_from([1.25, 3.25, 3.5, 2.0**54, 2.0**55]),
                                min_size=len(chosen), max_size=len(chosen)))
    edges = pd.DataFrame({"src": [a for a, _ in chosen], "dst": [b for _, b in chosen],
                          "weight": weight})
    previous = None
    for phases in range(0, 5):
        result = cm.roma_matching(edges, initial="empty", phases=phases, threshold=0.0,
                                  seed=seed, backend="cpu")
        assert cm.is_matching(edges, result)
        if previous is not None:
            assert _exact_weight(result) >= previous
        previous = _exact_weight(result)
    _, info = cm.roma_matching(edges, initial="empty", phases=200, threshold=0.0, seed=seed,
                               backend="cpu", return_info=True)
    assert info.converged


def test_wide_float_weight_matrix_never_loses_weight():
    """The same two matchings as a complete graph (other pairs weigh 0): from
    the heavier one no flip is made; from the lighter one, the flip to the
    heavier (rounded, its gain was 0 and it was never made)."""
    matrix = np.zeros((4, 4))
    for a, b, w in zip(WIDE_EDGES["src"] - 1, WIDE_EDGES["dst"] - 1, WIDE_EDGES["weight"]):
        matrix[a, b] = matrix[b, a] = w
    heavy = pd.DataFrame({"vertex": [0, 1, 2, 3], "mate": [1, 0, 3, 2]})
    light = pd.DataFrame({"vertex": [0, 1, 2, 3], "mate": [3, 2, 1, 0]})
    for start in (heavy, light):
        result, info = cm.roma_matching(matrix, initial=start, threshold=0.0, phases=4,
                                        backend="cpu", return_info=True)
        assert frame_mates(result, 4).tolist() == [1, 0, 3, 2]
        assert _exact_weight(result) == 2**54 + Fraction(7, 2) and info.converged


@settings(max_examples=examples(300), deadline=None)
@given(terms=st.lists(st.one_of(st.sampled_from([0.0, 2.0**54, 3.5, 3.25, 5e-324]),
                                st.floats(0, 2.0**1020, allow_subnormal=True)),
                      min_size=6, max_size=6))
def test_exact_gain_comparison_against_fractions(terms):
    """The exact comparison behind every flip, in plain Python and compiled,
    against rational arithmetic."""
    p1, p2, n1, n2, n3, t = terms
    expected = Fraction(p1) + Fraction(p2) - Fraction(n1) - Fraction(n2) - Fraction(n3) \
        > Fraction(t)
    assert compile_gain_exceeds(lambda f: f)(*terms) == expected
    assert _compiled_gain_exceeds(*terms) == expected


@njit
def _compiled_gain_exceeds(p1, p2, n1, n2, n3, t):
    return exact_gain_exceeds(p1, p2, n1, n2, n3, t)


def test_tiny_weights_kept_when_huge_ones_scale_the_phases():
    """Beside a weight of 1.7e308 the phases run on weights divided by a
    power of two, and 5e-324 became 0 in the result (before 2026-11-28):
    the result's weights are now read from the edges."""
    edges = pd.DataFrame({"src": [0, 2], "dst": [1, 3], "weight": [1.7e308, 5e-324]})
    result, info = cm.roma_matching(edges, backend="cpu", return_info=True)
    assert result["weight"].tolist() == [1.7e308, 1.7e308, 5e-324, 5e-324]
    path = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [5e-324, 1.7e308, 5e-324]})
    for start in ("greedy", "empty"):
        result = cm.roma_matching(path, initial=start, threshold=0.0, backend="cpu")
        assert _exact_weight(result) == Fraction(1.7e308)
