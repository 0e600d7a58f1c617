"""The object NetworkX loads for ``backend="cugraph_match"`` (entry point
``networkx.backends``): conversions, ``can_run``/``should_run`` and one
attribute per dispatched function, under NetworkX's dispatch name.

NetworkX calls a backend function with the arguments of its own signature
(bound, defaults applied), the graph replaced by the converted
:class:`~cugraph_match.nx.graph.NxGraph`.  A NotImplementedError raised by a
function or by the conversion sends the call back to NetworkX when fallback
is on (``nx.config.fallback_to_nx`` or a backend priority list that reaches
NetworkX).
"""

from __future__ import annotations

import math
import numbers
from contextlib import contextmanager

from ..structure.backend import numba_threads
from . import bipartite as _bipartite
from . import community as _community
from . import leiden as _leiden
from . import matching as _matching
from .config import config_value, device as configured_device
from .graph import BACKEND_NAME, NxGraph, from_networkx, to_networkx

# Automatic dispatch (``NETWORKX_BACKEND_PRIORITY``) leaves graphs below these
# sizes to NetworkX: there its pure-Python loop finishes before our conversion
# (a pass over the adjacency dicts) and kernels.  Measured whole calls,
# conversion included, on the 2-core test machine (2026-11-23): Louvain wins
# from ~50 edges (karate 1.7x), modularity from ~300, maximal_matching,
# is_maximal_matching and partition_quality, single passes in NetworkX too,
# from ~1,000 (1.4-1.7x at 3,000 edges).
SMALL_GRAPH_EDGES = {
    "louvain_communities": 50,
    "louvain_partitions": 50,
    "modularity": 300,
    "maximal_matching": 1_000,
    "min_maximal_matching": 1_000,
    "is_maximal_matching": 1_000,
    "partition_quality": 1_000,
}
# NetworkX reads only the matching's (or the partition's) nodes for these;
# converting the whole graph pays only when it is converted already.
READS_ONLY_ITS_ARGUMENT = {"is_matching", "is_perfect_matching", "is_partition"}

DECLINED = {
    "max_weight_matching": (
        "max_weight_matching is exact (Edmonds' blossom algorithm); cugraph_match has only the "
        "greedy 1/2-approximation (suitor_matching), so NetworkX must compute it"),
    "min_weight_matching": (
        "min_weight_matching is exact (a maximum-weight matching underneath); cugraph_match has "
        "only the greedy 1/2-approximation, so NetworkX must compute it"),
}


# The CPU Louvain's move phases are sequential; its row builds and contractions
# run Numba parallel regions, whose start costs more than they save on small
# graphs: karate-sized graphs took 400 ms with 2 threads and 2 ms with one on
# the 2-core test machine under load, R-MAT 16 (0.9 M edges) 2.4 s and 2.0 s.
SINGLE_THREAD_BELOW_EDGES = 1_000_000


@contextmanager
def _cpu_threads(G):
    """Numba's thread count for one call: ``nx.config.backends.cugraph_match.threads``
    ("auto": one thread below :data:`SINGLE_THREAD_BELOW_EDGES` edges, else
    Numba's default; or a number)."""
    threads = config_value("threads", "auto")
    if threads == "auto":
        threads = 1 if _number_of_edges(G) < SINGLE_THREAD_BELOW_EDGES else None
    with numba_threads(threads):
        yield


def _steps_with(context, generator):
    """``generator``'s items, each computed inside ``context()`` (and the caller's
    code between them outside it)."""
    while True:
        with context():
            try:
                item = next(generator)
            except StopIteration:
                return
        yield item


def _graph_argument(args, kwargs):
    return args[0] if args else kwargs.get("G")


def _argument(name: str, position: int, args, kwargs, default):
    if len(args) > position:
        return args[position]
    return kwargs.get(name, default)


