"""What the workers run for Louvain on a distributed graph (driver:
``dask/louvain.py``).

Each worker keeps, beside its part (``worker.host_part``), the community of every
local vertex (owned and ghost) as an id in ``0..n-1`` of the level's vertices.
During a move phase it numbers the distinct communities of its local
vertices in id order (its *slots*: a vertex moves only to a community one of
its neighbours is in, so the slots hold every community a pass can touch)
and keeps three arrays over the slots: ``total`` (the community's summed
degree), ``size`` (its member count) and a zeroed scratch row for the
weights from one vertex to each community; the client keeps the level's
totals and sends each worker those of its slots after every pass.  Slots
keep the ids' order, so ties break as on one machine, and they are at most
the local vertices, so these arrays shrink with the part.  A pass writes
its own moves into ``total`` and ``size`` (so a worker's later vertices see
its earlier moves); after it the worker reports its moves as per-community
changes and takes the client's totals, which hold every worker's moves, in
place of its own.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ..structure.edges import merge_parallel_edges, to_host
from ..structure.hashing import GOLDEN, mix64
from . import build, kernels
from . import louvain_worker_gpu as device
from .threads import worker_threads
from .worker import PARTS, holds_part, host_part

#: The key of the Louvain state in ``LocalPart.run``.
STATE = "louvain"
#: ``owned_move_pass``'s arguments outside a refinement.
NO_PARENT = np.zeros(0, dtype=np.int64)
NO_ELIGIBLE = np.zeros(0, dtype=np.bool_)


# --------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def owned_degrees(offsets, keys, table, loop, own_lo, own_hi):
    """Weighted degree of every owned vertex (a self-loop twice)."""
    degree = np.empty(own_hi - own_lo, dtype=np.float64)
    for r in range(own_lo, own_hi):
        d = 2.0 * loop[r]
        for j in range(offsets[r], offsets[r + 1]):
            d += table[keys[j]]
        degree[r - own_lo] = d
    return degree


_mix = njit(cache=True, nogil=True, inline="always")(mix64)


@njit(cache=True, nogil=True, inline="always")
def _coin(v, salt):
    """A fair coin per (vertex, salt): one bit of SplitMix64's finaliser."""
    x = _mix(np.uint64(v) * np.uint64(GOLDEN) + np.uint64(salt))
    return (x & np.uint64(1)) == np.uint64(1)


