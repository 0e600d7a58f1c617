"""What a worker runs for Louvain and Leiden on Dask when its passes run on
its GPU (``backend="gpu"``, or ``"auto"`` with Dask-cuDF partitions and a
working GPU on every worker): the device twin of ``louvain_worker``'s
tasks, which call these when the level's state lives on the device.

The worker's state is the CPU path's (communities of the local vertices,
slots, the slots' totals and sizes from the client) in device arrays; a
part built on the GPU is read where it is, a host part (the coarse levels,
built from the summed pieces) is copied over once per level.  Only the
messages leave the device: the cut edges' communities for the other
workers, the per-community changes and modularity sums for the client, the
coarse edges for the next level's build, the result.

**A pass** is the single GPU's move step (``structure/community_gpu``: the
degree buckets, a hash table per vertex, ``commit_moves``) over the owned
vertices the driver's rule lets move, each bucket deciding at once from the
totals after the buckets before it (the worker's own earlier moves; the
other workers' come with the client's totals after the pass, as on the
CPU).  Because a bucket's vertices decide at once, the kernels' singleton
rule (a vertex alone does not join a singleton community of a higher id)
holds in every phase, where the CPU workers, moving one vertex at a time,
keep it for other workers' singletons after the first phase only.  For the
same reason a pass may overshoot more often than a CPU worker's: the
driver takes such a pass back and goes on with every vertex on a coin
(``dask.louvain.DAMPED_TRIES``; the reports say ``synchronous``).

**Exact sums.**  Edge weights are int64 fixed point, scaled by a power of
two that puts the worker's total edge weight below 2**60 (``scale``; a
weight below 2**-61 of that total counts as one unit, 2**-60 of it, so that
no coarse edge a level reports is 0): every sum a decision or a
report reads (degrees, the rows' tables, totals' changes, modularity's
sums, coarse edges) is an exact integer, so the result does not depend on
the order atomics land in, and is the same on every run.  Reports go out
divided by ``scale`` (exact: a power of two).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..structure.community_gpu import (bucket_tables, commit_moves, components_gpu, move_bucket,
                                       segment_sum)
from ..structure.edges import to_host
from ..structure.hashing import GOLDEN, mix64
from ..structure.output import row_ids
from ..structure.sort_xp import bincount_xp, lexsort_xp

#: a worker's total edge weight, in fixed point, stays below 2**SCALE_BITS
SCALE_BITS = 60
LABEL_NONE = np.iinfo(np.int64).max


def _on_device(part, xp, array, dtype=None):
    """``array`` of ``part`` as a device array (a device part's as it is)."""
    a = array if part.on_device else xp.asarray(array)
    return a if dtype is None else a.astype(dtype, copy=False)


def start(part, first: int, xp, exponent: int = 0) -> tuple[dict, dict]:
    """The device state of a level (every owned vertex alone, named by its
    level-wide id from ``first``) and the owned degrees' sum; every weight
    divided by 2**exponent first (``louvain_worker.start``)."""
    pref = part.pref
    offsets = _on_device(part, xp, pref.offsets, np.int64)
    indices = _on_device(part, xp, pref.indices, np.int64)
    n = int(offsets.shape[0]) - 1
    row = row_ids(offsets, xp)
    if pref.weight_of_key is not None:
        weight = _on_device(part, xp, pref.weight_of_key, np.float64)[
            _on_device(part, xp, pref.keys)]
    else:
        weight = xp.ones(int(indices.shape[0]), dtype=np.float64)
    loop = _on_device(part, xp, part.loop, np.float64) if part.loop is not None else \
        xp.zeros(n, dtype=np.float64)
    if exponent:
        weight, loop = xp.ldexp(weight, -exponent), xp.ldexp(loop, -exponent)
    whole = float(weight.sum()) + 2.0 * float(loop.sum())
    scale = math.ldexp(1.0, SCALE_BITS - math.frexp(whole)[1]) if whole > 0 else 1.0
    # a weight below one unit counts as one, not as 0: the coarse edges the
    # level reports must stay positive (the next level's build, and the finish
    # on one worker, refuse a zero weight as they refuse the caller's)
    fixed = xp.maximum(xp.rint(weight * scale), 1.0).astype(np.int64)
    loop_fixed = xp.where(loop > 0, xp.maximum(xp.rint(loop * scale), 1.0), 0.0).astype(np.int64)
    del weight, loop
    own = slice(part.own_lo, part.own_hi)
    n_own = part.own_hi - part.own_lo
    # every row is owned (a ghost's row is empty): k of the ghosts is 0
    k_fixed = segment_sum(fixed, row, n, xp) + 2 * loop_fixed
    outside = (indices < part.own_lo) | (indices >= part.own_hi)
    boundary = segment_sum(outside.astype(np.int64), row, n, xp)[own] > 0
    community = xp.full(n, -1, dtype=np.int64)
    community[own] = first + xp.arange(n_own, dtype=np.int64)
    state = {"xp": xp, "scale": scale, "offsets": offsets, "indices": indices, "row": row,
             "fixed": fixed, "loop_fixed": loop_fixed, "k_fixed": k_fixed,
             "degree": k_fixed[own].astype(np.float64) / scale, "boundary": boundary,
             "community": community, "first": int(first)}
    return state, {"two_m": int(k_fixed.sum()) / scale, "owned": n_own}


def _cut(part, state, name: str):
    """A cut-edge array of the part on the device (a host part's copied once)."""
    cached = state.setdefault("cut", {})
    if name not in cached:
        cached[name] = _on_device(part, state["xp"], getattr(part, name), np.int64)
    return cached[name]


def cut_values(part, state, key: str, k: int) -> np.ndarray:
    """``state[key]`` of this worker's ends of its cut edges with worker k,
    on the host: the message to k."""
    cut = slice(int(part.cut_start[k]), int(part.cut_start[k + 1]))
    return to_host(state[key][_cut(part, state, "cut_own")[cut]])


def receive(part, state, blocks, key: str) -> None:
    """The other workers' blocks into ``state[key]`` at their ghosts."""
    xp = state["xp"]
    values = state[key]
    ghost = _cut(part, state, "cut_ghost")
    for k, block in enumerate(blocks):
        if block is not None and k != part.me:
            cut = slice(int(part.cut_start[k]), int(part.cut_start[k + 1]))
            values[ghost[cut]] = xp.asarray(block)


def install_slots(state) -> None:
    xp = state["xp"]
    slot_ids = xp.unique(state["community"])
    state["slot_ids"] = slot_ids
    state["slot_of"] = xp.searchsorted(slot_ids, state["community"]).astype(np.int64)


def modularity_sums(part, state) -> dict:
    """This worker's share of the edge weight and of the weight inside
    communities: the edges whose smaller end it owns, self-loops once."""
    row, indices, fixed, community = state["row"], state["indices"], state["fixed"], \
        state["community"]
    upper = indices > row
    same = upper & (community[indices] == community[row])
    loops = int(state["loop_fixed"].sum())
    scale = state["scale"]
    return {"total": (int(fixed[upper].sum()) + loops) / scale,
            "inside": (int(fixed[same].sum()) + loops) / scale}


def phase_totals(part, state) -> dict:
    """Summed degree and member count per community of the owned vertices,
    the slots' ids and the modularity sums (all on the host)."""
    xp = state["xp"]
    install_slots(state)
    slot_ids = state["slot_ids"]
    n_slots = int(slot_ids.shape[0])
    own = state["slot_of"][part.own_lo:part.own_hi]
    sums = segment_sum(state["k_fixed"][part.own_lo:part.own_hi], own, n_slots, xp)
    counts = bincount_xp(own, xp, minlength=n_slots)
    present = xp.flatnonzero(counts)
    return {"ids": to_host(slot_ids[present]),
            "sums": to_host(sums[present]).astype(np.float64) / state["scale"],
            "counts": to_host(counts[present]).astype(np.int64), "slots": to_host(slot_ids),
            "synchronous": True, **modularity_sums(part, state)}


def take_totals(state, values: tuple) -> None:
    xp = state["xp"]
    state["total"] = xp.asarray(np.asarray(values[0], dtype=np.float64))
    state["size"] = xp.asarray(np.asarray(values[1], dtype=np.int64))


def _movable(part, state, boundary_rule: int):
    """Which owned vertices the driver's rule lets move this pass (see
    ``louvain_worker.owned_move_pass``: 1 all, 0 none with a ghost
    neighbour, larger a coin per boundary vertex salted by it; negative, a
    damped pass of the driver's, a coin per vertex salted by its negation)."""
    xp = state["xp"]
    if boundary_rule == 1:
        return xp.ones(part.own_hi - part.own_lo, dtype=np.bool_)
    boundary = state["boundary"]
    if boundary_rule == 0:
        return ~boundary
    v = xp.arange(part.own_lo, part.own_hi, dtype=np.int64).astype(np.uint64)
    x = mix64(v * np.uint64(GOLDEN) + np.uint64(abs(boundary_rule)))
    heads = (x & np.uint64(1)) == np.uint64(1)
    return ~heads if boundary_rule < 0 else ~(boundary & heads)


def _buckets(state, name: str, offsets):
    """:func:`bucket_tables` of a CSR, kept for the level (or the refinement)."""
    cached = state.setdefault("buckets", {})
    if name not in cached:
        cached[name] = bucket_tables(offsets, state["xp"])
    return cached[name]


def move(part, state, two_m: float, resolution: float, boundary_rule: int) -> dict:
    """One pass over the owned vertices the rule lets move (a refinement's:
    those alone and eligible, along edges inside their community); returns
    the moves as per-community changes (host arrays) and their count."""
    xp = state["xp"]
    scale = state["scale"]
    slot_of, slot_ids = state["slot_of"], state["slot_ids"]
    n_slots = int(slot_ids.shape[0])
    k_fixed = state["k_fixed"]
    lo, hi = part.own_lo, part.own_hi
    movable = _movable(part, state, boundary_rule)
    if "parent" in state:  # a refinement: only singletons, eligible, inside their community
        movable &= state["eligible"] & (state["size"][slot_of[lo:hi]] == 1)
        offsets, indices, fixed = state["inner"]
        name = "inner"
    else:
        offsets, indices, fixed = state["offsets"], state["indices"], state["fixed"]
        name = "rows"
    buckets, tables = _buckets(state, name, offsets)
    a = state["total"] * scale  # the slots' totals in the weights' units
    csize = state["size"].copy()
    two_m_fixed = two_m * scale
    new_community = slot_of.copy()
    improvement = xp.zeros(int(slot_of.shape[0]), dtype=np.float64)
    for members, group, size in buckets:
        members = members[movable[members - lo]] if members.shape[0] else members
        if members.shape[0] == 0:
            continue
        move_bucket(members, group, size, tables, offsets, indices, fixed, slot_of, k_fixed, a,
                    csize, two_m_fixed, resolution, new_community, improvement, xp)
        before = slot_of[members]
        commit_moves(members, slot_of, new_community, improvement, k_fixed, two_m_fixed,
                     resolution, xp)
        after = slot_of[members]
        went = after != before
        if bool(went.any()):  # the later buckets see this one's moves
            kf = k_fixed[members[went]]
            a += (segment_sum(kf, after[went], n_slots, xp) -
                  segment_sum(kf, before[went], n_slots, xp)).astype(np.float64)
            csize += bincount_xp(after[went], xp, minlength=n_slots) - \
                bincount_xp(before[went], xp, minlength=n_slots)
    # the pass's moves as changes per community (exact integer sums)
    community = state["community"]
    was = community[lo:hi]
    now = slot_ids[slot_of[lo:hi]]
    went = xp.flatnonzero(was != now)
    old = xp.searchsorted(slot_ids, was[went]).astype(np.int64)
    new = slot_of[lo:hi][went]
    kf = k_fixed[lo:hi][went]
    sums = segment_sum(kf, new, n_slots, xp) - segment_sum(kf, old, n_slots, xp)
    joined = bincount_xp(new, xp, minlength=n_slots)
    left = bincount_xp(old, xp, minlength=n_slots)
    touched = xp.flatnonzero((joined + left) > 0)
    state["before"] = community.copy()
    community[lo:hi] = now
    return {"moved": int(went.shape[0]), "ids": to_host(slot_ids[touched]),
            "sums": to_host(sums[touched]).astype(np.float64) / scale,
            "counts": to_host((joined - left)[touched]).astype(np.int64)}


def coarse_edges(part, state) -> pd.DataFrame:
    """``src | dst | weight`` of this worker's share of the next level, each
    pair summed (``louvain_worker.coarse_buckets`` says which worker
    reports which edge)."""
    xp = state["xp"]
    install_slots(state)
    slot_of, slot_ids = state["slot_of"], state["slot_ids"]
    row, indices, fixed = state["row"], state["indices"], state["fixed"]
    lo_own, hi_own = part.own_lo, part.own_hi
    inner = (indices >= lo_own) & (indices < hi_own)
    report = inner & (indices > row)
    cut = xp.flatnonzero(~inner)
    if cut.shape[0]:
        owner = _cut(part, state, "owner_of")[indices[cut]]
        cut_start = xp.asarray(np.asarray(part.cut_start, dtype=np.int64))
        place = _cut(part, state, "entry_cut")[cut] - cut_start[owner]
        report[cut] = ((place % 2) == 0) == (part.me < owner)
    at = xp.flatnonzero(report)
    a, b = slot_of[row[at]], slot_of[indices[at]]
    loops = xp.flatnonzero(state["loop_fixed"] > 0)
    low = xp.concatenate([xp.minimum(a, b), slot_of[loops]])
    high = xp.concatenate([xp.maximum(a, b), slot_of[loops]])
    weight = xp.concatenate([fixed[at], state["loop_fixed"][loops]])
    del a, b, at, report
    order = lexsort_xp([high, low], xp)
    low, high, weight = low[order], high[order], weight[order]
    first = xp.ones(int(low.shape[0]), dtype=np.bool_)
    first[1:] = (low[1:] != low[:-1]) | (high[1:] != high[:-1])
    group = xp.cumsum(first.astype(np.int64)) - 1
    pairs = int(first.sum())
    summed = segment_sum(weight, group, pairs, xp)
    starts = xp.flatnonzero(first)
    return pd.DataFrame({"src": to_host(slot_ids[low[starts]]),
                         "dst": to_host(slot_ids[high[starts]]),
                         "weight": to_host(summed).astype(np.float64) / state["scale"]})


def owned(part, state, key: str = "community") -> np.ndarray:
    """``state[key]`` of the owned vertices, on the host."""
    return to_host(state[key][part.own_lo:part.own_hi])


def set_owned(part, state, values: np.ndarray) -> None:
    state["community"][part.own_lo:part.own_hi] = state["xp"].asarray(
        np.asarray(values, dtype=np.int64))


def relabel(part, state, ids: np.ndarray, values: np.ndarray) -> None:
    xp = state["xp"]
    own = state["community"][part.own_lo:part.own_hi]
    state["community"][part.own_lo:part.own_hi] = xp.asarray(values)[
        xp.searchsorted(xp.asarray(ids), own)]


def refinement_start(part, state) -> dict:
    """The communities become the parents; returns the owned degrees' sums
    per parent (host)."""
    xp = state["xp"]
    state["parent"] = state["community"].copy()
    parent = state["parent"][part.own_lo:part.own_hi]
    ids = xp.unique(parent)
    where = xp.searchsorted(ids, parent).astype(np.int64)
    sums = segment_sum(state["k_fixed"][part.own_lo:part.own_hi], where, int(ids.shape[0]), xp)
    return {"ids": to_host(ids).astype(np.int64),
            "sums": to_host(sums).astype(np.float64) / state["scale"]}


def refinement_singletons(part, state, values: tuple, two_m: float, resolution: float) -> None:
    """Every owned vertex alone, eligible when well connected to its parent
    (``louvain_worker.refinement_singletons``); the rows cut to the edges
    inside the parents for the refinement's passes."""
    xp = state["xp"]
    ids, parent_total = (xp.asarray(v) for v in values)
    lo, hi = part.own_lo, part.own_hi
    parent, row, indices = state["parent"], state["row"], state["indices"]
    k_s = parent_total[xp.searchsorted(ids, parent[lo:hi])]
    same = parent[indices] == parent[row]
    n = int(parent.shape[0])
    inside = segment_sum(xp.where(same, state["fixed"], 0), row, n, xp)[lo:hi]
    inside = inside.astype(np.float64) / state["scale"]
    k = state["degree"]
    state["eligible"] = inside >= resolution / two_m * k * (k_s - k)
    inner_offsets = xp.zeros(n + 1, dtype=np.int64)
    inner_offsets[1:] = xp.cumsum(bincount_xp(row[same], xp, minlength=n))
    state["inner"] = (inner_offsets, indices[same], state["fixed"][same])
    state.get("buckets", {}).pop("inner", None)
    community = xp.full(n, -1, dtype=np.int64)
    community[lo:hi] = state["first"] + xp.arange(hi - lo, dtype=np.int64)
    state["community"] = community


def components_start(part, state) -> None:
    """Local groups (owned and ghost vertices joined along owned rows inside
    a community), each named by its smallest local vertex, as the CPU's
    union-find roots; every owned vertex labelled by its level-wide id."""
    xp = state["xp"]
    n = int(state["community"].shape[0])
    label = xp.full(n, LABEL_NONE, dtype=np.int64)
    label[part.own_lo:part.own_hi] = state["first"] + xp.arange(part.own_hi - part.own_lo,
                                                                dtype=np.int64)
    state["root"] = components_gpu(state["offsets"], state["indices"], state["community"], xp)
    state["label"] = label


def components_pass(part, state) -> int:
    """Each owned vertex takes its group's smallest label; returns how many fell."""
    xp = state["xp"]
    root, label = state["root"], state["label"]
    order = lexsort_xp([label, root], xp)
    sorted_root = root[order]
    first = xp.ones(int(root.shape[0]), dtype=np.bool_)
    first[1:] = sorted_root[1:] != sorted_root[:-1]
    heads = order[xp.flatnonzero(first)]
    smallest = xp.full(int(root.shape[0]), LABEL_NONE, dtype=np.int64)
    smallest[root[heads]] = label[heads]
    lo, hi = part.own_lo, part.own_hi
    lower = smallest[root[lo:hi]]
    fell = lower < label[lo:hi]
    label[lo:hi] = xp.where(fell, lower, label[lo:hi])
    return int(fell.sum())
