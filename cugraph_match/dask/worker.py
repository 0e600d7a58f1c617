"""What runs on the workers: partition summaries, the split of input rows by
owner, each worker's part of the graph (kept in this process between
calls), the supersteps and the result frames.

Every function here is called through ``client.submit``; the parts live in
:data:`PARTS`, keyed by the distributed graph's id and the worker's number
(``"{gid}/{k}"``: workers in one process share the dict), in the worker
process that owns them, as ``cugraph.dask`` keeps its per-worker state.  Tasks that
touch a part are pinned to its worker (``workers=[address]``) and never
pure, so the scheduler neither moves nor de-duplicates them.
"""

from __future__ import annotations

import resource
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..structure.csr import PreferenceCSR
from ..structure.edges import to_host
from ..structure.inputs import EdgeInput, frame_library
from ..structure.output import (masked_values, new_frame, output_weights, pairs_frame,
                                take_labels)
from ..structure.checks import plain
from ..structure.progress import Stopwatch
from ..structure.renumber import native_byte_order
from ..structure.validation import edge_problems
from . import build, build_gpu, kernels
from .threads import host_build_slot, worker_threads

#: The parts of distributed graphs held by this worker process, by
#: :func:`part_key` (graph id and worker number).
PARTS: dict[str, "LocalPart"] = {}

#: The keys of the parts this process dropped lately (oldest first), so that
#: a round left over from a finished run that starts after its graph was
#: released is told apart from a part this process never had (a restarted
#: worker), which must fail the call rather than send nothing.
DROPPED: dict[str, None] = {}

#: How many dropped keys :data:`DROPPED` keeps.
DROPPED_KEPT = 4096

#: Guards :data:`DROPPED` (a worker with several threads drops parts at once).
_DROPPED_LOCK = threading.Lock()


def _host(frame):
    """A partition (or a column) as pandas (cuDF ones are brought to the host)."""
    return frame.to_pandas() if hasattr(frame, "to_pandas") and frame_library(frame) is not pd \
        else frame


# --------------------------------------------------------------------------
# input partitions
# --------------------------------------------------------------------------


@worker_threads
def summarize_partition(frame, source: str, destination: str, weight: str | None,
                        sample_size: int, seed: int, row_sample_size: int = 0) -> dict:
    """What the client needs from one input partition before anything moves:
    its row count, every validation problem (count and first row), a sample
    of endpoint ids for the owners' ranges, integer id bounds and the id
    types present (to refuse unorderable ids as the single-machine path does).
    With ``row_sample_size``, also up to that many whole rows (``"rows_sample"``:
    the id and weight columns on the host), drawn apart from the ids' sample
    so that the owners' ranges do not depend on it."""
    lib = frame_library(frame) or pd
    edges = EdgeInput(lib, frame, source, destination, weight)
    problems = list(edge_problems(edges))
    rows = len(frame)
    summary: dict[str, Any] = {"rows": rows, "problems": problems}
    if problems or rows == 0:
        return summary
    columns = [source, destination] + ([weight] if weight is not None else [])
    summary["bytes"] = int(frame[columns].memory_usage(index=False, deep=True).sum())
    # a non-native byte order read as the same dtype in native order (pandas
    # cannot take rows of it), as one machine's renumbering reads it
    ids = [native_byte_order(frame[source]), native_byte_order(frame[destination])]
    if not all(isinstance(c.dtype, np.dtype) and c.dtype.kind in "iuf" for c in ids):
        # strings, categories, objects: their types are read on the host (plain
        # numbers are sampled where they lie: a cuDF partition stays on its GPU)
        host = _host(build.id_columns(frame, source, destination))
        ids = [host[source], host[destination]]
    summary["types"] = _id_types(ids)  # the client refuses unorderable ids before sorting
    rng = np.random.default_rng(seed)
    take = rng.integers(0, 2 * rows, size=min(sample_size, 2 * rows))
    first = take < rows
    sample = pd.concat([_host(ids[0].iloc[take[first]]), _host(ids[1].iloc[take[~first] - rows])],
                       ignore_index=True)
    summary["sample"] = sample
    summary["bounds"] = [(int(c.min()), int(c.max())) if c.dtype.kind in "iu" else None
                         for c in ids]
    if row_sample_size:
        # each row once (without replacement), in the partition's order
        rows_taken = np.sort(np.random.default_rng(seed + 1).choice(
            rows, size=min(row_sample_size, rows), replace=False))
        columns = [source, destination] + ([weight] if weight in frame.columns else [])
        # the rows first: selecting the columns first would copy them whole
        summary["rows_sample"] = _host(frame.iloc[rows_taken][columns]).reset_index(drop=True)
    return summary


