"""Distributed greedy matching and b-matching: b-Suitor in supersteps.

Every superstep, each worker runs the proposals of its own vertices to a
fixed point with the local kernel (``kernels.superstep``); a proposal to a
ghost goes to its owner as one word, and the owner's answer (a release:
refused, or displaced later) comes back the next superstep.  Only these
words cross workers; the rows stay where they were built.  The run ends
after the first superstep in which no worker sends anything.
"""

from __future__ import annotations

import logging
import math
import numbers
import time
import uuid
from typing import Any

import numpy as np
import pandas as pd

from ..structure.checks import (capacity_scalar, capacity_values, node_attribute_values,
                                require_vertex_frame)
from ..structure.graph import (comparable_ids, lacking_ids_error, search_labels,
                               unknown_ids_error)
from ..structure.inputs import DEFAULT_WEIGHT, computed
from ..structure.progress import log_step
from . import worker as w
from .edge_split import edge_split_eligible, edge_split_graph, edge_split_matching
from .graph import DistributedGraph
from .rounds import FIRST_BATCH, WHOLE_STEP_BYTES, next_batch

log = logging.getLogger("cugraph_match.dask")


def check_dask_backend(backend: str, gpu_kernels: bool = False) -> None:
    """``backend`` of a Dask input: ``"gpu"`` only where the workers have GPU
    kernels (``gpu_kernels``: the matchings' supersteps)."""
    if backend not in ("auto", "cpu", "gpu"):
        raise ValueError(f"backend must be 'auto', 'cpu' or 'gpu', got {backend!r}")
    if backend == "gpu" and not gpu_kernels:
        raise ValueError("backend='gpu' is not available for this algorithm on Dask inputs: "
                         "its workers run CPU kernels (cuDF partitions are moved to the "
                         "host); use backend='auto' or 'cpu'")


def as_distributed_graph(graph: Any, source: str = "src", destination: str = "dst",
                         weight: str | None = DEFAULT_WEIGHT, backend: str = "auto",
                         gpu_kernels: bool = False):
    """A :class:`DistributedGraph` of a Dask edge list (used as it is when it
    is one).  ``gpu_kernels``: the caller runs the matchings' supersteps,
    which read parts built on the workers' GPUs (``backend`` says where an
    edge list's parts are built); other callers run CPU kernels and build
    an edge list's parts on the host (a graph kept on the GPUs is copied to
    the workers' host memory for them: ``worker.host_part``)."""
    check_dask_backend(backend, gpu_kernels)
    if isinstance(graph, DistributedGraph):
        given = {"source": (source, "src"), "destination": (destination, "dst"),
                 "weight": (weight, DEFAULT_WEIGHT)}
        changed = [name for name, (value, default) in given.items() if value != default]
        if changed:
            raise ValueError(f"{', '.join(changed)} cannot be set for a DistributedGraph: its "
                             f"columns were chosen when it was built")
        return graph
    return DistributedGraph(graph, source, destination, weight,
                            backend=backend if gpu_kernels else "cpu")


def supersteps_on_gpu(graph: DistributedGraph, backend: str) -> bool:
    """Whether the workers run the b-Suitor supersteps on their GPUs: always
    for a graph whose parts live there (``"cpu"`` is then refused), else
    ``"gpu"`` always (an error naming the first worker without a usable GPU
    and why), ``"auto"`` when the partitions are cuDF and every worker's GPU
    works (``structure.device.probe`` on each), ``"cpu"`` never.  The CPU and
    GPU kernels reach the same matching: the choice moves the work, not the
    result."""
    if graph.on_gpu:
        if backend == "cpu":
            raise ValueError("backend='cpu' on a DistributedGraph whose parts live on the "
                             "workers' GPUs (built with backend='gpu', or 'auto' on cuDF "
                             "partitions): its supersteps run there; build it with "
                             "backend='cpu' to run them on the host")
        return True
    if backend == "cpu" or (backend == "auto" and not graph.device_frames):
        return False
    if backend == "auto":
        return all(s["real"] for s in graph.gpu_states())
    graph.require_gpus()
    return True


def _distribute(graph: DistributedGraph, ids: pd.Series, columns: dict,
                what: str | None = None) -> list:
    """Split per-vertex rows (ids plus ``columns``) by owner; each share carries
    the rows' positions in the caller's frame (to name the first bad one).
    ``what`` names the ids in one machine's error for ids that cannot be
    compared with the graph's (strings against ints): the split compares
    them with the owners' ranges first."""
    if what is not None and len(ids) and graph.id_example is not None:
        ids = comparable_ids(ids, graph.id_example, what)
        search_labels(graph.id_example, ids, what)
    ids = ids.reset_index(drop=True)
    frame = pd.DataFrame({"vertex": ids, **{k: pd.Series(v).reset_index(drop=True)
                                           for k, v in columns.items()},
                          "position": np.arange(len(ids))}, copy=False)
    owner = w.owners(ids, graph.boundaries) if len(graph.workers) > 1 else \
        np.zeros(len(ids), dtype=np.int64)
    return [frame[owner == k] for k in range(len(graph.workers))]


