"""The distributed path (cugraph_match.dask) on a LocalCluster of 2 worker
processes: every distributed function equals the single-machine call (which
tests/test_matching.py holds to the greedy oracle), on hypothesis graphs,
the shared real graphs and 1, 2, 3 and 7 input partitions; bad input gives
the single-machine errors; the reported rounds and bytes respect their bounds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA, assert_equal_matchings, greedy_b_matching, greedy_matching
from strategies import edge_frames

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
CUGRAPH_INPUTS = sorted((SHARED_DATA / "cugraph").glob("*.*"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")
PARTITIONS = [1, 2, 3, 7]
# Shrinking re-runs cluster calls for minutes; a failure is reported as drawn.
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]
MATCHINGS = {"suitor": cm.suitor_matching, "locally_dominant": cm.locally_dominant_matching}


def _task_names(stream) -> list:
    """The names (key prefixes) of the tasks a ``get_task_stream`` saw."""
    return [t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data]


def dask_frame(edges, partitions):
    """The edges as a Dask frame, and the pandas frame it holds: Dask stores
    string columns as its own string dtype, so the single-machine peer runs
    on exactly what the workers read."""
    frame = dd.from_pandas(edges, npartitions=min(partitions, max(len(edges), 1)), sort=False)
    return frame, frame.compute()


def _strings_as_objects(frame):
    """String columns as object columns: Dask stores strings in its own string
    dtype (``dataframe.convert-string``), whose flavour (NA or NaN missing
    values) depends on how a frame was made; the strings themselves must match."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or isinstance(out[column].dtype, pd.StringDtype):
            out[column] = out[column].astype(object).where(out[column].notna(), None)
    return out


def same(distributed_result, single_result):
    """Equal frames: the same rows, values, dtypes (strings: values) and index 0..n-1."""
    pd.testing.assert_frame_equal(_strings_as_objects(distributed_result.compute()),
                                  _strings_as_objects(single_result))


def singleton_parts(vertices):
    """A partition with a few communities and some ties of labels."""
    ids = pd.Series(vertices).reset_index(drop=True)
    return pd.DataFrame({"vertex": ids, "community": np.arange(len(ids)) % 3})


@settings(max_examples=examples(8), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(), partitions=st.sampled_from(PARTITIONS),
       b=st.sampled_from([0, 1, 2, 3, 1000]))
def test_every_function_equals_the_single_machine_call(client, edges, partitions, b):
    frame, edges = dask_frame(edges, partitions)
    single = cm.suitor_matching(edges, backend="cpu")
    assert_equal_matchings(single, greedy_matching(edges["src"], edges["dst"], edges["weight"]))
    same(cm.suitor_matching(frame), single)
    graph = cm.dask.DistributedGraph(frame)  # built once, reused below
    same(cm.locally_dominant_matching(graph), single)
    expected = cm.b_suitor_matching(edges, b=b, backend="cpu")
    assert sorted(zip(expected["src"], expected["dst"])) == \
        [(lo, hi) for lo, hi, _ in greedy_b_matching(edges["src"], edges["dst"],
                                                      edges["weight"], b)]
    same(cm.b_suitor_matching(graph, b=b), expected)
    parts = singleton_parts(single["vertex"])
    if cm.Graph(edges, backend="cpu").num_edges or len(edges):
        try:
            q = cm.modularity(edges, parts)
        except ValueError as err:  # only self-loops of weight 0 cannot happen: weights > 0
            pytest.fail(str(err))
        assert cm.modularity(graph, parts) == pytest.approx(q, rel=1e-12, abs=1e-12)


@settings(max_examples=examples(5), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(max_vertices=30, max_edges=80),
       partitions=st.sampled_from(PARTITIONS), data=st.data())
def test_per_vertex_capacities(client, edges, partitions, data):
    vertices = sorted(set(edges["src"]) | set(edges["dst"]))
    b = pd.Series({v: data.draw(st.sampled_from([0, 1, 2, 3, 10**6])) for v in vertices})
    frame, edges = dask_frame(edges, partitions)
    same(cm.b_suitor_matching(frame, b=b), cm.b_suitor_matching(edges, b=b, backend="cpu"))


@pytest.mark.parametrize("partitions", PARTITIONS)
@pytest.mark.parametrize("algorithm", MATCHINGS)
def test_partition_counts_with_string_ids_and_ties(client, algorithm, partitions):
    rng = np.random.default_rng(partitions)
    ids = [f"v{i:03d}" for i in rng.permutation(120)]
    edges = pd.DataFrame({"src": [ids[i] for i in rng.integers(0, 120, 400)],
                          "dst": [ids[i] for i in rng.integers(0, 120, 400)],
                          "weight": rng.choice([1.0, 2.0], 400)})
    frame, edges = dask_frame(edges, partitions)
    same(MATCHINGS[algorithm](frame), MATCHINGS[algorithm](edges, backend="cpu"))


def weighted(path, how, seed=20261123):
    edges, _ = read_graph(path)
    if how == "random":
        edges["weight"] = (1.0 - np.random.default_rng(seed).random(len(edges))).astype(np.float32)
    elif how == "equal" or "weight" not in edges:
        edges["weight"] = 1.0
    return edges


@needs_shared
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_real_graphs(client, path):
    frame, edges = dask_frame(weighted(path, "random"), 3)
    graph = cm.dask.DistributedGraph(frame)
    result, stats = cm.suitor_matching(graph, return_stats=True)
    same(result, cm.suitor_matching(edges, backend="cpu"))
    same(cm.b_suitor_matching(graph, b=2), cm.b_suitor_matching(edges, b=2, backend="cpu"))
    parts = singleton_parts(result.compute()["vertex"])
    assert cm.modularity(graph, parts) == pytest.approx(cm.modularity(edges, parts), rel=1e-9)
    # the bound of the README: at most 6 words of 4 bytes per cut edge in all
    cut = graph.stats["cut_edges"]
    assert stats["bytes_moved"] <= 24 * cut
    assert stats["rounds"] <= 6 * cut + 1


@needs_shared
@pytest.mark.parametrize("path", GRAPHS[:3], ids=lambda p: p.stem)
def test_real_graphs_all_equal_weights(client, path):
    frame, edges = dask_frame(weighted(path, "equal"), 2)
    same(cm.locally_dominant_matching(frame),
         cm.locally_dominant_matching(edges, backend="cpu"))


@needs_shared
@pytest.mark.parametrize("path", CUGRAPH_INPUTS, ids=lambda p: p.name)
def test_cugraph_awkward_inputs(client, path):
    """String ids, self-loops, multi-edges, one-direction edges."""
    frame, edges = dask_frame(read_graph(path)[0], 3)
    same(cm.suitor_matching(frame), cm.suitor_matching(edges, backend="cpu"))