def summarize_partitions(indices: list, source: str, destination: str, weight: str | None,
                         sample_size: int, row_sample_size: int, *frames) -> list:
    """:func:`summarize_partition` of a group of partitions one worker holds
    (``frames``, the partitions ``indices`` of the frame, each one's index
    its sample's seed), in one task (``graph.holder_groups``)."""
    return [summarize_partition(frame, source, destination, weight, sample_size, i,
                                row_sample_size) for i, frame in zip(indices, frames)]


def _id_types(columns) -> dict:
    """One id of each Python type among the id columns (as the single-machine
    path sees them once both columns are joined into one)."""
    types: dict = {}
    for column in columns:
        if not len(column):
            continue
        if column.dtype == object:
            kinds = column.map(type)
            for kind in kinds.drop_duplicates():
                types.setdefault(kind.__name__, column[kinds == kind].iloc[0])
        else:
            value = plain(column.iloc[0])
            types.setdefault(type(value).__name__, value)
    return types


def owners(ids: pd.Series, boundaries) -> np.ndarray:
    """The worker owning each id: the number of range boundaries at or below it
    (``build.owner_codes``, the routing's search, in its narrow dtype)."""
    workers = 1 if boundaries is None else len(boundaries) + 1
    return build.owner_codes(ids, boundaries, workers)


# --------------------------------------------------------------------------
# the worker's part of the graph
# --------------------------------------------------------------------------


def part_key(gid: str, k: int) -> str:
    """The key of worker k's part of graph ``gid`` in :data:`PARTS`."""
    return f"{gid}/{k}"


#: A message word is ``place << 2 | kind`` in 32 bits: a place (the index of
#: a cut edge among those a pair of workers shares) must be below this.
MAX_CUT_PER_PAIR = 2**30


def check_cut_sizes(cut_start: np.ndarray) -> None:
    """Refuse a part sharing :data:`MAX_CUT_PER_PAIR` or more cut edges with
    one worker: their places would not fit a message word."""
    sizes = np.diff(np.asarray(cut_start, dtype=np.int64))
    if sizes.shape[0] and int(sizes.max()) >= MAX_CUT_PER_PAIR:
        raise ValueError(f"a pair of workers shares {int(sizes.max())} cut edges; the "
                         f"superstep messages take fewer than 2**30 ({MAX_CUT_PER_PAIR}) per "
                         f"pair: use more workers or a graph with fewer cut edges")


@dataclass
class LocalPart:
    """One worker's part: its owned vertices ``[own_lo, own_hi)`` and their
    ghosts, in local ids ordered as the caller's ids; the owned rows best
    edge first; the cut edges shared with every other worker, sorted."""

    me: int
    workers: int
    labels: Any  # pandas Series: caller ids of local vertices, sorted
    own_lo: int
    own_hi: int
    owner_of: np.ndarray
    pref: PreferenceCSR
    loop: np.ndarray | None
    cut_start: np.ndarray
    cut_own: np.ndarray
    cut_ghost: np.ndarray
    cut_key: np.ndarray
    entry_cut: np.ndarray  # the cut edge of each row entry, -1 inside the part
    weighted: bool
    device_frames: bool
    keys: int  # edge keys run below this (local undirected edges + 1)
    run: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)
    #: the array module of a part built and kept on the worker's GPU
    #: (``labels`` is then an array of the caller's ids and every array but
    #: ``cut_start`` lives on the device); None for a host part
    xp: Any = None
    #: a device part's copy in host memory, made when a CPU kernel first
    #: needs it (:func:`host_part`)
    host_copy: "LocalPart | None" = None

    @property
    def on_device(self) -> bool:
        return self.xp is not None

    def nbytes(self) -> int:
        arrays = [self.owner_of, self.pref.offsets, self.pref.indices, self.pref.keys,
                  self.cut_start, self.cut_own, self.cut_ghost, self.cut_key,
                  self.entry_cut]
        if self.pref.weight_of_key is not None:
            arrays.append(self.pref.weight_of_key)
        if self.loop is not None:
            arrays.append(self.loop)
        labels = self.labels.nbytes if self.on_device else self.labels.memory_usage(deep=False)
        return int(sum(a.nbytes for a in arrays) + labels)

    def label(self, i: int):
        """The caller's id of local vertex i, as a Python scalar."""
        if self.on_device:
            return plain(to_host(self.labels[i:i + 1])[0])
        return plain(self.labels.iloc[i])

    def owned_labels(self) -> pd.Series:
        """The caller's ids of the owned vertices, on the host (a device
        part's are copied: the per-vertex frames a caller passes are matched
        against them there)."""
        if self.on_device:
            return pd.Series(to_host(self.labels[self.own_lo:self.own_hi]))
        return self.labels.iloc[self.own_lo:self.own_hi].reset_index(drop=True)


