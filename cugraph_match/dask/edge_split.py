"""The matching on an edge-split layout: every row stays on the worker that
holds it, and a vertex's state lives at the owner of its id range.

The vertex layout (:class:`~cugraph_match.dask.graph.DistributedGraph`)
moves every row to the owners of its two ends before any work: 1.5 times
the rows built at two workers, at more CPU per row than one machine's
pipeline (the README's *Distributed* tables).  Here nothing moves in the
build: each worker runs one machine's pipeline on the rows it already holds
(its vertices are the *held* ones; a vertex held by two workers has a row on
each), and the owners of the id ranges learn which workers hold each of
their vertices.  The greedy matching is then found by Suitor in synchronous
rounds of three exchanges (:mod:`.edge_split_worker`): the holders send each
active vertex's best candidate to its owner, the owner proposes the best of
them, and the owner of the other end decides and tells the holders what
changed.  Every holder's mirror of an offer is updated by the round that
changed it, so it equals the offer when read; the greedy matching is the
unique stable outcome whatever the order of proposals, so the result is
one machine's frame row for row.

Taken for ``suitor_matching`` and ``locally_dominant_matching`` of a Dask
edge list with pandas partitions, integer ids (unsigned ones up to 32 bits)
and float32, float64, small-integer or no weights, on the host
(:func:`edge_split_eligible`), when the Dask setting
``cugraph_match.dask.layout`` is ``"edge"``, or ``"auto"`` (the default)
and the summaries' sample of rows says it pays (:func:`choose_layout`);
``"vertex"``: the vertex layout always.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from typing import Any

import numpy as np
import pandas as pd

from ..structure.inputs import DEFAULT_WEIGHT, frame_library
from ..structure.progress import log_step
from . import edge_split_worker as es
from . import worker as w
from .graph import DistributedGraph, _client
from .rounds import FIRST_BATCH, WHOLE_STEP_BYTES, next_batch
from .threads import requested_host_builds

log = logging.getLogger("cugraph_match.dask")

#: The Dask setting naming the matchings' layout of a Dask edge list.
LAYOUT_SETTING = "cugraph_match.dask.layout"
LAYOUTS = ("auto", "edge", "vertex")
#: Holders are bits of one int64 word.
MAX_WORKERS = 63
#: The ``"auto"`` choice (:func:`choose_layout`), measured in the README's
#: *Distributed* section: the edge layout where the sampled rows' ends lie in
#: different owners' ranges at least this share of what scattered ids give
#: ((p - 1) / p) ...
SCATTERED_CUT = 0.8
#: ... their weights are this share distinct at least (ties leave the order
#: to the ids, and synchronous rounds pay for the chains that follow) ...
DISTINCT_WEIGHTS = 0.9
#: ... and the rows are this many per id of the id range at least (a sparse
#: graph's per-vertex state at every holder breaks the memory rule).
ROWS_PER_ID = 8
#: Whole rows the partitions' summaries sample for the choice (spread over
#: them: 32,768 rows read a share to about +-0.005).
ROW_SAMPLE = 32768
#: The most rounds submitted at once (:func:`rounds.next_batch`): a round is
#: three phases.
MAX_BATCH = 16


def requested_layout() -> str:
    """The layout the Dask setting asks for (``"auto"`` when unset)."""
    import dask

    layout = dask.config.get(LAYOUT_SETTING, "auto")
    if layout not in LAYOUTS:
        raise ValueError(f"the Dask setting {LAYOUT_SETTING!r} must be one of {LAYOUTS}, got "
                         f"{layout!r}")
    return layout


def _plain_ids(dtype) -> bool:
    return isinstance(dtype, np.dtype) and (dtype.kind == "i" or
                                            (dtype.kind == "u" and dtype.itemsize <= 4))


def _plain_weights(dtype) -> bool:
    return isinstance(dtype, np.dtype) and (dtype in (np.float32, np.float64) or
                                            (dtype.kind in "iu" and dtype.itemsize <= 4))


def edge_split_eligible(frame: Any, source: str, destination: str, weight,
                        backend: str) -> bool:
    """Whether a Dask edge list may take the edge-split layout: the layout
    setting says ``"edge"`` or ``"auto"`` (then :func:`choose_layout` decides
    once the partitions are summarized), and the input is a frame (not a
    built graph) of pandas partitions whose ids and weights compare exactly
    as int64 and float64, on the host, on at most :data:`MAX_WORKERS`
    workers."""
    if requested_layout() == "vertex" or isinstance(frame, DistributedGraph) or \
            backend == "gpu":
        return False
    meta = getattr(frame, "_meta", None)
    if meta is None or not hasattr(meta, "columns") or frame_library(meta) is not pd:
        return False
    if source not in meta.columns or destination not in meta.columns or source == destination:
        return False  # the vertex layout's build names the error
    if not (_plain_ids(meta[source].dtype) and _plain_ids(meta[destination].dtype)):
        return False
    if weight is not None and weight in meta.columns and \
            (weight in (source, destination) or not _plain_weights(meta[weight].dtype)):
        return False
    if weight is not None and weight != DEFAULT_WEIGHT and weight not in meta.columns:
        return False  # the vertex layout's build names the missing column
    return len(_client(None).nthreads()) <= MAX_WORKERS


def ids_range(summaries: list) -> tuple[int, int] | None:
    """The lowest and highest id of every partition's integer id columns
    (their summaries' bounds); None when no partition has ids."""
    bounds = [b for s in summaries for b in (s.get("bounds") or ()) if b is not None]
    if not bounds:
        return None
    return min(b[0] for b in bounds), max(b[1] for b in bounds)


def choose_layout(summaries: list, boundaries, workers: int, weighted: bool) -> dict:
    """The ``"auto"`` layout of an eligible edge list, from the summaries'
    sample of whole rows: ``"edge"`` where the vertex layout would move most
    rows and store most edges twice and the edge layout's rounds stay few and
    its parts small, else ``"vertex"``.  Returns the layout and the figures
    read: ``cut`` (the share of sampled rows, self-loops apart, whose ends
    have different owners, over the share scattered ids give, (p - 1) / p),
    ``distinct_weights`` (distinct values over the sampled edges, an edge
    sampled twice, in either direction, counted once; 0 unweighted: every
    edge ties) and ``rows_per_id`` (rows as given over the id range's width,
    at most the rows per vertex).  One worker: ``"vertex"``.

    Measured (README, *Distributed*): on R-MAT 20 the edge layout takes
    0.8 times the vertex layout's CPU (cut 1.0, distinct weights, 16 rows per
    id; 0.6 before the vertex layout's row scatter got 2-3x cheaper); on a
    grid (cut 0) the vertex layout moves few rows and the edge layout breaks
    the memory rule (2 rows per id); where ties leave the
    greedy order to ids that follow the graph, the edge layout's synchronous
    rounds pay for every link of the chains of displacements (470 rounds on
    the 4elt mesh unweighted, 57 s against 1.0 s)."""
    sample = [s["rows_sample"] for s in summaries if len(s.get("rows_sample", ()))]
    figures = {"layout": "vertex", "cut": 0.0, "distinct_weights": 0.0, "rows_per_id": 0.0}
    if workers < 2 or not sample:
        return figures
    rows = pd.concat(sample, ignore_index=True)
    ends = [rows.iloc[:, 0].to_numpy(), rows.iloc[:, 1].to_numpy()]
    apart = ends[0] != ends[1]
    owner = [w.owners(pd.Series(end[apart]), boundaries) for end in ends]
    crossing = float(np.mean(owner[0] != owner[1])) if apart.any() else 0.0
    figures["cut"] = crossing * workers / (workers - 1)
    if weighted and rows.shape[1] > 2 and apart.any():
        # one weight per edge: an edge listed both ways (or repeated) is one
        # edge, and its copies are not ties between edges
        lo, hi = np.minimum(ends[0], ends[1])[apart], np.maximum(ends[0], ends[1])[apart]
        edges = pd.DataFrame({"lo": lo, "hi": hi}).drop_duplicates()
        weights = rows.iloc[:, 2].to_numpy()[apart][edges.index.to_numpy()]
        figures["distinct_weights"] = len(np.unique(weights)) / len(weights)
    id_range = ids_range(summaries)
    if id_range is not None:
        width = id_range[1] - id_range[0] + 1
        figures["rows_per_id"] = sum(s["rows"] for s in summaries) / width
    if figures["cut"] >= SCATTERED_CUT and figures["distinct_weights"] >= DISTINCT_WEIGHTS \
            and figures["rows_per_id"] >= ROWS_PER_ID:
        figures["layout"] = "edge"
    return figures


class EdgeSplitGraph(DistributedGraph):
    """A Dask edge list kept where its partitions lie, for the matchings.

    Built as :class:`DistributedGraph` checks an edge list (the same
    validation over every partition, the same owners' ranges from a sample
    of ids), then each worker builds one machine's preference rows of the
    partitions it holds and the owners learn their vertices' holders.  Only
    :func:`edge_split_matching` reads it.

    ``choose``: the ``"auto"`` setting; the summaries' sample of rows decides
    (:func:`choose_layout`), and where it says ``"vertex"`` the graph is built
    as :class:`DistributedGraph` builds it, from the same summaries, and read
    as one (``layout`` says which was built).
    """

    ROW_SAMPLE = ROW_SAMPLE

    def __init__(self, edges: Any, source: str, destination: str, weight, choose: bool):
        self.layout = "auto" if choose else "edge"
        self._summarized: tuple | None = None
        super().__init__(edges, source, destination, weight, backend="cpu")

    def summarize(self, parts: list, meta) -> tuple[list, Any]:
        """The partitions' summaries, made once (the vertex layout's build,
        when the choice falls on it, reads the same)."""
        if self._summarized is None:
            self._summarized = super().summarize(parts, meta)
        return self._summarized

    def _build(self, parts: list, meta) -> None:
        client, p = self.client, len(self.workers)
        started = time.perf_counter()
        builds_per_host = requested_host_builds()  # checked before any partition is read
        summaries, _ = self.summarize(parts, meta)
        choice = {"layout": self.layout}
        if self.layout == "auto":
            choice = choose_layout(summaries, self.boundaries, p, self.weighted)
            self.layout = choice["layout"]
            log.info("cugraph_match.dask: layout %s (sampled rows: cut %.2f of scattered ids', "
                     "distinct weights %.2f, rows per id %.1f)", self.layout, choice["cut"],
                     choice["distinct_weights"], choice["rows_per_id"])
        if self.layout == "vertex":
            super()._build(parts, meta)
            self.stats.update(layout="vertex", layout_choice=choice)
            return
        if self.boundaries is not None:
            self.boundaries = np.asarray(self.boundaries).astype(np.int64)
        mine: list[list] = [[] for _ in range(p)]
        for i, (part, where) in enumerate(zip(parts, self.part_holders)):
            k = self.workers.index(where) if where in self.workers else i % p
            mine[k].append(part)
        parts.clear()
        keys = [w.part_key(self.gid, k) for k in range(p)]
        builds = [client.submit(es.build_part, keys[k], k, p, self.boundaries, self.source,
                                self.destination, self.weight, self._what, *mine[k],
                                builds_per_host=builds_per_host, workers=[address],
                                pure=False) for k, address in enumerate(self.workers)]
        del mine
        infos = self.gather(builds)
        id_range = ids_range(summaries)  # the messages' words (edge_split_worker.Words)
        shares = [[client.submit(es.held_share, keys[i], j, id_range, workers=[self.workers[i]],
                                 pure=False) for i in range(p)] for j in range(p)]
        # the result's dtypes as one machine reads the rows (any worker with rows)
        read = next((i for i in infos if i["held"]), infos[0])
        learned = self.gather([client.submit(es.learn_owned, keys[j], read["id_dtype"],
                                           read["weight_dtype"], id_range, *shares[j],
                                           workers=[address], pure=False)
                             for j, address in enumerate(self.workers)])
        del shares
        owned = [r["owned"] for r in learned]
        self.parts = infos
        self.offsets = np.concatenate([[0], np.cumsum(owned)]).astype(np.int64)
        rows = sum(s["rows"] for s in summaries)
        self.stats = {
            "rows": rows, "workers": p, "device": "cpu", "layout": "edge",
            "vertices": int(self.offsets[-1]),
            # each worker's own edges: a pair held by two workers counts twice
            "edges": sum(i["entries"] for i in infos) // 2,
            # no row moves: the build's only messages are the held ids
            "build_bytes_moved": sum(r["received"] for r in learned),
            "owned": [int(c) for c in owned],
            "held_vertices": [i["held"] for i in infos],
            "row_entries": [i["entries"] for i in infos],
            "part_bytes": [i["nbytes"] for i in infos],
            "build_cpu_seconds": [i["cpu_seconds"] for i in infos],
            "slot_wait_seconds": [i["slot_wait_seconds"] for i in infos],
            "seconds": time.perf_counter() - started,
            "layout_choice": choice,
        }
        log.info("cugraph_match.dask: edge-split parts of %s vertices, %s edges on %s workers "
                 "(held vertices per worker %s)", self.stats["vertices"], self.stats["edges"],
                 p, self.stats["held_vertices"])


def run_rounds(graph: EdgeSplitGraph) -> dict:
    """Suitor's rounds to the fixed point; returns the run's figures.

    Rounds are submitted in batches (each worker's phases one chain of
    tasks, each phase depending on the blocks sent to it; the batches as
    :func:`rounds.next_batch` sizes them from the activations), and the
    counts read once per round of a batch, from each worker's last phase,
    which carries its earlier phases' counts: the run ends after the first
    round that re-activates nobody.  Once a round needs few bytes
    (:data:`rounds.WHOLE_STEP_BYTES`), the next batches send whole steps instead of
    a block task per pair of workers.
    """
    client, p = graph.client, len(graph.workers)
    started = time.perf_counter()
    run_id = uuid.uuid4().hex
    graph.on_all(es.start_run, run_id)

    def phase(function, previous, inbox, whole):
        steps = [graph.submit(k, function, run_id, previous[k], *inbox[k]) for k in range(p)]
        # inbox[k]: the blocks the other workers send to k (``whole``: their
        # whole steps, from which k reads its blocks); its block to itself is
        # read from its own step, which its next phase depends on
        if whole:
            return steps, [[steps[i] for i in range(p) if i != k] for k in range(p)]
        sent = [[client.submit(w.block, steps[i], k, workers=[graph.workers[i]], pure=False)
                 for i in range(p) if i != k] for k in range(p)]
        return steps, sent

    previous: list = [None] * p
    inbox: list = [[] for _ in range(p)]
    words, moved, seconds, cpu, activated, needed, whole_rounds = [], [], [], [], [], [], []
    batch, finished = FIRST_BATCH, False
    while not finished:
        counted = []
        # no round read yet: the first batch's bytes are unknown, so blocks
        # (unless every round is to go whole: WHOLE_STEP_BYTES = math.inf)
        whole = (needed[-1] if needed else math.inf) <= WHOLE_STEP_BYTES * p
        for _ in range(batch):
            for function in (es.candidates, es.proposals, es.decide):
                previous, inbox = phase(function, previous, inbox, whole)
            counted.append([client.submit(w.step_counts, s, workers=[graph.workers[k]],
                                          pure=False) for k, s in enumerate(previous)])
        for round_counts in counted:
            counts = graph.gather(round_counts)
            phases = [c for last in counts for c in (*last["earlier"], last)]
            words.append(sum(c["sent"] for c in phases))
            # the blocks the others needed; what moved (each whole step to
            # every other worker, in rounds sent whole)
            needed.append(sum(c["bytes"] for c in phases))
            moved.append((p - 1) * sum(c["step_bytes"] for c in phases) if whole
                         else needed[-1])
            whole_rounds.append(whole)
            seconds.append(sum(c["seconds"] for c in phases))
            cpu.append(sum(c["cpu_seconds"] for c in phases))
            activated.append(sum(c["activations"] for c in counts))
            log_step("dask edge-split suitor round", len(words) - 1, graph.stats["vertices"],
                     graph.stats["edges"], seconds[-1], messages=words[-1],
                     bytes_moved=moved[-1], activations=activated[-1])
            if activated[-1] == 0:
                finished = True
                break
        batch = next_batch(activated, batch, MAX_BATCH)
    del counted, previous, inbox
    stats = {"rounds": len(words), "device": "cpu", "layout": "edge",
             "messages_per_round": words, "bytes_per_round": moved,
             "whole_step_rounds": whole_rounds,
             "bytes_moved": int(sum(moved)), "round_seconds_summed": seconds,
             "round_cpu_seconds_summed": cpu,
             "seconds": time.perf_counter() - started}
    log.info("cugraph_match.dask: edge-split Suitor in %d rounds on %d workers, %d messages, "
             "%d bytes moved", stats["rounds"], p, sum(words), sum(moved))
    return stats


def edge_split_graph(frame: Any, source: str, destination: str, weight) -> EdgeSplitGraph:
    """The matchings' graph of an eligible Dask edge list
    (:func:`edge_split_eligible`) on the layout the setting asks for, or,
    under ``"auto"``, the one :func:`choose_layout` picks (see ``layout``)."""
    return EdgeSplitGraph(frame, source, destination, weight,
                          choose=requested_layout() == "auto")


def edge_split_matching(graph: EdgeSplitGraph, return_stats: bool = False):
    """``suitor_matching`` on a graph built on the edge-split layout."""
    with graph.exclusive():
        run = run_rounds(graph)
        futures = [graph.submit(k, es.mates_partition, int(graph.offsets[k]))
                   for k in range(len(graph.workers))]
        graph.wait(futures)  # they read the run's state in the parts
        result = graph.frame(futures, [int(c) for c in np.diff(graph.offsets)])
    graph.release()  # the frames are made: the rows are no longer needed
    return (result, {**run, "build": dict(graph.stats)}) if return_stats else result
