"""A NetworkX graph as the ``cugraph_match`` backend holds it, and the conversions.

:func:`from_networkx` reads a NetworkX graph's adjacency once, at C speed
(``map`` over its dicts into ``numpy.fromiter``; no Python loop per edge),
into an :class:`NxGraph`: the nodes in NetworkX's order, every node pair once
as integer positions in ``G.edges()`` order, and one edge attribute.  The
project's prepared graph (:class:`cugraph_match.Graph`) and the other
structures an algorithm reads are built from it on first use and kept, so a
graph that NetworkX caches (``G.__networkx_cache__``) pays for each once.

Node positions, not the caller's ids, are the internal vertex ids: NetworkX
nodes need not be orderable (``cm.Graph`` sorts ids), and positions keep
NetworkX's node order, which its results follow.
"""

from __future__ import annotations

from itertools import chain, compress, repeat
from operator import itemgetter, methodcaller
from typing import Any

import numpy as np

BACKEND_NAME = "cugraph_match"

_values = methodcaller("values")


class NxGraph:
    """A NetworkX graph converted for the ``cugraph_match`` backend.

    Build it with :func:`from_networkx` (NetworkX does, through the backend's
    ``convert_from_nx``).  It is read-only: a change to the NetworkX graph
    needs a new conversion (NetworkX clears its cache on ``add_edge`` and the
    like).

    Attributes
    ----------
    nodes : list
        The nodes, in the NetworkX graph's order; a node's position is its id.
    index : dict
        node → position.
    src, dst : numpy.ndarray of int64
        Every node pair with at least one edge, once, in ``G.edges()`` order:
        for an undirected graph ``src <= dst`` (the pair as ``G.edges()``
        yields it), for a directed graph the arc ``src → dst``.  Self-loops
        are pairs with ``src == dst``.
    multiplicity : numpy.ndarray of int64 or None
        Parallel edges per pair (multigraphs), or None (one each).
    weight_attr : str or None
        The edge attribute whose values ``weights`` holds; None: no weights.
    directed, multigraph : bool
    numpy_zero_total : bool
        The weights total 0 and one of them is a NumPy number: NetworkX's
        ``modularity`` then divides NumPy zeros (nan) rather than Python ones
        (ZeroDivisionError).
    graph_attrs : dict
        A copy of ``G.graph`` (its ``name`` prints in ``str``).

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx.graph import from_networkx
    >>> G = nx.Graph([("b", "a"), ("a", "c")])
    >>> G.add_node("lonely")
    >>> g = from_networkx(G)
    >>> g.nodes, g.src.tolist(), g.dst.tolist()
    (['b', 'a', 'c', 'lonely'], [0, 1], [1, 2])
    >>> str(g)
    'Graph with 4 nodes and 2 edges'
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, nodes: list, index: dict | None, src: np.ndarray, dst: np.ndarray,
                 multiplicity: np.ndarray | None, weights: np.ndarray | None,
                 weight_attr: str | None, weight_error: str | None, directed: bool,
                 multigraph: bool, class_name: str, graph_attrs: dict,
                 numpy_zero_total: bool = False):
        self.nodes = nodes
        self._index = index
        self.src = src
        self.dst = dst
        self.multiplicity = multiplicity
        self._weights = weights
        self.weight_attr = weight_attr
        self._weight_error = weight_error
        self.directed = directed
        self.multigraph = multigraph
        self.class_name = class_name
        self.graph_attrs = graph_attrs
        self.graph = graph_attrs  # NetworkX's name for it
        self.numpy_zero_total = numpy_zero_total
        self._cache: dict = {}

    @property
    def index(self) -> dict:
        """node → position (built on first use when the conversion did not need it)."""
        if self._index is None:
            self._index = dict(zip(self.nodes, range(len(self.nodes))))
        return self._index

    # -- what NetworkX's decorators and messages ask of a graph --------------

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable: not a node, as in NetworkX
            return False

    def number_of_edges(self) -> int:
        """Edges as NetworkX counts them: self-loops once, parallel edges each."""
        if self.multiplicity is not None:
            return int(self.multiplicity.sum())
        return int(self.src.shape[0])

    @property
    def name(self) -> str:
        return self.graph_attrs.get("name", "")

    def __str__(self) -> str:
        # NetworkX's own wording, so messages that name the graph read the same
        named = f" named {self.name!r}" if self.name else ""
        return (f"{self.class_name}{named} with {self.number_of_nodes()} nodes and "
                f"{self.number_of_edges()} edges")

    def __repr__(self) -> str:
        return f"<cugraph_match NxGraph: {self}>"

    # -- derived arrays, built on first use ----------------------------------

    def cached(self, key, build):
        """``build()``, computed once per ``key`` and kept with the graph."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    @property
    def nodes_array(self) -> np.ndarray:
        """The nodes as an object array (indexing it returns the node objects)."""
        return self.cached("nodes_array",
                           lambda: np.fromiter(self.nodes, dtype=object, count=len(self.nodes)))

    def pair_weights(self, weight: str | None) -> np.ndarray:
        """float64 weight of every pair (parallel edges summed, as NetworkX's
        Louvain and modularity sum them); ``weight=None`` counts each edge as 1.

        Raises NotImplementedError (so NetworkX can run the call itself) when
        the graph was converted without ``weight``'s values or they are not
        all real numbers.
        """
        if weight is None:
            if self.multiplicity is not None:
                return self.multiplicity.astype(np.float64)
            return np.ones(self.src.shape[0], dtype=np.float64)
        if weight != self.weight_attr:
            raise NotImplementedError(
                f"this cugraph_match graph holds edge attribute {self.weight_attr!r}, "
                f"not {weight!r}: convert the NetworkX graph again")
        if self._weight_error is not None:
            raise NotImplementedError(self._weight_error)
        return self._weights

    def louvain_weights(self, weight: str | None) -> np.ndarray:
        """:meth:`pair_weights` for Louvain: refused (NotImplementedError) unless
        every weight is finite and non-negative and their total is positive."""
        w = self.pair_weights(weight)
        if weight is None:
            return w
        bad = ~(np.isfinite(w) & (w >= 0))
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            u, v = self.nodes[int(self.src[first])], self.nodes[int(self.dst[first])]
            raise NotImplementedError(
                f"cugraph_match's Louvain needs finite non-negative weights; "
                f"{int(bad.sum())} node pair(s) have others, first ({u!r}, {v!r}) with "
                f"{weight!r} = {float(w[first])!r}")
        if w.shape[0] and not w.sum() > 0:
            raise NotImplementedError(
                f"every {weight!r} is 0: modularity is undefined (NetworkX raises)")
        return w

    def positions(self, items) -> np.ndarray:
        """Positions of ``items`` (-1 for anything that is not a node)."""
        return node_positions(self.index, items)

    def has_pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Whether ``G.has_edge(a[i], b[i])`` for node positions ``a``, ``b``."""
        keys = self.cached("pair_keys", self._pair_keys)
        query = self._keys(a, b)
        if keys.shape[0] == 0:
            return np.zeros(query.shape[0], dtype=bool)
        at = np.minimum(np.searchsorted(keys, query), keys.shape[0] - 1)
        return keys[at] == query

    def _keys(self, a, b):
        n = np.int64(len(self.nodes))
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        if not self.directed:
            a, b = np.minimum(a, b), np.maximum(a, b)
        return a * n + b  # n < 3·10⁹ always (a NetworkX graph lives in host memory)

    def _pair_keys(self):
        return np.sort(self._keys(self.src, self.dst))


def node_positions(index: dict, items) -> np.ndarray:
    """``index[item]`` for each item, -1 where it is not a key (unhashable included).

    A ``map`` of ``dict.get`` runs at C speed; an unhashable item (a list, a
    set) makes it raise, and then the items are looked up one by one.
    """
    items = items if isinstance(items, list) else list(items)
    try:
        return np.fromiter(map(index.get, items, repeat(-1)), dtype=np.int64, count=len(items))
    except TypeError:
        out = np.empty(len(items), dtype=np.int64)
        for i, item in enumerate(items):
            try:
                out[i] = index.get(item, -1)
            except TypeError:
                out[i] = -1
        return out


def from_networkx(G: Any, weight: str | None = None, default: Any = 1,
                  keep_graph_attrs: bool = True) -> NxGraph:
    """Convert a NetworkX graph (any of its four classes, or a view) to an :class:`NxGraph`.

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
    weight : str or None
        The edge attribute to keep (an edge without it has ``default``), or
        None to keep none.
    default : number
        The value of ``weight`` for edges that lack it (NetworkX's default: 1).
    keep_graph_attrs : bool
        Copy ``G.graph`` (its name appears in ``str`` and error messages).

    Returns
    -------
    NxGraph

    Notes
    -----
    Weights that are not all real numbers (ints, floats, bools, NumPy
    numbers) are not converted; the functions that need them then raise
    NotImplementedError so that NetworkX runs the call.  Integers above 2⁵³
    are rounded to float64.

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx.graph import from_networkx
    >>> M = nx.MultiGraph([(0, 1, {"w": 2.0}), (1, 0, {"w": 3.0}), (1, 1, {})])
    >>> g = from_networkx(M, weight="w")
    >>> g.src.tolist(), g.dst.tolist(), g.multiplicity.tolist(), g.pair_weights("w").tolist()
    ([0, 1], [1, 1], [2, 1], [5.0, 1.0])
    >>> g.number_of_edges()
    3
    """
    adj = G._adj  # the successors of a directed graph
    nodes = list(adj)
    n = len(nodes)
    directed = bool(G.is_directed())
    multigraph = bool(G.is_multigraph())
    row_lengths = np.fromiter(map(len, adj.values()), dtype=np.int64, count=n)
    entries = int(row_lengths.sum())
    index = None
    dst = _integer_neighbour_positions(adj, nodes, entries)
    if dst is None:
        index = dict(zip(nodes, range(n)))
        dst = np.fromiter(map(index.__getitem__, chain.from_iterable(adj.values())),
                          dtype=np.int64, count=entries)
    src = np.repeat(np.arange(n, dtype=np.int64), row_lengths)
    # An undirected edge sits in both endpoints' rows; G.edges() yields it from
    # the endpoint that comes first, i.e. where dst >= src (a self-loop once).
    keep = None if directed else dst >= src
    if keep is not None:
        src, dst = src[keep], dst[keep]
        keep = keep.tolist()  # compress() reads a sequence of truths

    def kept_rows():
        """The adjacency's per-pair values (edge data dicts, or key dicts of a
        multigraph), in the order of ``src``/``dst``."""
        rows = chain.from_iterable(map(_values, adj.values()))
        return rows if keep is None else compress(rows, keep)

    multiplicity = None
    edge_data = kept_rows
    if multigraph:
        key_dicts = list(kept_rows())
        multiplicity = np.fromiter(map(len, key_dicts), dtype=np.int64, count=len(key_dicts))
        edge_data = lambda: chain.from_iterable(map(_values, key_dicts))  # noqa: E731
    weights, weight_error, numpy_zero_total = None, None, False
    if weight is not None:
        try:  # itemgetter is twice as fast as dict.get, and fails only when one lacks it
            raw = list(map(itemgetter(weight), edge_data()))
        except KeyError:
            raw = list(map(methodcaller("get", weight, default), edge_data()))
        weights, weight_error = _real_weights(raw, weight)
        # the values' Python types matter only where they total 0 (see
        # NxGraph.numpy_zero_total), so only then are they read one by one
        numpy_zero_total = weights is not None and not float(np.sum(weights)) and \
            any(isinstance(value, np.generic) for value in raw)
        if multigraph and weights is not None:
            starts = np.zeros(multiplicity.shape[0], dtype=np.int64)
            np.cumsum(multiplicity[:-1], out=starts[1:])
            weights = np.add.reduceat(weights, starts) if starts.shape[0] else weights[:0]
    graph_attrs = dict(G.graph) if keep_graph_attrs else {"name": G.graph.get("name", "")}
    return NxGraph(nodes, index, src, dst, multiplicity, weights, weight, weight_error,
                   directed, multigraph, type(G).__name__, graph_attrs, numpy_zero_total)


def _integer_neighbour_positions(adj, nodes: list, entries: int) -> np.ndarray | None:
    """Positions of every adjacency entry's neighbour when every node is an int
    (then NumPy reads the neighbour ids themselves and a table or a search maps
    them, three times faster than a dict lookup per entry); None otherwise."""
    n = len(nodes)
    if n == 0 or not all(issubclass(kind, (int, np.integer)) and kind is not bool
                         for kind in set(map(type, nodes))):
        return None
    try:
        ids = np.fromiter(nodes, dtype=np.int64, count=n)
        keys = np.fromiter(chain.from_iterable(adj.values()), dtype=np.int64, count=entries)
    except (OverflowError, TypeError, ValueError):  # ids beyond int64
        return None
    low, high = int(ids.min()), int(ids.max())
    if high - low <= 4 * n:
        table = np.empty(high - low + 1, dtype=np.int64)
        table[ids - low] = np.arange(n, dtype=np.int64)
        return table[keys - low]
    order = np.argsort(ids, kind="stable")
    return order[np.searchsorted(ids[order], keys)]


_REAL = (int, float, np.integer, np.floating)  # bool is an int


def _real_weights(raw: list, weight: str) -> tuple[np.ndarray | None, str | None]:
    """float64 weights, or None and the reason they cannot be converted.

    ``numpy.array`` infers one dtype for the list in a single pass; a numeric
    one means every value is a real number.  Otherwise the values' types are
    checked: NumPy would turn the string ``"3"`` into 3.0 and None into NaN,
    where NetworkX fails on both, so anything but a real number is left to
    NetworkX.
    """
    try:
        values = np.array(raw)
    except (ValueError, OverflowError):  # ragged lists or arrays: the check below names them
        values = None
    if values is not None and values.ndim == 1 and values.dtype.kind in "biuf":
        return values.astype(np.float64, copy=False), None
    kinds = set(map(type, raw))
    odd = sorted(k.__name__ for k in kinds if not issubclass(k, _REAL))
    if odd:
        return None, (f"edge attribute {weight!r} holds values that are not real numbers "
                      f"({', '.join(odd)}); cugraph_match leaves such graphs to NetworkX")
    try:
        return np.array(raw, dtype=np.float64), None  # e.g. ints beyond int64
    except OverflowError:
        return None, (f"edge attribute {weight!r} holds integers beyond float64's range; "
                      f"cugraph_match leaves such graphs to NetworkX")


def to_networkx(graph: NxGraph):
    """A NetworkX graph of ``graph``'s class with its nodes, edges and one weight.

    Lossy where the conversion was: node attributes and edge attributes other
    than the kept weight are gone, and a multigraph's parallel edges come back
    as one edge per pair carrying the summed weight (``count`` holds how many
    there were).

    Examples
    --------
    >>> import networkx as nx
    >>> from cugraph_match.nx.graph import from_networkx, to_networkx
    >>> G = nx.path_graph(4)
    >>> nx.utils.graphs_equal(to_networkx(from_networkx(G)), G)
    True
    """
    import networkx as nx

    cls = {"Graph": nx.Graph, "DiGraph": nx.DiGraph, "MultiGraph": nx.MultiGraph,
           "MultiDiGraph": nx.MultiDiGraph}.get(graph.class_name)
    if cls is None:
        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[
            (graph.directed, graph.multigraph)]
    H = cls()
    H.graph.update(graph.graph_attrs)
    H.add_nodes_from(graph.nodes)
    nodes = graph.nodes_array
    us, vs = nodes[graph.src], nodes[graph.dst]
    if graph.weight_attr is None or graph._weights is None:
        data = repeat({})
    else:
        data = ({graph.weight_attr: float(w)} for w in graph._weights)
    if graph.multiplicity is not None:
        data = ({**d, "count": int(c)} for d, c in zip(data, graph.multiplicity))
    H.add_edges_from((u, v, d) for u, v, d in zip(us, vs, data))
    return H
