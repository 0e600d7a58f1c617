"""½-approximate weighted b-matching by the b-Suitor algorithm."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..structure.backend import to_backend
from ..structure.checks import (capacity_scalar, capacity_values, check_launch,
                                node_attribute_values, require_vertex_frame)
from ..structure.bipartite import check_bipartite_flag, check_unmatched, linked_pairs_frame
from ..structure.graph import Graph, as_graph, internal_ids, lacking_ids_error
from ..structure.inputs import DEFAULT_WEIGHT, computed, is_distributed_input, check_stats
from ..structure.output import pairs_frame


def b_suitor_matching(graph: Any, b: Any = 1, source: str = "src", destination: str = "dst",
                      weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
                      threads_per_block: int = 128, heap_above: int = 32,
                      return_stats: bool = False, *, bipartite: bool = False,
                      unmatched: str = "drop"):
    """Greedy weighted b-matching computed by b-Suitor, on the GPU or the CPU.

    Every vertex v may be matched to at most ``b(v)`` neighbours.  Each
    vertex keeps the ``b(v)`` best offers it has received; a vertex offers
    itself to its heaviest neighbours whose weakest held offer it beats, and
    a proposer that loses a place offers again.  The result is exactly the
    greedy b-matching (heaviest edge first, taken while both ends have spare
    capacity), a ½-approximation of the maximum-weight b-matching, for every
    backend and launch configuration.  With ``b=1`` it is
    :func:`~cugraph_match.suitor_matching`.

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The graph, taken as undirected, as in :func:`~cugraph_match.suitor_matching`.
    b : int, Series, DataFrame, str, dict or pair
        The capacity of every vertex: one non-negative int for all; a Series
        indexed by vertex id; a frame with columns ``vertex`` and ``b``; or,
        for a ``networkx.Graph``, the name of a node attribute.  Every vertex
        needs a capacity; ``b(v) = 0`` leaves v unmatched and ``b(v)`` at or
        above v's degree never binds.  Any integer dtype and size is accepted
        (uint64 up to 2**64 - 1, Python ints beyond it), and floats holding
        integers; NaN, infinite, fractional or negative values raise.  With
        ``bipartite=True``: one int for all, a node attribute name, or one
        capacity per side, ``{"source": ..., "destination": ...}`` or a pair,
        each an int, a Series indexed by that side's ids or a ``vertex | b``
        frame of that side (a lone Series or frame is refused: the sides'
        ids may be equal).
    source, destination : str
        Edge-list column names of the two endpoints (frames only).
    weight : str or None
        Weight column name; ``None``, or the default name when no such column
        exists, makes every weight 1.
    backend : {"auto", "gpu", "cpu"}
        ``"auto"`` uses the GPU when one is usable.  On a Dask input it
        places each worker's part and supersteps: ``"gpu"`` on every worker's
        GPU, ``"auto"`` there when the partitions are cuDF and every worker's
        GPU is usable (not with ``bipartite=True``; ids other than integers
        are built on the host); the result is the same.
    threads_per_block : int
        GPU launch configuration (one thread per vertex).
    heap_above : int
        On the GPU, a vertex whose capacity exceeds this keeps its offers in
        a min-heap under a per-vertex lock; smaller capacities use lock-free
        slots that a proposal scans.  Neither setting changes the result.
    return_stats : bool
        Dask input only: also return the run's figures (supersteps, messages
        and bytes moved per superstep, the build's cut edges and bytes).
    bipartite, unmatched
        Two tables (two id spaces), as in
        :func:`~cugraph_match.suitor_matching`.

    Returns
    -------
    DataFrame
        One row per matched edge, sorted: ``src`` and ``dst`` (``src`` the
        smaller id) and the edge's ``weight``.  cuDF when the input lives on
        the GPU, else pandas.  With ``bipartite=True`` the linked pairs,
        named after ``source``, ``destination`` and ``weight``, sorted by
        source then destination id (a record with several pairs has a row
        for each); ``unmatched`` adds the records with none.

    Notes
    -----
    Ties follow :func:`~cugraph_match.suitor_matching`: at equal weight, edge
    (u, v) beats (x, y) when (max(u, v), min(u, v)) is larger.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> star = pd.DataFrame({"src": [0, 0, 0, 1], "dst": [1, 2, 3, 2],
    ...                      "weight": [4.0, 3.0, 2.0, 1.0]})
    >>> cm.b_suitor_matching(star, b=2, backend="cpu")
       src  dst  weight
    0    0    1     4.0
    1    0    2     3.0
    2    1    2     1.0
    """
    check_launch(threads_per_block)
    if isinstance(heap_above, bool) or not isinstance(heap_above, numbers.Integral) \
            or heap_above < 0:
        raise ValueError(f"heap_above must be a non-negative int, got {heap_above!r}")
    bipartite = check_bipartite_flag(bipartite) or getattr(graph, "bipartite", False) is True
    unmatched = check_unmatched(unmatched, bipartite)
    return_stats = check_stats(return_stats, graph)
    if is_distributed_input(graph):
        if bipartite:
            from ..dask.bipartite import two_sided_dask

            return two_sided_dask(graph, source, destination, weight, backend, return_stats,
                                  unmatched, b, per_vertex=True)
        from ..dask.matching import b_matching_dask

        return b_matching_dask(graph, b, source, destination, weight, backend, return_stats)
    g = as_graph(graph, source, destination, weight, backend, bipartite=bipartite)
    cap = capacities(g, graph, b)
    lo, hi, key = b_suitor_pairs(g, cap, threads_per_block=threads_per_block,
                                 heap_above=heap_above)
    pref = g.preference_csr()
    weights = pref.weights(key.astype(np.int64), g.backend.xp)
    if g.bipartite:  # lo is the left end, hi the right one (every right id is larger)
        return linked_pairs_frame(g.sides, lo, hi - g.sides.n_left, weights, unmatched,
                                  xp=g.backend.xp)
    return pairs_frame(g.labels, g.frame_lib, lo, hi, weights)


def b_suitor_pairs(graph: Graph, cap, threads_per_block: int = 128, eager: bool = True,
                   heap_above: int = 32):
    """The greedy b-matching of a prepared graph as (lo, hi, key) arrays.

    ``cap`` holds b(v) per internal vertex.  ``eager`` picks, on the CPU,
    McVitie-Wilson re-proposal (a displaced vertex proposes again at once)
    or Gale-Shapley (it waits in a queue); the result is the same.
    """
    xp = graph.backend.xp
    pref = graph.preference_csr()
    degree = pref.offsets[1:] - pref.offsets[:-1]
    slot_start = xp.zeros(graph.num_vertices + 1, dtype=np.int64)
    slot_start[1:] = xp.cumsum(xp.minimum(cap, degree))
    if graph.backend.name == "gpu":
        from .b_suitor_gpu import b_suitor_slots_gpu, matched_pairs_sorted

        slots = b_suitor_slots_gpu(pref.offsets, pref.indices, pref.keys, slot_start, xp,
                                   threads_per_block=threads_per_block, heap_above=heap_above)
        return matched_pairs_sorted(slots, slot_start, xp)
    from .b_suitor_cpu import b_suitor_slots, matched_pairs_cpu

    slots = b_suitor_slots(pref.offsets, pref.indices, pref.keys, slot_start, eager)
    return matched_pairs_cpu(slots, slot_start)


def capacities(pg: Graph, graph: Any, b: Any):
    """b(v) per internal vertex as an ``xp`` int64 array, validated.

    Capacities of any integer or float dtype and size are accepted; values at
    or above ``CAPACITY_CEILING`` (2**62, more than any degree) are stored as
    it, so they behave as the caller's value does: unbounded.
    """
    xp = pg.backend.xp
    n = pg.num_vertices
    if pg.bipartite:
        from .two_sided import side_capacities

        return side_capacities(pg, graph, b)
    b = computed(b)
    if isinstance(b, (bool, np.bool_)):
        raise TypeError(f"b must be an int, a Series, a vertex|b frame or a node attribute "
                        f"name, got {b!r}")
    if isinstance(b, numbers.Real):
        return xp.full(n, capacity_scalar(b, "b"), dtype=np.int64)
    lib = pg.frame_lib
    if isinstance(b, str):
        vertices, values = node_attribute_values(graph, b)
        vertices = lib.Series(vertices)
        values = lib.Series(values, dtype=object) if _needs_object(values) else \
            lib.Series(values)
        what = f"node attribute {b!r}"
    elif hasattr(b, "columns"):
        require_vertex_frame(b, ("vertex", "b"), "the b")
        vertices, values = b["vertex"], b["b"]
        what = "b frame"
    elif hasattr(b, "index") and hasattr(b, "dtype"):
        vertices, values = b.index.to_series(), b
        what = "b Series"
    else:
        raise TypeError(f"b must be an int, a Series, a vertex|b frame or a node attribute "
                        f"name, got {type(b).__name__}")
    return _capacity_array(pg, vertices, values, what)


def _needs_object(values) -> bool:
    """Python ints beyond int64 (a NetworkX attribute of 2**64 - 1, say) stay
    Python ints: an int64 Series cannot hold them."""
    return any(isinstance(x, numbers.Integral) and not -2**63 <= x < 2**63 for x in values)


def _capacity_array(pg: Graph, vertices, values, what: str):
    xp = pg.backend.xp
    n = pg.num_vertices
    values = capacity_values(vertices, values, what)
    ids = internal_ids(pg, vertices, what)
    given = xp.zeros(n, dtype=bool)
    given[ids] = True
    if not bool(given.all()):
        lacking = np.flatnonzero(~to_backend(given, np))
        raise lacking_ids_error(what, len(lacking), pg.labels.iloc[int(lacking[0])], "capacity")
    cap = xp.zeros(n, dtype=np.int64)
    cap[ids] = values.to_cupy() if (xp is not np and hasattr(values, "to_cupy")) \
        else to_backend(values.to_numpy(), xp)
    return cap
