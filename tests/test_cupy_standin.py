"""The GPU host code on a strict CuPy stand-in (``tests/cupy_standin.py``).

Two halves:

* the stand-in itself, in the normal pass: it refuses what CuPy 13.6 refuses
  (each rule against a case CuPy's sources raise on), allows what CuPy
  allows with NumPy's results, and the device-side helpers that branch on
  CuPy (``segment_sum``, ``segment_max``, ``bincount_xp``) give exact results
  on it (hypothesis, extremes of every dtype);
* the package's GPU path on it, in the simulator pass (``cudasim``): every
  public algorithm with ``backend="gpu"`` runs its host Python on the
  stand-in and its kernels in Numba's simulator, and must return what the
  CPU backend returns (the matchings, b-matchings, handshake, coarsening,
  modularity, the marriage family) or, where the GPU algorithm differs from
  the CPU's (Louvain), what the same simulator run on plain NumPy returns;
  ROMA, whose simulated warps race, must be a valid matching no lighter than
  its start.  The kernels each case must have launched are checked, so a
  case cannot pass by falling back to the host.

``test_reverted_scatter_fix_*`` keep the scatter fix (commit 4ad424a) proven:
the code before it passes on plain NumPy and fails on the stand-in.
"""

from __future__ import annotations

import contextlib

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import cugraph_match as cm
import cupy_standin
from cugraph_match.community import louvain_gpu
from cugraph_match.structure import community_gpu, device, edges as edge_sets, renumber, sort_xp
from cupy_standin import LAUNCHES, SCATTER_DTYPES, installed
from hypothesis_profiles import examples
from roma_oracle import adjacency, complete_weight, frame_mates, matched_weight, mates_of

