"""The streamed worker build (cugraph_match.dask.build) against the
single-machine pipeline it replaces on a worker: the pieces' renumbering and
edge set (packed words or buckets) equal ``renumber`` + ``undirected_edges`` (labels, dtypes,
order, largest duplicate weights, self-loops), and the owned preference rows
equal ``preference_csr``'s rows of the owned vertices, keys included.  No
cluster: these run in the test process."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

from cugraph_match.dask import build
from cugraph_match.structure.csr import preference_csr
from cugraph_match.structure.edges import undirected_edges
from cugraph_match.structure.graph import weight_values
from cugraph_match.structure.renumber import renumber

ID_DTYPES = [np.int8, np.int32, np.int64, np.uint32, np.uint64]
WEIGHT_DTYPES = [np.float32, np.float64, np.int64]


@st.composite
def piece_sets(draw):
    dtype = np.dtype(draw(st.sampled_from(ID_DTYPES)))
    info = np.iinfo(dtype)
    spread = draw(st.sampled_from([1, 1000, 2**20]))  # dense table or sorted union
    low = draw(st.sampled_from([info.min, 0, info.max // 2])) if dtype.kind == "i" else \
        draw(st.sampled_from([0, info.max // 2]))
    count = draw(st.integers(1, 40))
    offsets = draw(st.lists(st.integers(0, count), min_size=2 * 60, max_size=2 * 60))
    m = draw(st.integers(0, 60))
    rows = [min(low + spread * o, int(info.max)) for o in offsets[:2 * m]]
    values = np.array(rows, dtype=object).astype(dtype)
    u, v = values[:m], values[m:2 * m]
    wdtype = np.dtype(draw(st.sampled_from(WEIGHT_DTYPES + [np.uint64])))
    # uint64 weights above 2**63, one apart: float64 cannot tell them apart
    # (a bucket's sort read them as float64 and wrote them back rounded)
    base = 2**63 if wdtype == np.uint64 else 0
    w = np.array([base + x for x in draw(st.lists(st.sampled_from([1, 2, 3]), min_size=m,
                                                  max_size=m))], dtype=object).astype(wdtype)
    cuts = sorted(draw(st.lists(st.integers(0, m), max_size=3)))
    bounds = [0] + cuts + [m]
    weighted = draw(st.booleans())
    pieces = [{"u": u[a:b], "v": v[a:b], "w": w[a:b] if weighted else None}
              for a, b in zip(bounds, bounds[1:])]
    return u, v, w, weighted, pieces


@pytest.mark.parametrize("word_bits", [64, 0], ids=["packed", "buckets"])
@settings(max_examples=examples(60), deadline=None)
@given(case=piece_sets(), split=st.floats(0, 1))
def test_streamed_build_equals_the_single_machine_pipeline(word_bits, case, split):
    """Both ways to the edge set: the packed words, and the buckets (a word
    of 0 bits holds no edge, as 64 bits do not on a large worker)."""
    u, v, w, weighted, pieces = case
    saved = build.PACKED_WORD_BITS
    build.PACKED_WORD_BITS = word_bits
    try:
        labels, edges = build.local_edges(pieces, weighted, "ids")
    finally:
        build.PACKED_WORD_BITS = saved
    assert pieces == []  # consumed
    codes, expected_labels = renumber([pd.Series(u), pd.Series(v)], pd, np, "ids")
    expected = undirected_edges(codes[0], codes[1],
                                weight_values(pd.Series(w), np) if weighted else None,
                                len(expected_labels), np)
    pd.testing.assert_series_equal(labels, expected_labels)
    assert edges.n == expected.n
    for name in ("lo", "hi", "w", "loop"):
        got, want = getattr(edges, name), getattr(expected, name)
        if want is None:
            assert got is None, name
        else:
            assert got.dtype == want.dtype, name
            np.testing.assert_array_equal(got, want, err_msg=name)
    # the owned rows of any range equal the single-machine rows of those vertices
    n = edges.n
    own_lo = int(split * n) // 2
    own_hi = max(own_lo, int(split * n))
    whole = preference_csr(expected, np)
    owner_of = np.repeat(np.arange(3, dtype=np.int32), [own_lo, own_hi - own_lo, n - own_hi])
    pref, keys, _ = build.owned_preference(edges, own_lo, own_hi, owner_of, 3)
    assert keys == expected.num_edges + 1
    for r in range(n):
        got = slice(pref.offsets[r], pref.offsets[r + 1])
        if own_lo <= r < own_hi:
            want = slice(whole.offsets[r], whole.offsets[r + 1])
            np.testing.assert_array_equal(pref.indices[got], whole.indices[want])
            np.testing.assert_array_equal(pref.keys[got], whole.keys[want])
        else:
            assert got.stop == got.start  # ghost rows are empty
    if whole.weight_of_key is None:
        assert pref.weight_of_key is None
    else:
        np.testing.assert_array_equal(pref.weight_of_key, whole.weight_of_key)


@pytest.mark.parametrize("wdtype", [np.float32, np.float64, np.uint64])
def test_packed_edge_set_keeps_the_largest_weight_across_read_ahead_blocks(wdtype):
    """Thousands of rows on a few vertices: every pair repeats many times, and
    its copies fall in different blocks of the walk's read-ahead
    (``build.GATHER_BLOCK`` words), the largest of them anywhere."""
    rng = np.random.default_rng(7)
    m = 5 * build.GATHER_BLOCK + 7
    u = rng.integers(0, 40, size=m)
    v = rng.integers(0, 40, size=m)
    base = 2**63 if wdtype == np.uint64 else 0
    w = np.array([base + int(x) for x in rng.integers(1, 10**6, size=m)],
                 dtype=object).astype(wdtype)
    pieces = [{"u": u[a:a + 3000], "v": v[a:a + 3000], "w": w[a:a + 3000]}
              for a in range(0, m, 3000)]
    labels, edges = build.local_edges(pieces, True, "ids")
    codes, expected_labels = renumber([pd.Series(u), pd.Series(v)], pd, np, "ids")
    expected = undirected_edges(codes[0], codes[1], weight_values(pd.Series(w), np),
                                len(expected_labels), np)
    assert edges.num_edges < m // 10  # the pairs repeat
    for name in ("lo", "hi", "w", "loop"):
        np.testing.assert_array_equal(getattr(edges, name), getattr(expected, name),
                                      err_msg=name)


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_summed_build_adds_parallel_edges_the_same_in_any_piece_order(data):
    """A coarse level's build (``summed``): each undirected pair once with the
    sum of its rows' weights, self-loops summed per vertex, ids renumbered in
    sorted order; the sums are bit-for-bit the same whatever order the pieces
    arrive in (the two owners of a cut edge receive them in different orders)."""
    m = data.draw(st.integers(1, 80))
    ids = st.integers(0, data.draw(st.sampled_from([5, 40, 2**31 - 1])))
    u = np.array(data.draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    v = np.array(data.draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    # weights whose sums round differently in different orders
    w = np.array(data.draw(st.lists(st.sampled_from([1.0, 0.1, 1e-17, 3e16, 0.3]),
                                    min_size=m, max_size=m)))
    cuts = sorted(data.draw(st.lists(st.integers(0, m), max_size=4)))
    bounds = [0] + cuts + [m]
    spans = list(zip(bounds, bounds[1:]))
    results = []
    for order in (spans, spans[::-1], data.draw(st.permutations(spans))):
        pieces = [{"u": u[a:b], "v": v[a:b], "w": w[a:b]} for a, b in order]
        labels, edges = build.local_edges(pieces, True, "ids", summed=True)
        results.append((labels, edges))
    expected_labels = np.unique(np.concatenate([u, v]))
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    frame = pd.DataFrame({"lo": lo, "hi": hi, "w": w})
    pairs = frame[lo != hi].groupby(["hi", "lo"])["w"].agg(lambda s: sorted(s))
    loops = frame[lo == hi].groupby("lo")["w"].agg(lambda s: list(s))
    for labels, edges in results:
        np.testing.assert_array_equal(labels.to_numpy(), expected_labels)
        got_pairs = list(zip(labels.to_numpy()[edges.hi].tolist(),
                             labels.to_numpy()[edges.lo].tolist()))
        assert got_pairs == list(pairs.index)  # sorted by (hi, lo), each pair once
        for got, terms in zip(edges.w.tolist(), pairs):
            assert got == pytest.approx(sum(terms), rel=1e-12)
        if len(loops):
            assert edges.loop is not None
            at = np.searchsorted(expected_labels, loops.index.to_numpy())
            np.testing.assert_allclose(edges.loop[at], [sum(t) for t in loops], rtol=1e-12)
            others = np.setdiff1d(np.arange(edges.n), at)
            assert (edges.loop[others] == 0).all()
        else:
            assert edges.loop is None
    # the same bits in every piece order (the pair sums; the loops live at one owner)
    for _, edges in results[1:]:
        np.testing.assert_array_equal(edges.w, results[0][1].w)


def test_summed_build_refuses_what_it_cannot_sum():
    pieces = [{"u": np.array([0, 1]), "v": np.array([1, 0]), "w": None}]
    with pytest.raises(ValueError, match="need weights"):
        build.local_edges(pieces, False, "ids", summed=True)
    strings = [{"u": pd.Series(["a"]), "v": pd.Series(["b"]), "w": np.array([1.0])}]
    with pytest.raises(ValueError, match="integer ids"):
        build.local_edges(strings, True, "ids", summed=True)


@settings(max_examples=examples(80), deadline=None)
@given(data=st.data())
def test_owner_codes_equal_searchsorted(data):
    """The routing's owner of every id (a count of boundaries at or below it,
    without branches) equals ``np.searchsorted(..., side="right")`` for every
    integer dtype at the ends of its range, boundaries repeated and equal to
    ids, 1 to 40 of them (the linear count up to 16, the search beyond), and
    the narrow code dtype for the worker count."""
    dtype = np.dtype(data.draw(st.sampled_from(ID_DTYPES + [np.int16, np.uint8])))
    info = np.iinfo(dtype)
    value = st.one_of(st.integers(int(info.min), int(info.max)),
                      st.sampled_from([int(info.min), int(info.max), 0 if info.min <= 0 else 1]))
    ids = np.array(data.draw(st.lists(value, max_size=60)), dtype=dtype)
    bounds = np.sort(np.array(data.draw(st.lists(
        st.one_of(value, st.sampled_from(ids.tolist() or [int(info.max)])),
        min_size=1, max_size=40)), dtype=dtype))
    workers = data.draw(st.sampled_from([bounds.shape[0] + 1, 300, 70_000]))
    got = build.owner_codes(pd.Series(ids, dtype=dtype), bounds, workers)
    np.testing.assert_array_equal(got, np.searchsorted(bounds, ids, side="right"))
    assert got.dtype == (np.uint8 if workers <= 256 else np.uint16 if workers <= 65536
                         else np.uint32)


@settings(max_examples=examples(80), deadline=None)
@given(data=st.data())
def test_a_take_is_the_rows_with_an_end_owned_by_the_worker(data):
    """``take_piece``'s one pass per column (every row written, the cursor
    moved past a taken one) equals the mask and gather it replaces, for
    every route code width, integer id and numeric weight dtype (float16,
    which Numba cannot read, and longdouble, wider than its copy, included),
    no rows, no taken rows and every row taken; a column that is not plain
    numbers (strings) goes through the positions, as before."""
    workers = data.draw(st.sampled_from([2, 3, 300, 70_000]))
    code = build.owner_code_dtype(workers)
    rows = data.draw(st.integers(0, 50))
    ou = np.array(data.draw(st.lists(st.integers(0, 2), min_size=rows, max_size=rows)),
                  dtype=code)
    ov = np.array(data.draw(st.lists(st.integers(0, 2), min_size=rows, max_size=rows)),
                  dtype=code)
    k = data.draw(st.integers(0, 2))
    id_dtype = np.dtype(data.draw(st.sampled_from(ID_DTYPES + [np.int16, np.uint16])))
    info = np.iinfo(id_dtype)
    ids = st.integers(int(info.min), int(info.max))
    wdtype = np.dtype(data.draw(st.sampled_from(
        WEIGHT_DTYPES + [np.float16, np.longdouble, np.uint8, np.int16])))
    frame = pd.DataFrame({
        "s": np.array(data.draw(st.lists(ids, min_size=rows, max_size=rows)), dtype=id_dtype),
        "d": np.array(data.draw(st.lists(ids, min_size=rows, max_size=rows)), dtype=id_dtype),
        "w": np.arange(rows).astype(wdtype),
        "name": [f"v{i}" for i in range(rows)]})
    before = frame.copy()
    taken = np.flatnonzero((ou == k) | (ov == k))
    weight = data.draw(st.sampled_from(["w", "name", None]))
    piece = build.take_piece(frame, (ou, ov), k, "s", "d", weight, None)
    np.testing.assert_array_equal(piece["u"], frame["s"].to_numpy()[taken])
    np.testing.assert_array_equal(piece["v"], frame["d"].to_numpy()[taken])
    assert piece["u"].dtype == id_dtype and piece["v"].dtype == id_dtype
    if weight is None:
        assert piece["w"] is None
    elif weight == "w":
        np.testing.assert_array_equal(piece["w"], frame["w"].to_numpy()[taken])
        assert piece["w"].dtype == wdtype
    else:
        assert piece["w"].tolist() == frame["name"].iloc[taken].tolist()
    pd.testing.assert_frame_equal(frame, before)  # the partition is not modified


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_ids_taken_as_offsets_build_the_same_part(data):
    """8-byte ids within 2**32 of the smallest travel as uint32 offsets
    (``offset_base``, ``take_piece(id_base=...)``): each offset is its id
    minus the base, and the pieces build the same labels (dtype included)
    and edge set as the whole ids, also when only some pieces were narrowed
    (a partition whose columns were not plain numbers)."""
    dtype = np.dtype(data.draw(st.sampled_from([np.int64, np.uint64])))
    info = np.iinfo(dtype)
    low = data.draw(st.sampled_from([int(info.min), 0, int(info.max) - 2**32 + 1]
                                    if dtype.kind == "i" else [0, 2**63, int(info.max) - 2**32 + 1]))
    offsets = st.sampled_from([0, 1, 2, 7, 2**31, 2**32 - 1])
    rows = data.draw(st.integers(1, 40))
    frame = pd.DataFrame({
        "s": np.array([low + x for x in data.draw(st.lists(offsets, min_size=rows,
                                                           max_size=rows))], dtype=object)
        .astype(dtype),
        "d": np.array([low + x for x in data.draw(st.lists(offsets, min_size=rows,
                                                           max_size=rows))], dtype=object)
        .astype(dtype),
        "w": np.arange(rows, dtype=np.float64) % 3})
    bounds = [[(int(frame[c].min()), int(frame[c].max())) for c in ("s", "d")]]
    base = build.offset_base(bounds, dtype)
    assert base == min(bounds[0][0][0], bounds[0][1][0])
    ou = np.zeros(rows, dtype=np.uint8)
    ov = np.array(data.draw(st.lists(st.integers(0, 1), min_size=rows, max_size=rows)),
                  dtype=np.uint8)
    before = frame.copy()
    cuts = sorted(data.draw(st.lists(st.integers(0, rows), max_size=3)))
    chunks = [frame.iloc[a:b].reset_index(drop=True)
              for a, b in zip([0] + cuts, cuts + [rows])]
    routes = [(ou[a:b], ov[a:b]) for a, b in zip([0] + cuts, cuts + [rows])]
    whole = [build.take_piece(c, r, 0, "s", "d", "w", None) for c, r in zip(chunks, routes)]
    narrow = [build.take_piece(c, r, 0, "s", "d", "w", None, None, base)
              for c, r in zip(chunks, routes)]
    pd.testing.assert_frame_equal(frame, before)  # the partition is not modified
    for w, n in zip(whole, narrow):
        assert n["u"].dtype == n["v"].dtype == np.uint32 and n["id_base"] == (base, dtype)
        np.testing.assert_array_equal(n["u"], (w["u"].astype(object) - base).astype(np.uint64))
        np.testing.assert_array_equal(n["v"], (w["v"].astype(object) - base).astype(np.uint64))
        # a third less per row: 4 + 4 + 8 bytes against 8 + 8 + 8
        assert 3 * build.piece_nbytes(n) == 2 * build.piece_nbytes(w)
    mixed = [n if i % 2 else dict(w) for i, (w, n) in enumerate(zip(whole, narrow))]
    expected_labels, expected = build.local_edges([dict(w) for w in whole], True, "ids")
    for pieces in (narrow, mixed):
        labels, edges = build.local_edges(pieces, True, "ids")
        pd.testing.assert_series_equal(labels, expected_labels)
        for name in ("lo", "hi", "w", "loop"):
            got, want = getattr(edges, name), getattr(expected, name)
            if want is None:
                assert got is None
            else:
                np.testing.assert_array_equal(got, want, err_msg=name)


def test_offsets_only_for_eight_byte_ids_within_two_to_the_32():
    assert build.offset_base([[(-5, 10), (0, 2**32 - 6)]], np.dtype(np.int64)) == -5
    assert build.offset_base([[(-5, 10), (0, 2**32 - 5)]], np.dtype(np.int64)) is None
    assert build.offset_base([[(0, 10), (0, 10)]], np.dtype(np.int32)) is None
    assert build.offset_base([[(0, 10), None]], np.dtype(np.int64)) is None
    assert build.offset_base([], np.dtype(np.uint64)) is None
    assert build.offset_base([[(0, 1), (0, 1)]], np.dtype(object)) is None
