"""The two CSR builders (numba on the host, array-module sorts for the GPU) agree."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cugraph_match.structure.core import build_csr, build_csr_sorted


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 30), data=st.data(),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_numba_builder_equals_sorting_builder(n, data, dtype):
    m = data.draw(st.integers(0, 80))
    u = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    v = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 7.25]), min_size=m, max_size=m)),
                 dtype=dtype)
    fast = build_csr(u, v, w, n, np)
    reference = build_csr_sorted(u, v, w, n, np)
    for got, expected in zip(fast, reference):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    offsets, indices, weights = fast
    # symmetric, no self-loops, one entry per pair holding the largest weight
    heaviest = {}
    for a, b, x in zip(u, v, w):
        if a != b:
            key = (min(a, b), max(a, b))
            heaviest[key] = max(heaviest.get(key, 0), x)
    assert offsets[-1] == 2 * len(heaviest)
    for r in range(n):
        for j in range(offsets[r], offsets[r + 1]):
            assert weights[j] == heaviest[(min(r, indices[j]), max(r, indices[j]))]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 40), data=st.data())
def test_mates_from_offers_host_kernel_equals_array_version(n, data):
    from cugraph_match.matching.suitor_cpu import mates_from_offers_cpu
    from cugraph_match.structure.core import mates_from_offers

    suitors = data.draw(st.lists(st.integers(-1, n - 1), min_size=n, max_size=n))
    keys = data.draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    offer = np.array([0 if s < 0 else (k << 32) | s for s, k in zip(suitors, keys)], dtype=np.uint64)
    np.testing.assert_array_equal(mates_from_offers_cpu(offer), mates_from_offers(offer, np))


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_mate_weights_host_kernel_equals_array_version(n, data):
    from cugraph_match.structure.csr_cpu import mate_weights_cpu
    from cugraph_match.structure.core import mate_weights_by_rows

    m = data.draw(st.integers(0, 60))
    u = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    v = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=m, max_size=m)))
    offsets, indices, weights = build_csr(u, v, w, n, np)
    # any symmetric pairing of neighbours will do: pair each vertex with its
    # first free neighbour, greedily
    mate = np.full(n, -1, dtype=np.int64)
    for r in range(n):
        for j in range(offsets[r], offsets[r + 1]):
            if mate[r] < 0 and mate[indices[j]] < 0:
                mate[r], mate[indices[j]] = indices[j], r
    np.testing.assert_array_equal(mate_weights_cpu(offsets, indices, weights, mate),
                                  mate_weights_by_rows(offsets, indices, weights, mate, np))
