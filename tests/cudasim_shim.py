"""Warp intrinsics for Numba's CUDA simulator.

The simulator (``NUMBA_ENABLE_CUDASIM=1``) runs each thread of a block as a
Python thread but has no warp-level primitives.  The kernels use them as
they would on hardware, so the test suite supplies them here: every warp
gets a slot table and a barrier; a lane writes its value, waits for the
other lanes, reads the lane it wants and waits again so no slot is
overwritten early.  Only full-warp participation is simulated (every lane
of the warp calls the primitive with a mask covering the whole warp), which
is how the project's kernels use them; anything else raises.

``ldcg``/``ldcv`` (loads that bypass L1) are plain loads in the simulator,
where every thread sees one coherent memory; ``nanosleep`` yields.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

WARP = 32
FULL_MASK = 0xFFFFFFFF
# A lane that waits this long for its warp-mates is deadlocked (a lane
# exited or diverged around a full-warp primitive): fail instead of hanging.
BARRIER_TIMEOUT_S = 60.0

_lock = threading.Lock()


class _LaneBarrier:
    """A barrier for the lanes of one warp, cheaper than ``threading.Barrier``
    (which parks every waiter on a condition variable and makes each re-take
    its lock on the way out): each lane blocks on a lock of its own, and the
    last lane to arrive releases the others' locks."""

    def __init__(self, lanes: int):
        self.lanes = lanes
        self.arrived = 0
        self.guard = threading.Lock()
        self.parked: list[int] = []
        self.gates = [threading.Lock() for _ in range(WARP)]
        for gate in self.gates:
            gate.acquire()

    def wait(self, lane: int) -> None:
        with self.guard:
            self.arrived += 1
            if self.arrived == self.lanes:
                self.arrived = 0
                parked, self.parked = self.parked, []
                for other in parked:
                    self.gates[other].release()
                return
            self.parked.append(lane)
        if not self.gates[lane].acquire(timeout=BARRIER_TIMEOUT_S):
            raise threading.BrokenBarrierError(
                f"lane {lane} waited {BARRIER_TIMEOUT_S} s for its warp: a lane exited or "
                f"diverged around a full-warp primitive")


class _Warp:
    def __init__(self, lanes: int):
        self.lanes = lanes
        self.mask = (1 << lanes) - 1
        # Two slot tables used in turn, so one barrier per exchange is enough:
        # a lane writes table k % 2 again at exchange k + 2, after passing the
        # barrier of exchange k + 1, which no lane reaches before it has read
        # its exchange k result from that table.
        self.tables = ([None] * WARP, [None] * WARP)
        self.turn = [0] * WARP  # each lane's next table
        self.barrier = _LaneBarrier(lanes)

    def exchange(self, lane, value, pick):
        """Publish ``value``; return ``pick(slots)`` once every lane has published."""
        slots = self.tables[self.turn[lane]]
        self.turn[lane] ^= 1
        slots[lane] = value
        self.barrier.wait(lane)
        return pick(slots)


def _current_warp(module) -> tuple[_Warp, int]:
    thread = threading.current_thread()
    block = module.blockDim
    block_threads = block.x * block.y * block.z
    warp_id = thread.thread_id // WARP
    key = (tuple(thread.blockIdx), warp_id)
    with _lock:
        warps = module.__dict__.setdefault("_cugraph_match_warps", {})
        warp = warps.get(key)
        if warp is None:
            warp = warps[key] = _Warp(min(WARP, block_threads - warp_id * WARP))
    return warp, thread.thread_id % WARP


def _check_mask(warp: _Warp, mask) -> None:
    if (int(mask) & warp.mask) != warp.mask:
        raise NotImplementedError(
            f"partial-warp mask {int(mask):#x} is not simulated; the warp has "
            f"{warp.lanes} lanes (mask {warp.mask:#x})"
        )


def shfl_sync(self, mask, value, src_lane):
    warp, lane = _current_warp(self)
    _check_mask(warp, mask)
    return warp.exchange(lane, value, lambda slots: slots[int(src_lane) % warp.lanes])


