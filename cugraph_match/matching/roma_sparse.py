"""ROMA on graphs (beyond the thesis; what an edge-list user needs): on the
pipeline's neighbour rows, the maximum-gain alternating path or cycle centred
at each vertex with at most two non-matching edges."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from ..structure.backend import to_backend
from ..structure.checks import plain, require_unique_ids
from ..structure.edges import find_edges
from ..structure.graph import Graph, internal_ids
from ..structure.inputs import frame_library
from ..structure.bipartite import linked_pairs_of_mates
from ..structure.output import matching_frame
from . import roma_cpu as cpu
from .properties import half_of_doubled_sum
from .roma_common import LARGEST_SAFE_WEIGHT, RomaInfo, launch_threads, phase_orders, \
    require_symmetric, run_phases, start_name, too_large

#: Where a phase may start on a graph: the greedy matching (Suitor's) or an empty one.
SPARSE_STARTS = ("greedy", "suitor", "empty")
#: Threads per block by default: four warps (a warp per centre).
SPARSE_THREADS = 128
#: The smallest positive float64 (2**-1074).
SMALLEST_SUBNORMAL = math.ldexp(1.0, -1074)


def check_integer_edge_weights(graph, weight, source: str, destination: str,
                               bipartite: bool) -> None:
    """An edge list's integer ``weight`` column: every |w| <= 2**51, or a
    ValueError naming the column, the count and the first bad row.  A
    self-loop's weight is not checked (one id space): a matching has no
    self-loop, and a cm.Graph of the same rows holds its loops apart."""
    if weight is None or not hasattr(graph, "columns") or weight not in graph.columns:
        return
    column = graph[weight]
    if getattr(column, "ndim", 1) != 1 or column.dtype.kind not in "iu":
        return  # repeated columns and the like: as_graph names the problem
    considered = column.notna()
    if not bipartite and source in graph.columns and destination in graph.columns \
            and getattr(graph[source], "ndim", 1) == 1 \
            and getattr(graph[destination], "ndim", 1) == 1:
        try:
            considered = considered & ~(graph[source] == graph[destination]).fillna(False)
        except TypeError:  # ids of two types: as_graph names the problem
            pass
    present = np.asarray(to_backend(considered.to_numpy(), np), dtype=bool)
    kind = np.dtype(np.uint64 if column.dtype.kind == "u" else np.int64)
    values = np.asarray(to_backend(column[considered].to_numpy(dtype=kind), np))
    bad = too_large(values)
    count = int(bad.sum())
    if count:
        at = int(np.flatnonzero(bad)[0])
        row = int(np.flatnonzero(present)[at])
        raise ValueError(f"weight column {weight!r} has {count} integer value(s) above 2**51 "
                         f"in magnitude, where float64 gains (sums of three weights) stop "
                         f"being exact; first is row {row} ({plain(values[at])!r}); convert "
                         f"the weights to float or scale them down")


def check_integer_graph_weights(g: Graph) -> None:
    """The same for any other graph input (cm.Graph, NetworkX, SciPy): the
    first bad edge named by its ends."""
    w = g.edges.w
    if w is None or w.dtype.kind not in "iu":
        return
    xp = g.backend.xp
    bad = too_large(w)
    count = int(bad.sum())
    if count:
        e = int(to_backend(xp.flatnonzero(bad)[:1], np)[0])
        lo = int(to_backend(g.edges.lo[e:e + 1], np)[0])
        hi = int(to_backend(g.edges.hi[e:e + 1], np)[0])
        value = plain(to_backend(w[e:e + 1], np)[0])
        ends = (f"{g.sides.describe(lo)}, {g.sides.describe(hi)}" if g.bipartite else
                f"{plain(g.labels.iloc[lo])!r}, {plain(g.labels.iloc[hi])!r}")
        raise ValueError(f"weight: {count} integer edge weight(s) above 2**51 in magnitude, "
                         f"where float64 gains (sums of three weights) stop being exact; first "
                         f"is edge ({ends}) = {value!r}; convert the weights to float or scale "
                         f"them down")


def _sparse_start(g: Graph, initial):
    """(mate, mw): the start on the graph's backend, mw[v] = w(v, mate[v]) in float64."""
    from .mates import weights_of_keys
    from .suitor import suitor_mates

    xp = g.backend.xp
    n = g.num_vertices
    given = initial if not isinstance(initial, (str, type(None))) and g.bipartite else None
    name = None if given is not None else start_name(initial, SPARSE_STARTS, "greedy")
    if name == "empty":
        return xp.full(n, -1, dtype=np.int64), xp.zeros(n, dtype=np.float64)
    if name == "greedy":
        mate, keys = suitor_mates(g)
        mw = weights_of_keys(g, keys).astype(np.float64)
        return mate.astype(np.int64), xp.where(mate >= 0, mw, 0.0)
    # a two-sided start arrives as a checked mate array (two_sided.start_mates)
    mate = given if given is not None else _graph_initial(g, initial)
    v = xp.flatnonzero(mate >= 0)
    found, at = find_edges(g.edges, v, mate[v], xp)
    if not bool(found.all()):
        first = int(to_backend(v[xp.flatnonzero(~found)[:1]], np)[0])
        labels = g.labels
        x, y = labels.iloc[first], labels.iloc[int(to_backend(mate[first:first + 1], np)[0])]
        raise ValueError(f"initial is not a matching of the graph: "
                         f"{int((~found).sum()) // 2} matched pair(s) are not edges; first is "
                         f"({plain(x)!r}, {plain(y)!r})")
    return mate, _edge_weights_at(g, v, at)


