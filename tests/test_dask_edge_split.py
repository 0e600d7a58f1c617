"""The edge-split layout of the Dask matchings (cugraph_match/dask/edge_split.py):
rows stay on the worker holding them, vertices' offers live at their range
owner, and Suitor runs in rounds of three exchanges.  Its result must be one
machine's frame row for row (which tests/test_matching.py holds to the greedy
oracle), on hypothesis graphs with ties, every id and weight dtype it takes,
1-8 partitions, workers holding no rows, and the shared real graphs; inputs
it does not take go to the vertex layout with the same result."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import PROFILE, examples

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from cugraph_match.structure.progress import Stopwatch
from oracle import SHARED_DATA, greedy_matching, assert_equal_matchings

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

from cugraph_match.dask import edge_split as es  # noqa: E402
from cugraph_match.dask import edge_split_worker as esw  # noqa: E402

NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]


@pytest.fixture(autouse=True)
def edge_layout():
    """Every test here asks for the edge layout (the default is the vertex one)."""
    with dask.config.set({es.LAYOUT_SETTING: "edge"}):
        yield
GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")

#: Id dtypes the layout takes, each with ids near both ends of its range.
ID_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32]
WEIGHT_DTYPES = [np.float32, np.float64, np.int16, np.uint32, None]


@st.composite
def typed_edges(draw):
    """An edge list with ties, repeats, self-loops, and ids of one dtype at
    the ends of its range."""
    id_dtype = draw(st.sampled_from(ID_DTYPES))
    info = np.iinfo(id_dtype)
    n = draw(st.integers(1, 20))
    near = st.one_of(st.integers(int(info.min), int(info.min) + 40),
                     st.integers(int(info.max) - 40, int(info.max)),
                     st.integers(max(int(info.min), -60), min(int(info.max), 60)))
    ids = draw(st.lists(near, min_size=n, max_size=n, unique=True))
    m = draw(st.integers(1, 50))
    pick = st.integers(0, n - 1)
    src = np.array([ids[draw(pick)] for _ in range(m)], dtype=id_dtype)
    dst = np.array([ids[draw(pick)] for _ in range(m)], dtype=id_dtype)
    weight_dtype = draw(st.sampled_from(WEIGHT_DTYPES))
    frame = pd.DataFrame({"src": src, "dst": dst})
    if weight_dtype is not None:
        values = draw(st.lists(st.sampled_from([1, 2, 3, 7]), min_size=m, max_size=m)) \
            if draw(st.booleans()) else \
            draw(st.lists(st.integers(1, 30000), min_size=m, max_size=m))
        frame["weight"] = np.asarray(values).astype(weight_dtype)
        if np.dtype(weight_dtype).kind == "f" and draw(st.booleans()):  # extremes
            big = np.finfo(weight_dtype).max
            frame.loc[frame.index[:2], "weight"] = [big, np.finfo(weight_dtype).tiny][:min(2, m)]
    return frame


def dask_frame(edges, partitions):
    return dd.from_pandas(edges, npartitions=min(partitions, len(edges)), sort=False)


def rows(frame) -> list:
    """A frame's rows with its index, nulls as None (Dask's string dtype
    and one machine's object column hold the same ids)."""
    return [tuple(None if pd.isna(x) else x for x in row) for row in frame.itertuples()]


def matching(frame, **kwargs):
    """``suitor_matching`` of a Dask frame with its stats."""
    return cm.suitor_matching(frame, return_stats=True, **kwargs)


@settings(max_examples=examples(12), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=typed_edges(), partitions=st.integers(1, 8))
def test_equals_the_single_machine_frame(client, edges, partitions):
    single = cm.suitor_matching(edges, backend="cpu")
    got, stats = matching(dask_frame(edges, partitions))
    assert stats["layout"] == "edge"
    pd.testing.assert_frame_equal(got.compute(), single)
    pd.testing.assert_frame_equal(cm.locally_dominant_matching(dask_frame(edges, partitions))
                                  .compute(), single)


