"""Counter-based random numbers for the handshake matching, shared by both backends.

Fagginger Auer & Bisseling colour vertices with a truncated MD5 of the vertex
id and a per-round random number.  We keep the scheme (a stateless hash of
(vertex, round key), so every thread colours itself with no RNG state) but use
the SplitMix64 finaliser, which is cheaper and passes the usual avalanche
tests.  Vertex ids are mixed with the round key before hashing, so vertex 0,
whose MD5 block is all zeros in the paper's scheme, changes colour too.

``mix64`` (``structure/hashing.py``) is compiled by both backends, so the
CPU and the GPU colour, and therefore match, identically.
"""

from __future__ import annotations

import numpy as np

from ..structure.hashing import GOLDEN, mix64_host

# p = 0.53406 of the vertices are blue: the colouring that maximises the
# matched fraction per round (the paper's Eq. 2), as a 32-bit threshold.
BLUE_BELOW = 0x88B81733


def round_keys(seed: int, round_id: int) -> tuple[np.uint64, np.uint64]:
    """The (colour key, choice key) of one round, from the caller's seed."""
    base = mix64_host(mix64_host(seed * GOLDEN) + round_id * GOLDEN)
    return np.uint64(base), np.uint64(mix64_host(base ^ 0xD1B54A32D192ED03))