def test_long_path_with_monotone_weights_is_the_worst_case(client):
    """A path whose consecutive vertices alternate between the two workers,
    weights rising along it: every displacement crosses a worker, so the
    supersteps grow with the path (the README's worst case), within the
    bound of six messages per cut edge."""
    n = 40
    order = [i // 2 if i % 2 == 0 else n // 2 + i // 2 for i in range(n)]  # 0, 20, 1, 21, ...
    edges = pd.DataFrame({"src": order[:-1], "dst": order[1:],
                          "weight": np.arange(1.0, n)})
    result, stats = cm.suitor_matching(dask_frame(edges, 2)[0], return_stats=True)
    same(result, cm.suitor_matching(edges, backend="cpu"))
    cut = stats["build"]["cut_edges"]
    assert cut >= n // 2  # the ranges come from a sample of ids: most path edges cross
    assert stats["rounds"] >= n // 2
    assert stats["rounds"] <= 6 * cut + 1
    assert sum(stats["messages_per_round"]) <= 6 * cut
    # every worker's kernel seconds per superstep: at least the slowest one's
    summed, slowest = stats["superstep_seconds_summed"], stats["superstep_seconds"]
    assert len(summed) == len(slowest) == stats["rounds"]
    assert all(s >= b > 0 for s, b in zip(summed, slowest))
    # and their CPU seconds, the task threads' own (not the time spent waiting for a core)
    cpu = stats["superstep_cpu_seconds_summed"]
    assert len(cpu) == stats["rounds"] and all(c >= 0 for c in cpu) and sum(cpu) > 0


def test_closed_notices_spare_a_proposer_its_refusals(client):
    """Vertex v's row is k ghosts, each already holding a better offer from
    its own partner: their owner tells v's owner that those edges are closed
    in the first superstep, and v skips them all instead of being refused by
    one ghost after another (two supersteps each).  Fails if a vertex with a
    cut edge is not listed for its notices."""
    k, v = 30, 1000
    g, h = np.arange(0, 2 * k, 2), np.arange(1, 2 * k, 2)
    edges = pd.DataFrame({"src": np.concatenate([g, np.full(k, v)]),
                          "dst": np.concatenate([h, g]),
                          "weight": np.concatenate([np.full(k, 10.0), 5.0 - 0.1 * np.arange(k)])})
    result, stats = cm.suitor_matching(dask_frame(edges, 2)[0], return_stats=True)
    same(result, cm.suitor_matching(edges, backend="cpu"))
    assert stats["build"]["cut_edges"] >= k // 2  # most of v's edges cross
    assert stats["rounds"] <= 5


def test_closed_notices_are_one_per_vertex_and_worker(client):
    """On a complete graph about half the edges are cut, and after the first
    superstep almost every vertex holds an offer better than most of its cut
    edges.  The first superstep then sends one proposal at most per vertex
    (a vertex waits on its ghost) and one closed notice per vertex and
    other worker, naming the best edge it closed: under 2n words, where a
    notice per closed cut edge is about n^2 / 4.  Fails if notices go back
    to one per edge, or if the receiver's floor skips an open edge (the
    result would differ from one machine's)."""
    n = 60
    rng = np.random.default_rng(5)
    src, dst = np.triu_indices(n, 1)
    weight = rng.integers(1, 40, src.shape[0]).astype(np.float64)  # ties on purpose
    edges = pd.DataFrame({"src": src, "dst": dst, "weight": weight})
    result, stats = cm.suitor_matching(dask_frame(edges, 2)[0], return_stats=True)
    same(result, cm.suitor_matching(edges, backend="cpu"))
    assert stats["build"]["cut_edges"] >= n * n // 8
    assert stats["messages_per_round"][0] <= 2 * n


@needs_shared
def test_worker_memory_stays_near_its_share(client):
    """A worker keeps only its own vertices' rows (a cut edge once, in its
    owned end's row), so its rows are about half of the graph's whatever the
    cut, and its part is linear in them plus a fixed cost per cut edge and
    per ghost."""
    edges = weighted(SHARED_DATA / "graphs" / "wing.mtx", "random")
    whole = cm.Graph(edges, backend="cpu")
    graph = cm.dask.DistributedGraph(dask_frame(edges, 4)[0])
    assert graph.num_edges == whole.num_edges
    assert graph.stats["cut_edges"] > 0.3 * graph.num_edges  # no locality to lean on
    # a worker's rows are its share: every edge at one of its vertices, once
    stats = graph.stats
    assert max(stats["row_entries"]) <= 0.6 * 2 * graph.num_edges
    # and its part is linear in that share: per row entry the neighbour, the
    # key and the cut edge (12 B); per cut edge its ends, key and pair (20 B);
    # per local vertex its id, owner and row start (24 B); the weight table
    for k, size in enumerate(stats["part_bytes"]):
        assert size <= 12 * stats["row_entries"][k] + 20 * stats["cut_per_worker"][k] + \
            24 * stats["local_vertices"][k] + stats["weight_table_bytes"][k] + 1024
    assert max(stats["part_bytes"]) <= 0.6 * sum(stats["part_bytes"])


def frame5(**columns):
    base = {"src": [0, 1, 2, 3, 4], "dst": [1, 2, 3, 4, 0], "weight": [1.0, 2.0, 3.0, 4.0, 5.0]}
    base.update(columns)
    return pd.DataFrame(base, index=[10, 20, 30, 40, 50])


BAD_FRAMES = {
    "null_src": frame5(src=[0, None, 2, None, 4]),
    "null_dst": frame5(dst=[1, 2, None, 4, None]),
    "nan": frame5(weight=[1.0, np.nan, 3.0, 4.0, np.nan]),
    "inf": frame5(weight=[1.0, 2.0, np.inf, 4.0, -np.inf]),
    "zero_and_negative": frame5(weight=[1.0, 0.0, 3.0, -4.0, -1.0]),
    "int_non_positive": frame5(weight=[1, 2, 0, 4, -5]),
    "string_weights": frame5(weight=["a", "b", "c", "d", "e"]),
    "mixed_ids": frame5(src=[0, "a", 2, "b", 4]),
    "empty": frame5().iloc[:0],
}


def error_of(call):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("partitions", [1, 3])
@pytest.mark.parametrize("case", BAD_FRAMES)
def test_bad_input_gives_the_single_machine_error(client, case, partitions):
    edges = BAD_FRAMES[case]
    expected = error_of(lambda: cm.suitor_matching(edges, backend="cpu"))
    frame = dd.from_pandas(edges, npartitions=partitions, sort=False) if len(edges) else \
        dd.from_pandas(edges, npartitions=1)
    assert error_of(lambda: cm.suitor_matching(frame)) == expected
    assert error_of(lambda: cm.b_suitor_matching(frame, b=2)) == \
        error_of(lambda: cm.b_suitor_matching(edges, b=2, backend="cpu"))


@pytest.mark.parametrize("kwargs", [{"source": "a"}, {"destination": "b"},
                                    {"weight": "w"}])
def test_missing_columns(client, kwargs):
    edges = frame5()
    frame = dd.from_pandas(edges, npartitions=2)
    assert error_of(lambda: cm.suitor_matching(frame, **kwargs)) == \
        error_of(lambda: cm.suitor_matching(edges, backend="cpu", **kwargs))


BAD_CAPACITIES = {
    "negative": -1,
    "float": 1.5,
    "attribute": "capacity",
    "unknown_vertex": pd.Series({0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 99: 2, 77: 1}),
    "lacking_vertex": pd.Series({0: 1, 1: 1, 3: 1}),
    "negative_value": pd.Series({0: 1, 1: -1, 2: 1, 3: 1, 4: -2}),
    "null_value": pd.Series({0: 1, 1: None, 2: 1, 3: 1, 4: 1}),
    "frame_without_b": pd.DataFrame({"vertex": [0, 1, 2, 3, 4]}),
    # ids that cannot be compared with the graph's: the split by owner
    # raised NumPy's "'<' not supported between 'int' and 'str'"
    "string_ids": pd.Series([1] * 5, index=["0", "1", "2", "3", "4"]),
    "string_id_frame": pd.DataFrame({"vertex": ["0", "1", "2", "3", "4"], "b": [1] * 5}),
    "categorical_string_ids": pd.Series([1] * 5, index=pd.CategoricalIndex(list("01234"))),
}


@pytest.mark.parametrize("case", BAD_CAPACITIES)
def test_bad_capacities_give_the_single_machine_error(client, case):
    edges = frame5()
    frame = dd.from_pandas(edges, npartitions=2)
    b = BAD_CAPACITIES[case]
    assert error_of(lambda: cm.b_suitor_matching(frame, b=b)) == \
        error_of(lambda: cm.b_suitor_matching(edges, b=b, backend="cpu"))


BAD_PARTITIONS = {
    "unknown_vertex": pd.DataFrame({"vertex": [0, 1, 2, 3, 4, 9, 8], "community": [0] * 7}),
    "lacking_vertex": pd.DataFrame({"vertex": [0, 1, 3], "community": [0, 1, 1]}),
    "repeated_vertex": pd.DataFrame({"vertex": [0, 1, 2, 3, 4, 4], "community": [0] * 6}),
    "null_community": pd.DataFrame({"vertex": [0, 1, 2, 3, 4],
                                    "community": [0, None, 1, 1, 1]}),
    "no_community_column": pd.DataFrame({"vertex": [0, 1, 2, 3, 4]}),
    "string_ids": pd.DataFrame({"vertex": ["0", "1", "2", "3", "4"], "community": [0] * 5}),
    "null_vertex": pd.DataFrame({"vertex": pd.array([0, 1, None, 3, 4], dtype="Int64"),
                                 "community": [0] * 5}),
    "fractional_vertex": pd.DataFrame({"vertex": [0.0, 1.0, 2.0, 3.0, 3.5],
                                       "community": [0] * 5}),
}


@pytest.mark.parametrize("case", BAD_PARTITIONS)
def test_bad_partitions_give_the_single_machine_error(client, case):
    edges = frame5()
    frame = dd.from_pandas(edges, npartitions=2)
    parts = BAD_PARTITIONS[case]
    assert error_of(lambda: cm.modularity(frame, parts)) == \
        error_of(lambda: cm.modularity(edges, parts))


def test_whole_float_vertex_ids_are_the_integers_they_hold(client):
    edges = frame5()
    parts = pd.DataFrame({"vertex": [0.0, 1.0, 2.0, 3.0, 4.0], "community": [0, 0, 1, 1, 1]})
    assert cm.modularity(dd.from_pandas(edges, npartitions=2), parts) == \
        pytest.approx(cm.modularity(edges, parts.astype({"vertex": np.int64})), rel=1e-12)


def test_modularity_keeps_self_loops_and_resolution(client):
    edges = pd.DataFrame({"src": [0, 0, 1, 3, 3, 4, 2, 5, 5], "dst": [1, 2, 2, 4, 5, 5, 3, 5, 5],
                          "weight": [1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 0.5, 2.0, 4.0]})
    parts = pd.DataFrame({"vertex": range(6), "community": ["a", "a", "a", "b", "b", "b"]})
    frame = dd.from_pandas(edges, npartitions=3)
    for gamma in (0.5, 1.0, 2.0):
        assert cm.modularity(frame, parts, resolution=gamma) == \
            pytest.approx(cm.modularity(edges, parts, resolution=gamma), rel=1e-12)
    # cuGraph's vertex | partition frames too
    cugraph_parts = parts.rename(columns={"community": "partition"})
    assert cm.modularity(frame, cugraph_parts) == \
        pytest.approx(cm.modularity(edges, parts), rel=1e-12)


def test_other_functions_refuse_a_dask_frame(client):
    frame = dd.from_pandas(frame5(), npartitions=2)
    for function in (cm.roma_matching, cm.maximal_matching):
        with pytest.raises(TypeError, match=r"Dask input.*louvain, leiden.*\.compute\(\)"):
            function(frame)


def test_where_the_supersteps_run(client):
    """``"auto"`` on pandas partitions: the CPU kernels; ``"gpu"`` on workers
    without a GPU: an error naming a worker and why (the GPU kernels
    themselves: tests/test_dask_gpu_simulator.py and
    tests/test_dask_louvain_gpu.py), for Louvain and Leiden as for the matchings."""
    frame = dd.from_pandas(frame5(), npartitions=2)
    _, stats = cm.suitor_matching(frame, return_stats=True)
    assert stats["device"] == "cpu"
    _, stats = cm.b_suitor_matching(frame, b=2, backend="cpu", return_stats=True)
    assert stats["device"] == "cpu"
    from cugraph_match.structure.device import gpu_available

    if not gpu_available():
        for call in (cm.suitor_matching, cm.louvain, cm.leiden):
            with pytest.raises(RuntimeError, match=r"backend='gpu' needs a usable CUDA GPU on "
                                                   r"every Dask worker.*worker tcp://"):
                call(frame, backend="gpu")


def test_return_stats_is_for_dask_inputs():
    with pytest.raises(ValueError, match="Dask"):
        cm.suitor_matching(frame5(), backend="cpu", return_stats=True)
    for function in (cm.suitor_matching, cm.locally_dominant_matching, cm.b_suitor_matching):
        # 'no' was read as True: "return_stats=True reports a distributed run"
        with pytest.raises(TypeError, match="return_stats must be True or False, got 'no'"):
            function(frame5(), backend="cpu", return_stats="no")
        with pytest.raises(TypeError, match="return_stats must be True or False, got 'no'"):
            function(dd.from_pandas(frame5(), npartitions=2), return_stats="no")


@settings(max_examples=examples(60), deadline=None)
@given(holders=st.lists(st.sampled_from(["a", "b", "c", None]), max_size=40),
       data=st.data())
def test_holder_groups_cover_each_partition_once_within_the_budget(holders, data):
    from cugraph_match.dask.graph import holder_groups

    sizes = data.draw(st.lists(st.integers(0, 50), min_size=len(holders),
                               max_size=len(holders)))
    budget = data.draw(st.floats(0.5, 120))
    groups = holder_groups(holders, sizes, budget)
    flat = [i for group in groups for i, _ in group]
    assert sorted(flat) == list(range(len(holders)))
    assert [group[0][0] for group in groups] == sorted(group[0][0] for group in groups)
    for group in groups:
        indices = [i for i, _ in group]
        assert indices == sorted(indices)
        assert all(holder == holders[i] for i, holder in group)
        assert len({holder for _, holder in group}) == 1
        if len(group) > 1:
            assert group[0][1] is not None and sum(sizes[i] for i in indices) <= budget
    # a group closes only when the holder's next partition would not fit
    by_holder: dict = {}
    for group in groups:
        if group[0][1] is not None:
            by_holder.setdefault(group[0][1], []).append(group)
    for chain in by_holder.values():
        for group, following in zip(chain, chain[1:]):
            assert sum(sizes[i] for i, _ in group) + sizes[following[0][0]] > budget


@settings(max_examples=examples(6), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(), partitions=st.sampled_from([16, 40]),
       b=st.sampled_from([0, 1, 2, 1000]))
def test_many_partitions_equal_the_single_machine_call(client, edges, partitions, b):
    # many partitions per worker: the build reads them in groups
    # (graph.holder_groups), several partitions to a task, down to one row each
    frame, edges = dask_frame(edges, partitions)
    graph = cm.dask.DistributedGraph(frame)
    same(cm.suitor_matching(graph), cm.suitor_matching(edges, backend="cpu"))
    same(cm.b_suitor_matching(graph, b=b), cm.b_suitor_matching(edges, b=b, backend="cpu"))


def test_the_build_reads_the_partitions_in_groups(client):
    # 48 small partitions on 2 workers: a summary, a route and per owner a
    # take and an absorb per group of the partitions one worker holds (at
    # most about GROUPS_PER_WORKER per worker), not per partition
    from cugraph_match.dask.graph import GROUPS_PER_WORKER

    rng = np.random.default_rng(5)
    edges = pd.DataFrame({"src": rng.integers(0, 300, 2400), "dst": rng.integers(0, 300, 2400),
                          "weight": rng.integers(1, 9, 2400).astype(np.float64)})
    frame = dd.from_pandas(edges, npartitions=48, sort=False).persist()
    distributed.wait(frame)
    with distributed.get_task_stream(client) as stream:
        graph = cm.dask.DistributedGraph(frame)
    same(cm.suitor_matching(graph), cm.suitor_matching(edges, backend="cpu"))
    names = _task_names(stream)

    def count(prefix):
        return sum(name.startswith(prefix + "-") for name in names)

    p = len(client.nthreads())
    groups = count("route_group")
    # next fit: two groups of a holder in a row hold more than the budget
    assert 1 <= groups <= 2 * GROUPS_PER_WORKER * p + p < 48
    assert 1 <= count("summarize_partitions") <= 2 * GROUPS_PER_WORKER * p + p
    assert count("take_group") == count("absorb_pieces") == p * groups
    assert count("summarize_partition") == count("route_partition") == \
        count("take_piece") == 0
    assert graph.stats["rows"] == len(edges)


def test_result_is_partitioned_by_vertex_with_known_divisions(client):
    edges = pd.DataFrame({"src": np.arange(200), "dst": (np.arange(200) * 7 + 3) % 200,
                          "weight": np.arange(200, dtype=np.float64) % 5 + 1})
    result = cm.suitor_matching(dd.from_pandas(edges, npartitions=3))
    assert result.npartitions == 2 and result.known_divisions
    pieces = [result.get_partition(i).compute() for i in range(result.npartitions)]
    assert pieces[0]["vertex"].max() < pieces[1]["vertex"].min()
    assert all(p["vertex"].is_monotonic_increasing for p in pieces)


def test_example_runs():
    """examples/dask_matching.py runs (on pandas-backed Dask here) and finds
    its distributed results equal to the single-machine ones."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from dask_warmup import warm_dask_kernels

    warm_dask_kernels()  # compiled once here, not in both of the example's workers
    script = Path(__file__).resolve().parents[1] / "examples" / "dask_matching.py"
    # its workers forked from a server, as the test processes' are (conftest.py)
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD": "forkserver"}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.count("same as one machine: True") == 2


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_cut_edges_are_written_in_the_lexicographic_order(data):
    # owned_preference numbers the cut edges in one pass over the edge set and
    # writes their keys and entries as it scatters the rows; the oracle scans
    # the single-machine rows of the owned vertices with NumPy and sorts by
    # (owner, max, min)
    from cugraph_match.dask.build import owned_preference
    from cugraph_match.structure.csr import preference_csr
    from cugraph_match.structure.edges import undirected_edges

    n = data.draw(st.integers(2, 40), label="n")
    m = data.draw(st.integers(0, 120), label="m")
    ends = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    u = np.array(data.draw(ends), dtype=np.int32)
    v = np.array(data.draw(ends), dtype=np.int32)
    weighted = data.draw(st.booleans(), label="weighted")
    # float64 weights take the radix sort that overwrites its keys (the
    # weights), float32 and int64 the packed sort
    wtype = data.draw(st.sampled_from([np.float32, np.float64, np.int64]), label="wtype")
    w = np.array(data.draw(st.lists(st.sampled_from([1, 2, 3]), min_size=m,
                                    max_size=m)), dtype=wtype) if weighted else None
    whole = preference_csr(undirected_edges(u, v, w, n, np), np)
    workers = data.draw(st.integers(1, 6), label="workers")
    owner_of = np.sort(np.array(data.draw(st.lists(st.integers(0, workers - 1), min_size=n,
                                                   max_size=n)), dtype=np.int32))
    me = data.draw(st.integers(0, workers - 1), label="me")
    lo, hi = int(np.searchsorted(owner_of, me)), int(np.searchsorted(owner_of, me, "right"))
    # the edge set holds ghost-to-ghost edges too here (a worker never
    # receives one): they are no cut edge of this part; weighted, the sort
    # carries each cut number in the edge's word, or (too many bits: taken
    # here on purpose) the words and cut numbers are gathered apart
    carry = data.draw(st.booleans(), label="carry_cut")
    pref, _, cut = owned_preference(undirected_edges(u, v, w, n, np), lo, hi, owner_of,
                                    workers, carry_cut=carry)
    start, key, got_own, got_ghost, entry_cut = cut
    row = np.repeat(np.arange(n), np.diff(whole.offsets))
    owned = (row >= lo) & (row < hi)
    np.testing.assert_array_equal(pref.indices, whole.indices[owned])
    np.testing.assert_array_equal(pref.keys, whole.keys[owned])
    row = np.repeat(np.arange(n), np.diff(pref.offsets))
    at = np.flatnonzero((row >= lo) & (row < hi) &
                        ((pref.indices < lo) | (pref.indices >= hi)))
    own, ghost = row[at], pref.indices[at].astype(np.int64)
    big, small = np.maximum(own, ghost), np.minimum(own, ghost)
    order = np.lexsort((small, big, owner_of[ghost]))
    np.testing.assert_array_equal(start, np.concatenate(
        [[0], np.cumsum(np.bincount(owner_of[ghost], minlength=workers))]))
    np.testing.assert_array_equal(got_own, own[order])
    np.testing.assert_array_equal(got_ghost, ghost[order])
    np.testing.assert_array_equal(key, pref.keys[at[order]])
    expected = np.full(pref.indices.shape[0], -1)
    expected[at[order]] = np.arange(order.shape[0])
    np.testing.assert_array_equal(entry_cut, expected)
    assert (start.dtype, key.dtype, entry_cut.dtype) == \
        (np.int64, np.uint32, pref.offsets.dtype)
    assert got_own.dtype == got_ghost.dtype == pref.indices.dtype


def random_weighted(edges: int, vertices: int, seed: int, weight: bool = True):
    rng = np.random.default_rng(seed)
    columns = {"src": rng.integers(0, vertices, edges), "dst": rng.integers(0, vertices, edges)}
    if weight:
        columns["weight"] = rng.random(edges) + 0.01
    return pd.DataFrame(columns)


@pytest.fixture
def small_cluster(request):
    """A cluster other than the module's: ``request.param`` is (threads per
    worker, processes)."""
    threads, processes = request.param
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=threads,
                                       processes=processes, dashboard_address=None)
    with distributed.Client(cluster, set_as_default=False) as c:
        yield c
    cluster.close()


def same_on(client, distributed_result, single_result):
    """:func:`same`, computing on ``client`` (not the default one)."""
    pd.testing.assert_frame_equal(
        _strings_as_objects(distributed_result.compute(scheduler=client)),
        _strings_as_objects(single_result))


@pytest.mark.parametrize("small_cluster", [(2, True)], indirect=True)
def test_supersteps_of_a_worker_are_one_chain_on_threaded_workers(small_cluster):
    # with 2 threads per worker, a worker's supersteps must still run one
    # after another (they share its run state)
    edges = random_weighted(20_000, 5_000, seed=7)
    frame = dd.from_pandas(edges, npartitions=4)
    g = cm.dask.DistributedGraph(frame, client=small_cluster)
    single = cm.suitor_matching(frame.compute(scheduler="sync"), backend="cpu")
    same_on(small_cluster, cm.suitor_matching(g), single)


def test_each_superstep_depends_on_the_same_workers_previous_one(client):
    # the chain itself: worker k's superstep t + 1 takes its superstep t (a
    # race that the end-to-end test above catches only on larger graphs)
    import itertools

    from cugraph_match.dask import worker as w

    edges = random_weighted(2_000, 500, seed=5)
    g = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2))
    calls = []
    submit = g.submit

    def recording(k, function, *args):
        future = submit(k, function, *args)
        if function is w.superstep:
            calls.append((k, args, future))
        return future

    g.submit = recording
    cm.suitor_matching(g).compute()
    steps = {k: [(args, f) for j, args, f in calls if j == k] for k in range(2)}
    assert all(len(s) > 1 for s in steps.values())
    for chain in steps.values():
        for (_, before), (args, _) in itertools.pairwise(chain):
            assert any(a is before for a in args)


def _suitor_and_its_tasks(client, edges: pd.DataFrame) -> tuple:
    """suitor_matching of ``edges`` in 2 partitions, checked equal to one
    machine's; returns its stats and the names of the tasks it ran."""
    frame = dd.from_pandas(edges, npartitions=2, sort=False)
    with distributed.get_task_stream(client) as stream:
        result, stats = cm.suitor_matching(frame, return_stats=True)
        result = result.persist()
        distributed.wait(result)
    same(result, cm.suitor_matching(edges, backend="cpu"))
    return stats, _task_names(stream)