def shfl_xor_sync(self, mask, value, lane_mask):
    warp, lane = _current_warp(self)
    _check_mask(warp, mask)
    source = lane ^ int(lane_mask)
    return warp.exchange(lane, value,
                         lambda slots: slots[source] if source < warp.lanes else value)


def shfl_up_sync(self, mask, value, delta):
    warp, lane = _current_warp(self)
    _check_mask(warp, mask)
    source = lane - int(delta)
    return warp.exchange(lane, value, lambda slots: slots[source] if source >= 0 else value)


def shfl_down_sync(self, mask, value, delta):
    warp, lane = _current_warp(self)
    _check_mask(warp, mask)
    source = lane + int(delta)
    return warp.exchange(lane, value,
                         lambda slots: slots[source] if source < warp.lanes else value)


def ballot_sync(self, mask, predicate):
    warp, lane = _current_warp(self)
    _check_mask(warp, mask)

    def bits(slots):
        # Signed, as Numba types it on hardware (int32): lane 31's bit is the
        # sign, and a kernel that widens the ballot without masking sees it
        # spread over the high word here too (it did on a lent H100).
        return np.uint32(sum(1 << i for i in range(warp.lanes) if slots[i])).view(np.int32)

    return warp.exchange(lane, bool(predicate), bits)


def _as_unsigned(value) -> int:
    """``value``'s bit pattern at its own width (NumPy scalars) or 64 bits, as
    the hardware's ``popc``/``ffs`` read a register."""
    dtype = getattr(value, "dtype", None)
    width = dtype.itemsize * 8 if dtype is not None else 64
    return int(value) & ((1 << width) - 1)


def popc(self, value):
    """Set bits of the value's bit pattern (the simulator's own counts the
    characters of ``bin()``, a minus sign and all, for a negative value)."""
    return bin(_as_unsigned(value)).count("1")


def ffs(self, value):
    """1-based position of the lowest set bit, 0 for none, at the value's width."""
    bits = _as_unsigned(value)
    return (bits & -bits).bit_length()


def syncwarp(self, mask=FULL_MASK):
    warp, lane = _current_warp(self)
    _check_mask(warp, mask)
    warp.exchange(lane, None, lambda slots: None)


def activemask(self):
    warp, _ = _current_warp(self)
    return np.uint32(warp.mask)


def lanemask_lt(self):
    return np.uint32((1 << (threading.current_thread().thread_id % WARP)) - 1)


def ldcg(self, array, index):
    return array[index]


def nanosleep(self, ns):
    """A spinning thread yields to the others (the simulator's threads share the GIL)."""
    import time

    time.sleep(0)


# The simulator's own bit counts, replaced: they read a negative value's
# ``bin()``/``format()`` text, not its bit pattern as the hardware does.
_REPLACED = {"popc", "ffs"}
_INTRINSICS = {
    "shfl_sync": shfl_sync,
    "shfl_xor_sync": shfl_xor_sync,
    "shfl_up_sync": shfl_up_sync,
    "shfl_down_sync": shfl_down_sync,
    "ballot_sync": ballot_sync,
    "popc": popc,
    "ffs": ffs,
    "syncwarp": syncwarp,
    "activemask": activemask,
    "lanemask_lt": lanemask_lt,
    "ldcg": ldcg,
    "ldcv": ldcg,
    "nanosleep": nanosleep,
}


def _run_recorded(thread, function) -> None:
    """Run ``function`` in ``thread``, recording every exception it raises.

    The simulator's own ``BlockThread.run`` rebuilds the exception as
    ``type(e)(message)`` to prefix the thread's coordinates; for an exception
    whose constructor takes other arguments (NumPy's
    ``_UFuncNoLoopError(ufunc, dtypes)``, say) that rebuild raises in turn,
    the thread dies with ``exception`` unset, and the launch returns as if
    the kernel had succeeded, with whatever its outputs held.  Here the
    rebuild falls back to a ``RuntimeError`` naming the original (chained),
    so the launch always raises.
    """
    try:
        function()
    except BaseException as err:  # noqa: BLE001 - every kernel failure must surface
        where = f"tid={list(thread.threadIdx)} ctaid={list(thread.blockIdx)}"
        try:
            rebuilt = type(err)(f"{where}: {err}" if str(err) else where)
        except Exception:  # noqa: BLE001 - any constructor failure: fall back
            rebuilt = RuntimeError(f"{where}: {type(err).__name__}: {err}")
        rebuilt.__cause__ = err
        thread.exception = (rebuilt, sys.exc_info()[2])


