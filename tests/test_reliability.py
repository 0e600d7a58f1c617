"""Bad and extreme input at every public boundary (issue 11): capacities of every
dtype and size, integer weights past 2**53 and up to 2**64 - 1, SciPy
duplicates, weights near the ends of float64, categorical and tuple ids,
argument messages.  (Files and the command line: ``test_cli.py``.)

Every test here failed on the code the audit ran (each names its finding).
The references are plain Python and independent of the package: an exact
greedy b-matching and a capacitated deferred acceptance, both on Python
ints, where a capacity at or above a list's length is simply never reached.

The capacity fuzz runs ``CUGRAPH_MATCH_FUZZ_EXAMPLES`` hypothesis examples
per family (a few dozen by default, to fit the CI budget); the issue's
1,000-graph run is::

    CUGRAPH_MATCH_FUZZ_EXAMPLES=1000 python -m pytest -q tests/test_reliability.py -k fuzz
"""

from __future__ import annotations

import io
import logging
import os
import random
import subprocess
import sys
from collections import deque

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st
from marriage_oracle import blocking_pairs as oracle_blocking_pairs
from marriage_oracle import instances
from strategies import edge_frames

import cugraph_match as cm

FUZZ_EXAMPLES = int(os.environ.get("CUGRAPH_MATCH_FUZZ_EXAMPLES", "40"))
CPU = {"backend": "cpu"}


# --------------------------------------------------------------------------
# independent references (plain Python ints: no dtype, no overflow)
# --------------------------------------------------------------------------


def exact_greedy_b_matching(src, dst, weight, capacity):
    """Greedy b-matching with exact weights: sorted [(lo, hi)] in caller ids.

    Edges heaviest first, ties to the larger (max id, min id) in sorted id
    order; duplicates keep their largest weight; self-loops never count.
    ``weight`` holds Python ints or floats (compared exactly), ``capacity``
    maps every vertex to a Python int of any size.
    """
    ids = sorted(set(src) | set(dst))
    rank = {v: i for i, v in enumerate(ids)}
    best = {}
    for u, v, w in zip(src, dst, weight):
        if u != v:
            pair = (max(rank[u], rank[v]), min(rank[u], rank[v]))
            best[pair] = max(best.get(pair, w), w)
    spare = {rank[v]: capacity[v] for v in ids}
    taken = []
    for (hi, lo), _ in sorted(best.items(), key=lambda item: (item[1], item[0]), reverse=True):
        if spare[hi] > 0 and spare[lo] > 0:
            spare[hi] -= 1
            spare[lo] -= 1
            taken.append((ids[lo], ids[hi]))
    return sorted(taken)


def capacitated_deferred_acceptance(P, A, p_cap, a_cap):
    """Many-to-many deferred acceptance on Python ints: every free place of a
    proposer proposes down his list (one pointer per proposer), an acceptor
    keeps her best ``a_cap`` proposers.  A proposer has at most as many places
    as his list has entries, whatever his capacity: a place beyond that would
    find the list used up."""
    rank = {a: {p: i for i, p in enumerate(lst)} for a, lst in A.items()}
    nxt = {p: 0 for p in P}
    kept = {a: [] for a in A}
    free = deque(p for p in P for _ in range(min(p_cap[p], len(P[p]))))
    while free:
        p = free.popleft()
        while nxt[p] < len(P[p]):
            a = P[p][nxt[p]]
            nxt[p] += 1
            if p not in rank.get(a, {}) or a_cap[a] == 0:
                continue
            held = kept[a]
            if len(held) < a_cap[a]:
                held.append(p)
                held.sort(key=rank[a].get)
                break
            if rank[a][p] < rank[a][held[-1]]:
                free.append(held[-1])
                held[-1] = p
                held.sort(key=rank[a].get)
                break
    return {(p, a) for a, held in kept.items() for p in held}


# --------------------------------------------------------------------------
# capacities of every dtype and size (finding 1)
# --------------------------------------------------------------------------

INTEGER_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
CAPACITY_DTYPES = INTEGER_DTYPES + ["float32", "float64", "Int64", "UInt64", "object"]