def test_supersteps_send_whole_steps_when_the_cut_is_small(client):
    # a few cut edges (two chains of 200 vertices, joined at 20 places):
    # the bound of the whole run's messages, 24 bytes per cut edge, is under
    # WHOLE_STEP_BYTES, so every superstep sends each worker the others'
    # whole steps and no block task runs
    n = 200
    chain = np.arange(n - 1)
    src = np.concatenate([chain, n + chain, np.arange(0, n, 10)])
    dst = np.concatenate([chain + 1, n + chain + 1, n + np.arange(0, n, 10)])
    weight = np.random.default_rng(2).permutation(src.shape[0]).astype(np.float64) + 1
    stats, names = _suitor_and_its_tasks(
        client, pd.DataFrame({"src": src, "dst": dst, "weight": weight}))
    assert 0 < stats["build"]["cut_edges"] <= 60
    assert len(stats["whole_step_rounds"]) == stats["rounds"] > 1
    assert all(stats["whole_step_rounds"])
    assert sum(name.startswith("superstep-") for name in names) >= 2 * stats["rounds"]
    assert not any(name.startswith("block-") for name in names)
    # each other worker (one of them) received the whole step: what moved is
    # the messages' bytes
    assert stats["bytes_per_round"] == stats["message_bytes_per_round"]


