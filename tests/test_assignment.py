"""Exact assignment (``cm.assignment``) against independent oracles.

Oracles: SciPy's ``linear_sum_assignment`` (dense; with a private zero-cost
column per row for the maximum-weight case), SciPy's
``min_weight_full_bipartite_matching``, NetworkX's bipartite matchings, and a
brute force over every matching of tiny instances (exact Python integers).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

import cugraph_match as cm
from cugraph_match.bipartite import assignment_cpu as K
from oracle import SHARED_DATA

SETTINGS = settings(max_examples=examples(120), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------
# oracles
# --------------------------------------------------------------------------


def best_pairs(frame, src="src", dst="dst", w="weight", maximize=False):
    """{(left, right): the pair's best weight for the objective} as Python numbers."""
    best = {}
    for a, b, x in zip(frame[src].tolist(), frame[dst].tolist(), frame[w].tolist()):
        x = int(x) if isinstance(x, (int, np.integer)) else float(x)
        if (a, b) not in best or (x > best[(a, b)] if maximize else x < best[(a, b)]):
            best[(a, b)] = x
    return best


def brute_force(pairs: dict, mode: str):
    """(cardinality, total) of the optimum over every matching of ``pairs``.

    ``mode``: "max_weight" (any size, largest total), "min_card" (largest
    size, then smallest total), "perfect_min"/"perfect_max" (size = the
    smaller side, None when impossible).
    """
    lefts = sorted({a for a, _ in pairs}, key=repr)
    rights = {b for _, b in pairs}
    by_left = {a: [(b, x) for (aa, b), x in pairs.items() if aa == a] for a in lefts}
    best = None

    def better(cand, cur):
        if cur is None:
            return True
        size, total = cand
        if mode == "max_weight":
            return total > cur[1]
        if mode in ("min_card", "perfect_min"):
            return size > cur[0] or (size == cur[0] and total < cur[1])
        return size > cur[0] or (size == cur[0] and total > cur[1])

    def walk(k, used, size, total):
        nonlocal best
        if k == len(lefts):
            if better((size, total), best):
                best = (size, total)
            return
        walk(k + 1, used, size, total)
        for b, x in by_left[lefts[k]]:
            if b not in used:
                walk(k + 1, used | {b}, size + 1, total + x)

    walk(0, frozenset(), 0, 0)
    if best is None:
        best = (0, 0)
    if mode.startswith("perfect") and best[0] < min(len(lefts), len(rights)):
        return None
    return best


def lsa_or_none(cost, maximize=False):
    try:
        r, c = linear_sum_assignment(cost, maximize=maximize)
    except ValueError:
        return None
    return r, c


def check_linked(result, frame, maximize, src="src", dst="dst", w="weight"):
    """The result is a matching of candidate pairs with their best weights,
    sorted by source; returns (cardinality, total) in Python numbers."""
    assert list(result.columns) == [src, dst, w]
    assert result[src].is_unique and result[dst].is_unique
    lefts = result[src].tolist()
    assert lefts == sorted(lefts)
    pairs = best_pairs(frame, src, dst, w, maximize)
    total = 0
    for a, b, x in zip(result[src].tolist(), result[dst].tolist(), result[w].tolist()):
        assert (a, b) in pairs, (a, b)
        assert x == pytest.approx(float(pairs[(a, b)]), rel=1e-12, abs=0)
        total += pairs[(a, b)]
    return len(result), total


def close(a, b, scale=1.0):
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9 * max(scale, 1e-300))


# --------------------------------------------------------------------------
# dense matrices: SciPy's linear_sum_assignment
# --------------------------------------------------------------------------


@st.composite
def cost_matrices(draw):
    nr = draw(st.integers(0, 7))
    nc = draw(st.integers(0, 7))
    kind = draw(st.sampled_from(["tied", "float", "int", "forbidden", "big_int"]))
    size = nr * nc
    if kind == "tied":
        values = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=size, max_size=size))
        matrix = np.array(values, dtype=np.float64)
    elif kind == "float":
        values = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=size,
                               max_size=size))
        matrix = np.array(values, dtype=np.float64)
    elif kind == "int":
        values = draw(st.lists(st.integers(-50, 50), min_size=size, max_size=size))
        matrix = np.array(values, dtype=np.int64)
    elif kind == "big_int":
        base = draw(st.sampled_from([2**53, 2**62, 2**63 - 200, -2**63]))
        values = draw(st.lists(st.integers(0, 100), min_size=size, max_size=size))
        matrix = np.array([base + x if base < 0 else base - x for x in values], dtype=np.int64)
    else:
        values = draw(st.lists(st.one_of(st.sampled_from([np.inf]), st.integers(0, 9)),
                               min_size=size, max_size=size))
        matrix = np.array(values, dtype=np.float64)
    return matrix.reshape(nr, nc)