@worker_threads
def build_part(gid: str, me: int, workers: int, boundaries, weighted: bool,
               device_frames: bool, what: str, summed: bool, device: bool,
               *absorbed, builds_per_host: int | str = "auto") -> dict:
    """Build and keep this worker's part from the pieces it absorbed
    (``absorbed``: its absorbs, so that the build runs after them); ``gid`` is
    the part's key (:func:`part_key`); ``summed``: parallel edges add their
    weights (``build.local_edges``); ``device``: built and kept on this
    worker's GPU (:mod:`cugraph_match.dask.build_gpu`, from pieces taken by
    its ``take_piece``).  A host build holds one of its host's build slots
    (``builds_per_host``: :func:`.threads.host_build_slot`; a device build
    has its own GPU).  The stages' memory and CPU time are reported in
    ``phases`` (the process's peak resident bytes so far, its resident bytes,
    this thread's CPU seconds) for the benchmark."""
    phases = [_phase("absorbed")]
    pieces = build.STAGED.pop(gid, [])
    waited = 0.0
    if device:
        part = _device_part(pieces, me, workers, boundaries, weighted, device_frames, phases)
    else:
        with host_build_slot(builds_per_host, me) as slot:
            waited = slot["waited"]
            phases.append(_phase("slot"))
            part = _host_part(pieces, me, workers, boundaries, weighted, device_frames, what,
                              summed, phases)
    check_cut_sizes(part.cut_start)
    PARTS[gid] = part
    phases.append(_phase("part"))
    pref = part.pref
    # one label in the graph's id type, for the client's check of the ids
    # a caller gives per vertex (``structure.graph.search_labels``)
    example = pd.Series(to_host(part.labels[:1])) if part.on_device else \
        part.labels.iloc[:1].reset_index(drop=True)
    return {"owned": part.own_hi - part.own_lo, "local": int(part.labels.shape[0]),
            "example": example,
            "entries": int(pref.indices.shape[0]),
            "table": 0 if pref.weight_of_key is None else int(pref.weight_of_key.nbytes),
            "cut": np.diff(part.cut_start).tolist(), "nbytes": part.nbytes(),
            "label_dtype": part.labels.dtype, "device": part.on_device, "phases": phases,
            "slot_wait_seconds": waited}


def _host_part(pieces: list, me: int, workers: int, boundaries, weighted: bool,
               device_frames: bool, what: str, summed: bool, phases: list) -> LocalPart:
    labels, edges = build.local_edges(pieces, weighted, what, summed)
    phases.append(_phase("edges"))
    n = len(labels)
    owner_of = (owners(labels, boundaries) if workers > 1 else np.zeros(n)).astype(np.int32)
    own_lo = int(np.searchsorted(owner_of, me, side="left"))
    own_hi = int(np.searchsorted(owner_of, me, side="right"))
    loop = edges.loop
    pref, keys, cut = build.owned_preference(edges, own_lo, own_hi, owner_of, workers)
    del edges
    phases.append(_phase("preference"))
    cut_start, key, own, ghost, entry_cut = cut
    return LocalPart(me, workers, labels, own_lo, own_hi, owner_of, pref, loop, cut_start,
                     own, ghost, key, entry_cut, weighted, device_frames, keys)


def _device_part(pieces: list, me: int, workers: int, boundaries, weighted: bool,
                 device_frames: bool, phases: list) -> LocalPart:
    a = build_gpu.local_part(pieces, boundaries, me, workers, weighted)
    phases.append(_phase("device"))
    return LocalPart(me, workers, a["labels"], a["own_lo"], a["own_hi"], a["owner_of"],
                     a["pref"], a["loop"], a["cut_start"], a["cut_own"],
                     a["cut_ghost"], a["cut_key"], a["entry_cut"], weighted, device_frames,
                     a["keys"], xp=a["xp"])