def test_supersteps_send_blocks_while_the_messages_are_many(client, monkeypatch):
    # a complete graph cuts about half its edges (its supersteps send 480,
    # 284, 200, 140, 68, ... bytes); with the whole steps' limit at 100 bytes
    # a worker, the first batch sends blocks, a block task per other worker
    # and superstep, and the batches after a superstep of at most 200 bytes
    # send whole steps; the result is the same either way
    from cugraph_match.dask import matching
    from cugraph_match.dask.rounds import FIRST_BATCH

    monkeypatch.setattr(matching, "WHOLE_STEP_BYTES", 100)
    n = 120
    rng = np.random.default_rng(3)
    src, dst = np.triu_indices(n, 1)
    stats, names = _suitor_and_its_tasks(client, pd.DataFrame(
        {"src": src, "dst": dst, "weight": rng.integers(1, 30, src.shape[0]).astype(np.float64)}))
    whole, needed = stats["whole_step_rounds"], stats["message_bytes_per_round"]
    assert len(whole) == stats["rounds"] > FIRST_BATCH
    assert 24 * stats["build"]["cut_edges"] > 2 * 100 and not any(whole[:FIRST_BATCH])
    assert any(whole[FIRST_BATCH:])
    # a batch is whole exactly when the superstep before it sent few bytes
    for i in range(1, len(whole)):
        if whole[i] != whole[i - 1]:
            assert whole[i] == (needed[i - 1] <= 2 * 100)
    blocks = sum(name.startswith("block-") for name in names)
    assert blocks >= 2 * FIRST_BATCH  # p(p - 1) = 2 a superstep
    # one other worker receives each whole step: what moved is the messages' bytes
    assert stats["bytes_per_round"] == needed