@SETTINGS
@given(cost_matrices(), st.booleans())
def test_dense_equals_scipy(matrix, maximize):
    if maximize and matrix.dtype.kind == "f":
        matrix = np.where(np.isposinf(matrix), -np.inf, matrix)
    before = matrix.copy()
    expected = lsa_or_none(matrix.astype(np.float64) if matrix.dtype.kind == "i" and
                           np.abs(matrix).max(initial=0) > 2**52 else matrix, maximize)
    try:
        rows, cols = cm.assignment(matrix, maximize=maximize, backend="cpu")
    except ValueError as err:
        assert "infeasible" in str(err)
        assert expected is None
        return
    np.testing.assert_array_equal(matrix, before)
    assert expected is not None
    assert rows.shape == cols.shape == (min(matrix.shape),)
    assert (np.diff(rows) > 0).all() and len(set(cols.tolist())) == len(cols)
    if matrix.dtype.kind == "i":
        # exact: Python integers, SciPy's float64 only where it is exact
        ours = sum(int(matrix[r, c]) for r, c in zip(rows, cols))
        big = np.abs(matrix).max(initial=0) > 2**52
        ref = brute_force_dense(matrix, maximize) if big else \
            sum(int(matrix[r, c]) for r, c in zip(*expected))
        assert ours == ref
    else:
        ours = matrix[rows, cols].sum()
        ref = matrix[expected].sum()
        assert np.isfinite(ours)
        assert close(float(ours), float(ref), float(np.abs(matrix[np.isfinite(matrix)]).max(
            initial=1.0)))


def brute_force_dense(matrix, maximize):
    from itertools import permutations

    nr, nc = matrix.shape
    best = None
    if nr <= nc:
        for perm in permutations(range(nc), nr):
            total = sum(int(matrix[i, perm[i]]) for i in range(nr))
            if best is None or (total > best if maximize else total < best):
                best = total
    else:
        for perm in permutations(range(nr), nc):
            total = sum(int(matrix[perm[j], j]) for j in range(nc))
            if best is None or (total > best if maximize else total < best):
                best = total
    return best


def test_dense_random_against_scipy_and_shapes():
    rng = np.random.default_rng(3)
    for nr, nc in [(200, 200), (150, 260), (260, 150), (1, 50), (50, 1)]:
        for maximize in (False, True):
            matrix = rng.random((nr, nc))
            rows, cols = cm.assignment(matrix, maximize=maximize, backend="cpu")
            r, c = linear_sum_assignment(matrix, maximize=maximize)
            np.testing.assert_array_equal(rows, r)
            assert math.isclose(matrix[rows, cols].sum(), matrix[r, c].sum(), rel_tol=1e-12)
            ints = rng.integers(0, 20, (nr, nc))
            rows, cols = cm.assignment(ints, maximize=maximize, backend="cpu")
            r, c = linear_sum_assignment(ints, maximize=maximize)
            assert ints[rows, cols].sum() == ints[r, c].sum()


def test_dense_forbidden_and_infeasible():
    inf = np.inf
    cost = np.array([[1.0, inf], [inf, inf]])
    with pytest.raises(ValueError, match="infeasible"):
        cm.assignment(cost, backend="cpu")
    cost = np.array([[inf, 1.0], [2.0, inf], [3.0, 4.0]])
    rows, cols = cm.assignment(cost, backend="cpu")
    assert cost[rows, cols].sum() == 3.0
    with pytest.raises(ValueError, match="infeasible"):
        cm.assignment(np.array([[inf, inf, inf], [1.0, 2.0, 3.0]]), backend="cpu")
    rows, cols = cm.assignment(np.array([[-inf, 5.0], [1.0, -inf]]), maximize=True,
                               backend="cpu")
    assert cols.tolist() == [1, 0]


@pytest.mark.parametrize("matrix,maximize,message", [
    (np.array([[1.0, np.nan]]), False, "NaN"),
    (np.array([[1.0, -np.inf]]), False, "-inf"),
    (np.array([[1.0, np.inf]]), True, r"\+inf"),
    (np.zeros((2, 2, 2)), False, "2-D"),
])
def test_dense_bad_values(matrix, maximize, message):
    with pytest.raises(ValueError, match=message):
        cm.assignment(matrix, maximize=maximize, backend="cpu")


