"""The input pipeline's stages: integer sorts, renumbering, the undirected edge
set, the two row orders and contraction.

Each stage has a host implementation (numba) and an array-module one (the
GPU path, written against ``xp``); here the array-module one runs on NumPy
and both are checked against plain-Python oracles, including vertex counts
past 10**8 and 2**32 where packed pair keys must stay exact.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from cugraph_match.matching.mates import (mate_entries, mate_entries_cpu, mates_from_offers,
                                          mates_from_offers_cpu)
from cugraph_match.structure import csr, edges, renumber, sort_cpu
from cugraph_match.structure.backend import HOST_AS_DEVICE
from cugraph_match.structure.edges import UndirectedEdges, WeightedGraph

# NumPy standing in for CuPy: the builders take their array-module (GPU) path
DEVICE = HOST_AS_DEVICE


# --------------------------------------------------------------------------
# sorting
# --------------------------------------------------------------------------


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), bits=st.integers(1, 64), size=st.integers(0, 300))
def test_sort_with_positions_is_a_stable_sort(data, bits, size):
    top = (1 << bits) - 1
    pool = data.draw(st.lists(st.integers(0, top), min_size=1, max_size=5))
    keys = np.array(data.draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size)),
                    dtype=np.uint64)
    before = keys.copy()
    sorted_keys, positions = sort_cpu.sort_with_positions(keys, bits)
    np.testing.assert_array_equal(keys, before)  # the caller's keys untouched
    expected = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(positions, expected)
    np.testing.assert_array_equal(sorted_keys, keys[expected])


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), bits=st.integers(1, 32), size=st.integers(0, 600))
def test_sort_high_words_orders_by_value_then_place(data, bits, size):
    """Insertion sort up to 32 words, radix passes beyond (odd and even
    numbers of 8-bit digits: the result ends in the words or the scratch);
    ties on purpose; only the first ``size`` words move."""
    top = (1 << bits) - 1
    pool = data.draw(st.lists(st.integers(0, top), min_size=1, max_size=6))
    values = data.draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size))
    words = np.array([(v << 32) | i for i, v in enumerate(values)] + [7, 3], dtype=np.uint64)
    scratch = np.zeros(size + 5, dtype=np.uint64)
    sort_cpu.sort_high_words(words, scratch, size)
    order = sorted(range(size), key=lambda i: (values[i], i))
    assert words[:size].tolist() == [(values[i] << 32) | i for i in order]
    assert words[size:].tolist() == [7, 3]


@pytest.mark.parametrize("overwrite", [False, True])
@pytest.mark.parametrize("n,bits", [(70_000, 60), (70_000, 12), (3, 64)])
def test_radix_path_equals_numpy(n, bits, overwrite):
    # keys too wide to pack beside a position: the radix sort, several chunks
    rng = np.random.default_rng(n + bits)
    keys = rng.integers(0, 2**min(bits, 63), size=n, dtype=np.uint64)
    keys[::7] = keys[0]  # ties across chunks
    given = keys.copy()
    sorted_keys, positions = sort_cpu._radix_sort(given, bits, overwrite)
    expected = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(positions, expected)
    np.testing.assert_array_equal(sorted_keys, keys[expected])
    if not overwrite:
        np.testing.assert_array_equal(given, keys)


@settings(max_examples=examples(40), deadline=None)
@given(digits=st.lists(st.booleans(), min_size=1, max_size=8), seed=st.integers(0, 2**32),
       overwrite_keys=st.booleans(), overwrite_values=st.booleans())
def test_radix_sort_pairs_given_scratch(digits, seed, overwrite_keys, overwrite_values):
    """The keys vary in the bytes drawn (the passes of the radix digits that
    do not vary are skipped, so the result ends in either buffer); arrays given up as
    scratch serve as the second buffer: the sort holds two arrays of each
    kind at most, against three otherwise (tracemalloc counts NumPy's)."""
    import tracemalloc

    n = 300_000
    rng = np.random.default_rng(seed)
    keys = np.zeros(n, dtype=np.uint64)
    for d, varies in enumerate(digits):
        if varies:
            keys |= rng.integers(0, 4, n, dtype=np.uint64) << np.uint64(8 * d)
    keys[::5] = keys[0]
    values = rng.random(n)
    sort_cpu.radix_sort_pairs(keys[:300], values[:300], 64)  # compiled outside the measure
    given_keys, given_values = keys.copy(), values.copy()
    tracemalloc.start()
    try:
        got_keys, got_values = sort_cpu.radix_sort_pairs(
            given_keys, given_values, 8 * len(digits), overwrite_keys=overwrite_keys,
            overwrite_values=overwrite_values)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(got_keys, keys[order])
    np.testing.assert_array_equal(got_values, values[order])
    if not overwrite_keys:
        np.testing.assert_array_equal(given_keys, keys)
    if not overwrite_values:
        np.testing.assert_array_equal(given_values, values)
    # new arrays beyond the caller's: one of each kind when given up, two when not
    new = (1 if overwrite_keys else 2) * keys.nbytes + \
        (1 if overwrite_values else 2) * values.nbytes
    # the digit counts and cursors: well below one more array (2.4 MB)
    assert peak <= new + 1_000_000, (peak, new)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint64, np.int32,
                                   np.uint8])
