"""Louvain on a Dask edge list (cugraph_match.dask.louvain), on LocalClusters
of 1, 2 and 3 workers: the single-machine contract (every vertex once,
communities 0..k-1 by first vertex, Q equal to ``cm.modularity`` of the
frame returned), quality against the single machine on the shared real
graphs (Q ≥ 0.99 × one machine's, every level distributed or the coarse
rest on one worker), the same result on every run, and the single-machine
errors.  The exact partition may differ from one machine's (see the module
notes of cugraph_match/dask/louvain.py)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA
from strategies import edge_frames

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
dask_louvain = pytest.importorskip("cugraph_match.dask.louvain")
one_machine = importlib.import_module("cugraph_match.community.louvain")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from rmat import rmat_edges  # noqa: E402

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]


@pytest.fixture
def every_level_distributed(monkeypatch):
    """No coarse graph is small enough for one worker: every level runs on all."""
    monkeypatch.setattr(dask_louvain, "FINISH_EDGES", 0)
    monkeypatch.setattr(dask_louvain, "FINISH_SHARE", 0.0)


def check_contract(result, q, edges, resolution=1.0):
    """One row per vertex, sorted by vertex in each partition, communities
    numbered by first vertex, Q equal to the frame's modularity."""
    assert result.known_divisions
    parts = result.compute()
    assert parts.index.equals(pd.RangeIndex(len(parts)))
    single = cm.Graph(edges, backend="cpu")
    assert len(parts) == single.num_vertices
    assert parts["vertex"].is_unique
    assert parts["vertex"].tolist() == sorted(parts["vertex"].tolist())
    codes = parts["community"].to_numpy()
    first_seen = pd.unique(codes)
    assert first_seen.tolist() == list(range(len(first_seen)))
    assert q == pytest.approx(cm.modularity(edges, parts, resolution=resolution),
                              rel=1e-9, abs=1e-12)
    return parts


#: Q over one machine's that the distributed call must reach: the issue's bar
#: on the default path; with every level forced across the workers (even a
#: 34-vertex graph's), the machinery's own bar (measured: 0.948 on karate,
#: 0.989-1.0 on the others).
BAR = {"default": 0.99, "every level distributed": 0.94}


#: The forced path runs on six of the shared graphs: the larger ones (MIT8,
#: wing, astro-ph, wiki-Vote, 4elt) run their first level across the workers
#: on the default path already, and every forced pass costs Dask round trips
#: (the forced path on all 15 took 60 s of the unit pass; all passed).
FORCED = [p for p in GRAPHS if p.stem in ("karate", "lesmis", "jazz", "celegans_metabolic",
                                          "polblogs", "hep-th")]


@needs_shared
@pytest.mark.parametrize("path,path_kind",
                         [(p, "default") for p in GRAPHS] +
                         [(p, "every level distributed") for p in FORCED],
                         ids=lambda v: getattr(v, "stem", v))
def test_shared_graphs_reach_the_single_machine_quality(client, path, path_kind, monkeypatch):
    if path_kind == "every level distributed":
        monkeypatch.setattr(dask_louvain, "FINISH_EDGES", 0)
        monkeypatch.setattr(dask_louvain, "FINISH_SHARE", 0.0)
    edges, _ = read_graph(path)
    result, q = cm.louvain(dd.from_pandas(edges, npartitions=3))
    check_contract(result, q, edges)
    _, single_q = cm.louvain(edges, backend="cpu")
    assert q >= BAR[path_kind] * single_q