def test_dense_bad_types_and_arguments():
    with pytest.raises(TypeError, match="numeric"):
        cm.assignment(np.array([["a", "b"]]), backend="cpu")
    with pytest.raises(TypeError, match="numeric"):
        cm.assignment(np.ones((2, 2), dtype=complex), backend="cpu")
    with pytest.raises(TypeError, match="columns of an edge list"):
        cm.assignment(np.ones((2, 2)), "src", backend="cpu")
    with pytest.raises(TypeError, match="maximize"):
        cm.assignment(np.ones((2, 2)), maximize="yes", backend="cpu")
    with pytest.raises(ValueError, match="backend"):
        cm.assignment(np.ones((2, 2)), backend="tpu")
    with pytest.raises(TypeError):
        cm.assignment(object(), backend="cpu")


def test_dense_empty_bool_and_lists():
    for shape in [(0, 0), (0, 3), (3, 0)]:
        rows, cols = cm.assignment(np.zeros(shape), backend="cpu")
        assert rows.shape == cols.shape == (0,)
    rows, cols = cm.assignment(np.array([[True, False], [False, True]]), backend="cpu")
    assert cols.tolist() == [1, 0]
    rows, cols = cm.assignment([[3, 1], [1, 3]], backend="cpu")
    assert cols.tolist() == [1, 0]


def test_dense_integer_limits():
    # near 2**63 with a small spread: exact (float64 would merge these costs)
    base = 2**63 - 10
    matrix = np.array([[base - 1, base - 3], [base - 2, base - 5]], dtype=np.int64)
    rows, cols = cm.assignment(matrix, backend="cpu")
    assert cols.tolist() == [0, 1]  # (b-1)+(b-5) < (b-3)+(b-2)
    huge = np.array([[0, 2**62], [2**62, 0]], dtype=np.int64)
    with pytest.raises(ValueError, match=r"2\*\*60"):
        cm.assignment(huge, backend="cpu")
    unsigned = np.array([[2**64 - 1, 2**64 - 3], [2**64 - 2, 2**64 - 5]], dtype=np.uint64)
    rows, cols = cm.assignment(unsigned, maximize=True, backend="cpu")
    assert cols.tolist() == [1, 0]


def test_dense_huge_and_tiny_floats():
    rng = np.random.default_rng(5)
    base = rng.random((30, 30))
    r, c = linear_sum_assignment(base)
    for scale in (1e300, 1e-300, 1e-310):
        rows, cols = cm.assignment(base * scale, backend="cpu")
        assert math.isclose(base[rows, cols].sum(), base[r, c].sum(), rel_tol=1e-9)


# --------------------------------------------------------------------------
# edge lists: two id spaces
# --------------------------------------------------------------------------


@st.composite
def candidate_frames(draw, max_side=5, max_pairs=10):
    n_left = draw(st.integers(1, max_side))
    n_right = draw(st.integers(1, max_side))
    m = draw(st.integers(1, max_pairs))
    left = draw(st.lists(st.integers(0, n_left - 1), min_size=m, max_size=m))
    right = draw(st.lists(st.integers(0, n_right - 1), min_size=m, max_size=m))
    kind = draw(st.sampled_from(["tied", "float", "int", "near53", "near63"]))
    if kind == "tied":
        weights = draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0, 2.0]), min_size=m, max_size=m))
        weights = np.array(weights)
    elif kind == "float":
        weights = np.array(draw(st.lists(st.floats(-100, 100, allow_nan=False), min_size=m,
                                         max_size=m)))
    elif kind == "int":
        weights = np.array(draw(st.lists(st.integers(-20, 20), min_size=m, max_size=m)),
                           dtype=np.int64)
    else:
        base = 2**53 if kind == "near53" else 2**63 - 100
        weights = np.array([base - x for x in draw(st.lists(st.integers(0, 60), min_size=m,
                                                           max_size=m))], dtype=np.int64)
    ids = draw(st.sampled_from(["int", "str", "mixed_sides"]))
    if ids == "str":
        left = [f"r{x}" for x in left]
        right = [f"r{x}" for x in right]  # same strings on both sides: different records
    elif ids == "mixed_sides":
        right = [f"b{x}" for x in right]
    return pd.DataFrame({"src": left, "dst": right, "weight": weights})


MODES = {  # (maximize, perfect) -> brute-force mode
    (True, False): "max_weight",
    (False, False): "min_card",
    (False, True): "perfect_min",
    (True, True): "perfect_max",
}


@SETTINGS
@given(candidate_frames(), st.sampled_from(sorted(MODES)))
def test_edge_list_equals_brute_force(frame, flags):
    maximize, perfect = flags
    big = frame["weight"].dtype.kind == "i" and int(frame["weight"].abs().max()) > 2**62
    before = frame.copy()
    expected = brute_force(best_pairs(frame, maximize=maximize), MODES[flags])
    if big and flags == (True, False):
        with pytest.raises(ValueError, match=r"2\*\*60"):
            cm.assignment(frame, maximize=maximize, perfect=perfect, backend="cpu")
        return
    try:
        result = cm.assignment(frame, maximize=maximize, perfect=perfect, backend="cpu")
    except ValueError as err:
        assert "perfect=True" in str(err)
        assert expected is None
        return
    pd.testing.assert_frame_equal(frame, before)
    assert expected is not None
    size, total = check_linked(result, frame, maximize)
    if flags == (True, False):
        assert (result["weight"] > 0).all()
        assert close(total, expected[1])
    else:
        assert size == expected[0]
        assert close(total, expected[1], float(frame["weight"].abs().max()))