@pytest.mark.parametrize("seed", range(3))
def test_ties_everywhere_match_the_greedy_oracle(client, seed):
    """Every weight equal: the order is the ids' alone, and the matching is
    the greedy oracle's; a pair repeated in several partitions (workers)
    with different weights keeps the largest."""
    rng = np.random.default_rng(seed)
    n, m = 40, 300
    edges = pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m),
                          "weight": np.ones(m)})
    edges = pd.concat([edges, edges.assign(weight=np.where(rng.random(m) < 0.3, 2.0, 1.0))],
                      ignore_index=True)
    got, _ = matching(dask_frame(edges, 4))
    got = got.compute()
    assert_equal_matchings(got, greedy_matching(edges["src"], edges["dst"], edges["weight"]))
    pd.testing.assert_frame_equal(got, cm.suitor_matching(edges, backend="cpu"))


@needs_shared
# every shared graph under the thorough profile, every third under CI's (1-4 s each)
@pytest.mark.parametrize("path", GRAPHS if PROFILE == "thorough" else GRAPHS[::3],
                         ids=lambda p: p.stem)
def test_real_graphs(client, path):
    edges, _ = read_graph(path)
    # random float32 weights: with ties only (most of these graphs) the rounds
    # follow the ids' long chains (470 on 4elt), tested on small graphs above
    edges["weight"] = (1.0 - np.random.default_rng(7).random(len(edges))).astype(np.float32)
    single = cm.suitor_matching(edges, backend="cpu")
    got, stats = matching(dask_frame(edges, 5))
    assert stats["layout"] == "edge"
    pd.testing.assert_frame_equal(got.compute(), single)
    # no row moved in the build, only held ids (4 bytes each, uint32 offsets
    # from the smallest id, at most one per held vertex); the rounds' words
    # are bounded by the held entries (a candidate, a proposal, an offer
    # change and an activation per entry at most, each sent once per other
    # worker)
    assert 0 < stats["build"]["build_bytes_moved"] <= 4 * sum(stats["build"]["held_vertices"])
    assert sum(stats["messages_per_round"]) <= 4 * sum(stats["build"]["row_entries"])
    # each round's phases: wall and CPU seconds, every worker's summed
    wall, cpu = stats["round_seconds_summed"], stats["round_cpu_seconds_summed"]
    assert len(wall) == len(cpu) == stats["rounds"]
    assert all(c >= 0 for c in cpu) and sum(cpu) > 0


def test_a_worker_without_rows_still_owns_vertices(client):
    """One partition: one worker holds every row, the other owns half of
    the ids and reports them, in the dtypes one machine returns."""
    edges = pd.DataFrame({"src": np.arange(0, 40, dtype=np.int32),
                          "dst": np.arange(1, 41, dtype=np.int32),
                          "weight": np.arange(40, 0, -1).astype(np.float32)})
    got, stats = matching(dd.from_pandas(edges, npartitions=1))
    assert stats["layout"] == "edge"
    assert min(stats["build"]["held_vertices"]) == 0
    assert min(stats["build"]["owned"]) > 0
    pd.testing.assert_frame_equal(got.compute(), cm.suitor_matching(edges, backend="cpu"))


@pytest.mark.parametrize("edges, reason", [
    (pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"], "weight": [1.0, 2.0]}), "string ids"),
    (pd.DataFrame({"src": np.array([0, 2**63], dtype=np.uint64),
                   "dst": np.array([1, 3], dtype=np.uint64), "weight": [1.0, 2.0]}), "uint64"),
    (pd.DataFrame({"src": [0, 1], "dst": [1, 2],
                   "weight": np.array([2**60 + 1, 2**60], dtype=np.int64)}), "int64 weights"),
    (pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": np.array([1, 2], np.float16)}),
     "float16 weights"),
])
def test_inputs_it_does_not_take_run_on_the_vertex_layout(client, edges, reason):
    got, stats = matching(dask_frame(edges, 2))
    assert stats.get("layout", "vertex") == "vertex", reason
    assert rows(got.compute()) == rows(cm.suitor_matching(edges, backend="cpu"))


def scattered_dense_graph(n: int = 64, degree: int = 20, seed: int = 0) -> pd.DataFrame:
    """Ids at random (a row's ends in different owners' ranges as often as
    scattered ids are), distinct weights, ``degree`` rows per id: the kind of
    edge list ``"auto"`` gives the edge layout."""
    rng = np.random.default_rng(seed)
    m = n * degree
    return pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m),
                         "weight": rng.permutation(m) + 1.0})