def large_capacities(dtype: str) -> list:
    """Values near the top of a dtype's range (and the sizes the audit used)."""
    if dtype in INTEGER_DTYPES:
        top = int(np.iinfo(dtype).max)
        return [top, top - 1, top // 2 + 1]
    if dtype == "float32":
        return [float(np.finfo(np.float32).max), 2.0**63, 2.0**64, 1e20, 2.0**24]
    if dtype == "float64":
        return [float(np.finfo(np.float64).max), 2.0**63, 2.0**64, 1e20, 2.0**53 + 2]
    if dtype == "Int64":
        return [2**63 - 1, 2**62]
    if dtype == "UInt64":
        return [2**64 - 1, 2**63]
    return [2**64 - 1, 2**64, 2**100, 10**30, 7]  # object: Python ints of any size


@st.composite
def capacity_vectors(draw, people):
    """(argument Series indexed by person, {person: exact Python int}): small
    values that bind, mixed with huge ones that must mean "unbounded"."""
    dtype = draw(st.sampled_from(CAPACITY_DTYPES))
    small = st.integers(0, 4)
    big = st.sampled_from(large_capacities(dtype))
    values = [draw(st.one_of(small, small, big)) for _ in people]
    series = pd.Series(values, index=list(people), dtype=dtype)
    exact = {p: int(v) for p, v in zip(people, series.tolist())}
    return series, exact


@st.composite
def one_capacity(draw):
    """A scalar capacity of any type: (argument, exact Python int)."""
    dtype = draw(st.sampled_from(INTEGER_DTYPES + ["float32", "float64", "python"]))
    if dtype == "python":
        value = draw(st.one_of(st.integers(0, 4), st.sampled_from([2**63, 2**64 - 1, 2**100])))
        return value, value
    value = draw(st.one_of(st.integers(0, 4), st.sampled_from(large_capacities(dtype))))
    scalar = np.dtype(dtype).type(value)
    return scalar, int(scalar)


@st.composite
def graphs_and_capacities(draw):
    edges = draw(edge_frames(max_vertices=12, max_edges=30))
    vertices = sorted(set(edges["src"]) | set(edges["dst"]))
    form = draw(st.sampled_from(["series", "frame", "scalar"]))
    if form == "scalar":
        b, value = draw(one_capacity())
        return edges, b, {v: value for v in vertices}
    series, exact = draw(capacity_vectors(vertices))
    return edges, _frame_capacities(series) if form == "frame" else series, exact


def _frame_capacities(series):
    """A ``vertex | b`` frame with the Series' own dtype (to_numpy loses nullable ones)."""
    return pd.DataFrame({"vertex": series.index, "b": series.reset_index(drop=True)})


@pytest.mark.parametrize("dtype", CAPACITY_DTYPES)
def test_b_suitor_capacities_of_every_dtype_equal_the_greedy_reference(dtype):
    """Finding 1: uint64 2**64 - 1, floats >= 2**63 and 1e20 wrapped to negative
    int64 (empty or wrong matchings, heap corruption, endless loops)."""
    edges = cm.datasets.load("lesmis")
    ids = sorted(set(edges["src"]) | set(edges["dst"]))
    rng = random.Random(dtype)
    values = [rng.choice([0, 1, 2, 3] + large_capacities(dtype)) for _ in ids]
    b = pd.Series(values, index=ids, dtype=dtype)
    exact = dict(zip(ids, (int(v) for v in b.tolist())))
    expected = exact_greedy_b_matching(edges["src"], edges["dst"], edges["weight"], exact)
    for argument in (b, _frame_capacities(b)):
        result = cm.b_suitor_matching(edges, b=argument, **CPU)
        assert sorted(zip(result["src"], result["dst"])) == expected


@pytest.mark.parametrize("b", [2**63, 2**64 - 1, 2**100, np.uint64(2**64 - 1), np.int64(2**63 - 1),
                               1e20, 2.0**63, np.float32(3e38)])
def test_any_capacity_at_or_above_the_degree_is_unbounded(b):
    edges = cm.datasets.load("karate")
    unbounded = cm.b_suitor_matching(edges, b=34, **CPU)
    pd.testing.assert_frame_equal(cm.b_suitor_matching(edges, b=b, **CPU), unbounded)
    everyone = sorted(set(edges["src"]) | set(edges["dst"]))
    assert len(unbounded) == len(edges)  # b >= degree everywhere: every edge is taken
    series = pd.Series([b] * len(everyone), index=everyone)
    pd.testing.assert_frame_equal(cm.b_suitor_matching(edges, b=series, **CPU), unbounded)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=graphs_and_capacities())
def test_fuzz_b_suitor_capacities_equal_the_greedy_reference(case):
    edges, b, exact = case
    result = cm.b_suitor_matching(edges, b=b, **CPU)
    expected = exact_greedy_b_matching(edges["src"].tolist(), edges["dst"].tolist(),
                                       edges["weight"].tolist(), exact)
    assert sorted(zip(result["src"], result["dst"])) == expected


@st.composite
def marriages_and_capacities(draw):
    P, A, pp, ap = draw(instances(max_people=6))
    caps = []
    for people in (P, A):
        if draw(st.booleans()):
            value, exact = draw(one_capacity())
            caps.append((value, {p: exact for p in people}))
        else:
            caps.append(draw(capacity_vectors(list(people))))
    return P, A, pp, ap, caps


@settings(max_examples=FUZZ_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=marriages_and_capacities(), algorithm=st.sampled_from(["mcvitie_wilson",
                                                                  "gale_shapley"]))
def test_fuzz_b_marriage_capacities_equal_the_capacitated_reference(case, algorithm):
    P, A, pp, ap, ((p_arg, p_cap), (a_arg, a_cap)) = case
    result = cm.b_marriage(pp, ap, proposer_capacity=p_arg, acceptor_capacity=a_arg,
                           algorithm=algorithm, **CPU)
    pairs = set(zip(result["proposer"].tolist(), result["acceptor"].tolist()))
    assert pairs == capacitated_deferred_acceptance(P, A, p_cap, a_cap)
    assert cm.blocking_pairs(pp, ap, result, proposer_capacity=p_arg,
                             acceptor_capacity=a_arg, **CPU).empty
    assert oracle_blocking_pairs(P, A, pairs, p_cap, a_cap) == []


