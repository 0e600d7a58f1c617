"""Maximal matching for graph coarsening: handshake (Fagginger Auer & Bisseling) or Suitor."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..structure.checks import check_flag, check_positive_int, check_seed
from ..structure.graph import Graph, as_graph
from ..structure.inputs import DEFAULT_WEIGHT
from .mates import mates_frame

METHODS = ("handshake", "suitor")


def maximal_matching(graph: Any, method: str = "handshake", weighted: bool = True, seed: int = 0,
                     source: str = "src", destination: str = "dst",
                     weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
                     low_degree_first: bool = True, max_rounds: int = 1000):
    """A maximal matching, fast, for coarsening: every edge gets a matched end.

    ``method="handshake"`` is Fagginger Auer & Bisseling's GPU algorithm.
    Each round, every unmatched vertex is coloured blue (probability 0.534)
    or red by a hash of its id and the round; blue vertices propose to a red
    unmatched neighbour, each red vertex accepts one proposal, and mutual
    pairs match; a vertex with no unmatched neighbour left is done.  Rounds
    repeat until every vertex is matched or done.  With ``weighted=True``
    proposals and acceptances take the heaviest edge (ties as in
    :func:`~cugraph_match.suitor_matching`), otherwise a random one: by
    default random among the neighbours of smallest degree, see
    ``low_degree_first``.  The result depends only on the graph and
    ``seed``: both backends give the same matching.

    ``method="suitor"`` returns :func:`~cugraph_match.suitor_matching` (the
    ½-approximate greedy matching, also maximal); with ``weighted=False`` it
    ignores the weights, and ``seed`` is unused.

    Parameters
    ----------
    graph : cm.Graph, cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The graph, taken as undirected, as in :func:`~cugraph_match.suitor_matching`.
    method : {"handshake", "suitor"}
    weighted : bool
        Prefer heavy edges (heavy-edge matching) or choose uniformly at random.
    seed : int
        Seed of the colourings and random choices.
    source, destination, weight : str
        Edge-list column names, as in :func:`~cugraph_match.suitor_matching`.
    backend : {"auto", "gpu", "cpu"}
    low_degree_first : bool
        For ``weighted=False``: choose among the neighbours of smallest
        degree (random among those), rather than uniformly as in the paper.
        A vertex with few neighbours has few other chances, so this keeps
        the matching as large as serial random greedy on skewed graphs: on
        the 15 graphs in ``shared/data/graphs`` (3 seeds) the paper's
        uniform rule reached 0.91-1.00 of the serial size, this rule
        0.98-1.16.  It reads only the static degrees, so rounds stay
        independent.
    max_rounds : int
        Guard on the handshake rounds (each round matches a constant fraction
        of what remains, so a few dozen suffice); exceeding it raises.

    Returns
    -------
    DataFrame
        ``vertex | mate | weight``, as in :func:`~cugraph_match.suitor_matching`.

    Examples
    --------
    >>> import cugraph_match as cm
    >>> karate = cm.datasets.load("karate")
    >>> mm = cm.maximal_matching(karate, seed=1, backend="cpu")
    >>> cm.is_matching(karate, mm, maximal=True)
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    seed = check_seed(seed)
    weighted = check_flag(weighted, "weighted")
    low_degree_first = check_flag(low_degree_first, "low_degree_first")
    check_positive_int(max_rounds, "max_rounds")
    g = as_graph(graph, source, destination, weight, backend)
    mate = maximal_mates(g, method, weighted, seed, max_rounds, low_degree_first=low_degree_first)
    return mates_frame(g, mate)


def maximal_mates(graph: Graph, method: str, weighted: bool, seed: int,
                  max_rounds: int = 1000, low_degree_first: bool = True):
    """``mate`` array (-1 unmatched) of a maximal matching of a prepared graph.

    Handshake choices, heavy-edge or random, scan whole rows (as the paper's
    kernels do), so they read the neighbour rows and never pay for a weight
    sort.  Suitor walks rows in preference order; with ``weighted=False`` as
    if every weight were 1.
    """
    xp = graph.backend.xp
    if method == "suitor":
        from .suitor import suitor_mates

        return suitor_mates(graph, weighted=weighted)[0]
    rows = graph.neighbour_csr()
    weights = rows.weights if rows.weights is not None else xp.zeros(0, dtype=np.float32)
    if graph.backend.name == "gpu":
        from .maximal_gpu import handshake_mates_gpu

        mate, _ = handshake_mates_gpu(rows.offsets, rows.indices, weights, xp, weighted,
                                      int(seed), max_rounds, low_degree=low_degree_first)
        return mate
    from .maximal_cpu import handshake_mates_cpu

    mate, _ = handshake_mates_cpu(rows.offsets, rows.indices, weights, weighted, int(seed),
                                  max_rounds, low_degree=low_degree_first)
    return mate
