"""The superstep of distributed b-Suitor on a worker's GPU (numba.cuda), the
device twin of :func:`cugraph_match.dask.kernels.superstep`.

The part's arrays are the CPU kernel's (local ids, owned rows best edge
first, the cut edges shared with each worker sorted by ``(max, min)`` id);
the offer slots are the single-machine GPU b-Suitor's
(:mod:`cugraph_match.structure.offer_slots_gpu`: unordered words, 0 empty,
a locked min-heap above ``heap_above``), so one proposal never waits for
another.

One launch of :func:`superstep_kernel` gives a thread to every incoming
message and to every proposal owed.  A proposal to a ghost becomes a
``PROPOSE`` word for its owner and ends that thread's chain (the proposer
waits for the answer, as on the CPU); a proposal placed on an owned vertex
that displaces an owned proposer goes on at once with the displaced one (the
single-machine kernel's eager rule); a displaced ghost gets a ``RELEASE``
word.  The outcome is the greedy b-matching whatever order the threads run
in (its uniqueness is why the CPU kernel may run them in any order too), so
the GPU and CPU workers' results are the same row for row.  Then
:func:`closing_kernel` sends the ``CLOSED`` notices of the owned vertices
with a cut edge whose weakest offer rose, after the superstep kernel has
finished (a kernel boundary orders every write of it before every read).
Owned vertices are told from ghosts by the owned id range, as on the CPU.

Outgoing words go to one array, ``worker << 32 | place << 2 | kind``,
through one atomic counter.  It is allocated for the whole run: every cut
edge carries at most three words from each side over a run (one proposal,
one release of the other side's proposal, one closed notice), so
``3 × cut edges`` never overflows; the kernel still checks and the host
raises if it did.  Messages cross the PCIe bus (and Dask) as host arrays;
nothing else leaves the device until the run's end.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, int64, uint32, uint64

from ..structure.device import launch
from ..structure.output import row_ids
from ..structure.offer_slots_gpu import REJECTED, offer_heap, offer_scan

PROPOSE = 0
RELEASE = 1
CLOSED = 2
HEAP_ABOVE = 32  # capacities above this use the locked heap (as on one machine)
#: Threads per block of both kernels: fixed, not the caller's (so no register cap).
THREADS = 128
_LOW = 0xFFFFFFFF
_WAITING = -2  # the chain ends: the proposer waits for an answer, or has no edge left


@cuda.jit(device=True)
def _emit(out, counts, k, place, kind):
    """Append ``place << 2 | kind`` for worker k (``counts[0]``: the words so
    far); past the end only counts (the host raises on a count above the array)."""
    i = cuda.atomic.add(counts, 0, 1)
    if i < out.shape[0]:
        out[i] = (uint64(k) << uint64(32)) | uint64((int64(place) << int64(2)) | int64(kind))


@cuda.jit(device=True)
def _pair_word(a, b):
    """``max << 32 | min`` (kernels._pair_word)."""
    return (uint64(max(int64(a), int64(b))) << uint64(32)) | uint64(min(int64(a), int64(b)))


@cuda.jit(device=True)
def _cut_place(cut_start, cut_own, cut_ghost, k, a, b):
    """Place of cut edge (a, b) in the list shared with worker k (lower bound
    over the pairs made from the list's two ends, as kernels._cut_place)."""
    pair = _pair_word(a, b)
    start = int64(cut_start[k])
    stop = int64(cut_start[k + 1])
    while start < stop:
        mid = (start + stop) >> 1
        if _pair_word(cut_own[mid], cut_ghost[mid]) < pair:
            start = mid + 1
        else:
            stop = mid
    return start - int64(cut_start[k])


@cuda.jit(device=True)
def _offer(p, word, slot_start, slots, floor, lock, heap_above, changed):
    """Offer ``word`` to owned vertex p: the displaced proposer, -1 or REJECTED."""
    base = slot_start[p]
    cap = slot_start[p + 1] - base
    if cap == 0:
        return int64(REJECTED)
    if cap > heap_above:
        result = offer_heap(p, word, base, cap, slots, floor, lock)
    else:
        result = offer_scan(word, base, cap, slots)
    if result != REJECTED:
        changed[p] = 1
    return result


@cuda.jit(device=True)
def _displaced(r, p, owner_of, own_lo, own_hi, cut_start, cut_own, cut_ghost, out, counts):
    """What follows displacing r at owned p: r's next proposal here when r is
    owned (returned), else a release to r's owner (and -2)."""
    if r < 0:
        return int64(_WAITING)
    if own_lo <= r < own_hi:
        return int64(r)
    k = owner_of[r]
    _emit(out, counts, k, _cut_place(cut_start, cut_own, cut_ghost, k, r, p), RELEASE)
    return int64(_WAITING)


@cuda.jit(device=True)
def _propose(u, offsets, indices, keys, slot_start, slots, next_edge, floor, lock, heap_above,
             owner_of, own_lo, own_hi, cut_start, cut_own, cut_ghost, entry_cut, out_pending,
             ghost_floor, changed, out, counts):
    """One proposal of owned u down its row: the owned proposer displaced
    (to propose next), or -2 (sent to a ghost's owner, or the row is done)."""
    end = int64(offsets[u + 1])
    while True:
        j = cuda.atomic.add(next_edge, u, 1)
        if j >= end:
            return int64(_WAITING)
        p = indices[j]
        if p < own_lo or p >= own_hi:  # a ghost (owned ids are a range): its owner decides
            if keys[j] < ghost_floor[p]:  # closed: p's owner would refuse it
                continue
            c = entry_cut[j]
            k = owner_of[p]
            out_pending[c] = 1
            _emit(out, counts, k, int64(c) - int64(cut_start[k]), PROPOSE)
            return int64(_WAITING)
        cuda.atomic.add(counts, 1, 1)  # a local proposal
        word = (uint64(keys[j]) << uint64(32)) | uint64(u)
        r = _offer(p, word, slot_start, slots, floor, lock, heap_above, changed)
        if r != REJECTED:
            return _displaced(r, p, owner_of, own_lo, own_hi, cut_start, cut_own, cut_ghost, out,
                              counts)


@cuda.jit
def superstep_kernel(offsets, indices, keys, slot_start, slots, next_edge, floor, lock,
                     heap_above, owner_of, own_lo, own_hi, cut_start, cut_own,
                     cut_ghost, cut_key, entry_cut, out_pending, ghost_floor, changed,
                     in_worker, in_word, owed, out, counts):
    """One thread per incoming message, then one per proposal owed; each
    follows the chain of owned proposers it displaces.  ``counts``: the
    words sent, the local proposals made."""
    t = cuda.grid(1)
    n_in = in_word.shape[0]
    if t >= n_in + owed.shape[0]:
        return
    current = int64(_WAITING)
    if t < n_in:
        k = int64(in_worker[t])
        place = int64(in_word[t] >> uint32(2))
        kind = int64(in_word[t] & uint32(3))
        c = int64(cut_start[k]) + place
        if kind == PROPOSE:
            p = cut_own[c]
            word = (uint64(cut_key[c]) << uint64(32)) | uint64(cut_ghost[c])
            r = _offer(p, word, slot_start, slots, floor, lock, heap_above, changed)
            if r == REJECTED:
                _emit(out, counts, k, place, RELEASE)
            else:
                current = _displaced(r, p, owner_of, own_lo, own_hi, cut_start, cut_own,
                                     cut_ghost, out, counts)
        elif kind == RELEASE:
            out_pending[c] = 0
            current = int64(cut_own[c])
        else:  # every edge at the ghost ranked up to c is closed (kernels.superstep)
            cuda.atomic.max(ghost_floor, cut_ghost[c], uint32(cut_key[c]) + uint32(1))
    else:
        current = int64(owed[t - n_in])
    while current >= 0:  # follow the chain of displacements
        current = _propose(current, offsets, indices, keys, slot_start, slots, next_edge, floor,
                           lock, heap_above, owner_of, own_lo, own_hi, cut_start, cut_own,
                           cut_ghost, entry_cut, out_pending, ghost_floor, changed, out, counts)


@cuda.jit
def closing_kernel(offsets, indices, keys, slot_start, slots, heap_above, owner_of,
                   cut_start, entry_cut, open_until, changed, quiet, own_lo, own_hi, out,
                   counts):
    """``CLOSED`` for the cut edges of owned vertices whose weakest offer rose
    (or whose capacity is 0) that are now below it: the owner would refuse
    any proposal along them.  A row is best first, so they are a suffix,
    found walking back from ``open_until``; then walked forward, best first,
    one notice per other worker names the best edge to it that closed (the
    receiver closes everything at v ranked up to it, as on the CPU), a
    64-bit mask in a register remembering the workers told (workers 64 and
    up are told of every edge: the same meaning, more words).  A ``quiet``
    vertex (no cut edge) has nothing to tell."""
    v = own_lo + cuda.grid(1)
    if v >= own_hi or changed[v] == 0 or quiet[v]:
        return
    changed[v] = 0
    base = slot_start[v]
    cap = slot_start[v + 1] - base
    if cap == 0:
        weakest = uint32(_LOW)  # above every key
    else:
        least = slots[base]  # a heap's root, else the least of the slots
        if cap <= heap_above:
            for s in range(base + 1, base + cap):
                if slots[s] < least:
                    least = slots[s]
        if least == 0:  # a free slot: any offer is still taken
            return
        weakest = uint32(least >> uint64(32))
    stop = int64(open_until[v])
    j = stop
    row = int64(offsets[v])
    while j > row and keys[j - 1] < weakest:
        j -= 1
    open_until[v] = j
    told = uint64(0)
    for i in range(j, stop):
        x = indices[i]
        if x < own_lo or x >= own_hi:
            k = int64(owner_of[x])
            if k < 64:
                bit = uint64(1) << uint64(k)
                if told & bit:
                    continue
                told |= bit
            _emit(out, counts, k, int64(entry_cut[i]) - int64(cut_start[k]), CLOSED)


def start_run(part, slot_start, closing, quiet, xp) -> dict:
    """The run's device state: the part's arrays on the device (copied there
    from a host part; a part built on the device is used as it is), empty
    offer slots (``slot_start``: their starts over the local ids, each
    vertex's capacity apart), the proposals owed, and the ``closing`` (owned
    vertices of capacity 0, told in the first superstep) and ``quiet`` (no
    cut edge) flags, host or device arrays."""
    pref = part.pref
    n = int(part.labels.shape[0])
    cuts = int(part.cut_own.shape[0])
    changed = xp.zeros(n, dtype=np.uint8)
    if int(closing.shape[0]):
        changed[xp.asarray(closing)] = 1
    starts = xp.asarray(slot_start)
    device = {name: xp.asarray(value) for name, value in (
        ("offsets", pref.offsets), ("indices", pref.indices), ("keys", pref.keys),
        ("owner_of", part.owner_of), ("cut_start", part.cut_start),
        ("cut_own", part.cut_own),
        ("cut_ghost", part.cut_ghost), ("cut_key", part.cut_key),
        ("entry_cut", part.entry_cut), ("slot_start", starts), ("changed", changed),
        ("quiet", quiet), ("next_edge", pref.offsets[:-1].astype(np.int64)),
        ("open_until", pref.offsets[1:].astype(np.int64)),
        # each vertex once per slot, in vertex order (``np.repeat(arange, cap)``)
        ("owed", row_ids(starts, xp)))}
    device.update(
        slots=xp.zeros(int(slot_start[-1]), dtype=np.uint64),
        floor=xp.zeros(n, dtype=np.uint64), lock=xp.zeros(n, dtype=np.int32),
        out_pending=xp.zeros(cuts, dtype=np.uint8), ghost_floor=xp.zeros(n, dtype=np.uint32),
        out=xp.zeros(3 * cuts + 1, dtype=np.uint64), counts=xp.zeros(2, dtype=np.int64))
    return {"device": device, "xp": xp, "threads": THREADS, "slot_start": slot_start,
            "own_lo": int(part.own_lo), "own_hi": int(part.own_hi), "heap_above": HEAP_ABOVE}


def superstep(run: dict, in_worker: np.ndarray, in_word: np.ndarray) -> tuple:
    """One superstep on the device: the incoming messages (host arrays, the
    senders in their narrow dtype) in, the outgoing ``(worker, word)`` host
    arrays and the local proposals made out.  One read of the two counters
    is the superstep's only wait on the device before its words come back."""
    d, xp, threads = run["device"], run["xp"], run["threads"]
    owed = d.pop("owed", None)
    if owed is None:
        owed = xp.zeros(0, dtype=np.int64)
    in_worker_d, in_word_d = xp.asarray(in_worker), xp.asarray(in_word)
    d["counts"].fill(0)
    lo, hi = run["own_lo"], run["own_hi"]
    work = int(in_word.shape[0]) + int(owed.shape[0])
    if work:
        launch(superstep_kernel, -(-work // threads), threads, xp, d["offsets"], d["indices"],
               d["keys"], d["slot_start"], d["slots"], d["next_edge"], d["floor"], d["lock"],
               run["heap_above"], d["owner_of"], lo, hi, d["cut_start"], d["cut_own"],
               d["cut_ghost"], d["cut_key"], d["entry_cut"], d["out_pending"],
               d["ghost_floor"], d["changed"], in_worker_d, in_word_d, owed, d["out"], d["counts"])
    if hi > lo:
        launch(closing_kernel, -(-(hi - lo) // threads), threads, xp, d["offsets"],
               d["indices"], d["keys"], d["slot_start"], d["slots"], run["heap_above"],
               d["owner_of"], d["cut_start"], d["entry_cut"], d["open_until"], d["changed"],
               d["quiet"], lo, hi, d["out"], d["counts"])
    count, proposals = (int(x) for x in _host(d["counts"]))
    if count > d["out"].shape[0]:  # cannot happen (see the module's note): never lose a word
        raise RuntimeError(f"a GPU superstep sent {count} messages, more than the "
                           f"{d['out'].shape[0]} its buffer holds")
    words = _host(d["out"][:count])
    return ((words >> np.uint64(32)).astype(np.int64),
            (words & np.uint64(_LOW)).astype(np.uint32), proposals)


def final_state(run: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The slots (copied back), their starts (the host's own) and the pending
    proposals (as bools)."""
    d = run["device"]
    return _host(d["slots"]), run["slot_start"], _host(d["out_pending"]).astype(np.bool_)


def _host(array) -> np.ndarray:
    return array.get() if hasattr(array, "get") else np.asarray(array)
