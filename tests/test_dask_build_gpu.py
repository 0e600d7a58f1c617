"""A worker's part built and kept on its GPU (``cugraph_match.dask.build_gpu``)
against the host build it stands beside, in Numba's CUDA simulator with the
host code on the strict CuPy stand-in:

* the part's arrays equal the host part's bit for bit (dtypes included), for
  every integer id dtype at the edges of its range, ties, duplicates,
  self-loops, any number of workers and any owner;
* the run's first arrays and the matched pairs computed on the device equal
  the host kernels' (``kernels.quiet_vertices``, ``kernels.matched_pairs``);
* on a threaded cluster, the matchings of a graph built on the workers'
  GPUs equal the greedy oracle and the host-built graph's, row for row; ids
  the device build does not take (strings) are built on the host; Louvain
  and modularity read a host copy of the device parts.
"""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import cugraph_match as cm
from cugraph_match.dask import build, build_gpu, kernels
from cugraph_match.dask import worker as w
from cugraph_match.structure.edges import to_host
from cupy_standin import LAUNCHES, cupy, installed
from oracle import edge_tuples, greedy_b_matching
from strategies import edge_frames

pytestmark = [pytest.mark.cudasim,
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]

NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]
ID_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]
WEIGHT_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint64]


@st.composite
def staged_graphs(draw):
    """Pieces of integer ids near the edges of their dtype's range (a dense
    table or a sorted union), few distinct weights, and a worker's view:
    the number of workers, which one, and the range boundaries."""
    dtype = np.dtype(draw(st.sampled_from(ID_DTYPES)))
    info = np.iinfo(dtype)
    spread = draw(st.sampled_from([1, 3, max(1, int(info.max) // 64)]))
    low = draw(st.sampled_from([int(info.min), 0, int(info.max) // 2]))
    count = draw(st.integers(1, 30))
    m = draw(st.integers(0, 50))
    offsets = draw(st.lists(st.integers(0, count), min_size=2 * m, max_size=2 * m))
    values = np.array([min(low + spread * o, int(info.max)) for o in offsets],
                      dtype=object).astype(dtype)
    u, v = values[:m], values[m:]
    wdtype = np.dtype(draw(st.sampled_from(WEIGHT_DTYPES)))
    # integers beyond float64's precision: weights one apart must keep their order
    big = {np.dtype(np.uint64): [2 ** 64 - 1, 2 ** 64 - 2, 2 ** 63 + 1],
           np.dtype(np.int64): [2 ** 62 + 1, 2 ** 62 + 2]}
    w_ = np.array(draw(st.lists(st.sampled_from([1, 2, 3, 250] + big.get(wdtype, [])),
                                min_size=m, max_size=m)), dtype=wdtype)
    weighted = draw(st.booleans())
    cuts = sorted(draw(st.lists(st.integers(0, m), max_size=3)))
    bounds = [0] + cuts + [m]
    pieces = [(u[a:b], v[a:b], w_[a:b] if weighted else None) for a, b in zip(bounds, bounds[1:])]
    workers = draw(st.integers(1, 4))
    present = np.unique(values) if m else np.zeros(1, dtype=dtype)
    boundaries = np.sort(np.array([present[draw(st.integers(0, len(present) - 1))]
                                   for _ in range(workers - 1)], dtype=dtype))
    me = draw(st.integers(0, workers - 1))
    return pieces, weighted, workers, me, boundaries


def _stage(gid: str, pieces, device: bool, boundaries, workers: int, me: int) -> None:
    """Each piece as an input partition, the partitions one group (as one
    worker holding them all reads them), routed and taken for worker ``me``
    by the host's or the device's steps, and absorbed."""
    steps = build_gpu if device else build
    weight = "weight" if pieces[0][2] is not None else None
    frames = [pd.DataFrame({"src": u, "dst": v, **({"weight": w_} if w_ is not None else {})})
              for u, v, w_ in pieces]
    routes = build.route_group(steps.route_partition, "src", "dst", boundaries, workers, None,
                               *frames)
    taken = build.take_group(steps.take_piece, routes, me, "src", "dst", weight, None, None,
                             *frames)
    assert len(taken) == len(frames)
    build.absorb_pieces(gid, taken)


def _host(a):
    return to_host(a) if a is not None else None


def assert_same_array(device, host, name: str) -> None:
    if host is None:
        assert device is None, name
        return
    got = _host(device)
    assert got.dtype == host.dtype, (name, got.dtype, host.dtype)
    np.testing.assert_array_equal(got, host, err_msg=name)


def built_parts(pieces, weighted, workers, me, boundaries):
    """The host part and the device part of the same pieces."""
    parts = []
    for device in (False, True):
        gid = f"test-build-gpu/{device}"
        bounds = boundaries if workers > 1 else None
        try:
            _stage(gid, pieces, device, bounds, workers, me)
            w.build_part(gid, me, workers, bounds, weighted, False, "ids", False, device)
        finally:
            build.drop_staged_all("test-build-gpu")
        parts.append(w.PARTS.pop(gid))
    return parts


# uint64 weights one apart above 2**63 (float64 would tie them), two workers, two pieces
_BIG = np.array([2 ** 64 - 1, 2 ** 64 - 2, 2 ** 63 + 1, 2 ** 64 - 2], dtype=np.uint64)
_U, _V = np.array([0, 1, 2, 0], dtype=np.int64), np.array([1, 2, 3, 3], dtype=np.int64)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=staged_graphs())
@example(case=([(_U[:2], _V[:2], _BIG[:2]), (_U[2:], _V[2:], _BIG[2:])], True, 2, 0,
               np.array([2], dtype=np.int64)))
def test_device_part_equals_the_host_part(case):
    pieces, weighted, workers, me, boundaries = case
    with installed():
        host, device = built_parts(pieces, weighted, workers, me, boundaries)
    assert device.on_device and not host.on_device
    np.testing.assert_array_equal(_host(device.labels), host.labels.to_numpy())
    assert _host(device.labels).dtype == host.labels.dtype
    assert (device.own_lo, device.own_hi, device.keys) == (host.own_lo, host.own_hi, host.keys)
    for name in ("owner_of", "cut_start", "cut_own", "cut_ghost", "cut_key",
                 "entry_cut", "loop"):
        assert_same_array(getattr(device, name), getattr(host, name), name)
    for name in ("offsets", "indices", "keys", "weight_of_key"):
        assert_same_array(getattr(device.pref, name), getattr(host.pref, name), name)
    # the run's first arrays: capacities 0-2 per owned vertex
    cap = np.arange(host.own_hi - host.own_lo, dtype=np.int64) % 3
    with installed():
        slot_start, closing, quiet = build_gpu.run_arrays(device, cap)
    degree = np.diff(host.pref.offsets).astype(np.int64)
    expected_cap = np.zeros(len(degree), dtype=np.int64)
    expected_cap[host.own_lo:host.own_hi] = np.minimum(cap, degree[host.own_lo:host.own_hi])
    np.testing.assert_array_equal(_host(slot_start), np.concatenate([[0],
                                                                     np.cumsum(expected_cap)]))
    own = np.arange(host.own_lo, host.own_hi)
    np.testing.assert_array_equal(
        _host(closing), own[(expected_cap[own] == 0) & (degree[own] > 0)])
    np.testing.assert_array_equal(
        _host(quiet), kernels.quiet_vertices(host.pref.offsets, host.entry_cut, host.own_lo,
                                             host.own_hi))


@settings(max_examples=examples(80), deadline=None)
@given(data=st.data())
def test_device_matched_pairs_equal_the_host_kernel(data):
    """Any holdings: each owned vertex holds offers of some local vertices
    (once each), each cut edge's proposal pending or not; matched are the
    edges whose two ends hold each other's offer."""
    n = data.draw(st.integers(1, 12))
    own_lo = data.draw(st.integers(0, n - 1))
    own_hi = data.draw(st.integers(own_lo + 1, n))
    owned, ghosts = list(range(own_lo, own_hi)), [x for x in range(n)
                                                  if not own_lo <= x < own_hi]
    pairs = sorted({(data.draw(st.sampled_from(owned)), g) for g in ghosts
                    if data.draw(st.booleans())})
    cut_own = np.array([p for p, _ in pairs], dtype=np.int32)
    cut_ghost = np.array([g for _, g in pairs], dtype=np.int32)
    pending = np.array(data.draw(st.lists(st.booleans(), min_size=len(pairs),
                                          max_size=len(pairs))), dtype=np.bool_)
    cap = np.zeros(n, dtype=np.int64)
    cap[own_lo:own_hi] = data.draw(st.lists(st.integers(0, 3), min_size=len(owned),
                                            max_size=len(owned)))
    slot_start = np.concatenate([[0], np.cumsum(cap)]).astype(np.int64)
    slots = np.zeros(int(slot_start[-1]), dtype=np.uint64)
    for q in owned:
        held = data.draw(st.lists(st.sampled_from([x for x in range(n) if x != q] or [q]),
                                  max_size=int(cap[q]), unique=True))
        for s, u in enumerate(held):
            if u != q:
                key = (min(u, q) * 13 + max(u, q)) % 97 + 1  # one key per edge
                slots[slot_start[q] + s] = (np.uint64(key) << np.uint64(32)) | np.uint64(u)
    lo, hi, key = kernels.matched_pairs(slots, slot_start, own_lo, own_hi, cut_own, cut_ghost,
                                        pending)
    # the pending cut edge's key is its edge's key, as the slots carry it
    cut_key = np.array([(min(p, g) * 13 + max(p, g)) % 97 + 1 for p, g in pairs],
                       dtype=np.uint32)
    with installed():
        got = build_gpu.matched_pairs(cupy.asarray(slots), cupy.asarray(slot_start),
                                      cupy.asarray(pending.astype(np.uint8)),
                                      cupy.asarray(cut_own), cupy.asarray(cut_ghost),
                                      cupy.asarray(cut_key), cupy)
    for got_array, expected in zip(got, (lo, hi, key)):
        np.testing.assert_array_equal(_host(got_array), expected)
        assert _host(got_array).dtype == expected.dtype



@settings(max_examples=examples(12), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(max_vertices=16, max_edges=40), b=st.sampled_from([0, 1, 2, 5]),
       partitions=st.sampled_from([1, 2, 3]))
def test_matchings_of_a_graph_built_on_the_gpus(simulated_gpu_client, edges, b, partitions):
    """Integer ids are built on the workers' (simulated) GPUs, string ids on
    the host; the b-matching is the greedy oracle's and the host-built
    graph's, and the matching the CPU workers'."""
    frame = dd.from_pandas(edges, npartitions=min(partitions, len(edges)), sort=False)
    with installed():
        graph = cm.dask.DistributedGraph(frame, backend="gpu")
        got, stats = cm.b_suitor_matching(graph, b=b, backend="gpu", return_stats=True)
        got = got.compute()
        mates = cm.suitor_matching(graph, backend="gpu").compute()
    string_ids = not pd.api.types.is_integer_dtype(edges["src"])
    assert graph.on_gpu == (not string_ids)
    assert stats["build"]["device"] == ("cpu" if string_ids else "gpu")
    assert stats["device"] == "gpu"
    assert edge_tuples(got) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"], b)
    pd.testing.assert_frame_equal(got, cm.b_suitor_matching(frame, b=b, backend="cpu").compute())
    pd.testing.assert_frame_equal(mates, cm.suitor_matching(frame, backend="cpu").compute())


@pytest.mark.parametrize("name", ["karate", "lesmis"])
def test_shared_graph_built_on_the_gpus_on_the_stand_in(simulated_gpu_client, name):
    """The build's host code on a CuPy that refuses implicit host copies:
    the pipeline's kernels and both superstep kernels launched; frames equal
    the host-built graph's; per-vertex capacities with zeros."""
    edges = cm.datasets.load(name)
    frame = dd.from_pandas(edges, npartitions=3)
    LAUNCHES.clear()
    with installed():
        graph = cm.dask.DistributedGraph(frame, backend="gpu")
        mates = cm.suitor_matching(graph, backend="auto").compute()
        vertices = sorted(set(edges["src"]) | set(edges["dst"]))
        b = pd.Series([v % 4 for v in vertices], index=vertices)
        pairs = cm.b_suitor_matching(graph, b=b).compute()
    assert graph.stats["device"] == "gpu"
    assert {"mark_present", "pair_keys", "dedup_groups", "place_keys", "decode_preference",
            "superstep_kernel", "closing_kernel"} <= set(LAUNCHES), sorted(LAUNCHES)
    host = cm.dask.DistributedGraph(frame, backend="cpu")
    pd.testing.assert_frame_equal(mates, cm.suitor_matching(host, backend="cpu").compute())
    pd.testing.assert_frame_equal(mates.reset_index(drop=True),
                                  cm.suitor_matching(edges, backend="cpu"))
    assert edge_tuples(pairs) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"],
                                                 b.to_dict())
    assert graph.stats["edges"] == host.stats["edges"]
    assert graph.stats["cut_edges"] == host.stats["cut_edges"]


def test_cpu_algorithms_on_a_graph_kept_on_the_gpus(simulated_gpu_client):
    """Louvain with ``backend="cpu"`` and modularity (CPU kernels on Dask)
    read a host copy of the device parts: the same results as on the
    host-built graph; ``"auto"`` runs Louvain on the GPUs, here (a small
    graph, straight to one worker) the single GPU's; CPU supersteps on
    device parts are refused with a clear error; the graph still matches on
    its GPUs afterwards."""
    edges = cm.datasets.load("lesmis")
    frame = dd.from_pandas(edges, npartitions=2)
    host = cm.dask.DistributedGraph(frame, backend="cpu")
    expected_parts, expected_q = cm.louvain(host)
    with installed():
        graph = cm.dask.DistributedGraph(frame, backend="gpu")
        with pytest.raises(ValueError, match="backend='cpu' on a DistributedGraph whose "
                                             "parts live on the workers' GPUs"):
            cm.suitor_matching(graph, backend="cpu")
        parts, q = cm.louvain(graph, backend="cpu")
        parts = parts.compute()
        assert cm.modularity(graph, parts) == pytest.approx(q, abs=1e-12)
        _, q_auto = cm.louvain(graph)
        mates = cm.suitor_matching(graph).compute()
    assert q_auto == pytest.approx(cm.louvain(edges, backend="gpu")[1], rel=1e-12)
    assert graph.on_gpu
    assert q == expected_q
    pd.testing.assert_frame_equal(parts, expected_parts.compute())
    pd.testing.assert_frame_equal(mates.reset_index(drop=True),
                                  cm.suitor_matching(edges, backend="cpu"))


def test_backend_argument_is_checked(simulated_gpu_client):
    frame = dd.from_pandas(cm.datasets.load("karate"), npartitions=2)
    with pytest.raises(ValueError, match="backend must be 'auto', 'cpu' or 'gpu', got 'cuda'"):
        cm.dask.DistributedGraph(frame, backend="cuda")
    # pandas partitions: "auto" keeps the parts on the host
    assert not cm.dask.DistributedGraph(frame).on_gpu