def test_order_key_orders_like_the_values(dtype):
    rng = np.random.default_rng(1)
    if np.dtype(dtype).kind == "f":
        info = np.finfo(dtype)
        values = np.concatenate([rng.random(50), [info.tiny, info.smallest_subnormal, info.max,
                                                  1.0, 1.0]]).astype(dtype)
        values = values[values > 0]
    else:
        info = np.iinfo(dtype)
        values = np.concatenate([rng.integers(1, info.max, 50, dtype=dtype, endpoint=True),
                                 np.array([1, info.max, info.max], dtype=dtype)])
    keys, bits = sort_cpu.order_key(values)
    assert keys.dtype == np.uint64 and int(keys.max()).bit_length() <= bits
    np.testing.assert_array_equal(np.argsort(keys, kind="stable"),
                                  np.argsort(values, kind="stable"))


# --------------------------------------------------------------------------
# renumbering
# --------------------------------------------------------------------------


def _check_renumber(parts):
    series = [pd.Series(p) for p in parts]
    codes, labels = renumber.renumber(series, pd, np, "ids")
    everything = np.concatenate([np.asarray(p) for p in parts])
    expected_labels = np.unique(everything)
    np.testing.assert_array_equal(labels.to_numpy(), expected_labels)
    assert labels.dtype == series[0].dtype
    for part, code in zip(parts, codes):
        np.testing.assert_array_equal(labels.to_numpy()[code], part)
        assert code.dtype == np.int32


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.uint32, np.int8])
@pytest.mark.parametrize("spread", ["dense", "sparse"])
def test_renumber_integer_ids(dtype, spread):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    if spread == "dense":
        low = max(int(info.min), -50)
        values = rng.integers(low, min(int(info.max), low + 300), size=400)
    else:  # the extremes of the dtype: forces the sorting path
        values = np.concatenate([rng.integers(int(info.min), int(info.max), size=300,
                                              dtype=dtype, endpoint=True),
                                 np.array([info.min, info.max], dtype=dtype)])
    values = values.astype(dtype)
    _check_renumber([values[:150], values[150:], values[::3][:20]])


@pytest.mark.cudasim
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32])
def test_renumber_device_path_equals_host(dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    for span in (500, int(info.max) // 2):
        a = rng.integers(0, span, 300, dtype=dtype) + (info.min if info.min else 0) // 2
        b = rng.integers(0, span, 300, dtype=dtype) + (info.min if info.min else 0) // 2
        host_codes, host_labels = renumber._integer_host([a, b], np.dtype(dtype))
        xp_codes, xp_labels = renumber._integer_xp([a, b], np.dtype(dtype), DEVICE)
        np.testing.assert_array_equal(host_labels, xp_labels)
        for x, y in zip(host_codes, xp_codes):
            np.testing.assert_array_equal(x, y)


def test_renumber_strings_and_mixed():
    codes, labels = renumber.renumber([pd.Series(["b", "a"]), pd.Series(["c", "a"])], pd, np,
                                      "ids")
    assert labels.tolist() == ["a", "b", "c"]
    assert [c.tolist() for c in codes] == [[1, 0], [2, 0]]
    with pytest.raises(TypeError, match="mixed types"):
        renumber.renumber([pd.Series(["a", 1], dtype=object)], pd, np, "ids")


# --------------------------------------------------------------------------
# the undirected edge set
# --------------------------------------------------------------------------


def _oracle_edges(u, v, w):
    best, loops = {}, {}
    for a, b, x in zip(u.tolist(), v.tolist(), w.tolist() if w is not None else [1] * len(u)):
        if a == b:
            loops[a] = max(loops.get(a, 0), x)
        else:
            key = (min(a, b), max(a, b))
            best[key] = max(best.get(key, x), x)
    return best, loops


def _as_dicts(result):
    lo, hi = np.asarray(result.lo).tolist(), np.asarray(result.hi).tolist()
    w = np.asarray(result.w).tolist() if result.w is not None else [1] * len(lo)
    got = dict(zip(zip(lo, hi), w))
    loops = {}
    if result.loop is not None:
        loops = {int(i): float(result.loop[i]) for i in np.flatnonzero(result.loop)}
    return got, loops, list(zip(hi, lo))


def _check_undirected(u, v, w, n, paths=("host",)):
    expected, expected_loops = _oracle_edges(u, v, w)
    for path in paths:
        if path == "host":
            result = edges.undirected_edges(u, v, w, n, np)
        else:
            bits = max(int(n - 1).bit_length(), 1)
            result = edges._undirected_edges_xp(u, v, w, n, bits, DEVICE) if 2 * bits <= 64 \
                else edges._undirected_edges_wide(u, v, w, n, DEVICE)
        got, loops, order = _as_dicts(result)
        assert got == expected, path
        assert loops == expected_loops, path
        assert order == sorted(order), f"{path}: edges not sorted by (hi, lo)"
        if result.w is not None:
            assert result.w.dtype == w.dtype


@st.composite
def edge_rows(draw, max_n=25, max_m=60):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    ids = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    u = np.array(draw(ids), dtype=np.int32)
    v = np.array(draw(ids), dtype=np.int32)
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64, None]))
    w = None
    if dtype is not None:
        w = np.array(draw(st.lists(st.sampled_from([1, 2, 3, 7]), min_size=m, max_size=m)),
                     dtype=dtype)
    return u, v, w, n