def test_rmat_reaches_the_single_machine_quality(client):
    """R-MAT 15 on the 2 workers, its first phase distributed (about half the
    edges cut): Q ≥ 0.99 × one machine's.  With the singleton rule in the
    first phase and every vertex moving every pass it was 0.970-0.977 (seeds
    0-2); now 1.007-1.008."""
    seed = 1
    edges = rmat_edges(15, seed=1)
    result, q, stats = dask_louvain.louvain_dask(
        dd.from_pandas(edges, npartitions=4), "src", "dst", "weight", 1.0, 1e-7, 100, "auto",
        seed, True, one_machine.louvain_of_edge_frame, one_machine.COARSE_THRESHOLD,
        one_machine.COARSE_ABOVE_VERTICES, one_machine.MAX_PASSES, return_stats=True)
    assert stats["levels"], "the first phase ran on the workers"
    check_contract(result, q, edges)
    _, single_q = cm.louvain(edges, backend="cpu", seed=seed)
    assert q >= 0.99 * single_q


def test_same_result_on_every_run_and_a_reused_graph(client, every_level_distributed):
    edges = cm.datasets.load("netscience")
    frame = dd.from_pandas(edges, npartitions=2)
    first, q = cm.louvain(frame, seed=3)
    graph = cm.dask.DistributedGraph(frame)
    again, q_again = cm.louvain(graph, seed=3)
    pd.testing.assert_frame_equal(first.compute(), again.compute())
    assert q == q_again
    # the graph is left as it was: a matching on it still equals one machine's
    pd.testing.assert_frame_equal(cm.suitor_matching(graph).compute(),
                                  cm.suitor_matching(edges, backend="cpu"))


@settings(max_examples=examples(10), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(max_vertices=40, max_edges=120), partitions=st.sampled_from([1, 2, 3]),
       resolution=st.sampled_from([0.5, 1.0, 2.0]), refine=st.booleans(),
       everywhere=st.booleans())
def test_random_graphs_keep_the_contract(client, edges, partitions, resolution, refine,
                                         everywhere):
    """Ties (small integer weights), string ids, self-loops and duplicates;
    Q never below the all-singletons partition's."""
    if not len(edges):
        return
    saved = dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE
    if everywhere:
        dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = 0, 0.0
    try:
        frame = dd.from_pandas(edges, npartitions=min(partitions, len(edges)), sort=False)
        edges = frame.compute()
        result, q = cm.louvain(frame, resolution=resolution, refine=refine)
    finally:
        dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = saved
    parts = check_contract(result, q, edges, resolution)
    singletons = parts.assign(community=np.arange(len(parts)))
    assert q >= cm.modularity(edges, singletons, resolution=resolution) - 1e-12


@pytest.mark.parametrize("workers,processes", [(1, True), (3, False)])
def test_other_cluster_shapes(workers, processes):
    """One worker process, three threaded workers (boundary vertices in turns),
    every level distributed."""
    edges = cm.datasets.load("netscience")
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=processes, dashboard_address=None)
    with distributed.Client(cluster) as own:
        saved = dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE
        dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = 0, 0.0
        try:
            graph = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=2), client=own)
            assert len(graph.workers) == workers
            result, q = cm.louvain(graph)
            check_contract(result, q, edges)
        finally:
            dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = saved
        _, single_q = cm.louvain(edges, backend="cpu")
        assert q >= 0.99 * single_q
    cluster.close()


@pytest.fixture(scope="module")
def four_workers():
    cluster = distributed.LocalCluster(n_workers=4, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    with distributed.Client(cluster) as own:
        yield own
    cluster.close()


def test_workers_sharing_a_cut_edge_never_move_boundary_vertices_together(four_workers):
    """The colouring behind the turns: no two workers that share a cut edge
    have one colour; a path's row ranges need two colours, R-MAT's (every
    pair of workers shares cut edges) one per worker."""
    n = 4000
    path = pd.DataFrame({"src": np.arange(n - 1), "dst": np.arange(1, n)})
    for edges, colours in ((path, 2), (rmat_edges(12, seed=3), 4)):
        g = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=4), client=four_workers)
        colour = dask_louvain.worker_colours(g)
        cut = np.array([part["cut"] for part in g.parts])
        assert (cut == cut.T).all()
        shared = np.argwhere(cut > 0)
        assert (colour[shared[:, 0]] != colour[shared[:, 1]]).all()
        assert int(colour.max()) + 1 == colours


