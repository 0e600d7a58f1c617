"""The memory-limited proof, small: 8 worker processes, each limited to its
idle resident memory (after imports and compilation) plus a third of what
the single-machine call needs above its own, finish ``suitor_matching``
with the exact single-machine result, and no worker pauses, is restarted or
is replaced; each worker's true peak (``VmHWM``, not Dask's 100 ms samples)
stays within its limit.

Dask pauses a worker above ``pause`` x its limit and the nanny kills it
above ``terminate`` x its limit; both are set at the limit itself (pause at
1.0, terminate at 1.05), and spilling is off (a part lives outside Dask's
data store, so spilling could not shrink it).  The limits are set on the
running workers once their idle memory is known (the memory monitor runs
because the cluster starts with a limit)."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from rmat import rmat_edges  # noqa: E402
from dask_warmup import warm_dask_kernels  # noqa: E402

WORKERS = 8
SCALE = 16


def _status_bytes(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def _idle():
    import ctypes

    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    return _status_bytes("VmRSS")


def _limit_worker(limit, dask_worker=None):
    dask_worker.memory_manager.memory_limit = int(limit[dask_worker.address])
    return os.getpid()


def _limit_nanny(limit, dask_worker=None):
    dask_worker.memory_manager.memory_limit = int(limit[dask_worker.worker_address])


def _peak():
    return _status_bytes("VmHWM")


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_eight_workers_limited_to_a_third_of_the_single_machine_memory():
    cm.suitor_matching(rmat_edges(8, seed=1), backend="cpu")  # compiled before measuring
    warm_dask_kernels(extra=[rmat_edges(8, seed=1)])  # compiled once here, not in 8 workers
    base = _idle()
    edges = rmat_edges(SCALE, seed=3)
    with open("/proc/self/clear_refs", "w") as fh:  # the input counts, its generation not
        fh.write("5")
    expected = cm.suitor_matching(edges, backend="cpu")
    single = _peak() - base  # the single-machine call above its baseline (input held)
    third = single / 3
    config = {"distributed.worker.memory.target": False,
              "distributed.worker.memory.spill": False,
              "distributed.worker.memory.pause": 1.0,
              "distributed.worker.memory.terminate": 1.05}
    with dask.config.set(config), \
            distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                     dashboard_address=None, memory_limit="4GiB") as cluster, \
            distributed.Client(cluster) as client:
        warm = dd.from_pandas(rmat_edges(8, seed=1), npartitions=WORKERS)
        cm.suitor_matching(warm).compute()  # compiled (or cache loaded) in every worker
        idle = client.run(_idle)
        limit = {address: rss + third for address, rss in idle.items()}
        pids = client.run(_limit_worker, limit)
        client.run(_limit_nanny, limit, nanny=True)
        frame = client.persist(dd.from_pandas(edges, npartitions=2 * WORKERS))
        got = cm.suitor_matching(frame).compute()
        peaks = client.run(_peak)
        events = {address: client.get_events(address) for address in limit}
        assert client.run(os.getpid) == pids  # no worker restarted or replaced
    pd.testing.assert_frame_equal(got.astype({"vertex": expected["vertex"].dtype}), expected)
    for address, found in events.items():
        # the only status change allowed is the start (init -> running)
        changes = [e for _, e in found if isinstance(e, dict) and (
            e.get("action") == "worker-restart-memory" or
            (e.get("action") == "worker-status-change" and e.get("status") != "running"))]
        assert not changes, (address, changes)
    over = {a: (peaks[a] - idle[a]) / third for a in peaks}
    assert max(over.values()) <= 1.0, over
    assert np.isfinite(single) and single > 0