def test_supersteps_send_whole_steps_from_the_first_at_no_limit(client, monkeypatch):
    # WHOLE_STEP_BYTES = math.inf: whole steps whatever the bound of the
    # messages (a complete graph cuts about half its edges), and the same result
    import math

    from cugraph_match.dask import matching

    monkeypatch.setattr(matching, "WHOLE_STEP_BYTES", math.inf)
    n = 80
    src, dst = np.triu_indices(n, 1)
    weight = np.random.default_rng(5).integers(1, 30, src.shape[0]).astype(np.float64)
    stats, names = _suitor_and_its_tasks(
        client, pd.DataFrame({"src": src, "dst": dst, "weight": weight}))
    assert stats["build"]["cut_edges"] > 100
    assert len(stats["whole_step_rounds"]) == stats["rounds"] > 1
    assert all(stats["whole_step_rounds"])
    assert not any(name.startswith("block-") for name in names)


@pytest.mark.parametrize("small_cluster", [(1, False)], indirect=True)
def test_in_process_workers_keep_their_own_parts(small_cluster):
    # workers in one process share the module's PARTS: each keeps its own part
    edges = random_weighted(3_000, 800, seed=11)
    frame = dd.from_pandas(edges, npartitions=3)
    g = cm.dask.DistributedGraph(frame, client=small_cluster)
    edges = frame.compute(scheduler="sync")
    same_on(small_cluster, cm.suitor_matching(g), cm.suitor_matching(edges, backend="cpu"))
    same_on(small_cluster, cm.b_suitor_matching(g, 2),
            cm.b_suitor_matching(edges, 2, backend="cpu"))


def test_unweighted_modularity_equals_the_single_machine_call(client):
    edges = random_weighted(2_000, 300, seed=3, weight=False)
    frame = dd.from_pandas(edges, npartitions=3)
    vertices = np.unique(np.concatenate([edges["src"], edges["dst"]]))
    parts = pd.DataFrame({"vertex": vertices, "community": vertices % 5})
    assert cm.modularity(frame, parts, weight=None) == \
        pytest.approx(cm.modularity(edges, parts, weight=None), rel=1e-12)


def test_message_places_must_fit_their_word():
    from cugraph_match.dask.worker import check_cut_sizes

    check_cut_sizes(np.array([0, 5, 2**30 - 1 + 5], dtype=np.int64))
    with pytest.raises(ValueError, match="2\\*\\*30"):
        check_cut_sizes(np.array([0, 3, 2**30 + 3], dtype=np.int64))


def test_supersteps_are_logged_at_info(client, caplog):
    """One progress line per superstep (logger ``cugraph_match``, INFO)."""
    edges = pd.DataFrame({"src": range(9), "dst": range(1, 10), "weight": np.arange(1.0, 10)})
    with caplog.at_level("INFO", logger="cugraph_match"):
        _, stats = cm.suitor_matching(dask_frame(edges, 2)[0], return_stats=True)
    lines = [r.getMessage() for r in caplog.records
             if r.getMessage().startswith("dask b-suitor superstep ")]
    assert len(lines) == stats["rounds"]
    assert lines[0].startswith("dask b-suitor superstep 0: 10 vertices, 9 edges, messages ")


def test_the_worker_of_a_cut_edge_is_read_from_the_cut_list_starts():
    """``kernels._worker_of_cut`` (the closed notices' walk names a cut
    edge's worker from where it lies in the cut list, not from an owner
    lookup of its ghost): the last worker whose share starts at or below
    it, past empty shares (this worker's own, and any other without cut
    edges) at the start, middle and end."""
    from cugraph_match.dask.kernels import _worker_of_cut

    for starts in ([0, 0, 3, 3, 5], [0, 2, 2, 2, 7, 7], [0, 4], [0, 0, 0, 1]):
        cut_start = np.array(starts, dtype=np.int64)
        expected = np.repeat(np.arange(len(starts) - 1), np.diff(cut_start))
        got = [_worker_of_cut(cut_start, c) for c in range(starts[-1])]
        assert got == expected.tolist()