@needs_shared
@pytest.mark.parametrize("name", ["lesmis", "jazz", "wiki-Vote"])
def test_four_workers_reach_the_single_machine_quality(four_workers, name,
                                                       every_level_distributed):
    """Four workers, every level across them: Q ≥ 0.99 × one machine's.  With
    even and odd workers' boundary vertices in turns (two even workers'
    moving at once across their cut edges) lesmis and wiki-Vote (0.983)
    fell under the bar here."""
    edges, _ = read_graph(SHARED_DATA / "graphs" / f"{name}.mtx")
    graph = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=4), client=four_workers)
    assert len(graph.workers) == 4
    result, q = cm.louvain(graph)
    check_contract(result, q, edges)
    _, single_q = cm.louvain(edges, backend="cpu")
    assert q >= 0.99 * single_q


@pytest.mark.parametrize("kwargs,error", [
    ({"resolution": 0}, ValueError), ({"resolution": float("nan")}, ValueError),
    ({"threshold": -1.0}, ValueError), ({"max_level": 0}, ValueError),
    ({"seed": 1.5}, TypeError), ({"backend": "tpu"}, ValueError),
    ({"weight": "missing"}, (KeyError, ValueError)),
])
def test_bad_arguments_give_the_single_machine_error(client, kwargs, error):
    edges = cm.datasets.load("karate")
    frame = dd.from_pandas(edges, npartitions=2)
    with pytest.raises(error) as distributed_error:
        cm.louvain(frame, **kwargs)
    if "backend" not in kwargs:
        with pytest.raises(error) as single_error:
            cm.louvain(edges, backend="cpu", **kwargs)
        assert str(distributed_error.value) == str(single_error.value)


@pytest.mark.parametrize("exponent", [1000, -1060])
@pytest.mark.parametrize("algorithm", ["louvain", "leiden"])
def test_weights_at_the_ends_of_float64_give_the_unscaled_result(client, algorithm,
                                                                 exponent,
                                                                 every_level_distributed):
    """Weights near 1e308 overflowed the degree sums (Q nan) and near 1e-308
    underflowed their products (ZeroDivisionError); one machine rescales them
    by a power of two (``sum_safe``).  The Dask path now does too, over the
    whole graph: integer weights times 2**1000 or 2**-1060 (exact, subnormal
    for the latter) give the same partition and Q, bit for bit, as the
    weights themselves, every level run across the workers; and modularity
    of a partition is the unscaled one."""
    edges = cm.datasets.load("lesmis")
    weights = np.random.default_rng(5).integers(1, 9, len(edges)).astype(np.float64)
    edges = edges.assign(weight=weights)
    scaled = edges.assign(weight=np.ldexp(weights, exponent))
    run = getattr(cm, algorithm)
    parts, q = run(dd.from_pandas(edges, npartitions=2), seed=1)
    scaled_parts, scaled_q = run(dd.from_pandas(scaled, npartitions=2), seed=1)
    pd.testing.assert_frame_equal(scaled_parts.compute(), parts.compute())
    assert scaled_q == q
    expected = cm.modularity(edges, parts.compute())
    assert cm.modularity(dd.from_pandas(scaled, npartitions=3), parts.compute()) == \
        pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("algorithm", ["louvain", "leiden"])
def test_weights_spanning_more_than_float64_keep_every_edge(client, algorithm):
    """Weights 1e-300 beside 1.7e308: the rescaling by the largest took the
    small ones to 0.0, and the finish on one worker refused the coarse edges
    as zero weights of the caller's; they now stay float64's least, and the
    call gives one machine's Q."""
    edges = pd.DataFrame({"src": [0, 0, 1, 3, 3, 4, 2], "dst": [1, 2, 2, 4, 5, 5, 3],
                          "weight": [1e-300] * 6 + [1.7e308]})
    run = getattr(cm, algorithm)
    parts, q = run(dd.from_pandas(edges, npartitions=2))
    parts = parts.compute()
    assert parts["vertex"].tolist() == list(range(6))
    assert q == pytest.approx(run(edges, backend="cpu")[1], abs=1e-12)
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-12)


