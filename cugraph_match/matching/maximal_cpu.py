"""Handshake maximal matching on the CPU (numba, parallel over vertices), and
its driver (:func:`handshake_mates_cpu`, the host loop over rounds).

The same rounds as the GPU kernels (``maximal_gpu.py``), one
``prange`` step per kernel: propose, respond, match.  Each step writes only
its own vertex's entry and reads entries no other step of the same kind
writes, so the steps need no atomics, exactly as on the GPU, and the result
equals the GPU's for the same seed.  States: ``mate[v]`` is -1 while v is
live (unmatched, with live neighbours), -2 once dead, else v's mate;
``request[v]`` is a vertex, NONE or DEAD.
"""

import numpy as np
from numba import njit, prange

from ..structure.hashing import mix64
from .maximal_hash import BLUE_BELOW, round_keys

NONE, DEAD = -1, -2

_mix = njit(cache=True, nogil=True, inline="always")(mix64)


@njit(cache=True, nogil=True, inline="always")
def is_blue(v, colour_key):
    return (_mix(np.uint64(v) ^ colour_key) >> np.uint64(32)) < np.uint64(BLUE_BELOW)


@njit(cache=True, nogil=True, inline="always")
def priority(v, w, degree_w, choice_key, low_degree):
    """Random priority of w as v's choice this round; with ``low_degree``, a
    neighbour of smaller degree always ranks higher (random among equals)."""
    lo, hi = min(v, w), max(v, w)
    h = _mix((np.uint64(lo) << np.uint64(32) | np.uint64(hi)) ^ choice_key)
    if low_degree:
        return (np.uint64(0xFFFFFFFF) - np.uint64(min(degree_w, 0xFFFFFFFF))) << np.uint64(32) \
            | (h >> np.uint64(32))
    return h


@njit(cache=True, nogil=True, inline="always")
def heavier(e, w, best_e, best, weights):
    """Edge e (to w) beats edge best_e (to best): heavier, or as heavy and to a
    larger id (the project's tie order seen from one vertex).  No weights:
    every edge weighs the same."""
    if weights.shape[0] == 0:
        return w > best
    x = weights[e]
    y = weights[best_e]
    return x > y or (x == y and w > best)


@njit(cache=True, nogil=True, inline="always")
def _choose(v, offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
            low_degree, blue):
    """Propose (``blue``) or respond (not ``blue``) for live vertex v: v's pick
    among its red live neighbours, or among the blue ones that proposed to it."""
    live = False
    best = NONE
    best_e = -1
    best_priority = np.uint64(0)
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
                best, best_e = w, e
            continue
        p = priority(v, w, offsets[w + 1] - offsets[w], choice_key, low_degree)
        if best == NONE or p > best_priority:
            best, best_priority = w, p
    request[v] = best if live else DEAD


@njit(cache=True, nogil=True, parallel=True)
def propose(offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
            low_degree):
    """Blue live vertices propose to a red live neighbour (heaviest, or random)."""
    for v in prange(offsets.shape[0] - 1):
        if mate[v] == -1 and is_blue(v, colour_key):
            _choose(v, offsets, indices, weights, mate, request, colour_key, choice_key,
                    weighted, low_degree, True)


@njit(cache=True, nogil=True, parallel=True)
def respond(offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
            low_degree):
    """Red live vertices accept one proposal (heaviest, or random)."""
    for v in prange(offsets.shape[0] - 1):
        if mate[v] == -1 and not is_blue(v, colour_key):
            _choose(v, offsets, indices, weights, mate, request, colour_key, choice_key,
                    weighted, low_degree, False)


@njit(cache=True, nogil=True, parallel=True)
def match(mate, request):
    """Mutual requests become matches, DEAD requests dead vertices; returns the live count."""
    n = mate.shape[0]
    live = 0
    for v in prange(n):
        if mate[v] != -1:
            continue
        r = request[v]
        if r == DEAD:
            mate[v] = -2
        elif r >= 0 and request[r] == v:
            mate[v] = r
        else:
            live += 1
    return live


def handshake_mates_cpu(offsets, indices, weights, weighted: bool, seed: int, max_rounds: int,
                        low_degree: bool = True):
    """Run the rounds (propose, respond, match) until no vertex is live;
    returns ``mate`` (-1 unmatched) and the round count."""
    n = offsets.shape[0] - 1
    mate = np.full(n, -1, dtype=np.int64)
    request = np.full(n, NONE, dtype=np.int64)
    rounds = 0
    live = n
    while live:
        if rounds == max_rounds:
            raise RuntimeError(f"handshake matching did not finish in {max_rounds} rounds")
        colour_key, choice_key = round_keys(seed, rounds)
        propose(offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
                low_degree)
        respond(offsets, indices, weights, mate, request, colour_key, choice_key, weighted,
                low_degree)
        live = match(mate, request)
        rounds += 1
    mate[mate < 0] = -1
    return mate, rounds