@njit(cache=True, nogil=True)
def owned_move_pass(offsets, indices, keys, table, community, degree, own_lo, own_count,
                    own_c_lo, own_c_hi, order, total, size, to_community, touched, two_m,
                    resolution, boundary_rule, singleton_rule, parent, eligible):
    """One pass of Louvain's local moving over the owned vertices in ``order``,
    each moved at once to its neighbouring community of largest gain (ties to
    the lowest id), as the single-machine CPU phase does; communities are
    slots (numbered in id order), the owned vertices' own ids are the slots
    ``own_c_lo..own_c_hi-1``; ghosts keep the communities they had at the
    pass's start.  ``total`` and ``size`` take
    this worker's moves as they happen (its later vertices see its earlier
    moves); they are replaced by the client's after the pass.  Returns the
    vertices moved.

    ``boundary_rule`` says which vertices with a ghost neighbour move: 1 all,
    0 none (the driver lets the workers move theirs in turns), a larger
    value each with probability 1/2, by a coin hashed from the vertex and
    that value (the pass's salt).

    ``singleton_rule`` (the GPU's): a vertex alone in its community does not
    join a singleton community of a higher id held on another worker, whose
    member may be joining it in the same pass (a swap: the pass may lower Q,
    which ends the phase).  The driver turns it off in the first phase on
    the input graph, where every vertex starts alone and the rule bars most
    ghosts' communities in the first passes: on R-MAT 18, 2 / 4 workers,
    seeds 0-2, Q over one machine's 0.967-0.975 / 0.972-0.991 with it,
    1.003-1.013 / 0.990-1.012 without; on later levels (few heavy vertices)
    swaps cost more than the rule (netscience, 3 workers, every level
    distributed, without it anywhere: 0.983).

    ``parent`` (level-wide ids of every local vertex's community) makes the
    pass Leiden's refinement of that partition: only an owned vertex alone
    in its sub-community and ``eligible`` (well connected to its community)
    moves, only into a sub-community of its own community; empty for Louvain.
    """
    refining = parent.shape[0] > 0
    own_hi = own_lo + own_count
    moved = 0
    for t in range(order.shape[0]):
        v = order[t]
        if boundary_rule != 1 and (boundary_rule == 0 or _coin(v, boundary_rule)):
            boundary = False
            for j in range(offsets[v], offsets[v + 1]):
                if indices[j] < own_lo or indices[j] >= own_hi:
                    boundary = True
                    break
            if boundary:
                continue
        own = community[v]
        if refining and (size[own] != 1 or not eligible[v - own_lo]):
            continue  # joined by another, or not well connected to its community
        kv = degree[v - own_lo]
        count = 0
        for j in range(offsets[v], offsets[v + 1]):
            if refining and parent[indices[j]] != parent[v]:
                continue
            c = community[indices[j]]
            if to_community[c] == 0.0:  # weights are > 0: a touched entry is > 0
                touched[count] = c
                count += 1
            to_community[c] += table[keys[j]]
        alone = singleton_rule and size[own] == 1
        stay = to_community[own] - resolution * kv * (total[own] - kv) / two_m
        best = own
        best_gain = 0.0
        found = False
        for i in range(count):
            c = touched[i]
            if c == own:
                continue
            if alone and size[c] == 1 and c > own and not (own_c_lo <= c < own_c_hi):
                continue
            gain = to_community[c] - resolution * kv * total[c] / two_m
            if not found or gain > best_gain or (gain == best_gain and c < best):
                best, best_gain, found = c, gain, True
        for i in range(count):
            to_community[touched[i]] = 0.0
        if found and best_gain > stay:
            total[own] -= kv
            total[best] += kv
            size[own] -= 1
            size[best] += 1
            community[v] = best
            moved += 1
    return moved


@njit(cache=True, nogil=True)
def pass_changes(slot_of, slot_ids, community, degree, own_lo, own_hi):
    """A pass's moves as per-community changes: every owned vertex whose slot
    (``slot_of``, after the pass) names another community than
    ``community`` (before it) leaves that one and joins the new one.
    Returns (community ids in order, degree sums, member counts, vertices
    moved); the sums add the leaving vertices' degrees negated, then the
    joining ones', each in vertex order (as a bincount of the two lists
    concatenated would).  Dense over the slots, not sorted lists of moves."""
    n_slots = slot_ids.shape[0]
    sums = np.zeros(n_slots, dtype=np.float64)
    counts = np.zeros(n_slots, dtype=np.int64)
    touched = np.zeros(n_slots, dtype=np.bool_)
    moved = 0
    for v in range(own_lo, own_hi):
        if slot_ids[slot_of[v]] != community[v]:
            s = np.searchsorted(slot_ids, community[v])
            sums[s] += -degree[v - own_lo]
            counts[s] -= 1
            touched[s] = True
            moved += 1
    for v in range(own_lo, own_hi):
        s = slot_of[v]
        if slot_ids[s] != community[v]:
            sums[s] += degree[v - own_lo]
            counts[s] += 1
            touched[s] = True
    at = np.flatnonzero(touched)
    return slot_ids[at], sums[at], counts[at], moved


@njit(cache=True, nogil=True)
def _reports(j, x, r, own_lo, own_hi, entry_cut, cut_start, owner_of, me):
    """Whether this worker reports row r's entry j (to x) to the next level:
    an inner edge at its lower end; a cut edge at one of its two owners,
    alternately along the order both name their shared cut edges by (even
    places at the lower-numbered worker), so that each reports about half
    (the owner of the lower ids would otherwise report all of them: on R-MAT
    the lower-id worker carried most of level 1's build)."""
    if x >= own_lo and x < own_hi:
        return x > r
    k = owner_of[x]
    place = entry_cut[j] - cut_start[k]
    return (place % 2 == 0) == (me < k)