def holds_part(gid: str) -> bool:
    """Whether this process still holds the part ``gid`` (not released)."""
    return gid in PARTS


def host_part(gid: str) -> LocalPart:
    """The part as the CPU kernels read it: a host part as it is; a part kept
    on the GPU copied to host memory once and kept beside it (Louvain, Leiden
    and modularity run CPU kernels on Dask; the matchings of such a part run
    on the GPU, on the device arrays)."""
    part = PARTS[gid]
    if not part.on_device:
        return part
    if part.host_copy is None:
        h = to_host
        pref = part.pref
        table = None if pref.weight_of_key is None else h(pref.weight_of_key)
        part.host_copy = LocalPart(
            part.me, part.workers, pd.Series(h(part.labels), name="vertex"), part.own_lo,
            part.own_hi, h(part.owner_of),
            PreferenceCSR(h(pref.offsets), h(pref.indices), h(pref.keys), table),
            None if part.loop is None else h(part.loop), part.cut_start,
            h(part.cut_own), h(part.cut_ghost), h(part.cut_key), h(part.entry_cut),
            part.weighted, part.device_frames, part.keys)
    return part.host_copy


def _status_bytes(field: str) -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return 0


def _phase(name: str) -> tuple:
    """(stage, peak resident bytes so far, resident bytes, this thread's CPU s)."""
    return (name, _status_bytes("VmHWM"), _status_bytes("VmRSS"), time.thread_time())


def largest_weight(gid: str) -> float:
    """The part's largest edge or self-loop weight (1.0 unweighted, 0.0
    without edges), read where the part lives: the scale the community
    sums take (``structure.edges.sum_safe_exponent``) is the whole graph's."""
    part = PARTS[gid]
    table = part.pref.weight_of_key
    largest = 0.0
    if table is None:
        largest = 1.0 if part.pref.indices.shape[0] else 0.0
    elif table.shape[0] > 1:  # entry 0 is no edge's
        largest = float(table[1:].max())
    if part.loop is not None and part.loop.shape[0]:
        largest = max(largest, float(part.loop.max()))
    return largest


def drop_part(gid: str) -> bool:
    with _DROPPED_LOCK:
        DROPPED[gid] = None
        while len(DROPPED) > DROPPED_KEPT:
            del DROPPED[next(iter(DROPPED))]
    return PARTS.pop(gid, None) is not None


def peak_rss_bytes(reset: bool = False) -> int:
    """This process's peak resident memory (VmHWM); ``reset`` starts a new peak."""
    if reset:
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:  # pragma: no cover - not Linux, or not allowed
            pass
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # pragma: no cover


# --------------------------------------------------------------------------
# b-Suitor supersteps
# --------------------------------------------------------------------------


def owned_ids(gid: str, ids: pd.Series, positions: np.ndarray):
    """Local ids of the caller ids ``ids`` sent to this worker (all in its
    range); returns (local ids, positions of the ids that are not vertices)."""
    part = PARTS[gid]
    owned = part.owned_labels()
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64), positions[:0]
    at = np.minimum(owned.searchsorted(ids.to_numpy()), max(len(owned) - 1, 0))
    if len(owned):
        found = owned.to_numpy()[at] == ids.to_numpy()
    else:
        found = np.zeros(len(ids), dtype=bool)
    return at.astype(np.int64) + part.own_lo, positions[~found]


def assign_capacities(gid: str, b) -> dict:
    """Keep b(v) of the owned vertices: ``b`` is an int or a ``vertex | b |
    position`` frame of this worker's share (checked on the client)."""
    part = PARTS[gid]
    n_own = part.own_hi - part.own_lo
    if isinstance(b, (int, np.integer)):
        part.run["cap"] = np.full(n_own, int(b), dtype=np.int64)
        return {"unknown": 0, "first_unknown": None, "lacking": 0, "first_lacking": None}
    local, unknown = owned_ids(gid, b["vertex"], b["position"].to_numpy())
    report = {"unknown": len(unknown), "first_unknown": int(unknown.min()) if len(unknown)
              else None}
    known = np.ones(len(b), dtype=bool)
    if len(unknown):
        known = ~np.isin(b["position"].to_numpy(), unknown)
    cap = np.zeros(n_own, dtype=np.int64)
    given = np.zeros(n_own, dtype=bool)
    cap[local[known] - part.own_lo] = b["b"].to_numpy()[known]
    given[local[known] - part.own_lo] = True
    lacking = np.flatnonzero(~given)
    report["lacking"] = len(lacking)
    report["first_lacking"] = part.label(part.own_lo + int(lacking[0])) \
        if len(lacking) else None
    part.run["cap"] = cap
    return report


