"""SplitMix64's finaliser, the stateless hash behind the project's
counter-based random choices (the handshake matching's colours, the
distributed Louvain's coins): a hash of (id, key) needs no generator state,
so every thread or worker draws its own and a seed reproduces them all.

``mix64`` is plain Python on uint64 operands: ``numba.njit`` and
``numba.cuda.jit(device=True)`` each compile it, so CPU and GPU kernels hash
identically; ``mix64_host`` is the same function on Python ints.
"""

from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # SplitMix64's increment


def mix64(z):
    """SplitMix64's finaliser on a uint64 (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def mix64_host(z: int) -> int:
    """``mix64`` on Python ints (the host side: seeds and keys)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)