def _parts_in_process(edges, workers: int, tag: str, run_id: str) -> list:
    """Every worker's part of ``edges`` (ids 0..n-1 split evenly) built in this
    process, capacities 1, run ``run_id`` started; their part keys."""
    from cugraph_match.dask import build, worker

    n = int(max(edges["src"].max(), edges["dst"].max())) + 1
    boundaries = np.array([n * k // workers for k in range(1, workers)], dtype=np.int64)
    route = build.route_partition(edges, "src", "dst", boundaries, workers, None)
    gids = []
    for k in range(workers):
        gid = worker.part_key(tag, k)
        build.absorb_pieces(gid, [build.take_piece(edges, route, k, "src", "dst", "weight",
                                                   None)])
        worker.build_part(gid, k, workers, boundaries, True, False, "ids", False, False)
        worker.assign_capacities(gid, 1)
        worker.start_run(gid, False, run_id)
        gids.append(gid)
    return gids


def _supersteps_in_process(gids: list, run_id: str) -> list:
    """Run ``run_id``'s supersteps on the parts to the first without messages;
    the words sent in each."""
    from cugraph_match.dask import worker

    workers = len(gids)
    inbox = [[None] * workers for _ in range(workers)]
    sent = []
    while not sent or sent[-1]:
        steps = [worker.superstep(gid, run_id, None, *inbox[k]) for k, gid in enumerate(gids)]
        sent.append(sum(s["sent"] for s in steps))
        inbox = [[steps[i]["blocks"][k] if i != k else None for i in range(workers)]
                 for k in range(workers)]
    return sent


def _finish_equals_one_machine(gids: list, edges, mates: bool) -> None:
    """Finish the run on every part (``mates``: read from the slots, else from
    the matched pairs) and compare the mates with one machine's matching."""
    from cugraph_match.dask import worker

    frames = []
    for gid in gids:
        worker.finish_run(gid, mates)
        frames.append(worker.mates_partition(gid, 0))
    got = pd.concat(frames, ignore_index=True).sort_values("vertex", ignore_index=True)
    expected = cm.suitor_matching(edges, backend="cpu").sort_values("vertex", ignore_index=True)
    assert got["mate"].tolist() == expected["mate"].tolist()


def test_a_superstep_of_another_run_is_idle():
    """The client releases the rounds queued after the last with messages,
    but a released superstep whose inputs were on their way may still start:
    after ``finish_run`` it raised KeyError('slot_start') in the worker's
    log, and after the next run's ``start_run`` on a reused graph it would
    have taken that run's first superstep and dropped its messages.  Now a
    superstep of another run sends nothing and changes nothing, and the run
    it lands in still equals one machine's matching."""
    from cugraph_match.dask import worker

    rng = np.random.default_rng(9)
    src, dst = np.triu_indices(30, 1)
    edges = pd.DataFrame({"src": src, "dst": dst,
                          "weight": rng.integers(1, 20, src.shape[0]).astype(np.float64)})
    gids = _parts_in_process(edges, 3, "stale", "new")
    try:
        for gid in gids:  # the last run's stale round, before this run's first
            stale = worker.superstep(gid, "old", None)
            assert stale["sent"] == 0 and stale["blocks"] == [None] * 3
        assert _supersteps_in_process(gids, "new")[0] > 0
        _finish_equals_one_machine(gids, edges, True)
        for gid in gids:  # a stale round after the finish
            assert worker.superstep(gid, "new", None)["sent"] == 0
    finally:
        for gid in gids:
            worker.drop_part(gid)


def test_a_superstep_after_the_graph_is_released_sends_nothing():
    """A released superstep may even start after the call released the graph
    (the part dropped from the worker): it raised KeyError in the worker's log
    after a call that had returned.  Now it sends nothing, and the blocks read
    from it are None for every worker.  A part the worker never dropped (a
    restarted worker's) still fails the call instead of missing its messages;
    the worker keeps only the latest dropped keys."""
    from cugraph_match.dask import worker

    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 2.0, 3.0]})
    with pytest.raises(KeyError, match="restarted"):
        worker.superstep(worker.part_key("lost", 0), "a run", None)
    gids = _parts_in_process(edges, 2, "released", "a finished run")
    for gid in gids:
        assert worker.drop_part(gid)
    for gid in gids:
        step = worker.superstep(gid, "a finished run", None)
        assert step["sent"] == 0 and step["received"] == 0 and step["blocks"] == []
        assert step["bytes"] == [] and step["local_proposals"] == 0
        assert [worker.block(step, k) for k in range(2)] == [None, None]
    for k in range(worker.DROPPED_KEPT):
        worker.drop_part(worker.part_key("never built", k))
    assert len(worker.DROPPED) == worker.DROPPED_KEPT and gids[0] not in worker.DROPPED
    with pytest.raises(KeyError, match="restarted"):
        worker.superstep(gids[0], "a finished run", None)


@pytest.mark.parametrize("mates", [False, True])
@pytest.mark.parametrize("workers", [3, 4])
def test_closed_notices_name_each_other_worker_once_in_process(workers, mates):
    """The complete graph of ``test_closed_notices_are_one_per_vertex_and_worker``
    on 3 and 4 workers, their parts built and their supersteps run in this
    process (no cluster): a vertex's row now closes edges to 2 or 3 other
    workers, and its walk (a binary search for the weakest offer, then a
    forward scan that stops once every other worker is named) sends at most
    one notice to each.  The first superstep is then under ``workers * n``
    words (a proposal and p - 1 notices per vertex, where one notice per
    closed cut edge is about n^2 / 2), and the matching equals one machine's
    (fails if the search names an open edge closed: the receiver would skip
    an edge it may still win; checked by moving its bound two places up).
    The mates are read both ways: from the matched pairs (b-matching's
    finish) and straight from the slots (``mates=True``, a matching's)."""
    from cugraph_match.dask import worker

    n = 60
    rng = np.random.default_rng(7)
    src, dst = np.triu_indices(n, 1)
    edges = pd.DataFrame({"src": src, "dst": dst,
                          "weight": rng.integers(1, 40, src.shape[0]).astype(np.float64)})
    gids = _parts_in_process(edges, workers, f"notices-{workers}", "run")
    try:
        sent = _supersteps_in_process(gids, "run")
        assert sent[0] <= workers * n
        _finish_equals_one_machine(gids, edges, mates)
    finally:
        for gid in gids:
            worker.drop_part(gid)


@settings(max_examples=examples(80), deadline=None)
@given(data=st.data())
def test_slot_starts_clip_capacities_to_degrees(data):
    """``kernels.slot_starts`` (the run's slots written in one pass, no
    degree or capacity arrays): each owned vertex's capacity clipped to its
    degree, as starts (ghosts below and above the owned range get none), and
    the owned vertices of capacity 0 with edges, equal to the NumPy formula."""
    from cugraph_match.dask import kernels

    n = data.draw(st.integers(1, 30))
    degree = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    dtype = data.draw(st.sampled_from([np.int32, np.int64]))
    offsets = np.concatenate([[0], np.cumsum(degree)]).astype(dtype)
    own_lo = data.draw(st.integers(0, n))
    own_hi = data.draw(st.integers(own_lo, n))
    cap_owned = np.array(data.draw(st.lists(st.integers(0, 6), min_size=own_hi - own_lo,
                                            max_size=own_hi - own_lo)), dtype=np.int64)
    slot_start = np.zeros(n + 1, dtype=np.int64)
    closing = kernels.slot_starts(offsets, cap_owned, own_lo, own_hi, slot_start)
    cap = np.zeros(n, dtype=np.int64)
    cap[own_lo:own_hi] = np.minimum(cap_owned, degree[own_lo:own_hi])
    np.testing.assert_array_equal(slot_start, np.concatenate([[0], np.cumsum(cap)]))
    own = np.arange(own_lo, own_hi)
    np.testing.assert_array_equal(closing, own[(cap[own] == 0) & (degree[own] > 0)])


def test_one_column_as_source_and_destination_gives_the_single_machine_result(client):
    """``destination`` naming the source column (every row a self-loop): one
    machine answers, the Dask path crashed (a frame holding the column twice
    gives a frame for its name, not a Series)."""
    edges = pd.DataFrame({"src": [0, 1, 2, 3, 3], "dst": [1, 2, 3, 0, 1],
                          "weight": [1.0, 2.0, 1.0, 2.0, 4.0]})
    frame = dd.from_pandas(edges, npartitions=2)
    same(cm.suitor_matching(frame, destination="src"),
         cm.suitor_matching(edges, destination="src", backend="cpu"))
    same(cm.b_suitor_matching(frame, 2, destination="src"),
         cm.b_suitor_matching(edges, 2, destination="src", backend="cpu"))
    parts, q = cm.louvain(frame, destination="src")
    single_parts, single_q = cm.louvain(edges, destination="src", backend="cpu")
    same(parts, single_parts)
    assert q == pytest.approx(single_q)
    assert cm.modularity(frame, single_parts, destination="src") == \
        pytest.approx(cm.modularity(edges, single_parts, destination="src"))