def _edge_weights_at(g: Graph, v, at):
    """``mw``: ``mw[v] = `` the weight of edge ``at`` in float64, 0 elsewhere."""
    mw = g.backend.xp.zeros(g.num_vertices, dtype=np.float64)
    mw[v] = g.edges.w[at].astype(np.float64) if g.edges.w is not None else 1.0
    return mw


def _matched_weights(g: Graph, mate):
    """``mw[v] = w(v, mate[v])`` in float64 (0 when unmatched), read from the graph's edges."""
    v = g.backend.xp.flatnonzero(mate >= 0)
    return _edge_weights_at(g, v, find_edges(g.edges, v, mate[v], g.backend.xp)[1])


def _graph_initial(g: Graph, frame):
    """The caller's ``vertex | mate`` frame as an internal mate array on the host, checked."""
    lib = g.frame_lib
    if frame_library(frame) is not lib:  # one library for the id lookups
        frame = frame.to_pandas() if lib is pd else lib.from_pandas(frame[["vertex", "mate"]])
    require_unique_ids(frame["vertex"], "initial")
    # every vertex id is checked, those with a null mate too (as for matrices)
    known = frame["vertex"].notna()
    internal_ids(g, frame["vertex"][known], "initial 'vertex'")
    present = frame["mate"].notna()
    vertex = to_backend(internal_ids(g, frame["vertex"][present], "initial 'vertex'"), np)
    mates = to_backend(internal_ids(g, frame["mate"][present], "initial 'mate'"), np)
    mate = np.full(g.num_vertices, -1, dtype=np.int64)
    mate[vertex] = mates
    labels = g.labels.to_pandas() if hasattr(g.labels, "to_pandas") else g.labels
    require_symmetric(mate, lambda x: labels.iloc[x])
    return to_backend(mate, g.backend.xp)


def roma_sparse(g: Graph, initial, phases, threshold, seed, threads_per_block,
                unmatched: str = "drop"):
    xp = g.backend.xp
    gpu = g.backend.name == "gpu"
    threads = launch_threads(threads_per_block, SPARSE_THREADS, False)
    clock = time.perf_counter()
    mate, mw = _sparse_start(g, initial)
    info = RomaInfo(start_weight=half_of_doubled_sum(mw),
                    start_seconds=time.perf_counter() - clock)
    n = g.num_vertices
    if phases and g.num_edges:
        rows = g.neighbour_csr()
        weights = rows.weights.astype(np.float64) if rows.weights is not None else \
            xp.ones(rows.indices.shape[0], dtype=np.float64)
        # weights near 1.7e308: a gain's sum overflowed to inf and a losing
        # flip was taken; the phases run on weights divided by a power of two
        # (exact, gains and threshold alike) and mw is scaled back after
        largest = float(weights.max()) if weights.shape[0] else 0.0
        scale = max(0, math.frexp(largest)[1] - math.frexp(LARGEST_SAFE_WEIGHT)[1] + 1) \
            if largest >= LARGEST_SAFE_WEIGHT else 0
        if scale:
            weights, mw = xp.ldexp(weights, -scale), xp.ldexp(mw, -scale)
            # a tiny weight may lose bits when scaled (5e-324 becomes 0): a
            # gain computed on the scaled weights is then off by at most 2.5
            # units of 2**-1074, so a change must gain 3 more of them to
            # raise the caller's weight
            threshold = math.ldexp(float(threshold), -scale) + 3 * SMALLEST_SUBNORMAL
        if gpu:
            from .roma_gpu import sparse_phase_gpu

            locks = xp.full(n, -1, dtype=np.int64)
            counters = xp.zeros(2, dtype=np.int64)
            run = lambda _: sparse_phase_gpu(rows.offsets, rows.indices, weights,  # noqa: E731
                                             mate, mw, locks, threshold, counters, threads)
            orders = None
        else:
            stamp = np.full(n, -1, dtype=np.int64)
            w_at_u = np.zeros(n, dtype=np.float64)
            epoch = [0]

            def run(order):
                flips, epoch[0] = cpu.sparse_phase(rows.offsets, rows.indices, weights, mate, mw,
                                                   order, float(threshold), stamp, w_at_u,
                                                   epoch[0])
                return flips, flips

            orders = phase_orders(seed, n)
        run_phases(run, orders, phases, info, n, g.num_edges, mw, scale)
        if scale:
            mw = _matched_weights(g, mate)  # the caller's weights, tiny ones unrounded
    elif phases:
        info.flips, info.attempts, info.phase_seconds, info.converged = [0], [0], [0.0], True
    info.weight = half_of_doubled_sum(mw)
    w = g.edges.w
    out = np.float32 if w is None or w.dtype == np.float32 else np.float64
    if g.bipartite:
        return linked_pairs_of_mates(g.sides, mate, mw.astype(out), unmatched, xp), info
    return matching_frame(g.labels, g.frame_lib, mate, mw.astype(out)), info
