"""What the matchings need beyond one id space for ``bipartite=True``: a
capacity per side (b-Suitor) and a start given as linked pairs (ROMA).

The graph itself (two sides renumbered apart, the right side's internal ids
after every left id) and the linked-pairs frame live in
:mod:`cugraph_match.structure.bipartite`; the kernels are the one-id-space
kernels, unchanged.
"""

from __future__ import annotations

import numbers
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..structure.backend import to_backend
from ..structure.bipartite import (B_FORMS, NX_SIDE_ATTRIBUTE, SIDE_KEYS, Sides,
                                   one_capacity_object_error, per_side)
from ..structure.edges import find_edges
from ..structure.graph import Graph, internal_ids, lacking_ids_error
from ..structure.inputs import computed, frame_library
from ..structure.checks import (capacity_scalar, capacity_series, first_true, plain,
                                require_unique_ids, require_vertex_frame)



def _side_view(g: Graph, which: str):
    """A side as the lookups of ``structure.graph`` read a graph: its labels,
    frame library and backend (``internal_ids`` reads nothing else)."""
    sides = g.sides
    labels = (sides.left if which == "source" else sides.right).rename("vertex")
    return SimpleNamespace(labels=labels, frame_lib=sides.frame_lib, backend=g.backend)


def side_ids(g: Graph, which: str, ids, what: str):
    """Internal ids within one side (``0..n_side-1``, an ``xp`` int64 array)
    of the caller's ids on that side; unknown ids raise naming ``what``."""
    return internal_ids(_side_view(g, which), ids, what)


# --------------------------------------------------------------------------
# b-Suitor: a capacity per side
# --------------------------------------------------------------------------


def side_capacities(g: Graph, graph: Any, b: Any):
    """b(v) per internal vertex (left side first) as an ``xp`` int64 array.

    ``b`` is one int for everybody; a dict ``{"source": ..., "destination":
    ...}`` or a pair, each side an int, a Series indexed by that side's ids
    or a ``vertex | b`` frame of that side (every vertex of the side needs
    one); or, for a NetworkX graph, a node attribute name.  A lone Series or
    frame is refused: the sides' ids may collide, so it could not say which
    side it is for.
    """
    xp = g.backend.xp
    sides = g.sides
    if isinstance(b, (bool, np.bool_)):
        raise TypeError(f"b must be {B_FORMS}; got {b!r}")
    if isinstance(b, numbers.Real):
        return xp.full(g.num_vertices, capacity_scalar(b, "b"), dtype=np.int64)
    if isinstance(b, str):
        return xp.concatenate([_listed_capacities(g, which, *listed) for which, listed in
                               zip(SIDE_KEYS, _node_attribute_sides(graph, b, sides))])
    if isinstance(b, (dict, tuple, list)):
        left, right = per_side(b, "b")
        for value, side in ((left, "source"), (right, "destination")):
            if value is None:
                raise ValueError(f"b: the {side} side has no capacity; give both sides "
                                 f"(b={{'source': ..., 'destination': ...}})")
    elif hasattr(b, "columns") or (hasattr(b, "index") and hasattr(b, "dtype")):
        raise one_capacity_object_error(b)
    else:
        raise TypeError(f"b must be {B_FORMS}; got {type(b).__name__}")
    return xp.concatenate([_side_capacity(g, left, "source"),
                           _side_capacity(g, right, "destination")])


def _side_capacity(g: Graph, b, which: str):
    """One side's capacities as an ``xp`` int64 array over that side."""
    sides = g.sides
    n = sides.n_left if which == "source" else sides.n_right
    what = f"b[{which!r}]"
    b = computed(b)  # a side's values from a Dask pipeline, as the Dask path reads them
    if isinstance(b, (bool, np.bool_)):
        raise TypeError(f"{what} must be an int, a Series or a vertex|b frame, got {b!r}")
    if isinstance(b, numbers.Real):
        return g.backend.xp.full(n, capacity_scalar(b, what), dtype=np.int64)
    if hasattr(b, "columns"):
        require_vertex_frame(b, ("vertex", "b"), what)
        return _listed_capacities(g, which, b["vertex"], b["b"], what)
    if hasattr(b, "index") and hasattr(b, "dtype"):
        return _listed_capacities(g, which, b.index.to_series(), b, what)
    raise TypeError(f"{what} must be an int, a Series indexed by the {which} side's ids or "
                    f"a vertex|b frame, got {type(b).__name__}")