def mirror_value(pairs: dict):
    """Maximum-weight matching value by SciPy on a private zero column per row."""
    lefts = sorted({a for a, _ in pairs}, key=repr)
    rights = sorted({b for _, b in pairs}, key=repr)
    li = {a: i for i, a in enumerate(lefts)}
    ri = {b: j for j, b in enumerate(rights)}
    cost = np.full((len(lefts), len(rights) + len(lefts)), np.inf)
    for (a, b), x in pairs.items():
        if x > 0:
            cost[li[a], ri[b]] = -x
    cost[np.arange(len(lefts)), len(rights) + np.arange(len(lefts))] = 0.0
    r, c = linear_sum_assignment(cost)
    return -cost[r, c].sum()


def random_candidates(rng, n_left, n_right, per_left, kind, hidden=True):
    left = np.repeat(np.arange(n_left), per_left)
    right = rng.integers(0, n_right, left.shape[0])
    if hidden and n_left <= n_right:
        right[::per_left] = rng.permutation(n_right)[:n_left]
    if kind == "float":
        weights = rng.random(left.shape[0])
    else:
        weights = rng.integers(1, 50, left.shape[0])
    return pd.DataFrame({"src": left, "dst": right, "weight": weights})


@pytest.mark.parametrize("kind", ["float", "int"])
@pytest.mark.parametrize("shape", [(400, 400), (300, 450), (450, 300)])
def test_random_edge_lists_against_scipy(kind, shape):
    rng = np.random.default_rng(11)
    frame = random_candidates(rng, *shape, 6, kind)
    pairs = best_pairs(frame)
    n_left, n_right = shape
    dense = np.full(shape, np.inf)
    for (a, b), x in pairs.items():
        dense[a, b] = x
    # perfect, minimising: SciPy on the dense matrix
    expected = lsa_or_none(dense)
    result = cm.assignment(frame, perfect=True, backend="cpu")
    size, total = check_linked(result, frame, False)
    assert expected is not None and size == min(shape)
    assert close(total, dense[expected].sum(), 50.0)
    # the same through the unmatched-allowed minimisation (a perfect matching exists)
    result = cm.assignment(frame, backend="cpu")
    assert close(check_linked(result, frame, False)[1], dense[expected].sum(), 50.0)
    # maximum weight: SciPy with a private zero column per row
    pairs_max = best_pairs(frame, maximize=True)
    result = cm.assignment(frame, maximize=True, backend="cpu")
    assert close(check_linked(result, frame, True)[1], mirror_value(pairs_max), 50.0)


def test_square_warm_start_and_sparse_scipy():
    """The auction warm start and the plain JV start reach SciPy's optimum."""
    rng = np.random.default_rng(2)
    for kind in ("float", "int"):
        frame = random_candidates(rng, 3000, 3000, 8, kind)
        left = frame["src"].to_numpy()
        right = frame["dst"].to_numpy()
        costs = frame["weight"].to_numpy()
        indptr, indices, cost, _ = K.rows_from_pairs(left, right, costs, 3000, 3000)
        matrix = sp.csr_matrix((cost.astype(np.float64) + 1.0, indices, indptr),
                               shape=(3000, 3000))
        r, c = min_weight_full_bipartite_matching(matrix)
        ref = matrix[r, c].sum() - 3000
        for warm in (True, False):
            col4row, bad = K.solve_sparse(indptr, indices, cost, 3000, 3000, K.PERFECT,
                                          np.inf if kind == "float" else np.int64(2**62),
                                          warm_start=warm)
            assert bad == -1
            ours = (matrix[np.arange(3000), col4row].sum() - 3000)
            assert math.isclose(ours, ref, rel_tol=1e-12)


