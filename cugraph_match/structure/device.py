"""The GPU as the kernels meet it, the ground floor of the device side: whether
the CUDA simulator is on, whether a real GPU works (the one
:func:`gpu_available`), the warp constants the kernels share, and which
stream to launch on.  Launch *arguments* are checked by
:func:`cugraph_match.structure.checks.check_launch` before any of this.

**Probe.** Importable CuPy and numba-cuda prove little: a driver without
libNVVM (bare ``numba-cuda``, whose NVVM comes with its ``[cu12]``/``[cu13]``
extras), CuPy built for a newer CUDA than the driver, or a pre-Volta card
all import fine and then fail at the first launch (or, for the b-Suitor
spin lock before compute capability 7.0, deadlock inside a warp).  So the
probe runs a tiny CuPy reduction and a one-thread Numba kernel and checks
the compute capability, once per process; ``backend="auto"`` falls back to
the CPU when it fails (the reason at debug log level) and ``backend="gpu"``
raises with the reason.

**Streams.** CuPy allocates, fills and reads back on its *current* stream;
Numba launches on stream 0 unless told otherwise.  Inside a caller's
non-blocking CuPy stream the two are unordered, and a host read such as
``int(counter[0])`` could see a value from before the kernel ran.
:func:`launch` puts every kernel on CuPy's current stream and hands Numba
the arrays without its own per-launch synchronisation (the stream orders
them already).
"""

from __future__ import annotations

import functools
import logging
import os

from .checks import MAX_THREADS_PER_BLOCK, WARP

LOG = logging.getLogger("cugraph_match")
MIN_COMPUTE_CAPABILITY = (7, 0)
FULL_MASK = 0xFFFFFFFF  # every lane of a warp (WARP = 32 lanes)
MAX_GRID_BLOCKS = 2**31 - 1  # CUDA's limit on a grid's x dimension
__all__ = ["FULL_MASK", "WARP", "WIDE_BLOCK", "cuda_simulator_enabled", "gpu_available",
           "gpu_unusable_reason", "launch", "probe"]


