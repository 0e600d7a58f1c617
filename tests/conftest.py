import contextlib
import os

import pytest

import hypothesis_profiles  # noqa: F401  (loads the hypothesis profile: ci or thorough)

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

if SIMULATED:
    from cudasim_shim import install

    install()


def pytest_configure(config):
    """Dask's worker processes of the tests' clusters are forked from one server
    that imported the libraries once (Dask's default starts each by ``spawn``,
    a fresh interpreter importing NumPy, pandas, Numba and this package: on
    the 2-core machine 8 workers took 13.8 s to start and run a first call,
    forked 7.5-8.6 s).  Still separate processes, as a user's cluster has."""
    if SIMULATED:
        return
    from dask_warmup import fork_workers_from_a_server

    fork_workers_from_a_server()


def pytest_collection_modifyitems(config, items):
    """The simulator pass runs only the `cudasim` tests; the normal pass skips them."""
    for item in items:
        is_sim = "cudasim" in item.keywords
        if SIMULATED and not is_sim:
            item.add_marker(pytest.mark.skip(reason="simulator pass: runs only cudasim tests"))
        elif not SIMULATED and is_sim:
            item.add_marker(pytest.mark.skip(reason="needs NUMBA_ENABLE_CUDASIM=1 (the ci/test.sh simulator pass)"))


@pytest.fixture(scope="session")
def client():
    """One LocalCluster of 2 worker processes (1 thread each) for every test
    module of the Dask path in this test process: the cluster and its
    workers' imports start once, not once per module."""
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    from dask_warmup import warm_dask_kernels

    warm_dask_kernels()  # compiled here once, loaded by the workers
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, memory_limit="4GiB")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@contextlib.contextmanager
def simulated_gpu_cluster(n_workers: int):
    """A threaded cluster of ``n_workers`` for the simulator tests of the GPU
    paths on Dask.  Numba's simulator swaps a module global of the kernel it
    runs, so two workers' launches in one process must not overlap: a lock
    around every launch (the superstep kernels', Louvain's move and
    component kernels' and the input pipeline's, which the device build
    runs) stands in for each worker's own GPU.

    Dask's worker profiler is off: every 10 ms it walks every thread's frames
    (``sys._current_frames``), and with the simulator's pool of hundreds of
    threads the test process segfaulted there (gdb, 2026-11-27: in the
    event loop's thread, ``_PyThread_CurrentFrames``) in both full runs of
    ``tests/test_dask_louvain_gpu.py`` that day; three of three without it."""
    import threading

    import dask

    distributed = pytest.importorskip("distributed")
    from cugraph_match.dask import kernels_gpu
    from cugraph_match.structure import community_gpu, pipeline_gpu

    lock = threading.Lock()

    def one_at_a_time(launch):
        def locked(*args, **kwargs):
            with lock:
                return launch(*args, **kwargs)
        return locked

    with pytest.MonkeyPatch.context() as mp, \
            dask.config.set({"distributed.worker.profile.enabled": False}):
        mp.setattr(kernels_gpu, "launch", one_at_a_time(kernels_gpu.launch))
        mp.setattr(community_gpu, "launch", one_at_a_time(community_gpu.launch))
        mp.setattr(pipeline_gpu, "on_stream", one_at_a_time(pipeline_gpu.on_stream))
        with distributed.Client(processes=False, n_workers=n_workers, threads_per_worker=1,
                                dashboard_address=None) as c:
            yield c


@pytest.fixture(scope="module")
def simulated_gpu_client():
    """:func:`simulated_gpu_cluster` of 3 workers."""
    with simulated_gpu_cluster(3) as c:
        yield c