@njit(cache=True, nogil=True)
def coarse_buckets(offsets, indices, keys, table, loop, community, own_lo, own_hi,
                   entry_cut, cut_start, owner_of, me, n_global, id_type):
    """The edges this worker reports to the next level, in buckets by their
    lower community (``community``: slots, ``n_global`` of them): ``starts``
    (bucket c is ``[starts[c], starts[c + 1])``), the higher community
    (``id_type``'s dtype, an empty array) and the weight of each.  Each
    edge at one of its ends' owners (:func:`_reports`), a self-loop at its
    vertex; an edge inside a community is the community's self-loop.  Read
    from the rows twice (count, then write), so no (lower, higher, weight)
    triple of arrays exists."""
    starts = np.zeros(n_global + 1, dtype=np.int64)
    for r in range(own_lo, own_hi):
        cr = community[r]
        if loop[r] > 0.0:
            starts[cr + 1] += 1
        for j in range(offsets[r], offsets[r + 1]):
            x = indices[j]
            if _reports(j, x, r, own_lo, own_hi, entry_cut, cut_start, owner_of, me):
                starts[min(cr, community[x]) + 1] += 1
    for c in range(n_global):
        starts[c + 1] += starts[c]
    higher = np.empty(starts[-1], dtype=id_type.dtype)
    w = np.empty(starts[-1], dtype=np.float64)
    cursor = starts[:-1].copy()
    for r in range(own_lo, own_hi):
        cr = community[r]
        if loop[r] > 0.0:
            at = cursor[cr]
            higher[at], w[at] = cr, loop[r]
            cursor[cr] = at + 1
        for j in range(offsets[r], offsets[r + 1]):
            x = indices[j]
            if _reports(j, x, r, own_lo, own_hi, entry_cut, cut_start, owner_of, me):
                cx = community[x]
                c = min(cr, cx)
                at = cursor[c]
                higher[at], w[at] = max(cr, cx), table[keys[j]]
                cursor[c] = at + 1
    return starts, higher, w


@njit(cache=True, nogil=True)
def _root(parent, v):
    while parent[v] != v:
        parent[v] = parent[parent[v]]  # path halving
        v = parent[v]
    return v


@njit(cache=True, nogil=True)
def local_components(offsets, indices, community, own_lo, own_hi):
    """Union-find over the local vertices (owned and ghost): the two ends of
    an owned row's edge are joined when they are in the same community.
    Returns every local vertex's root.  A union-find, not a search: a ghost
    can join two owned groups that no owned edge joins."""
    n = community.shape[0]
    parent = np.arange(n, dtype=np.int64)
    for v in range(own_lo, own_hi):
        for j in range(offsets[v], offsets[v + 1]):
            u = indices[j]
            if community[u] == community[v]:
                a = _root(parent, v)
                b = _root(parent, u)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    for v in range(n):
        parent[v] = _root(parent, v)
    return parent


@njit(cache=True, nogil=True)
def lower_labels(root, label, own_lo, own_hi):
    """Each owned vertex takes the smallest label of its local group (the
    ghosts' labels as last received); returns how many owned labels fell."""
    smallest = label.copy()
    for v in range(root.shape[0]):
        if label[v] < smallest[root[v]]:
            smallest[root[v]] = label[v]
    fell = 0
    for v in range(own_lo, own_hi):
        if smallest[root[v]] < label[v]:
            label[v] = smallest[root[v]]
            fell += 1
    return fell