def test_networkx_oracles():
    rng = np.random.default_rng(7)
    frame = random_candidates(rng, 40, 40, 4, "int")
    graph = nx.Graph()
    pairs = best_pairs(frame)
    for (a, b), x in pairs.items():
        graph.add_edge(("L", a), ("R", b), weight=x)
    top = [("L", a) for a in sorted({a for a, _ in pairs})]
    full = nx.bipartite.minimum_weight_full_matching(graph, top, "weight")
    ref = sum(graph[u][full[u]]["weight"] for u in top)
    result = cm.assignment(frame, perfect=True, backend="cpu")
    assert check_linked(result, frame, False)[1] == ref
    pairs_max = best_pairs(frame, maximize=True)
    graph_max = nx.Graph()
    for (a, b), x in pairs_max.items():
        graph_max.add_edge(("L", a), ("R", b), weight=x)
    mate = nx.max_weight_matching(graph_max)
    ref = sum(graph_max[u][v]["weight"] for u, v in mate)
    result = cm.assignment(frame, maximize=True, backend="cpu")
    assert check_linked(result, frame, True)[1] == ref


def test_issue_example_two_id_spaces():
    cand = pd.DataFrame({"left_id": [0, 1, 2, 0, 2], "right_id": [1, 2, 0, 0, 1],
                         "score": [.9, .8, .95, .1, .2]})
    result = cm.assignment(cand, source="left_id", destination="right_id", weight="score",
                           maximize=True, backend="cpu")
    assert result.to_dict("list") == {"left_id": [0, 1, 2], "right_id": [1, 2, 0],
                                      "score": [0.9, 0.8, 0.95]}


def test_output_dtypes_unweighted_and_empty():
    frame = pd.DataFrame({"a": ["x", "y", "y"], "b": [1, 1, 2],
                          "w": np.array([1.5, 2.5, 1.5], dtype=np.float32)})
    result = cm.assignment(frame, "a", "b", "w", maximize=True, backend="cpu")
    assert result["w"].dtype == np.float32
    assert result.to_dict("list") == {"a": ["x", "y"], "b": [1, 2], "w": [1.5, 1.5]}
    ints = frame.assign(w=[3, 4, 5])
    assert cm.assignment(ints, "a", "b", "w", backend="cpu")["w"].dtype == np.float64
    # no weight column: every pair weighs 1, so maximising gives a maximum matching
    unweighted = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [0, 1, 0, 0]})
    result = cm.assignment(unweighted, maximize=True, backend="cpu")
    assert len(result) == 2 and list(result.columns) == ["src", "dst", "weight"]
    # weights of 1 as the matchings report them without a weight column
    assert result["weight"].dtype == np.float32
    assert cm.assignment(frame, "a", "b", weight=None, backend="cpu")["weight"].dtype == \
        np.float32
    assert len(cm.assignment(unweighted, backend="cpu")) == 2
    empty = pd.DataFrame({"src": pd.Series([], dtype=np.int64),
                          "dst": pd.Series([], dtype=np.int64),
                          "weight": pd.Series([], dtype=np.float64)})
    for flags in MODES:
        result = cm.assignment(empty, maximize=flags[0], perfect=flags[1], backend="cpu")
        assert len(result) == 0 and list(result.columns) == ["src", "dst", "weight"]


def test_duplicates_keep_the_best_for_the_objective():
    frame = pd.DataFrame({"src": [0, 0, 0], "dst": [5, 5, 5], "weight": [2.0, 7.0, 3.0]})
    assert cm.assignment(frame, maximize=True, backend="cpu")["weight"].tolist() == [7.0]
    assert cm.assignment(frame, backend="cpu")["weight"].tolist() == [2.0]


def test_huge_and_tiny_weights():
    rng = np.random.default_rng(9)
    frame = random_candidates(rng, 60, 60, 5, "float")
    pairs = best_pairs(frame, maximize=True)
    ref = mirror_value(pairs)
    for scale in (1e300, 1e-300):
        scaled = frame.assign(weight=frame["weight"] * scale)
        result = cm.assignment(scaled, maximize=True, backend="cpu")
        assert math.isclose(result["weight"].sum() / scale, ref, rel_tol=1e-9)


def test_unsigned_and_object_weights():
    frame = pd.DataFrame({"src": [0, 0, 1], "dst": [0, 1, 0],
                          "weight": np.array([2**64 - 1, 2**64 - 3, 2**64 - 2], dtype=np.uint64)})
    result = cm.assignment(frame, perfect=True, maximize=True, backend="cpu")
    assert result["dst"].tolist() == [1, 0]  # (2**64-3)+(2**64-2) > 2**64-1 alone
    objects = frame.assign(weight=pd.Series([3, 1, 2], dtype=object))
    assert cm.assignment(objects, backend="cpu")["dst"].tolist() == [1, 0]


