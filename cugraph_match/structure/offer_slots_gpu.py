"""Offer slots on the device, shared by the b-Suitor kernels (one machine's
and a Dask worker's): vertex p holds ``slots[base:base + cap]``, packed
``key << 32 | proposer`` words (0 = an empty slot) that only ever grow.

:func:`offer_scan` replaces p's weakest word with one 64-bit compare-and-swap
(O(cap) reads a try, for small capacities); :func:`offer_heap` keeps the
slots as a binary min-heap under a per-vertex spin lock and publishes the
root in ``floor[p]``.  Both return the displaced proposer, -1 for a free slot
or :data:`REJECTED`.  Why each is correct is written in
``matching/b_suitor_gpu.py``, whose kernel they were first written for.
"""

from __future__ import annotations

from numba import cuda, int32, int64, uint32, uint64

_LOW = 0xFFFFFFFF
REJECTED = -3


@cuda.jit(device=True)
def offer_scan(word, base, cap, slots):
    """Lock-free: replace p's weakest slot if ``word`` beats it.  Returns the
    displaced word (0 for a free slot) or REJECTED."""
    while True:
        weakest = cuda.ldcg(slots, base)
        at = base
        for s in range(base + 1, base + cap):
            x = cuda.ldcg(slots, s)
            if x < weakest:
                weakest = x
                at = s
        if word <= weakest:
            return int64(REJECTED)  # p holds cap(p) better offers, now and forever
        if cuda.atomic.cas(slots, at, weakest, word) == weakest:
            return int64(weakest & uint64(_LOW)) if weakest != 0 else int64(-1)
        # another thread changed p's slots first: scan again


@cuda.jit(device=True)
def offer_heap(p, word, base, cap, slots, floor, lock):
    """``offer_scan`` for a large capacity: a min-heap under p's spin lock."""
    if word <= cuda.ldcg(floor, p):
        return int64(REJECTED)
    # Spin with exponential back-off: waiting threads stop hammering the
    # lock word, and the holder's warp gets issue slots.  (Lanes of one warp
    # may contend for one lock: safe only with the independent thread
    # scheduling of compute capability 7.0+, which the backend requires.)
    pause = uint32(32)
    while cuda.atomic.cas(lock, p, int32(0), int32(1)) != 0:
        cuda.nanosleep(pause)
        if pause < uint32(1024):
            pause *= uint32(2)
    cuda.threadfence()
    root = cuda.ldcg(slots, base)
    if word <= root:
        result = int64(REJECTED)
    else:
        result = int64(root & uint64(_LOW)) if root != 0 else int64(-1)
        i = 0
        while True:  # sift the new word down from the root
            child = 2 * i + 1
            if child >= cap:
                break
            smaller = cuda.ldcg(slots, base + child)
            if child + 1 < cap:
                right = cuda.ldcg(slots, base + child + 1)
                if right < smaller:
                    smaller = right
                    child += 1
            if smaller >= word:
                break
            slots[base + i] = smaller
            i = child
        slots[base + i] = word
        floor[p] = cuda.ldcg(slots, base)
    cuda.threadfence()  # the heap is written before the lock is seen free
    cuda.atomic.exch(lock, p, int32(0))
    return result