def test_a_negative_seed_is_taken_modulo_2_64_as_on_one_machine(client,
                                                                every_level_distributed):
    """One machine takes seed -5 as 2**64 - 5; the Dask path crashed in
    NumPy's SeedSequence on a worker."""
    frame = dd.from_pandas(cm.datasets.load("karate"), npartitions=2)
    parts, q = cm.louvain(frame, seed=-5)
    again, q_again = cm.louvain(frame, seed=2**64 - 5)
    pd.testing.assert_frame_equal(parts.compute(), again.compute())
    assert q == q_again


def test_bad_edges_give_the_single_machine_error(client):
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0], "weight": [1.0, -2.0, 1.0]})
    with pytest.raises(ValueError) as single_error:
        cm.louvain(edges, backend="cpu")
    with pytest.raises(ValueError) as distributed_error:
        cm.louvain(dd.from_pandas(edges, npartitions=2))
    assert str(distributed_error.value) == str(single_error.value)


def test_levels_and_passes_are_logged_at_info(client, caplog, every_level_distributed):
    edges = cm.datasets.load("lesmis")
    with caplog.at_level("INFO", logger="cugraph_match"):
        cm.louvain(dd.from_pandas(edges, npartitions=2))
    messages = [r.getMessage() for r in caplog.records]
    assert any("dask louvain level" in m for m in messages)
    assert any("dask louvain pass" in m for m in messages)


@pytest.mark.parametrize("given", ["graph", "frame"])
def test_coarse_levels_are_freed_before_the_finish(given):
    """A done level's parts are freed before the next level is built or the
    rest finished on one worker (DistributedGraph.release), not when the
    level's graph is collected after the loop; level 0's too when the call
    built it from the caller's frame (built again for the end; a caller's
    DistributedGraph stays): seen from inside the finish, on threaded
    workers (one process, one PARTS table)."""
    from cugraph_match.dask import worker

    PARTS = worker.PARTS
    single = importlib.import_module("cugraph_match.community.louvain")

    def finish(*args):
        # the task arrives serialized: reach the worker's table through its module
        import sys

        here = sys.modules["cugraph_match.dask.worker"]
        here.keys_at_finish = set(here.PARTS)
        return importlib.import_module("cugraph_match.community.louvain") \
            .louvain_of_edge_frame(*args)

    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                            dashboard_address=":0") as own:
        edges = cm.datasets.load("netscience")
        frame = dd.from_pandas(edges, npartitions=2)
        graph = cm.dask.DistributedGraph(frame, client=own)
        before = set(PARTS)
        saved = dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE
        dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = 500, 0.0  # 2 levels, then one worker
        try:
            result, q, stats = dask_louvain.louvain_dask(
                graph if given == "graph" else frame, "src", "dst", "weight", 1.0, 1e-7, 100,
                "auto", 0, True, finish, single.COARSE_THRESHOLD, single.COARSE_ABOVE_VERTICES,
                single.MAX_PASSES, return_stats=True)
            check_contract(result, q, edges)
        finally:
            dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = saved
        assert stats["finish"]["levels_before"] >= 2, stats  # a coarse level was built
        assert stats.get("level0_rebuilt", False) == (given == "frame")
        seen = worker.__dict__.pop("keys_at_finish")
        assert seen <= before, seen - before
        graph.release()
        assert not any(graph.gid in key for key in PARTS)


