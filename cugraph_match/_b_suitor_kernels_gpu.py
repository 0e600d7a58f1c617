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

_LOW = 0xFFFFFFFF


@cuda.jit(device=True)
def _propose_once(u, offsets, indices, keys, slot_start, slots, next_edge):
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
        while True:
            weakest = cuda.ldcg(slots, base)
            at = base
            for s in range(base + 1, base + cap):
                x = cuda.ldcg(slots, s)
                if x < weakest:
                    weakest = x
                    at = s
            if word <= weakest:
                break  # p holds cap(p) better offers, now and forever: next candidate
            if cuda.atomic.cas(slots, at, weakest, word) == weakest:
                if weakest == 0:
                    return int64(-1)
                return int64(weakest & uint64(_LOW))
            # another thread changed p's slots first: scan again


@cuda.jit
def b_suitor_kernel(offsets, indices, keys, slot_start, slots, next_edge, n):
    u = cuda.grid(1)
    if u >= n:
        return
    for _ in range(slot_start[u + 1] - slot_start[u]):
        current = int64(u)
        while current >= 0:  # follow the chain of displacements
            current = _propose_once(current, offsets, indices, keys, slot_start, slots,
                                    next_edge)


def b_suitor_slots_gpu(offsets, indices, keys, slot_start, xp, threads_per_block: int = 128):
    """Run b-Suitor on the device; return the final offer slots."""
    if not 0 < threads_per_block <= 1024:
        raise ValueError(f"threads_per_block must be in [1, 1024], got {threads_per_block}")
    n = int(offsets.shape[0]) - 1
    slots = xp.zeros(int(slot_start[n]), dtype=np.uint64)
    next_edge = xp.zeros(n, dtype=np.int64)
    if n:
        b_suitor_kernel[-(-n // threads_per_block), threads_per_block](
            offsets, indices, keys, slot_start, slots, next_edge, n)
    return slots


def matched_pairs_sorted(slots, slot_start, xp):
    """(lo, hi, key) of the mutual offers, sorted, by array operations (the GPU
    path of ``_b_suitor_kernels_cpu.matched_pairs_cpu``)."""
    n = max(int(slot_start.shape[0]) - 1, 1)
    owner = xp.searchsorted(slot_start, xp.arange(slots.shape[0], dtype=slot_start.dtype),
                            side="right") - 1
    full = slots != 0
    owner = owner[full].astype(np.int64)
    word = slots[full]
    proposer = (word & np.uint64(_LOW)).astype(np.int64)
    pair = xp.minimum(owner, proposer) * n + xp.maximum(owner, proposer)
    order = xp.argsort(pair)
    pair, word = pair[order], word[order]
    twice = pair[1:] == pair[:-1]  # held in both directions
    pair = pair[1:][twice]
    key = (word[1:][twice] >> np.uint64(32)).astype(np.uint32)
    return pair // n, pair % n, key