@settings(max_examples=examples(200), deadline=None)
@given(rows=edge_rows())
def test_undirected_edges_merge_duplicates_and_set_loops_apart(rows):
    _check_undirected(*rows)


@pytest.mark.cudasim
@settings(max_examples=examples(25), deadline=None)
@given(rows=edge_rows(max_n=12, max_m=30))
def test_undirected_edges_device_path(rows):
    _check_undirected(*rows, paths=("xp",))


@pytest.mark.parametrize("n", [10**8 + 7, 2**32 - 1, 2**32 + 5, 2**40])
def test_undirected_edges_huge_vertex_counts(n):
    # the rows of the issue: (lo, hi), (lo, hi+1), (hi, lo) are two edges, not three
    lo, hi = n - 3, n - 2
    u = np.array([lo, lo, hi, 5, 5, n - 2, 0], dtype=np.int64)
    v = np.array([hi, hi + 1, lo, n - 1, n - 1, n - 1, n - 1], dtype=np.int64)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    _check_undirected(u, v, w, n)
    assert edges.undirected_edges(u, v, w, n, np).num_edges == 5


def _oracle_contract(lo, hi, w, loop, group, k):
    coarse, loops = defaultdict(float), defaultdict(float)
    for a, b, x in zip(lo, hi, w):
        ca, cb = group[a], group[b]
        if ca == cb:
            loops[ca] += x
        else:
            coarse[(min(ca, cb), max(ca, cb))] += x
    for v, x in enumerate(loop):
        loops[group[v]] += x
    return dict(coarse), [loops[c] for c in range(k)]


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), n=st.integers(1, 20), k=st.integers(1, 8))
def test_contract_graph_sums_parallel_edges(data, n, k):
    m = data.draw(st.integers(0, 40))
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               min_size=m, max_size=m))
    pairs = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b},
                   key=lambda p: (p[1], p[0]))
    lo = np.array([p[0] for p in pairs], dtype=np.int64)
    hi = np.array([p[1] for p in pairs], dtype=np.int64)
    w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(pairs),
                                    max_size=len(pairs))), dtype=np.float64)
    loop = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))
    group = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    graph = WeightedGraph(n, lo, hi, w, loop)
    expected, expected_loops = _oracle_contract(lo.tolist(), hi.tolist(), w.tolist(),
                                                loop.tolist(), group.tolist(), k)
    for xp in (np, DEVICE):
        got = edges.contract_graph(graph, group, k, xp)
        assert dict(zip(zip(got.lo.tolist(), got.hi.tolist()), got.w.tolist())) == \
            pytest.approx(expected)
        np.testing.assert_allclose(got.loop, expected_loops)
        order = list(zip(got.hi.tolist(), got.lo.tolist()))
        assert order == sorted(order)