@pytest.mark.parametrize("name", ["netscience", "multigraph"])
def test_each_worker_gets_the_exact_totals_of_its_own_communities(name, monkeypatch):
    """The level's community totals live on the client; after each pass a
    worker gets those of the distinct communities of its local vertices
    only (its slots), fewer than the level's vertices.  Checked at every
    hand-over against the totals recomputed from every worker's partition
    (threaded workers: one PARTS table); fails if a pass's moves are not
    added, or a worker's slots miss a community a local vertex is in."""
    from cugraph_match.dask import louvain_worker as lw
    from cugraph_match.dask import worker

    monkeypatch.setattr(dask_louvain, "FINISH_EDGES", 0)
    monkeypatch.setattr(dask_louvain, "FINISH_SHARE", 0.0)
    # netscience's totals are scattered to the workers, the multigraph's go inside the tasks
    monkeypatch.setattr(dask_louvain, "INLINE_BYTES", 0 if name == "netscience" else 1 << 20)
    real, seen = dask_louvain._slot_values, []

    def checked(g, total, size, reports):
        parts = [worker.PARTS[worker.part_key(g.gid, k)] for k in range(len(g.workers))]
        exact_total = np.zeros(g.num_vertices)
        exact_size = np.zeros(g.num_vertices, dtype=np.int64)
        for part in parts:
            state = part.run[lw.STATE]
            own = state["community"][part.own_lo:part.own_hi]
            np.add.at(exact_total, own, state["degree"])
            np.add.at(exact_size, own, 1)
        np.testing.assert_allclose(total, exact_total, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(size, exact_size)
        for part, report in zip(parts, reports):
            np.testing.assert_array_equal(report["slots"],
                                          np.unique(part.run[lw.STATE]["community"]))
        seen.append(max(len(r["slots"]) for r in reports) / g.num_vertices)
        return real(g, total, size, reports)

    monkeypatch.setattr(dask_louvain, "_slot_values", checked)
    edges = _multigraph(2) if name == "multigraph" else cm.datasets.load(name)
    with distributed.Client(processes=False, n_workers=3, threads_per_worker=1,
                            dashboard_address=":0"):
        result, q = cm.louvain(dd.from_pandas(edges, npartitions=3))
        check_contract(result, q, edges)
    assert len(seen) > 3  # phase starts and passes, more than one level
    assert min(seen) < 1.0, seen


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_a_pass_s_changes_are_summed_as_the_moves_listed_would_be(data):
    """``pass_changes`` (dense over a worker's slots) gives the communities
    a pass touched, in id order, with the sums a bincount of the leaving
    then joining vertices' degrees gives (bit for bit: the client's totals,
    and so the next pass's choices, depend on them) and the member counts."""
    from cugraph_match.dask import louvain_worker as lw

    n_slots = data.draw(st.integers(1, 4))  # few: many moves into each
    slot_ids = np.unique(np.array(data.draw(st.lists(st.integers(0, 40), min_size=n_slots,
                                                     max_size=n_slots, unique=True))))
    n = data.draw(st.integers(1, 30))
    own_lo = data.draw(st.integers(0, min(3, n)))
    own_hi = data.draw(st.integers(own_lo, n))
    slot_of = np.array(data.draw(st.lists(st.integers(0, len(slot_ids) - 1), min_size=n,
                                          max_size=n)), dtype=np.int64)
    community = slot_ids[slot_of].copy()  # before the pass; some owned ones moved
    for v in range(own_lo, own_hi):
        if data.draw(st.booleans()):
            community[v] = slot_ids[data.draw(st.integers(0, len(slot_ids) - 1))]
    degree = np.array(data.draw(st.lists(st.sampled_from([0.1, 0.7, 0.3, 1.0, 1e16, 1e-9]),
                                         min_size=own_hi - own_lo,
                                         max_size=own_hi - own_lo)), dtype=np.float64)
    ids, sums, counts, moved = lw.pass_changes(slot_of, slot_ids, community, degree,
                                               own_lo, own_hi)
    mine = np.arange(own_lo, own_hi)
    changed = np.flatnonzero(slot_ids[slot_of[mine]] != community[mine])
    old, new = community[mine][changed], slot_ids[slot_of[mine]][changed]
    want_ids, inverse = np.unique(np.concatenate([old, new]), return_inverse=True)
    inverse = inverse.reshape(-1)
    weights = np.concatenate([-degree[changed], degree[changed]])
    ones = np.concatenate([-np.ones(len(old)), np.ones(len(new))])
    assert moved == len(changed)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_array_equal(sums, np.bincount(inverse, weights=weights,
                                                    minlength=len(want_ids)))
    np.testing.assert_array_equal(counts, np.bincount(inverse, weights=ones,
                                                      minlength=len(want_ids)).astype(np.int64))


def _multigraph(seed):
    """Random ids with duplicates (largest weight kept) and self-loops."""
    rng = np.random.default_rng(seed)
    n, m = 40, 200
    return pd.DataFrame({"src": rng.integers(0, n, m) * 7, "dst": rng.integers(0, n, m) * 7,
                         "weight": rng.choice([0.5, 1.0, 3.0, 1e-9], m)})


@pytest.mark.parametrize("name", ["karate", "netscience", "multigraph"])
@pytest.mark.parametrize("npartitions", [1, 3])
def test_a_coarse_level_is_the_summed_aggregate_of_the_level(client, name, npartitions):
    """The workers' coarse edges of a partition hold every edge once (each
    worker's frame has each pair once), add up to one machine's aggregate
    (duplicates at their largest weight, each edge's weight to its
    communities' pair, a community's inside edges and self-loops to its
    self-loop), and the next level built from them without a shuffle has
    that aggregate's edges and modularity."""
    from cugraph_match.dask import louvain_worker as lw

    edges = _multigraph(npartitions) if name == "multigraph" else cm.datasets.load(name)
    g = cm.dask.DistributedGraph(dd.from_pandas(edges, npartitions=npartitions), client=client)
    p = len(g.workers)
    client.gather([g.submit(k, lw.start, int(g.offsets[k])) for k in range(p)])
    vertices = np.unique(np.concatenate([edges["src"], edges["dst"]]))
    rng = np.random.default_rng(5)
    community = pd.Series(rng.integers(0, max(len(vertices) // 4, 1), len(vertices)),
                          index=vertices)
    try:
        for k, labels in enumerate(g.on_all(lw.owned_labels_of_level)):
            g.submit(k, lw.set_owned_communities,
                     community.reindex(labels.to_numpy()).to_numpy()).result()
        blocks = [[g.submit(i, lw.owned_block, None, k) if i != k else None
                   for k in range(p)] for i in range(p)]
        client.gather([g.submit(k, lw.phase_totals, *[blocks[i][k] for i in range(p)])
                       for k in range(p)])
        pieces = [g.submit(k, lw.coarse_edges) for k in range(p)]
        frames = client.gather(pieces)
    finally:
        g.on_all(lw.end)
    for frame in frames:
        assert not frame.duplicated(["src", "dst"]).any()
        assert (frame["src"] <= frame["dst"]).all()
    got = pd.concat(frames).groupby(["src", "dst"], as_index=False)["weight"].sum()
    # one machine's aggregate, from the fine edge set
    lo = np.minimum(edges["src"], edges["dst"])
    hi = np.maximum(edges["src"], edges["dst"])
    fine = pd.DataFrame({"lo": lo, "hi": hi, "w": edges["weight"].astype(np.float64)})
    fine = fine.groupby(["lo", "hi"], as_index=False)["w"].max()
    cu = community.reindex(fine["lo"].to_numpy()).to_numpy()
    cv = community.reindex(fine["hi"].to_numpy()).to_numpy()
    want = pd.DataFrame({"src": np.minimum(cu, cv), "dst": np.maximum(cu, cv),
                         "weight": fine["w"].to_numpy()})
    want = want.groupby(["src", "dst"], as_index=False)["weight"].sum()
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)
    # the next level, built straight from the pieces
    coarse = cm.dask.DistributedGraph.of_summed_pieces(pieces, client)
    assert pieces == []  # handed over: freed once taken
    assert coarse.num_edges == int((want["src"] != want["dst"]).sum())
    ids = np.unique(np.concatenate([want["src"], want["dst"]]))
    halves = pd.DataFrame({"vertex": ids, "community": ids % 2})
    assert cm.modularity(coarse, halves) == pytest.approx(
        cm.modularity(want, halves), rel=1e-12, abs=1e-15)
    coarse.release()


@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_the_finish_sums_what_several_workers_reported(data):
    """The finish on one worker receives every worker's coarse frame: a pair
    (or a community's self-loop) several workers reported is one edge with
    their weights added, as one machine's aggregate has it."""
    from cugraph_match.dask import louvain_worker as lw

    pairs = st.tuples(st.integers(0, 12), st.integers(0, 12),
                      st.sampled_from([0.5, 1.0, 2.0, 1e-9]))
    frames = []
    for rows in data.draw(st.lists(st.lists(pairs, max_size=15), min_size=1, max_size=4)):
        frame = pd.DataFrame(rows, columns=["src", "dst", "weight"]).astype(
            {"src": np.int64, "dst": np.int64, "weight": np.float64})
        frame[["src", "dst"]] = np.sort(frame[["src", "dst"]].to_numpy(), axis=1)
        frames.append(frame)
    whole = pd.concat(frames, ignore_index=True)
    if whole.empty:
        return
    got = lw.finish_coarse(lambda frame, *args: frame, 1.0, 1e-7, 1, 0, *frames)
    got = got.sort_values(["src", "dst"], ignore_index=True)
    want = whole.groupby(["src", "dst"], as_index=False)["weight"].sum()
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("threshold", [1e-7, 1.0, float("inf")])
@pytest.mark.parametrize("seed", [0, 3])
def test_a_small_graph_is_one_machines_louvain_refinement_included(client, threshold, seed):
    """Under FINISH_EDGES the levels ran on one worker without refinement,
    and the refinement then ran split across the workers: its coin-gated
    passes stopped short of one machine's at a large threshold (80 edges,
    threshold=1: Q 0.2508 against 0.2663).  The partition is one machine's
    now, refinement included."""
    rng = np.random.default_rng(seed)
    edges = pd.DataFrame({"src": rng.integers(0, 25, 80), "dst": rng.integers(0, 25, 80),
                          "weight": rng.random(80) + 0.1})
    parts, q = cm.louvain(dd.from_pandas(edges, npartitions=3), threshold=threshold, seed=seed)
    one_parts, one_q = cm.louvain(edges, backend="cpu", threshold=threshold, seed=seed)
    got = parts.compute().sort_values("vertex").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, one_parts.sort_values("vertex").reset_index(drop=True),
                                  check_dtype=False)
    assert q == pytest.approx(one_q, rel=1e-12)


@pytest.mark.parametrize("algorithm", ["louvain", "leiden"])
def test_a_resolution_near_float64_max(client, algorithm, monkeypatch):
    """The whole graph on one worker (small) is one machine's call, which
    rescales the weights for such a resolution: the singletons and their Q
    (it was -inf: the Q of the workers' sums formed resolution * sum of
    squared totals).  Split across the workers the levels refuse it, naming
    the largest resolution that works."""
    import networkx as nx

    edges = nx.to_pandas_edgelist(nx.karate_club_graph(), source="src", target="dst")
    run = getattr(cm, algorithm)
    parts, q = run(dd.from_pandas(edges, npartitions=2), resolution=1e307)
    parts = parts.compute()
    assert parts["community"].nunique() == len(parts)
    assert q == pytest.approx(cm.modularity(edges, parts, resolution=1e307), rel=1e-12)
    monkeypatch.setattr(dask_louvain, "FINISH_EDGES", 0)
    monkeypatch.setattr(dask_louvain, "FINISH_SHARE", 0.0)
    with pytest.raises(ValueError, match=r"resolution 1e\+307 is too large for the distributed "
                                         r"levels.*use a resolution below"):
        run(dd.from_pandas(edges, npartitions=2), resolution=1e307)
    parts, q = run(dd.from_pandas(edges, npartitions=2), resolution=1e300)  # under the bound
    assert q == pytest.approx(cm.modularity(edges, parts.compute(), resolution=1e300), rel=1e-9)
