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


def segment_max(values, groups, size: int, xp):
    """Largest of ``values`` per group id (``groups`` in ``0..size-1``)."""
    out = xp.zeros(size, dtype=values.dtype)
    if xp.__name__ == "cupy":
        import cupyx

        cupyx.scatter_max(out, groups, values)
    else:
        xp.maximum.at(out, groups, values)
    return out
