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


# --------------------------------------------------------------------------
# the host's build slots
# --------------------------------------------------------------------------


@pytest.fixture
def in_a_worker(monkeypatch, tmp_path):
    """Slots taken as inside a Dask worker, in a folder of this test's own."""
    monkeypatch.setattr(threads, "_in_worker", lambda: True)
    monkeypatch.setattr(threads, "slot_directory", lambda: tmp_path / "slots")
    return tmp_path / "slots"


@pytest.mark.parametrize("value, expected", [
    ("auto", "auto"), ("unlimited", "unlimited"), (1, 1), (3, 3), ("4", 4), (" 2 ", 2)])
def test_the_setting_read(value, expected):
    import dask

    with dask.config.set({threads.HOST_BUILDS_SETTING: value}):
        assert threads.requested_host_builds() == expected


@pytest.mark.parametrize("value", [0, -1, "0", "two", 1.5, True, None, "Auto", [2]])
def test_a_bad_setting_names_itself(value):
    import dask

    with dask.config.set({threads.HOST_BUILDS_SETTING: value}), \
            pytest.raises(ValueError, match="cugraph_match.dask.builds-per-host"):
        threads.requested_host_builds()


def test_outside_a_worker_nothing_waits(monkeypatch, tmp_path):
    monkeypatch.setattr(threads, "slot_directory", lambda: tmp_path / "slots")
    with threads.host_build_slot(1) as held, threads.host_build_slot(1) as again:
        assert held == again == {"slots": None, "waited": 0.0}
    assert not (tmp_path / "slots").exists()


def test_auto_is_the_cores_over_the_task_threads(monkeypatch, in_a_worker):
    monkeypatch.setattr(threads, "usable_cores", lambda: 5)
    with threads.numba_threads(1):
        assert threads.host_build_slots("auto") == 5
    if numba.config.NUMBA_NUM_THREADS >= 2:
        with threads.numba_threads(2):
            assert threads.host_build_slots("auto") == 2
    monkeypatch.setattr(threads, "usable_cores", lambda: 1)
    with threads.numba_threads(numba.config.NUMBA_NUM_THREADS):
        assert threads.host_build_slots("auto") == 1
    assert threads.host_build_slots(7) == 7
    assert threads.host_build_slots("unlimited") is None


def _hold(setting, entered, release, record):
    with threads.host_build_slot(setting) as held:
        record.append(held)
        entered.set()
        assert release.wait(30)


def test_a_build_waits_while_every_slot_is_held(in_a_worker):
    """Two slots: a third build waits until one of the first two ends, and
    says how long it waited."""
    import threading

    release = [threading.Event() for _ in range(3)]
    entered = [threading.Event() for _ in range(3)]
    record: list = []
    runs = [threading.Thread(target=_hold, args=(2, entered[i], release[i], record))
            for i in range(3)]
    for i in range(2):
        runs[i].start()
        assert entered[i].wait(10)
    runs[2].start()
    assert not entered[2].wait(0.3)  # both slots held
    release[1].set()
    assert entered[2].wait(10)
    release[0].set()
    release[2].set()
    for run in runs:
        run.join(10)
    assert [r["slots"] for r in record] == [2, 2, 2]
    assert record[2]["waited"] >= 0.3 > max(record[0]["waited"], record[1]["waited"])
    assert sorted(p.name for p in in_a_worker.iterdir()) == ["slot-0.lock", "slot-1.lock"]


def test_a_slot_is_freed_when_its_block_raises(in_a_worker):
    with pytest.raises(KeyError, match="inside"):
        with threads.host_build_slot(1):
            raise KeyError("inside")
    descriptor = threads._try_slot(in_a_worker, 0)
    assert descriptor is not None
    import os
    os.close(descriptor)


def test_a_slot_is_freed_when_its_process_dies(in_a_worker):
    """The slot of a process killed while it builds is free again (the kernel
    drops the dead process's lock): no build waits for it for ever."""
    import os
    import subprocess
    import sys

    in_a_worker.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         f"d = os.open({str(in_a_worker / 'slot-0.lock')!r}, os.O_CREAT | os.O_RDWR)\n"
         "fcntl.flock(d, fcntl.LOCK_EX)\n"
         "print('held', flush=True)\n"
         "time.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert threads._try_slot(in_a_worker, 0) is None  # another process holds it
    finally:
        holder.kill()
        holder.wait(10)
    with threads.host_build_slot(1) as held:
        assert held["slots"] == 1 and held["waited"] < 5
    assert os.path.exists(in_a_worker / "slot-0.lock")


@pytest.mark.parametrize("layout", ["edge", "vertex"])
def test_builds_on_the_workers_report_their_waits(client, layout):
    """On the process workers each host build takes a slot: one slot for
    the host serializes them (each waits or not, the result is one
    machine's), and a bad setting stops the call before any build."""
    import dask
    import dask.dataframe as dd
    import numpy as np
    import pandas as pd

    import cugraph_match as cm
    from cugraph_match.dask import edge_split

    rng = np.random.default_rng(3)
    edges = pd.DataFrame({"src": rng.integers(0, 300, 3000), "dst": rng.integers(0, 300, 3000),
                          "weight": rng.random(3000) + 0.5})
    frame = dd.from_pandas(edges, npartitions=4, sort=False)
    single = cm.suitor_matching(edges, backend="cpu")
    p = len(client.nthreads())
    for setting in (1, "unlimited", "auto"):
        with dask.config.set({edge_split.LAYOUT_SETTING: layout,
                              threads.HOST_BUILDS_SETTING: setting}):
            got, stats = cm.suitor_matching(frame, return_stats=True)
            pd.testing.assert_frame_equal(got.compute(), single)
        waits = stats["build"]["slot_wait_seconds"]
        assert len(waits) == p and all(w >= 0 for w in waits)
        if setting == "unlimited":
            assert waits == [0.0] * p
    with dask.config.set({edge_split.LAYOUT_SETTING: layout,
                          threads.HOST_BUILDS_SETTING: 0}), \
            pytest.raises(ValueError, match="builds-per-host"):
        cm.suitor_matching(frame)


def test_no_folder_for_the_slots_means_no_bound(monkeypatch, tmp_path):
    """A temporary folder the worker cannot write: the build runs, unbounded."""
    monkeypatch.setattr(threads, "_in_worker", lambda: True)
    (tmp_path / "a file").write_text("")
    monkeypatch.setattr(threads, "slot_directory", lambda: tmp_path / "a file" / "slots")
    with threads.host_build_slot(1) as held, threads.host_build_slot(1) as again:
        assert held["slots"] is None and again["slots"] is None