def gpu_state() -> dict:
    """Whether this worker process runs the GPU kernels: on a real GPU
    (``real``, what ``backend="auto"`` needs) or in Numba's simulator (enough
    for ``backend="gpu"``, as on one machine), and why not."""
    from ..structure.device import cuda_simulator_enabled, probe

    real, reason = probe()
    return {"real": real, "kernels": real or cuda_simulator_enabled(), "reason": reason}


def start_run(gid: str, device: bool = False, run_id: str | None = None) -> int:
    """Fresh b-Suitor state from the kept capacities; returns proposals owed.
    ``device``: the supersteps run on this worker's GPU
    (:mod:`cugraph_match.dask.kernels_gpu`; a host part's arrays are copied
    there once per run, a part built there is used as it is).  ``run_id``
    names the run: a superstep of another run is idle (:func:`superstep`)."""
    part = PARTS[gid]
    part.run["id"] = run_id
    if part.on_device:
        if not device:  # the client refuses this first (matching.supersteps_on_gpu)
            raise ValueError("this part lives on the worker's GPU: its supersteps run there")
        from . import kernels_gpu

        slot_start, closing, quiet = build_gpu.run_arrays(part, part.run["cap"])
        part.run["gpu"] = kernels_gpu.start_run(part, slot_start, closing, quiet, part.xp)
        return int(slot_start[-1])
    pref = part.pref
    n = part.labels.shape[0]
    # the run's arrays at 4-8 bytes per local vertex, each written once:
    # a worker process maps every large array afresh (Dask's nanny sets
    # MALLOC_TRIM_THRESHOLD_, which keeps glibc's mmap threshold at 128 KiB),
    # so each temporary costs its pages' first touch (measured on the 2048^2
    # grid, 2.1 M vertices a worker: degrees, capacities, a repeated list of
    # the proposals owed and int64 copies of the offsets were 0.45 CPU s of
    # system time over two workers)
    slot_start = np.zeros(n + 1, dtype=np.int64)
    closing = kernels.slot_starts(pref.offsets, part.run["cap"], part.own_lo, part.own_hi,
                                  slot_start)
    quiet = kernels.quiet_vertices(pref.offsets, part.entry_cut, part.own_lo, part.own_hi)
    run = part.run
    owed = int(slot_start[-1])
    if device:
        from ..structure.backend import resolve_backend
        from . import kernels_gpu

        run["gpu"] = kernels_gpu.start_run(part, slot_start, closing, quiet,
                                           resolve_backend("gpu").xp)
        return owed
    run["slot_start"] = slot_start
    run["slots"] = np.zeros(owed, dtype=np.uint64)
    run["next_edge"] = pref.offsets[:-1].copy()
    run["out_pending"] = np.zeros(part.cut_own.shape[0], dtype=np.bool_)
    run["first"] = True  # the first superstep owes every owned vertex its capacity
    # closed below: key + 1 of the best closed edge at each ghost (see kernels.superstep)
    run["floor"] = np.zeros(n, dtype=np.uint32)
    # message buffers grow in the kernel when a superstep sends more (a
    # superstep sends at most 3 words per cut edge; the first, the largest,
    # about 0.8 measured at R-MAT 20)
    start = max(1024, part.cut_own.shape[0])
    run["out_worker"] = np.empty(start, dtype=np.min_scalar_type(max(part.workers - 1, 0)))
    run["out_word"] = np.empty(start, dtype=np.uint32)
    run["open_until"] = pref.offsets[1:].copy()
    run["quiet"], run["closing"] = quiet, closing
    return owed