def test_the_layout_setting(client):
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 3.0, 1.0]})
    single = cm.suitor_matching(edges, backend="cpu")
    for layout, expected in (("auto", "vertex"), ("edge", "edge"), ("vertex", "vertex")):
        with dask.config.set({es.LAYOUT_SETTING: layout}):
            got, stats = matching(dask_frame(edges, 2))
        assert stats.get("layout", "vertex") == expected, layout
        pd.testing.assert_frame_equal(got.compute(), single)
    dense = scattered_dense_graph()
    for layout, expected in (("auto", "edge"), ("vertex", "vertex")):
        with dask.config.set({es.LAYOUT_SETTING: layout}):
            got, stats = matching(dask_frame(dense, 3))
        assert stats.get("layout", "vertex") == expected, layout
        pd.testing.assert_frame_equal(got.compute(), cm.suitor_matching(dense, backend="cpu"))
    with dask.config.set({es.LAYOUT_SETTING: "edges"}):
        with pytest.raises(ValueError, match="cugraph_match.dask.layout"):
            cm.suitor_matching(dask_frame(edges, 2))


def grid_graph(side: int) -> pd.DataFrame:
    """A side x side grid, ids row by row (neighbours' ids close), distinct weights."""
    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return pd.DataFrame({"src": src, "dst": dst,
                         "weight": np.random.default_rng(1).permutation(len(src)) + 1.0})


@pytest.mark.parametrize("case, expected", [
    ("scattered, dense, distinct weights", "edge"),
    ("listed both ways", "edge"),  # an edge's two rows are one weight, not a tie
    ("ties", "vertex"),            # the rounds would follow the ids' chains
    ("unweighted", "vertex"),      # every edge ties
    ("grid", "vertex"),            # ends in one owner's range: few rows move
    ("sparse", "vertex"),          # 2 rows per id: per-vertex state dominates
])
def test_auto_chooses_the_layout_from_the_sampled_rows(client, case, expected):
    edges = {"scattered, dense, distinct weights": scattered_dense_graph(),
             "listed both ways": pd.concat([scattered_dense_graph(), scattered_dense_graph()
                                            .rename(columns={"src": "dst", "dst": "src"})],
                                           ignore_index=True),
             "ties": scattered_dense_graph().assign(weight=1.0),
             "unweighted": scattered_dense_graph()[["src", "dst"]],
             "grid": grid_graph(24),
             "sparse": scattered_dense_graph(n=400, degree=2)}[case]
    with dask.config.set({es.LAYOUT_SETTING: "auto"}):
        got, stats = matching(dask_frame(edges, 4))
    choice = stats["build"]["layout_choice"]
    assert choice["layout"] == expected == stats.get("layout", "vertex"), (case, choice)
    if case == "grid":
        assert choice["cut"] < 0.3, choice
    if expected == "edge":
        assert choice["cut"] > es.SCATTERED_CUT and choice["distinct_weights"] == 1.0
        assert choice["rows_per_id"] >= es.ROWS_PER_ID
    pd.testing.assert_frame_equal(got.compute(), cm.suitor_matching(edges, backend="cpu"))


