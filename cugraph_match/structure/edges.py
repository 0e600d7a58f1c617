"""Undirected edge sets in internal ids: duplicates merged, self-loops set apart,
and the contraction of vertex groups.

Every edge is identified by one integer, ``hi << bits | lo`` (``lo < hi``,
``bits`` the width of the largest vertex id), so sorting these pair keys
puts an edge's duplicate rows side by side and orders the edges by
``(hi, lo)``.  Keys stay integers end to end: no float64 stacks, no
``lo * n + hi`` products that collide once n² passes 2⁵³ or overflow past
3·10⁹ vertices.  When two ids do not fit one word (more than 2³² vertices)
the pair is ordered by two stable integer sorts instead.

Host arrays go through the ``numba`` passes of ``pipeline_cpu`` around the
sorts of ``sort_cpu``; device arrays (CuPy) through the ``numba.cuda``
kernels of ``pipeline_gpu`` around CuPy's radix sorts, written against the
array module ``xp`` so that the simulator pass runs the same code on NumPy
(``backend.HOST_AS_DEVICE``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import pipeline_cpu as host
from .sort_cpu import bit_width, sort_carrying
from .sort_xp import bincount_xp, segment_max, stable_argsort_xp


def index_dtype(limit: int) -> np.dtype:
    """int32 when every value is below ``limit`` < 2**31, else int64."""
    return np.dtype(np.int32) if limit < 2**31 else np.dtype(np.int64)


@dataclass
class UndirectedEdges:
    """Each undirected edge once, ``lo < hi``, sorted by ``(hi, lo)``.

    ``w`` holds the largest weight of an edge's rows in the caller's numeric
    dtype, or is ``None`` when the graph is unweighted (every weight 1).
    ``loop[v]`` is v's self-loop weight (the largest of its loop rows, 0 when
    it has none), or ``None`` when no vertex has one.
    """

    n: int
    lo: Any
    hi: Any
    w: Any
    loop: Any

    @property
    def num_edges(self) -> int:
        return int(self.lo.shape[0])


@dataclass
class WeightedGraph:
    """An undirected graph for community detection and coarsening: edges as in
    :class:`UndirectedEdges` with float64 weights, and every vertex's float64
    self-loop weight (zeros when none).  Weighted degree counts a self-loop
    twice and the total weight once, as in NetworkX."""

    n: int
    lo: Any
    hi: Any
    w: Any
    loop: Any


def is_host(xp) -> bool:
    return xp is np


# --------------------------------------------------------------------------
# duplicates and self-loops
# --------------------------------------------------------------------------


def undirected_edges(u, v, w, n: int, xp) -> UndirectedEdges:
    """The edge rows ``(u[i], v[i], w[i])`` (internal ids) as an undirected edge set.

    (u, v) and (v, u) are one edge; duplicates keep their largest weight;
    self-loops are set apart in ``loop`` (largest per vertex).  ``w`` may be
    ``None`` (unweighted).  The caller's arrays are not modified.
    """
    bits = max(bit_width(max(n - 1, 0)), 1)
    if 2 * bits > 64:
        return _undirected_edges_wide(u, v, w, n, xp)
    if is_host(xp):
        return _undirected_edges_host(u, v, w, n, bits)
    return _undirected_edges_xp(u, v, w, n, bits, xp)


def _undirected_edges_host(u, v, w, n, bits) -> UndirectedEdges:
    m = u.shape[0]
    shift = np.uint64(bits)
    keys = np.empty(m, dtype=np.uint64)
    loop_rows = host.pair_keys(u, v, shift, keys)
    # a per-vertex loop array only when some vertex has a loop
    loop = np.zeros(n if loop_rows else 0, dtype=w.dtype if w is not None else np.float32)
    # the walks below compact their sorted input in place
    if w is None:
        keys.sort()  # our own array: sort in place, no positions needed
        distinct = keys
        count = host.distinct_sorted_pairs(keys, shift, distinct, loop)
        weights = None
    else:
        distinct, weights = sort_carrying(keys, w, 2 * bits)
        del keys
        count = host.dedup_sorted_weighted(distinct, weights, shift, distinct, weights, loop)
        weights = weights[:count].copy()
    ids = index_dtype(n)
    lo = np.empty(count, dtype=ids)
    hi = np.empty(count, dtype=ids)
    host.split_pairs(distinct[:count], shift, lo, hi)
    return UndirectedEdges(n, lo, hi, weights, loop if loop_rows else None)


def _undirected_edges_xp(u, v, w, n, bits, xp) -> UndirectedEdges:
    """The device build: pair keys, one radix sort, the weights gathered once
    in key order, and one kernel that writes each distinct edge (largest
    weight of its run) and each self-loop."""
    from . import pipeline_gpu as dev

    m = int(u.shape[0])
    keys = xp.empty(m, dtype=np.uint64)
    dev.launch(dev.pair_keys, m, xp, u, v, bits, keys)
    order = stable_argsort_xp(keys, xp)
    keys = keys[order]
    sorted_w = w[order] if w is not None else dev.empty_weights(xp)
    del order
    flag = xp.empty(m, dtype=np.int32)
    dev.launch(dev.edge_starts, m, xp, keys, bits, flag)
    slot = xp.cumsum(flag, dtype=index_dtype(m + 1))
    del flag
    count = int(slot[-1]) if m else 0
    ids = index_dtype(n)
    lo = xp.empty(count, dtype=ids)
    hi = xp.empty(count, dtype=ids)
    weight_dtype = w.dtype if w is not None else np.dtype(np.float32)
    weights = xp.empty(count if w is not None else 0, dtype=weight_dtype)
    loop = xp.zeros(n, dtype=weight_dtype)
    dev.launch(dev.dedup_groups, m, xp, keys, sorted_w, bits, slot, lo, hi, weights, loop)
    del keys, sorted_w, slot
    has_loop = bool((loop != 0).any()) if n else False
    return UndirectedEdges(n, lo, hi, weights if w is not None else None,
                           loop if has_loop else None)


def _undirected_edges_wide(u, v, w, n, xp) -> UndirectedEdges:
    """More than 2**32 vertices: a pair does not fit one 64-bit key, so order
    by two stable integer sorts (lo, then hi) and merge equal neighbours."""
    a = xp.minimum(u, v).astype(np.int64)
    b = xp.maximum(u, v).astype(np.int64)
    first_pass = stable_argsort_xp(a, xp)
    order = first_pass[stable_argsort_xp(b[first_pass], xp)]
    a, b = a[order], b[order]
    first = xp.ones(a.shape[0], dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    is_loop = a == b
    loop = None
    if bool(is_loop.any()):
        loop_w = w[order[is_loop]] if w is not None else xp.ones(int(is_loop.sum()), np.float32)
        loop = segment_max(loop_w, a[is_loop], n, xp)
    edge = ~is_loop
    keep = first & edge
    group = xp.cumsum(keep) - 1
    out_w = None
    if w is not None:
        out_w = segment_max(w[order[edge]], group[edge], int(keep.sum()), xp)
    return UndirectedEdges(n, a[keep], b[keep], out_w, loop)


# --------------------------------------------------------------------------
# contraction
# --------------------------------------------------------------------------


def weighted_graph(edges: UndirectedEdges, xp) -> WeightedGraph:
    """The float64 form of an edge set (weight 1 when unweighted)."""
    m = edges.num_edges
    w = edges.w.astype(np.float64, copy=False) if edges.w is not None else \
        xp.ones(m, dtype=np.float64)
    loop = edges.loop.astype(np.float64, copy=False) if edges.loop is not None else \
        xp.zeros(edges.n, dtype=np.float64)
    return WeightedGraph(edges.n, edges.lo, edges.hi, w, loop)


# Louvain and modularity add weights up (degrees, community totals, 2m) and
# multiply two such sums (k_v * a_c / 2m): with weights near 1e308 the sums
# overflow to inf and Q turns into nan, near 1e-308 the products underflow
# to 0.  Q and every Louvain decision are unchanged when all weights are
# multiplied by one factor, and a power of two multiplies exactly, so a
# graph whose largest weight lies outside 2**-256 .. 2**256 is rescaled to
# a largest weight in [0.5, 1) first.  Inside that range nothing changes:
# degree products stay below 2**1023 for any graph with fewer than 2**255
# edges.
SUM_SAFE_EXPONENT = 256


def sum_safe_exponent(largest: float) -> int:
    """The power of two to divide weights whose largest is ``largest`` by
    (see above): 0 inside the safe range, for no weight, or a largest that
    is not finite; else the one bringing the largest into [0.5, 1).  The
    scale goes to ``ldexp(weights, -exponent)``, which never forms
    2**-exponent (it overflows below 2**-1024)."""
    if largest == 0.0 or not math.isfinite(largest):
        return 0
    exponent = math.frexp(largest)[1]
    return 0 if -SUM_SAFE_EXPONENT <= exponent <= SUM_SAFE_EXPONENT else exponent


def sum_safe(graph: WeightedGraph, xp, resolution: float | None = None) -> WeightedGraph:
    """``graph`` itself, or its weights rescaled by a power of two so that sums
    and products of degrees neither overflow nor underflow (see above); with
    a ``resolution``, also so that the move phases' ``resolution * k_v * a_c``
    stays finite (:func:`resolution_safe`)."""
    graph = _sum_safe(graph, xp)
    return graph if resolution is None else resolution_safe(graph, resolution, xp)


def resolution_safe(graph: WeightedGraph, resolution: float, xp) -> WeightedGraph:
    """The move phases weigh a move by ``resolution * k_v * a_c / 2m``, whose
    product is at most ``resolution * (2m)**2``.  When that overflows (a
    resolution near 1e307 overflowed on the karate club: the phases then
    compared inf with finite gains and merged everything into one community,
    Q = 1 - resolution, far below the singletons' Q), the weights are
    rescaled by a power of two bringing 2m into [1, 2), which changes
    neither the partition nor Q.  A resolution for which even that
    overflows, or whose rescaling would push a weight below float64's
    normal range, is refused, naming the bound."""
    two_m = 2.0 * (float(graph.w.sum()) + float(graph.loop.sum()))
    if two_m == 0.0 or not math.isfinite(two_m) or math.isfinite(resolution * two_m * two_m):
        return graph
    limit = float(np.finfo(np.float64).max) / 4.0
    if not resolution < limit:
        raise ValueError(f"resolution {resolution!r} is too large: the move phases weigh moves "
                         f"by resolution x (degree products), which overflow float64 above "
                         f"{limit:.4g} whatever the weights' scale")
    exponent = math.frexp(two_m)[1] - 1  # 2m / 2**exponent lies in [1, 2)
    w, loop = xp.ldexp(graph.w, -exponent), xp.ldexp(graph.loop, -exponent)
    tiny = float(np.finfo(np.float64).tiny)
    for values, original in ((w, graph.w), (loop, graph.loop)):
        if bool(((values < tiny) & (original > 0)).any()):
            raise ValueError(f"resolution {resolution!r} is too large for this graph's weights: "
                             f"resolution x (2m)**2 overflows float64, and the weights scaled "
                             f"to keep it finite fall below float64's normal range; use a "
                             f"resolution below {float(np.finfo(np.float64).max) / two_m**2:.4g}")
    return WeightedGraph(graph.n, graph.lo, graph.hi, w, loop)


def _sum_safe(graph: WeightedGraph, xp) -> WeightedGraph:
    largest = 0.0
    if graph.w.shape[0]:
        largest = float(graph.w.max())
    if graph.loop.shape[0]:
        largest = max(largest, float(graph.loop.max()))
    exponent = sum_safe_exponent(largest)
    if exponent == 0:
        return graph
    return WeightedGraph(graph.n, graph.lo, graph.hi, xp.ldexp(graph.w, -exponent),
                         xp.ldexp(graph.loop, -exponent))


def require_finite_weights(graph: WeightedGraph, xp, what: str) -> WeightedGraph:
    """Raise when summing merged edges overflowed float64 (weights near 1e308)."""
    for name, values in (("edge", graph.w), ("self-loop", graph.loop)):
        finite = xp.isfinite(values)
        if not bool(finite.all()):
            count = int((~finite).sum())
            raise ValueError(
                f"{what}: {count} coarse {name} weight(s) overflow float64 (above "
                f"{np.finfo(np.float64).max:.4g}) when the weights of merged edges are summed; "
                f"the total weight is preserved by contraction, so scale the weights down "
                f"until it stays below that")
    return graph


def contract_graph(graph: WeightedGraph, group, k: int, xp) -> WeightedGraph:
    """Merge the vertices of each group (``group[v]`` in ``0..k-1``) into one:
    edges inside a group add to its self-loop, parallel edges sum; the total
    weight is preserved.  The result's edges are sorted by (hi, lo)."""
    bits = max(bit_width(max(k - 1, 0)), 1)
    if is_host(xp) and 2 * bits <= 64:
        return _contract_host(graph, group, k, bits)
    cu, cv = group[graph.lo], group[graph.hi]
    inside = cu == cv
    loop = xp.bincount(group, weights=graph.loop, minlength=k)[:k] if graph.n else \
        xp.zeros(k, dtype=np.float64)
    if bool(inside.any()):
        loop = loop + xp.bincount(cu[inside], weights=graph.w[inside], minlength=k)[:k]
    across = ~inside
    lo, hi, summed = merge_parallel_edges(cu[across], cv[across], graph.w[across], k, xp)
    return WeightedGraph(k, lo, hi, summed, loop.astype(np.float64))


def _contract_host(graph: WeightedGraph, group, k: int, bits: int) -> WeightedGraph:
    """:func:`contract_graph` on the host: one parallel pass to the groups'
    pair keys (an edge inside a group keyed as the group's self-loop), one
    sort carrying the weights, one summing walk."""
    shift = np.uint64(bits)
    loop = np.bincount(group, weights=graph.loop, minlength=k)[:k].astype(np.float64) \
        if graph.n else np.zeros(k, dtype=np.float64)
    m = int(graph.lo.shape[0])
    keys = np.empty(m, dtype=np.uint64)
    host.coarse_pair_keys(graph.lo, graph.hi, group, shift, keys)
    pairs, summed = sort_carrying(keys, graph.w.astype(np.float64, copy=False), 2 * bits)
    del keys
    distinct = host.sum_sorted_weighted(pairs, summed, pairs, summed)  # in place
    ids = index_dtype(k)
    lo = np.empty(distinct, dtype=ids)
    hi = np.empty(distinct, dtype=ids)
    host.split_pairs(pairs[:distinct], shift, lo, hi)
    inside = lo == hi  # a group's own pair: its edges become its self-loop
    if inside.any():
        loop[lo[inside]] += summed[:distinct][inside]
        keep = ~inside
        return WeightedGraph(k, lo[keep], hi[keep], summed[:distinct][keep], loop)
    return WeightedGraph(k, lo, hi, summed[:distinct].copy(), loop)


def merge_parallel_edges(a, b, w, k: int, xp):
    """Edges ``(a[i], b[i])`` (no loops; ids below ``k``) with parallel edges
    merged into one carrying their summed weight: (lo, hi, weight), sorted by
    (hi, lo)."""
    lo = xp.minimum(a, b)
    hi = xp.maximum(a, b)
    bits = max(bit_width(max(k - 1, 0)), 1)
    ids = index_dtype(k)
    if 2 * bits > 64:
        first_pass = stable_argsort_xp(lo, xp)
        order = first_pass[stable_argsort_xp(hi[first_pass], xp)]
        lo, hi, w = lo[order], hi[order], w[order]
        first = xp.ones(lo.shape[0], dtype=bool)
        first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
        group_of = xp.cumsum(first) - 1
        distinct = int(first.sum())
        summed = bincount_xp(group_of, xp, w, distinct)[:distinct]  # no edge: empty
        return lo[first].astype(ids), hi[first].astype(ids), summed.astype(np.float64)
    keys = (hi.astype(np.uint64) << np.uint64(bits)) | lo.astype(np.uint64)
    if is_host(xp):
        pair, summed = sort_carrying(keys, w.astype(np.float64, copy=False), 2 * bits)
        count = host.sum_sorted_weighted(pair, summed, pair, summed)  # in place
        pair, summed = pair[:count], summed[:count]
    else:
        order = stable_argsort_xp(keys, xp)
        keys = keys[order]
        first = xp.ones(keys.shape[0], dtype=bool)
        first[1:] = keys[1:] != keys[:-1]
        group_of = xp.cumsum(first) - 1
        pair = keys[first]
        summed = bincount_xp(group_of, xp, w[order], int(pair.shape[0]))  # no edge: empty
    mask = np.uint64((1 << bits) - 1)
    return (pair & mask).astype(ids), (pair >> np.uint64(bits)).astype(ids), \
        summed.astype(np.float64)


def find_edges(edges: UndirectedEdges, a, b, xp):
    """Whether each pair ``(a[i], b[i])`` is an edge, and the edge's position.

    A binary search of the pair keys, which the canonical (hi, lo) order keeps
    sorted; positions of pairs that are not edges are meaningless.
    """
    lo = xp.minimum(a, b).astype(np.int64)
    hi = xp.maximum(a, b).astype(np.int64)
    count = int(lo.shape[0])
    if edges.num_edges == 0 or count == 0:
        return xp.zeros(count, dtype=bool), xp.zeros(count, dtype=np.int64)
    bits = max(bit_width(max(edges.n - 1, 0)), 1)
    if 2 * bits <= 64:
        shift = np.uint64(bits)
        edge_keys = (edges.hi.astype(np.uint64) << shift) | edges.lo.astype(np.uint64)
        keys = (hi.astype(np.uint64) << shift) | lo.astype(np.uint64)
        at = xp.minimum(xp.searchsorted(edge_keys, keys), edges.num_edges - 1)
        return edge_keys[at] == keys, at.astype(np.int64)
    # more than 2**32 vertices: search hi's block, then lo inside it
    e_lo = to_host(edges.lo).astype(np.int64)
    e_hi = to_host(edges.hi).astype(np.int64)
    q_lo, q_hi = to_host(lo), to_host(hi)
    found = np.zeros(count, dtype=bool)
    at = np.zeros(count, dtype=np.int64)
    start = np.searchsorted(e_hi, q_hi, side="left")
    stop = np.searchsorted(e_hi, q_hi, side="right")
    for i in range(count):
        j = start[i] + int(np.searchsorted(e_lo[start[i]:stop[i]], q_lo[i]))
        if j < stop[i] and e_lo[j] == q_lo[i]:
            found[i], at[i] = True, j
    return xp.asarray(found), xp.asarray(at)


def to_host(array):
    return array.get() if hasattr(array, "get") else np.asarray(array)