def test_the_audit_hangs_and_crashes_end_in_a_subprocess():
    """The audit's hangs (McVitie-Wilson on a 2x2 instance, b-Suitor with 1e20
    capacities) and crashes, each in a fresh interpreter with a time limit,
    so that a regression fails here instead of hanging the suite."""
    script = """
import numpy as np, pandas as pd, cugraph_match as cm
men = pd.DataFrame({"proposer": [0, 0, 1, 1], "acceptor": [0, 1, 0, 1], "rank": [1, 2, 1, 2]})
women = pd.DataFrame({"acceptor": [0, 0, 1, 1], "proposer": [0, 1, 0, 1], "rank": [1, 2, 1, 2]})
top = pd.Series(np.full(2, 2**64 - 1, dtype=np.uint64))
for algorithm in ("mcvitie_wilson", "gale_shapley"):
    out = cm.b_marriage(men, women, proposer_capacity=top, acceptor_capacity=top,
                        algorithm=algorithm, backend="cpu")
    assert len(out) == 4, out
frame = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3], "weight": [4., 3., 2., 1.]})
for b in (pd.Series([1e20] * 4), pd.Series([2.0**63] * 4),
          pd.Series(np.full(4, 2**64 - 1, dtype=np.uint64))):
    assert len(cm.b_suitor_matching(frame, b=b, backend="cpu")) == 4
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=240, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


@pytest.mark.parametrize("make,error,message", [
    (lambda: pd.Series([1.0, np.inf, 1.0, 1.0]), ValueError,
     r"b Series: 1 infinite capacity value\(s\).*first is for vertex 1"),
    (lambda: pd.Series([1.0, 2.0, 0.5, 1.0]), TypeError,
     r"b Series: 1 capacity value\(s\) are not integers; first is for vertex 2"),
    (lambda: pd.Series([1, 2, -3, -1], dtype="int8"), ValueError,
     r"b Series: 2 negative capacity value\(s\); first is for vertex 2"),
    (lambda: pd.Series([1, 2**70, -1, 3], dtype=object), ValueError,
     r"b Series: 1 negative capacity value\(s\); first is for vertex 2"),
    (lambda: pd.Series([1, 2, True, 3], dtype=object), TypeError,
     r"1 capacity value\(s\) are not integers; first is for vertex 2"),
    (lambda: pd.Series([1, None, 2, 3], dtype="UInt64"), ValueError,
     r"b Series: 1 null capacity value\(s\); first is for vertex 1"),
    (lambda: -1.0, ValueError, "b must be non-negative, got -1.0"),
    (lambda: float("nan"), TypeError, "b must be an integer"),
    (lambda: np.float32(2.5), TypeError, "b must be an integer"),
])
def test_bad_capacities_name_the_argument_count_and_first(make, error, message):
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 2.0, 3.0]})
    with pytest.raises(error, match=message):
        cm.b_suitor_matching(edges, b=make(), **CPU)


@pytest.mark.parametrize("capacity,error,message", [
    (np.uint64(2**64 - 1), None, None),
    (2**63, None, None),
    (1e20, None, None),
    (pd.Series([2**64 - 1, 1], index=[1, 2], dtype="uint64"), None, None),
    (pd.Series([np.inf, 1.0], index=[1, 2]), ValueError,
     r"acceptor_capacity: 1 infinite capacity value\(s\).*first is row 0 \(acceptor=1"),
    (pd.Series([-1, 1], index=[1, 2], dtype=object), ValueError,
     r"acceptor_capacity: 1 negative capacity value\(s\); first is row 0"),
])
def test_marriage_capacities_of_any_size(capacity, error, message):
    men = pd.DataFrame({"proposer": [1, 1, 2, 2], "acceptor": [1, 2, 1, 2], "rank": [1, 2, 1, 2]})
    women = pd.DataFrame({"acceptor": [1, 1, 2, 2], "proposer": [1, 2, 1, 2], "rank": [2, 1, 1, 2]})
    if error is not None:
        with pytest.raises(error, match=message):
            cm.b_marriage(men, women, acceptor_capacity=capacity, **CPU)
        with pytest.raises(error, match=message):
            cm.blocking_pairs(men, women, men.iloc[:0][["proposer", "acceptor"]],
                              acceptor_capacity=capacity, **CPU)
        return
    out = cm.b_marriage(men, women, acceptor_capacity=capacity, **CPU)
    # every proposer takes his first choice: acceptor 1 keeps both
    assert sorted(zip(out["proposer"], out["acceptor"])) == [(1, 1), (2, 1)]
    assert cm.blocking_pairs(men, women, out, acceptor_capacity=capacity, **CPU).empty


# --------------------------------------------------------------------------
# integer weights near 2**53, 2**63 and 2**64 (finding 2)
# --------------------------------------------------------------------------

MATCHINGS = {"suitor": cm.suitor_matching, "locally_dominant": cm.locally_dominant_matching}


def _pairs_of_matching(frame):
    return sorted((v, m) for v, m in zip(frame["vertex"], frame["mate"])
                  if not pd.isna(m) and v < m)


@st.composite
def integer_weight_graphs(draw):
    """Edges whose integer weights differ only in their last bits near 2**53,
    2**63 or 2**64 (ties included), in int64 or uint64."""
    top, dtype = draw(st.sampled_from([(2**53, "int64"), (2**63 - 1, "int64"),
                                       (2**64 - 1, "uint64"), (2**53, "uint64")]))
    n = draw(st.integers(2, 9))
    m = draw(st.integers(1, 20))
    src = [draw(st.integers(0, n - 1)) for _ in range(m)]
    dst = [draw(st.integers(0, n - 1)) for _ in range(m)]
    weight = [top - draw(st.integers(0, 3)) for _ in range(m)]
    return pd.DataFrame({"src": src, "dst": dst, "weight": np.array(weight, dtype=dtype)})


@settings(max_examples=examples(60), deadline=None)
@given(edges=integer_weight_graphs(), b=st.integers(1, 3))
def test_integer_weights_near_the_top_of_their_dtype_order_exactly(edges, b):
    """Finding 2: int64/uint64 weights went through float64, so weights a few
    units apart above 2**53 tied, and the greedy order broke."""
    src, dst = edges["src"].tolist(), edges["dst"].tolist()
    weight = [int(w) for w in edges["weight"].tolist()]
    vertices = set(src) | set(dst)
    for name, f in MATCHINGS.items():
        expected = exact_greedy_b_matching(src, dst, weight, {v: 1 for v in vertices})
        assert _pairs_of_matching(f(edges, **CPU)) == expected, name
    expected = exact_greedy_b_matching(src, dst, weight, {v: b for v in vertices})
    result = cm.b_suitor_matching(edges, b=b, **CPU)
    assert sorted(zip(result["src"], result["dst"])) == expected
    assert result["weight"].dtype == np.float64  # reported as float64 (documented)


def test_uint64_weights_at_the_top_of_the_range():
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
                          "weight": np.array([2**64 - 2, 2**64 - 1, 2**64 - 2], dtype=np.uint64)})
    for f in MATCHINGS.values():
        result = f(edges, **CPU)
        assert result["mate"].isna().tolist() == [True, False, False, True]
        assert result["weight"].dtype == "Float64"
        assert cm.is_matching(edges, result, maximal=True)
    assert cm.b_suitor_matching(edges, b=1, **CPU)[["src", "dst"]].values.tolist() == [[1, 2]]
    # NetworkX integer attributes past 2**63 - 1 come in as uint64, still exact
    graph = nx.Graph([(0, 1, {"weight": 2**64 - 2}), (1, 2, {"weight": 2**64 - 1})])
    assert cm.suitor_matching(graph, **CPU)["mate"].tolist()[1] == 2


def test_object_weight_columns_keep_integers_exact():
    """Python ints in an object column went through float64 (ties past 2**53)."""
    def frame(weights):
        return pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
                             "weight": pd.Series(weights, dtype=object)})

    for top in (2**53, 2**63 - 1, 2**64 - 1):
        weights = [top - 1, top, top - 1]  # the middle edge is the heaviest, by one unit
        for f in MATCHINGS.values():
            result = f(frame(weights), **CPU)
            assert result["mate"].isna().tolist() == [True, False, False, True], top
    # floats beside small integers are read as float64, as before
    assert cm.suitor_matching(frame([1.5, 2, 1]), **CPU)["mate"].tolist()[1] == 2
    with pytest.raises(TypeError, match=r"weight column 'weight' mixes floats with 1 integer "
                                        r"weight\(s\) beyond 2\*\*53.*first is row 1"):
        cm.suitor_matching(frame([1.5, 2**53 + 1, 1]), **CPU)
    with pytest.raises(TypeError, match=r"1 integer weight\(s\) outside the 64-bit range.*"
                                        r"first is row 2"):
        cm.suitor_matching(frame([1, 2, 2**64]), **CPU)
    with pytest.raises(ValueError, match=r"1 zero or negative value\(s\).*first is row 0"):
        cm.suitor_matching(frame([-1, 2**63, 1]), **CPU)
    # a NetworkX attribute past 2**64 - 1 reaches the same check
    with pytest.raises(TypeError, match="outside the 64-bit range"):
        cm.suitor_matching(nx.Graph([(0, 1, {"weight": 2**64}), (1, 2, {"weight": 1})]), **CPU)


@pytest.mark.cudasim
def test_integer_weights_order_exactly_on_the_gpu_path():
    """The device pipeline (edge keys from the integer weights) in the simulator."""
    for top, dtype in ((2**64 - 1, np.uint64), (2**53 + 3, np.int64)):
        edges = pd.DataFrame({"src": [0, 1, 2, 3, 0], "dst": [1, 2, 3, 4, 4],
                              "weight": np.array([top - 1, top, top - 1, top - 2, top],
                                                 dtype=dtype)})
        weight = [int(w) for w in edges["weight"]]
        vertices = range(5)
        expected = exact_greedy_b_matching(edges["src"], edges["dst"], weight,
                                           {v: 1 for v in vertices})
        for f in MATCHINGS.values():
            assert _pairs_of_matching(f(edges, backend="gpu", threads_per_block=64)) == expected
        expected = exact_greedy_b_matching(edges["src"], edges["dst"], weight,
                                           {v: 2 for v in vertices})
        result = cm.b_suitor_matching(edges, b=2, backend="gpu", threads_per_block=32)
        assert sorted(zip(result["src"], result["dst"])) == expected


@pytest.mark.cudasim
def test_b_suitor_kernel_with_capacities_of_any_size():
    """Finding 1 on the GPU path: clipped capacities reach the slot and heap kernels."""
    edges = cm.datasets.load("karate")
    ids = sorted(set(edges["src"]) | set(edges["dst"]))
    b = pd.Series(np.where(np.arange(len(ids)) % 3 == 0, 2**64 - 1, 2).astype(np.uint64),
                  index=ids)
    exact = {v: int(c) for v, c in b.items()}
    expected = exact_greedy_b_matching(edges["src"], edges["dst"], [1] * len(edges), exact)
    for heap_above in (0, 32):
        result = cm.b_suitor_matching(edges, b=b, backend="gpu", heap_above=heap_above,
                                      threads_per_block=64)
        assert sorted(zip(result["src"], result["dst"])) == expected


# --------------------------------------------------------------------------
# SciPy duplicates (finding 3)
# --------------------------------------------------------------------------


@st.composite
def coo_with_duplicates(draw):
    n = draw(st.integers(2, 8))
    m = draw(st.integers(1, 25))
    rows = [draw(st.integers(0, n - 1)) for _ in range(m)]
    cols = [draw(st.integers(0, n - 1)) for _ in range(m)]
    data = [draw(st.sampled_from([0.5, 1.0, 1.5, 2.0])) for _ in range(m)]
    repeats = draw(st.integers(1, 4))  # repeat some entries verbatim
    for i in range(repeats):
        rows.append(rows[i % m])
        cols.append(cols[i % m])
        data.append(data[i % m])
    return sp.coo_matrix((np.array(data), (np.array(rows), np.array(cols))), shape=(n, n))


@settings(max_examples=examples(60), deadline=None)
@given(matrix=coo_with_duplicates())
def test_scipy_duplicates_are_summed_in_every_form(matrix):
    """Finding 3: COO duplicates were read as "keep the largest", CSR sums them."""
    stored = matrix.nnz
    summed = matrix.tocsr()  # SciPy's own meaning of the duplicates
    summed.sum_duplicates()
    reference = summed.tocoo()
    frame = pd.DataFrame({"src": reference.row.astype(np.int64),
                          "dst": reference.col.astype(np.int64), "weight": reference.data})
    vertices = range(matrix.shape[0])
    expected = cm.suitor_matching(cm.Graph(frame, vertices=vertices, **CPU))
    # (SciPy's own todok() sums a COO matrix's duplicates in place: it gets a copy)
    forms = (matrix, matrix.tocsr(), matrix.tocsc(), matrix.copy().todok(), sp.coo_array(matrix))
    for form in forms:
        pd.testing.assert_frame_equal(cm.suitor_matching(form, **CPU), expected)
    assert matrix.nnz == stored  # the caller's matrix keeps its duplicates


def test_scipy_duplicate_entries_sum_before_the_undirected_maximum():
    # (0,1) stored twice (1 + 1 = 2) against (1,0) = 1.5 and (1,2) = 1.8: 0-1 wins
    matrix = sp.coo_matrix((np.array([1.0, 1.0, 1.5, 1.8]),
                            (np.array([0, 0, 1, 1]), np.array([1, 1, 0, 2]))), shape=(3, 3))
    result = cm.suitor_matching(matrix, **CPU)
    assert result["mate"].tolist()[:2] == [1, 0]
    assert result["weight"].tolist()[0] == 2.0


# --------------------------------------------------------------------------
# weights near the ends of float64 (finding 4)
# --------------------------------------------------------------------------


def _scaled(frame, exponent):
    return frame.assign(weight=np.ldexp(frame["weight"].to_numpy(np.float64), exponent))


@pytest.mark.parametrize("exponent", [1000, 990, -1000, -1070])
def test_modularity_and_louvain_do_not_depend_on_the_weight_scale(exponent):
    """Finding 4: near 1e308 modularity returned 0.0 and louvain q = nan."""
    edges = cm.datasets.load("lesmis").assign(weight=lambda f: f["weight"].astype(np.float64))
    scaled = _scaled(edges, exponent)
    assert np.isfinite(scaled["weight"]).all() and (scaled["weight"] > 0).all()
    parts, q = cm.louvain(edges, **CPU)
    scaled_parts, scaled_q = cm.louvain(scaled, **CPU)
    pd.testing.assert_frame_equal(scaled_parts, parts)
    assert scaled_q == q  # a power of two rescales exactly
    assert cm.modularity(scaled, parts) == cm.modularity(edges, parts)


def test_modularity_of_the_audit_graph_is_exact():
    # a path of three 1e308 edges, every vertex alone: Q = -(1 + 4 + 4 + 1) / 36
    path = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1e308] * 3})
    singles = pd.DataFrame({"vertex": range(4), "community": range(4)})
    assert cm.modularity(path, singles) == pytest.approx(-10 / 36, rel=1e-12)
    parts, q = cm.louvain(path, **CPU)
    assert np.isfinite(q) and q == pytest.approx(cm.modularity(path, parts), rel=1e-12)


def test_coarsening_that_overflows_float64_is_refused_clearly():
    # 0-2 and 1-3 contracted: 0-3 and 1-2 merge into one coarse edge of 2e308
    square = pd.DataFrame({"src": [0, 0, 1, 1], "dst": [2, 3, 2, 3], "weight": [1e308] * 4})
    matching = pd.DataFrame({"vertex": [0, 1, 2, 3], "mate": [2, 3, 0, 1]})
    with pytest.raises(ValueError, match=r"coarsen: 1 coarse edge weight\(s\) overflow float64"):
        cm.coarsen(square, matching, **CPU)
    halved = square.assign(weight=1e307)
    coarse, _ = cm.coarsen(halved, matching, **CPU)
    assert np.isfinite(coarse["weight"]).all() and coarse["weight"].sum() == pytest.approx(4e307)
    with pytest.raises(ValueError, match="overflow float64"):
        cm.coarsen_hierarchy(square, min_vertices=1, matching="suitor", **CPU)


def test_matching_weight_of_edges_near_1e308():
    edges = pd.DataFrame({"src": [0], "dst": [1], "weight": [1.5e308]})
    assert cm.matching_weight(cm.suitor_matching(edges, **CPU)) == 1.5e308
    # ROMA's report summed each edge twice: inf where the matching weighs 1.7e308
    edges = pd.DataFrame({"src": [0, 2], "dst": [1, 3], "weight": [1.7e308, 1e300]})
    result, info = cm.roma_matching(edges, return_info=True, **CPU)
    assert info.start_weight == info.weight == cm.matching_weight(result)
    assert info.weight == pytest.approx(1.7e308 + 1e300, rel=1e-15)


@pytest.mark.parametrize("dtype,top", [(np.uint64, 2**64 - 1), (np.int64, 2**63 - 1),
                                       ("Int64", 2**63 - 1), ("UInt64", 2**64 - 1)])
def test_matching_weight_of_integer_weights_at_the_top_of_their_dtype(dtype, top):
    """Summed in the weights' dtype, an edge counted twice wrapped: uint64
    2**64 - 1 came out 2**63 - 1 and int64 2**63 - 1 came out -1.0."""
    values = np.array([top, top, 1, 1], dtype=np.uint64 if top > 2**63 else np.int64)
    matching = pd.DataFrame({"vertex": [0, 1, 2, 3], "mate": [1, 0, 3, 2],
                             "weight": pd.Series(values).astype(dtype)})
    assert cm.matching_weight(matching) == float(top) + 1.0


@pytest.mark.cudasim
def test_gpu_louvain_with_weights_near_1e308():
    """The GPU's fixed point scaled by the total degree, which was inf here."""
    edges = cm.datasets.load("karate").assign(weight=1.0)
    parts, q = cm.louvain(edges, backend="gpu")
    huge_parts, huge_q = cm.louvain(edges.assign(weight=2.0**1020), backend="gpu")
    pd.testing.assert_frame_equal(huge_parts, parts)
    assert huge_q == pytest.approx(q, abs=1e-12) and np.isfinite(huge_q)