def _real_reason(name: str, value) -> str | None:
    """None for a finite real number (one a float can hold), else the reason."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return f"{name}={value!r} is not a finite real number"
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int beyond float's range (10**400); no repr: it may be huge
        bits = int(abs(value)).bit_length()
        return (f"{name} is too large for a float (about 2**{bits - 1} in magnitude; "
                f"cugraph_match computes in floating point); left to NetworkX")
    return None if finite else f"{name}={value!r} is not a finite real number"


MATCHING_FUNCTIONS = ("maximal_matching", "min_maximal_matching", "is_matching",
                      "is_maximal_matching", "is_perfect_matching")
NAN_NODE = ("a node not equal to itself (NaN): NetworkX does not see its self-loop as one "
            "(u != v), which the backend's node positions cannot reproduce; left to NetworkX")


def _has_nan_node(G) -> bool:
    """Whether a node x has x != x (a float NaN, say)."""
    nodes = G.nodes if isinstance(G, NxGraph) else G
    return any(map(_not_self_equal, nodes))


def _not_self_equal(x) -> bool:
    try:
        return bool(x != x)
    except Exception:  # a node whose != raises or is not a truth value: NetworkX decides
        return True


def _weight_reason(weight) -> str | None:
    if weight is None or isinstance(weight, str):
        return None
    return (f"weight={weight!r}: cugraph_match takes an edge attribute name (or None), "
            f"not a callable or other object")


def _is_graph(G) -> bool:
    import networkx as nx

    return isinstance(G, (nx.Graph, NxGraph))


def _number_of_edges(G) -> int:
    try:
        return int(G.number_of_edges())
    except Exception:  # pragma: no cover - a graph-like object without it
        return 0


def _full_matching_reason(G, weight) -> str | bool:
    """Why ``minimum_weight_full_matching`` is left to NetworkX, or True."""
    if _bipartite.solver() is None:
        return "minimum_weight_full_matching needs cm.assignment, which this build lacks"
    if G is not None and (G.is_directed() or G.is_multigraph()):
        return ("minimum_weight_full_matching on a directed graph or multigraph: NetworkX's "
                "biadjacency matrix keeps arcs by direction or one parallel edge of several, "
                "which is NetworkX's to define")
    if G is not None and len(G) == 0:
        return "minimum_weight_full_matching on the null graph: NetworkX raises"
    return _weight_reason(weight) or True


class BackendInterface:
    """NetworkX's view of the backend (see :mod:`cugraph_match.nx`).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(5)
    >>> sorted(nx.maximal_matching(G, backend="cugraph_match")) == sorted(nx.maximal_matching(G))
    True
    >>> nx.max_weight_matching(G, backend="networkx") == nx.max_weight_matching(G)
    True
    >>> BackendInterface.can_run("max_weight_matching", (G,), {}).startswith("max_weight_matching is exact")
    True
    """

    # -- conversions ----------------------------------------------------------

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None) -> NxGraph:
        """A NetworkX graph as an :class:`NxGraph` holding at most one edge attribute.

        ``edge_attrs`` is NetworkX's ``{attribute: default}`` for the call;
        node attributes are never needed by the dispatched functions.
        """
        if isinstance(G, NxGraph):
            return G
        if not _is_graph(G):
            raise NotImplementedError(f"{name}: cannot convert a {type(G).__name__}, "
                                      f"which is not a NetworkX graph")
        if preserve_edge_attrs is True or (edge_attrs is not None and len(edge_attrs) > 1):
            raise NotImplementedError(
                f"{name}: cugraph_match keeps at most one edge attribute, not all of them")
        weight, default = (None, 1) if not edge_attrs else next(iter(edge_attrs.items()))
        return from_networkx(G, weight=weight, default=default,
                             keep_graph_attrs=bool(preserve_graph_attrs))

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """Results are NetworkX's own types already; a backend graph becomes a NetworkX graph."""
        if isinstance(obj, NxGraph):
            return to_networkx(obj)
        return obj

    # -- whether to run ---------------------------------------------------------

    @staticmethod
    def can_run(name, args, kwargs):
        """True, or the reason this backend cannot run ``name`` with these arguments."""
        if name in DECLINED:
            return DECLINED[name]
        G = _graph_argument(args, kwargs)
        if G is not None and not _is_graph(G):
            # NetworkX's own tests call is_partition(G.nodes(), ...), for one
            return f"G is a {type(G).__name__}, not a NetworkX graph"
        if name in ("maximal_matching", "min_maximal_matching") and G is not None:
            if G.is_directed() or G.is_multigraph():
                return (f"{name} is defined for undirected simple graphs (NetworkX raises "
                        f"NetworkXNotImplemented for this one)")
        if name == "is_maximal_matching" and G is not None and G.is_multigraph():
            return _matching.MULTIGRAPH_MAXIMALITY
        if name in MATCHING_FUNCTIONS and G is not None and _has_nan_node(G):
            return NAN_NODE
        if name == "minimum_weight_full_matching":
            return _full_matching_reason(G, _argument("weight", 2, args, kwargs, "weight"))
        if name in ("louvain_communities", "louvain_partitions"):
            if G is not None and G.is_directed():
                return (f"{name} on a directed graph optimises directed modularity (Dugué & "
                        f"Perez), which cugraph_match's Louvain kernels do not")
            weight = _argument("weight", 1, args, kwargs, "weight")
            resolution = _argument("resolution", 2, args, kwargs, 1)
            threshold = _argument("threshold", 3, args, kwargs, 1e-7)
            if (reason := _weight_reason(weight)) is not None:
                return reason
            for label, value in (("resolution", resolution), ("threshold", threshold)):
                if (reason := _real_reason(label, value)) is not None:
                    return reason
        if name in ("leiden_communities", "leiden_partitions"):
            weight = _argument("weight", 1, args, kwargs, "weight")
            resolution = _argument("resolution", 2, args, kwargs, 1)
            if (reason := _weight_reason(weight)) is not None:
                return reason
            if (reason := _real_reason("resolution", resolution)) is not None:
                return reason
        if name == "modularity":
            weight = _argument("weight", 2, args, kwargs, "weight")
            resolution = _argument("resolution", 3, args, kwargs, 1)
            if (reason := _weight_reason(weight)) is not None:
                return reason
            if not isinstance(resolution, numbers.Real):
                return f"resolution={resolution!r} is not a real number"
        return True

    @staticmethod
    def should_run(name, args, kwargs):
        """True, or why NetworkX itself is expected to be faster (automatic dispatch only)."""
        G = _graph_argument(args, kwargs)
        if isinstance(G, NxGraph):
            return True
        if name in READS_ONLY_ITS_ARGUMENT:
            cache = getattr(G, "__networkx_cache__", None) or {}
            if not cache.get("backends", {}).get(BACKEND_NAME):
                return (f"{name} in NetworkX reads only its argument's nodes; converting the "
                        f"whole graph costs more unless it is already converted")
        limit = SMALL_GRAPH_EDGES.get(name, 0)
        if G is not None and _number_of_edges(G) < limit:
            return f"small graph (< {limit} edges): NetworkX is faster than converting it"
        return True

    # -- the NetworkX test suite -------------------------------------------------

    @staticmethod
    def on_start_tests(items):
        """Mark the tests of NetworkX's suite that assert NetworkX's exact output
        where this backend legitimately differs (see :mod:`cugraph_match.nx.xfails`);
        from here on, declined calls answer as NetworkX's test harness expects
        (see :class:`DispatchInterface`)."""
        from .xfails import mark_expected_failures

        _NETWORKX_SUITE[0] = True
        mark_expected_failures(items)

    # -- the dispatched functions (NetworkX's names and signatures) ---------------

    @staticmethod
    def maximal_matching(G):
        return _matching.maximal_matching(G, device=configured_device())

    @staticmethod
    def min_maximal_matching(G):
        return _matching.min_maximal_matching(G, device=configured_device())

    is_matching = staticmethod(_matching.is_matching)
    is_maximal_matching = staticmethod(_matching.is_maximal_matching)
    is_perfect_matching = staticmethod(_matching.is_perfect_matching)

    @staticmethod
    def max_weight_matching(G, maxcardinality=False, weight="weight"):
        raise NotImplementedError(DECLINED["max_weight_matching"])

    @staticmethod
    def min_weight_matching(G, weight="weight"):
        raise NotImplementedError(DECLINED["min_weight_matching"])

    @staticmethod
    def louvain_communities(G, weight="weight", resolution=1, threshold=0.0000001,
                            max_level=None, seed=None):
        with _cpu_threads(G):
            return _community.louvain_communities(G, weight, resolution, threshold, max_level,
                                                  seed, device=configured_device())

    @staticmethod
    def louvain_partitions(G, weight="weight", resolution=1, threshold=0.0000001, seed=None):
        with _cpu_threads(G):
            levels = _community.louvain_partitions(G, weight, resolution, threshold, seed,
                                                   device=configured_device())
        return _steps_with(lambda: _cpu_threads(G), levels)

    @staticmethod
    def minimum_weight_full_matching(G, top_nodes=None, weight="weight"):
        return _bipartite.minimum_weight_full_matching(G, top_nodes, weight, device=configured_device())

    # NetworkX has no Leiden of its own: should_run never sends it back
    @staticmethod
    def leiden_communities(G, weight="weight", resolution=1, max_level=None, seed=None):
        with _cpu_threads(G):
            return _leiden.leiden_communities(G, weight, resolution, max_level, seed,
                                              device=configured_device())

    @staticmethod
    def leiden_partitions(G, weight="weight", resolution=1, seed=None):
        with _cpu_threads(G):
            levels = _leiden.leiden_partitions(G, weight, resolution, seed, device=configured_device())
        return _steps_with(lambda: _cpu_threads(G), levels)

    modularity = staticmethod(_community.modularity)
    partition_quality = staticmethod(_community.partition_quality)
    is_partition = staticmethod(_community.is_partition)