def test_a_released_graph_says_so(client):
    """``DistributedGraph.release()`` frees the parts; using the graph after
    it raised a bare KeyError of the part's key (and logged a failed task on
    every worker).  Every function now says the graph was released."""
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 3.0, 1.0]})
    graph = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2))
    graph.release()
    assert graph.released and "released" in repr(graph)
    parts = pd.DataFrame({"vertex": [0, 1, 2, 3], "community": [0, 0, 1, 1]})
    for call in (lambda: cm.suitor_matching(graph), lambda: cm.b_suitor_matching(graph, 2),
                 lambda: cm.louvain(graph), lambda: cm.leiden(graph),
                 lambda: cm.modularity(graph, parts)):
        with pytest.raises(ValueError, match="was released"):
            call()


@pytest.mark.parametrize("how", ["release", "collected"])
def test_parts_are_freed_after_the_graph_s_client_closed(how):
    """A graph whose client the caller closed (and opened another on the same
    cluster): release() raised ClosedClientError after detaching its
    finalizer, and a collected graph's finalizer skipped the closed client,
    so the workers kept the parts for their lifetime.  Both now go through
    the open client of the graph's scheduler."""
    import gc
    import time

    import distributed

    from cugraph_match.dask import worker

    def held():
        return sorted(k for k in worker.PARTS if k.startswith(graph_id))

    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 3.0, 1.0]})
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        first = distributed.Client(cluster, set_as_default=True)
        graph = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2), client=first)
        graph_id = graph.gid
        assert len(held()) == 2  # in-process workers: this process's PARTS
        first.close()
        with distributed.Client(cluster, set_as_default=True):
            if how == "release":
                graph.release()
            else:
                del graph
                gc.collect()
            deadline = time.monotonic() + 10  # a collected graph's drops are not awaited
            while held() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert held() == []


def test_a_pandas_graph_takes_per_vertex_values_from_dask(client):
    """b (a Series, a vertex|b frame, one side's of two tables) or a
    partition made in a Dask pipeline, given with a pandas edge list: the
    Dask path computed them, one machine failed ("the b frame lacks
    column(s) ... it has [None]", "int() argument must be ... not 'Scalar'");
    now both read them alike."""
    edges = pd.DataFrame({"src": [0, 1, 2, 3, 0], "dst": [1, 2, 3, 0, 2],
                          "weight": [1.0, 2.0, 1.0, 2.0, 3.0]})
    b = pd.Series([1, 2, 1, 2], index=[0, 1, 2, 3])
    b_frame = pd.DataFrame({"vertex": [0, 1, 2, 3], "b": [2, 1, 1, 2]})
    for capacities in (b, b_frame):
        pd.testing.assert_frame_equal(
            cm.b_suitor_matching(edges, dd.from_pandas(capacities, npartitions=2),
                                 backend="cpu"),
            cm.b_suitor_matching(edges, capacities, backend="cpu"))
    sides = {"source": b, "destination": 1}
    pd.testing.assert_frame_equal(
        cm.b_suitor_matching(edges, {"source": dd.from_pandas(b, npartitions=2),
                                     "destination": 1}, backend="cpu", bipartite=True),
        cm.b_suitor_matching(edges, sides, backend="cpu", bipartite=True))
    parts = pd.DataFrame({"vertex": [0, 1, 2, 3], "community": [0, 0, 1, 1]})
    assert cm.modularity(edges, dd.from_pandas(parts, npartitions=2)) == \
        cm.modularity(edges, parts)


def test_ids_one_machine_keeps_as_python_ints_stay_ints(client):
    """uint64 ids above 2**63 beside negative int64 ids have no common NumPy
    type: one machine gives object columns of Python ints.  The Dask frames
    turned them into strings (Dask's ``dataframe.convert-string`` on the
    result's object columns), so the partition could not even be read back by
    ``modularity``; they are ints again, for the matchings, Louvain and two
    tables linked (``bipartite=True``)."""
    edges = pd.DataFrame({"src": np.array([2**63 + 1, 2**63 + 2, 2**63 + 2, 5], dtype=np.uint64),
                          "dst": np.array([-1, 3, -1, 3], dtype=np.int64),
                          "weight": [1.0, 2.0, 3.0, 1.5]})
    frame = dd.from_pandas(edges, npartitions=2, sort=False)
    for got, want in ((cm.suitor_matching(frame), cm.suitor_matching(edges, backend="cpu")),
                      (cm.b_suitor_matching(frame, 2),
                       cm.b_suitor_matching(edges, 2, backend="cpu")),
                      (cm.suitor_matching(frame, bipartite=True),
                       cm.suitor_matching(edges, backend="cpu", bipartite=True))):
        got = got.compute()
        pd.testing.assert_frame_equal(got, want)
        assert {type(x) for x in got.iloc[:, 0] if x is not pd.NA} == {int}
    parts, q = cm.louvain(frame)
    parts = parts.compute()
    assert parts["vertex"].tolist() == cm.louvain(edges, backend="cpu")[0]["vertex"].tolist()
    assert parts["vertex"].dtype == object
    assert cm.modularity(edges, parts) == pytest.approx(q)


@pytest.mark.parametrize("dtype, base", [(np.uint64, 2**63), (np.uint64, 2**62),
                                         (np.int64, 2**62)])
def test_integer_weights_beyond_float64_keep_their_order(client, dtype, base):
    """Integer weights one to four apart above 2**53 are ranked exactly on
    one machine; a bucket's sort in the Dask build read uint64 weights as
    float64 (rounded to ties) and matched by id order instead."""
    rng = np.random.default_rng(4)
    src = rng.integers(0, 30, 120)
    dst = rng.integers(0, 30, 120)
    weights = (np.array([base], dtype=object) + rng.integers(1, 5, 120).astype(object))
    edges = pd.DataFrame({"src": np.r_[src, 8, 8], "dst": np.r_[dst, 7, 6],
                          "weight": np.r_[weights, base + 1, base + 5].astype(dtype)})
    frame = dd.from_pandas(edges, npartitions=2, sort=False)
    same(cm.suitor_matching(frame), cm.suitor_matching(edges, backend="cpu"))
    same(cm.b_suitor_matching(frame, 2), cm.b_suitor_matching(edges, 2, backend="cpu"))


@pytest.mark.parametrize("ids, weights", [(">i8", ">f8"), (">u4", ">f4"), (">i4", ">i8"),
                                          ("<i8", ">f4"), (">i8", None), ("<i8", "<f2"),
                                          ("<i2", "<f2"), ("<u2", "<f16"), ("<i1", "<u1")])
def test_non_native_byte_order_gives_the_single_machine_result(client, ids, weights):
    """Big-endian ids and weights (from a binary file read as such): one
    machine reads the ids in native order and the weights as its
    ``weight_values`` says (a non-native float as float64); the Dask path
    did not reach that far (pandas cannot take rows of a big-endian column,
    Numba cannot read one) and now equals it, frame and dtypes, for the
    matching, the b-matching and modularity.  The same for the widths
    Numba has no type for or reads otherwise: float16 weights (the take
    crashed on them), longdouble, and 1- and 2-byte ids and weights."""
    rng = np.random.default_rng(3)
    src = rng.integers(0, 40, 200)
    dst = rng.integers(0, 40, 200)
    columns = {"src": src.astype(ids), "dst": dst.astype(ids)}
    if weights is not None:
        columns["weight"] = rng.integers(1, 9, 200).astype(weights)
    edges = pd.DataFrame(columns)
    frame = dd.from_pandas(edges, npartitions=3, sort=False)
    same(cm.suitor_matching(frame), cm.suitor_matching(edges, backend="cpu"))
    same(cm.b_suitor_matching(frame, 2), cm.b_suitor_matching(edges, 2, backend="cpu"))
    parts = cm.louvain(edges, backend="cpu")[0]
    assert cm.modularity(frame, parts) == pytest.approx(cm.modularity(edges, parts), abs=1e-12)