# --------------------------------------------------------------------------
# messages that name the argument (finding 6)
# --------------------------------------------------------------------------

EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 2.0, 3.0]})


def _twice(frame, column):
    """``frame`` with ``column`` repeated (a frame pandas builds without complaint)."""
    return pd.concat([frame, frame[[column]]], axis=1)


@pytest.mark.parametrize("call,message", [
    (lambda: cm.suitor_matching(_twice(EDGES, "src"), **CPU),
     r"the edge list: column 'src' appears 2 times"),
    (lambda: cm.Graph(_twice(EDGES, "weight"), **CPU), "column 'weight' appears 2 times"),
    (lambda: cm.is_matching(EDGES, _twice(pd.DataFrame({"vertex": range(4), "mate": [1, 0, 3, 2]}),
                                          "mate")), "matching: column 'mate' appears 2 times"),
    (lambda: cm.modularity(EDGES, _twice(pd.DataFrame({"vertex": range(4), "community": 0}),
                                         "vertex")), "partition: column 'vertex' appears 2"),
    (lambda: cm.b_suitor_matching(EDGES, b=_twice(pd.DataFrame({"vertex": range(4), "b": 1}),
                                                  "b"), **CPU), "column 'b' appears 2 times"),
])
def test_duplicate_column_names_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_duplicate_columns_in_preferences_and_capacities():
    men = pd.DataFrame({"proposer": [0], "acceptor": [0], "rank": [1]})
    women = pd.DataFrame({"acceptor": [0], "proposer": [0], "rank": [1]})
    with pytest.raises(ValueError, match="proposer_prefs: column 'rank' appears 2 times"):
        cm.stable_marriage(_twice(men, "rank"), women, **CPU)
    caps = _twice(pd.DataFrame({"acceptor": [0], "capacity": [1]}), "capacity")
    with pytest.raises(ValueError, match="acceptor_capacity: column 'capacity' appears 2"):
        cm.b_marriage(men, women, acceptor_capacity=caps, **CPU)