@njit(cache=True, nogil=True)
def weight_inside(offsets, indices, keys, table, parent, own_lo, own_hi):
    """Each owned vertex's edge weight to the other members of its community."""
    inside = np.zeros(own_hi - own_lo, dtype=np.float64)
    for v in range(own_lo, own_hi):
        for j in range(offsets[v], offsets[v + 1]):
            if parent[indices[j]] == parent[v]:
                inside[v - own_lo] += table[keys[j]]
    return inside


# --------------------------------------------------------------------------
# tasks
# --------------------------------------------------------------------------


def sum_by_id(ids: np.ndarray, values: np.ndarray, counts: np.ndarray):
    """(distinct ids as int64, summed values, summed counts): a worker's
    per-community changes, and the client's sum of every worker's."""
    distinct, where = np.unique(ids, return_inverse=True)
    where = where.reshape(-1)
    # counts are summed as floats by bincount: exact below 2**53, rounded back
    k = len(distinct)
    return (distinct.astype(np.int64), np.bincount(where, weights=values, minlength=k),
            np.bincount(where, weights=counts, minlength=k).round().astype(np.int64))


def _part(gid: str):
    """The part and its Louvain state: the part as it is when the level runs
    on this worker's GPU (the state then holds device arrays and its array
    module, ``xp``), else the part the CPU kernels read (``host_part``)."""
    part = PARTS[gid]
    state = part.run.get(STATE)
    if state is not None and "xp" in state:
        return part, state
    part = host_part(gid)
    return part, part.run.get(STATE)


def _gpu(state) -> bool:
    return state is not None and "xp" in state


@worker_threads
def start(gid: str, first: int, gpu: bool = False, exponent: int = 0) -> dict:
    """Louvain state for this worker's part: every owned vertex alone in a
    community named by its level-wide id (``first`` is the id of the first
    owned vertex); returns the owned degrees' sum.  ``gpu``: the level's
    passes run on this worker's GPU (``louvain_worker_gpu``: a part built
    there is read where it is, a host part copied there).  ``exponent``:
    every weight is divided by 2**exponent first (exact; the graph's
    ``weight_exponent``, for weights near 1e308 or 1e-308)."""
    if gpu:
        part = PARTS[gid]
        if part.on_device:
            xp = part.xp
        else:
            from ..structure.backend import resolve_backend

            xp = resolve_backend("gpu").xp
        part.run[STATE], report = device.start(part, first, xp, exponent)
        return report
    part = host_part(gid)
    n = part.labels.shape[0]
    pref = part.pref
    # the part's own float64 table, not a copy (read only here)
    table = pref.weight_of_key.astype(np.float64, copy=False) \
        if pref.weight_of_key is not None else np.ones(part.keys, dtype=np.float64)
    loop = part.loop.astype(np.float64) if part.loop is not None else np.zeros(n, np.float64)
    if exponent:
        # a weight the scale takes below float64's least (1e-300 beside 1e308)
        # stays the least: a coarse edge of it must stay positive, as the next
        # level's build and the finish on one worker refuse a zero weight
        least = np.finfo(np.float64).smallest_subnormal
        table = np.maximum(np.ldexp(table, -exponent), least)
        loop = np.where(loop > 0, np.maximum(np.ldexp(loop, -exponent), least), 0.0)
    degree = owned_degrees(pref.offsets, pref.keys, table, loop, part.own_lo, part.own_hi)
    community = np.full(n, -1, dtype=np.int64)
    n_own = part.own_hi - part.own_lo
    community[part.own_lo:part.own_hi] = first + np.arange(n_own, dtype=np.int64)
    part.run[STATE] = {"table": table, "loop": loop, "degree": degree, "community": community,
                       "first": int(first)}
    return {"two_m": float(degree.sum()), "owned": n_own}


def relabel(gid: str, ids: np.ndarray, values: np.ndarray) -> None:
    """Owned vertices in community ``c`` move to ``values[i]`` where
    ``ids[i] == c`` (``ids`` sorted; every present community listed)."""
    part, state = _part(gid)
    if _gpu(state):
        device.relabel(part, state, ids, values)
        return
    own = state["community"][part.own_lo:part.own_hi]
    state["community"][part.own_lo:part.own_hi] = values[np.searchsorted(ids, own)]


