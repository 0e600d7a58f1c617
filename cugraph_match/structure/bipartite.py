"""Two tables: edges between two separate id spaces, and the linked-pairs frame.

A *two-sided* (bipartite) input is an edge list whose ``source`` ids and
``destination`` ids are two vertex sets, even where their values are equal:
left record 0 and right record 0 are two vertices, and every row is an edge
from the left side to the right side.  Everything that takes such input
(``bipartite=True`` on the matchings, ``cm.Graph(..., bipartite=True)``, the
exact assignment) reads it here and returns what a data engineer joins back:
the *linked pairs*, one row per pair, columns named after the caller's
``source`` / ``destination`` columns plus the weight.

Internal ids: each side is renumbered on its own in the sorted order of its
ids, the left side to ``0..n_left-1`` and the right side to
``0..n_right-1``; a one-id-space kernel sees the right side shifted after
every left id (``n_left..n_left+n_right-1``).  The tie order of the greedy
matchings, stated on internal ids, is therefore the one-id-space order with
every right id placed after every left id.

Inputs: pandas / cuDF edge-list frames and ``cugraph.Graph`` (the two
columns are the sides), ``networkx.Graph`` (NetworkX's convention: the node
attribute ``bipartite`` is 0 for the left side, 1 for the right), SciPy
sparse matrices (a biadjacency matrix: rows are the left side, columns the
right; rectangular is fine).  Nothing here imports a family: the matchings
(``cugraph_match.matching``) and the assignment solver
(``cugraph_match.bipartite``) sit above it.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .backend import to_backend
from .edges import index_dtype
from .inputs import DEFAULT_WEIGHT, EdgeInput, read_input
from .output import (host_or_device, masked_values, new_frame, output_weights,
                     take_labels)
from .renumber import renumber
from .sort_xp import lexsort_xp
from .checks import check_flag, declared_ids, plain
from .validation import EMPTY_MESSAGE, _describe_position, edge_problems, problem_error

#: How unmatched records appear in the linked-pairs frame (see :func:`linked_pairs_frame`).
UNMATCHED = ("drop", "left", "right", "both")
#: The keys of a per-side argument given as a dict (``vertices``, ``b``).
SIDE_KEYS = ("source", "destination")
#: What ``b`` (b-Suitor's capacities) may be for a two-sided graph, for messages.
B_FORMS = ("an int for every vertex; a dict {'source': ..., 'destination': ...} or a pair "
           "(source side, destination side), each an int, a Series indexed by that side's ids "
           "or a vertex|b frame of that side; or, for a NetworkX graph, a node attribute name")
#: The NetworkX node attribute naming a node's side (NetworkX's own convention).
NX_SIDE_ATTRIBUTE = "bipartite"


def one_capacity_object_error(b) -> TypeError:
    """The error for one Series or frame given as both sides' ``b``: which
    side it is for cannot be told (the sides' ids may be equal)."""
    return TypeError(f"b for a two-sided graph cannot be one {type(b).__name__}: source and "
                     f"destination ids are separate (they may be equal), so give one per "
                     f"side: b={{'source': ..., 'destination': ...}}")


@dataclass(frozen=True)
class Sides:
    """The two vertex sets of a two-sided graph and the names results use.

    ``left`` / ``right`` hold each side's ids sorted (a Series of the frame
    library): internal left id ``i`` is ``left.iloc[i]``, internal right id
    ``j`` (counted from 0 within the right side) is ``right.iloc[j]``.
    ``source`` / ``destination`` / ``weight`` name the linked-pairs frame's
    columns (the caller's column names; ``"weight"`` when unweighted).
    """

    frame_lib: Any
    source: str
    destination: str
    weight: str
    left: Any
    right: Any

    @property
    def n_left(self) -> int:
        return len(self.left)

    @property
    def n_right(self) -> int:
        return len(self.right)

    def describe(self, vertex: int) -> str:
        """A vertex in one id space (``0..n_left+n_right-1``) as the caller
        knows it, for messages: ``source 'a'`` or ``destination 3``."""
        vertex = int(vertex)
        if vertex < self.n_left:
            return f"{self.source} {plain(self.left.iloc[vertex])!r}"
        return f"{self.destination} {plain(self.right.iloc[vertex - self.n_left])!r}"


@dataclass
class TwoSidedEdges:
    """A two-sided edge list, validated and renumbered, row for row.

    ``left[i]`` / ``right[i]`` are row i's internal ids on each side (``xp``
    int arrays; ``right`` counted from 0 within the right side); ``weight``
    is the caller's weight column (a validated Series, or None when
    unweighted).  Duplicate rows are kept: merging them is the consumer's
    rule (the matchings keep the largest weight).
    """

    sides: Sides
    left: Any
    right: Any
    weight: Any

    @property
    def weighted(self) -> bool:
        return self.weight is not None


# --------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------


def check_bipartite_flag(bipartite) -> bool:
    """``bipartite`` must be a bool (a string such as ``"yes"`` is a mistake)."""
    return check_flag(bipartite, "bipartite")


def check_unmatched(unmatched, bipartite: bool = True) -> str:
    """``unmatched`` must be one of :data:`UNMATCHED`, and only two-sided
    results have unmatched records to show."""
    if not isinstance(unmatched, str) or unmatched not in UNMATCHED:
        raise ValueError(f"unmatched must be one of {UNMATCHED}, got {unmatched!r}")
    if unmatched != "drop" and not bipartite:
        raise ValueError(f"unmatched={unmatched!r} shapes the linked pairs of a two-sided "
                         f"matching: pass bipartite=True (one-id-space results have a row per "
                         f"vertex already)")
    return unmatched


def per_side(value, what: str) -> tuple[Any, Any]:
    """A per-side argument as ``(left, right)``: a dict with keys ``"source"``
    and/or ``"destination"`` (a missing key is None), or a pair (tuple or
    list of two).  Raises naming ``what``."""
    if isinstance(value, dict):
        unknown = [k for k in value if k not in SIDE_KEYS]
        if unknown:
            raise ValueError(f"{what}: keys must be 'source' and/or 'destination' (the two "
                             f"sides), got {unknown[0]!r}")
        return value.get("source"), value.get("destination")
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return value[0], value[1]
    raise TypeError(f"{what} for a two-sided graph must be a dict {{'source': ..., "
                    f"'destination': ...}} or a pair (source side, destination side), got "
                    f"{type(value).__name__}")


# --------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------


def read_two_sided(graph: Any, source: str = "src", destination: str = "dst",
                   weight: str | None = DEFAULT_WEIGHT, xp=np, vertices: Any = None, *,
                   positive_weights: bool = True) -> TwoSidedEdges:
    """Read, check and renumber a two-sided input (see the module notes).

    Parameters
    ----------
    graph : DataFrame, cugraph.Graph, networkx.Graph or scipy.sparse matrix
        The edges; a NetworkX graph's sides come from its ``bipartite`` node
        attribute, a sparse matrix's from its rows and columns.
    source, destination, weight : str
        Column names (frames); they also name the result's columns.
    xp : module
        NumPy or CuPy: where the internal ids are made.
    vertices : dict or pair, optional
        Each side's complete vertex set (frames only): ``{"source": ids,
        "destination": ids}`` or ``(left ids, right ids)``; either may be
        None (the ids on the edges).  A side given here is the whole side:
        a row whose id is not in it is refused, and its ids without an
        edge are unmatched records.
    positive_weights : bool
        Refuse zero and negative weights (the matchings); an assignment
        solver that minimises passes False.

    Raises
    ------
    ValueError, TypeError
        The single-machine checks (column, count, first bad row), a row
        whose end is not on its declared side, a NetworkX node without a
        ``bipartite`` attribute or an edge within one side.
    """
    declared: tuple[Any, Any] = (None, None)
    if _is_networkx(graph):
        _refuse_vertices(vertices, "a NetworkX graph declares its sides by the 'bipartite' "
                                   "node attribute")
        data, declared = _networkx_two_sided(graph, weight)
    elif _is_sparse(graph):
        _refuse_vertices(vertices, "a sparse matrix's rows are the source side and its "
                                   "columns the destination side")
        data, declared = _sparse_two_sided(graph)
    else:
        data = read_input(graph, source, destination, weight)
        if vertices is not None:
            declared = tuple(_declared_ids(ids, data.frame_lib, side)
                             for ids, side in zip(per_side(vertices, "vertices"), SIDE_KEYS))
    lib = data.frame_lib
    if len(data.frame) == 0 and all(d is None or len(d) == 0 for d in declared):
        raise ValueError(EMPTY_MESSAGE)
    for problem in edge_problems(data):
        if problem[0] == "non_positive" and not positive_weights:
            continue
        raise problem_error(*problem)
    weight_name = data.weight if data.weight is not None else DEFAULT_WEIGHT
    if weight_name in (data.source, data.destination) or data.source == data.destination:
        raise ValueError(f"the linked pairs are named after the columns "
                         f"{data.source!r}/{data.destination!r}/{weight_name!r}: they must "
                         f"differ")
    codes, labels = [], []
    for column, ids, side in zip((data.source, data.destination), declared, SIDE_KEYS):
        what = f"vertex ids in {column!r}"
        parts = [data.frame[column]] + ([ids] if ids is not None else [])
        side_codes, side_labels = renumber(parts, lib, xp, what)
        if ids is not None:
            _require_declared(data, column, side, side_codes, len(side_labels), xp)
        codes.append(side_codes[0])
        labels.append(side_labels.rename(column))
    sides = Sides(lib, data.source, data.destination, weight_name, labels[0], labels[1])
    w = data.frame[data.weight] if data.weight is not None else None
    return TwoSidedEdges(sides, codes[0], codes[1], w)


def one_id_space(edges: TwoSidedEdges, xp):
    """Row ends as one id space: ``(left, right + n_left, n)`` (``xp`` arrays
    of the index dtype that holds ``n = n_left + n_right``)."""
    n = edges.sides.n_left + edges.sides.n_right
    dtype = index_dtype(max(n, 1))
    return (edges.left.astype(dtype, copy=False),
            edges.right.astype(dtype) + dtype.type(edges.sides.n_left), n)


def _refuse_vertices(vertices, why: str) -> None:
    if vertices is not None:
        raise ValueError(f"vertices is for edge-list frames: {why}")


def _declared_ids(ids, frame_lib, side: str):
    """A side's declared vertex ids as a Series without nulls, or None."""
    if ids is None:
        return None
    return declared_ids(ids, frame_lib, f"vertices[{side!r}]", "the side's ids")


def _require_declared(data: EdgeInput, column: str, side: str, codes, n: int, xp) -> None:
    """Every id of ``column`` must be among the side's declared ids
    (``codes[1]``); else a ValueError naming the count and the first row."""
    declared = xp.zeros(n, dtype=bool)
    declared[codes[1]] = True
    outside = ~declared[codes[0]]
    count = int(outside.sum())
    if count:
        first = int(to_backend(xp.flatnonzero(outside)[:1], np)[0])
        raise ValueError(f"column {column!r} has {count} id(s) that are not among the declared "
                         f"{side} vertices (vertices[{side!r}]); first is "
                         f"{_describe_position(data, first)}")


def _is_networkx(graph) -> bool:
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - a base dependency
        return False
    return isinstance(graph, nx.Graph)


def _is_sparse(graph) -> bool:
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - a base dependency
        return False
    return sp.issparse(graph)


def _networkx_two_sided(G, weight):
    """A NetworkX graph's edges oriented left → right by the ``bipartite``
    node attribute (0: source side, 1: destination side), and both sides'
    nodes (isolated ones included)."""
    from .inputs import _nx_dtype

    nodes = list(G.nodes)
    side = {}
    lacking, odd = [], []
    for v, data in G.nodes(data=True):
        value = data.get(NX_SIDE_ATTRIBUTE)
        if NX_SIDE_ATTRIBUTE not in data:
            lacking.append(v)
        elif isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) \
                or value not in (0, 1):
            odd.append((v, value))
        else:
            side[v] = int(value)
    if lacking:
        raise ValueError(f"bipartite=True on a NetworkX graph reads each node's side from its "
                         f"'bipartite' node attribute (0: source side, 1: destination side, "
                         f"NetworkX's convention); {len(lacking)} of {len(nodes)} node(s) lack "
                         f"it; first is {lacking[0]!r} (set it with "
                         f"nx.set_node_attributes(G, sides, 'bipartite'))")
    if odd:
        raise ValueError(f"node attribute 'bipartite' must be 0 or 1; {len(odd)} node(s) have "
                         f"another value; first is {odd[0][0]!r} (bipartite={odd[0][1]!r})")
    us, vs, ws = [], [], []
    within = []
    for u, v, data in G.edges(data=True):
        if side[u] == side[v]:
            within.append((u, v))
            continue
        if side[u] == 1:
            u, v = v, u
        us.append(u)
        vs.append(v)
        ws.append(data.get(weight, 1) if weight is not None else 1)
    if within:
        u, v = within[0]
        raise ValueError(f"bipartite=True: {len(within)} edge(s) join two nodes of one side "
                         f"(node attribute 'bipartite'); first is ({u!r}, {v!r}), both "
                         f"bipartite={side[u]}")
    left = [v for v in nodes if side[v] == 0]
    right = [v for v in nodes if side[v] == 1]
    frame = pd.DataFrame({"src": pd.Series(us, dtype=_nx_dtype(us or left)),
                          "dst": pd.Series(vs, dtype=_nx_dtype(vs or right)),
                          "weight": pd.Series(ws, dtype=_nx_dtype(ws, numeric=True))})
    declared = (pd.Series(left, dtype=_nx_dtype(left)) if left else None,
                pd.Series(right, dtype=_nx_dtype(right)) if right else None)
    return EdgeInput(pd, frame, "src", "dst", "weight" if weight is not None else None), declared