@pytest.mark.parametrize("seed", [-1, -2**70, 2**64 - 1, np.int64(-5), np.uint64(7)])
def test_seeds_are_any_int_on_every_backend(seed):
    """louvain(seed=-1): the CPU refused what the GPU (no seed use) accepted."""
    karate = cm.datasets.load("karate")
    parts, q = cm.louvain(karate, seed=seed, **CPU)
    assert -0.5 <= q <= 1
    levels = cm.coarsen_hierarchy(karate, min_vertices=5, seed=seed, **CPU)
    assert levels
    men, _ = cm.datasets.stable_marriage_instance(8, seed=seed)
    assert len(men)
    if int(seed) < 0:  # negative seeds are taken modulo 2**64
        again, _ = cm.louvain(karate, seed=int(seed) % 2**64, **CPU)
        pd.testing.assert_frame_equal(again, parts)


@pytest.mark.parametrize("seed", [1.5, "1", None, True, np.float64(2.0)])
def test_seeds_of_another_type_are_refused_everywhere(seed):
    karate = cm.datasets.load("karate")
    calls = [lambda: cm.louvain(karate, seed=seed, **CPU),
             lambda: cm.coarsen_hierarchy(karate, min_vertices=5, seed=seed, **CPU),
             lambda: cm.maximal_matching(karate, seed=seed, **CPU),
             lambda: cm.datasets.stable_marriage_instance(8, seed=seed),
             lambda: cm.datasets.stable_marriage_master_lists(8, seed=seed)]
    for call in calls:
        with pytest.raises(TypeError, match="seed must be an int, got"):
            call()


