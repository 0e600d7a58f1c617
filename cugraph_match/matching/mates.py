"""From the kernels' state to the ``vertex | mate | weight`` frame.

The matching kernels leave a ``mate`` array (-1 when unmatched), or Suitor's
offer words ``key << 32 | proposer``; the weight of a matched edge comes
from its key (:class:`~cugraph_match.structure.csr.PreferenceCSR`), so no
pass over the weights is needed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..structure.bipartite import linked_pairs_of_mates
from ..structure.graph import Graph
from ..structure.output import matching_frame

_LOW = np.uint64(0xFFFFFFFF)


def mates_from_offers(offer, xp):
    """Suitor state -> mates: u and v are matched iff each holds the other's offer."""
    has = offer != 0
    suitor = (offer & np.uint64(0xFFFFFFFF)).astype(np.int64)
    suitor = xp.where(has, suitor, -1)
    back = suitor[xp.where(has, suitor, 0)]
    n = offer.shape[0]
    mutual = has & (back == xp.arange(n, dtype=np.int64))
    return xp.where(mutual, suitor, -1)


@njit(cache=True, nogil=True)
def mates_from_offers_cpu(offer):
    """:func:`mates_from_offers` in one pass (NumPy's eight passes dominate on small graphs)."""
    n = offer.shape[0]
    mate = np.full(n, -1, dtype=np.int64)
    for u in range(n):
        if offer[u] != 0:
            s = np.int64(offer[u] & _LOW)
            if np.int64(offer[s] & _LOW) == u and offer[s] != 0:
                mate[u] = s
    return mate


@njit(cache=True, nogil=True, parallel=True)
def mate_entries_cpu(offsets, indices, mate):
    """CSR position of the entry (v, mate[v]) per vertex (-1 when unmatched).

    A vertex's mate sits near the front of its preference-ordered row, so
    scanning the row is cheaper than any whole-CSR pass.
    """
    n = mate.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for v in prange(n):
        if mate[v] >= 0:
            for j in range(offsets[v], offsets[v + 1]):
                if indices[j] == mate[v]:
                    out[v] = j
                    break
    return out


def mate_entries(offsets, indices, mate, xp):
    """:func:`mate_entries_cpu` on either backend (whole-array operations on the GPU)."""
    if xp is np:
        return mate_entries_cpu(offsets, indices, mate)
    from ..structure.output import row_ids

    rows = row_ids(offsets, xp)
    hit = xp.flatnonzero(indices == mate[rows])
    out = xp.full(mate.shape[0], -1, dtype=np.int64)
    out[rows[hit]] = hit
    return out


def mate_weights(graph: Graph, mate):
    """Weight of the edge (v, mate[v]) per vertex (any value when unmatched),
    from whichever rows the graph has built already (preference rows and
    their keys, or neighbour rows and their weights)."""
    xp = graph.backend.xp
    if not graph.weighted:
        return xp.ones(mate.shape[0], dtype=np.float32)
    if graph.num_edges == 0:  # nobody matched: only the weights' dtype is read
        return xp.zeros(mate.shape[0], dtype=graph.preference_csr().weight_of_key.dtype)
    if "preference" in graph._cache or "neighbour" not in graph._cache:
        pref = graph.preference_csr()
        entry = mate_entries(pref.offsets, pref.indices, mate, xp)
        keys = xp.where(entry >= 0, pref.keys[xp.maximum(entry, 0)], 0).astype(np.int64)
        return pref.weights(keys, xp)
    rows = graph.neighbour_csr()
    entry = mate_entries(rows.offsets, rows.indices, mate, xp)
    return rows.weights[xp.maximum(entry, 0)]


def weights_of_keys(graph: Graph, keys):
    """Weights of the edges holding ``keys`` in the graph's preference rows."""
    xp = graph.backend.xp
    return graph.preference_csr().weights(keys.astype(np.int64), xp)


def mates_frame(graph: Graph, mate, weight=None, unmatched: str = "drop"):
    """The ``vertex | mate | weight`` frame of a ``mate`` array (-1 unmatched);
    ``weight`` per vertex when known, else looked up (:func:`mate_weights`).
    A two-sided graph gives its linked pairs instead (``unmatched`` as
    :func:`~cugraph_match.structure.bipartite.linked_pairs_frame` says)."""
    if weight is None:
        weight = mate_weights(graph, mate)
    if graph.bipartite:
        return linked_pairs_of_mates(graph.sides, mate, weight, unmatched, graph.backend.xp)
    return matching_frame(graph.labels, graph.frame_lib, mate, weight)