@worker_threads
def superstep(gid: str, run_id: str | None, previous, *incoming) -> dict:
    """One superstep of run ``run_id`` on this worker; ``previous`` is this
    worker's previous superstep (unused: passed so that the worker's
    supersteps run one after another), ``incoming[k]`` the message array
    sent by worker k last superstep (None when none), or worker k's whole
    step, from which this worker reads its block.  Returns the outgoing
    message arrays by destination and counts.

    A superstep of a run that is over sends nothing and changes nothing: the
    client releases the rounds queued after the last with messages, but one
    whose inputs were still on their way may start after ``finish_run`` (it
    found no run state) or after the next run's ``start_run`` on a reused
    graph, where it would have taken that run's first superstep and dropped
    its messages.  One may even start after the graph was released (the
    part dropped): it sends nothing either (:func:`released_step`)."""
    part = PARTS.get(gid)
    if part is None:
        return released_step(gid, bytes=[], received=0, local_proposals=0)
    run = part.run
    if run.get("id", False) != run_id:
        return _sent(part, np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.uint32),
                     np.zeros(0, dtype=np.uint32), 0, Stopwatch())
    incoming = [block(m, part.me) if isinstance(m, dict) else m for m in incoming]
    # the incoming words in one array and their senders in another of the
    # outgoing senders' width (1 byte up to 256 workers): the first
    # supersteps receive about a word per cut edge, and a sender array of
    # int64 (plus its per-block pieces) was 4x the words themselves
    live = [(k, m) for k, m in enumerate(incoming) if m is not None and m.shape[0]]
    total = sum(m.shape[0] for _, m in live)
    sender = np.min_scalar_type(max(part.workers - 1, 0))
    in_worker = np.empty(total, dtype=sender)
    in_word = np.empty(total, dtype=np.uint32)
    at = 0
    for k, m in live:
        in_worker[at:at + m.shape[0]] = k
        in_word[at:at + m.shape[0]] = m
        at += m.shape[0]
    del live
    started = Stopwatch()
    if "gpu" in run:
        from . import kernels_gpu

        out_worker, out_word, proposals = kernels_gpu.superstep(run["gpu"], in_worker, in_word)
        return _sent(part, out_worker, out_word, in_word, proposals, started)
    first = run.pop("first", False)
    closing = run.pop("closing", np.zeros(0, dtype=np.int64))
    pref = part.pref
    out_worker, out_word, n_out, proposals = kernels.superstep(
        pref.offsets, pref.indices, pref.keys, run["slot_start"], run["slots"],
        run["next_edge"], part.owner_of, part.me, part.own_lo, part.own_hi, part.cut_start,
        part.cut_own, part.cut_ghost, part.cut_key, part.entry_cut,
        run["out_pending"], run["floor"], run["open_until"], run["quiet"], first, closing,
        in_worker, in_word,
        run["out_worker"], run["out_word"])
    run["out_worker"], run["out_word"] = out_worker, out_word  # kept, grown or not
    return _sent(part, out_worker[:n_out], out_word[:n_out], in_word, proposals, started)


def _sent(part: LocalPart, out_worker: np.ndarray, out_word: np.ndarray, in_word: np.ndarray,
          proposals: int, started: Stopwatch) -> dict:
    """A superstep's outgoing words split by destination, and its counts."""
    # one mask per destination, not an argsort: no position array as large
    # as the messages (words to one worker keep their order either way)
    blocks = []
    for k in range(part.workers):
        to_k = out_word[out_worker == k]
        blocks.append(to_k if to_k.shape[0] else None)
    return {"blocks": blocks, "sent": int(out_word.shape[0]),
            "bytes": [0 if b is None else int(b.nbytes) for b in blocks],
            "received": int(in_word.shape[0]), "local_proposals": int(proposals),
            **started.spent()}


def released_step(gid: str, **counts) -> dict:
    """What a round's task returns when part ``gid`` is not here.  Left over
    from a finished run, it may start after the call released the graph (it
    raised KeyError in the worker's log after a call that had returned its
    result): then it sends nothing (no blocks, so :func:`block` reads None
    for every worker), with the layout's own ``counts`` at zero.  A part
    this process never dropped was lost (a restarted worker): that raises,
    so the call fails instead of missing the part's messages."""
    if gid not in DROPPED:
        raise KeyError(f"cugraph_match.dask: this worker does not hold part {gid!r} of a "
                       "distributed graph (was the worker restarted?)")
    return {"blocks": [], "sent": 0, **counts, **Stopwatch().spent()}