def _raise_lookup_errors(reports, given_ids, what: str, thing: str) -> None:
    """The single-machine ``internal_ids`` and lacking errors, from every
    worker's counts: unknown ids first (the first by the caller's order),
    then vertices without a value (the first in id order)."""
    unknown = sum(r["unknown"] for r in reports)
    if unknown:
        first = min(r["first_unknown"] for r in reports if r["unknown"])
        raise unknown_ids_error(what, unknown, given_ids.iloc[first])
    lacking = sum(r["lacking"] for r in reports)
    if lacking:
        first = next(r["first_lacking"] for r in reports if r["lacking"])
        raise lacking_ids_error(what if thing == "capacity" else "partition", lacking, first,
                                thing)


def _capacities(graph: DistributedGraph, b: Any) -> None:
    """Check ``b`` as the single-machine path does and give every worker its share."""
    if isinstance(b, (bool, np.bool_)):
        raise TypeError(f"b must be an int, a Series, a vertex|b frame or a node attribute "
                        f"name, got {b!r}")
    if isinstance(b, numbers.Real):  # any int or integral float, clipped as on one machine
        graph.on_all(w.assign_capacities, capacity_scalar(b, "b"))
        return
    if isinstance(b, str):
        node_attribute_values(None, b)  # raises: only a networkx.Graph carries node attributes
    b = computed(b)
    if hasattr(b, "to_pandas"):
        b = b.to_pandas()
    if hasattr(b, "columns"):
        require_vertex_frame(b, ("vertex", "b"), "the b")
        vertices, values, what = b["vertex"], b["b"], "b frame"
    elif hasattr(b, "index") and hasattr(b, "dtype"):
        vertices, values, what = b.index.to_series(), b, "b Series"
    else:
        raise TypeError(f"b must be an int, a Series, a vertex|b frame or a node attribute "
                        f"name, got {type(b).__name__}")
    values = capacity_values(vertices, values, what)
    shares = _distribute(graph, vertices, {"b": values}, what)
    reports = graph.gather([graph.submit(k, w.assign_capacities, share)
                            for k, share in enumerate(shares)])
    _raise_lookup_errors(reports, vertices.reset_index(drop=True), what, "capacity")


#: The most message bytes that cross workers per cut edge over a whole run
#: (README, *Bounds and worst case*: 6 words of 4 bytes).
MESSAGE_BYTES_PER_CUT_EDGE = 24


