"""Integer sorting on the host: the one primitive the input pipeline is built on.

Every ordering the pipeline needs (distinct vertex ids, duplicate edges
side by side, edges heaviest first) is a sort of one unsigned 64-bit key
per element that also says where each element came from.  Two ways, picked
by the key's width:

* **packed**: when the key's bits plus the bits of an element's position fit
  in 64, ``key << position_bits | position`` is one ``uint64`` and a plain
  ``np.sort`` orders it (NumPy's vectorised sort, several times faster than
  an argsort).  The position in the low bits also makes it stable;
* **radix**: otherwise a least-significant-digit radix sort of (key,
  position) pairs in ``numba``, 11-bit digits, parallel over chunks of the
  input, digits on which every key agrees skipped.

Both return the *permutation* (positions in sorted order, stable), so the
caller gathers whatever else travels with the keys.  Keys must be
``uint64``; :func:`order_key` turns weights of any supported dtype into
keys that order like the values.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

RADIX_BITS = 11
BUCKETS = 1 << RADIX_BITS
_MASK = np.uint64(BUCKETS - 1)


def bit_width(value: int) -> int:
    """Bits needed to write ``value`` (>= 0) in binary; 0 for 0."""
    return int(value).bit_length()


def position_dtype(count: int) -> np.dtype:
    """The narrowest signed dtype that indexes ``count`` elements."""
    return np.dtype(np.int32) if count < 2**31 else np.dtype(np.int64)


# --------------------------------------------------------------------------
# packed: key and position in one word, sorted by NumPy
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True, parallel=True)
def _pack(keys, shift, out):
    for i in prange(keys.shape[0]):
        out[i] = (keys[i] << shift) | np.uint64(i)


@njit(cache=True, nogil=True, parallel=True)
def _unpack_positions(packed, mask, out):
    for i in prange(packed.shape[0]):
        out[i] = packed[i] & mask


# --------------------------------------------------------------------------
# radix: (key, position) pairs, least significant digit first
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True, parallel=True)
def _digit_counts(keys, digits, chunks):
    """Per digit, how many keys have each digit value (one read of the keys)."""
    n = keys.shape[0]
    step = (n + chunks - 1) // chunks
    counts = np.zeros((chunks, digits, BUCKETS), dtype=np.int64)
    for c in prange(chunks):
        for i in range(c * step, min(n, (c + 1) * step)):
            k = keys[i]
            for d in range(digits):
                counts[c, d, (k >> np.uint64(d * RADIX_BITS)) & _MASK] += 1
    return counts.sum(axis=0)


@njit(cache=True, nogil=True, parallel=True)
def _radix_pass(keys, positions, out_keys, out_positions, digit, chunks):
    """One stable counting-sort pass on ``digit``; each chunk keeps its own
    bucket cursors, laid out bucket-major so the chunks' outputs interleave
    in input order (stability)."""
    n = keys.shape[0]
    step = (n + chunks - 1) // chunks
    shift = np.uint64(digit * RADIX_BITS)
    cursor = np.zeros((chunks, BUCKETS), dtype=np.int64)
    for c in prange(chunks):
        for i in range(c * step, min(n, (c + 1) * step)):
            cursor[c, (keys[i] >> shift) & _MASK] += 1
    total = 0
    for b in range(BUCKETS):
        for c in range(chunks):
            count = cursor[c, b]
            cursor[c, b] = total
            total += count
    for c in prange(chunks):
        for i in range(c * step, min(n, (c + 1) * step)):
            k = keys[i]
            b = (k >> shift) & _MASK
            at = cursor[c, b]
            out_keys[at] = k
            out_positions[at] = positions[i]
            cursor[c, b] = at + 1


@njit(cache=True, nogil=True, parallel=True)
def _iota(out):
    for i in prange(out.shape[0]):
        out[i] = i


def radix_sort_pairs(keys: np.ndarray, values: np.ndarray, bits: int,
                     overwrite_keys: bool = False, overwrite_values: bool = False):
    """``keys`` (``uint64``, below 2**bits) sorted ascending, stably, and
    ``values`` (any dtype) carried along.  The caller's arrays are untouched,
    unless ``overwrite_keys`` / ``overwrite_values`` give them up as the
    passes' scratch (two buffers of each in use instead of three; the result
    may then be the caller's own array)."""
    n = keys.shape[0]
    digits = max(1, -(-bits // RADIX_BITS))
    chunks = max(1, min(numba.get_num_threads() * 2, n // 65536 + 1))
    counts = _digit_counts(keys, digits, chunks) if n else np.zeros((digits, BUCKETS), np.int64)
    work_keys, work_values = keys, values
    spare_keys = spare_values = None
    moved = False
    for d in range(digits):
        if n == 0 or counts[d].max() == n:
            continue  # every key has the same digit here: the pass would move nothing
        if spare_keys is None:
            spare_keys = np.empty_like(keys)
            spare_values = np.empty_like(values)
        _radix_pass(work_keys, work_values, spare_keys, spare_values, d, chunks)
        if not moved:  # the first pass read the caller's arrays: written only when given up
            moved = True
            work_keys, spare_keys = spare_keys, keys if overwrite_keys else np.empty_like(keys)
            work_values, spare_values = spare_values, \
                values if overwrite_values else np.empty_like(values)
        else:
            work_keys, spare_keys = spare_keys, work_keys
            work_values, spare_values = spare_values, work_values
    if not moved:
        return keys if overwrite_keys else keys.copy(), \
            values if overwrite_values else values.copy()
    return work_keys, work_values


def _radix_sort(keys: np.ndarray, bits: int, overwrite: bool = False):
    n = keys.shape[0]
    positions = np.empty(n, dtype=position_dtype(n))
    _iota(positions)
    return radix_sort_pairs(keys, positions, bits, overwrite_keys=overwrite,
                            overwrite_values=True)


# --------------------------------------------------------------------------
# short runs of packed words, one after another (sequential)
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def sort_high_words(words, scratch, count):
    """Sort ``words[:count]`` (``uint64``, ``value << 32 | tag`` with distinct
    tags) by their high halves; equal values keep their order.  Insertion
    sort up to 32 words, else an LSD radix sort of 8-bit digits (as many as
    the largest value needs, read off the words) through ``scratch`` (at
    least ``count`` long).  For the
    many short sorts of one pass over a part (a bucket, a row): no array is
    made per call, and the radix passes stay in cache where a comparison
    sort of a few hundred words did not (measured on R-MAT 20: a worker's
    bucket de-duplication 0.60 -> 0.27 s)."""
    if count <= 32:
        for i in range(1, count):
            x = words[i]
            j = i - 1
            while j >= 0 and words[j] > x:
                words[j + 1] = words[j]
                j -= 1
            words[j + 1] = x
        return
    top = np.uint64(0)
    for i in range(count):
        top = max(top, words[i] >> np.uint64(32))
    bits = 0
    while top > 0:
        bits += 1
        top >>= np.uint64(1)
    counts = np.zeros(257, dtype=np.int64)
    flipped = False
    for low_bit in range(0, bits, 8):
        src = scratch if flipped else words
        dst = words if flipped else scratch
        counts[:] = 0
        shift = np.uint64(32 + low_bit)
        for i in range(count):
            counts[((src[i] >> shift) & np.uint64(255)) + 1] += 1
        for b in range(256):
            counts[b + 1] += counts[b]
        for i in range(count):
            v = src[i]
            b = (v >> shift) & np.uint64(255)
            dst[counts[b]] = v
            counts[b] += 1
        flipped = not flipped
    if flipped:
        for i in range(count):
            words[i] = scratch[i]


# --------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------


def packs_positions(bits: int, n: int) -> bool:
    """Whether :func:`sort_with_positions` sorts ``n`` keys of ``bits`` bits
    by packing each with its position into one word (the NumPy sort; else
    the radix sort), so that a caller carrying values picks its way alike."""
    return bits + bit_width(max(n - 1, 0)) <= 64


def sort_with_positions(keys: np.ndarray, bits: int | None = None, overwrite: bool = False):
    """``keys`` (``uint64``) sorted ascending and, for each, where it came from.

    Stable: equal keys keep their input order.  ``bits`` bounds the keys
    (every key < 2**bits); it decides between the packed NumPy sort and the
    radix sort, and how many radix digits there are.  Computed from the
    maximum when omitted.  Positions are int32 below 2**31 keys, else int64.
    The caller's array is not modified, unless ``overwrite`` gives it up as
    scratch (the radix sort's passes then hold two key arrays, not three).
    """
    n = keys.shape[0]
    if keys.dtype != np.uint64:
        raise TypeError(f"sort keys must be uint64, got {keys.dtype}")
    if bits is None:
        bits = bit_width(int(keys.max())) if n else 0
    position_bits = bit_width(max(n - 1, 0))
    if n <= 1 or bits == 0:
        positions = np.empty(n, dtype=position_dtype(n))
        _iota(positions)
        return keys.copy(), positions
    if packs_positions(bits, n):
        packed = np.empty(n, dtype=np.uint64)
        _pack(keys, np.uint64(position_bits), packed)
        packed.sort()
        positions = np.empty(n, dtype=position_dtype(n))
        _unpack_positions(packed, np.uint64((1 << position_bits) - 1), positions)
        np.right_shift(packed, np.uint64(position_bits), out=packed)
        return packed, positions
    return _radix_sort(keys, bits, overwrite)


def sort_carrying(keys: np.ndarray, values: np.ndarray, bits: int):
    """``keys`` sorted (stable) and ``values`` carried along: the packed sort
    and one parallel gather of the values when key and position fit one word,
    else the radix sort moving the values with the keys."""
    if packs_positions(bits, keys.shape[0]):
        from .pipeline_cpu import gather

        sorted_keys, positions = sort_with_positions(keys, bits)
        out = np.empty_like(values)
        gather(values, positions, out)
        return sorted_keys, out
    return radix_sort_pairs(keys, values, bits)


def stable_argsort(keys: np.ndarray, bits: int | None = None) -> np.ndarray:
    """Positions of ``keys`` in ascending order, ties in input order (see
    :func:`sort_with_positions`)."""
    return sort_with_positions(keys, bits)[1]


def order_key(values: np.ndarray) -> tuple[np.ndarray, int]:
    """An unsigned 64-bit key per value that orders like the values, and its width.

    Defined for the weights the pipeline accepts, which are validated
    positive: a positive IEEE-754 float's bit pattern orders like the float
    (float32 keys use 32 bits, float64 keys 64), and a positive integer is
    its own key, so integer weights order exactly at any size (no rounding
    through float64).
    """
    dtype = values.dtype
    if dtype == np.float32:
        return values.view(np.uint32).astype(np.uint64), 32
    if dtype == np.float64:
        return values.view(np.uint64), 64
    if dtype.kind in "iu":
        return values.astype(np.uint64, copy=False), 8 * dtype.itemsize
    raise TypeError(f"no order key for weights of dtype {dtype}")


def weights_of_order_keys(keys: np.ndarray, dtype) -> np.ndarray:
    """Invert :func:`order_key`: the weights of ``dtype`` the keys stand for."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return keys.astype(np.uint32).view(np.float32)
    if dtype == np.float64:
        return keys.view(np.float64)
    return keys.astype(dtype)
