"""The stopwatch the Dask steps report with: wall seconds, and the CPU
seconds of the thread that started it only."""

import threading
import time

from cugraph_match.structure.progress import Stopwatch


def test_spent_counts_waiting_as_wall_time_only():
    watch = Stopwatch()
    time.sleep(0.2)
    spent = watch.spent()
    assert spent["seconds"] >= 0.2
    assert 0 <= spent["cpu_seconds"] < 0.1  # sleeping takes no CPU


def test_spent_counts_this_thread_s_work_and_not_another_s():
    def busy(seconds: float) -> None:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    watch = Stopwatch()
    other = threading.Thread(target=busy, args=(0.3,))
    other.start()
    other.join()
    assert watch.spent()["cpu_seconds"] < 0.1  # the other thread's 0.3 s not counted
    busy(0.2)
    spent = watch.spent()
    assert spent["cpu_seconds"] >= 0.2
    assert spent["seconds"] >= spent["cpu_seconds"]
    # spent does not restart the watch
    assert watch.spent()["seconds"] >= spent["seconds"]