def test_one_worker_keeps_the_vertex_layout():
    """The choice needs two owners' ranges to read a cut: the summary that
    gives two workers the edge layout gives one worker the vertex layout,
    and so does a graph with no rows."""
    rows = scattered_dense_graph()  # ids 0..63, 20 rows per id
    summary = {"rows": len(rows), "rows_sample": rows, "bounds": [(0, 63), (0, 63)]}
    two = es.choose_layout([summary], np.array([32]), 2, True)
    assert two["layout"] == "edge" and two["rows_per_id"] == 20.0, two
    assert es.choose_layout([summary], None, 1, True)["layout"] == "vertex"
    assert es.choose_layout([summary], np.array([32]), 2, False)["layout"] == "vertex"
    assert es.choose_layout([{"rows": 0}], np.array([32]), 2, True)["layout"] == "vertex"


@pytest.mark.parametrize("column, value, message", [
    ("weight", np.nan, "NaN"), ("weight", -1.0, "negative"), ("weight", 0.0, "zero"),
])
def test_bad_weights_give_the_single_machine_error(client, column, value, message):
    edges = pd.DataFrame({"src": np.arange(10), "dst": np.arange(1, 11),
                          "weight": np.ones(10)})
    edges.loc[6, column] = value
    with pytest.raises(ValueError) as single:
        cm.suitor_matching(edges, backend="cpu")
    with pytest.raises(ValueError) as distributed_error:
        cm.suitor_matching(dask_frame(edges, 3))
    assert str(distributed_error.value) == str(single.value)
    assert message in str(single.value).lower() or message == "NaN"


def test_rounds_are_logged_at_info(client, caplog):
    edges = pd.DataFrame({"src": range(9), "dst": range(1, 10), "weight": np.arange(1.0, 10)})
    with caplog.at_level(logging.INFO, logger="cugraph_match"):
        _, stats = matching(dask_frame(edges, 2))
    lines = [r.getMessage() for r in caplog.records
             if r.getMessage().startswith("dask edge-split suitor round ")]
    assert len(lines) == stats["rounds"]
    assert lines[0].startswith("dask edge-split suitor round 0: 10 vertices")


def test_words_carry_ids_weights_and_holders_exactly():
    """Ids as uint32 offsets where their range allows (int64 otherwise),
    float32 weights for float32 or unweighted graphs, holders' bits in the
    narrowest unsigned type: each column back exactly as sent."""
    info = np.iinfo(np.int64)
    narrow = esw.Words.choose((-5, 2**32 - 6), np.float32, 4)
    assert (narrow.id_base, narrow.id_dtype, narrow.weight_dtype, narrow.holder_dtype) == \
        (-5, np.uint32, np.float32, np.uint8)
    wide = esw.Words.choose((-5, 2**32 - 5), np.float64, 9)
    assert (wide.id_base, wide.id_dtype, wide.weight_dtype, wide.holder_dtype) == \
        (0, np.int64, np.float64, np.uint16)
    assert esw.Words.choose(None, np.float32, 64).holder_dtype == np.uint64
    assert esw.Words.choose((0, 10), np.int16, 2).weight_dtype == np.float64
    kinds = ("id", "weight", "id", "holders")
    f32 = np.finfo(np.float32)
    for words, ids, weights in [
            (narrow, [-5, 0, 2**31, 2**32 - 6],
             [float(f32.tiny), 1.0, float(np.float32(0.1)), float(f32.max)]),
            (wide, [info.min, -5, 0, info.max], [5e-324, 1.0, 0.1, 1.7976931348623157e308])]:
        holders = np.array([1, 2, 1 << (8 * words.holder_dtype.itemsize - 1), 3], dtype=np.int64)
        columns = (np.array(ids, dtype=np.int64), np.array(weights, dtype=np.float64),
                   np.array(ids[::-1], dtype=np.int64), holders)
        sent = words.send(kinds, columns)
        assert [c.dtype for c in sent] == [words.id_dtype, words.weight_dtype,
                                           words.id_dtype, words.holder_dtype]
        back = words.read(kinds, sent)
        for got, want in zip(back, columns):
            assert got.dtype == want.dtype and np.array_equal(got, want)
        assert [c.dtype for c in words.empty(kinds)] == [c.dtype for c in sent]


