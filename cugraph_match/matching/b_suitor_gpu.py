"""GPU b-Suitor in numba.cuda: one thread per vertex, lock-free offer slots.

Vertex p owns ``slots[slot_start[p]:slot_start[p + 1]]``: ``cap(p)`` packed
``key << 32 | proposer`` words (0 = empty), clipped to its degree.  A
proposal scans p's slots for the weakest word and replaces it with one
64-bit compare-and-swap.  Words in a slot only ever grow, so if the CAS
finds the weakest word still in place, every other slot still holds at least
as much and the replacement is exactly "evict the weakest"; a failed CAS
means another thread got there first, and the proposer scans again.  Reads
that are stale can only under-estimate a slot, so a proposal rejected on
them would be rejected on the true values too.

That scan costs O(b(p)) reads per attempt.  A vertex whose capacity
exceeds ``heap_above`` keeps its slots as a binary min-heap instead (zeros
are empty slots, so an all-zero array is a valid heap): the weakest offer is
the root, a replacement sifts down in O(log b), and the heap is changed
under a per-vertex spin lock.  A thread holds at most one lock and takes no
other while holding it, so locking cannot deadlock.  The lock holder also
publishes the root in ``floor[p]``, a lower bound on p's weakest offer that
only grows, so most losing offers are turned away with one read and no lock.

The proposer's position in its row (``next_edge``, relative to the row
start) is shared by every thread that is placing an offer for it: a thread
takes the next candidate with an atomic add, so no candidate is tried twice
and none is skipped.  A displaced proposer's replacement offer is made at
once by the thread that displaced it (McVitie-Wilson, "eager").  There is no
dynamic load balancing, as in Naim & Manne's b-matching: threads never wait
on each other.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64, uint64

from ..structure.checks import check_launch
from ..structure.device import WIDE_BLOCK, launch
from ..structure.offer_slots_gpu import REJECTED, offer_heap, offer_scan

_LOW = 0xFFFFFFFF
HEAP_ABOVE = 32  # capacities above this use the locked heap


@cuda.jit(device=True)
def _propose_once(u, offsets, indices, keys, slot_start, slots, next_edge, floor, lock,
                  heap_above):
    """One offer of ``u``; returns the displaced proposer, -1 (free slot) or -2 (list exhausted)."""
    row = offsets[u]
    degree = offsets[u + 1] - row
    while True:
        j = cuda.atomic.add(next_edge, u, 1)
        if j >= degree:
            return int64(-2)
        e = row + j
        p = indices[e]
        base = slot_start[p]
        cap = slot_start[p + 1] - base
        if cap == 0:
            continue
        word = (uint64(keys[e]) << uint64(32)) | uint64(u)
        if cap > heap_above:
            result = offer_heap(p, word, base, cap, slots, floor, lock)
        else:
            result = offer_scan(word, base, cap, slots)
        if result != REJECTED:
            return result


@cuda.jit(**WIDE_BLOCK)
def b_suitor_kernel(offsets, indices, keys, slot_start, slots, next_edge, floor, lock, heap_above,
                    n):
    u = cuda.grid(1)
    if u >= n:
        return
    for _ in range(slot_start[u + 1] - slot_start[u]):
        current = int64(u)
        while current >= 0:  # follow the chain of displacements
            current = _propose_once(current, offsets, indices, keys, slot_start, slots,
                                    next_edge, floor, lock, heap_above)


def b_suitor_slots_gpu(offsets, indices, keys, slot_start, xp, threads_per_block: int = 128,
                       heap_above: int = HEAP_ABOVE):
    """Run b-Suitor on the device; return the final offer slots (heap order
    for capacities above ``heap_above``, arbitrary order otherwise)."""
    threads_per_block = check_launch(threads_per_block)
    n = int(offsets.shape[0]) - 1
    slots = xp.zeros(int(slot_start[n]), dtype=np.uint64)
    next_edge = xp.zeros(n, dtype=np.int64)
    floor = xp.zeros(n, dtype=np.uint64)
    lock = xp.zeros(n, dtype=np.int32)
    if n:
        launch(b_suitor_kernel, -(-n // threads_per_block), threads_per_block, xp,
               offsets, indices, keys, slot_start, slots, next_edge, floor, lock, heap_above, n)
    return slots


def matched_pairs_sorted(slots, slot_start, xp):
    """(lo, hi, key) of the mutual offers, sorted, by array operations (the GPU
    path of ``b_suitor_cpu.matched_pairs_cpu``).

    A pair is packed as ``lo << bits | hi`` (bits = the width of the largest
    vertex id), an exact integer key for every graph the kernels take
    (fewer than 2**32 vertices).
    """
    n = max(int(slot_start.shape[0]) - 1, 1)
    bits = max(int(n - 1).bit_length(), 1)
    owner = xp.searchsorted(slot_start, xp.arange(slots.shape[0], dtype=slot_start.dtype),
                            side="right") - 1
    full = slots != 0
    owner = owner[full].astype(np.uint64)
    word = slots[full]
    proposer = word & np.uint64(_LOW)
    pair = (xp.minimum(owner, proposer) << np.uint64(bits)) | xp.maximum(owner, proposer)
    order = xp.argsort(pair)
    pair, word = pair[order], word[order]
    twice = pair[1:] == pair[:-1]  # held in both directions
    pair = pair[1:][twice]
    key = (word[1:][twice] >> np.uint64(32)).astype(np.uint32)
    lo = (pair >> np.uint64(bits)).astype(np.int64)
    hi = (pair & np.uint64((1 << bits) - 1)).astype(np.int64)
    return lo, hi, key
