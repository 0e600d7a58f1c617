"""Where an algorithm runs: the CPU (NumPy + ``numba.njit``) or the GPU (CuPy +
``numba.cuda``), or the GPU kernels in Numba's CUDA simulator."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from .device import cuda_simulator_enabled, gpu_available, gpu_unusable_reason


@dataclass(frozen=True)
class Backend:
    """Where an algorithm runs.

    ``name`` is ``"cpu"`` or ``"gpu"``; ``xp`` is the array module holding the
    CSR (``numpy`` or ``cupy``); ``simulated`` is true when the GPU kernels run
    in Numba's CUDA simulator on NumPy arrays.
    """

    name: str
    xp: Any
    simulated: bool = False


class _HostAsDevice:
    """NumPy behind the device's interface.

    In Numba's CUDA simulator the GPU kernels run on NumPy arrays; handing
    them this module (rather than ``numpy`` itself) also sends every
    array-module stage of the pipeline (renumbering, de-duplication, the
    CSR builds, which test ``xp is numpy`` to pick the numba host path) down
    its device path, so the simulator pass covers the GPU side end to end.
    Its ``argsort`` is stable, as CuPy's radix sort is.
    """

    __name__ = "numpy (device stand-in)"

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def argsort(keys, kind=None):
        return np.argsort(keys, kind="stable")

    def __repr__(self) -> str:
        return "<numpy standing in for cupy>"


HOST_AS_DEVICE = _HostAsDevice()


def resolve_backend(backend: str) -> Backend:
    """Turn ``"auto" | "cpu" | "gpu"`` into a :class:`Backend`.

    ``"auto"`` picks the GPU when a real one is usable (never the simulator).
    ``"gpu"`` under ``NUMBA_ENABLE_CUDASIM=1`` runs the CUDA kernels in the
    simulator on NumPy arrays, and the pipeline's device path with them
    (:data:`HOST_AS_DEVICE`).
    """
    if backend not in ("auto", "cpu", "gpu"):
        raise ValueError(f"backend must be 'auto', 'cpu' or 'gpu', got {backend!r}")
    if backend == "cpu" or (backend == "auto" and not gpu_available()):
        return Backend("cpu", np)
    if cuda_simulator_enabled():
        return Backend("gpu", HOST_AS_DEVICE, simulated=True)
    if not gpu_available():
        raise RuntimeError(
            "backend='gpu' needs a usable CUDA GPU (compute capability 7.0 or newer) with CuPy "
            "and numba-cuda (pip install 'cugraph_match[gpu]'); here: "
            f"{gpu_unusable_reason()}. Use backend='cpu' or 'auto'."
        )
    import cupy

    return Backend("gpu", cupy)


def to_backend(array: Any, xp: Any) -> Any:
    """Move an array to the backend's array module (no copy when already there)."""
    if xp is np:
        if type(array).__module__.startswith("cupy"):
            return array.get()
        return np.asarray(array)
    return xp.asarray(array)


def series_values(series, xp):
    """A Series' values as an array of the backend's module (cuDF stays on the device)."""
    if hasattr(series, "to_cupy") and xp is not np:
        return series.to_cupy()
    if hasattr(series, "to_numpy"):
        return to_backend(series.to_numpy(), xp)
    return to_backend(series.values, xp)


@contextmanager
def numba_threads(threads: int | None) -> Iterator[None]:
    """The CPU kernels run inside the block on ``threads`` Numba threads (at
    least 1, at most ``NUMBA_NUM_THREADS``); None leaves Numba's setting.
    Numba's setting belongs to the calling thread, which gets its own back
    when the block ends, raising or not (the NetworkX backend's ``threads``
    option, the Dask workers' ``OMP_NUM_THREADS``)."""
    if threads is None:
        yield
        return
    import numba

    before = numba.get_num_threads()
    wanted = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    if wanted == before:
        yield
        return
    numba.set_num_threads(wanted)
    try:
        yield
    finally:
        numba.set_num_threads(before)