def _listed_capacities(g: Graph, which: str, vertices, values, what: str):
    """Capacities listed per vertex of one side: every vertex of the side
    once, each value checked as one-id-space capacities are."""
    xp = g.backend.xp
    sides = g.sides
    n = sides.n_left if which == "source" else sides.n_right
    lib = sides.frame_lib
    if frame_library(vertices) is not lib:
        vertices = lib.Series(vertices.to_pandas() if hasattr(vertices, "to_pandas")
                              else vertices)
        values = lib.Series(values.to_pandas() if hasattr(values, "to_pandas") else values)
    plain_vertices = vertices.reset_index(drop=True)

    def where(mask) -> str:
        return f"for {which} vertex {plain(plain_vertices[first_true(mask)])!r}"

    values = capacity_series(values.reset_index(drop=True), what, where)
    require_unique_ids(plain_vertices, what)
    ids = side_ids(g, which, plain_vertices, what)
    given = xp.zeros(n, dtype=bool)
    given[ids] = True
    if not bool(given.all()):
        labels = sides.left if which == "source" else sides.right
        lacking = np.flatnonzero(~to_backend(given, np))
        raise lacking_ids_error(what, len(lacking), labels.iloc[int(lacking[0])], "capacity")
    cap = xp.zeros(n, dtype=np.int64)
    cap[ids] = values.to_cupy() if (xp is not np and hasattr(values, "to_cupy")) \
        else to_backend(values.to_numpy(), xp)
    return cap


def _node_attribute_sides(graph, name: str, sides: Sides):
    """A NetworkX node attribute as one (vertices, values, what) per side."""
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - a base dependency
        nx = None
    if nx is None or not isinstance(graph, nx.Graph):
        raise ValueError(f"b={name!r} names a node attribute, which only a networkx.Graph "
                         f"carries; for an edge list give b per side: "
                         f"b={{'source': ..., 'destination': ...}}")
    import pandas as pd

    lacking = [v for v in graph.nodes if name not in graph.nodes[v]]
    if lacking:
        raise ValueError(f"node attribute {name!r}: {len(lacking)} node(s) lack it; "
                         f"first is {lacking[0]!r}")
    out = []
    for side in (0, 1):
        nodes = [v for v, s in graph.nodes(data=NX_SIDE_ATTRIBUTE) if s == side]
        values = [graph.nodes[v][name] for v in nodes]
        big = any(isinstance(x, numbers.Integral) and not -2**63 <= x < 2**63 for x in values)
        labels = sides.left if side == 0 else sides.right
        out.append((pd.Series(nodes, dtype=labels.dtype if len(nodes) else object),
                    pd.Series(values, dtype=object) if big else pd.Series(values),
                    f"node attribute {name!r} ({SIDE_KEYS[side]} side)"))
    return out


# --------------------------------------------------------------------------
# ROMA: a start given as linked pairs
# --------------------------------------------------------------------------


def start_mates(g: Graph, initial) -> Any:
    """A ROMA start for a two-sided graph: a name (``"greedy"``, ``"empty"``,
    ...) as it is, or a linked-pairs frame (columns named like the graph's
    sides, as :func:`~cugraph_match.suitor_matching` with ``bipartite=True``
    returns them; rows with a null end are unmatched records and skipped; a
    weight column is ignored) as an internal ``mate`` array on the graph's
    backend, checked to be a matching of the graph."""
    if initial is None or isinstance(initial, str):
        return initial
    sides = g.sides
    require_vertex_frame(initial, (sides.source, sides.destination), "initial")
    lib = sides.frame_lib
    if frame_library(initial) is not lib:
        frame = initial[[sides.source, sides.destination]]
        initial = frame.to_pandas() if hasattr(frame, "to_pandas") else lib.from_pandas(frame)
    both = initial[sides.source].notna() & initial[sides.destination].notna()
    pairs = initial[both]
    for column in (sides.source, sides.destination):
        require_unique_ids(pairs[column], f"initial {column!r}")
    xp = g.backend.xp
    left = side_ids(g, "source", pairs[sides.source], f"initial {sides.source!r}")
    right = side_ids(g, "destination", pairs[sides.destination],
                     f"initial {sides.destination!r}") + sides.n_left
    found, _ = find_edges(g.edges, left, right, xp)
    if not bool(found.all()):
        at = int(to_backend(xp.flatnonzero(~found)[:1], np)[0])
        raise ValueError(f"initial is not a matching of the graph: {int((~found).sum())} "
                         f"pair(s) are not edges; first is "
                         f"({sides.describe(int(to_backend(left[at:at + 1], np)[0]))}, "
                         f"{sides.describe(int(to_backend(right[at:at + 1], np)[0]))})")
    mate = xp.full(g.num_vertices, -1, dtype=np.int64)
    mate[left] = right
    mate[right] = left
    return mate