def run_b_suitor(graph: DistributedGraph, device: bool = False, mates: bool = False) -> dict:
    """Supersteps to the fixed point from the capacities each worker holds;
    returns the run's figures (rounds, messages and bytes per round).
    ``device``: on the workers' GPUs (:func:`supersteps_on_gpu`); ``mates``:
    a matching, read by ``worker.mates_partition``.

    The client does not wait between supersteps: a batch of them is
    submitted as one chain of tasks (each worker's superstep depending on its
    previous superstep and on the message blocks addressed to it), and the
    counts are read once per batch.  Once a superstep's messages are few
    (:data:`rounds.WHOLE_STEP_BYTES`), the next batches send each worker the
    others' whole steps, from which it reads its blocks, instead of a block
    task per pair of workers.
    """
    client, p = graph.client, len(graph.workers)
    started = time.perf_counter()
    run_id = uuid.uuid4().hex  # a superstep of another run on this graph is idle
    graph.on_all(w.start_run, device, run_id)
    inbox: list[list] = [[None] * p for _ in range(p)]  # inbox[k][i]: block i -> k
    # each worker's superstep t + 1 takes its superstep t as an (ignored)
    # argument, so that a worker's supersteps form one chain: they share its
    # run state, and a worker with several threads would otherwise run two
    # of them at once (or out of order)
    previous: list = [None] * p
    messages, needed, moved, whole_rounds, busy, summed, cpu = [], [], [], [], [], [], []
    batch, finished = FIRST_BATCH, False
    while not finished:
        counted = []
        # a graph with few cut edges (the 2048² grid's whole run sends about
        # 0.1 MB at p = 4) pays more for its block tasks, p(p - 1) a
        # superstep, than for every worker receiving the others' whole steps
        if needed:
            last = needed[-1]
        else:  # before the first superstep: the bound of the whole run's messages
            cut = graph.stats.get("cut_edges")
            last = None if cut is None else MESSAGE_BYTES_PER_CUT_EDGE * cut
        whole = (math.inf if last is None else last) <= WHOLE_STEP_BYTES * p
        for _ in range(batch):
            steps = [graph.submit(k, w.superstep, run_id, previous[k], *inbox[k])
                     for k in range(p)]
            previous = steps
            counted.append([client.submit(w.step_counts, step, workers=[graph.workers[k]],
                                          pure=False) for k, step in enumerate(steps)])
            if whole:
                inbox = [[steps[i] if i != k else None for i in range(p)] for k in range(p)]
            else:
                inbox = [[client.submit(w.block, steps[i], k, workers=[graph.workers[i]],
                                        pure=False) if i != k else None for i in range(p)]
                         for k in range(p)]
            del steps
        # the batch's counts read round by round as the rounds end, so that
        # the rounds queued after the first one without messages are
        # released (``del`` below) before they run: each is p(p + 1) tasks
        # on the workers, and at R-MAT 20 on 4 workers a whole batch of them
        # (15 of 28 rounds) cost about 0.7 CPU s of the workers' event loops
        for round_counts in counted:
            counts = graph.gather(round_counts)
            sent = sum(c["sent"] for c in counts)
            messages.append(sent)
            # the blocks the others needed; what moved (each whole step to
            # every other worker, in supersteps sent whole)
            needed.append(sum(sum(c["bytes"]) for c in counts))
            moved.append((p - 1) * needed[-1] if whole else needed[-1])
            whole_rounds.append(whole)
            busy.append(max(c["seconds"] for c in counts))
            summed.append(sum(c["seconds"] for c in counts))
            cpu.append(sum(c["cpu_seconds"] for c in counts))
            log_step("dask b-suitor superstep", len(messages) - 1, graph.stats["vertices"],
                     graph.stats["edges"], busy[-1], messages=sent, bytes_moved=moved[-1])
            if sent == 0:
                finished = True
                break
        batch = next_batch(messages, batch)
    # released unrun: the rounds after the last (one already on its way to a
    # worker may still start: it is idle there, its run id no longer current)
    del inbox, previous, counted, round_counts
    rounds = len(messages)
    pairs = graph.on_all(w.finish_run, mates)
    stats = {"rounds": rounds, "device": "gpu" if device else "cpu",
             "messages_per_round": messages, "bytes_per_round": moved,
             "message_bytes_per_round": needed, "whole_step_rounds": whole_rounds,
             "bytes_moved": int(sum(moved)), "pairs_per_worker": pairs,
             "superstep_seconds": busy[:len(messages)],
             "superstep_seconds_summed": summed[:len(messages)],
             "superstep_cpu_seconds_summed": cpu[:len(messages)],
             "seconds": time.perf_counter() - started}
    log.info("cugraph_match.dask: b-Suitor (%s) in %d supersteps on %d workers, %d messages, "
             "%d bytes moved", stats["device"], rounds, p, sum(messages), sum(moved))
    return stats


def _stats(graph: DistributedGraph, run: dict) -> dict:
    return {**run, "build": dict(graph.stats)}


def matching_dask(graph: Any, source: str, destination: str, weight, backend: str,
                  return_stats: bool = False):
    """``suitor_matching`` / ``locally_dominant_matching`` of a Dask edge list:
    on the edge-split layout where it takes the input (:mod:`.edge_split`),
    else on the vertex layout."""
    check_dask_backend(backend, gpu_kernels=True)
    if edge_split_eligible(graph, source, destination, weight, backend):
        g = edge_split_graph(graph, source, destination, weight)
        if g.layout == "edge":
            return edge_split_matching(g, return_stats)
    else:
        g = as_distributed_graph(graph, source, destination, weight, backend, gpu_kernels=True)
    with g.exclusive():
        g.on_all(w.assign_capacities, 1)
        run = run_b_suitor(g, supersteps_on_gpu(g, backend), mates=True)
        owned = [int(c) for c in g.stats["owned"]]
        futures = [g.submit(k, w.mates_partition, int(g.offsets[k])) for k in range(len(owned))]
        g.wait(futures)  # they read the run's results in the parts
        result = g.frame(futures, owned)
    return (result, _stats(g, run)) if return_stats else result


def b_matching_dask(graph: Any, b: Any, source: str, destination: str, weight, backend: str,
                    return_stats: bool = False):
    """``b_suitor_matching`` of a Dask edge list."""
    g = as_distributed_graph(graph, source, destination, weight, backend, gpu_kernels=True)
    with g.exclusive():
        _capacities(g, b)
        run = run_b_suitor(g, supersteps_on_gpu(g, backend))
        counts = run["pairs_per_worker"]
        starts = np.concatenate([[0], np.cumsum(counts)])
        futures = [g.submit(k, w.pairs_partition, int(starts[k])) for k in range(len(counts))]
        g.wait(futures)  # they read the run's results in the parts
        result = g.frame(futures, counts)
    return (result, _stats(g, run)) if return_stats else result
