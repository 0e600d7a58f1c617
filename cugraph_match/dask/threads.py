"""The Numba threads of the kernels a Dask task runs.

Dask's Nanny starts each worker process with ``OMP_NUM_THREADS=1`` (its
setting ``distributed.nanny.pre-spawn-environ``; MKL's and OpenBLAS's pools
get the same), so that p worker processes on one machine do not each start
a thread per core.  Numba's pools do not read that variable: without this
rule every parallel kernel of every worker started one thread per core, and
p workers on c cores ran p x c threads that spin and wait for each other.
Measured on a 2-core machine (the edge-split parts' builds of R-MAT 20 on 4
worker processes, ``benchmarks/dask_build_threads.py``, medians of three):
7.71 CPU s and 4.13 s wall with two threads each, 5.33 CPU s and 2.97 s with
one.

So a task of ours on a Dask worker runs its kernels on as many threads as
``OMP_NUM_THREADS`` says (at most Numba's own limit), and gives the task
thread its setting back when it returns.  A worker given more threads per
task (``OMP_NUM_THREADS=k`` in ``pre-spawn-environ``, as Dask documents for
the other pools) gets k; a process without the variable (a threaded
``LocalCluster``, the caller's own process) keeps Numba's setting.
"""

from __future__ import annotations

import functools
import os
from typing import Callable, TypeVar

import numba

from ..structure.backend import numba_threads

Task = TypeVar("Task", bound=Callable)

#: The variable Dask sets in its worker processes.
THREADS_VARIABLE = "OMP_NUM_THREADS"


def _in_worker() -> bool:
    try:
        from distributed import get_worker
        get_worker()
    except (ImportError, ValueError):
        return False
    return True


def task_threads() -> int | None:
    """The Numba threads a task here runs its kernels on: ``OMP_NUM_THREADS``
    (capped at ``NUMBA_NUM_THREADS``) inside a Dask worker that sets it,
    else None (Numba's own setting stands).  A value that is not a positive
    integer is ignored, as the OpenMP runtime ignores it."""
    value = os.environ.get(THREADS_VARIABLE, "").strip()
    if not value.isdigit() or int(value) < 1 or not _in_worker():
        return None
    return min(int(value), numba.config.NUMBA_NUM_THREADS)


def worker_threads(task: Task) -> Task:
    """``task`` running its kernels on :func:`task_threads` threads (Numba's
    setting is per calling thread: the Dask task thread's is restored)."""

    @functools.wraps(task)
    def run(*args, **kwargs):
        with numba_threads(task_threads()):
            return task(*args, **kwargs)

    return run  # type: ignore[return-value]
