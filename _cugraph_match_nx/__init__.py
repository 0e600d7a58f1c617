"""NetworkX's ``networkx.backend_info`` entry point for the ``cugraph_match`` backend.

NetworkX calls :func:`get_info` while ``import networkx`` runs, for every
installed backend.  This module therefore lives outside the ``cugraph_match``
package and imports nothing but the standard library: importing
``cugraph_match`` would pull in NumPy, pandas and Numba on every
``import networkx``.  The backend itself (``cugraph_match.nx``) is loaded
only when a call is dispatched to it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_DECLINED = (
    "Declined: this is an exact algorithm (a maximum-weight matching) and "
    "cugraph_match has no exact method, only the greedy 1/2-approximation "
    "(``cugraph_match.suitor_matching``).  ``can_run`` refuses every call, "
    "so NetworkX runs its own implementation (with ``fallback_to_nx`` or "
    "``NETWORKX_BACKEND_PRIORITY``); ``backend='cugraph_match'`` raises "
    "NotImplementedError."
)

_FUNCTIONS = {
    "maximal_matching": (
        "Exactly NetworkX's matching: the greedy matching that scans "
        "``G.edges()`` in order, computed by the Suitor algorithm with each "
        "edge's weight set to its place in that order.  Same set, same "
        "``(u, v)`` orientation."
    ),
    "min_maximal_matching": (
        "Returns exactly what NetworkX returns: ``maximal_matching(G)``, the "
        "greedy maximal matching in ``G.edges()`` order (any maximal matching "
        "is at most twice the minimum maximal matching)."
    ),
    "is_matching": "Vectorised check; NetworkX's order of checks and its exceptions.",
    "is_maximal_matching": "Vectorised check; NetworkX's order of checks and its exceptions.",
    "is_perfect_matching": "Vectorised check; NetworkX's order of checks and its exceptions.",
    "max_weight_matching": _DECLINED,
    "min_weight_matching": _DECLINED,
    "louvain_communities": (
        "cugraph_match's Louvain kernels (GPU: degree-bucketed move phase and "
        "hash-based contraction; CPU: sequential moves in a seeded random order) "
        "with NetworkX's level rules: each level moves vertices until a pass "
        "moves none, levels stop when the gain is at most ``threshold``.  The "
        "visiting order comes from ``seed`` but is not NetworkX's, so the "
        "partition for a given seed differs from NetworkX's (equally valid).  "
        "Directed graphs are declined (NetworkX uses directed modularity)."
    ),
    "louvain_partitions": "As ``louvain_communities``, one partition per level.",
    "leiden_communities": (
        "cugraph_match's Leiden (NetworkX has none of its own): Louvain's move "
        "phase, a refinement into well-connected sub-communities and aggregation "
        "on the refined partition, iterated while it gains; every community is "
        "connected.  ``seed`` seeds the CPU's visiting orders and refinement."
    ),
    "leiden_partitions": (
        "As ``leiden_communities``, one partition per level, each community "
        "connected."
    ),
    "modularity": (
        "Vectorised; directed graphs, multigraphs and self-loops as in NetworkX. "
        "Sums are in a different order, so results may differ in the last bits."
    ),
    "partition_quality": "Vectorised; exact integer counts, so results equal NetworkX's.",
    "is_partition": "Vectorised; NetworkX's semantics.",
}


_FULL_MATCHING = (
    "The exact assignment solver (``cugraph_match.assignment``) on the edges between "
    "NetworkX's two node sets (``bipartite.sets``: ``top_nodes``, or the colour classes of "
    "a connected graph), as a sparse edge list: no dense ``|U| x |V|`` matrix.  NetworkX's "
    "errors (``AmbiguousSolution``, not bipartite, ``ValueError`` when no full matching "
    "exists).  Among equally light full matchings the one returned may differ from SciPy's.  "
    "Directed graphs, multigraphs and NaN/infinite weights are left to NetworkX."
)


def _has_assignment() -> bool:
    """Whether the installed package has the exact assignment solver, found
    without importing it (``find_spec`` of a top-level package only locates it)."""
    try:
        spec = importlib.util.find_spec("cugraph_match")
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False
    locations = list(getattr(spec, "submodule_search_locations", None) or []) if spec else []
    return any((Path(p) / "bipartite" / "assignment.py").is_file() for p in locations)


def get_info() -> dict:
    """What NetworkX shows about this backend (``networkx.utils.backends.backend_info``).

    Returns
    -------
    dict
        ``backend_name``, ``project``, ``package``, ``short_summary``,
        ``default_config`` and, per dispatched function, ``additional_docs``.

    Examples
    --------
    >>> info = get_info()
    >>> info["backend_name"], "maximal_matching" in info["functions"]
    ('cugraph_match', True)
    """
    functions = dict(_FUNCTIONS)
    if _has_assignment():  # registered only where cm.assignment exists
        functions["minimum_weight_full_matching"] = _FULL_MATCHING
    return {
        "backend_name": "cugraph_match",
        "project": "cugraph_match",
        "package": "cugraph_match",
        "short_summary": "Matching, Louvain and Leiden on the GPU (CuPy + numba.cuda) or the CPU (numba).",
        "functions": {name: {"additional_docs": docs} for name, docs in functions.items()},
        # ``nx.config.backends.cugraph_match``, read on every call:
        # device: "auto" (the GPU when usable), "cpu" or "gpu";
        # threads: Numba's CPU threads, "auto" (one below a million edges) or a number.
        "default_config": {"device": "auto", "threads": "auto"},
    }
