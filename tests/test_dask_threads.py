"""The Numba threads of our tasks on Dask workers (``dask.threads``): the
worker's ``OMP_NUM_THREADS``, as Dask sets it for the other native pools,
and the task thread's own setting back afterwards."""

import numba
import pytest

from cugraph_match.dask import threads

distributed = pytest.importorskip("distributed")


def test_outside_a_worker_numba_keeps_its_setting(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert threads.task_threads() is None
    before = numba.get_num_threads()
    assert threads.worker_threads(numba.get_num_threads)() == before


@pytest.mark.parametrize("value, expected", [
    ("1", 1), (" 1 ", 1), ("100000", None), ("0", None), ("-2", None), ("two", None),
    ("1.5", None), ("", None)])
def test_the_variable_read(monkeypatch, value, expected):
    monkeypatch.setattr(threads, "_in_worker", lambda: True)
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    if value == "100000":  # capped at Numba's own limit
        expected = numba.config.NUMBA_NUM_THREADS
    assert threads.task_threads() == expected


def test_unset_variable(monkeypatch):
    monkeypatch.setattr(threads, "_in_worker", lambda: True)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert threads.task_threads() is None


def test_setting_restored_after_a_failing_task(monkeypatch):
    monkeypatch.setattr(threads, "_in_worker", lambda: True)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    before = numba.get_num_threads()

    def failing():
        assert numba.get_num_threads() == 1
        raise KeyError("inside")

    with pytest.raises(KeyError, match="inside"):
        threads.worker_threads(failing)()
    assert numba.get_num_threads() == before


def test_process_workers_run_kernels_on_one_thread(client):
    """Dask's Nanny sets OMP_NUM_THREADS=1: a task of ours runs on one
    Numba thread, and the worker's thread has Numba's setting again after."""
    from cugraph_match.dask import edge_split_worker, worker

    for address in client.nthreads():
        assert client.submit(threads.task_threads, workers=[address], pure=False).result() == 1
        got = client.submit(threads.worker_threads(numba.get_num_threads), workers=[address],
                            pure=False).result()
        assert got == 1
    assert set(client.run(numba.get_num_threads).values()) == \
        {numba.config.NUMBA_NUM_THREADS}
    # the tasks that build and run parts are wrapped (their names stay theirs)
    for task in (worker.build_part, worker.summarize_partition, edge_split_worker.build_part,
                 edge_split_worker.candidates):
        assert task.__wrapped__.__name__ == task.__name__


def test_more_threads_when_the_worker_is_given_more(monkeypatch):
    """``OMP_NUM_THREADS=k`` in Dask's pre-spawn environment: k threads (at
    most Numba's limit).  The Nanny prefers the variable already in its
    process's environment (an earlier Nanny here wrote 1 there), so both."""
    import dask

    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    with dask.config.set({"distributed.nanny.pre-spawn-environ.OMP_NUM_THREADS": 2}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=None, memory_limit="1GiB") as cluster, \
            distributed.Client(cluster) as client:
        got = client.submit(threads.worker_threads(numba.get_num_threads), pure=False).result()
        assert got == min(2, client.run(lambda: numba.config.NUMBA_NUM_THREADS).popitem()[1])


def test_threaded_workers_keep_numba_setting(monkeypatch):
    """A threaded cluster (no Nanny, the caller's process) keeps the caller's
    setting unless its environment says otherwise."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        got = client.submit(threads.worker_threads(numba.get_num_threads), pure=False).result()
    assert got == numba.get_num_threads()
