"""Synthetic benchmark graphs: R-MAT (Graph500-style) and 2-D meshes.

Both generators are vectorised NumPy and fully determined by their
arguments (``seed`` included); they return a pandas edge list
``src | dst | weight`` that any ``cugraph_match`` entry point accepts.

Random streams
--------------
``numpy.random.SeedSequence(seed)`` is split into two independent streams
(``spawn(2)``): the first draws the structure, the second the weights.  So
for a given seed the weights do not depend on how the structure was drawn,
and the structure does not depend on whether weights are wanted.

Weights
-------
float32, uniform on (0, 1]: ``1 - U`` where ``U`` is NumPy's float32
uniform on [0, 1) (multiples of 2**-24).  Every weight is positive, as the
matching algorithms require.  Note there are only 2**24 such values, so on
graphs with millions of edges many weights tie; the library breaks ties by
vertex id, other codes may break them differently.

Run as a script to print a small summary::

    python benchmarks/rmat.py 16
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Edges drawn per chunk: bounds the temporaries to a few tens of MiB.
CHUNK_EDGES = 1 << 20


def _streams(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    structure, weights = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(structure), np.random.default_rng(weights)


def uniform_weights(count: int, rng: np.random.Generator | int) -> np.ndarray:
    """``count`` float32 weights uniform on (0, 1] (see the module docstring).

    ``rng`` is a Generator, or an int seed for ``numpy.random.default_rng``.
    """
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    out = rng.random(count, dtype=np.float32)
    np.subtract(np.float32(1.0), out, out=out)
    return out


def rmat_edges(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19,
               c: float = 0.19, seed: int = 0, permute: bool = False,
               chunk_edges: int = CHUNK_EDGES) -> pd.DataFrame:
    """R-MAT edge list with ``2**scale`` vertex ids and ``edge_factor * 2**scale`` edges.

    Each edge picks one quadrant of the adjacency matrix per level, top bit
    first: (0, 0) with probability ``a``, (0, 1) with ``b``, (1, 0) with
    ``c`` and (1, 1) with ``d = 1 - a - b - c`` (the defaults are Graph500's).
    Levels are drawn bit by bit for a chunk of ``chunk_edges`` edges at a
    time, so memory stays at the output plus one chunk of temporaries.

    The raw list is returned: it contains self-loops and repeated edges
    (``cugraph_match`` drops the former and keeps the heaviest of the
    latter), and ids that no edge touches are simply absent.

    Parameters
    ----------
    scale, edge_factor : int
        ``2**scale`` ids and ``edge_factor * 2**scale`` edges.
    a, b, c : float
        Quadrant probabilities (``a + b + c < 1``).
    seed : int
        Seeds both streams (see the module docstring).  The structure also
        depends on ``chunk_edges``; keep the default to reproduce results.
    permute : bool
        Relabel the ids by a random permutation (drawn from the structure
        stream after the edges), as Graph500 does, so that high-degree
        vertices are not clustered at small ids.

    Returns
    -------
    pandas.DataFrame
        ``src``, ``dst`` (int32 when ``scale <= 31``, else int64) and
        ``weight`` (float32, uniform on (0, 1]).
    """
    if not 1 <= scale <= 62:
        raise ValueError(f"scale must be in [1, 62], got {scale}")
    d = 1.0 - a - b - c
    if min(a, b, c) < 0 or d < 0:
        raise ValueError(f"need a, b, c >= 0 and a + b + c <= 1, got {a}, {b}, {c}")
    n = 1 << scale
    m = edge_factor * n
    id_dtype = np.int32 if scale <= 31 else np.int64
    src = np.empty(m, dtype=id_dtype)
    dst = np.empty(m, dtype=id_dtype)
    structure, weight_rng = _streams(seed)

    ab, abc = a + b, a + b + c
    for start in range(0, m, chunk_edges):
        stop = min(start + chunk_edges, m)
        size = stop - start
        s = np.zeros(size, dtype=np.int64)
        t = np.zeros(size, dtype=np.int64)
        r = np.empty(size, dtype=np.float64)
        low_half = np.empty(size, dtype=bool)
        for level in range(scale):
            structure.random(out=r)
            # row bit: quadrants c and d (r >= a + b)
            row_bit = r >= ab
            # column bit: quadrant b (a <= r < a + b) or quadrant d (r >= a + b + c)
            np.greater_equal(r, a, out=low_half)
            col_bit = (low_half & ~row_bit) | (r >= abc)
            shift = scale - 1 - level
            s |= row_bit.astype(np.int64) << shift
            t |= col_bit.astype(np.int64) << shift
        src[start:stop] = s
        dst[start:stop] = t

    if permute:
        perm = structure.permutation(n).astype(id_dtype)
        src = perm[src]
        dst = perm[dst]
    weight = uniform_weights(m, weight_rng)
    return pd.DataFrame({"src": src, "dst": dst, "weight": weight})


def mesh_edges(side: int, seed: int = 0) -> pd.DataFrame:
    """A ``side`` x ``side`` grid (4-neighbour mesh), vertex ``i * side + j``.

    ``2 * side * (side - 1)`` edges, each listed once; weights as in
    :func:`rmat_edges` (from the second stream of ``seed``).
    """
    if side < 2:
        raise ValueError(f"side must be at least 2, got {side}")
    id_dtype = np.int32 if side * side < 2**31 else np.int64
    ids = np.arange(side * side, dtype=id_dtype).reshape(side, side)
    horizontal = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    vertical = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    src = np.concatenate([horizontal[0], vertical[0]])
    dst = np.concatenate([horizontal[1], vertical[1]])
    _, weight_rng = _streams(seed)
    return pd.DataFrame({"src": src, "dst": dst,
                         "weight": uniform_weights(src.shape[0], weight_rng)})


if __name__ == "__main__":  # pragma: no cover - manual check
    import sys
    import time

    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    t0 = time.perf_counter()
    edges = rmat_edges(scale)
    elapsed = time.perf_counter() - t0
    degree = np.bincount(np.concatenate([edges["src"], edges["dst"]]), minlength=1 << scale)
    print(f"scale {scale}: {len(edges):,} raw edges in {elapsed:.2f} s; "
          f"self-loops {(edges['src'] == edges['dst']).sum():,}; "
          f"isolated ids {(degree == 0).sum():,}; max degree {degree.max():,}; "
          f"weights in [{edges['weight'].min():.3g}, {edges['weight'].max():.3g}]")
