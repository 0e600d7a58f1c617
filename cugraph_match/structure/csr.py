"""Compressed sparse rows of an undirected edge set, in the two orders the
algorithms read.

* :func:`neighbour_csr` — every edge in both rows, each row sorted by
  neighbour id, with the weights beside.  For the algorithms that look at a
  whole row anyway (Louvain, modularity, random handshake choices) and for
  checking matchings: it costs no weight sort.
* :func:`preference_csr` — every row best edge first: heavier first and, at
  equal weight, the edge with the larger ``(max(u, v), min(u, v))``, the
  tie order of the whole project.  With rows in this order Suitor,
  locally-dominant, b-Suitor and heavy-edge handshakes find a vertex's best
  remaining candidate by advancing a pointer, so each reads a row about
  once (O(m)) instead of rescanning it per proposal (O(m·Δ)).  Each entry
  carries its edge's *key*: the edge's place in the greedy order counted
  from the end (``m`` for the heaviest edge, 1 for the lightest), unique per
  edge, so an offer ``key << 32 | proposer`` compares edges with one
  integer comparison and no tie rule.  ``weight_of_key`` maps a key back
  to its edge's weight.

Building it costs one stable sort of the edges by weight (none when the
graph is unweighted) and one pass that scatters both directions of every
edge in greedy order; rows then come out sorted without any per-row sort.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from . import pipeline_cpu as host
from .edges import UndirectedEdges, index_dtype, is_host
from .sort_xp import stable_argsort_xp
from .sort_cpu import (bit_width, order_key, sort_carrying, stable_argsort,
                       weights_of_order_keys)

# Offer words pack a key above a 32-bit vertex id and the GPU moves them
# through signed 64-bit shuffles, so keys (at most the edge count) stay
# below 2**31.
MAX_KEYED_EDGES = 2**31 - 1


@dataclass
class NeighbourCSR:
    offsets: Any  # int32/int64, n + 1
    indices: Any  # int32/int64, 2m
    weights: Any  # caller's weight dtype, 2m; None when unweighted


@dataclass
class PreferenceCSR:
    offsets: Any  # int32/int64, n + 1
    indices: Any  # int32/int64, 2m, every row best first
    keys: Any  # uint32, 2m: the entry's edge key (1..m, larger is better)
    weight_of_key: Any  # weights, m + 1: weight_of_key[key] (entry 0 unused); None when unweighted

    def weights(self, keys, xp):
        """The weight of the edges holding ``keys`` (float32 ones when unweighted)."""
        if self.weight_of_key is None:
            return xp.ones(keys.shape[0], dtype=np.float32)
        return self.weight_of_key[keys]


def _offsets(edges: UndirectedEdges, xp):
    n = edges.n
    nnz = 2 * edges.num_edges
    dtype = index_dtype(nnz)
    if is_host(xp):
        offsets = np.empty(n + 1, dtype=dtype)
        host.row_offsets(edges.lo, edges.hi, n, offsets)
        return offsets
    counts = xp.bincount(edges.lo, minlength=n) + xp.bincount(edges.hi, minlength=n) \
        if edges.num_edges else xp.zeros(n, dtype=np.int64)
    offsets = xp.zeros(n + 1, dtype=dtype)
    offsets[1:] = xp.cumsum(counts[:n])
    return offsets


def neighbour_csr(edges: UndirectedEdges, xp) -> NeighbourCSR:
    """Rows sorted by neighbour id (see the module notes)."""
    offsets = _offsets(edges, xp)
    nnz = 2 * edges.num_edges
    ids = index_dtype(edges.n)
    if is_host(xp):
        indices = np.empty(nnz, dtype=ids)
        weights = np.empty(nnz if edges.w is not None else 0,
                           dtype=edges.w.dtype if edges.w is not None else np.float32)
        host.scatter_rows(edges.lo, edges.hi,
                          edges.w if edges.w is not None else np.empty(0, dtype=np.float32),
                          offsets, indices, weights, scatter_chunks(edges))
        return NeighbourCSR(offsets, indices, weights if edges.w is not None else None)
    from . import pipeline_gpu as dev

    packed = _place_keys(edges.lo, edges.hi, edges.n, xp)
    indices = xp.empty(nnz, dtype=ids)
    weights = xp.empty(nnz if edges.w is not None else 0,
                       dtype=edges.w.dtype if edges.w is not None else np.float32)
    dev.launch(dev.decode_neighbours, nnz, xp, packed, edges.lo, edges.hi,
               edges.w if edges.w is not None else dev.empty_weights(xp), indices, weights)
    return NeighbourCSR(offsets, indices, weights if edges.w is not None else None)


def _place_keys(lo, hi, n: int, xp):
    """``row << 32 | p`` for both directions of every edge p, sorted: the rows
    grouped and each row in order of p, by one radix sort of one word per
    entry (no index array, no stable sort of a second key)."""
    from . import pipeline_gpu as dev

    m = int(lo.shape[0])
    if n > 2**32 or m > 2**32:
        raise ValueError(f"the device rows take fewer than 2**32 vertices and edges, "
                         f"got {n} and {m}")
    packed = xp.empty(2 * m, dtype=np.uint64)
    dev.launch(dev.place_keys, m, xp, lo, hi, packed)
    packed.sort()
    return packed


def ascending_weight_order(edges: UndirectedEdges, xp):
    """Edge positions by ascending weight, ties in canonical (hi, lo) order;
    ``None`` for an unweighted graph (the canonical order itself)."""
    if edges.w is None or edges.num_edges == 0:
        return None
    if is_host(xp):
        keys, bits = order_key(edges.w)
        return stable_argsort(keys, bits)
    w = edges.w
    if w.dtype == np.float32:
        keys = w.view(np.uint32)
    elif w.dtype == np.float64:
        keys = w.view(np.uint64)
    else:
        keys = w.astype(np.uint64)
    return stable_argsort_xp(keys, xp)


def preference_csr(edges: UndirectedEdges, xp) -> PreferenceCSR:
    """Rows best edge first, with edge keys (see the module notes)."""
    m = edges.num_edges
    if m > MAX_KEYED_EDGES:
        raise ValueError(f"the matching kernels take at most {MAX_KEYED_EDGES} undirected "
                         f"edges, the graph has {m}")
    offsets = _offsets(edges, xp)
    ids = index_dtype(edges.n)
    table = None
    if is_host(xp):
        return _preference_csr_host(edges, offsets, ids)
    from . import pipeline_gpu as dev

    ascending = ascending_weight_order(edges, xp)
    if ascending is None:  # unweighted: the canonical order is the ascending order
        greedy = xp.arange(m - 1, -1, -1, dtype=np.int64)
        if edges.w is not None:  # weighted, but no edge
            table = xp.zeros(1, dtype=edges.w.dtype)
    else:
        greedy = ascending[::-1]
        # key i + 1 is the i-th lightest edge, so the table is the sorted weights
        table = xp.empty(m + 1, dtype=edges.w.dtype)
        table[0] = 0
        table[1:] = edges.w[ascending]
    lo, hi = edges.lo[greedy], edges.hi[greedy]
    del greedy, ascending
    packed = _place_keys(lo, hi, edges.n, xp)
    indices = xp.empty(2 * m, dtype=ids)
    keys = xp.empty(2 * m, dtype=np.uint32)
    dev.launch(dev.decode_preference, 2 * m, xp, packed, lo, hi, indices, keys)
    return PreferenceCSR(offsets, indices, keys, table)


def scatter_chunks(edges: UndirectedEdges) -> int:
    """How many stretches of the edges scatter into rows at once: one per
    thread, while their per-row cursor arrays (one n-array each) stay within
    the edge count."""
    return max(1, min(numba.get_num_threads(), edges.num_edges // max(edges.n, 1)))


def _preference_csr_host(edges: UndirectedEdges, offsets, ids) -> PreferenceCSR:
    """The host build: one stable sort of the edges' weight keys carrying their
    pair keys (no gathers through a permutation), then the parallel scatter
    of ``pipeline_cpu.scatter_preference_pairs``.  The sorted weights are the
    key -> weight table as they stand: key ``i + 1`` is the i-th lightest edge."""
    m, n = edges.num_edges, edges.n
    bits = max(bit_width(max(n - 1, 0)), 1)
    pairs = np.empty(m, dtype=np.uint64)
    host.join_pairs(edges.lo, edges.hi, np.uint64(bits), pairs)
    table = None
    if edges.w is not None:  # unweighted: the canonical order is the ascending order
        keys, key_bits = order_key(edges.w)
        sorted_keys, pairs = sort_carrying(keys, pairs, key_bits)
        table = np.empty(m + 1, dtype=edges.w.dtype)
        table[0] = 0
        table[1:] = weights_of_order_keys(sorted_keys, edges.w.dtype)
    indices = np.empty(2 * m, dtype=ids)
    keys_out = np.empty(2 * m, dtype=np.uint32)
    host.scatter_preference_pairs(pairs, np.uint64(bits), offsets, indices, keys_out,
                                  scatter_chunks(edges))
    return PreferenceCSR(offsets, indices, keys_out, table)


def greedy_order(edges: UndirectedEdges, xp):
    """Edge positions in greedy order: heaviest first, ties to the larger
    ``(hi, lo)`` (the order in which sequential greedy matching takes them)."""
    ascending = ascending_weight_order(edges, xp)
    if ascending is None:
        return xp.arange(edges.num_edges - 1, -1, -1, dtype=np.int64)
    return ascending[::-1]