def cuda_simulator_enabled() -> bool:
    """Whether Numba runs CUDA kernels in its simulator (``NUMBA_ENABLE_CUDASIM``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


# 65,536 registers per SM (compute capability 7.0 to 9.x) shared by a block of
# 1,024 threads leave 64 per thread: a kernel compiled to use more cannot be
# launched with 1,024-thread blocks at all ("too many resources requested").
MAX_REGISTERS_AT_1024 = 64
# ``cuda.jit`` options of every kernel whose block size the caller chooses (up
# to 1,024 threads): registers capped so that such a block fits an SM (ptxas
# spills past the cap; ROMA's sparse kernel needs it, the others are below).
# Numba's simulator takes no such option.
WIDE_BLOCK = {} if cuda_simulator_enabled() else {"max_registers": MAX_REGISTERS_AT_1024}


@functools.lru_cache(maxsize=None)
def probe() -> tuple[bool, str]:
    """(usable, reason): whether a real GPU runs CuPy and Numba kernels here.

    Cached for the process.  The reason names what is missing when it is not
    usable, or the device when it is.
    """
    if cuda_simulator_enabled():
        return False, "NUMBA_ENABLE_CUDASIM=1: kernels run in Numba's CUDA simulator instead"
    try:
        import cupy
    except Exception as err:  # ImportError, or a CUDA library CuPy cannot load
        return False, f"CuPy is not importable ({err}); pip install 'cugraph_match[gpu]'"
    try:
        from numba import cuda
    except Exception as err:
        return False, f"numba-cuda is not importable ({err}); pip install 'cugraph_match[gpu]'"
    try:
        if not cuda.is_available():
            return False, "numba-cuda sees no CUDA driver or device"
        capability = tuple(cuda.get_current_device().compute_capability)
    except Exception as err:
        return False, f"numba-cuda cannot open the device ({err})"
    if capability < MIN_COMPUTE_CAPABILITY:
        return False, (f"compute capability {capability[0]}.{capability[1]} is below 7.0: the "
                       f"b-Suitor and marriage kernels rely on independent thread scheduling")
    try:
        total = int(cupy.arange(4, dtype=cupy.int64).sum())
        if total != 6:
            return False, f"CuPy computed 0+1+2+3 = {total} on this device"
    except Exception as err:
        return False, f"CuPy cannot run on this device ({err}); is it built for this driver?"
    try:
        out = cupy.zeros(1, dtype=cupy.int64)
        _probe_kernel()[1, 1](out)
        cupy.cuda.get_current_stream().synchronize()
        if int(out[0]) != 42:
            return False, "a one-thread Numba kernel ran but wrote the wrong value"
    except Exception as err:
        return False, (f"numba-cuda cannot compile or launch a kernel ({err}); libNVVM comes "
                       f"with numba-cuda's [cu12]/[cu13] extras: pip install 'cugraph_match[gpu]'")
    name = cuda.get_current_device().name
    name = name.decode() if isinstance(name, bytes) else name
    return True, f"{name}, compute capability {capability[0]}.{capability[1]}"


@functools.lru_cache(maxsize=None)
def _probe_kernel():
    from numba import cuda

    @cuda.jit
    def write_42(out):
        out[0] = 42

    return write_42


def gpu_available() -> bool:
    """True when a real CUDA device runs CuPy and Numba kernels here (see :func:`probe`)."""
    usable, reason = probe()
    if not usable:
        LOG.debug("GPU not used: %s", reason)
    return usable


def gpu_unusable_reason() -> str:
    return probe()[1]


# --------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------


def current_stream(xp):
    """The Numba stream for CuPy's current stream (0, the default, on NumPy)."""
    if getattr(xp, "__name__", "") != "cupy":
        return 0
    from numba import cuda

    return cuda.external_stream(xp.cuda.get_current_stream().ptr)


def _as_numba(array, xp):
    """A CuPy array as a Numba device array view, without Numba's wait on the
    array's stream (the launch goes on that same stream)."""
    if getattr(xp, "__name__", "") == "cupy" and hasattr(array, "__cuda_array_interface__"):
        from numba import cuda

        return cuda.as_cuda_array(array, sync=False)
    return array


def launch(kernel, blocks: int, threads: int, xp, *args, shared_bytes: int = 0) -> None:
    """Launch ``kernel`` on CuPy's current stream.

    A launch the device refuses for lack of resources (registers or shared
    memory for this block size) becomes a ValueError naming the block size.
    A grid of no block (CUDA refuses it; Numba's simulator runs nothing, so
    the simulator pass would not notice) or beyond CUDA's x-dimension limit
    is a ValueError before anything is launched: callers skip empty work.
    """
    name = getattr(kernel, "__name__", "a kernel")
    if not 1 <= blocks <= MAX_GRID_BLOCKS:
        raise ValueError(f"{name} launched with {blocks} blocks; a grid holds 1 to "
                         f"{MAX_GRID_BLOCKS} blocks (callers skip empty work)")
    if not 1 <= threads <= MAX_THREADS_PER_BLOCK:
        raise ValueError(f"{name} launched with {threads} threads per block; a block holds 1 "
                         f"to {MAX_THREADS_PER_BLOCK}")
    args = tuple(_as_numba(a, xp) for a in args)
    try:
        kernel[blocks, threads, current_stream(xp), shared_bytes](*args)
    except Exception as err:
        text = str(err)
        if "OUT_OF_RESOURCES" in text or "too many resources" in text.lower():
            raise ValueError(f"the GPU cannot run {getattr(kernel, '__name__', 'a kernel')} "
                             f"with {threads} threads per block ({text}); use fewer "
                             f"threads_per_block") from None
        raise