@pytest.mark.parametrize("frame,kwargs,error,message", [
    (pd.DataFrame({"src": [0], "dst": [1]}), {"weight": "w"}, ValueError, "'w' not found"),
    (pd.DataFrame({"a": [0], "dst": [1]}), {}, ValueError, "source column 'src'"),
    (pd.DataFrame({"src": [0, None], "dst": [1, 2], "weight": [1.0, 2.0]}), {}, ValueError,
     "null id"),
    (pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, np.nan]}), {}, ValueError,
     "NaN"),
    (pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, np.inf]}), {}, ValueError,
     "infinite"),
    (pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": ["a", "b"]}), {}, TypeError,
     "non-numeric"),
    (pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [True, False]}), {}, TypeError,
     "numeric"),
    (pd.DataFrame({"src": [0, "a"], "dst": [1, 2], "weight": [1.0, 2.0]}), {}, TypeError,
     "mixed types"),
    (pd.DataFrame({"src": [0], "dst": [1]}), {"destination": "src"}, ValueError,
     "same column"),
    (pd.DataFrame({"src": [0], "dst": [1], "weight": [1.0]}), {"maximize": 1}, TypeError,
     "maximize"),
    (pd.DataFrame({"src": [0, 1, 2, 2], "dst": [5, 5, 6, 7], "weight": [1.0, 2.0, 1.0, 1.0]}),
     {"perfect": True}, ValueError, "perfect=True.*source id 1"),
    (pd.DataFrame({"src": [5, 5, 6, 7, 8], "dst": [0, 1, 2, 2, 2], "weight": [1.0] * 5}),
     {"perfect": True, "maximize": True}, ValueError, "perfect=True.*destination id 1"),
])
def test_edge_list_bad_input(frame, kwargs, error, message):
    with pytest.raises(error, match=message):
        cm.assignment(frame, backend="cpu", **kwargs)


def test_infeasible_names_a_record():
    frame = pd.DataFrame({"src": ["a", "b", "c", "c"], "dst": ["x", "x", "y", "z"],
                          "weight": [1.0, 1.0, 1.0, 1.0]})
    with pytest.raises(ValueError, match="source id 'b'.*Hall"):
        cm.assignment(frame, perfect=True, backend="cpu")
    # without perfect: the best of maximum cardinality
    result = cm.assignment(frame, backend="cpu")
    assert len(result) == 2


def first_unservable(pairs: set, n_rows: int) -> int:
    """The first row r whose prefix 0..r has no matching covering it (NetworkX)."""
    for r in range(n_rows):
        G = nx.Graph()
        G.add_nodes_from(("r", i) for i in range(r + 1))
        G.add_edges_from((("r", i), ("c", j)) for i, j in pairs if i <= r)
        top = [("r", i) for i in range(r + 1)]
        if len(nx.bipartite.maximum_matching(G, top_nodes=top)) // 2 < r + 1:
            return r
    return -1


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 6), st.integers(1, 7), st.data())
def test_infeasible_names_the_first_record_in_order(n_rows, n_cols, data):
    """The record named is where Hall's condition first fails in order: the
    solvers' own failing row was the first their warm starts could not
    serve (row 0 for rows 0 -> {1}, 1 -> {1}, 2 -> {0, 1, 2} on the GPU;
    row 1 of a 6 x 6 sparse matrix whose first failing prefix ends at 5)."""
    n_rows, n_cols = min(n_rows, n_cols), max(n_rows, n_cols)
    cells = data.draw(st.sets(st.tuples(st.integers(0, n_rows - 1),
                                        st.integers(0, n_cols - 1)), min_size=1))
    expected = first_unservable(cells, n_rows)
    rows, cols = (np.array(sorted(cells)).T if cells else (np.zeros(0), np.zeros(0)))
    matrix = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_rows, n_cols))
    dense = np.full((n_rows, n_cols), np.inf)
    dense[rows, cols] = 1.0
    frame = pd.DataFrame({"src": rows, "dst": cols, "weight": 1.0})
    if expected < 0:
        cm.assignment(matrix, perfect=True, backend="cpu")
        return
    with pytest.raises(ValueError, match=f"row {expected} cannot be matched together"):
        cm.assignment(matrix, perfect=True, backend="cpu")
    with pytest.raises(ValueError, match=f"row {expected} cannot be served together with "
                                         f"the rows before it"):
        cm.assignment(dense, backend="cpu")
    if len(set(rows)) == n_rows and len(set(cols)) >= n_rows:
        # an edge list's records are those it lists: here every row, on the smaller side
        with pytest.raises(ValueError, match=f"source id {expected} cannot be linked together"):
            cm.assignment(frame, perfect=True, backend="cpu")