@pytest.mark.parametrize("k", [10**8 + 3, 2**32 - 1, 2**32 + 9, 2**45])
def test_merge_parallel_edges_huge_vertex_counts(k):
    # the rows of the issue again: codes of neighbouring pairs must not collide
    a = np.array([k - 3, k - 3, k - 2, 5, k - 1, 0, 5], dtype=np.int64)
    b = np.array([k - 2, k - 1, k - 3, k - 1, 5, k - 1, k - 1], dtype=np.int64)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    for xp in (np, DEVICE):
        lo, hi, summed = edges.merge_parallel_edges(a, b, w, k, xp)
        assert dict(zip(zip(lo.tolist(), hi.tolist()), summed.tolist())) == {
            (k - 3, k - 2): 4.0, (k - 3, k - 1): 2.0, (5, k - 1): 16.0, (0, k - 1): 6.0}
        assert list(zip(hi.tolist(), lo.tolist())) == sorted(zip(hi.tolist(), lo.tolist()))


@pytest.mark.parametrize("n", [50, 2**32 + 3])
def test_find_edges(n):
    u = np.array([0, 1, 5, 7, n - 1], dtype=np.int64)
    v = np.array([1, 5, 1, 7, 3], dtype=np.int64)
    es = edges.undirected_edges(u, v, None, n, np)
    found, at = edges.find_edges(es, np.array([1, 5, 0, 3, 7]), np.array([0, 1, 5, n - 1, 7]),
                                 np)
    assert found.tolist() == [True, True, False, True, False]
    assert [(int(es.lo[i]), int(es.hi[i])) for i in at[found]] == [(0, 1), (1, 5), (3, n - 1)]


# --------------------------------------------------------------------------
# compressed sparse rows
# --------------------------------------------------------------------------


def _random_edges(data, n, dtype, max_m=60):
    m = data.draw(st.integers(0, max_m))
    ids = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    u = np.array(data.draw(ids), dtype=np.int64)
    v = np.array(data.draw(ids), dtype=np.int64)
    w = None
    if dtype is not None:
        w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 7.25]), min_size=m,
                                        max_size=m)), dtype=dtype)
    return edges.undirected_edges(u, v, w, n, np)




@settings(max_examples=examples(200), deadline=None)
@given(n=st.integers(1, 30), data=st.data(),
       dtype=st.sampled_from([np.float32, np.float64, np.int64, None]))
def test_preference_rows_follow_the_greedy_order(n, data, dtype):
    es = _random_edges(data, n, dtype)
    host = csr.preference_csr(es, np)
    # every row is best first under the greedy order; keys are that order
    w = es.w if es.w is not None else np.ones(es.num_edges)
    rank = {}
    greedy = sorted(range(es.num_edges), key=lambda e: (w[e], es.hi[e], es.lo[e]), reverse=True)
    for place, e in enumerate(greedy):
        rank[(int(es.lo[e]), int(es.hi[e]))] = es.num_edges - place
    for r in range(n):
        row = [(int(host.keys[j]), int(host.indices[j]))
               for j in range(host.offsets[r], host.offsets[r + 1])]
        assert [k for k, _ in row] == sorted((k for k, _ in row), reverse=True)
        for key, nb in row:
            assert rank[(min(r, nb), max(r, nb))] == key
    np.testing.assert_array_equal(csr.greedy_order(es, np), csr.greedy_order(es, DEVICE))


@pytest.mark.cudasim
@settings(max_examples=examples(25), deadline=None)
@given(n=st.integers(1, 14), data=st.data(),
       dtype=st.sampled_from([np.float32, np.float64, np.int64, None]))
def test_preference_rows_device_path_equals_host(n, data, dtype):
    es = _random_edges(data, n, dtype, max_m=30)
    host = csr.preference_csr(es, np)
    device = csr.preference_csr(es, DEVICE)
    for name in ("offsets", "indices", "keys", "weight_of_key"):
        a, b = getattr(host, name), getattr(device, name)
        if a is None:
            assert b is None
            continue
        np.testing.assert_array_equal(a, b, err_msg=name)


@settings(max_examples=examples(150), deadline=None)
@given(n=st.integers(1, 30), data=st.data(), dtype=st.sampled_from([np.float64, None]))
def test_neighbour_rows_are_sorted_by_neighbour(n, data, dtype):
    es = _random_edges(data, n, dtype)
    host = csr.neighbour_csr(es, np)
    for r in range(n):
        row = host.indices[host.offsets[r]:host.offsets[r + 1]].tolist()
        assert row == sorted(row)


@pytest.mark.cudasim
@settings(max_examples=examples(25), deadline=None)
@given(n=st.integers(1, 14), data=st.data(), dtype=st.sampled_from([np.float64, None]))
def test_neighbour_rows_device_path_equals_host(n, data, dtype):
    es = _random_edges(data, n, dtype, max_m=30)
    host = csr.neighbour_csr(es, np)
    device = csr.neighbour_csr(es, DEVICE)
    np.testing.assert_array_equal(host.offsets, device.offsets)
    np.testing.assert_array_equal(host.indices, device.indices)
    if dtype is None:
        assert host.weights is None and device.weights is None
    else:
        np.testing.assert_array_equal(host.weights, device.weights)