@pytest.mark.parametrize("ids, weights, per_word", [
    (np.int32, np.float32, (None, 17)),  # uint32 ids, float32 weights, uint8 holders
    (np.int64, np.float64, (None, 25)),  # R-MAT's ids in a narrow range: uint32 ids
    ("wide", np.float64, (24, None))])  # int64 ids spanning more than 2**32: int64
def test_the_rounds_send_narrow_words(client, ids, weights, per_word):
    """Bytes per message: a candidate, proposal or changed offer is one
    row, an activation 1 id more; with int64 words every row is 24 bytes at
    least, with narrow ones 17 at most (float32) or 25 (float64)."""
    rng = np.random.default_rng(3)
    m = 400
    src, dst = rng.integers(0, 120, m), rng.integers(0, 120, m)
    if ids == "wide":
        src = np.where(src % 2 == 0, src, np.iinfo(np.int64).max - src)
        dst = np.where(dst % 2 == 0, dst, np.iinfo(np.int64).max - dst)
        ids = np.int64
    edges = pd.DataFrame({"src": src.astype(ids), "dst": dst.astype(ids),
                          "weight": (1 + rng.random(m)).astype(weights)})
    got, stats = matching(dask_frame(edges, 3))
    pd.testing.assert_frame_equal(got.compute(), cm.suitor_matching(edges, backend="cpu"))
    # the rounds sent block by block (a round sent whole moves each whole
    # step to every other worker: more bytes than its messages need)
    by_block = [not whole for whole in stats["whole_step_rounds"]]
    messages = sum(m for m, b in zip(stats["messages_per_round"], by_block) if b)
    moved = sum(m for m, b in zip(stats["bytes_per_round"], by_block) if b)
    assert by_block[0] and messages > 0
    least, most = per_word
    assert least is None or moved >= least * messages
    assert most is None or moved <= most * messages
    # the build's held ids in the same id words: 4 bytes each where narrow
    build = stats["build"]
    assert build["build_bytes_moved"] > 0
    assert build["build_bytes_moved"] % (4 if most else 8) == 0
    assert most is None or build["build_bytes_moved"] <= 4 * sum(build["held_vertices"])


def test_a_round_is_counted_from_its_last_phase(client):
    """One counts task per worker and round (the decisions', which carry the
    candidates' and proposals' counts), not one per phase; and the round's
    words are every phase's: the candidates and proposals each worker sent
    are in them."""
    # weights rising along a path: a round per displacement, so that one
    # counts task per phase (3 per worker and round read) would outnumber
    # the decide tasks, idle rounds after the end included
    n = 40
    edges = pd.DataFrame({"src": np.arange(n - 1), "dst": np.arange(1, n),
                          "weight": np.arange(1.0, n)}).sample(frac=1, random_state=2)
    with distributed.get_task_stream(client) as stream:
        got, stats = matching(dask_frame(edges, 4))
        got = got.compute()
    pd.testing.assert_frame_equal(got, cm.suitor_matching(edges, backend="cpu"))
    p = len(client.nthreads())
    names = [t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data]
    counted = sum(name.startswith("step_counts-") for name in names)
    decided = sum(name.startswith("decide-") for name in names)
    # every round read was counted once per worker; a round left over after
    # the end may run its decide tasks and not its counts (released first)
    assert stats["rounds"] >= 10
    assert p * stats["rounds"] <= counted <= decided < 3 * p * stats["rounds"]
    # the phases' own counts, recomputed from a chain of steps
    started = Stopwatch()
    candidates = esw._step([(np.arange(3),), (np.arange(5),)], started, me=0, active=4)
    proposals = esw._step([(np.arange(2),), (np.arange(7),)], started, me=0, proposals=2,
                          earlier=esw._earlier(candidates))
    decisions = esw._step([(np.arange(9),), (np.arange(1),)], started, me=0, activations=1,
                          earlier=esw._earlier(proposals))
    earlier = decisions["earlier"]
    assert [c["sent"] for c in earlier] + [decisions["sent"]] == [5, 7, 1]
    assert earlier[0]["active"] == 4 and earlier[1]["proposals"] == 2
    assert all("blocks" not in c and "earlier" not in c for c in earlier)
    assert esw._earlier(None) == [] and esw._earlier(candidates)[0]["bytes"] == 40