def test_infeasible_past_the_search_budget_names_the_solvers_record(monkeypatch):
    """Past its budget the search for the first record in order gives way
    to the solver's, and the message no longer says "ordered before it"."""
    import importlib

    module = importlib.import_module("cugraph_match.bipartite.assignment")
    monkeypatch.setattr(module, "FIRST_UNMATCHABLE_BUDGET", 0)
    frame = pd.DataFrame({"src": [0, 1, 2, 2, 2], "dst": [1, 1, 0, 1, 2], "weight": 1.0})
    with pytest.raises(ValueError, match=r"source id \d cannot be linked together with the "
                                         r"source ids linked \(Hall's"):
        cm.assignment(frame, perfect=True, backend="cpu")
    matrix = sp.csr_matrix((np.ones(5), (frame["src"], frame["dst"])), shape=(3, 3))
    with pytest.raises(ValueError, match=r"row \d cannot be matched together with the rows "
                                         r"matched\)"):
        cm.assignment(matrix, perfect=True, backend="cpu")
    with pytest.raises(ValueError, match=r"row \d cannot be served together with the rows "
                                         r"served\)"):
        cm.assignment(np.array([[np.inf, 1.0], [np.inf, 2.0]]), backend="cpu")


def test_scipy_sparse_input():
    rng = np.random.default_rng(4)
    frame = random_candidates(rng, 200, 250, 5, "float")
    matrix = sp.coo_matrix((frame["weight"] + 1.0, (frame["src"], frame["dst"])),
                           shape=(200, 250)).tocsr()
    r, c = min_weight_full_bipartite_matching(matrix)
    rows, cols = cm.assignment(matrix, backend="cpu")
    assert (np.diff(rows) > 0).all()
    assert math.isclose(matrix[rows, cols].sum(), matrix[r, c].sum(), rel_tol=1e-12)
    rows, cols = cm.assignment(matrix.T.tocsc(), perfect=True, backend="cpu")
    assert math.isclose(matrix.T.tocsr()[rows, cols].sum(), matrix[r, c].sum(), rel_tol=1e-12)
    with pytest.raises(ValueError, match="no full matching"):
        cm.assignment(sp.csr_matrix(np.array([[1.0, 0], [2.0, 0]])), perfect=True,
                      backend="cpu")


@pytest.mark.parametrize("name", ["karate.mtx", "jazz.mtx", "celegans_metabolic.mtx",
                                  "power.mtx"])
def test_real_graphs_as_candidate_pairs(name):
    """A real graph's adjacency as a two-table candidate list (row u links to
    column v), plus u -> u so that a perfect assignment exists; seeded integer
    weights; SciPy's sparse solver as the oracle."""
    path = SHARED_DATA / "graphs" / name
    if not path.exists():
        pytest.skip(f"{path} missing")
    edges, vertices = cm.datasets.read_graph(path)
    ids = pd.Index(sorted(set(vertices)))
    u = ids.get_indexer(edges["src"])
    v = ids.get_indexer(edges["dst"])
    n = len(ids)
    left = np.concatenate([u, v, np.arange(n)])
    right = np.concatenate([v, u, np.arange(n)])
    rng = np.random.default_rng(13)
    weights = rng.integers(1, 1000, left.shape[0])
    frame = pd.DataFrame({"src": left, "dst": right, "weight": weights})
    result = cm.assignment(frame, perfect=True, backend="cpu")
    indptr, indices, cost, _ = K.rows_from_pairs(left, right, weights, n, n)
    matrix = sp.csr_matrix((cost.astype(np.float64), indices, indptr), shape=(n, n))
    r, c = min_weight_full_bipartite_matching(matrix)
    size, total = check_linked(result, frame, False)
    assert size == n and total == int(matrix[r, c].sum())
    # maximum weight on the same pairs: SciPy on the mirror-augmented graph
    result = cm.assignment(frame, maximize=True, backend="cpu")
    assert check_linked(result, frame, True)[1] == sparse_mirror_value(
        best_pairs(frame, maximize=True), n, n)


def sparse_mirror_value(pairs: dict, n_left: int, n_right: int) -> int:
    """Maximum-weight matching value (ids 0..n-1 per side, positive integer
    weights) by SciPy's sparse solver on the mirror graph: rows L + R', columns
    R + L'; L_i-R_j costs K - w, L_i-L'_i (i unlinked), R'_j-R_j (j unlinked)
    and the mirrored R'_j-L'_i cost K; every perfect matching has n_left +
    n_right edges, so the cheapest is the heaviest matching."""
    big = max(pairs.values()) + 1
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    w = np.array(list(pairs.values()), dtype=np.float64)
    rows = np.concatenate([a, np.arange(n_left), n_left + np.arange(n_right), n_left + b])
    cols = np.concatenate([b, n_right + np.arange(n_left), np.arange(n_right), n_right + a])
    cost = np.concatenate([big - w, np.full(n_left + n_right + a.shape[0], float(big))])
    size = n_left + n_right
    matrix = sp.csr_matrix((cost, (rows, cols)), shape=(size, size))
    r, c = min_weight_full_bipartite_matching(matrix)
    return int(round(size * big - matrix[r, c].sum()))


