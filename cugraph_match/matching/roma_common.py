"""What ROMA's two problem shapes share (:mod:`.roma_sparse`: edge-list graphs;
:mod:`.roma_complete`: complete graphs given as a weight matrix or points):
the run's report, the start's name, launch and phase arguments, the phase
loop, and the checks of integer weights and of a start matching."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..structure.checks import numpy_seed, plain, require_vertex_frame
from ..structure.progress import log_step, progress_enabled
from .properties import half_of_doubled_sum

#: Integer weights above this in magnitude are refused: gains are computed in
#: float64, which holds every integer only up to 2**53, and a gain adds up to
#: three weights (two gains and a base), so each must stay within 2**51 for
#: every gain to be exact; a rounded gain made a zero-gain flip look positive
#: (weights 2**53 and 2**53 - 1 flipped forever, never converging).
EXACT_INTEGER_LIMIT = 2**51

#: Float weights this large or larger are scaled down by a power of two (edge
#: lists) or refused (weight matrices): a gain's sum of up to three weights
#: must not overflow float64 (near 1.7e308 a losing flip gained inf).
LARGEST_SAFE_WEIGHT = 2.0**1021


def two_sum(a, b):
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth's TwoSum:
    additions only, so no fused multiply-add can change it)."""
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def compile_gain_exceeds(jit):
    """``gain_exceeds(p1, p2, n1, n2, n3, t)`` compiled by ``jit``
    (``numba.njit``, ``numba.cuda.jit(device=True)``, or the identity for
    plain Python), with :func:`two_sum` compiled beside it."""
    add = jit(two_sum)

    def gain_exceeds(p1, p2, n1, n2, n3, t):
        """Whether ``p1 + p2 - n1 - n2 - n3 > t`` holds exactly, not after rounding.

        A change is made only when this holds for its gain, so the matching's
        weight never decreases: with float weights whose magnitudes differ by
        more than 2**53 a rounded gain could be positive for a lighter matching
        (2**54 + 3.5 - 2**54 - 3.25 rounds to 0 or 4), and the phases swapped
        back and forth.  The sum is kept as a nonoverlapping expansion grown one
        term at a time (Shewchuk's Grow-Expansion); its sign is its largest
        nonzero component's.  The partial sums stay finite while every term
        is below 2**1021 (the phases' scaled weights).
        """
        e1, e0 = add(p1, p2)
        x, e0 = add(-n1, e0)
        x, e1 = add(x, e1)
        e2 = x
        x, e0 = add(-n2, e0)
        x, e1 = add(x, e1)
        x, e2 = add(x, e2)
        e3 = x
        x, e0 = add(-n3, e0)
        x, e1 = add(x, e1)
        x, e2 = add(x, e2)
        x, e3 = add(x, e3)
        e4 = x
        x, e0 = add(-t, e0)
        x, e1 = add(x, e1)
        x, e2 = add(x, e2)
        x, e3 = add(x, e3)
        x, e4 = add(x, e4)
        if x != 0.0:
            return x > 0.0
        if e4 != 0.0:
            return e4 > 0.0
        if e3 != 0.0:
            return e3 > 0.0
        if e2 != 0.0:
            return e2 > 0.0
        if e1 != 0.0:
            return e1 > 0.0
        return e0 > 0.0

    return jit(gain_exceeds)


@dataclass
class RomaInfo:
    """What a :func:`roma_matching` run did (``return_info=True``).

    ``flips[i]`` is the number of augmentations applied in phase i (flips on
    complete graphs); ``attempts[i]`` the number tried under locks on the
    GPU (equal to ``flips`` on the CPU, where nothing races); ``phase_seconds``
    the wall time of each phase; ``start_seconds`` the time to build the
    start matching.  ``converged`` is True when the last phase applied
    nothing: then no augmentation gains more than the threshold.
    """

    start_weight: float
    weight: float = 0.0
    flips: list = field(default_factory=list)
    attempts: list = field(default_factory=list)
    phase_seconds: list = field(default_factory=list)
    start_seconds: float = 0.0
    converged: bool = False

    @property
    def phases(self) -> int:
        return len(self.flips)


def too_large(values):
    """Mask of integer ``values`` above :data:`EXACT_INTEGER_LIMIT` in magnitude
    (no abs: it wraps for int64's minimum)."""
    mask = values > EXACT_INTEGER_LIMIT
    if values.dtype.kind == "i":
        mask |= values < -EXACT_INTEGER_LIMIT
    return mask


def start_name(initial, allowed, default) -> str | None:
    """The start's name, or None when ``initial`` is a frame."""
    if initial is None:
        return default
    if isinstance(initial, str):
        if initial not in allowed:
            raise ValueError(f"initial must be a vertex|mate frame or one of {allowed}, "
                             f"got {initial!r}")
        return "greedy" if initial == "suitor" else initial
    require_vertex_frame(initial, ("vertex", "mate"), "initial")
    return None


def launch_threads(threads_per_block, default: int, power_of_two: bool) -> int:
    """The GPU launch's threads per block, checked on every backend."""
    if threads_per_block is None:
        return default
    if isinstance(threads_per_block, bool) or \
            not isinstance(threads_per_block, (int, np.integer)):
        raise TypeError(f"threads_per_block must be an int, got {threads_per_block!r}")
    t = int(threads_per_block)
    if not 32 <= t <= 1024 or t % 32 or (power_of_two and t & (t - 1)):
        kind = "a power of two" if power_of_two else "a multiple of 32"
        raise ValueError(f"threads_per_block must be {kind} in [32, 1024], got {t}")
    return t


def phase_orders(seed: int, size: int):
    """The CPU's vertex order of each phase: a fresh permutation per phase."""
    rng = np.random.default_rng(numpy_seed(seed))  # any int seed, negative ones too
    while True:
        yield rng.permutation(size).astype(np.int64)


def require_symmetric(mate: np.ndarray, label) -> None:
    """Every matched v's mate names v back (and nobody is their own mate)."""
    v = np.flatnonzero(mate >= 0)
    back = mate[mate[v]]
    bad = (back != v) | (mate[v] == v)
    if bad.any():
        x = int(v[np.flatnonzero(bad)[0]])
        y = int(mate[x])
        raise ValueError(f"initial is not a matching: {int(bad.sum())} vertex(es) are not their "
                         f"mate's mate; first is {plain(label(x))!r} (mate "
                         f"{plain(label(y))!r}, whose mate is "
                         f"{'none' if mate[y] < 0 else repr(plain(label(int(mate[y]))))})")


def run_phases(run, orders, phases: int, info: RomaInfo, vertices: int, edges: int,
               mw, scale: int = 0) -> None:
    """Phases until ``phases`` or one without a change; per-phase figures into
    ``info``, and a progress line per phase (the weight read only when shown)."""
    for phase in range(phases):
        order = next(orders) if orders is not None else None
        clock = time.perf_counter()
        flips, attempts = run(order)
        info.phase_seconds.append(time.perf_counter() - clock)
        info.flips.append(int(flips))
        info.attempts.append(int(attempts))
        if progress_enabled():
            log_step("roma phase", phase, vertices, edges, info.phase_seconds[-1],
                     flips=int(flips), weight=math.ldexp(half_of_doubled_sum(mw), scale))
        if flips == 0:
            info.converged = True
            break