def test_ids_of_another_type_than_the_graphs_are_named():
    words = pd.DataFrame({"vertex": ["a", "b", "c", "d"], "mate": ["b", "a", None, None]})
    with pytest.raises(TypeError, match="matching column 'vertex': ids of type str cannot be "
                                        "compared with the graph's vertex ids, of type int64"):
        cm.is_matching(EDGES, words)
    with pytest.raises(TypeError, match="ids of type str cannot be compared"):
        cm.coarsen(EDGES, words, **CPU)
    with pytest.raises(TypeError, match="ids of type str cannot be compared"):
        cm.modularity(EDGES, pd.DataFrame({"vertex": ["a", "b", "c", "d"], "community": 0}))


def test_string_weights_in_matching_weight():
    frame = pd.DataFrame({"vertex": [0, 1], "mate": [1, 0], "weight": ["2.5", "2.5"]})
    with pytest.raises(TypeError, match=r"matching column 'weight' has 2 non-numeric "
                                        r"value\(s\); first is '2.5'"):
        cm.matching_weight(frame)
    with pytest.raises(TypeError, match="must be numeric, got dtype bool"):
        cm.matching_weight(frame.assign(weight=[True, True]))


def test_tuple_node_ids_from_a_grid_graph():
    """nx.grid_2d_graph's (row, column) nodes were refused as "mixed types"."""
    grid = nx.grid_2d_graph(3, 4)
    result = cm.suitor_matching(grid, **CPU)
    assert result["vertex"].tolist() == sorted(grid.nodes)
    assert cm.is_matching(grid, result, maximal=True)
    parts, q = cm.louvain(grid, **CPU)
    assert q == pytest.approx(cm.modularity(grid, parts))
    with pytest.raises(TypeError, match=r"mixed types: \['int', 'tuple'\]"):
        cm.suitor_matching(nx.Graph([((0, 1), 2)]), **CPU)


@pytest.mark.parametrize("ranks", [
    [2**53 + 1, 2**53, 2**53, 2**53 + 1],  # Python ints past 2**53
    [2**64 + 1, 2**64, 2**70, 2**70 + 1],  # past 2**64
    [2**53 + 1, 2**53, 0.5, 1],  # ints and floats together
])
def test_object_ranks_keep_their_exact_order(ranks):
    """Ranks past 2**53 went through float64 and were reported as duplicates."""
    men = pd.DataFrame({"proposer": [0, 0, 1, 1], "acceptor": [0, 1, 0, 1],
                        "rank": pd.Series(ranks, dtype=object)})
    women = pd.DataFrame({"acceptor": [0, 0, 1, 1], "proposer": [0, 1, 0, 1], "rank": [1, 2, 1, 2]})
    dense = [1 if ranks[0] < ranks[1] else 2, 2 if ranks[0] < ranks[1] else 1,
             1 if ranks[2] < ranks[3] else 2, 2 if ranks[2] < ranks[3] else 1]
    pd.testing.assert_frame_equal(cm.stable_marriage(men, women, **CPU),
                                  cm.stable_marriage(men.assign(rank=dense), women, **CPU))
    assert cm.blocking_pairs(men, women, cm.stable_marriage(men, women, **CPU), **CPU).empty


