"""Handshake maximal matching on the GPU (Fagginger Auer & Bisseling).

One thread per vertex and three kernels per round: blue live vertices
propose to a red live neighbour, red live vertices accept one proposer, and
mutual pairs match.  Within a kernel a thread writes only its own vertex's
entry, and no kernel reads what it writes, so no atomics are needed.  The
colours come from a stateless hash of (vertex, round key), shared with the
CPU backend (``maximal_hash.py``), so both backends give the same matching.
The host reads one flag per round; the match kernel sets it (a plain store,
every writer storing the same value) when some vertex is still live.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, uint64

from ..structure.checks import check_launch
from ..structure.device import WIDE_BLOCK, launch
from ..structure.hashing import mix64
from .maximal_hash import BLUE_BELOW, round_keys

NONE, DEAD = -1, -2

_mix = cuda.jit(device=True)(mix64)


@cuda.jit(device=True)
def is_blue(v, colour_key):
    return (_mix(uint64(v) ^ colour_key) >> uint64(32)) < uint64(BLUE_BELOW)


@cuda.jit(device=True)
def priority(v, w, degree_w, choice_key, low_degree):
    """As ``maximal_cpu.priority``."""
    lo, hi = min(v, w), max(v, w)
    h = _mix(((uint64(lo) << uint64(32)) | uint64(hi)) ^ choice_key)
    if low_degree:
        return ((uint64(0xFFFFFFFF) - uint64(min(degree_w, 0xFFFFFFFF))) << uint64(32)) \
            | (h >> uint64(32))
    return h


@cuda.jit(device=True)
def heavier(e, w, best_e, best, weights):
    """As ``maximal_cpu.heavier``."""
    if weights.shape[0] == 0:
        return w > best
    x = weights[e]
    y = weights[best_e]
    return x > y or (x == y and w > best)


@cuda.jit(device=True)
def _choose(v, offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
            low_degree, blue):
    """The body of propose (``blue``) and respond (not ``blue``) for vertex v."""
    live = False
    best = NONE
    best_e = -1
    best_priority = uint64(0)
    for e in range(offsets[v], offsets[v + 1]):
        w = indices[e]
        if mate[w] != -1:
            continue
        live = True
        if blue:
            if is_blue(w, colour_key):
                continue
        elif not is_blue(w, colour_key) or request[w] != v:
            continue
        if weighted:  # the heaviest, scanning the whole row as the paper does
            if best == NONE or heavier(e, w, best_e, best, weights):
                best = w
                best_e = e
            continue
        p = priority(v, w, offsets[w + 1] - offsets[w], choice_key, low_degree)
        if best == NONE or p > best_priority:
            best = w
            best_priority = p
    request[v] = best if live else DEAD


@cuda.jit(**WIDE_BLOCK)
def propose_kernel(offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
                   low_degree, flag):
    v = cuda.grid(1)
    if v == 0:
        flag[0] = 0  # set again by match_kernel, later in the stream, if work remains
    if v < mate.shape[0] and mate[v] == -1 and is_blue(v, colour_key):
        _choose(v, offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
                low_degree, True)


@cuda.jit(**WIDE_BLOCK)
def respond_kernel(offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
                   low_degree):
    v = cuda.grid(1)
    if v < mate.shape[0] and mate[v] == -1 and not is_blue(v, colour_key):
        _choose(v, offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
                low_degree, False)


@cuda.jit(**WIDE_BLOCK)
def match_kernel(mate, request, flag):
    v = cuda.grid(1)
    if v >= mate.shape[0] or mate[v] != -1:
        return
    r = request[v]
    if r == DEAD:
        mate[v] = -2
    elif r >= 0 and request[r] == v:
        mate[v] = r
    else:
        flag[0] = 1


def handshake_mates_gpu(offsets, indices, weights, xp, weighted: bool, seed: int,
                        max_rounds: int, low_degree: bool = True, threads_per_block: int = 256):
    """Run handshake rounds on the device; return ``mate`` (-1 unmatched) and the round count."""
    threads_per_block = check_launch(threads_per_block)
    n = int(offsets.shape[0]) - 1
    mate = xp.full(n, -1, dtype=np.int64)
    request = xp.full(n, NONE, dtype=np.int64)
    flag = xp.ones(1, dtype=np.int32)
    blocks = max(-(-n // threads_per_block), 1)
    rounds = 0
    while n and int(flag[0]):  # the round's only transfer
        if rounds == max_rounds:
            raise RuntimeError(f"handshake matching did not finish in {max_rounds} rounds")
        colour_key, choice_key = round_keys(seed, rounds)
        launch(propose_kernel, blocks, threads_per_block, xp, offsets, indices, weights, mate,
               request, colour_key, choice_key, weighted, low_degree, flag)
        launch(respond_kernel, blocks, threads_per_block, xp, offsets, indices, weights, mate,
               request, colour_key, choice_key, weighted, low_degree)
        launch(match_kernel, blocks, threads_per_block, xp, mate, request, flag)
        rounds += 1
    mate[mate < 0] = -1  # dead vertices are simply unmatched
    return mate, rounds
