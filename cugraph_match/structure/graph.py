"""``cm.Graph``: a graph validated, renumbered and de-duplicated once, reused by
every algorithm."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from .backend import Backend, resolve_backend, to_backend
from .checks import declared_ids, first_true, plain
from .bipartite import (Sides, check_bipartite_flag, linked_pairs_frame, one_id_space,
                        read_two_sided)
from .csr import NeighbourCSR, PreferenceCSR, neighbour_csr, preference_csr
from .edges import UndirectedEdges, WeightedGraph, undirected_edges, weighted_graph
from .inputs import DEFAULT_WEIGHT, is_directed_input, read_input
from .output import host_or_device
from .renumber import category_values, describe_id_types, renumber
from .validation import native_weight_dtype, null_or_nan, object_weight_dtype, validate

# Matchings pack a vertex id in the low 32 bits of an offer word (the
# all-ones id is never a vertex), so a graph has fewer than 2**32 vertices.
MAX_VERTICES = 2**32 - 1


class Graph:
    """An undirected graph prepared once for every algorithm of the package.

    Built from any supported input, it holds the caller's vertex ids (the
    *labels*, sorted), the edges in internal ids ``0..n-1`` with duplicates
    merged, and, built on first use and kept, the compressed sparse rows each
    family of algorithms reads.  Pass it wherever a function takes a graph:
    a chain such as matching → :func:`~cugraph_match.coarsen` →
    :func:`~cugraph_match.louvain` → :func:`~cugraph_match.modularity` then
    reads the edges once.

    Parameters
    ----------
    edges : cudf.DataFrame, pandas.DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The graph, taken as undirected: (u, v) and (v, u) are one edge and
        duplicate edges keep their largest weight.  Self-loops are kept apart:
        the matchings ignore them, Louvain, modularity and coarsening count
        them (the largest per vertex).
    source, destination : str
        Edge-list column names of the two endpoints (frames only).
    weight : str or None
        Weight column name.  ``None``, or the default name when no such
        column exists, makes every weight 1.  Weights must be positive and
        finite; integer weights keep their exact order at any size.
    backend : {"auto", "gpu", "cpu"}
        Where the graph lives and the algorithms run: ``"gpu"`` keeps it in
        device memory (CuPy), ``"cpu"`` in host memory; ``"auto"`` takes the
        GPU when one is usable.
    vertices : Series or array-like, optional
        More vertex ids, for vertices an edge list cannot hold: those with no
        edge (as :func:`~cugraph_match.datasets.read_graph` returns them,
        say).  Ids already on an edge may be repeated here; every function
        then gives each of them an output row.  With ``bipartite=True``, each
        side's complete vertex set: ``{"source": ids, "destination": ids}``
        or a pair (either may be None); a row whose id is not on its
        declared side is refused.
    bipartite : bool
        Two id spaces (two tables): ``source`` ids and ``destination`` ids
        are separate vertex sets even where their values are equal, and
        every row is an edge from one side to the other.  A NetworkX graph's
        sides come from its ``bipartite`` node attribute (0 / 1), a sparse
        matrix is a biadjacency matrix (rows: source side, columns:
        destination side).  Such a graph is taken by the matchings (which
        then return linked pairs, see :func:`~cugraph_match.suitor_matching`)
        and refused by the one-id-space functions (Louvain, coarsening, ...).

    Raises
    ------
    ValueError, TypeError
        Bad input, with the column, the number of bad rows and the first one,
        exactly as every algorithm reports it.

    Notes
    -----
    Results come back in the frame library of ``edges``: cuDF for cuDF or
    cuGraph input, pandas for everything else.  The input is never modified
    and not referenced after the build.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> edges = pd.DataFrame({"src": [0, 1, 2, 2], "dst": [1, 2, 3, 3],
    ...                       "weight": [1.0, 3.0, 1.0, 2.0]})
    >>> g = cm.Graph(edges, backend="cpu")
    >>> g
    Graph(4 vertices, 3 edges, weighted, backend='cpu')
    >>> cm.suitor_matching(g)["mate"].tolist()
    [<NA>, 2, 1, <NA>]
    >>> cm.matching_weight(cm.suitor_matching(g)), cm.matching_weight(cm.locally_dominant_matching(g))
    (3.0, 3.0)
    """

    def __init__(self, edges: Any, source: str = "src", destination: str = "dst",
                 weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
                 vertices: Any = None, bipartite: bool = False):
        if isinstance(edges, Graph):
            # the same graph (on ``backend`` if one is named), as every
            # function takes one: read as a cuGraph graph, its self-loops,
            # isolated vertices, sides and flags were lost
            if vertices is not None:
                raise ValueError("vertices cannot be set for a cm.Graph: its vertices were "
                                 "chosen when it was built")
            two = check_bipartite_flag(bipartite) or edges.bipartite  # default: as built
            same = as_graph(edges, source, destination, weight, backend, bipartite=two)
            self.__dict__.update(same.__dict__)
            self._cache = dict(same._cache)  # the rows built so far, shared read-only
            return
        be = resolve_backend(backend)
        self._sides = None
        self._columns = None
        if check_bipartite_flag(bipartite):
            self._build_two_sided(edges, source, destination, weight, be, vertices)
            return
        data = read_input(edges, source, destination, weight)
        self._columns = (data.source, data.destination, data.weight)
        extra = _extra_vertices(vertices, data.frame_lib)
        # vertices without edges make a graph that is not empty
        validate(data if extra is None or data.extra_vertices is not None
                 else dataclasses.replace(data, extra_vertices=extra))
        frame = data.frame
        parts = [frame[data.source], frame[data.destination]]
        if data.extra_vertices is not None:
            parts.append(data.extra_vertices)
        if extra is not None:
            parts.append(extra)
        codes, labels = renumber(parts, data.frame_lib, be.xp,
                                 f"vertex ids in {data.source!r}/{data.destination!r}")
        n = len(labels)
        if n > MAX_VERTICES:
            raise ValueError(f"at most {MAX_VERTICES} vertices are supported, got {n}")
        w = weight_values(frame[data.weight], be.xp) if data.weight is not None else None
        self._edges = undirected_edges(codes[0], codes[1], w, n, be.xp)
        del codes, w
        self._backend = be
        self._frame_lib = data.frame_lib
        self._labels = labels
        self._weighted = data.weight is not None
        self._directed_input = is_directed_input(edges)
        self._cache: dict = {}

    def _build_two_sided(self, edges, source, destination, weight, be: Backend,
                         vertices) -> None:
        """Two id spaces: each side renumbered on its own, the right side's
        internal ids after every left id (``structure.bipartite``)."""
        two = read_two_sided(edges, source, destination, weight, be.xp, vertices)
        u, v, n = one_id_space(two, be.xp)
        if n > MAX_VERTICES:
            raise ValueError(f"at most {MAX_VERTICES} vertices are supported, got {n}")
        w = weight_values(two.weight, be.xp) if two.weighted else None
        self._edges = undirected_edges(u, v, w, n, be.xp)
        self._backend, self._frame_lib = be, two.sides.frame_lib
        self._labels, self._sides = None, two.sides
        self._weighted = two.weighted
        self._directed_input = False  # a row is an edge between the sides, whatever G's kind
        self._cache = {}

    @classmethod
    def _from_parts(cls, backend: Backend, frame_lib, labels, edges: UndirectedEdges,
                    weighted: bool, directed_input: bool = False,
                    sides: Sides | None = None) -> Graph:
        """A Graph over already-prepared parts (internal levels, backend moves)."""
        graph = cls.__new__(cls)
        graph._backend, graph._frame_lib, graph._labels = backend, frame_lib, labels
        graph._edges, graph._weighted = edges, weighted
        graph._directed_input = directed_input
        graph._sides = sides
        graph._columns = None
        graph._cache = {}
        return graph

    # -- pickling: modules by name, the rows rebuilt on first use -----------

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_backend"] = self._backend.name
        state["_frame_lib"] = self._frame_lib.__name__
        if self._sides is not None:
            state["_sides"] = dataclasses.replace(self._sides, frame_lib=self._frame_lib.__name__)
        state["_cache"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        import importlib

        state = dict(state)
        state["_backend"] = resolve_backend(state["_backend"])
        state["_frame_lib"] = importlib.import_module(state["_frame_lib"])
        if state["_sides"] is not None:
            state["_sides"] = dataclasses.replace(state["_sides"],
                                                  frame_lib=state["_frame_lib"])
        self.__dict__.update(state)

    # -- what it is ---------------------------------------------------------

    @property
    def num_vertices(self) -> int:
        return self._edges.n

    @property
    def num_edges(self) -> int:
        """Undirected edges, duplicates merged and self-loops not counted."""
        return self._edges.num_edges

    @property
    def weighted(self) -> bool:
        """False when every weight defaulted to 1."""
        return self._weighted

    @property
    def backend(self) -> Backend:
        return self._backend

    @property
    def frame_lib(self):
        """pandas or cuDF: the library of the frames results come back in."""
        return self._frame_lib

    @property
    def labels(self):
        """The caller's vertex ids in internal order (sorted), as a Series named
        ``vertex``: a copy (pandas' copy-on-write makes it free), so that
        writing into it cannot change the graph."""
        if self._sides is not None:
            raise ValueError("this cm.Graph has two id spaces (bipartite=True): its vertex ids "
                             "are per side, in .sides")
        return self._labels.copy(deep=self._frame_lib is not pd)

    @property
    def bipartite(self) -> bool:
        """True for two id spaces (built with ``bipartite=True``)."""
        return self._sides is not None

    @property
    def sides(self) -> Sides | None:
        """The two sides' ids and result column names (``bipartite=True``), else None."""
        return self._sides

    @property
    def edges(self) -> UndirectedEdges:
        return self._edges

    @property
    def directed_input(self) -> bool:
        """True when the graph was built from a directed graph object."""
        return self._directed_input

    def __repr__(self) -> str:
        kind = "weighted" if self._weighted else "unweighted"
        if self._sides is not None:
            return (f"Graph({self._sides.n_left} + {self._sides.n_right} vertices (bipartite), "
                    f"{self.num_edges} edges, {kind}, backend={self._backend.name!r})")
        return (f"Graph({self.num_vertices} vertices, {self.num_edges} edges, {kind}, "
                f"backend={self._backend.name!r})")

    def view_edge_list(self):
        """The edges as a ``src | dst | weight`` frame in the caller's ids
        (``src`` the smaller id; each undirected edge once; no self-loops);
        for a two-sided graph ``<source> | <destination> | <weight>`` sorted
        by source id."""
        from .output import pairs_frame

        e = self._edges
        w = e.w if e.w is not None else self._backend.xp.ones(e.num_edges, dtype=np.float32)
        if self._sides is not None:
            return linked_pairs_frame(self._sides, e.lo, e.hi - self._sides.n_left, w,
                                      xp=self._backend.xp)
        return pairs_frame(self._labels, self._frame_lib, e.lo, e.hi, w)

    # -- what the algorithms read (built on first use, then kept) -----------

    def _cached(self, name: str, build):
        if name not in self._cache:
            self._cache[name] = build()
        return self._cache[name]

    def preference_csr(self, weighted: bool = True) -> PreferenceCSR:
        """Rows best edge first (:func:`~cugraph_match.structure.csr.preference_csr`);
        with ``weighted=False`` as if every weight were 1."""
        if not weighted and self._edges.w is not None:
            e = self._edges
            plain_edges = UndirectedEdges(e.n, e.lo, e.hi, None, e.loop)
            return self._cached("preference_unweighted",
                                lambda: preference_csr(plain_edges, self._backend.xp))
        return self._cached("preference", lambda: preference_csr(self._edges, self._backend.xp))

    def neighbour_csr(self) -> NeighbourCSR:
        """Rows sorted by neighbour id, weights beside."""
        return self._cached("neighbour", lambda: neighbour_csr(self._edges, self._backend.xp))

    def weighted_graph(self) -> WeightedGraph:
        """float64 edges and self-loops, for community detection and coarsening."""
        return self._cached("weighted_graph", lambda: weighted_graph(self._edges, self._backend.xp))

    def release_rows(self) -> None:
        """Forget the rows built so far (they are rebuilt on the next use)."""
        self._cache.clear()

    def on(self, backend: str) -> Graph:
        """This graph on another backend (itself when already there)."""
        be = resolve_backend(backend)
        if be == self._backend:
            return self
        e = self._edges
        xp = be.xp
        moved = UndirectedEdges(e.n, to_backend(e.lo, xp), to_backend(e.hi, xp),
                                None if e.w is None else to_backend(e.w, xp),
                                None if e.loop is None else to_backend(e.loop, xp))
        return Graph._from_parts(be, self._frame_lib, self._labels, moved, self._weighted,
                                 self._directed_input, self._sides)


def _extra_vertices(vertices, frame_lib):
    """The ``vertices`` argument of :class:`Graph` as a Series of ``frame_lib``
    without nulls, or None."""
    if vertices is None:
        return None
    if isinstance(vertices, dict):  # read as ids, its keys were vertices
        raise TypeError("vertices given per side ({'source': ..., 'destination': ...}) are "
                        "for two tables: build the cm.Graph with bipartite=True, or give one "
                        "list of ids")
    return declared_ids(vertices, frame_lib, "vertices")


def weight_values(column, xp):
    """A validated weight column as an ``xp`` array: float32 and float64 stay,
    other floats become float64, integers become int64 or uint64 (exact)."""
    dtype = column.dtype
    if not isinstance(dtype, np.dtype):  # pandas nullable Int64/Float64 (validated null-free)
        numpy_dtype = getattr(dtype, "numpy_dtype", None)
        column = column.astype(numpy_dtype if numpy_dtype is not None else np.float64)
        dtype = column.dtype
    if dtype.kind == "O":  # validated Python numbers: exact integers stay integers
        column = column.astype(object_weight_dtype(column, str, "weight"))
        dtype = column.dtype
    target = native_weight_dtype(dtype)
    if hasattr(column, "to_cupy") and xp is not np:
        values = column.to_cupy()
    else:
        values = column.to_numpy()
        if values.dtype.itemsize > 8:  # longdouble: no CuPy array holds it, cast before the move
            values = values.astype(target)
        values = to_backend(values, xp)
    return values.astype(target, copy=False)


def as_graph(graph: Any, source: str = "src", destination: str = "dst",
             weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
             bipartite: bool = False) -> Graph:
    """The :class:`Graph` of any supported input; a Graph is used as it is.

    A Graph's columns were chosen when it was built, so column arguments that
    differ from their defaults are refused rather than ignored; a backend
    other than ``"auto"`` moves the graph there.  ``bipartite`` says whether
    the caller reads two id spaces: a Graph of the other kind is refused.
    """
    if isinstance(graph, Graph):
        if graph.bipartite != bipartite:
            raise ValueError(
                "this cm.Graph has two id spaces (built with bipartite=True); only the "
                "matchings take it (suitor_matching, locally_dominant_matching, "
                "b_suitor_matching, roma_matching): build a one-id-space cm.Graph for this "
                "function" if graph.bipartite else
                "bipartite=True needs two id spaces, and this cm.Graph has one: build it "
                "with cm.Graph(..., bipartite=True)")
        own = graph._columns or (None, None, None)  # a frame's column names, as built
        given = {"source": (source, "src", own[0]), "destination": (destination, "dst", own[1]),
                 "weight": (weight, DEFAULT_WEIGHT, own[2])}
        changed = [name for name, (value, default, built) in given.items()
                   if value != default and value != built]
        if changed:
            raise ValueError(f"{', '.join(changed)} cannot be set for a cm.Graph: its columns "
                             f"were chosen when it was built")
        return graph if backend == "auto" else graph.on(backend)
    return Graph(graph, source, destination, weight, backend, bipartite=bipartite)


def internal_ids(graph: Graph, ids, what: str):
    """Internal ids (an ``xp`` int64 array) of the caller's vertex ids ``ids``.

    ``graph`` is a :class:`Graph` (its ``labels``, ``backend`` and
    ``frame_lib`` are used); ``ids`` is a Series of the frame library.
    Raises a ValueError naming ``what``, the count and the first id that is
    null or not a vertex of the graph.
    """
    labels = graph.labels
    n = len(labels)
    if len(ids) == 0:
        return graph.backend.xp.zeros(0, dtype=np.int64)
    ids = comparable_ids(ids, labels, what)
    pos = search_labels(labels, ids, what)
    pos = to_backend(_as_array(pos), np).astype(np.int64)
    clipped = np.clip(pos, 0, max(n - 1, 0))
    found = labels.take(host_or_device(clipped, graph.frame_lib)).reset_index(drop=True)
    given = ids.reset_index(drop=True)
    same = to_backend(_as_array(found == given), np).astype(bool)
    if n == 0 or not same.all():
        bad = np.flatnonzero(~same) if n else np.arange(len(ids))
        raise unknown_ids_error(what, len(bad), given.iloc[int(bad[0])])
    return to_backend(clipped, graph.backend.xp)


def comparable_ids(ids, labels, what: str):
    """The caller's ids ready to be looked up among the graph's ``labels`` (or
    a sample of them, of their dtype): a null id is a ValueError naming
    ``what``, the count and the first row; categories are their values; float
    ids given for a graph of integer ids are integers of the labels' dtype
    (compared as floats, 2.0**53 found the vertex 2**53 + 1), and one with a
    fraction, or outside the labels' integer type, is no vertex."""
    nulls = null_or_nan(ids)
    count = int(nulls.sum())
    if count:
        raise ValueError(f"{what}: {count} null id(s); first is row "
                         f"{plain(ids.index[first_true(nulls)])!r}")
    ids = category_values(ids)
    if getattr(labels.dtype, "kind", None) not in ("i", "u") or \
            getattr(ids.dtype, "kind", None) != "f":
        return ids
    info = np.iinfo(labels.dtype)
    values = ids.astype(np.float64)
    whole = (values == values.round()) & (values >= float(info.min)) & \
        (values < float(info.max) + 1.0)  # 2.0**63 (2.0**64): one past the largest
    if not bool(whole.all()):
        bad = ~whole
        raise unknown_ids_error(what, int(bad.sum()), ids.iloc[first_true(bad)])
    return ids.astype(labels.dtype)


def unknown_ids_error(what: str, count: int, first) -> ValueError:
    """``count`` ids given for ``what`` are not vertices of the graph."""
    return ValueError(f"{what}: {count} id(s) are not vertices of the graph; "
                      f"first is {plain(first)!r}")


def lacking_ids_error(what: str, count: int, first, thing: str) -> ValueError:
    """``count`` vertices of the graph have no ``thing`` (capacity, community) in ``what``."""
    return ValueError(f"{what}: {count} vertex/vertices of the graph have no {thing}; "
                      f"first is {plain(first)!r}")


def search_labels(labels, ids, what: str):
    """``labels.searchsorted(ids)``, or a TypeError naming ``what`` and both id
    types when the ids cannot be compared with the graph's (strings against
    ints, say)."""
    try:
        return labels.searchsorted(ids)
    except TypeError:
        raise TypeError(f"{what}: ids of type {describe_id_types(ids)} cannot be compared with "
                        f"the graph's vertex ids, of type {describe_id_types(labels)}; give "
                        f"them the graph's id type") from None


def _as_array(values):
    """Series or array values as a NumPy or CuPy array (``to_backend`` moves them)."""
    if type(values).__module__.startswith("cupy"):
        return values
    if hasattr(values, "to_numpy"):
        return values.to_numpy()
    if hasattr(values, "values_host"):
        return values.values_host
    return np.asarray(values)


def require_undirected(graph: Any, symmetrize: bool, what: str) -> None:
    """Refuse a directed graph object (or a Graph built from one) unless the
    caller asked to symmetrise it (a flag its callers checked at their
    boundary, before a Dask input leaves for its own path)."""
    directed = graph.directed_input if isinstance(graph, Graph) else is_directed_input(graph)
    if directed and not symmetrize:
        kind = "cm.Graph built from a directed graph" if isinstance(graph, Graph) else \
            f"directed {type(graph).__name__}"
        raise ValueError(f"{what} needs an undirected graph, got a {kind}; pass "
                         f"symmetrize=True to treat each edge as undirected")