def _run_recording_every_exception(self) -> None:
    """``BlockThread.run`` through :func:`_run_recorded`."""
    _run_recorded(self, lambda: threading.Thread.run(self))


def _pooled_thread_class():
    from numba.cuda.simulator.kernel import BlockThread

    class PooledThread(BlockThread):
        """A simulated CUDA thread that outlives its block: it waits on
        ``go`` for its next (block, thread) coordinates and body, so a
        launch reuses threads instead of starting one per CUDA thread of
        every block.  ``go`` is held except between a hand-over and the
        thread taking it; a ``job`` of None ends the thread."""

        def __init__(self):
            threading.Thread.__init__(self, daemon=True)
            self.syncthreads_event = threading.Event()
            self.go = threading.Lock()
            self.go.acquire()
            self.job = None

        def assign(self, manager, grid_point, point, job) -> None:
            from numba.cuda.simulator.kernelapi import Dim3

            block = manager._block_dim + (1,) * (3 - len(manager._block_dim))
            point = tuple(point) + (0,) * (3 - len(point))
            self._manager = manager
            self.blockIdx = Dim3(*(tuple(grid_point) + (0,) * (3 - len(grid_point))))
            self.threadIdx = Dim3(*point)
            self.thread_id = point[0] + block[0] * (point[1] + block[1] * point[2])
            self.exception = None
            self.abort = False
            self.debug = False
            self.syncthreads_blocked = False
            self.syncthreads_event.clear()
            self.job = job
            self.go.release()

        def retire(self) -> None:
            self.job = None
            try:
                self.go.release()
            except RuntimeError:  # handed a job it has not taken yet: it reads None
                pass

        def run(self) -> None:
            while True:
                self.go.acquire()
                job = self.job
                if job is None:
                    return
                _run_recorded(self, job)

    return PooledThread


class _ThreadPool:
    """Threads for one block at a time, reused from block to block and launch to launch."""

    def __init__(self):
        self.lock = threading.Lock()  # held while a block runs on the pool
        self.threads: list = []
        self.thread_class = None

    def take(self, n: int) -> list:
        if self.thread_class is None:
            self.thread_class = _pooled_thread_class()
        while len(self.threads) < n:
            thread = self.thread_class()
            thread.start()
            self.threads.append(thread)
        return self.threads[:n]

    def discard(self, threads) -> None:
        """A failed block's threads may still be running or waiting: end them, start afresh."""
        self.threads = [t for t in self.threads if t not in threads]
        for thread in threads:
            thread.retire()


_POOL = _ThreadPool()


def _run_block(manager, grid_point, *args) -> None:
    """Run one block of a simulated launch: one thread per CUDA thread, all
    released together once every live one waits in ``syncthreads``; the first
    exception aborts the others and fails the launch.

    Numba's own runner does this by polling its threads in a loop that never
    yields, so it holds the GIL against the very threads it waits for:
    profiled on GPU Louvain of lesmis, two thirds of the run went to that
    loop.  Here the threads report to the runner instead (a condition
    variable counting the live and the waiting ones), and the runner sleeps
    until one does.  The threads come from a pool (starting 128 Python
    threads costs 11.7 ms against 3.8 ms to hand 128 pooled ones their next
    block); a launch from a second Python thread while the pool is busy, or
    a debug launch, gets threads of its own.
    """
    from numba.cuda.simulator.kernel import BlockThread

    gate = threading.Condition()
    manager.gate = gate
    points = list(np.ndindex(*manager._block_dim))
    gate.alive, gate.waiting, gate.failed = len(points), 0, None

    def body():
        try:
            manager._f(*args)
        except BaseException:
            with gate:
                gate.failed = gate.failed or threading.current_thread()
                gate.notify()
            raise
        finally:
            with gate:
                gate.alive -= 1
                gate.notify()

    pooled = not manager._debug and _POOL.lock.acquire(blocking=False)
    try:
        if pooled:
            everyone = _POOL.take(len(points))
            for thread, point in zip(everyone, points):
                thread.assign(manager, grid_point, point, body)
        else:
            everyone = [BlockThread(body, manager, grid_point, point, manager._debug)
                        for point in points]
            for thread in everyone:
                thread.start()
        with gate:
            while gate.alive and gate.failed is None:
                if gate.waiting == gate.alive:
                    for thread in everyone:
                        if thread.syncthreads_blocked:
                            thread.syncthreads_blocked = False
                            thread.syncthreads_event.set()
                    gate.waiting = 0
                gate.wait()
            failed = gate.failed
        if failed is not None:
            for thread in everyone:  # let every waiting thread run into its abort check
                thread.abort = True
                thread.syncthreads_blocked = False
                thread.syncthreads_event.set()
            with gate:  # the failing thread has recorded its exception once its body ended
                while failed.exception is None:
                    gate.wait(0.01)
            if pooled:
                _POOL.discard(everyone)
            raise failed.exception[0].with_traceback(failed.exception[1])
    finally:
        if pooled:
            _POOL.lock.release()


