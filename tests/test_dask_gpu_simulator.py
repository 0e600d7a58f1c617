"""The Dask matchings with the supersteps on the workers' GPUs
(``cugraph_match.dask.kernels_gpu``), in Numba's CUDA simulator on threaded
workers: the result equals the greedy oracle and the single machine's, row
for row; the host code around the kernels also runs on the strict CuPy
stand-in.

The cluster is conftest's ``simulated_gpu_client`` (a lock around every launch
stands in for each worker's own GPU)."""

from __future__ import annotations

import dask.dataframe as dd
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import cugraph_match as cm
from cugraph_match.dask import kernels_gpu
from cupy_standin import LAUNCHES, installed
from oracle import edge_tuples, greedy_b_matching
from strategies import edge_frames

#: each example runs a cluster's supersteps in the simulator: a failure is
#: reported as found (shrinking it took minutes)
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]

pytestmark = [pytest.mark.cudasim,
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]



@settings(max_examples=examples(12), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(max_vertices=16, max_edges=40), b=st.sampled_from([0, 1, 2, 5]),
       partitions=st.sampled_from([1, 2, 3]), heap_above=st.sampled_from([0, 1, 32]),
       built=st.sampled_from(["cpu", "gpu"]))
def test_gpu_supersteps_equal_the_greedy_b_matching(simulated_gpu_client, monkeypatch, edges, b,
                                                     partitions, heap_above, built):
    """Ties (small integer weights), self-loops, duplicates; capacities above
    ``heap_above`` in the locked heaps; the parts built on the host (copied
    to the device for the run) or on the device."""
    if not len(edges):
        return
    monkeypatch.setattr(kernels_gpu, "HEAP_ABOVE", heap_above)
    frame = dd.from_pandas(edges, npartitions=min(partitions, len(edges)), sort=False)
    graph = cm.dask.DistributedGraph(frame, backend=built)
    got, stats = cm.b_suitor_matching(graph, b=b, backend="gpu", return_stats=True)
    assert stats["device"] == "gpu"
    got = got.compute()
    assert edge_tuples(got) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"], b)
    pd.testing.assert_frame_equal(got, cm.b_suitor_matching(frame, b=b, backend="cpu").compute())


@pytest.mark.parametrize("name", ["karate", "lesmis"])
def test_gpu_supersteps_on_the_stand_in_equal_the_cpu_workers(simulated_gpu_client, name):
    """The worker's host code on a CuPy that refuses what CuPy refuses, the
    parts built on the host and copied over for the run (the device build:
    tests/test_dask_build_gpu.py); both kernels launched; the mates frame
    equal to the CPU workers' and to one machine's; per-vertex capacities
    with zeros (closed from the start)."""
    edges = cm.datasets.load(name)
    frame = dd.from_pandas(edges, npartitions=3)
    graph = cm.dask.DistributedGraph(frame, backend="cpu")
    LAUNCHES.clear()
    with installed():
        mates = cm.suitor_matching(graph, backend="gpu").compute()
        vertices = sorted(set(edges["src"]) | set(edges["dst"]))
        b = pd.Series([v % 4 for v in vertices], index=vertices)
        pairs = cm.b_suitor_matching(graph, b=b, backend="gpu").compute()
    assert {"superstep_kernel", "closing_kernel"} <= set(LAUNCHES), sorted(LAUNCHES)
    pd.testing.assert_frame_equal(mates, cm.suitor_matching(frame, backend="cpu").compute())
    pd.testing.assert_frame_equal(mates.reset_index(drop=True),
                                  cm.suitor_matching(edges, backend="cpu"))
    assert edge_tuples(pairs) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"],
                                                 b.to_dict())


def test_gpu_closed_notices_are_one_per_vertex_and_worker(simulated_gpu_client):
    """The closing kernel names one cut edge per (vertex, other worker), the
    best that closed (tests/test_dask.py has the CPU twin): on a complete
    graph the first superstep sends under 2n words where a notice per
    closed cut edge is about n^2 / 4; the result stays the greedy matching,
    so a ghost floor closing an open edge would show."""
    import numpy as np

    n = 24
    rng = np.random.default_rng(5)
    src, dst = np.triu_indices(n, 1)
    edges = pd.DataFrame({"src": src, "dst": dst,
                          "weight": rng.integers(1, 20, src.shape[0]).astype(np.float64)})
    frame = dd.from_pandas(edges, npartitions=2, sort=False)
    got, stats = cm.suitor_matching(frame, backend="gpu", return_stats=True)
    assert stats["device"] == "gpu"
    pd.testing.assert_frame_equal(got.compute(), cm.suitor_matching(frame, backend="cpu")
                                  .compute())
    assert stats["build"]["cut_edges"] >= n * n // 8
    assert stats["messages_per_round"][0] <= 2 * n
