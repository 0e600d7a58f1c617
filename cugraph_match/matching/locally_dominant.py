"""½-approximate weighted matching by locally-dominant edges."""

from __future__ import annotations

from typing import Any

from ..structure.checks import check_launch
from ..structure.bipartite import check_bipartite_flag, check_unmatched
from ..structure.graph import as_graph
from ..structure.inputs import DEFAULT_WEIGHT, is_distributed_input, check_stats
from .mates import mates_frame


def locally_dominant_matching(graph: Any, source: str = "src", destination: str = "dst",
                              weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
                              threads_per_block: int = 128, return_stats: bool = False, *,
                              bipartite: bool = False, unmatched: str = "drop"):
    """Greedy weighted matching computed in bulk-synchronous locally-dominant rounds.

    Every unmatched vertex points at its heaviest unmatched neighbour; mutual
    pointers are matched; only vertices whose candidate got matched look
    again.  The result is exactly the greedy matching, the same as
    :func:`suitor_matching` (this is what cuGraph's C++
    ``approximate_weighted_matching`` does).

    Parameters
    ----------
    graph, source, destination, weight, backend
        As in :func:`suitor_matching` (a :class:`~cugraph_match.Graph` too).
    threads_per_block : int
        GPU launch configuration; it never changes the result.
    return_stats : bool
        Dask input only: also return the run's figures (supersteps, messages
        and bytes moved per superstep, the build's cut edges and bytes).
    bipartite, unmatched
        Two tables (two id spaces), as in :func:`suitor_matching`.

    Returns
    -------
    DataFrame
        ``vertex | mate | weight``, as in :func:`suitor_matching`; with
        ``bipartite=True`` the linked pairs.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> edges = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "d"]})
    >>> cm.locally_dominant_matching(edges, backend="cpu")["mate"].tolist()
    ['b', 'a', 'd', 'c']
    """
    check_launch(threads_per_block, whole_warps=True)
    bipartite = check_bipartite_flag(bipartite) or getattr(graph, "bipartite", False) is True
    unmatched = check_unmatched(unmatched, bipartite)
    return_stats = check_stats(return_stats, graph)
    if is_distributed_input(graph):
        if bipartite:
            from ..dask.bipartite import two_sided_dask

            return two_sided_dask(graph, source, destination, weight, backend, return_stats,
                                  unmatched)
        from ..dask.matching import matching_dask

        return matching_dask(graph, source, destination, weight, backend, return_stats)
    g = as_graph(graph, source, destination, weight, backend, bipartite=bipartite)
    pref = g.preference_csr()
    # Rows arrive in preference order, so the kernels need no weight keys.
    if g.backend.name == "gpu":
        from .locally_dominant_gpu import locally_dominant_mates_gpu

        mate, _ = locally_dominant_mates_gpu(pref.offsets, pref.indices, g.backend.xp,
                                             threads_per_block=threads_per_block)
    else:
        from .locally_dominant_cpu import locally_dominant_mates

        mate, _ = locally_dominant_mates(pref.offsets, pref.indices)
    return mates_frame(g, mate, unmatched=unmatched)