def test_a_path_of_rising_weights_needs_a_round_per_displacement(client):
    """Weights rising along a path: each vertex is displaced by its other
    neighbour, one round each, whichever worker holds the rows; the
    matching is still one machine's."""
    n = 30
    edges = pd.DataFrame({"src": np.arange(n - 1), "dst": np.arange(1, n),
                          "weight": np.arange(1.0, n)})
    with distributed.get_task_stream(client) as stream:
        got, stats = matching(dask_frame(edges.sample(frac=1, random_state=1), 3))
        got = got.compute()
    pd.testing.assert_frame_equal(got, cm.suitor_matching(edges, backend="cpu"))
    assert 2 <= stats["rounds"] <= n
    # rounds this small send whole steps after the first batch: no block
    # tasks then, and every other worker receives each step whole
    from cugraph_match.dask.rounds import FIRST_BATCH

    p = len(client.nthreads())
    whole = stats["whole_step_rounds"]
    assert len(whole) == stats["rounds"] > FIRST_BATCH
    assert not any(whole[:FIRST_BATCH]) and all(whole[FIRST_BATCH:])
    names = [t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data]
    assert sum(name.startswith("block-") for name in names) == 3 * p * (p - 1) * FIRST_BATCH
    assert sum(name.startswith("decide-") for name in names) >= p * stats["rounds"]


def test_every_round_whole_from_the_first(client, monkeypatch):
    """``WHOLE_STEP_BYTES = math.inf``: the first batch, whose bytes no round
    has told yet, sends whole steps too (no block task at all), and the
    matching is the same; 0: blocks in every round."""
    import math

    n = 30
    edges = pd.DataFrame({"src": np.arange(n - 1), "dst": np.arange(1, n),
                          "weight": np.arange(1.0, n)}).sample(frac=1, random_state=4)
    expected = cm.suitor_matching(edges, backend="cpu")
    for limit in (math.inf, 0):
        monkeypatch.setattr(es, "WHOLE_STEP_BYTES", limit)
        with distributed.get_task_stream(client) as stream:
            got, stats = matching(dask_frame(edges, 3))
            got = got.compute()
        pd.testing.assert_frame_equal(got, expected)
        whole = stats["whole_step_rounds"]
        names = [t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data]
        blocks = sum(name.startswith("block-") for name in names)
        assert len(whole) == stats["rounds"] >= 2
        if limit:
            assert all(whole) and blocks == 0
        else:  # every round but the last (the end) moves bytes: no batch goes whole
            p = len(client.nthreads())
            assert all(stats["bytes_per_round"][:-1])
            assert not any(whole) and blocks >= 3 * p * (p - 1) * len(whole)


# --------------------------------------------------------------------------
# the kernels, without a cluster
# --------------------------------------------------------------------------