def _sparse_two_sided(matrix):
    """A biadjacency matrix: row i is source vertex i, column j destination
    vertex j; an entry stored twice is their sum (as SciPy says)."""
    coo = matrix.tocoo(copy=True)
    coo.sum_duplicates()
    frame = pd.DataFrame({"src": coo.row.astype(np.int64), "dst": coo.col.astype(np.int64),
                          "weight": coo.data})
    rows, columns = matrix.shape
    declared = (pd.Series(np.arange(rows, dtype=np.int64)) if rows else None,
                pd.Series(np.arange(columns, dtype=np.int64)) if columns else None)
    return EdgeInput(pd, frame, "src", "dst", "weight"), declared


# --------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------


def linked_pairs_frame(sides: Sides, left, right, weights, unmatched: str = "drop", *,
                       ordered: bool = False, xp=None) -> Any:
    """The linked pairs: ``<source> | <destination> | <weight>``, one row per pair.

    Parameters
    ----------
    sides : Sides
    left, right : array
        The pairs' internal ids (``right`` counted from 0 within the right
        side), NumPy or CuPy.
    weights : array
        Each pair's weight (reported as float64; float32 stays float32).
    unmatched : {"drop", "left", "right", "both"}
        ``"drop"``: the pairs only.  ``"left"``: also every left record
        without a pair, its destination and weight null, as a left join
        keeps every left row.  ``"right"``: the pairs, then every right
        record without a pair (source and weight null).  ``"both"``: both.
    ordered : bool
        The pairs are sorted by (left, right) already (skips the sort).

    Returns
    -------
    DataFrame
        Rows sorted by source id (then destination id); with ``"left"`` /
        ``"both"`` each unmatched left record sits at its place in that
        order; unmatched right records follow, sorted by destination id.
        Columns that can hold nulls (destination and weight with
        ``"left"``, source and weight with ``"right"``, all with ``"both"``)
        are nullable whether or not a null occurs (pandas ``Int64``,
        ``Float64``, ...); with ``"drop"`` none is.  The index is
        ``0..rows-1``.
    """
    lib = sides.frame_lib
    xp = xp if xp is not None else (np if isinstance(left, np.ndarray) else _array_module(left))
    left = xp.asarray(left).astype(np.int64, copy=False)
    right = xp.asarray(right).astype(np.int64, copy=False)
    weights = output_weights(xp.asarray(weights))
    if not ordered and left.shape[0] > 1:
        order = lexsort_xp([right, left], xp)
        left, right, weights = left[order], right[order], weights[order]
    keep_left = unmatched in ("left", "both")
    keep_right = unmatched in ("right", "both")
    if keep_left:
        has = xp.zeros(sides.n_left, dtype=bool)
        has[left] = True
        lonely = xp.flatnonzero(~has)
        if lonely.shape[0]:
            # unmatched left records take their place in source order: one
            # stable merge of two sorted runs by their left id
            all_left = xp.concatenate([left, lonely])
            order = xp.argsort(all_left, kind="stable")
            right = xp.concatenate([right, xp.full(lonely.shape[0], -1, dtype=np.int64)])[order]
            weights = xp.concatenate([weights, xp.zeros(lonely.shape[0],
                                                        dtype=weights.dtype)])[order]
            left = all_left[order]
    if keep_right:
        has = xp.zeros(sides.n_right, dtype=bool)
        has[right[right >= 0]] = True
        lonely = xp.flatnonzero(~has)
        left = xp.concatenate([left, xp.full(lonely.shape[0], -1, dtype=np.int64)])
        right = xp.concatenate([right, lonely.astype(np.int64)])
        weights = xp.concatenate([weights, xp.zeros(lonely.shape[0], dtype=weights.dtype)])
    no_left, no_right = left < 0, right < 0
    columns = {
        sides.source: take_labels(_never_empty(sides.left, lib), xp.maximum(left, 0),
                                  no_left if keep_right else None, lib),
        sides.destination: take_labels(_never_empty(sides.right, lib), xp.maximum(right, 0),
                                       no_right if keep_left else None, lib),
        sides.weight: (masked_values(weights, no_left | no_right, lib)
                       if keep_left or keep_right else host_or_device(weights, lib)),
    }
    return new_frame(lib, {name: _unnamed(column) for name, column in columns.items()})


