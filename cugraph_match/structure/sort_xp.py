"""Sorting on the device (CuPy), written against the array module ``xp`` so that
NumPy runs the same code in the tests and the simulator pass.

CuPy's 1-D ``argsort`` is a stable radix sort (CUB) for integer and float
keys, so an ordering by several keys is a chain of stable argsorts, least
significant key first: each key sorted in its own type, never promoted into
a float64 stack (which loses integers above 2**53 and makes CuPy fall back
to a comparison sort of the whole stack).
"""

from __future__ import annotations

import numpy as np


def stable_argsort_xp(keys, xp):
    """Stable ascending argsort with the array module's own sort (CuPy's is a
    stable radix sort; NumPy's needs ``kind="stable"``)."""
    if xp is np:
        return np.argsort(keys, kind="stable")
    return xp.argsort(keys)


def lexsort_xp(keys, xp):
    """Like ``numpy.lexsort``: the last key is the primary one; each key keeps
    its own dtype."""
    order = stable_argsort_xp(keys[0], xp)
    for key in keys[1:]:
        order = order[stable_argsort_xp(key[order], xp)]
    return order


def bincount_xp(x, xp, weights=None, minlength: int = 0):
    """``xp.bincount(x, weights, minlength)``, also of an empty ``x`` (zeros,
    float64 when weighted): CuPy before 14.2 sizes its output by
    ``int(x.max()) + 1``, a reduction that raises on an empty array."""
    if x.shape[0] == 0:
        return xp.zeros(minlength, dtype=np.int64 if weights is None else np.float64)
    return xp.bincount(x, weights=weights, minlength=minlength)


# The dtypes CuPy's scatter_max kernels are built for (cupyx/_scatter.py).
_CUPY_SCATTER_MAX = {np.dtype(t) for t in (np.int32, np.uint32, np.uint64, np.float32,
                                           np.float64)}


def segment_max(values, groups, size: int, xp):
    """Largest of ``values`` per group id (``groups`` in ``0..size-1``);
    a group with no value gets 0."""
    if xp.__name__ != "cupy":
        out = xp.zeros(size, dtype=values.dtype)
        xp.maximum.at(out, groups, values)
        return out
    import cupyx

    dtype = values.dtype
    if dtype in _CUPY_SCATTER_MAX:
        out = xp.zeros(size, dtype=dtype)
        cupyx.scatter_max(out, groups, values)
        return out
    if dtype.kind == "i":
        # No signed 64-bit kernel: flipping the sign bit maps int64 onto
        # uint64 in the same order (and 0 onto 2**63), so the unsigned maximum
        # flipped back is the signed one.
        sign = np.uint64(1 << 63)
        out = xp.full(size, sign, dtype=np.uint64)
        cupyx.scatter_max(out, groups, values.astype(np.int64).view(np.uint64) ^ sign)
        return (out ^ sign).view(np.int64).astype(dtype)
    wide = np.uint64 if dtype.kind == "u" else np.float32 if dtype.itemsize < 4 else np.float64
    out = xp.zeros(size, dtype=wide)
    cupyx.scatter_max(out, groups, values.astype(wide))
    return out.astype(dtype)
