"""The memory-limited cluster run (issue: "the proof a user would ask for").

``suitor_matching`` of an edge list on a ``LocalCluster`` of worker processes,
each limited to its idle resident memory (after imports and compilation)
plus a share (a third) of what the single-machine call needs above its own
idle memory.  Used at R-MAT 16 by ``tests/test_dask_memory.py`` (which
asserts) and at R-MAT 20/22 by ``bench_dask_limited.py`` (which reports).

Dask pauses a worker above ``pause`` x its limit and the nanny kills it
above ``terminate`` x its limit; both are set at the limit itself (pause at
1.0, terminate at 1.05), and spilling is off (a part lives outside Dask's
data store, so spilling could not shrink it).  The limits are set on the
running workers once their idle memory is known (the memory monitor runs
because the cluster starts with a limit).  Linux only (``/proc``).
"""

from __future__ import annotations

import ctypes
import gc
import os
import time

import numpy as np
import pandas as pd

LIMITED_CONFIG = {"distributed.worker.memory.target": False,
                  "distributed.worker.memory.spill": False,
                  "distributed.worker.memory.pause": 1.0,
                  "distributed.worker.memory.terminate": 1.05}


def status_bytes(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def idle_bytes() -> int:
    """Resident bytes once the free heap is returned, the peak reset to them."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    reset_peak()
    return status_bytes("VmRSS")


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def peak_bytes() -> int:
    return status_bytes("VmHWM")


def _limit_worker(limit, dask_worker=None):
    dask_worker.memory_manager.memory_limit = int(limit[dask_worker.address])
    return os.getpid()


def _limit_nanny(limit, dask_worker=None):
    dask_worker.memory_manager.memory_limit = int(limit[dask_worker.worker_address])


def single_machine(make_edges):
    """(edges, the single call's frame, its peak above idle with the input
    counted, its wall seconds) in this process."""
    import cugraph_match as cm

    base = idle_bytes()
    edges = make_edges()
    reset_peak()  # the input counts, its generation not
    start = time.perf_counter()
    expected = cm.suitor_matching(edges, backend="cpu")
    seconds = time.perf_counter() - start
    return edges, expected, peak_bytes() - base, seconds


def _changes(client, addresses) -> dict:
    """Per worker, its status changes other than to running, and memory restarts."""
    found = {}
    for address in addresses:
        found[address] = [e for _, e in client.get_events(address)
                          if isinstance(e, dict) and (
                              e.get("action") == "worker-restart-memory" or
                              (e.get("action") == "worker-status-change" and
                               e.get("status") != "running"))]
    return found


def limited_run(edges: pd.DataFrame, single_bytes: int, workers: int = 8,
                share: float = 1 / 3, warm: pd.DataFrame | None = None,
                timeout: float = 600.0) -> dict:
    """``suitor_matching`` of ``edges`` on ``workers`` limited worker processes.

    Returns the computed frame (``result``), per worker address its idle
    bytes, limit, ``VmHWM`` and status-change / memory-restart events, the
    worker pids before and after (equal when none was restarted or
    replaced), the call's wall seconds and the layout it took (``layout``:
    the setting's ``"auto"`` chooses).  ``edges`` go to the workers as
    scattered partitions (2 a worker), not inside the task graph.  A call
    not done in ``timeout`` seconds (paused workers wait for memory that
    never comes) raises TimeoutError naming the workers' status changes."""
    from concurrent.futures import ThreadPoolExecutor

    import dask
    import dask.dataframe as dd
    import distributed

    import cugraph_match as cm

    with dask.config.set(LIMITED_CONFIG), \
            distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                     dashboard_address=None, memory_limit="4GiB") as cluster, \
            distributed.Client(cluster) as client:
        if warm is not None:  # compiled (or loaded from the cache) in every worker
            cm.suitor_matching(dd.from_pandas(warm, npartitions=workers)).compute()
        idle = client.run(idle_bytes)
        limit = {address: rss + single_bytes * share for address, rss in idle.items()}
        pids = client.run(_limit_worker, limit)
        client.run(_limit_nanny, limit, nanny=True)
        bounds = np.linspace(0, len(edges), 2 * workers + 1).astype(int)
        futures = client.scatter([edges.iloc[a:b] for a, b in zip(bounds, bounds[1:])])
        frame = dd.from_delayed(futures, meta=edges.iloc[:0], verify_meta=False)
        start = time.perf_counter()
        # the driver in a thread, so that a cluster that stalls fails here
        # (closing the cluster on the way out ends the thread's waits)
        pool = ThreadPoolExecutor(1)
        call = pool.submit(lambda: _computed(*cm.suitor_matching(frame, return_stats=True)))
        pool.shutdown(wait=False)
        try:
            result, layout = call.result(timeout=timeout)
        except TimeoutError:
            raise TimeoutError(f"the limited cluster did not finish in {timeout:.0f} s; "
                               f"status changes: {_changes(client, limit)}") from None
        seconds = time.perf_counter() - start
        del frame, futures
        peaks = client.run(peak_bytes)
        events = _changes(client, limit)
        pids_after = client.run(os.getpid)
    return {"result": result, "idle": idle, "limit": limit, "peak": peaks, "events": events,
            "pids": pids, "pids_after": pids_after, "seconds": seconds, "layout": layout}


def _computed(result, stats: dict) -> tuple:
    """The computed frame and the layout the call took (``"auto"`` chooses)."""
    return result.compute(), stats.get("layout", "vertex")