def test_object_weights_past_2_63_beside_zero_and_negative_costs():
    """An object column of Python ints [0, 2**64 - 1] was refused as 'zero or
    negative value(s) (weights must be positive)', a graph's rule the
    assignment does not have; it is uint64 (then the spread is named), and
    a negative cost beside 2**64 - 1 is named as what no 64-bit type holds."""
    def frame(values):
        return pd.DataFrame({"src": [0, 1], "dst": [0, 1],
                             "weight": pd.Series(values, dtype=object)})

    with pytest.raises(ValueError, match=r"integer weights spanning 18446744073709551615 "
                                         r"\(from 0 to 18446744073709551615\)"):
        cm.assignment(frame([0, 2**64 - 1]), backend="cpu")
    with pytest.raises(TypeError, match=r"1 negative integer weight\(s\) beside weights past "
                                        r"2\*\*63 - 1.*first is row 0 \(src=0, dst=0, "
                                        r"weight=-1\)"):
        cm.assignment(frame([-1, 2**64 - 1]), backend="cpu")
    # a graph's weights keep their rule
    with pytest.raises(ValueError, match=r"zero or negative value\(s\) \(weights must be "
                                         r"positive\)"):
        cm.suitor_matching(frame([0, 2**64 - 1]), backend="cpu")


def test_weight_none_is_unweighted_as_for_the_matchings():
    """weight=None read the column named 'weight' (None meant the default
    name); the package's contract is that weight=None is unweighted: with
    maximize, the most pairs, whatever the column says."""
    frame = pd.DataFrame({"src": [0, 0, 1], "dst": [0, 1, 0], "weight": [10.0, 1.0, 1.0]})
    unweighted = cm.assignment(frame, weight=None, maximize=True, backend="cpu")
    assert unweighted[["src", "dst"]].values.tolist() == [[0, 1], [1, 0]]
    assert unweighted["weight"].tolist() == [1.0, 1.0]
    weighted = cm.assignment(frame, maximize=True, backend="cpu")
    assert weighted[["src", "dst"]].values.tolist() == [[0, 0]]
    # a matrix takes no column names; None and the default name are no names
    assert cm.assignment(np.eye(2), weight=None, backend="cpu")[1].tolist() == [1, 0]


def test_a_frame_without_the_weight_column_warns_of_another_numeric_one():
    """As the matchings do: no 'weight' column but a numeric 'score' means
    unweighted, and the warning names the column the caller may have meant;
    weight=None is silent."""
    import warnings

    frame = pd.DataFrame({"src": [0, 0, 1], "dst": [0, 1, 0], "score": [10.0, 1.0, 1.0]})
    with pytest.warns(UserWarning, match=r"numeric column\(s\) \['score'\]: pass weight='score'"):
        cm.assignment(frame, maximize=True, backend="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cm.assignment(frame, weight=None, maximize=True, backend="cpu")


def test_a_stored_zero_of_a_sparse_matrix_is_a_pair_of_weight_zero():
    """Documented where SciPy differs: its min_weight_full_bipartite_matching
    drops stored zeros; here they are candidate pairs, and eliminate_zeros()
    gives SciPy's problem (and answer)."""
    import warnings

    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    matrix = sp.csr_matrix((np.array([0.0, 5.0, 3.0, 0.0]), ([0, 0, 1, 1], [0, 1, 0, 1])),
                           shape=(2, 2))
    rows, cols = cm.assignment(matrix, perfect=True, backend="cpu")
    assert cols.tolist() == [0, 1]  # the two stored zeros: cost 0
    dropped = matrix.copy()
    dropped.eliminate_zeros()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = min_weight_full_bipartite_matching(matrix)
    ours = cm.assignment(dropped, perfect=True, backend="cpu")
    assert [a.tolist() for a in ours] == [a.tolist() for a in theirs] == [[0, 1], [1, 0]]


def test_graph_objects_are_refused_naming_what_to_pass():
    """A NetworkX graph was read by NumPy as a 1-D array of its nodes ('a cost
    matrix must be 2-D') and a cm.Graph as one object ('holding objects')."""
    G = nx.complete_bipartite_graph(2, 2)
    with pytest.raises(TypeError, match=r"not a NetworkX graph: nx.bipartite."
                                         r"minimum_weight_full_matching"):
        cm.assignment(G, maximize=True)
    with pytest.raises(TypeError, match="not a NetworkX graph"):
        cm.assignment(G, "a", "b")
    graph = cm.Graph(pd.DataFrame({"src": [0, 1], "dst": [0, 1], "weight": [1.0, 2.0]}),
                     bipartite=True)
    with pytest.raises(TypeError, match="not a Graph: pass the edge list it was built from"):
        cm.assignment(graph)