@pytest.mark.parametrize("function", ["stable_marriage", "b_marriage", "popular_matching"])
@pytest.mark.parametrize("kwargs,error,message", [
    ({"threads_per_block": "x"}, TypeError, "threads_per_block must be an int, got 'x'"),
    ({"threads_per_block": 48}, ValueError, "threads_per_block must be a multiple of 32"),
    ({"solo_entries": -1}, ValueError, "solo_entries must be non-negative, got -1"),
    ({"solo_entries": 2.5}, TypeError, "solo_entries must be an int, got 2.5"),
])
def test_marriage_launch_arguments_are_checked_at_the_boundary(function, kwargs, error, message):
    """The GPU launch arguments were checked only on the GPU, at the launch."""
    men = pd.DataFrame({"proposer": [0], "acceptor": [0], "rank": [1]})
    women = pd.DataFrame({"acceptor": [0], "proposer": [0], "rank": [1]})
    with pytest.raises(error, match=message):
        getattr(cm, function)(men, women, **kwargs, **CPU)
    with pytest.raises(error, match=message):
        cm.stable_marriage_master_lists(np.array([0]), np.array([0]), **kwargs, **CPU)


# --------------------------------------------------------------------------
# smaller contract points (finding 7)
# --------------------------------------------------------------------------


def test_categorical_ids_are_ordered_by_value():
    """Categorical ids were ordered by category order, unlike the same ids in a
    plain column (or in a second column with other categories)."""
    plain = pd.DataFrame({"src": ["b", "a", "c"], "dst": ["c", "b", "a"]})
    categorical = plain.assign(src=pd.Categorical(plain["src"], categories=["c", "b", "a"]),
                               dst=pd.Categorical(plain["dst"], categories=["b", "a", "c"]))
    expected = cm.suitor_matching(plain, **CPU)
    result = cm.suitor_matching(categorical, **CPU)
    assert result["vertex"].tolist() == ["a", "b", "c"]
    assert result["mate"].tolist() == expected["mate"].tolist()
    assert cm.is_matching(plain, result.assign(vertex=pd.Categorical(result["vertex"])))
    ints = pd.DataFrame({"src": pd.Categorical([30, 10]), "dst": pd.Categorical([20, 20])})
    assert cm.suitor_matching(ints, **CPU)["vertex"].tolist() == [10, 20, 30]


def test_a_vertex_matched_to_itself_is_not_a_matching_anywhere():
    """coarsen accepted the frame is_matching refused."""
    itself = pd.DataFrame({"vertex": [0, 1, 2, 3], "mate": [0, None, 3, 2]})
    assert not cm.is_matching(EDGES, itself)
    with pytest.raises(ValueError, match=r"matching pairs 1 vertex/vertices with themselves; "
                                         r"first is 0"):
        cm.coarsen(EDGES, itself, **CPU)


# --------------------------------------------------------------------------
# NaN in Arrow-backed float columns; float16, longdouble and big-endian
# dtypes; integer ids past 2**53 beside float ids (review findings)
# --------------------------------------------------------------------------

def _arrow_frame(weight, src=(0, 0, 1, 2), dst=(1, 2, 2, 3)):
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"src": list(src), "dst": pa.array(list(dst)),
                      "weight": pa.array(weight, from_pandas=False)})
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def test_nan_in_an_arrow_float_weight_column_is_refused(tmp_path):
    """A NaN (a value, not a null, in Arrow) passed isna() and was matched."""
    e = _arrow_frame([np.nan, 3.0, 2.0, 1.0])
    numpy_message = None
    try:
        cm.suitor_matching(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3],
                                         "weight": [np.nan, 3.0, 2.0, 1.0]}), **CPU)
    except ValueError as err:
        numpy_message = str(err)
    assert numpy_message is not None and "1 null/NaN value(s); first is row 0" in numpy_message
    for frame in (e, e.astype({"weight": "Float64"})):
        with pytest.raises(ValueError, match=r"weight column 'weight' has 1 null/NaN value\(s\); "
                                             r"first is row 0 "):
            cm.suitor_matching(frame, **CPU)
        with pytest.raises(ValueError, match="null/NaN"):
            cm.Graph(frame, backend="cpu")
    path = tmp_path / "e.parquet"
    e.to_parquet(path)
    read = pd.read_parquet(path, dtype_backend="pyarrow")
    with pytest.raises(ValueError, match=r"has 1 null/NaN value\(s\); first is row 0 "):
        cm.suitor_matching(read, **CPU)
    # a null beside a NaN: both counted, the first named
    pa = pytest.importorskip("pyarrow")
    both = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3],
                         "weight": pd.array(pa.array([1.0, None, 2.0, np.nan],
                                                     from_pandas=False),
                                            dtype=pd.ArrowDtype(pa.float64()))})
    with pytest.raises(ValueError, match=r"has 2 null/NaN value\(s\); first is row 1 "):
        cm.suitor_matching(both, **CPU)
    # a clean Arrow frame still works, and its input is left as it was
    good = _arrow_frame([4.0, 3.0, 2.0, 1.0])
    before = good.copy()
    assert cm.suitor_matching(good, **CPU)["mate"].tolist() == [1, 0, 3, 2]
    pd.testing.assert_frame_equal(good, before)


def test_nan_in_an_arrow_float_id_column_is_refused():
    pa = pytest.importorskip("pyarrow")
    e = pd.DataFrame({"src": pd.array(pa.array([0.0, np.nan, 1.0], from_pandas=False),
                                      dtype=pd.ArrowDtype(pa.float64())),
                      "dst": [1.0, 2.0, 2.0]})
    with pytest.raises(ValueError, match=r"column 'src' has 1 null vertex id\(s\); first is row 1"):
        cm.suitor_matching(e, **CPU)