def _syncthreads(thread) -> None:
    """``cuda.syncthreads`` for :func:`_run_block`: report to the block's gate, wait."""
    if thread.abort:
        raise RuntimeError("abort flag set on syncthreads call")
    gate = thread._manager.gate
    with gate:
        thread.syncthreads_blocked = True
        gate.waiting += 1
        gate.notify()
    thread.syncthreads_event.wait()
    thread.syncthreads_event.clear()
    if thread.abort:
        raise RuntimeError("abort flag set on syncthreads clear")


_shared_lock = threading.Lock()


def _shared_array(shared, shape, dtype, alignment=None):
    """``cuda.shared.array`` in the simulator, allocated once per block under a lock.

    The simulator keys a block's static shared arrays by the calling source
    line and allocates one on the first call, but without a lock: two
    threads reaching the line together each got an array of their own and
    then wrote to different "shared" tables.  That is what made GPU
    Louvain's contraction test fail now and then (a community's self-loop
    weight split between two copies of its hash table), not the kernel.
    """
    if shape == 0 or alignment is not None:  # dynamic shared memory: one buffer already
        return _SIMULATOR_SHARED_ARRAY(shared, shape, dtype, alignment)
    caller = sys._getframe(1)
    key = (caller.f_code.co_filename, caller.f_lineno)
    with _shared_lock:
        array = shared._allocations.get(key)
        if array is None:
            from numba.np import numpy_support
            from numba.core import types

            if isinstance(dtype, types.Type):
                dtype = numpy_support.as_dtype(dtype)
            array = shared._allocations[key] = np.empty(shape, dtype)
    return array


_SIMULATOR_SHARED_ARRAY = None


def install() -> None:
    """Add the intrinsics to the simulator's fake ``cuda`` module and make every
    exception inside a kernel fail its launch (idempotent)."""
    from numba.cuda.simulator import kernel as simulator_kernel
    from numba.cuda.simulator.kernelapi import FakeCUDAModule

    simulator_kernel.BlockThread.run = _run_recording_every_exception
    simulator_kernel.BlockManager.run = _run_block
    from numba.cuda.simulator.kernelapi import FakeCUDAShared

    global _SIMULATOR_SHARED_ARRAY
    if FakeCUDAShared.array is not _shared_array:
        _SIMULATOR_SHARED_ARRAY = FakeCUDAShared.array
        FakeCUDAShared.array = _shared_array
    simulator_kernel.BlockThread.syncthreads = _syncthreads

    # Simulated threads hand the GIL to each other at every barrier; at the
    # default 5 ms switch interval a karate-sized kernel takes minutes.
    # Measured with this runner and barrier (GPU Suitor on jazz, all weights
    # equal / GPU Louvain on lesmis): 1e-4 s 21.6 / 9.5 s, 5e-4 s 14.8 / 6.5 s,
    # 1e-3 s - / 6.6 s, 2e-3 s 16.1 / - s.
    sys.setswitchinterval(5e-4)
    for name, function in _INTRINSICS.items():
        if name in _REPLACED or not hasattr(FakeCUDAModule, name):
            setattr(FakeCUDAModule, name, function)
