"""What runs on the workers for the edge-split matching (:mod:`.edge_split`).

Each worker keeps the rows it already held, as one machine's preference
rows over the vertices they touch (a *held* vertex), and for the vertices
whose ids fall in its range (an *owned* vertex) the offer the vertex holds
and the edge it proposed along.  A round is three tasks per worker:

1. :func:`candidates`: apply the last round's offer changes to the mirrors
   and re-activate the vertices refused or displaced; each held active
   vertex's pointer skips the entries whose offer would not beat the
   neighbour's offer, and the entry it stops at goes to the vertex's owner;
2. :func:`proposals`: each owner proposes its vertex's best candidate to
   the owner of the other end;
3. :func:`decide`: each owner keeps the best proposal to its vertex if it
   beats the held offer, tells the vertex's holders the new offer and the
   holders (and owner) of every refused or displaced proposer to start it
   again.

Offers compare as one machine's greedy order: by weight, then at equal
weight by the other end's id (larger first), which at a common end is the
``(max, min)`` id order of the whole project.  Ids travel as offsets from
the smallest id in uint32 where the ids' range allows (else as int64),
weights as float32 where the graph's are float32 or absent (else float64),
holders' bits in the narrowest unsigned type with a bit per worker: exact
for the types taken (:class:`Words`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit

from ..structure.csr import preference_csr
from ..structure.edges import undirected_edges
from ..structure.graph import weight_values
from ..structure.renumber import renumber
from ..structure.output import masked_values, new_frame, output_weights
from ..structure.progress import Stopwatch
from .threads import host_build_slot, worker_threads
from .worker import PARTS, block, released_step

#: No offer held: weights are positive, so every edge beats it.
NO_WEIGHT = 0.0


#: A dense table finds ids when their range is at most this many times the
#: ids it holds (4 bytes a slot); binary search otherwise.
DENSE_SPAN = 8


class IdIndex:
    """Positions of the caller's ids in a sorted id array: a dense table
    over the ids' range where it is small (one read per id), else a binary
    search (R-MAT 20 on 2 workers: the searches of a run's messages took 0.7
    CPU s of 9).  ``-1`` for an id not held."""

    def __init__(self, ids: np.ndarray):
        self.ids = ids
        self.low = int(ids[0]) if ids.shape[0] else 0
        span = int(ids[-1]) - self.low + 1 if ids.shape[0] else 0
        self.table = None
        if 0 < span <= DENSE_SPAN * ids.shape[0] + 1024:
            self.table = np.full(span, -1, dtype=np.int32 if ids.shape[0] < 2**31
                                 else np.int64)
            self.table[ids - self.low] = np.arange(ids.shape[0], dtype=self.table.dtype)

    def find(self, values: np.ndarray) -> np.ndarray:
        if self.table is not None:
            return lookup_dense(self.table, self.low, values)
        return lookup_sorted(self.ids, values)


#: What each phase's blocks carry, column by column.
CANDIDATE_COLUMNS = ("id", "id", "weight")  # u, v, weight
PROPOSAL_COLUMNS = ("id", "id", "weight", "holders")  # u, v, weight, holders of u
DECISION_COLUMNS = ("id", "weight", "id", "id")  # vertex, weight, suitor, woken


@dataclass(frozen=True)
class Words:
    """How the rounds' blocks carry their columns, the same at every worker
    (the client's choice, from every partition's id bounds).  Narrower
    words move fewer bytes between machines (R-MAT 20, int64 ids and float64
    weights, on 4 workers: 60 MB in a run's rounds instead of 98):

    * ids as offsets from ``id_base`` in ``id_dtype``: uint32 where the ids
      span fewer than 2**32 values (every id dtype up to 32 bits, and most
      int64 ids), else int64 from 0;
    * weights in ``weight_dtype``: float32 where the graph's weights are
      float32 (or absent: all 1), exact; else float64, exact for the weight
      types the layout takes;
    * holders' bits (a worker's bit is ``1 << k``) in the narrowest unsigned
      integer with a bit per worker.
    """

    id_base: int = 0
    id_dtype: np.dtype = np.dtype(np.int64)
    weight_dtype: np.dtype = np.dtype(np.float64)
    holder_dtype: np.dtype = np.dtype(np.int64)

    @classmethod
    def choose(cls, id_range: tuple[int, int] | None, weight_dtype, workers: int) -> Words:
        """The words for ids in ``id_range`` (lowest, highest; None: no id),
        weights read as ``weight_dtype`` (float32 also for an unweighted graph)
        and ``workers`` workers."""
        low, high = id_range if id_range is not None else (0, 0)
        narrow = high - low < 2**32
        holders = np.min_scalar_type((1 << workers) - 1)  # every worker's bit set
        return cls(int(low) if narrow else 0, np.dtype(np.uint32 if narrow else np.int64),
                   np.dtype(np.float32 if np.dtype(weight_dtype) == np.float32
                            else np.float64), holders)

    def send(self, kinds: tuple, columns) -> tuple:
        """``columns`` (int64 ids and bits, float64 weights) in their words."""
        return tuple(self._send(kind, c) for kind, c in zip(kinds, columns))

    def read(self, kinds: tuple, columns) -> list:
        """Words back to int64 ids and bits and float64 weights."""
        return [self._read(kind, c) for kind, c in zip(kinds, columns)]

    def empty(self, kinds: tuple) -> tuple:
        return tuple(np.empty(0, dtype=self._dtype(kind)) for kind in kinds)

    def _dtype(self, kind: str) -> np.dtype:
        return {"id": self.id_dtype, "weight": self.weight_dtype,
                "holders": self.holder_dtype}[kind]

    def _send(self, kind: str, column: np.ndarray) -> np.ndarray:
        if kind == "id" and self.id_base:
            column = column - np.int64(self.id_base)  # in [0, 2**32): no wrap
        return column.astype(self._dtype(kind), copy=False)

    def _read(self, kind: str, column: np.ndarray) -> np.ndarray:
        if kind == "weight":
            return column.astype(np.float64, copy=False)
        column = column.astype(np.int64, copy=False)
        if kind == "id" and self.id_base:
            column = column + np.int64(self.id_base)
        return column


@dataclass
class EdgeSplitPart:
    """One worker's share of an edge-split graph.

    ``labels`` are the caller's ids of the held vertices (sorted, int64);
    ``offsets``/``neighbour``/``key`` their preference rows (local ids, best
    first) and ``weight_of_key`` the weights as float64 (None: every weight
    1).  ``own_ids`` are the owned vertices' ids (sorted), ``holders`` their
    holders' bits and ``owner_bit`` this worker's bit; ``words`` how the
    rounds' blocks carry their columns.
    """

    me: int
    workers: int
    boundaries: np.ndarray | None
    labels: np.ndarray
    offsets: np.ndarray
    neighbour: np.ndarray
    key: np.ndarray
    weight_of_key: np.ndarray | None
    id_dtype: np.dtype
    weight_dtype: np.dtype
    own_ids: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    holders: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    run: dict = field(default_factory=dict)
    held_index: IdIndex | None = None
    own_index: IdIndex | None = None
    words: Words = field(default_factory=Words)

    @property
    def weighted(self) -> bool:
        return self.weight_of_key is not None


def owner_of(ids: np.ndarray, boundaries) -> np.ndarray:
    """The worker owning each id: the number of boundaries at or below it
    (the vertex layout's rule, ``build.owner_codes``)."""
    if boundaries is None:
        return np.zeros(ids.shape[0], dtype=np.int64)
    return np.searchsorted(boundaries, ids, side="right").astype(np.int64)


# --------------------------------------------------------------------------
# the build
# --------------------------------------------------------------------------


@worker_threads
def build_part(gid: str, me: int, workers: int, boundaries, source: str, destination: str,
               weight: str | None, what: str, *partitions,
               builds_per_host: int | str = "auto") -> dict:
    """Worker ``me``'s part from the input partitions it holds: one machine's
    undirected edge set of these rows (duplicates keep the largest weight,
    self-loops apart) and its preference rows; kept under ``gid``.
    ``weight``: the weight column, None when unweighted; ``what`` names the
    ids in errors.  The rows are not checked again (the client's summaries
    checked every partition) and not copied into one frame: the partitions'
    id columns are renumbered together, as one machine renumbers its frame's.
    The build holds one of its host's build slots (``builds_per_host``:
    :func:`.threads.host_build_slot`).  Returns the part's figures."""
    with host_build_slot(builds_per_host, me) as slot:
        started = time.process_time()
        part = _built_part(me, workers, boundaries, source, destination, weight, what,
                           partitions)
        PARTS[gid] = part
        cpu_seconds = time.process_time() - started
    arrays = (part.labels, part.offsets, part.neighbour, part.key)
    return {"held": int(part.labels.shape[0]), "entries": int(part.neighbour.shape[0]),
            "weighted": part.weighted, "id_dtype": str(part.id_dtype),
            "weight_dtype": str(part.weight_dtype),
            "nbytes": int(sum(a.nbytes for a in arrays) +
                          (part.weight_of_key.nbytes if part.weighted else 0)),
            "cpu_seconds": cpu_seconds, "slot_wait_seconds": slot["waited"]}


def _built_part(me: int, workers: int, boundaries, source: str, destination: str,
                weight: str | None, what: str, partitions: tuple) -> EdgeSplitPart:
    frames = [f for f in partitions if len(f)]
    weight_dtype = np.dtype(np.float32)
    if not frames:  # a worker without rows still owns vertices (learn_owned)
        labels = np.empty(0, dtype=np.int64)
        offsets = np.zeros(1, dtype=np.int64)
        neighbour = np.empty(0, dtype=np.int32)
        key = np.empty(0, dtype=np.uint32)
        table = np.zeros(1, dtype=np.float64) if weight is not None else None
        id_dtype = np.dtype(np.int64)
    else:
        columns = [column for f in frames for column in (f[source], f[destination])]
        codes, id_labels = renumber(columns, pd, np, what)
        del columns
        u = codes[0] if len(frames) == 1 else np.concatenate(codes[0::2])
        v = codes[1] if len(frames) == 1 else np.concatenate(codes[1::2])
        del codes
        w = None
        if weight is not None:
            w = np.concatenate([weight_values(f[weight], np) for f in frames])
        del frames
        edges = undirected_edges(u, v, w, len(id_labels), np)
        del u, v, w
        pref = preference_csr(edges, np)
        del edges
        id_dtype = id_labels.dtype
        labels = id_labels.to_numpy().astype(np.int64, copy=False)
        offsets, neighbour, key = pref.offsets, pref.indices, pref.keys
        table = None
        if pref.weight_of_key is not None:
            weight_dtype = pref.weight_of_key.dtype
            table = pref.weight_of_key.astype(np.float64)
        del pref, id_labels
    return EdgeSplitPart(me, workers, boundaries, labels, offsets, neighbour, key, table,
                         np.dtype(id_dtype), np.dtype(weight_dtype))


def held_share(gid: str, owner: int, id_range) -> np.ndarray:
    """The ids of the held vertices that ``owner`` owns (a stretch of the
    sorted labels), in the id words of the graph's ``id_range``
    (:class:`Words`; :func:`learn_owned` reads them back)."""
    part = PARTS[gid]
    lo, hi = 0, part.labels.shape[0]
    if part.boundaries is not None:
        if owner > 0:
            lo = np.searchsorted(part.labels, part.boundaries[owner - 1], "left")
        if owner < part.workers - 1:
            hi = np.searchsorted(part.labels, part.boundaries[owner], "left")
    words = Words.choose(id_range, np.float64, part.workers)
    return words.send(("id",), (part.labels[lo:hi],))[0]


@worker_threads
def learn_owned(gid: str, id_dtype, weight_dtype, id_range, *shares) -> dict:
    """The owned vertices (every worker's held ids in this range, ``shares[i]``
    from worker i) and each one's holders; returns how many (``owned``) and
    the bytes of the other workers' shares (``received``).  ``id_dtype``,
    ``weight_dtype``: the result's, as a worker with rows read them (one
    without rows owns vertices too); ``id_range``: the lowest and highest
    id of the whole graph, for the rounds' :class:`Words`."""
    part = PARTS[gid]
    part.id_dtype, part.weight_dtype = np.dtype(id_dtype), np.dtype(weight_dtype)
    part.words = Words.choose(id_range, weight_dtype, part.workers)
    received = sum(int(np.asarray(share).nbytes) for i, share in enumerate(shares)
                   if i != part.me)
    shares = [part.words.read(("id",), [np.asarray(s)])[0] for s in shares]
    own_ids = sorted_union(shares)
    own_index = IdIndex(own_ids)
    holders = np.zeros(own_ids.shape[0], dtype=np.int64)
    for i, share in enumerate(shares):
        if len(share):
            holders[own_index.find(share)] |= np.int64(1) << np.int64(i)
    part.own_ids, part.holders, part.own_index = own_ids, holders, own_index
    part.held_index = IdIndex(part.labels)
    return {"owned": int(own_ids.shape[0]), "received": received}


def sorted_union(arrays: list) -> np.ndarray:
    """The distinct values of sorted arrays, sorted (NumPy 2's ``unique``
    hashes first: 2.1 of a run's 9 CPU s at R-MAT 20)."""
    if not arrays:
        return np.empty(0, dtype=np.int64)
    values = np.concatenate(arrays)
    values.sort()
    if values.shape[0] < 2:
        return values
    keep = np.empty(values.shape[0], dtype=np.bool_)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


# --------------------------------------------------------------------------
# a run
# --------------------------------------------------------------------------


def start_run(gid: str, run_id: str) -> int:
    """Fresh state: every held vertex with an entry active, no offer held,
    no proposal made."""
    part = PARTS[gid]
    n_held, n_own = part.labels.shape[0], part.own_ids.shape[0]
    part.run = {
        "id": run_id,
        "pointer": part.offsets[:-1].astype(np.int64),
        "mirror_weight": np.full(n_held, NO_WEIGHT, dtype=np.float64),
        "mirror_suitor": np.zeros(n_held, dtype=np.int64),
        "active": np.flatnonzero(np.diff(part.offsets) > 0).astype(np.int64),
        # at each owned vertex: the offer it holds (weight, proposer, the
        # proposer's holders with its owner's bit) and the edge it proposed along
        "offer_weight": np.full(n_own, NO_WEIGHT, dtype=np.float64),
        "suitor": np.zeros(n_own, dtype=np.int64),
        "suitor_holders": np.zeros(n_own, dtype=np.int64),
        "target": np.zeros(n_own, dtype=np.int64),
        "proposed": np.zeros(n_own, dtype=np.bool_),
        "seconds": 0.0,
    }
    return int(part.run["active"].shape[0])


def _idle(part: EdgeSplitPart, run_id: str) -> bool:
    return part.run.get("id") != run_id


def _step(blocks: list, started: Stopwatch, **counts) -> dict:
    """A phase's result: the blocks to every worker, the words it sends to
    others and their bytes, the bytes of every block (``step_bytes``: what
    each other worker receives when it takes the whole step), and, from
    :func:`_earlier`, the counts of the round's phases before it."""
    sent = bytes_ = step_bytes = 0
    me = counts.pop("me")
    for k, blk in enumerate(blocks):
        if blk is None:
            continue
        size = int(sum(a.nbytes for a in blk))
        step_bytes += size
        if k != me:
            sent += int(blk[0].shape[0])
            bytes_ += size
    return {"blocks": blocks, "sent": sent, "bytes": bytes_, "step_bytes": step_bytes,
            **started.spent(), **counts}


def _earlier(previous) -> list:
    """The counts of the round's phases before this one, ``previous`` the
    phase just before it.  Each phase carries them on, so that the client
    reads a round's counts from its last phase alone: one task per worker
    and round, not one per phase (at R-MAT 20 on 4 workers the counts were
    a sixth of the run's tasks)."""
    if not isinstance(previous, dict):
        return []
    own = {key: value for key, value in previous.items() if key not in ("blocks", "earlier")}
    return [*previous.get("earlier", ()), own]


def _nothing(part: EdgeSplitPart, started: Stopwatch, columns: tuple,
             **counts) -> dict:
    """A phase that sends nothing (another run's, or nothing received)."""
    blocks = [part.words.empty(columns) for _ in range(part.workers)]
    return _step(blocks, started, me=part.me, **counts)


def _received(part: EdgeSplitPart, previous, incoming) -> list:
    """The blocks sent to this worker: the others' (each its block, or the
    sender's whole step, from which this worker reads its block: the rounds
    :func:`edge_split.run_rounds` sends whole) and its own (in its previous
    step, the phase before this one)."""
    own = previous["blocks"][part.me] if isinstance(previous, dict) else None
    others = [block(b, part.me) if isinstance(b, dict) else b for b in incoming]
    return [b for b in (*others, own) if b is not None]


def _incoming_columns(part: EdgeSplitPart, run_id: str, previous, incoming,
                      kinds: tuple) -> list | None:
    """The received blocks' columns (of ``kinds``), each joined over the
    senders and read back from their words; None for another run's phase or
    when nothing came."""
    if _idle(part, run_id):
        return None
    blocks = [b for b in _received(part, previous, incoming) if b[0].shape[0]]
    if not blocks:
        return None
    return part.words.read(kinds, [np.concatenate([b[i] for b in blocks])
                                   for i in range(len(blocks[0]))])


def _opening(gid: str, run_id: str, previous, incoming, receives: tuple, sends: tuple,
             count: str) -> tuple:
    """The start of a phase that reads the blocks sent to it (proposals and
    decide, which receive columns ``receives`` and send ``sends``): ``(step,
    None)`` with the step it returns at once, empty with ``count`` at 0 (its
    part dropped, another run's phase, nothing received), else ``(None,
    (part, started, earlier, columns))``."""
    started, part = Stopwatch(), PARTS.get(gid)
    earlier = _earlier(previous)
    if part is None:  # a round left over from a run whose graph is released
        return released_step(gid, bytes=0, step_bytes=0, earlier=earlier, **{count: 0}), None
    columns = _incoming_columns(part, run_id, previous, incoming, receives)
    if columns is None:
        return _nothing(part, started, sends, earlier=earlier, **{count: 0}), None
    return None, (part, started, earlier, columns)


def _split(destination: np.ndarray, p: int, *columns) -> list:
    """The rows of ``columns`` grouped by ``destination`` (one block per worker)."""
    if p == 1:
        return [columns]
    order = np.argsort(destination, kind="stable")
    bounds = np.searchsorted(destination[order], np.arange(p + 1))
    sorted_columns = [c[order] for c in columns]
    return [tuple(c[bounds[k]:bounds[k + 1]] for c in sorted_columns) for k in range(p)]


@worker_threads
def candidates(gid: str, run_id: str, previous, *incoming) -> dict:
    """Phase 1: apply the offer changes and activations of the last round's
    decisions (``incoming``: blocks ``(vertex, weight, suitor)`` of changed
    offers and ``(vertex,)`` of activations, one pair per worker), then the
    candidate of every active held vertex, to its owner: ``(u, v, weight)``."""
    started, part = Stopwatch(), PARTS.get(gid)
    if part is None:  # a round left over from a run whose graph is released
        return released_step(gid, bytes=0, step_bytes=0, active=0)
    if _idle(part, run_id):
        return _nothing(part, started, CANDIDATE_COLUMNS, active=0)
    run = part.run
    labels = part.labels
    active = run["active"] if previous is None else np.empty(0, dtype=np.int64)
    woken = []
    for blk in _received(part, previous, incoming):
        vertex, offer_w, offer_s, activated = part.words.read(DECISION_COLUMNS, blk)
        if vertex.shape[0]:
            at = part.held_index.find(vertex)  # sent to holders only: every one found
            run["mirror_weight"][at] = offer_w
            run["mirror_suitor"][at] = offer_s
        if activated.shape[0]:
            at = part.own_index.find(activated)
            run["proposed"][at[at >= 0]] = False
            at = part.held_index.find(activated)
            woken.append(at[at >= 0])
    if woken:
        active = sorted_union(woken)
    u, v, w = scan_candidates(part.offsets, part.neighbour, part.key,
                              part.weight_of_key if part.weighted else np.ones(1),
                              part.weighted, labels, run["pointer"], run["mirror_weight"],
                              run["mirror_suitor"], active)
    blocks = _split(owner_of(u, part.boundaries), part.workers,
                    *part.words.send(CANDIDATE_COLUMNS, (u, v, w)))
    return _step(blocks, started, me=part.me, active=int(active.shape[0]))


@worker_threads
def proposals(gid: str, run_id: str, previous, *incoming) -> dict:
    """Phase 2: at each owned vertex with candidates, the best one proposed
    to the other end's owner: ``(u, v, weight, holders of u)``."""
    done, opened = _opening(gid, run_id, previous, incoming, CANDIDATE_COLUMNS,
                            PROPOSAL_COLUMNS, "proposals")
    if done is not None:
        return done
    part, started, earlier, columns = opened
    run = part.run
    u, v, w = columns
    at = part.own_index.find(u)
    pu, pv, pw, pat = best_per_vertex(at, u, v, w, part.own_ids.shape[0])
    run["target"][pat] = pv
    run["proposed"][pat] = True
    hm = part.holders[pat] | (np.int64(1) << np.int64(part.me))
    blocks = _split(owner_of(pv, part.boundaries), part.workers,
                    *part.words.send(PROPOSAL_COLUMNS, (pu, pv, pw, hm)))
    return _step(blocks, started, me=part.me, proposals=int(pu.shape[0]), earlier=earlier)


@worker_threads
def decide(gid: str, run_id: str, previous, *incoming) -> dict:
    """Phase 3: each owned vertex keeps its best proposal if it beats the
    offer it holds; the changed offers go to the vertex's holders and the
    refused and displaced proposers to their holders and owner:
    ``(vertex, weight, suitor, activated)`` per worker."""
    done, opened = _opening(gid, run_id, previous, incoming, PROPOSAL_COLUMNS,
                            DECISION_COLUMNS, "activations")
    if done is not None:
        return done
    part, started, earlier, columns = opened
    run = part.run
    u, v, w, hm = columns
    at = part.own_index.find(v)
    changed, woken, woken_holders = accept_best(at, u, w, hm, run["offer_weight"],
                                                run["suitor"], run["suitor_holders"])
    changed_ids, changed_w, changed_s, woken = part.words.send(
        DECISION_COLUMNS, (part.own_ids[changed], run["offer_weight"][changed],
                           run["suitor"][changed], woken))
    changed_holders = part.holders[changed]
    out = []
    n_activations = 0
    for k in range(part.workers):
        bit = np.int64(1) << np.int64(k)
        told = (changed_holders & bit) != 0
        wake = (woken_holders & bit) != 0
        n_activations += int(wake.sum())
        out.append((changed_ids[told], changed_w[told], changed_s[told], woken[wake]))
    return _step(out, started, me=part.me, activations=n_activations, earlier=earlier)


@worker_threads
def mates_partition(gid: str, offset: int) -> pd.DataFrame:
    """``vertex | mate | weight`` of the owned vertices, indexed from
    ``offset``: a vertex is matched to the proposer whose offer it holds
    when it proposed along the same edge."""
    part = PARTS[gid]
    run = part.run
    matched = (run["offer_weight"] > NO_WEIGHT) & run["proposed"] & \
        (run["target"] == run["suitor"])
    missing = ~matched
    mate = np.where(matched, run["suitor"], 0).astype(part.id_dtype)
    weights = run["offer_weight"].astype(part.weight_dtype)
    frame = new_frame(pd, {
        "vertex": pd.Series(part.own_ids.astype(part.id_dtype), name="vertex"),
        "mate": masked_values(mate, missing, pd),
        "weight": masked_values(output_weights(weights), missing, pd),
    })
    frame.index = pd.RangeIndex(offset, offset + frame.shape[0])
    part.run = {"id": None}
    return frame


# --------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------


@njit(cache=True)
def lookup_dense(table, low, values):
    out = np.empty(values.shape[0], dtype=np.int64)
    for i in range(values.shape[0]):
        at = values[i] - low
        out[i] = table[at] if 0 <= at < table.shape[0] else -1
    return out


@njit(cache=True)
def lookup_sorted(ids, values):
    out = np.searchsorted(ids, values)
    for i in range(values.shape[0]):
        if out[i] >= ids.shape[0] or ids[out[i]] != values[i]:
            out[i] = -1
    return out


@njit(cache=True)
def scan_candidates(offsets, neighbour, key, weight_of_key, weighted, labels, pointer,
                    mirror_weight, mirror_suitor, active):
    """Each active vertex's pointer past the entries whose offer loses to the
    neighbour's (as the mirrors know it); the entry it stops at, if any, is
    the vertex's candidate here: (u, v, weight) in the caller's ids."""
    n = active.shape[0]
    out_u = np.empty(n, dtype=np.int64)
    out_v = np.empty(n, dtype=np.int64)
    out_w = np.empty(n, dtype=np.float64)
    found = 0
    for i in range(n):
        u = active[i]
        me = labels[u]
        j = pointer[u]
        end = offsets[u + 1]
        while j < end:
            x = neighbour[j]
            w = weight_of_key[key[j]] if weighted else 1.0
            held = mirror_weight[x]
            if w > held or (w == held and me > mirror_suitor[x]):
                break
            j += 1
        pointer[u] = j
        if j < end:
            out_u[found] = me
            out_v[found] = labels[neighbour[j]]
            out_w[found] = weight_of_key[key[j]] if weighted else 1.0
            found += 1
    return out_u[:found], out_v[:found], out_w[:found]


@njit(cache=True)
def best_of_each(at, other, w, n_own):
    """For each owned index ``at[i]`` the row ``i`` with the best (weight,
    then larger ``other`` id); returns that row per index (-1: none), the
    indices met in order of first sight, and how many."""
    best = np.full(n_own, -1, dtype=np.int64)
    order = np.empty(at.shape[0], dtype=np.int64)
    count = 0
    for i in range(at.shape[0]):
        a = at[i]
        b = best[a]
        if b < 0:
            best[a] = i
            order[count] = a
            count += 1
        elif w[i] > w[b] or (w[i] == w[b] and other[i] > other[b]):
            best[a] = i
    return best, order, count


@njit(cache=True)
def best_per_vertex(at, u, v, w, n_own):
    """The best candidate (weight, then larger other end) of each vertex
    ``u[i]`` (owned index ``at[i]``): one proposal per vertex."""
    best, order, count = best_of_each(at, v, w, n_own)
    out_u = np.empty(count, dtype=np.int64)
    out_v = np.empty(count, dtype=np.int64)
    out_w = np.empty(count, dtype=np.float64)
    out_at = np.empty(count, dtype=np.int64)
    for c in range(count):
        i = best[order[c]]
        out_u[c], out_v[c], out_w[c], out_at[c] = u[i], v[i], w[i], order[c]
    return out_u, out_v, out_w, out_at


@njit(cache=True)
def accept_best(at, u, w, hm, offer_weight, suitor, suitor_holders):
    """Each proposed-to vertex keeps the best of this round's proposals if it
    beats its offer.  Returns the vertices whose offer changed (owned
    indices), and the proposers to start again (refused, or displaced) with
    their holders' bits."""
    n = at.shape[0]
    best, touched, count = best_of_each(at, u, w, offer_weight.shape[0])
    changed = np.empty(count, dtype=np.int64)
    woken = np.empty(n + count, dtype=np.int64)
    woken_holders = np.empty(n + count, dtype=np.int64)
    n_changed = 0
    n_woken = 0
    for c in range(count):
        a = touched[c]
        i = best[a]
        held = offer_weight[a]
        if w[i] > held or (w[i] == held and u[i] > suitor[a]):
            if held > 0.0:  # the proposer it held is displaced
                woken[n_woken] = suitor[a]
                woken_holders[n_woken] = suitor_holders[a]
                n_woken += 1
            offer_weight[a] = w[i]
            suitor[a] = u[i]
            suitor_holders[a] = hm[i]
            changed[n_changed] = a
            n_changed += 1
        else:
            best[a] = -2  # nobody accepted here this round
    for i in range(n):
        if best[at[i]] != i:
            woken[n_woken] = u[i]
            woken_holders[n_woken] = hm[i]
            n_woken += 1
    return changed[:n_changed], woken[:n_woken], woken_holders[:n_woken]
