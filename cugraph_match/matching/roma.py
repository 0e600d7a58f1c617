"""ROMA: local search past the ½ of greedy matchings, by random-order phases of
maximum-gain 2-augmentations (Maue and Sanders; on the GPU after Hovland,
"Maximum weighted matching on a GPU", 2020).

The public function; the two problem shapes part below it: edge-list graphs
(``roma_sparse.py``) and complete graphs, a dense weight matrix or points
(``roma_complete.py``), over what they share (``roma_common.py``) and the
kernels (``roma_cpu.py``, ``roma_gpu.py``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..structure.bipartite import check_bipartite_flag, check_unmatched
from ..structure.checks import check_flag, real_value
from ..structure.graph import as_graph
from ..structure.inputs import DEFAULT_WEIGHT
from .roma_common import RomaInfo
from .roma_complete import complete_problem, roma_complete
from .roma_sparse import check_integer_edge_weights, check_integer_graph_weights, roma_sparse

__all__ = ["RomaInfo", "roma_matching"]


def roma_matching(graph: Any = None, source: str = "src", destination: str = "dst",
                  weight: str | None = DEFAULT_WEIGHT, *, points: Any = None,
                  initial: Any = None, phases: int = 8, threshold: float = 1e-5,
                  seed: int = 0, backend: str = "auto", threads_per_block: int | None = None,
                  return_info: bool = False, bipartite: bool = False, unmatched: str = "drop"):
    """A heavier matching than greedy, by ROMA local search (expected 2/3 − ε).

    Starting from ``initial``, each phase visits every vertex v (on the CPU in
    a random order drawn from ``seed``) and applies the maximum-gain
    2-augmentation centred at v when it gains more than ``threshold``: an
    alternating path or cycle of at most two non-matching edges, each at v
    or v's mate.  That is, v takes a new mate a and v's old mate u takes a
    new mate b (either may be none), and the old mates of a and b become
    unmatched; when a and b were mates of each other it is a 4-cycle, when
    unmatched an augmenting path.  Phases stop after ``phases`` or after one
    that changes nothing (a local optimum, every 2-augmentation gains at
    most ``threshold``).  On a graph, a local optimum for ``threshold=0``
    (no centred 2-augmentation gains) has at least 2/3 of the maximum
    weight.  On a complete graph only flips are tried, so a local optimum
    is a flip-local optimum, which guarantees only 1/2 (2/3 is not
    guaranteed: a 6-vertex weight matrix started from ``"pairs"`` converges
    at 4 where the maximum is 7).  The weight never decreases.

    Two kinds of graph:

    * **a graph** (an edge list, ``cm.Graph``, cuGraph/NetworkX graph or
      SciPy sparse matrix, as for :func:`~cugraph_match.suitor_matching`):
      the general centred 2-augmentations above, from the greedy matching
      (Suitor's) by default;
    * **a complete graph**: ``graph`` a dense symmetric ``n × n`` weight
      matrix (NumPy, or CuPy for the GPU; every off-diagonal pair is an
      edge, zeros included; the diagonal is ignored), or ``points`` (an
      ``n × d`` array) whose Euclidean distances are the weights, computed
      when read (no matrix).  As in Hovland's thesis the matching is perfect
      (an odd n gets a padding vertex whose edges weigh 0) and an
      augmentation flips two matching edges (u, mu), (x, y) into (u, x),
      (mu, y) or (u, y), (mu, x).  Default start: vertices paired in order
      (0-1, 2-3, ...), as in the thesis.

    Parameters
    ----------
    graph : cm.Graph, DataFrame, cugraph.Graph, networkx.Graph, scipy.sparse matrix, or a 2-D NumPy/CuPy array
        The graph (see above); leave it out when giving ``points``.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`
        (not for matrices or points).  Gains are computed in float64, so
        integer weights (edge lists, integer weight matrices) must be at
        most 2**51 in magnitude (a gain, a sum of three weights, is then exact in
        float64); larger ones are refused.  Float weights of 2**1021 (about
        2.2e307) or more are divided by a power of two for the phases (edge
        lists; the result and its weights are the same) or refused (weight
        matrices), so that no gain overflows.
    points : array-like of shape (n, d), optional
        Coordinates of a complete geometric graph: a NumPy or CuPy array, or
        anything NumPy turns into a real array (nested lists, a DataFrame).
        They must be finite and their squared distances too (each
        coordinate's range squared, summed, must not overflow float64).
    initial : DataFrame or str, optional
        The start: a ``vertex | mate`` frame (a matching of the graph, e.g.
        from :func:`~cugraph_match.suitor_matching`; vertices without a row
        start unmatched; a ``weight`` column is ignored), ``"greedy"`` (alias
        ``"suitor"``), ``"empty"`` (graphs) or ``"pairs"`` (complete graphs).
        On a complete graph a start that is not perfect is completed by
        pairing its unmatched vertices in order.
    phases : int
        At most this many phases (8 by default, as the thesis; 0 returns the start).
    threshold : float
        Only changes gaining more than this are made (1e-5, the thesis' value;
        ≥ 0).  It stops long tails of negligible flips.  Candidates are
        ranked by their float64 gain, but a change is made only when its
        exact gain (no rounding) exceeds the threshold, so the weight never
        decreases even where float weights differ by more than 2**53 in
        magnitude and their sums round.
    seed : int
        Seed of the CPU's random vertex orders: the same seed gives the same
        matching (any int; a negative one is taken modulo 2**64, as
        :func:`~cugraph_match.louvain` does).  The GPU's order is the
        hardware's (not deterministic).
    backend : {"auto", "gpu", "cpu"}
    threads_per_block : int, optional
        GPU launch: threads per block (a power of two in [32, 1024], default
        1024, for complete graphs: a block per matching edge; a multiple of
        32 in [32, 1024], default 128, for graphs: a warp per centre); checked
        on every backend.  Changes the order
        of work, never the validity.
    return_info : bool
        Also return a :class:`RomaInfo` (flips, times and weights per phase).
    bipartite, unmatched
        Two tables (graphs only, not matrices or points), as in
        :func:`~cugraph_match.suitor_matching`: the result is the linked
        pairs, and ``initial`` may be a linked-pairs frame (columns named
        like ``source`` / ``destination``; rows with a null end are skipped).
        Every augmentation stays between the sides, since every edge does.

    Returns
    -------
    DataFrame, or (DataFrame, RomaInfo)
        ``vertex | mate | weight`` as :func:`~cugraph_match.suitor_matching`
        returns it (cuDF for cuDF/cuGraph/CuPy input, else pandas).  For a
        matrix or points, vertices are ``0..n-1`` and the weight column has
        the matrix's dtype if float32 or float64; an integer matrix gives
        float64, a float16 one float32, and points float64.  An odd n leaves
        one vertex unmatched.

    Notes
    -----
    Deviations from the thesis, each for a reason: the GPU locks every
    vertex whose mate changes (four per flip) in ascending order, where the
    thesis locks two edge representatives, which lets a block flip over a
    half-written pair; block-uniform control flow and a deterministic
    tie-break (larger gain, then the smaller vertex); gains are computed in
    float64; geometric weights may be computed from points on the fly rather
    than read from a matrix; and graphs that are not complete get the
    general 2-augmentations (the thesis handles complete graphs only).  The
    CPU runs the phases sequentially.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import cugraph_match as cm
    >>> edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
    ...                       "weight": [2.0, 3.0, 2.0]})
    >>> cm.matching_weight(cm.suitor_matching(edges, backend="cpu"))
    3.0
    >>> better = cm.roma_matching(edges, backend="cpu")
    >>> better["mate"].tolist(), cm.matching_weight(better)
    ([1, 0, 3, 2], 4.0)
    >>> W = np.array([[0, 1, 5, 1], [1, 0, 1, 5], [5, 1, 0, 1], [1, 5, 1, 0]], dtype=np.float32)
    >>> m, info = cm.roma_matching(W, backend="cpu", return_info=True)
    >>> m["mate"].tolist(), cm.matching_weight(m), info.start_weight, info.converged
    ([2, 3, 0, 1], 10.0, 2.0, True)
    """
    threshold = _check_scalars(phases, threshold, seed, return_info)
    bipartite = check_bipartite_flag(bipartite) or getattr(graph, "bipartite", False) is True
    unmatched = check_unmatched(unmatched, bipartite)
    complete = points is not None or _is_dense_array(graph)
    if complete and bipartite:
        raise ValueError("bipartite=True takes a two-sided edge list (or a cm.Graph, NetworkX "
                         "graph or biadjacency sparse matrix), not a weight matrix or points")
    if complete:
        if points is not None and graph is not None:
            raise ValueError("give either graph (a weight matrix or edges) or points, not both")
        changed = [name for name, value, default in (("source", source, "src"),
                                                     ("destination", destination, "dst"),
                                                     ("weight", weight, DEFAULT_WEIGHT))
                   if value != default]
        if changed:
            raise ValueError(f"{', '.join(changed)} cannot be set for a weight matrix or points")
        problem = complete_problem(graph, points, backend)
        frame, info = roma_complete(problem, initial, phases, threshold, seed, threads_per_block)
    else:
        if graph is None:
            raise ValueError("no graph given: pass edges, a cm.Graph, a weight matrix or points=")
        check_integer_edge_weights(graph, weight, source, destination, bool(bipartite))
        g = as_graph(graph, source, destination, weight, backend, bipartite=bipartite)
        check_integer_graph_weights(g)
        if g.bipartite:
            from .two_sided import start_mates

            initial = start_mates(g, initial)
        frame, info = roma_sparse(g, initial, phases, threshold, seed, threads_per_block,
                                  unmatched)
    return (frame, info) if return_info else frame


# -- arguments ------------------------------------------------------------------


def _check_scalars(phases, threshold, seed, return_info) -> float:
    """The scalar arguments checked; the threshold as a float (a Fraction or
    a Python int read by value: NumPy's isfinite refused them with a
    message about ufunc casting rules)."""
    if isinstance(phases, bool) or not isinstance(phases, (int, np.integer)):
        raise TypeError(f"phases must be an int, got {phases!r}")
    if phases < 0:
        raise ValueError(f"phases must be >= 0, got {phases}")
    value = real_value(threshold)
    if value is None:
        raise TypeError(f"threshold must be a real number, got {threshold!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"threshold must be finite (within float64) and >= 0, got "
                         f"{threshold!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    check_flag(return_info, "return_info")
    return value


def _is_dense_array(obj) -> bool:
    return isinstance(obj, np.ndarray) or type(obj).__module__.startswith("cupy")