def block(step: dict, k: int):
    """The block a step sends to worker ``k`` (None: nothing, as from a
    :func:`released_step`)."""
    blocks = step["blocks"]
    return blocks[k] if k < len(blocks) else None


def step_counts(step: dict) -> dict:
    return {key: value for key, value in step.items() if key != "blocks"}


@worker_threads
def finish_run(gid: str, mates: bool = False) -> int:
    """Extract the matched edges at this worker's vertices; returns how many
    it reports in a b-matching (those whose lower end it owns).  ``mates``
    (a matching, every capacity at most 1, on the host): each owned
    vertex's mate and edge key straight from the slots, for
    :func:`mates_partition` (returns the owned vertices matched)."""
    part = PARTS[gid]
    run = part.run
    if part.on_device:  # the matched edges found where the part lives
        d = run.pop("gpu")["device"]
        lo, hi, key = build_gpu.matched_pairs(d["slots"], d["slot_start"], d["out_pending"],
                                              part.cut_own, part.cut_ghost, part.cut_key,
                                              part.xp)
        del d
        part.results["pairs"] = (lo, hi, key)
        part.run = {"cap": run["cap"]}
        return int((lo >= part.own_lo).sum())
    if "gpu" in run:
        from . import kernels_gpu

        slots, slot_start, out_pending = kernels_gpu.final_state(run.pop("gpu"))
    else:
        slots, slot_start, out_pending = run["slots"], run["slot_start"], run["out_pending"]
    if mates:
        # one slot per vertex: no holder lists, no pair list and its sort
        # (about 100 bytes per local vertex; measured on the 2048^2 grid, 2.1
        # M vertices a worker, the worker's largest allocation after its build)
        n_own = part.own_hi - part.own_lo
        mate = np.full(n_own, -1, dtype=np.int64)
        key = np.zeros(n_own, dtype=np.uint32)
        kernels.owned_mates(slots, slot_start, part.own_lo, part.own_hi, part.cut_own,
                            part.cut_ghost, out_pending, mate, key)
        part.results["mates"] = (mate, key)
        part.run = {"cap": run["cap"]}
        return int(np.count_nonzero(mate >= 0))
    lo, hi, key = kernels.matched_pairs(slots, slot_start, part.own_lo, part.own_hi,
                                        part.cut_own, part.cut_ghost, out_pending)
    part.results["pairs"] = (lo, hi, key)
    part.run = {"cap": run["cap"]}
    return int(np.count_nonzero(lo >= part.own_lo))  # the edges it reports: lower end owned


def _device(frame, part: LocalPart):
    if not part.device_frames:
        return frame
    import cudf  # pragma: no cover - needs a GPU worker

    return cudf.from_pandas(frame)  # pragma: no cover


def _result_columns(part: LocalPart):
    """Where a result frame is made: (frame library, the local vertices'
    caller ids as its Series, array module).  A device part's frames are
    made on the device for cuDF partitions (no host copy), on the host for
    pandas ones (the results copied back, as one machine returns pandas)."""
    if not part.on_device:
        return pd, part.labels, np
    if part.device_frames:
        import cudf  # pragma: no cover - needs a GPU worker

        return cudf, cudf.Series(part.labels, name="vertex"), part.xp  # pragma: no cover
    return pd, pd.Series(to_host(part.labels), name="vertex"), part.xp


def _indexed(frame, lib, offset: int, count: int):
    frame.index = lib.RangeIndex(offset, offset + count)
    return frame


@worker_threads
def pairs_partition(gid: str, offset: int):
    """``src | dst | weight`` of this worker's matched edges, indexed from ``offset``."""
    part = PARTS[gid]
    lo, hi, key = part.results.pop("pairs")
    mine = lo >= part.own_lo
    lo, hi, key = lo[mine], hi[mine], key[mine]
    lib, labels, xp = _result_columns(part)
    weights = part.pref.weights(key.astype(np.int64), xp)
    frame = _indexed(pairs_frame(labels, lib, lo, hi, weights), lib, offset, int(lo.shape[0]))
    return frame if part.on_device else _device(frame, part)


