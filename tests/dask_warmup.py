"""Compile the Dask path's kernels once, before a cluster's worker processes start.

A cluster's workers start together and, with Numba's on-disk cache still
empty (a fresh clone, as in CI), each compiled the same kernels at the same
time: measured on the unit pass, the two workers of the session cluster
spent 25 s each compiling one set, the 8 workers of the memory-limited test
4-5 s each on another, the example's two workers 7 s each.  Here one test
process compiles them on an in-process (threaded) cluster while holding a
file lock, so the other test process waits and then loads them, and every
worker process started afterwards loads them from the cache.  A marker
beside Numba's cache (``cugraph_match/dask/__pycache__``, empty in a fresh
clone) tells a later test process that the default frames are done; if the
code changed since, the workers compile what changed themselves (slower,
never wrong).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

LOCK = os.path.join(tempfile.gettempdir(), "cugraph_match_dask_warmup.lock")


def _frames():
    rng = np.random.default_rng(0)
    n, m = 60, 240
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    frames = [pd.DataFrame({"src": src, "dst": dst, "weight": rng.choice([1.0, 2.0, 3.5], m)})]
    frames.append(frames[0].astype({"weight": np.float32}))
    frames.append(frames[0].astype({"weight": np.int64}))
    frames.append(frames[0].assign(src=[f"v{x}" for x in src], dst=[f"v{x}" for x in dst]))
    return frames


_warmed = False

#: What the fork server imports before forking Dask's worker processes.
SERVER_PRELOAD = ["distributed", "numpy", "pandas", "dask.dataframe", "numba", "cugraph_match"]


def fork_workers_from_a_server() -> None:
    """Make Dask start worker processes by ``forkserver``, the server having
    imported :data:`SERVER_PRELOAD` (nothing if Dask is not installed or the
    platform has no fork server)."""
    import multiprocessing

    try:
        import dask
        from distributed.utils import get_mp_context
    except ImportError:
        return
    if "forkserver" not in multiprocessing.get_all_start_methods():  # Windows: spawn stays
        return
    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    # Dask sets its own preload list on its first call; ours replaces it
    # before the server starts (it starts with the first worker)
    get_mp_context().set_forkserver_preload(SERVER_PRELOAD)


def warm_dask_kernels(extra=()) -> None:
    """Run every Dask path on small graphs in this process: once per process
    on the default dtypes, float32 and int64 weights and string ids, and on
    ``extra`` frames each call."""
    global _warmed
    distributed = __import__("distributed")
    dd = __import__("dask.dataframe", fromlist=["from_pandas"])
    dask = __import__("dask")
    import cugraph_match as cm
    from cugraph_match import dask as package
    from cugraph_match.dask import louvain as dask_louvain

    # beside Numba's cache of these kernels: a fresh clone has neither
    done = Path(package.__file__).parent / "__pycache__" / "warmed_for_tests"
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():  # another test process compiled the default frames' kernels
            _warmed = True
        if _warmed and not extra:
            return
        with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                                dashboard_address=":0") as client:
            for edges in list(extra) + ([] if _warmed else _frames()):
                frame = dd.from_pandas(edges, npartitions=2)
                cm.suitor_matching(frame).compute(scheduler=client)
                # the edge-split layout's kernels too ("auto" takes it on two
                # workers or more; one worker runs the vertex layout)
                with dask.config.set({"cugraph_match.dask.layout": "edge"}):
                    cm.suitor_matching(frame).compute(scheduler=client)
                graph = cm.dask.DistributedGraph(frame, client=client)
                cm.locally_dominant_matching(graph).compute(scheduler=client)
                cm.b_suitor_matching(graph, b=2).compute(scheduler=client)
                vertices = pd.concat([edges["src"], edges["dst"]]).unique()
                cm.modularity(graph, pd.DataFrame({"vertex": vertices, "community": 0}))
                finish = dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE
                try:  # the distributed levels too, not only the finish on one worker
                    dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = 0, 0.0
                    cm.louvain(graph)[0].compute(scheduler=client)
                finally:
                    dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = finish
        if not _warmed:
            done.parent.mkdir(exist_ok=True)
            done.touch()
            _warmed = True