def test_modularity_on_workers_with_several_threads_waits_for_its_own_cut_codes(monkeypatch):
    """A worker's sums drop its community codes; they depended on the codes
    sent to it but not on the ones it sends, so on a worker with several
    threads they could drop the codes before its own ``cut_codes`` read them
    (KeyError 'community', 2 of 450 calls under load).  Worker 0's reads are
    slowed here so that, without the dependency, the sums always come first."""
    import time

    import distributed

    from cugraph_match.dask import worker

    read_codes = worker.cut_codes

    def slow_on_worker_0(gid, k):
        if gid.endswith("/0"):
            time.sleep(0.5)
        return read_codes(gid, k)

    monkeypatch.setattr(worker, "cut_codes", slow_on_worker_0)
    edges = pd.DataFrame({"src": [0, 1, 2, 3, 0], "dst": [1, 2, 3, 0, 2],
                          "weight": [1.0, 2.0, 1.0, 2.0, 3.0]})
    parts = pd.DataFrame({"vertex": [0, 1, 2, 3], "community": [0, 0, 1, 1]})
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        graph = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2))
        assert graph.stats["cut_edges"] > 0  # both workers send codes
        assert cm.modularity(graph, parts) == pytest.approx(cm.modularity(edges, parts),
                                                            rel=1e-12)


def test_calls_from_several_threads_on_one_graph_take_turns(client):
    """Runs at once on one DistributedGraph overwrote each other's state in
    the parts (its capacities, slots, a partition's codes): KeyError 'slots',
    b-matchings of 17-33 rows where one machine has 14, another partition's
    Q.  They take turns now, each with its own answer."""
    from concurrent.futures import ThreadPoolExecutor

    edges = random_weighted(1_500, 120, seed=13)
    g = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=3))
    vertices = np.unique(np.concatenate([edges["src"], edges["dst"]]))
    parts = {r: pd.DataFrame({"vertex": vertices, "community": vertices % r}) for r in (2, 5)}
    expected = {("b", 1): cm.b_suitor_matching(edges, 1, backend="cpu"),
                ("b", 3): cm.b_suitor_matching(edges, 3, backend="cpu"),
                ("s", 0): cm.suitor_matching(edges, backend="cpu"),
                ("q", 2): cm.modularity(edges, parts[2]),
                ("q", 5): cm.modularity(edges, parts[5])}

    def run(task):
        kind, arg = task
        if kind == "q":
            return cm.modularity(g, parts[arg])
        result = cm.b_suitor_matching(g, arg) if kind == "b" else cm.suitor_matching(g)
        return result.compute()

    tasks = list(expected) * 3
    with ThreadPoolExecutor(len(expected)) as pool:
        results = list(pool.map(run, tasks))
    for task, got in zip(tasks, results):
        if task[0] == "q":
            assert got == pytest.approx(expected[task], rel=1e-12, abs=1e-15)
        else:
            pd.testing.assert_frame_equal(got, expected[task])


@pytest.mark.parametrize("small_cluster", [(1, True)], indirect=True)
def test_a_graph_whose_worker_left_raises_instead_of_waiting(small_cluster):
    """After client.restart() (what a nanny does to a worker past its memory
    limit) the graph's tasks were pinned to workers that no longer exist,
    and every call waited forever."""
    edges = random_weighted(300, 50, seed=2)
    g = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2), client=small_cluster)
    same_on(small_cluster, cm.suitor_matching(g), cm.suitor_matching(edges, backend="cpu"))
    small_cluster.restart()
    message = r"worker .*, which held part \d of 2, has left the cluster .*build the graph again"
    with pytest.raises(RuntimeError, match=message):
        cm.suitor_matching(g)
    with pytest.raises(RuntimeError, match=message):
        cm.modularity(g, pd.DataFrame({"vertex": [0], "community": [0]}))
    with pytest.raises(RuntimeError, match=message):
        cm.louvain(g)


def test_a_waiting_call_notices_a_worker_that_left(client, monkeypatch):
    """A wait on tasks pinned to a worker that left (the scheduler holds them
    forever) turns into the lost-part error at the next check."""
    from cugraph_match.dask import graph as dg

    edges = random_weighted(300, 50, seed=4)
    g = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2))
    monkeypatch.setattr(dg, "WATCH_SECONDS", 0.2)
    never = client.submit(__import__("time").sleep, 30, pure=False)
    g.workers = [g.workers[0], "tcp://127.0.0.1:1"]  # as if worker 1 had left
    with pytest.raises(RuntimeError, match=r"tcp://127.0.0.1:1, which held part 1 of 2, has "
                                           r"left the cluster"):
        g.wait([never])
    client.cancel(never)


def test_properties_take_the_dask_frame_a_dask_matching_returns(client):
    """matching_weight gave "float() argument must be ... not 'Scalar'" and
    is_matching "'Series' object has no attribute 'duplicated'"."""
    edges = random_weighted(400, 80, seed=6)
    matched = cm.suitor_matching(dd.from_pandas(edges, npartitions=2))
    single = cm.suitor_matching(edges, backend="cpu")
    assert cm.matching_weight(matched) == cm.matching_weight(single)
    assert cm.is_matching(edges, matched, maximal=True)


def test_a_graph_outlives_its_closed_client(client):
    """Closing the graph's client and opening another on the same cluster
    left the graph unusable (ClosedClientError) though its parts were there."""
    edges = random_weighted(300, 50, seed=8)
    first = distributed.Client(client.scheduler.address, set_as_default=False)
    g = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2), client=first)
    first.close()
    same(cm.suitor_matching(g), cm.suitor_matching(edges, backend="cpu"))


def test_superstep_batches_shrink_as_the_messages_run_out():
    """The client's batches of supersteps: doubling (capped) while the counts
    do not fall, and near the end only the rounds the fall predicts, not a
    whole doubled batch of idle supersteps (R-MAT 20's counts on 2 workers)."""
    from cugraph_match.dask.rounds import FIRST_BATCH, MAX_BATCH, next_batch

    counts = [571005, 461970, 150588, 73511, 16009, 6030, 839, 188, 21, 2, 0]
    assert next_batch(counts[:4], FIRST_BATCH) == 2 * FIRST_BATCH  # far from the end
    assert next_batch([10, 10, 10, 10], 4) == 8  # not falling: doubled
    assert next_batch([5, 6, 7, 8], 4) == 8
    assert next_batch([10**6] * 40, MAX_BATCH) == MAX_BATCH  # capped
    # a batch of eight rounds ending at 2 (461,970 the round before it): two more
    # rounds (the last reports none), not sixteen
    assert next_batch(counts[:10], 8) == 2
    assert next_batch([100, 10, 1], 2) == 1  # one message left: one round
    assert next_batch([7], 4) == 8  # a single count says nothing of the rate
    # a run of any length reaches its end: the batches never fall to zero
    for messages in ([3, 2, 1, 1, 1, 1, 1, 1], [9, 1, 9, 1], counts[:-1]):
        for b in range(1, MAX_BATCH + 1):
            assert 1 <= next_batch(messages, b) <= min(2 * b, MAX_BATCH)


@pytest.fixture(scope="module", params=[1, 3, 4], ids=lambda p: f"{p}-workers")
def threaded_cluster(request):
    """In-process clusters of other sizes than the module's 2 processes."""
    cluster = distributed.LocalCluster(n_workers=request.param, threads_per_worker=1,
                                       processes=False, dashboard_address=None)
    with distributed.Client(cluster, set_as_default=False) as c:
        yield c
    cluster.close()


@settings(max_examples=examples(6), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(), partitions=st.integers(1, 8), b=st.sampled_from([0, 1, 2, 5]))
def test_matchings_on_one_three_and_four_threaded_workers(threaded_cluster, edges, partitions,
                                                          b):
    # the matchings over every worker count the issue names (the module's
    # cluster has 2), 1-8 input partitions, against the single machine
    frame, edges = dask_frame(edges, partitions)
    graph = cm.dask.DistributedGraph(frame, client=threaded_cluster)
    single = cm.suitor_matching(edges, backend="cpu")
    same_on(threaded_cluster, cm.suitor_matching(graph), single)
    same_on(threaded_cluster, cm.b_suitor_matching(graph, b=b),
            cm.b_suitor_matching(edges, b=b, backend="cpu"))