@worker_threads
def mates_partition(gid: str, offset: int):
    """``vertex | mate | weight`` of this worker's owned vertices (b = 1),
    indexed from ``offset``."""
    part = PARTS[gid]
    n_own = part.own_hi - part.own_lo
    lib, labels, xp = _result_columns(part)
    if "mates" in part.results:  # finish_run(mates=True)
        mate, owned_key = part.results.pop("mates")
    else:
        lo, hi, key = part.results.pop("pairs")
        n = int(labels.shape[0])
        mate = xp.full(n, -1, dtype=np.int64)
        mkey = xp.zeros(n, dtype=np.int64)
        mate[lo], mate[hi] = hi, lo
        mkey[lo], mkey[hi] = key, key
        mate = mate[part.own_lo:part.own_hi]
        owned_key = mkey[part.own_lo:part.own_hi]
    missing = mate < 0
    weights = part.pref.weights(owned_key.astype(np.int64, copy=False), xp)
    frame = new_frame(lib, {
        "vertex": labels.iloc[part.own_lo:part.own_hi].reset_index(drop=True),
        "mate": take_labels(labels, mate, missing, lib),
        "weight": masked_values(output_weights(weights), missing, lib),
    })
    frame = _indexed(frame, lib, offset, n_own)
    return frame if part.on_device else _device(frame, part)


# --------------------------------------------------------------------------
# modularity
# --------------------------------------------------------------------------


def assign_communities(gid: str, share: pd.DataFrame) -> dict:
    """Keep the community code of every owned vertex; ``share`` is this
    worker's ``vertex | code | position`` rows."""
    part = host_part(gid)
    n_own = part.own_hi - part.own_lo
    local, unknown = owned_ids(gid, share["vertex"], share["position"].to_numpy())
    known = np.ones(len(share), dtype=bool)
    if len(unknown):
        known = ~np.isin(share["position"].to_numpy(), unknown)
    code = np.full(part.labels.shape[0], -1, dtype=np.int64)
    code[local[known]] = share["code"].to_numpy()[known]
    lacking = np.flatnonzero(code[part.own_lo:part.own_hi] < 0)
    part.results["community"] = code
    return {"unknown": len(unknown),
            "first_unknown": int(unknown.min()) if len(unknown) else None,
            "lacking": len(lacking),
            "first_lacking": plain(part.labels.iloc[part.own_lo + lacking[0]])
            if len(lacking) else None, "owned": n_own}


def cut_codes(gid: str, k: int):
    """Community codes of this worker's ends of the cut edges shared with k."""
    part = host_part(gid)
    block_ = slice(part.cut_start[k], part.cut_start[k + 1])
    return part.results["community"][part.cut_own[block_]]


@worker_threads
def modularity_sums(gid: str, exponent: int, incoming: list, sent: list) -> dict:
    """This worker's share of the modularity sums: edges counted at the owner
    of their smaller end, self-loops at their vertex, degrees of owned
    vertices summed per community; every weight divided by 2**exponent
    first (the graph's ``weight_exponent``: Q does not change).
    ``incoming``: the other workers' :func:`cut_codes` for this one (None
    for itself); ``sent``: this worker's own :func:`cut_codes` results, not
    read: given as arguments, they make these sums, which drop the codes,
    wait until every one of them has read the codes (a worker with several
    threads ran them in any order)."""
    del sent
    part = host_part(gid)
    code = part.results.pop("community")
    for k, codes in enumerate(incoming):
        if codes is not None and k != part.me:
            block_ = slice(part.cut_start[k], part.cut_start[k + 1])
            code[part.cut_ghost[block_]] = codes
    pref = part.pref
    # the owned rows hold keys up to the number of local edges (not of the
    # entries they keep), so the all-ones table is sized from the build's count
    table = pref.weight_of_key.astype(np.float64) if pref.weight_of_key is not None \
        else np.ones(part.keys, dtype=np.float64)
    loop = part.loop.astype(np.float64) if part.loop is not None \
        else np.zeros(part.labels.shape[0], dtype=np.float64)
    if exponent:
        table, loop = np.ldexp(table, -exponent), np.ldexp(loop, -exponent)
    total, inside, degree = kernels.modularity_sums(pref.offsets, pref.indices, pref.keys,
                                                    table, loop, code, part.own_lo,
                                                    part.own_hi)
    own_codes = code[part.own_lo:part.own_hi]
    present, where = np.unique(own_codes, return_inverse=True)
    sums = np.bincount(where, weights=degree, minlength=len(present))
    return {"total": total, "inside": inside, "codes": present, "degree": sums}


def drop_results(gid: str, name: str) -> None:
    host_part(gid).results.pop(name, None)