def owned_block(gid: str, previous, k: int):
    """Communities of this worker's ends of the cut edges it shares with k
    (``previous``: the task that must run first)."""
    part, state = _part(gid)
    if _gpu(state):
        return device.cut_values(part, state, "community", k)
    cut = slice(part.cut_start[k], part.cut_start[k + 1])
    return state["community"][part.cut_own[cut]]


def owned_labels(gid: str, previous, k: int):
    """:func:`owned_block` for the component labels."""
    part, state = _part(gid)
    if _gpu(state):
        return device.cut_values(part, state, "label", k)
    cut = slice(part.cut_start[k], part.cut_start[k + 1])
    return state["label"][part.cut_own[cut]]


def _receive(part, blocks, key: str = "community") -> None:
    if _gpu(part.run[STATE]):
        device.receive(part, part.run[STATE], blocks, key)
        return
    values = part.run[STATE][key]
    for k, block in enumerate(blocks):
        if block is not None and k != part.me:
            cut = slice(part.cut_start[k], part.cut_start[k + 1])
            values[part.cut_ghost[cut]] = block


def _slots(community: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct communities of the local vertices (sorted ids) and each
    local vertex's place among them."""
    slot_ids = np.unique(community)
    return slot_ids, np.searchsorted(slot_ids, community).astype(np.int64, copy=False)


def _owned(part, state, key: str = "community") -> np.ndarray:
    """``state[key]`` of the owned vertices, on the host."""
    if _gpu(state):
        return device.owned(part, state, key)
    return state[key][part.own_lo:part.own_hi]


def _install_slots(state: dict) -> None:
    state["slot_ids"], state["slot_of"] = _slots(state["community"])


def phase_totals(gid: str, *blocks) -> dict:
    """Take the ghosts' communities, number the slots; returns this worker's
    summed degree and member count per community of its owned vertices, its
    slots' ids and its share of the modularity sums."""
    part, state = _part(gid)
    _receive(part, blocks)
    if _gpu(state):
        return device.phase_totals(part, state)
    _install_slots(state)
    slot_ids, own = state["slot_ids"], state["slot_of"][part.own_lo:part.own_hi]
    # dense over the slots, as sum_by_id sums: each community's in vertex order
    sums = np.bincount(own, weights=state["degree"], minlength=slot_ids.shape[0])
    counts = np.bincount(own, minlength=slot_ids.shape[0])
    present = np.flatnonzero(counts)
    return {"ids": slot_ids[present], "sums": sums[present],
            "counts": counts[present].astype(np.int64, copy=False), "slots": slot_ids,
            **_modularity_sums(part)}


def phase_start(gid: str, values: tuple, seed_words: list) -> None:
    """The slots' totals and sizes (``values``, from the client) and the
    phase's scratch and visiting order."""
    part, state = _part(gid)
    if _gpu(state):  # the buckets decide at once: no order, no scratch row
        take_totals(gid, values)
        return
    degree = np.diff(part.pref.offsets)
    state.update(touched=np.empty(int(degree.max()) + 1 if degree.shape[0] else 1,
                                  dtype=np.int64),
                 order=np.random.default_rng(seed_words).permutation(
                     part.own_hi - part.own_lo).astype(np.int64) + part.own_lo)
    take_totals(gid, values)


def take_totals(gid: str, values: tuple) -> None:
    """The current totals and sizes of this worker's slots, from the client
    (after :func:`receive` numbered them)."""
    _, state = _part(gid)
    if _gpu(state):
        device.take_totals(state, values)
        return
    # the pass writes its own moves into them: a read-only buffer is copied
    total, size = (a if a.flags.writeable else a.copy() for a in values)
    state["total"], state["size"] = total, size
    if state.get("to_community") is None or state["to_community"].shape[0] < total.shape[0]:
        state["to_community"] = np.zeros(total.shape[0], dtype=np.float64)


def _modularity_sums(part) -> dict:
    """This worker's share of the edge weight and of the weight inside
    communities (the client adds the communities' squared totals)."""
    state = part.run[STATE]
    if _gpu(state):
        return device.modularity_sums(part, state)
    pref = part.pref
    sum_weight, inside, _ = kernels.modularity_sums(
        pref.offsets, pref.indices, pref.keys, state["table"], state["loop"],
        state["community"], part.own_lo, part.own_hi)
    return {"total": float(sum_weight), "inside": float(inside)}


@worker_threads
def move(gid: str, previous, two_m: float, resolution: float, boundary_rule: int,
         singleton_rule: bool = True) -> dict:
    """One pass of local moving over the owned vertices; returns this
    worker's moves as per-community changes of degree sum and size."""
    part, state = _part(gid)
    if _gpu(state):
        return device.move(part, state, two_m, resolution, int(boundary_rule))
    pref = part.pref
    slot_ids, slot_of = state["slot_ids"], state["slot_of"]
    n_own = part.own_hi - part.own_lo
    first = state["first"]
    own_c_lo, own_c_hi = np.searchsorted(slot_ids, [first, first + n_own])
    owned_move_pass(
        pref.offsets, pref.indices, pref.keys, state["table"], slot_of, state["degree"],
        part.own_lo, n_own, int(own_c_lo), int(own_c_hi), state["order"], state["total"],
        state["size"], state["to_community"], state["touched"], two_m, resolution,
        int(boundary_rule), bool(singleton_rule), state.get("parent", NO_PARENT),
        state.get("eligible", NO_ELIGIBLE))
    community = state["community"]
    ids, sums, counts, moved = pass_changes(slot_of, slot_ids, community, state["degree"],
                                            part.own_lo, part.own_hi)
    state["before"] = community.copy()
    mine = slice(part.own_lo, part.own_hi)
    community[mine] = slot_ids[slot_of[mine]]
    return {"moved": int(moved), "ids": ids, "sums": sums, "counts": counts}


def receive(gid: str, *blocks) -> dict:
    """Take the ghosts' new communities and number the slots again; returns
    the slots' ids and the modularity sums of the new partition (the
    totals follow in :func:`take_totals`)."""
    part, state = _part(gid)
    _receive(part, blocks)
    if _gpu(state):
        device.install_slots(state)
        return {"slots": to_host(state["slot_ids"]), **_modularity_sums(part)}
    _install_slots(state)
    return {"slots": state["slot_ids"], **_modularity_sums(part)}


def undo(gid: str) -> None:
    """Take back the last pass (its modularity fell): the phase ends, or, on
    workers whose buckets decide at once, goes on damped after
    :func:`receive` with no blocks numbers the slots again."""
    _, state = _part(gid)
    state["community"] = state.pop("before")


def phase_end(gid: str) -> None:
    """Free the per-community arrays of the phase."""
    _, state = _part(gid)
    for name in ("total", "size", "to_community", "touched", "order", "before", "slot_ids",
                 "slot_of"):
        state.pop(name, None)


@worker_threads
def coarse_edges(gid: str) -> pd.DataFrame:
    """``src | dst | weight`` of this worker's share of the next level
    (communities as vertices, parallel edges summed here; the same pair may
    come from several workers)."""
    part, state = _part(gid)
    if _gpu(state):
        return device.coarse_edges(part, state)
    pref = part.pref
    # buckets over the local vertices' communities (sorted ids), not over
    # every id of the level: they shrink with the part
    slot_ids, slot_of = _slots(state["community"])
    n_slots = slot_ids.shape[0]
    id_type = np.empty(0, dtype=np.int32 if n_slots < 2**31 else np.int64)
    starts, higher, w = coarse_buckets(
        pref.offsets, pref.indices, pref.keys, state["table"], state["loop"],
        slot_of, part.own_lo, part.own_hi, part.entry_cut, part.cut_start,
        part.owner_of, part.me, n_slots, id_type)
    del slot_of
    # each bucket sorted and its parallel pairs summed in place
    distinct = np.zeros(n_slots, dtype=np.int64)
    count = build.dedup_buckets(starts, higher, w, True, True, distinct)
    del starts
    return pd.DataFrame({"src": np.repeat(slot_ids, distinct),
                         "dst": slot_ids[higher[:count]],
                         "weight": w[:count].copy()})


def owned_communities(gid: str) -> pd.DataFrame:
    """``vertex | community``: this worker's owned vertices (their ids in the
    caller's graph) and their communities."""
    part, state = _part(gid)
    return pd.DataFrame({"vertex": part.owned_labels(), "community": _owned(part, state)})


def first_members(gid: str) -> dict:
    """Per community of the owned vertices, its first owned vertex (level id)."""
    part, state = _part(gid)
    ids, first = np.unique(_owned(part, state), return_index=True)
    return {"ids": ids, "first": first + state["first"]}


@worker_threads
def result_partition(gid: str, ids: np.ndarray, codes: np.ndarray, offset: int):
    """``vertex | community`` of the owned vertices, communities as ``codes``
    (``codes[i]`` for community ``ids[i]``), indexed from ``offset``; ends the run."""
    part, state = _part(gid)
    own = _owned(part, state)
    part.run.pop(STATE)
    frame = pd.DataFrame({"vertex": part.owned_labels(),
                          "community": codes[np.searchsorted(ids, own)]})
    frame.index = pd.RangeIndex(offset, offset + len(frame))
    if part.device_frames:  # pragma: no cover - needs a GPU worker
        import cudf

        return cudf.from_pandas(frame)
    return frame


@worker_threads
def refinement_start(gid: str, *blocks) -> dict:
    """Take the ghosts' communities and keep every local vertex's as its
    ``parent`` for a distributed refinement; returns the owned vertices'
    degree sums per community (``ids``, ``sums``)."""
    part, state = _part(gid)
    _receive(part, blocks)
    if _gpu(state):
        return device.refinement_start(part, state)
    state["parent"] = state["community"].copy()
    ids, sums, _ = sum_by_id(state["parent"][part.own_lo:part.own_hi], state["degree"],
                             np.zeros(part.own_hi - part.own_lo, dtype=np.int64))
    return {"ids": ids, "sums": sums}


def refinement_singletons(gid: str, values: tuple, two_m: float, resolution: float) -> None:
    """Every owned vertex alone in a sub-community (named by its level-wide
    id) and marked eligible to join one when it is well connected to its
    community S, w(v, S - v) >= γ k_v (K_S - k_v) / 2m as Leiden's refinement
    asks; ``values``: (community ids, K_S) of the owned vertices'."""
    part, state = _part(gid)
    if _gpu(state):
        device.refinement_singletons(part, state, values, two_m, resolution)
        return
    ids, community_total = values
    own = slice(part.own_lo, part.own_hi)
    k_s = community_total[np.searchsorted(ids, state["parent"][own])]
    pref = part.pref
    inside = weight_inside(pref.offsets, pref.indices, pref.keys, state["table"],
                           state["parent"], part.own_lo, part.own_hi)
    k = state["degree"]
    state["eligible"] = inside >= resolution / two_m * k * (k_s - k)
    state["community"] = np.full(state["parent"].shape[0], -1, dtype=np.int64)
    state["community"][own] = state["first"] + np.arange(part.own_hi - part.own_lo,
                                                          dtype=np.int64)


def refined_parents(gid: str) -> pd.DataFrame:
    """``refined | parent``: each sub-community of the owned vertices after a
    distributed refinement and the community it lies in (level-wide ids);
    the refinement's state is dropped."""
    part, state = _part(gid)
    refined, first = np.unique(_owned(part, state), return_index=True)
    parent = _owned(part, state, "parent")[first]
    for name in ("parent", "eligible", "inner"):
        state.pop(name, None)
    return pd.DataFrame({"refined": refined, "parent": parent})


def unrefine(gid: str) -> None:
    """Take back a distributed refinement: every local vertex in its community."""
    _, state = _part(gid)
    state["community"] = state.pop("parent")
    state.pop("eligible", None)
    state.pop("inner", None)


@worker_threads
def components_start(gid: str, *blocks) -> None:
    """Take the ghosts' communities; group the local vertices by community
    along the owned rows; every owned vertex's label is its level-wide id."""
    part, state = _part(gid)
    _receive(part, blocks)
    if _gpu(state):
        device.components_start(part, state)
        return
    n = state["community"].shape[0]
    label = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    label[part.own_lo:part.own_hi] = state["first"] + np.arange(part.own_hi - part.own_lo)
    state["root"] = local_components(part.pref.offsets, part.pref.indices, state["community"],
                                     part.own_lo, part.own_hi)
    state["label"] = label


@worker_threads
def components_pass(gid: str, previous, *blocks) -> int:
    """Take the ghosts' labels, lower the owned ones; returns how many fell.
    ``previous``: this worker's task the pass must follow (its
    :func:`components_start` or last pass), passed only to order them."""
    part, state = _part(gid)
    _receive(part, blocks, "label")
    if _gpu(state):
        return device.components_pass(part, state)
    return int(lower_labels(state["root"], state["label"], part.own_lo, part.own_hi))


def components_end(gid: str) -> None:
    """Each owned vertex's community becomes its component's label (the
    smallest level-wide id in it)."""
    part, state = _part(gid)
    own = slice(part.own_lo, part.own_hi)
    state["community"][own] = state["label"][own]
    del state["root"], state["label"]


@worker_threads
def finish_coarse(finish, resolution: float, threshold: float, max_level: int, seed: int,
                  *frames, count_levels: bool = False):
    """The last levels on this worker: ``finish`` (the single-machine Louvain
    or Leiden) on the coarse graph, whose pieces are ``frames`` (every
    worker's :func:`coarse_edges`: a pair several workers wrote is summed).
    Returns the communities by vertex, with ``count_levels`` (Leiden's
    finish, which takes ``counts``) also the levels it ran."""
    a, b, w = (np.concatenate([f[c].to_numpy() for f in frames])
               for c in ("src", "dst", "weight"))
    del frames
    k = int(max(a.max(), b.max())) + 1 if a.shape[0] else 1
    loop = a == b
    # across communities: the pipeline's own merge of parallel edges; a
    # community's self-loop: its reports added (weights are positive)
    lo, hi, summed = merge_parallel_edges(a[~loop], b[~loop], w[~loop], k, np)
    loops = np.bincount(a[loop], weights=w[loop], minlength=k)
    del a, b, w, loop
    at = np.flatnonzero(loops)
    frame = pd.DataFrame({"src": np.concatenate([lo.astype(np.int64), at]),
                          "dst": np.concatenate([hi.astype(np.int64), at]),
                          "weight": np.concatenate([summed, loops[at]])})
    del lo, hi, summed, loops
    if not count_levels:
        return finish(frame, resolution, threshold, max(max_level, 1), seed)
    counts: dict = {}
    mapping = finish(frame, resolution, threshold, max(max_level, 1), seed, counts=counts)
    return mapping, counts.get("levels", 0)


def owned_labels_of_level(gid: str) -> pd.Series:
    """The owned vertices' ids in the caller's graph."""
    return _part(gid)[0].owned_labels()


def set_owned_communities(gid: str, community: np.ndarray) -> None:
    """The owned vertices' communities (level-wide ids)."""
    part, state = _part(gid)
    if _gpu(state):
        device.set_owned(part, state, community)
        return
    state["community"][part.own_lo:part.own_hi] = community


def end(gid: str) -> None:
    if holds_part(gid):  # a released graph has no part left
        _part(gid)[0].run.pop(STATE, None)