def linked_pairs_of_mates(sides: Sides, mate, mate_weight, unmatched: str = "drop", xp=None):
    """:func:`linked_pairs_frame` of a one-id-space ``mate`` array over
    ``n_left + n_right`` vertices (-1 unmatched; a left vertex's mate is a
    right one), ``mate_weight[v]`` the weight of v's pair."""
    xp = xp if xp is not None else (np if isinstance(mate, np.ndarray) else _array_module(mate))
    n_left = sides.n_left
    head = mate[:n_left]
    left = xp.flatnonzero(head >= 0)
    return linked_pairs_frame(sides, left, head[left] - n_left, mate_weight[:n_left][left],
                              unmatched, ordered=True, xp=xp)


def _never_empty(labels, lib):
    """A side's labels, or for an empty side one placeholder of its dtype (its
    column is all null then, and the null rows still index a label)."""
    if len(labels):
        return labels
    dtype = labels.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iufb":
        return lib.Series(np.zeros(1, dtype=dtype))
    if getattr(getattr(dtype, "numpy_dtype", None), "kind", "") in "iufb":
        # nullable numbers (Int64, ...): a placeholder 0, as for NumPy dtypes
        # (a null one made the empty side's column float64)
        return lib.Series([0], dtype=dtype)
    return lib.Series([None], dtype=dtype)


def _array_module(array):
    import cupy

    return cupy.get_array_module(array)


def _unnamed(column):
    """A column without a Series name or index of its own (the frame names it)."""
    if hasattr(column, "reset_index"):
        return column.reset_index(drop=True).rename(None)
    return column