ODD_WEIGHT_DTYPES = [np.float16, np.longdouble, ">f8", ">f4", ">i8", ">i4", ">u8"]


@pytest.mark.parametrize("dtype", ODD_WEIGHT_DTYPES, ids=str)
def test_odd_weight_dtypes_give_the_plain_result(dtype):
    """float16, longdouble and big-endian weights crashed inside numba."""
    src, dst, w = [0, 0, 1, 2, 3, 4], [1, 2, 2, 3, 4, 0], [4, 3, 2, 1, 5, 2]
    plain_dtype = np.float64 if np.dtype(dtype).kind == "f" else np.int64
    ref = pd.DataFrame({"src": src, "dst": dst, "weight": np.array(w, dtype=plain_dtype)})
    odd = pd.DataFrame({"src": src, "dst": dst, "weight": np.array(w, dtype=dtype)})
    before = odd.copy()
    for f in (lambda g: cm.suitor_matching(g, **CPU),
              lambda g: cm.b_suitor_matching(g, 2, **CPU),
              lambda g: cm.louvain(g, **CPU)):
        expected, got = f(ref), f(odd)
        if isinstance(expected, tuple):
            expected, got = expected[0], got[0]
        pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    part = cm.louvain(ref, **CPU)
    part = part[0] if isinstance(part, tuple) else part
    assert cm.modularity(odd, part) == pytest.approx(cm.modularity(ref, part))
    matching = cm.suitor_matching(ref, **CPU)
    assert cm.is_matching(odd, matching) and cm.is_matching(ref, matching)
    assert cm.Graph(odd, backend="cpu").num_edges == cm.Graph(ref, backend="cpu").num_edges
    pd.testing.assert_frame_equal(odd, before)  # the caller's frame is untouched
    assert odd["weight"].dtype == np.dtype(dtype)
    # bad values are still named in these dtypes
    bad = odd.copy()
    bad.loc[3, "weight"] = 0
    with pytest.raises(ValueError, match=r"1 zero or negative value\(s\).*first is row 3"):
        cm.suitor_matching(bad, **CPU)


@pytest.mark.parametrize("dtype", [">i8", ">i4", ">u8", np.float16, np.longdouble, ">f8"],
                         ids=str)
def test_odd_id_dtypes_give_the_plain_result(dtype):
    src, dst, w = [0, 0, 1, 2, 3, 4], [1, 2, 2, 3, 4, 0], [4.0, 3.0, 2.0, 1.0, 5.0, 2.0]
    plain_dtype = np.float64 if np.dtype(dtype).kind == "f" else np.int64
    ref = pd.DataFrame({"src": np.array(src, dtype=plain_dtype),
                        "dst": np.array(dst, dtype=plain_dtype), "weight": w})
    odd = pd.DataFrame({"src": np.array(src, dtype=dtype), "dst": np.array(dst, dtype=dtype),
                        "weight": w})
    before = odd.copy()
    expected, got = cm.suitor_matching(ref, **CPU), cm.suitor_matching(odd, **CPU)
    assert got["vertex"].tolist() == expected["vertex"].tolist()
    assert got["mate"].tolist() == expected["mate"].tolist()
    assert cm.is_matching(odd, expected)
    pd.testing.assert_frame_equal(odd, before)


def test_longdouble_ids_that_float64_cannot_hold_are_refused():
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("longdouble is float64 here")
    ids = np.array([2**60, 2**60 + 1], dtype=np.longdouble)
    e = pd.DataFrame({"src": ids, "dst": ids[::-1].copy(), "weight": [1.0, 1.0]})
    with pytest.raises(TypeError, match="not exact as float64"):
        cm.Graph(e, backend="cpu")


def test_integer_ids_past_2_53_beside_float_ids_are_refused():
    """pd.concat promoted int64 ids to float64 and merged 2**53 with 2**53 + 1."""
    big = np.array([2**53, 2**53 + 1], dtype=np.int64)
    e = pd.DataFrame({"src": big, "dst": np.array([1.0, 2.0]), "weight": [1.0, 2.0]})
    before = e.copy()
    with pytest.raises(TypeError, match=r"vertex ids in 'src'/'dst' mix integer ids with float "
                                        r"ids, and 1 integer id\(s\) beyond 2\*\*53 \(first is "
                                        r"9007199254740993\)"):
        cm.suitor_matching(e, **CPU)
    pd.testing.assert_frame_equal(e, before)
    ints = pd.DataFrame({"src": big, "dst": np.array([1, 2]), "weight": [1.0, 2.0]})
    with pytest.raises(TypeError, match="mix integer ids with float ids"):
        cm.Graph(ints, backend="cpu", vertices=[0.5])
    top = pd.DataFrame({"src": np.array([2**64 - 1, 1], dtype=np.uint64),
                        "dst": np.array([0.5, 2.0]), "weight": [1.0, 2.0]})
    with pytest.raises(TypeError, match="first is 18446744073709551615"):
        cm.Graph(top, backend="cpu")
    # integer ids float64 holds exactly (2**54 is) still mix with floats
    exact = pd.DataFrame({"src": np.array([2**54, 2], dtype=np.int64),
                          "dst": np.array([1.0, 2.5]), "weight": [1.0, 2.0]})
    assert cm.Graph(exact, backend="cpu").num_vertices == 4
    assert cm.Graph(ints.assign(src=[3, 4]), backend="cpu", vertices=[0.5]).num_vertices == 5


@pytest.mark.parametrize("stream", ["progress.log", 2, io.BytesIO(), object()])
def test_show_progress_refuses_what_is_not_a_text_stream(stream):
    """A path, a number or a binary file was taken, and every later progress
    line printed a '--- Logging error ---' traceback far from this call."""
    with pytest.raises(TypeError, match="stream must be a text stream"):
        cm.show_progress(stream=stream)
    assert not [h for h in logging.getLogger("cugraph_match").handlers
                if h.get_name() == "cugraph_match.show_progress"]