def test_too_many_edges_for_keys_is_refused(monkeypatch):
    monkeypatch.setattr(csr, "MAX_KEYED_EDGES", 2)
    es = UndirectedEdges(4, np.array([0, 1, 2]), np.array([1, 2, 3]), None, None)
    with pytest.raises(ValueError, match="at most 2 undirected edges"):
        csr.preference_csr(es, np)


# --------------------------------------------------------------------------
# from kernel state to mates
# --------------------------------------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(n=st.integers(1, 40), data=st.data())
def test_mates_from_offers_host_kernel_equals_array_version(n, data):
    suitors = data.draw(st.lists(st.integers(-1, n - 1), min_size=n, max_size=n))
    keys = data.draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    offer = np.array([0 if s < 0 else (k << 32) | s for s, k in zip(suitors, keys)], dtype=np.uint64)
    np.testing.assert_array_equal(mates_from_offers_cpu(offer), mates_from_offers(offer, np))


@settings(max_examples=examples(100), deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_mate_entries_host_kernel_equals_array_version(n, data):
    es = _random_edges(data, n, np.float64)
    pref = csr.preference_csr(es, np)
    # any symmetric pairing of neighbours will do: pair greedily along the rows
    mate = np.full(n, -1, dtype=np.int64)
    for r in range(n):
        for j in range(pref.offsets[r], pref.offsets[r + 1]):
            if mate[r] < 0 and mate[pref.indices[j]] < 0:
                mate[r], mate[pref.indices[j]] = pref.indices[j], r
    np.testing.assert_array_equal(mate_entries_cpu(pref.offsets, pref.indices, mate),
                                  mate_entries(pref.offsets, pref.indices, mate, DEVICE))


# --------------------------------------------------------------------------
# the prepared graph
# --------------------------------------------------------------------------


def test_graph_is_reused_and_equals_the_frame_path():
    frame = cm.datasets.load("netscience")
    before = frame.copy()
    g = cm.Graph(frame, backend="cpu")
    pd.testing.assert_frame_equal(frame, before)
    for f in (cm.suitor_matching, cm.locally_dominant_matching):
        pd.testing.assert_frame_equal(f(g), f(frame, backend="cpu"))
    pd.testing.assert_frame_equal(cm.b_suitor_matching(g, b=2),
                                  cm.b_suitor_matching(frame, b=2, backend="cpu"))
    pd.testing.assert_frame_equal(cm.maximal_matching(g, seed=3),
                                  cm.maximal_matching(frame, seed=3, backend="cpu"))
    m = cm.suitor_matching(g)
    coarse_g, mapping_g = cm.coarsen(g, m)
    coarse_f, mapping_f = cm.coarsen(frame, m, backend="cpu")
    pd.testing.assert_frame_equal(coarse_g, coarse_f)
    pd.testing.assert_frame_equal(mapping_g, mapping_f)
    parts, q = cm.louvain(g)
    parts_f, q_f = cm.louvain(frame, backend="cpu")
    pd.testing.assert_frame_equal(parts, parts_f)
    assert q == q_f == pytest.approx(cm.modularity(g, parts))
    assert cm.modularity(g, parts) == cm.modularity(frame, parts)
    assert cm.is_matching(g, m) and cm.is_matching(frame, m)
    # the chain read the edges once: its rows were built once and kept
    assert g.preference_csr() is g.preference_csr()
    assert g.weighted_graph() is g.weighted_graph()
    pd.testing.assert_frame_equal(frame, before)


def test_graph_rejects_bad_input_when_built():
    bad = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, -2.0, 1.0]})
    with pytest.raises(ValueError, match=r"weight column 'weight' has 1 zero or negative "
                                         r"value\(s\).*first is row 1"):
        cm.Graph(bad)
    with pytest.raises(ValueError, match="cannot be set for a cm.Graph"):
        cm.suitor_matching(cm.Graph(bad.abs()), weight="w")


def test_graph_view_edge_list_and_repr():
    g = cm.Graph(pd.DataFrame({"src": ["b", "a", "b"], "dst": ["a", "c", "b"]}), backend="cpu")
    assert repr(g) == "Graph(3 vertices, 2 edges, unweighted, backend='cpu')"
    view = g.view_edge_list()
    assert view["src"].tolist() == ["a", "a"] and view["dst"].tolist() == ["b", "c"]