cupy, cupyx = cupy_standin.cupy, cupy_standin.cupyx
FAST = settings(max_examples=examples(40), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------
# the code before commit 4ad424a (the scatter fix), kept to prove the stand-in catches it
# --------------------------------------------------------------------------


def segment_sum_before_fix(values, groups, size: int, xp):
    out = xp.zeros(size, dtype=np.int64)
    if xp.__name__ == "cupy":
        import cupyx

        cupyx.scatter_add(out, groups, values.astype(np.int64, copy=False))
    else:
        xp.add.at(out, groups, values.astype(np.int64, copy=False))
    return out


def segment_max_before_fix(values, groups, size: int, xp):
    out = xp.zeros(size, dtype=values.dtype)
    if xp.__name__ == "cupy":
        import cupyx

        cupyx.scatter_max(out, groups, values)
    else:
        xp.maximum.at(out, groups, values)
    return out


# --------------------------------------------------------------------------
# the stand-in's rules (normal pass)
# --------------------------------------------------------------------------


def _device(values, dtype=None):
    return cupy.asarray(np.asarray(values, dtype=dtype))


REFUSED = [
    # (what, call, exception, message) -- each refused by CuPy 13.6 (see cupy_standin)
    ("np.asarray", lambda: np.asarray(_device([1, 2])), TypeError, "Implicit conversion"),
    ("pandas", lambda: pd.Series(_device([1, 2])), TypeError, "Implicit conversion"),
    ("host index of host array", lambda: np.arange(3)[_device([1])], TypeError, "Implicit"),
    ("device + host", lambda: _device([1, 2]) + np.arange(2), TypeError, "Unsupported type"),
    ("host + device", lambda: np.arange(2) + _device([1, 2]), TypeError, "Unsupported type"),
    ("ufunc with host", lambda: cupy.minimum(_device([1]), np.arange(1)), TypeError,
     "Unsupported type"),
    ("where with host", lambda: cupy.where(_device([True]), np.arange(1), 0), TypeError,
     "Unsupported type"),
    ("concatenate host", lambda: cupy.concatenate([_device([1]), np.arange(1)]), TypeError,
     "Only cupy arrays"),
    ("searchsorted host a", lambda: np.searchsorted(np.arange(3), _device([1])),
     NotImplementedError, "device arrays"),
    ("searchsorted scalar v", lambda: cupy.searchsorted(_device([1, 2]), 1),
     NotImplementedError, "device arrays"),
    ("searchsorted signed/unsigned", lambda: cupy.searchsorted(_device([1], np.uint64),
                                                               _device([1], np.int64)),
     TypeError, "signed and unsigned"),
    ("range of device scalar", lambda: range(_device([3]).max()), TypeError, "integer"),
    ("shape from device scalar", lambda: cupy.zeros(_device([3]).max()), TypeError, "integer"),
    ("int of array", lambda: int(_device([1, 2])), TypeError, "length-1"),
    ("bool of array", lambda: bool(_device([1, 2])), ValueError, "ambiguous"),
    ("argsort kind", lambda: cupy.argsort(_device([2, 1]), kind="quicksort"), ValueError,
     "kind can only be"),
    ("sort method kind", lambda: _device([2, 1]).sort(kind="stable"), TypeError, "kind"),
    ("sort of a view", lambda: _device([3, 2, 1])[::2].sort(), NotImplementedError,
     "non-contiguous"),
    ("bincount empty", lambda: cupy.bincount(_device([], np.int64), minlength=3), ValueError,
     "zero-size"),
    ("bincount float", lambda: cupy.bincount(_device([1.0])), TypeError, "int array"),
    ("bincount negative", lambda: cupy.bincount(_device([-1])), ValueError, "non-negative"),
    ("host array by slice", lambda: _device([0, 0]).__setitem__(slice(None), np.ones(2)),
     ValueError, "non-scalar numpy.ndarray"),
    ("racing assignment", lambda: _device([0, 0]).__setitem__(_device([1, 1]), _device([5, 6])),
     ValueError, "undefined"),
    ("fill with array", lambda: _device([0, 0]).fill(np.ones(2)), ValueError, "non-scalar"),
    ("object dtype", lambda: cupy.asarray(np.array(["a"], dtype=object)), ValueError,
     "Unsupported dtype"),
    ("longdouble", lambda: cupy.zeros(2, dtype=np.longdouble), ValueError, "Unsupported dtype"),
    ("unmodelled function", lambda: cupy.lexsort, AttributeError, "does not model"),
    ("scatter_add int64", lambda: cupyx.scatter_add(cupy.zeros(2, np.int64), _device([0]),
                                                    _device([1])), TypeError, "add.at"),
    ("scatter_max int64", lambda: cupyx.scatter_max(cupy.zeros(2, np.int64), _device([0]),
                                                    _device([1])), TypeError, "maximum.at"),
    ("ufunc.at int64", lambda: cupy.add.at(cupy.zeros(2, np.int64), _device([0]), 1), TypeError,
     "add.at"),
]


@pytest.mark.parametrize("what,call,error,message", REFUSED, ids=[r[0] for r in REFUSED])
def test_refuses_what_cupy_refuses(what, call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_allows_what_cupy_allows_with_numpy_results():
    host = np.array([5, 3, 9, 3, 0], dtype=np.int64)
    d = _device(host)
    assert isinstance(d, cupy.ndarray) and type(d).__module__ == "cupy"
    assert d.get().tolist() == host.tolist() and cupy.asnumpy(d).dtype == np.int64
    assert int(d.max()) == 9 and float(d.sum()) == 20.0 and bool(d[0] == 5)
    assert isinstance(d.max(), cupy.ndarray) and d.max().ndim == 0  # 0-d, as CuPy's
    assert isinstance(d[1], cupy.ndarray)  # scalar indexing: 0-d too
    assert (d[np.array([0, 2])] == _device([5, 9])).all()  # a host index is copied over
    assert (np.minimum(d, 4) == _device(np.minimum(host, 4))).all()  # NumPy's ufunc routed
    assert np.flatnonzero(d > 3).get().tolist() == [0, 2]  # NumPy's function routed
    assert cupy.argsort(d).get().tolist() == np.argsort(host, kind="stable").tolist()
    assert cupy.bincount(d, minlength=12).get().tolist() == np.bincount(host, minlength=12).tolist()
    assert cupy.unique(host).get().tolist() == [0, 3, 5, 9]  # unique takes array-likes
    d[np.array([1, 3])] = np.array([7, 7])  # advanced assignment of a host array: copied over
    d[0] = 1
    d[d > 8] = 0
    assert d.get().tolist() == [1, 7, 0, 7, 0]
    assert list(d)[1].item() == 7
    with cupy.cuda.Stream(non_blocking=True) as stream:
        assert cupy.cuda.get_current_stream() is stream and stream.ptr != 0
    assert cupy.cuda.get_current_stream().ptr == 0


@pytest.mark.parametrize("op", ["add", "max", "min"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "uint32", "int64",
                                   "uint64", "float16", "float32", "float64"])
def test_scatter_dtypes_are_cupy_13_6s(op, dtype):
    target = cupy.zeros(4, dtype=dtype)
    index, values = _device([0, 2, 0]), _device([1, 2, 3], dtype)
    call = {"add": cupyx.scatter_add, "max": cupyx.scatter_max, "min": cupyx.scatter_min}[op]
    if np.dtype(dtype) not in SCATTER_DTYPES[op]:
        with pytest.raises(TypeError, match="only supports"):
            call(target, index, values)
        return
    call(target, index, values)
    expected = np.zeros(4, dtype=dtype)
    {"add": np.add, "max": np.maximum, "min": np.minimum}[op].at(expected, [0, 2, 0],
                                                                  np.array([1, 2, 3], dtype))
    assert target.get().tolist() == expected.tolist()


_INT64 = st.integers(-2**63, 2**63 - 1)


@FAST
@given(st.lists(st.tuples(st.integers(0, 5), _INT64), min_size=0, max_size=30),
       st.integers(1, 6))
def test_segment_sum_is_exact_on_the_stand_in(pairs, extra):
    """int64 sums through uint64 (the fix): the two's-complement wrap of the exact sum."""
    groups = np.array([g for g, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=np.int64)
    size = 6 + extra
    exact = [0] * size
    for g, v in pairs:
        exact[g] += v
    wrapped = [(s + 2**63) % 2**64 - 2**63 for s in exact]
    with installed(kernels=False):
        got = louvain_gpu.segment_sum(_device(values), _device(groups), size, cupy)
        assert got.dtype == np.int64
        assert got.get().tolist() == wrapped
        with pytest.raises(TypeError, match="add.at"):
            segment_sum_before_fix(_device(values), _device(groups), size, cupy)
    assert segment_sum_before_fix(values, groups, size, np).tolist() == wrapped


_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
           "float16", "float32", "float64"]


@FAST
@given(st.sampled_from(_DTYPES).flatmap(
    lambda d: hnp.arrays(d, st.integers(0, 25),
                         elements=hnp.from_dtype(np.dtype(d), allow_nan=False,
                                                 allow_infinity=False))),
       st.randoms(use_true_random=False))
def test_segment_max_is_exact_on_the_stand_in(values, rng):
    """Every dtype's maximum per group (0 for an empty group, and below 0 as
    NumPy's ``maximum.at`` into zeros gives) through the dtypes CuPy has."""
    groups = np.array([rng.randrange(7) for _ in range(values.shape[0])], dtype=np.int64)
    expected = np.zeros(7, dtype=values.dtype)
    np.maximum.at(expected, groups, values)
    with installed(kernels=False):
        got = sort_xp.segment_max(_device(values), _device(groups), 7, cupy)
        assert got.dtype == values.dtype
        assert got.get().tolist() == expected.tolist()
        if values.dtype not in SCATTER_DTYPES["max"]:
            with pytest.raises(TypeError, match="maximum.at"):
                segment_max_before_fix(_device(values), _device(groups), 7, cupy)


@pytest.mark.parametrize("values,weights", [([], None), ([], []), ([2, 0, 2], None),
                                            ([1, 1], [0.5, 2.0])])
def test_bincount_xp_takes_empty_input(values, weights):
    x = np.array(values, dtype=np.int64)
    w = None if weights is None else np.array(weights, dtype=np.float64)
    expected = np.bincount(x, weights=w, minlength=4)
    got = sort_xp.bincount_xp(_device(x), cupy, None if w is None else _device(w), 4)
    assert got.get().tolist() == expected.tolist()
    assert got.dtype == (np.int64 if w is None else np.float64)


@pytest.mark.parametrize("blocks,threads,message", [(0, 32, "0 blocks"), (-1, 32, "blocks"),
                                                    (2**31, 32, "blocks"), (1, 0, "threads"),
                                                    (1, 1025, "threads")])
def test_launch_refuses_impossible_grids(blocks, threads, message):
    def kernel():
        raise AssertionError("never launched")

    with pytest.raises(ValueError, match=message):
        device.launch(kernel, blocks, threads, np)


# --------------------------------------------------------------------------
# the package's GPU path on the stand-in (simulator pass)
# --------------------------------------------------------------------------

EDGES = pd.DataFrame({"src": [0, 0, 1, 2, 3, 4, 5, 2, 6, 2], "dst": [1, 2, 2, 3, 4, 5, 3, 2, 0, 3],
                      "weight": [3.0, 1.0, 2.0, 5.0, 1.0, 4.0, 2.0, 7.0, 1.0, 6.0]})
LOOPS = pd.DataFrame({"src": [0, 1], "dst": [0, 1], "weight": [1.0, 2.0]})  # no edge at all
STRINGS = pd.DataFrame({"src": ["a", "b", "c", "a"], "dst": ["b", "c", "d", "d"],
                        "weight": [1, 2, 3, 4]})
WIDE_IDS = pd.DataFrame({"src": np.array([10**15, 3, -7, 2**40], dtype=np.int64),
                         "dst": np.array([3, -7, 2**40, 5], dtype=np.int64)})
U64 = pd.DataFrame({"src": np.array([2**64 - 1, 3, 7], dtype=np.uint64),
                    "dst": np.array([3, 7, 2**63], dtype=np.uint64),
                    "weight": np.array([2**64 - 1, 5, 5], dtype=np.uint64)})
F32 = EDGES.assign(weight=EDGES["weight"].astype(np.float32))
I64 = EDGES.assign(weight=EDGES["weight"].astype(np.int64))
PLAIN = EDGES[["src", "dst"]]
TWO_TABLES = pd.DataFrame({"src": [0, 0, 1, 2, 2, 5], "dst": [0, 1, 1, 0, 2, 1],
                           "weight": [3.0, 1.0, 2.0, 5.0, 1.0, 4.0]})  # left 0..5, right 0..2
PARTITION = pd.DataFrame({"vertex": range(7), "community": [0, 0, 0, 1, 1, 1, 0]})
T = {"threads_per_block": 32}  # small blocks: every simulated thread is a Python thread
SUITOR = {"threads_per_block": 32, "vertices_per_warp": 4}


def _marriage():
    from cugraph_match.datasets import stable_marriage_instance

    return stable_marriage_instance(10, "easy", seed=3)


def _in_stream(be):
    stream = cupy.cuda.Stream(non_blocking=True) if be == "gpu" else contextlib.nullcontext()
    with stream:
        return cm.suitor_matching(EDGES, backend=be, **SUITOR)


def _isolated(be):
    g = cm.Graph(EDGES, vertices=[100, 101], backend=be)
    return (cm.suitor_matching(g, **SUITOR),
            cm.b_suitor_matching(g, b=pd.Series([1, 0, 2, 1, 1, 1, 1, 1, 1],
                                                index=list(range(7)) + [100, 101])),
            cm.maximal_matching(g, seed=2), cm.is_matching(g, cm.suitor_matching(g)),
            cm.matching_weight(cm.suitor_matching(g, **SUITOR)))


def _moved(be):
    """A graph built on one backend and moved to the other."""
    if be == "gpu":
        return cm.suitor_matching(cm.Graph(EDGES, backend="cpu").on("gpu"), **SUITOR), \
            cm.suitor_matching(cm.Graph(EDGES, backend="gpu").on("cpu"))
    return cm.suitor_matching(EDGES, backend="cpu"), cm.suitor_matching(EDGES, backend="cpu")


def _blocking(be):
    pp, ap = _marriage()
    stable = cm.stable_marriage(pp, ap, backend="cpu")
    none = stable.iloc[:0][["proposer", "acceptor"]]
    return cm.blocking_pairs(pp, ap, stable, backend=be), \
        cm.blocking_pairs(pp, ap, none, backend=be)  # no pair: empty counts


def _error_of(call):
    try:
        call()
    except ValueError as error:
        return str(error)
    raise AssertionError("no error")


def _marriage_errors(be):
    """A list ranking two acceptors alike, and one naming an acceptor twice:
    the GPU's check found the first row of the repeated key by a
    ``searchsorted`` of a 0-d key (the stand-in refused it: these errors had
    never run off the CPU)."""
    twice_rank = pd.DataFrame({"proposer": [0, 0], "acceptor": [0, 1], "rank": [1, 1]})
    twice_named = pd.DataFrame({"proposer": [0, 0], "acceptor": [1, 1], "rank": [1, 2]})
    acceptors = pd.DataFrame({"acceptor": [0, 1], "proposer": [0, 0], "rank": [1, 1]})
    return tuple(_error_of(lambda: function(pp, acceptors, backend=be, **T))
                 for function in (cm.stable_marriage, cm.popular_matching)
                 for pp in (twice_rank, twice_named))


def _two_tables(be):
    """Linked records with every ``unmatched`` option: the pairs come back
    sorted by (left, right), a sort the GPU path made with ``cupy.lexsort``."""
    return tuple(cm.b_suitor_matching(TWO_TABLES, b=2, bipartite=True, unmatched=unmatched,
                                      backend=be)
                 for unmatched in ("left", "right", "both"))


def _nx_maximal(be):
    from cugraph_match.nx import matching as nx_matching

    G = nx.Graph([(3, "a"), ("a", 0), (0, 3), (0, 5), (5, 6), (6, 7), (7, 5), (2, 2), (1, 0)])
    G.add_node("isolated")
    return sorted(tuple(sorted(map(str, edge)))
                  for edge in nx_matching.maximal_matching(G, device=be))


# (id, call(backend) -> result, kernels the GPU run must launch); the result must
# equal the CPU backend's
SAME_AS_CPU = [
    ("suitor", lambda be: cm.suitor_matching(EDGES, backend=be, **SUITOR), {"suitor_kernel"}),
    ("suitor-float32-unweighted", lambda be: (cm.suitor_matching(F32, backend=be, **SUITOR),
                                              cm.suitor_matching(PLAIN, backend=be, **SUITOR)),
     {"pair_keys", "dedup_groups", "place_keys", "decode_preference"}),
    ("suitor-wide-and-uint64-ids", lambda be: (cm.suitor_matching(WIDE_IDS, backend=be, **SUITOR),
                                               cm.suitor_matching(U64, backend=be, **SUITOR)),
     {"suitor_kernel"}),
    ("suitor-in-a-stream", _in_stream, {"suitor_kernel"}),
    ("locally-dominant", lambda be: cm.locally_dominant_matching(EDGES, backend=be, **T),
     {"candidates_kernel", "match_kernel", "next_work_kernel"}),
    ("b-suitor", lambda be: (cm.b_suitor_matching(EDGES, b=2, backend=be),
                             cm.b_suitor_matching(I64, b=3, backend=be, heap_above=0)),
     {"b_suitor_kernel"}),
    ("handshake", lambda be: (cm.maximal_matching(EDGES, seed=1, backend=be),
                              cm.maximal_matching(PLAIN, weighted=False, seed=4, backend=be),
                              cm.maximal_matching(EDGES, method="suitor", backend=be)),
     {"propose_kernel", "respond_kernel", "decode_neighbours"}),
    ("coarsen", lambda be: cm.coarsen(EDGES, cm.suitor_matching(EDGES, backend="cpu"),
                                      backend=be), set()),
    ("coarsen-hierarchy", lambda be: (cm.coarsen_hierarchy(EDGES, min_vertices=1, backend=be),
                                      cm.coarsen_hierarchy(STRINGS, min_vertices=1, backend=be),
                                      cm.coarsen_hierarchy(LOOPS, min_vertices=1, backend=be)),
     {"propose_kernel"}),
    ("isolated-vertices-graph", _isolated, {"suitor_kernel", "b_suitor_kernel"}),
    ("graph-moved", _moved, {"suitor_kernel"}),
    ("no-edge-graph", lambda be: (cm.suitor_matching(LOOPS, backend=be, **SUITOR),
                                  cm.locally_dominant_matching(LOOPS, backend=be, **T),
                                  cm.b_suitor_matching(LOOPS, b=1, backend=be),
                                  cm.maximal_matching(LOOPS, seed=1, backend=be)),
     {"dedup_groups"}),
    ("stable-marriage", lambda be: tuple(
        cm.stable_marriage(*_marriage(), algorithm=a, backend=be, **T)
        for a in ("mcvitie_wilson", "gale_shapley")),
     {"mcvitie_wilson_kernel", "gale_shapley_round_kernel"}),
    ("master-lists", lambda be: cm.stable_marriage_master_lists(
        np.array([2, 0, 1]), np.array([1, 2, 0]), backend=be, **T), {"mcvitie_wilson_kernel"}),
    ("b-marriage-and-popular", lambda be: (cm.b_marriage(*_marriage(), 2, 3, backend=be, **T),
                                           cm.popular_matching(*_marriage(), backend=be, **T)),
     {"b_marriage_kernel"}),
    ("blocking-pairs", _blocking, set()),
    ("marriage-errors", _marriage_errors, set()),
    ("two-tables-unmatched", _two_tables, {"b_suitor_kernel"}),
    ("networkx-backend", _nx_maximal, {"suitor_kernel"}),
]


@pytest.fixture(autouse=True)
def small_handshake_blocks(monkeypatch):
    """The handshake's 256-thread blocks cut to 32 (its one launch argument the
    public function does not take): every simulated thread is a Python thread."""
    from cugraph_match.matching import maximal_gpu

    full = maximal_gpu.handshake_mates_gpu
    monkeypatch.setattr(maximal_gpu, "handshake_mates_gpu",
                        lambda *args, **kw: full(*args, **{**kw, "threads_per_block": 32}))


@pytest.fixture
def standin_launches():
    LAUNCHES.clear()
    yield LAUNCHES
    LAUNCHES.clear()


def _on_standin(call):
    made = cupy.ndarray.made
    with installed():
        result = call("gpu")
    assert cupy.ndarray.made > made, "nothing ran on the stand-in"
    return result


def _equal(got, expected):
    if isinstance(got, cupy.ndarray):  # a device array out, as documented (master lists)
        got = got.get()
    if isinstance(got, np.ndarray):
        assert got.dtype == expected.dtype and got.tolist() == expected.tolist()
    elif isinstance(got, pd.DataFrame):
        pd.testing.assert_frame_equal(got, expected)
    elif isinstance(got, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _equal(g, e)
    elif isinstance(got, float):
        assert got == pytest.approx(expected, rel=1e-12)
    else:
        assert got == expected


@pytest.mark.cudasim
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # SplitMix64 wraps
@pytest.mark.parametrize("name,call,kernels", SAME_AS_CPU, ids=[c[0] for c in SAME_AS_CPU])
def test_gpu_host_path_on_the_stand_in_equals_cpu(name, call, kernels, standin_launches):
    got = _on_standin(call)
    assert kernels <= set(standin_launches), sorted(standin_launches)
    _equal(got, call("cpu"))


@pytest.mark.cudasim
def test_modularity_on_the_stand_in():
    """Float bincounts: equal to the CPU's to rounding, also with no edge (empty bincounts)
    and no edge inside a community."""
    apart = pd.DataFrame({"vertex": range(7), "community": range(7)})
    cases = [(EDGES, PARTITION), (EDGES, apart),
             (LOOPS, pd.DataFrame({"vertex": [0, 1], "community": [0, 1]}))]
    for frame, partition in cases:
        got = _on_standin(lambda be: cm.modularity(cm.Graph(frame, backend=be), partition))
        assert got == pytest.approx(cm.modularity(frame, partition), rel=1e-12, abs=1e-15)


def _louvain_calls(be):
    from cugraph_match.nx import community as nx_community

    return (cm.louvain(EDGES, backend=be), cm.louvain(F32, backend=be, resolution=0.5,
                                                      max_level=1),
            cm.louvain(STRINGS, backend=be), cm.louvain(LOOPS, backend=be),
            list(nx_community.louvain_partitions(nx.Graph([(0, 1), (3, 2)]), seed=1,
                                                 device=be)))


def _louvain_global(be):
    """The global-table kernels and their host side (tables sized by primes), on a
    5-vertex graph: bucket bounds lowered so that degree > 2 is 'large'."""
    saved = community_gpu.BUCKETS, louvain_gpu.MERGE_BUCKETS
    community_gpu.BUCKETS = ((2, 4, 7), (None, 128, 0))
    louvain_gpu.MERGE_BUCKETS = ((2, 32, 127), (None, 128, 0))
    try:
        star = pd.DataFrame({"src": [0, 0, 0, 1], "dst": [1, 2, 3, 4]})
        return cm.louvain(star, backend=be)
    finally:
        community_gpu.BUCKETS, louvain_gpu.MERGE_BUCKETS = saved


@pytest.mark.cudasim
@pytest.mark.parametrize("call,kernels", [
    (_louvain_calls, {"move_shared_kernel", "merge_shared_kernel"}),
    (_louvain_global, {"move_global_kernel", "merge_global_kernel"}),
], ids=["shared-tables", "global-tables"])
def test_louvain_on_the_stand_in_equals_plain_numpy(call, kernels, standin_launches):
    """GPU Louvain is the same on every run (exact fixed-point sums, canonical
    order), so the stand-in (CuPy's scatter branch) must give exactly what the
    simulator gives on plain NumPy (``add.at``)."""
    got = _on_standin(call)
    assert kernels <= set(standin_launches), sorted(standin_launches)
    _equal(got, call("gpu"))


def _check_sparse_roma(frame, result, info):
    assert cm.is_matching(frame, result)
    adj = adjacency(frame["src"], frame["dst"], frame.get("weight"))
    weight = matched_weight(adj, mates_of(result))
    assert weight == pytest.approx(info.weight) and weight >= info.start_weight - 1e-9


@pytest.mark.cudasim
def test_roma_on_the_stand_in(standin_launches):
    start = cm.maximal_matching(EDGES, seed=1, backend="cpu")
    rng = np.random.default_rng(4)
    upper = np.triu(rng.random((5, 5)), 1)
    matrix = (upper + upper.T).astype(np.float32)
    points = rng.random((6, 2))

    def calls(be):
        dev = cupy.asarray(matrix) if be == "gpu" else matrix  # a device matrix in
        return (cm.roma_matching(EDGES, backend=be, return_info=True, **T),
                cm.roma_matching(EDGES, initial=start, backend=be, return_info=True, **T),
                cm.roma_matching(LOOPS, backend=be, return_info=True, **T),
                cm.roma_matching(dev, initial="greedy", backend=be, return_info=True, **T),
                cm.roma_matching(points=points, backend=be, return_info=True, **T))

    sparse, started, empty, dense, geometric = _on_standin(calls)
    assert {"sparse_phase_kernel", "dense_phase_kernel"} <= set(standin_launches)
    _check_sparse_roma(EDGES, *sparse)
    _check_sparse_roma(EDGES, *started)
    assert started[1].start_weight == pytest.approx(cm.matching_weight(start))
    assert empty[0]["mate"].isna().all()
    for (result, info), weights in ((dense, matrix), (geometric, None)):
        n = len(result)
        mate = frame_mates(result, n)
        assert (mate >= 0).sum() == n - n % 2 and (mate[mate[mate >= 0]] == np.flatnonzero(
            mate >= 0)).all()
        if weights is not None:
            assert complete_weight(weights, mate) == pytest.approx(info.weight, rel=1e-6)
        assert info.weight >= info.start_weight - 1e-9


@pytest.mark.cudasim
def test_wide_ids_and_the_cudf_renumbering_on_the_stand_in():
    """Paths no frame reaches here: past 2**32 vertices (two stable sorts and
    segment maxima per weight dtype, the wide contraction, the two-level edge
    search), and the device renumbering a cuDF frame takes."""
    n = 2**33 + 5
    u = np.array([2**33, 3, 4, 2**33, 7, 8, 2**32 + 1], dtype=np.int64)
    v = np.array([3, 2**33, 3, 7, 2**33, 7, 3], dtype=np.int64)
    weights = [None, np.array([7, 1, 4, 5, 11, 6, 3], dtype=np.int64) - 5,
               np.arange(1, 8, dtype=np.float32), np.array([200, 2, 3, 250, 5, 6, 7], np.uint8),
               np.array([2**63 + 1, 2**64 - 1, 3, 4, 5, 6, 7], dtype=np.uint64),
               np.array([-3, 5, 2, 4, 9, -6, 7], dtype=np.int16)]

    def host(a):
        return None if a is None else (a.get() if hasattr(a, "get") else a).tolist()

    def run(xp, wrap):
        out = []
        for w in weights:
            e = edge_sets.undirected_edges(wrap(u), wrap(v), None if w is None else wrap(w), n, xp)
            found, at = edge_sets.find_edges(e, wrap(np.array([3, 7, 5])),
                                             wrap(np.array([2**33, 2**33, 6])), xp)
            out.append([host(e.lo), host(e.hi), host(e.w), e.loop, host(found), host(at)])
        lo, hi, summed = edge_sets.merge_parallel_edges(
            wrap(np.array([0, 2**33, 5, 0, 2**33 + 1])), wrap(np.array([2**33, 0, 2**33 + 1,
                                                                       2**33, 5])),
            wrap(np.array([1.0, 2.0, 3.0, 4.0, 5.0])), 2**33 + 2, xp)
        out.append([host(lo), host(hi), host(summed)])
        out.append(host(edge_sets.merge_parallel_edges(wrap(np.zeros(0, np.int64)),
                                                       wrap(np.zeros(0, np.int64)),
                                                       wrap(np.zeros(0)), 2**33 + 2, xp)[2]))
        return out

    with installed() as xp:
        got = run(xp, cupy.asarray)
        with pytest.raises(TypeError, match="maximum.at"):  # the code before the fix
            segment_max_before_fix(cupy.asarray(weights[1]), cupy.asarray(u), 4, xp)
        renumbered = []
        for ids in (np.array([5, 3, 9, 3], dtype=np.int64),
                    np.array([2**62, -5, 7, -5], dtype=np.int64),
                    np.array([2**64 - 1, 0, 5], dtype=np.uint64)):
            codes, labels = renumber._integer_xp([cupy.asarray(ids[:2]), cupy.asarray(ids[2:])],
                                                 ids.dtype, xp)
            renumbered.append(([host(c) for c in codes], host(labels)))
    assert got == run(np, np.asarray)
    for ids, (codes, labels) in zip((np.array([5, 3, 9, 3], dtype=np.int64),
                                     np.array([2**62, -5, 7, -5], dtype=np.int64),
                                     np.array([2**64 - 1, 0, 5], dtype=np.uint64)), renumbered):
        want_codes, want_labels = renumber._integer_host([ids[:2], ids[2:]], ids.dtype)
        assert codes == [c.tolist() for c in want_codes] and labels == want_labels.tolist()


@pytest.mark.cudasim
def test_launches_are_checked(standin_launches):
    """The stand-in's launch checks bite: a host array as a kernel argument, and
    a launch off CuPy's current stream."""
    from cugraph_match.structure import pipeline_gpu

    with installed() as xp:
        out = xp.zeros(4, dtype=np.uint64)
        with pytest.raises(TypeError, match="host NumPy array"):
            device.launch(pipeline_gpu.pair_keys, 1, 32, xp, np.arange(4), xp.arange(4), 3, out)
        with xp.cuda.Stream(non_blocking=True):
            with pytest.raises(RuntimeError, match="current"):
                pipeline_gpu.pair_keys[1, 32, 0](xp.arange(4), xp.arange(4), 3, out)
            device.launch(pipeline_gpu.pair_keys, 1, 32, xp, xp.arange(4), xp.arange(4), 3, out)
        assert out.get().tolist() == [(i << 3) | i for i in range(4)]


@pytest.mark.cudasim
def test_reverted_scatter_fix_fails_on_the_stand_in(monkeypatch):
    """Louvain with the code before commit 4ad424a: the simulator on plain NumPy
    passes it (as it did), the stand-in refuses it as CuPy 13.6 would."""
    monkeypatch.setattr(louvain_gpu, "segment_sum", segment_sum_before_fix)
    frame = pd.DataFrame({"src": [0, 2], "dst": [1, 3]})
    parts, _ = cm.louvain(frame, backend="gpu")
    assert parts["community"].tolist() == [0, 0, 1, 1]
    with pytest.raises(TypeError, match=r"cupy\.add\.at only supports"):
        _on_standin(lambda be: cm.louvain(frame, backend=be))