def test_accept_best_keeps_the_best_proposal_and_wakes_the_rest():
    # two owned vertices: 0 holds an offer of weight 2 from id 9, 1 holds none
    offer_weight = np.array([2.0, 0.0])
    suitor = np.array([9, 0], dtype=np.int64)
    suitor_holders = np.array([0b10, 0], dtype=np.int64)
    at = np.array([0, 0, 1, 1, 0], dtype=np.int64)
    u = np.array([5, 7, 3, 4, 1], dtype=np.int64)
    w = np.array([2.0, 2.0, 1.0, 1.0, 1.5])
    hm = np.array([1, 2, 1, 2, 3], dtype=np.int64)
    changed, woken, woken_holders = esw.accept_best(at, u, w, hm, offer_weight, suitor,
                                                    suitor_holders)
    # vertex 0: 7 and 5 tie at weight 2 with the held 9, which wins the tie
    # (larger id): nobody accepted; vertex 1: 4 beats 3 (larger id)
    assert changed.tolist() == [1]
    assert offer_weight.tolist() == [2.0, 1.0] and suitor.tolist() == [9, 4]
    assert sorted(woken.tolist()) == [1, 3, 5, 7]
    assert dict(zip(woken.tolist(), woken_holders.tolist())) == {5: 1, 7: 2, 3: 1, 1: 3}
    # a better proposal displaces the held one, whose holders are woken
    changed, woken, woken_holders = esw.accept_best(
        np.array([0]), np.array([2]), np.array([3.0]), np.array([4]), offer_weight, suitor,
        suitor_holders)
    assert changed.tolist() == [0] and woken.tolist() == [9] and woken_holders.tolist() == [2]


def test_scan_skips_the_entries_that_cannot_win():
    # vertex 0's row (ids 10 | 20, 30, 40): entries to 1, 2, 3 at weights 5, 4, 3;
    # 1 holds an offer of 5 from id 50 (beats 0's 5 by id), 2 holds 4 from id 10 (0's own)
    labels = np.array([10, 20, 30, 40], dtype=np.int64)
    offsets = np.array([0, 3, 3, 3, 3], dtype=np.int64)
    neighbour = np.array([1, 2, 3], dtype=np.int32)
    key = np.array([3, 2, 1], dtype=np.uint32)
    table = np.array([0.0, 3.0, 4.0, 5.0])
    pointer = np.array([0, 3, 3, 3], dtype=np.int64)
    mirror_weight = np.array([0.0, 5.0, 4.0, 0.0])
    mirror_suitor = np.array([0, 50, 10, 0], dtype=np.int64)
    u, v, w = esw.scan_candidates(offsets, neighbour, key, table, True, labels, pointer,
                                  mirror_weight, mirror_suitor, np.array([0, 1]))
    assert u.tolist() == [10] and v.tolist() == [40] and w.tolist() == [3.0]
    assert pointer.tolist() == [2, 3, 3, 3]


def test_id_index_finds_ids_dense_and_sparse():
    for ids in (np.array([3, 4, 9, 10], dtype=np.int64),
                np.array([-2**62, 0, 2**62], dtype=np.int64)):
        index = esw.IdIndex(ids)
        assert (index.table is not None) == (int(ids[-1]) - int(ids[0]) < 100)
        probe = np.concatenate([ids, ids - 1, ids + 1])
        found = index.find(probe)
        expected = [int(np.flatnonzero(ids == x)[0]) if x in ids else -1 for x in probe]
        assert found.tolist() == expected


def test_a_round_left_over_after_the_graph_is_released_sends_nothing():
    """The client releases the rounds submitted after the last one that
    re-activated nobody, but one whose inputs were on their way may start
    after the call released the graph (its part dropped from the worker):
    it raised KeyError in the worker's log after a call that had returned.
    Now each phase of such a round sends nothing, and the blocks read from
    it are None for every worker; a part the worker never dropped (a
    restarted worker's) still fails the call."""
    from cugraph_match.dask import worker

    gone, lost = "cugraph-match-released/0", "cugraph-match-lost/0"
    for phase in (esw.candidates, esw.proposals, esw.decide):
        with pytest.raises(KeyError, match="restarted"):
            phase(lost, "a run", None)
    worker.drop_part(gone)
    previous = None
    for phase, count in ((esw.candidates, "active"), (esw.proposals, "proposals"),
                         (esw.decide, "activations")):
        step = phase(gone, "a finished run", previous)
        assert step["sent"] == 0 and step[count] == 0 and step["blocks"] == []
        assert step["bytes"] == step["step_bytes"] == 0  # the layout's own steps' shape
        assert [worker.block(step, k) for k in range(3)] == [None, None, None]
        previous = step