# Set by ``on_start_tests``: NetworkX's own suite is running in this process.
_NETWORKX_SUITE = [False]


def declined_message(name: str, reason: str) -> str:
    """The exception text of a call the backend declines, with the reason."""
    return (f"'{name}' is not run by the '{BACKEND_NAME}' backend for these arguments, because: "
            f"{reason}. Call it with backend='networkx', or without backend= to let NetworkX's "
            f"dispatch choose.")


class DispatchInterface(BackendInterface):
    """The object NetworkX loads (:data:`backend_interface`): :class:`BackendInterface`
    whose ``can_run`` raises ``NotImplementedError`` with the reason instead of
    returning it.

    NetworkX (3.6) only logs a ``can_run`` reason at debug level: a call with
    ``backend="cugraph_match"`` would end in its fixed "not implemented ...
    for the given arguments", without the why.  Raised from ``can_run``, the
    reason reaches the caller of such a call as the exception's message;
    automatic dispatch (``backend_priority``, ``fallback_to_nx``) calls
    ``can_run`` inside its ``except NotImplementedError`` and moves on to the
    next backend, as it does for a returned reason, before any conversion.
    NetworkX's own test harness expects a returned reason (it then falls back
    to NetworkX), so while its suite runs (``on_start_tests``) the reason is
    returned.  ``BackendInterface.can_run`` itself always returns it.
    """

    @staticmethod
    def can_run(name, args, kwargs):
        verdict = BackendInterface.can_run(name, args, kwargs)
        if verdict is True or _NETWORKX_SUITE[0]:
            return verdict
        raise NotImplementedError(declined_message(name, str(verdict)))


backend_interface = DispatchInterface()
