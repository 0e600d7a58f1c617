"""The Dask matchings with the supersteps on the workers' GPUs
(``cugraph_match.dask.kernels_gpu``), in Numba's CUDA simulator on threaded
workers: the result equals the greedy oracle and the single machine's, row
for row; the host code around the kernels also runs on the strict CuPy
stand-in.

The simulator swaps a module global of the kernel it runs, so two workers'
launches in one process must not overlap: a lock around the launches
stands in for each worker's own GPU."""

from __future__ import annotations

import threading

import dask.dataframe as dd
import distributed
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import cugraph_match as cm
from cugraph_match.dask import kernels_gpu
from cupy_standin import LAUNCHES, installed
from oracle import greedy_b_matching
from strategies import edge_frames

#: each example runs a cluster's supersteps in the simulator: a failure is
#: reported as found (shrinking it took minutes)
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]

pytestmark = [pytest.mark.cudasim,
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]


@pytest.fixture(scope="module")
def threaded_client():
    with pytest.MonkeyPatch.context() as mp:
        lock, launch = threading.Lock(), kernels_gpu.launch

        def one_at_a_time(*args, **kwargs):
            with lock:
                return launch(*args, **kwargs)

        mp.setattr(kernels_gpu, "launch", one_at_a_time)
        with distributed.Client(processes=False, n_workers=3, threads_per_worker=1,
                                dashboard_address=None) as client:
            yield client


def as_tuples(frame):
    return sorted(zip(frame["src"].tolist(), frame["dst"].tolist(),
                      [float(x) for x in frame["weight"].tolist()]))


@settings(max_examples=examples(12), deadline=None, phases=NO_SHRINK, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edges=edge_frames(max_vertices=16, max_edges=40), b=st.sampled_from([0, 1, 2, 5]),
       partitions=st.sampled_from([1, 2, 3]), heap_above=st.sampled_from([0, 1, 32]))
def test_gpu_supersteps_equal_the_greedy_b_matching(threaded_client, monkeypatch, edges, b,
                                                     partitions, heap_above):
    """Ties (small integer weights), self-loops, duplicates; capacities above
    ``heap_above`` in the locked heaps."""
    if not len(edges):
        return
    monkeypatch.setattr(kernels_gpu, "HEAP_ABOVE", heap_above)
    frame = dd.from_pandas(edges, npartitions=min(partitions, len(edges)), sort=False)
    got, stats = cm.b_suitor_matching(frame, b=b, backend="gpu", return_stats=True)
    assert stats["device"] == "gpu"
    got = got.compute()
    assert as_tuples(got) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"], b)
    pd.testing.assert_frame_equal(got, cm.b_suitor_matching(frame, b=b, backend="cpu").compute())


@pytest.mark.parametrize("name", ["karate", "lesmis"])
def test_gpu_supersteps_on_the_stand_in_equal_the_cpu_workers(threaded_client, name):
    """The worker's host code on a CuPy that refuses what CuPy refuses; both
    kernels launched; the mates frame equal to the CPU workers' and to one
    machine's; per-vertex capacities with zeros (closed from the start)."""
    edges = cm.datasets.load(name)
    frame = dd.from_pandas(edges, npartitions=3)
    LAUNCHES.clear()
    with installed():
        mates = cm.suitor_matching(frame, backend="gpu").compute()
        vertices = sorted(set(edges["src"]) | set(edges["dst"]))
        b = pd.Series([v % 4 for v in vertices], index=vertices)
        pairs = cm.b_suitor_matching(frame, b=b, backend="gpu").compute()
    assert {"superstep_kernel", "closing_kernel"} <= set(LAUNCHES), sorted(LAUNCHES)
    pd.testing.assert_frame_equal(mates, cm.suitor_matching(frame, backend="cpu").compute())
    pd.testing.assert_frame_equal(mates.reset_index(drop=True),
                                  cm.suitor_matching(edges, backend="cpu"))
    assert as_tuples(pairs) == greedy_b_matching(edges["src"], edges["dst"], edges["weight"],
                                                 b.to_dict())
