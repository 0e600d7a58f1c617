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

Workers that outnumber their host's cores still share them: p builds of
one-thread tasks on c < p cores are time-sliced against each other, and
the same builds cost more CPU seconds than in turns.  So a part's build on
the host (the edge layout's, and every ``DistributedGraph``'s: the matchings,
b-Suitor, Louvain, Leiden, modularity) takes one of the host's *build slots*
(:func:`host_build_slot`) for its compute: its usable cores over a
task's threads, by default.  Measured on a 2-core machine with 4 worker
processes, call by call (``benchmarks/dask_ab.py --setting builds-per-host``),
in the README's *Builds on a shared host*.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import numba

from ..structure.backend import numba_threads

log = logging.getLogger("cugraph_match.dask")

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


#: The Dask setting bounding the parts' builds that run at once on one host:
#: ``"auto"`` (the default: its usable cores over a task's Numba threads), a
#: positive integer, or ``"unlimited"``.  Read where the call is made.
HOST_BUILDS_SETTING = "cugraph_match.dask.builds-per-host"
#: The longest pause between two looks for a free slot (seconds).
SLOT_POLL_SECONDS = 0.02


def requested_host_builds() -> int | str:
    """The setting :data:`HOST_BUILDS_SETTING` as the caller's Dask config
    gives it (``"auto"`` when unset), checked: ``"auto"``, ``"unlimited"`` or
    a positive integer."""
    import dask

    value = dask.config.get(HOST_BUILDS_SETTING, "auto")
    if value in ("auto", "unlimited"):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"the Dask setting {HOST_BUILDS_SETTING!r} must be 'auto', "
                         f"'unlimited' or a positive integer, got {value!r}")
    return int(value)


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform
    says, else the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def host_build_slots(setting: int | str = "auto") -> int | None:
    """How many builds may run at once on this host under ``setting``
    (:func:`requested_host_builds`): None for no bound, which is the answer
    outside a Dask worker, under ``"unlimited"`` and where file locks are
    missing (not POSIX)."""
    if setting == "unlimited" or not _in_worker():
        return None
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return None
    if setting == "auto":
        # a task's kernels run on the calling thread's Numba threads
        return max(1, usable_cores() // max(1, numba.get_num_threads()))
    return int(setting)


def slot_directory() -> Path:
    """Where this host's build slots are kept: a folder of lock files, one
    per user and host name, in the temporary folder."""
    return Path(tempfile.gettempdir()) / f"cugraph_match-builds-{os.getuid()}-" \
        f"{socket.gethostname()}"


def _try_slot(directory: Path, slot: int) -> int | None:
    """The open descriptor of slot ``slot``'s lock file, locked, or None
    when another build holds it."""
    import fcntl

    descriptor = os.open(directory / f"slot-{slot}.lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(descriptor)
        if isinstance(error, BlockingIOError):
            return None
        raise
    return descriptor


@contextlib.contextmanager
def host_build_slot(setting: int | str = "auto", first: int = 0) -> Iterator[dict]:
    """Hold one of this host's build slots (:func:`host_build_slots`) for
    the block: the block waits while every slot is held by another build,
    on this host, of any cluster of the same user.  A slot is an exclusive
    ``flock`` on a file (:func:`slot_directory`), so the kernel frees it when
    its holder ends, normally or not; the wait looks at the slots, from
    ``first`` on, every millisecond at first and then at most every
    :data:`SLOT_POLL_SECONDS`.  Where the folder cannot be made or its files
    locked, the block runs unbounded (logged at debug level).  Yields a dict
    whose ``waited`` is the seconds waited and ``slots`` the bound (None:
    none)."""
    slots = host_build_slots(setting)
    held = {"slots": slots, "waited": 0.0}
    descriptor = None
    if slots is not None:
        started = time.perf_counter()
        try:
            descriptor = _wait_for_slot(slot_directory(), slots, first)
        except OSError as error:  # no folder to keep them in: the build is not bounded
            log.debug("cugraph_match.dask: no build slots on this host (%s)", error)
            held["slots"] = None
        held["waited"] = time.perf_counter() - started
        if held["waited"] > 0.01:
            log.debug("cugraph_match.dask: a build waited %.2f s for one of its host's %d "
                      "slots", held["waited"], slots)
    try:
        yield held
    finally:
        if descriptor is not None:
            os.close(descriptor)  # closing the only descriptor releases the lock


def _wait_for_slot(directory: Path, slots: int, first: int) -> int:
    """The locked descriptor of the first free slot, looking from ``first``
    on, waiting while none is."""
    directory.mkdir(mode=0o700, exist_ok=True)
    pause = 0.001
    while True:
        for i in range(slots):
            descriptor = _try_slot(directory, (first + i) % slots)
            if descriptor is not None:
                return descriptor
        time.sleep(pause)
        pause = min(2 * pause, SLOT_POLL_SECONDS)
