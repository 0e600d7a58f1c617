"""Louvain on a distributed graph: the first levels on every worker, the
small coarse rest on one.

Design (after Ghosh et al.'s distributed Louvain, IPDPS 2018, with the
single-machine CPU phase as the local step):

* **Move phase, in passes.**  In a pass each worker visits its owned
  vertices in a seeded random order and moves each at once to its
  neighbouring community of largest gain, as one machine does; what it
  cannot see yet are the other workers' moves of the same pass: a ghost
  keeps its community from the pass's start, a community's degree total
  counts only this worker's moves.  So that the two ends of a cut edge do
  not move at once on stale views of each other, the vertices with a ghost
  neighbour (*boundary* vertices) move in turns: with more than 2 workers,
  the workers are coloured so that no two sharing a cut edge have one
  colour (:func:`worker_colours`), and a pass moves one colour's boundary
  vertices, so every ghost a moving vertex sees is frozen on its own worker
  and its community is exact (R-MAT: a colour per worker; a grid's row
  ranges: two), in a phase's first round of turns (then every vertex every
  pass); with 2 workers each boundary vertex moves on a seeded coin in a
  phase's first passes.  Inner vertices move every pass (measured in
  :data:`COIN_WORKERS` and :data:`COLOUR_ROUNDS`).
  Between passes the workers swap the
  communities of their cut edges' ends (one 8-byte word per cut edge and
  direction) and the client sums every worker's moves into one change of
  the totals (a few words per moved vertex), so every worker starts the
  next pass with the exact partition and totals.  Q is computed exactly
  after each pass from per-worker sums; a pass that lowers it is taken
  back and ends the phase (on the GPU workers, whose buckets decide at once,
  the phase goes on with every vertex moving on a coin, up to
  :data:`DAMPED_TRIES` passes taken back), two passes in a row (one turn of
  each kind) that gain less than the threshold end it.
* **Aggregation.**  Each edge is reported by one of its ends' owners (a cut
  edge alternately by its two, along their shared order of cut edges) as
  (community, community, weight), each worker's parallel pairs summed; these
  frames go straight into the next level's streamed build
  (:meth:`DistributedGraph.of_summed_pieces`: communities renumbered,
  balanced over the workers by the same sampled ranges), which sums a pair
  that several workers wrote at each of its owners, smallest term first, so
  both owners of a cut edge find the same weight.  No shuffle of the coarse
  edges before the build: measured, Dask's group-by of them was the largest
  transient of level 1's build.
* **Finish.**  Once a level's graph has at most ``edges / (2p)`` edges
  (``p`` workers; at least :data:`FINISH_EDGES`, so a small input is
  never split at all), it goes to worker 0, which runs the single-machine
  Louvain on it for the remaining levels (on its GPU when the passes ran on
  the workers' GPUs); the communities come back to the
  client as one small map, composed with the levels' maps and applied on
  every worker to its vertices.
* **Refinement** (``refine=True``): one more distributed move phase on the
  original vertices from the final partition, as one machine's refinement.
* **Leiden** (``leiden=True``, from ``cm.leiden``): each level's partition is
  refined across the workers (:func:`refinement_phase`: every vertex starts
  alone, and in the move phase's distributed passes a vertex still alone and
  well connected to its community joins the neighbouring sub-community of
  its community of largest gain, θ = 0, whichever workers hold its
  members); the next level is the graph of these sub-communities, each
  started in its community, as one machine's Leiden aggregates; the finish
  is the single-machine Leiden.  After the refinement phase on level 0, one
  more aggregation (:func:`aggregated_level`: refine, build the
  sub-communities' graph, start and move it as above; one machine's second
  iteration), then every community is split into its connected components
  across the workers (:func:`split_components`), so every community is
  connected.  Refining on each worker's own vertices only was measured
  first: on R-MAT a vertex's community-mates are mostly on other workers,
  so the sub-communities barely merged (R-MAT 18, 2 workers: 98,000 of
  174,000 vertices left) and Q stayed at Louvain's (R-MAT 18 seeds 0-1,
  Q over one machine's Leiden: 2 workers 0.993 / 0.980 and 4 workers
  0.972 / 0.982 before; 1.016 / 1.007 and 0.993 / 1.009 with the refinement
  across the workers).

Memory: a worker's coarse edges are written from its rows into buckets by
lower community and summed in place; a done level's parts are freed before
the next level is built or finished; level 0's too when the call built it
from the caller's Dask frame (each vertex's level-0 community is kept on the
client, and level 0 is built again from the frame for the refinement and the
result).

Community totals: the client keeps the level's (degree total and size of
every community: 16 bytes a vertex of the level) and adds every pass's
moves; a worker holds three arrays (24 bytes each) over its *slots* only,
the distinct communities of its local vertices, which a pass's moves stay
within, and gets their totals after each pass.  Arrays over every id of the
level would be the largest thing a worker holds at level 0 of a graph with
few cut edges (measured: the grid's), and would not divide with ``p``.

Cost: per pass, the owned rows once (as on one machine, divided by ``p``),
``2 × cut edges`` words between workers, the moved vertices' words to the
client and three words per slot between each worker and the client; per
worker, memory for its part plus 24 bytes a slot.  The partition differs from
one machine's because the workers move at once (they see each other's
moves a pass late) and because the levels' ids differ; it depends on the
number of workers and on ``seed`` and is the same on every run of both.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..structure.checks import numpy_seed
from ..structure.hashing import GOLDEN, mix64_host
from ..structure.progress import Stopwatch, log_step
from . import louvain_worker as lw
from .graph import DistributedGraph
from .matching import as_distributed_graph

log = logging.getLogger("cugraph_match.dask")

#: The coarse graph goes to one worker once it has at most this share of the
#: input's edges divided by the number of workers.
FINISH_SHARE = 0.5
#: ... or at most this many edges whatever the share.
FINISH_EDGES = 50_000
#: Leiden's coarse graph of refined sub-communities (larger than the
#: communities') goes to one worker if its rows are at most this many times
#: the bound above (m / p: one worker's share of the input); else the levels
#: go on across the workers.  Measured (rows of that graph, with the
#: refinement on each worker's own vertices then): wiki-Vote on 2 workers
#: 53,450 (bound 50,000), R-MAT 18 on 4 and 8 workers 1.29 M and 1.58 M of
#: 4.19 M, whose finish on worker 0 was the largest worker's peak.
REFINED_FINISH_FACTOR = 2
#: With more than :data:`COIN_WORKERS` workers, the boundary vertices move in
#: turns of the workers' colours (:func:`worker_colours`) for
#: :data:`COLOUR_ROUNDS` rounds.  Measured (Q over one machine's, 2026-11-27,
#: the colours' turns in every pass): with turns of even and odd workers
#: before (two ends of a cut edge between two even workers moving at once),
#: R-MAT 20 unweighted on 4 workers 0.964, with the colours 0.993 (coins as
#: with 2 workers: 0.990); R-MAT 20 int64 on 4 workers 0.995 / 0.998, R-MAT 18
#: on 8 workers 0.976 / 1.004 (unweighted 0.984 / 1.002).  Every level
#: distributed, 4 workers, before / with the colours: lesmis 0.966 / 0.999,
#: jazz 0.989 / 1.000, wiki-Vote 0.978 / 0.996, hep-th 0.995 / 0.998,
#: astro-ph 0.994 / 0.998, power 1.000 / 1.000, karate 1.000, polblogs
#: 1.000, celegans 1.000; 3 workers 0.995-1.001 / 0.995-1.000.
#: Up to this many workers, in the first :data:`COIN_PASSES` passes of a
#: phase each vertex with a ghost neighbour moves on a seeded coin
#: (probability 1/2), so the two ends of a cut edge move at once in a
#: quarter of those passes, not in every one; then every vertex every pass
#: (few move by then).  Measured on 2 workers, R-MAT 18 seeds 0-2, Q over
#: one machine's, with the singleton rule off in every phase (see
#: ``louvain_worker.owned_move_pass``): every vertex every pass 0.993 /
#: 0.995 / 1.009 (10-12 s), coins in the first 2 / 4 / 6 passes 0.994-1.010
#: / 1.006-1.013 (13-14 s) / 0.988-1.006; coins in every pass took twice the
#: time.  On 4 workers every vertex every pass fell to 0.93-0.95, the turns
#: gave 0.990 / 1.017 / 1.004.  As shipped (the rule off in the first phase
#: only): 2 workers 1.013 / 1.007 / 1.003, 4 workers 0.990 / 1.012 / 1.003.
COIN_WORKERS = 2
COIN_PASSES = 4
#: With more than :data:`COIN_WORKERS` workers, the colours take turns for this
#: many rounds (``turns`` passes each) at a phase's start; then every vertex
#: moves every pass (few move by then, and seldom two ends of a cut edge).
#: Measured (Q over one machine's; wall time), turns in every pass / in the
#: first round only: R-MAT 20 unweighted, 4 workers, 0.9925 (77 s) / 0.9941
#: (39 s), two rounds 0.9933 (46 s); R-MAT 20 int64 0.9982 (91 s) / 0.9992
#: (52 s); R-MAT 18 on 8 workers 1.004 (70 s) / 1.004 (31 s), unweighted
#: 1.002 (57 s) / 1.001 (28 s); the nine graphs above, every level
#: distributed, 3 and 4 workers: 0.995-1.000 / 0.994-1.000.
COLOUR_ROUNDS = 1
#: On workers whose pass decides a bucket of vertices at once (the GPU's), a
#: pass that lowers Q is taken back and the phase goes on with every vertex
#: moving on a seeded coin (probability 1/2), up to this many passes taken
#: back; then it ends, as it does at once on the CPU workers (whose vertices
#: move one at a time, so a pass seldom lowers Q).  A damped phase ends after
#: ``turns * (1 + DAMPED_QUIET)`` passes in a row without a move (a coin may
#: hold back the few vertices still moving).  Measured in the simulator, 2
#: workers, every level distributed, jazz seed 0: level 1's second pass
#: lowered Q and ended the phase, 7 coarse vertices stayed 6 communities,
#: Q 0.963 of one machine's.
DAMPED_TRIES = 3
DAMPED_QUIET = 1


def passes_on_gpu(g: DistributedGraph, backend: str) -> bool:
    """Whether the workers run the passes on their GPUs
    (``louvain_worker_gpu``): ``"gpu"`` always (an error naming the first
    worker without a usable GPU), ``"auto"`` when the parts were built on
    the GPUs (cuDF partitions and a working GPU on every worker), ``"cpu"``
    never (a part kept on a GPU is then copied to its worker's host memory)."""
    if backend == "gpu":
        g.require_gpus()
        return True
    return backend == "auto" and g.on_gpu


def _start(g: DistributedGraph, gpu: bool) -> list[dict]:
    """Every worker's Louvain state for level g; their degree sums.  The
    weights are rescaled by the graph's power of two when they lie near the
    ends of float64 (Q and every move are unchanged by one factor; one
    machine's ``sum_safe``); a coarse level's sums of rescaled weights stay
    in range."""
    exponent = g.weight_exponent()
    return g.gather([g.submit(k, lw.start, int(g.offsets[k]), gpu, exponent)
                     for k in range(len(g.workers))])


def _merge(reports: list[dict]) -> dict:
    """The workers' per-community (degree sum, size) changes, summed."""
    ids, sums, counts = lw.sum_by_id(*(np.concatenate([r[key] for r in reports])
                                       for key in ("ids", "sums", "counts")))
    return {"ids": ids, "sums": sums, "counts": counts}


def _q(sums: list[dict], total: np.ndarray, resolution: float) -> float:
    """Q from the workers' edge sums and the level's community totals."""
    m = sum(s["total"] for s in sums)
    share = total / (2.0 * m)  # shares first: resolution * sum(total**2) overflowed
    return sum(s["inside"] for s in sums) / m - resolution * float(np.dot(share, share))


def _salt(*words: int) -> int:
    """A 64-bit hash of non-negative integers (SplitMix64's steps)."""
    x = 0
    for word in words:
        x = mix64_host(x + word + GOLDEN)
    return x


def _broadcast(client, value):
    return client.scatter([value], broadcast=True, hash=False)[0]


#: Arrays up to this many bytes go to a worker inside the task that uses
#: them; larger ones are scattered to it first (one more round trip, but no
#: large task through the scheduler).
INLINE_BYTES = 1 << 20


def _send(g: DistributedGraph, k: int, arrays: tuple):
    """``arrays`` for worker k: as they are when small, else a future of them
    on that worker (straight from the client)."""
    if sum(a.nbytes for a in arrays) <= INLINE_BYTES:
        return arrays
    return g.client.scatter([arrays], workers=[g.workers[k]], hash=False)[0]


def _slot_values(g: DistributedGraph, total: np.ndarray, size: np.ndarray,
                 reports: list[dict]) -> list:
    """Each worker's slots' totals and sizes, sent to it."""
    return [_send(g, k, (total[r["slots"]], size[r["slots"]])) for k, r in enumerate(reports)]


def _exchange(g: DistributedGraph, after: list, task: Callable = lw.owned_block) -> list[list]:
    """blocks[i][k]: the communities (or what ``task`` reads) of worker i's
    ends of its cut edges with k, read after worker i's task ``after[i]``."""
    p = len(g.workers)
    return [[g.submit(i, task, after[i], k) if i != k else None for k in range(p)]
            for i in range(p)]


def worker_colours(g: DistributedGraph) -> np.ndarray:
    """A colour per worker, no two workers that share a cut edge alike
    (greedy, in worker order: each takes the smallest colour its earlier
    neighbours left).  Workers of one colour own no common edge, so their
    boundary vertices can move in one pass without a stale ghost."""
    p = len(g.workers)
    colour = np.zeros(p, dtype=np.int64)
    for k in range(p):
        cut = g.parts[k]["cut"]
        taken = {int(colour[j]) for j in range(k) if cut[j] > 0}
        colour[k] = next(c for c in range(p) if c not in taken)
    return colour


def move_phase(g: DistributedGraph, two_m: float, resolution: float, threshold: float,
               max_passes: int, seed_words: list, stats: dict,
               singleton_rule: bool = True) -> tuple[float, float, int]:
    """A distributed move phase from the partition the workers hold; returns
    (Q before, Q after, vertices moved).  ``singleton_rule``: see
    ``louvain_worker.owned_move_pass`` (off for the input graph's first phase)."""
    p = len(g.workers)
    blocks = _exchange(g, [None] * p)
    starts = g.gather([g.submit(k, lw.phase_totals, *[blocks[i][k] for i in range(p)])
                       for k in range(p)])
    del blocks  # taken: each exchange's blocks are freed once read (8 bytes a cut edge)
    # the level's totals live here, dense (each community's terms added in
    # worker order, as _merge adds them); each worker gets its slots' after a pass
    ids = np.concatenate([s["ids"] for s in starts])
    total = np.bincount(ids, weights=np.concatenate([s["sums"] for s in starts]),
                        minlength=g.num_vertices)
    size = np.bincount(ids, weights=np.concatenate([s["counts"] for s in starts]),
                       minlength=g.num_vertices).round().astype(np.int64)
    del ids
    if max_passes > 0:
        ready = [g.submit(k, lw.phase_start, values, [*seed_words, k])
                 for k, values in enumerate(_slot_values(g, total, size, starts))]
    stats["bytes_moved"] += 24 * sum(len(s["ids"]) + len(s["slots"]) for s in starts)
    q_start = q = _q(starts, total, resolution)
    # workers whose pass decides a bucket of vertices at once (the GPU's) may
    # overshoot: a pass that lowers Q is taken back and the phase goes on damped
    synchronous = any(s.get("synchronous", False) for s in starts)
    del starts
    moved_total, passes, clock = 0, 0, Stopwatch()
    # a boundary vertex moves once in ``turns`` passes (on average, on a
    # coin, with 2 workers): the phase ends on that many passes' gains, or
    # that many passes without a move
    colour = worker_colours(g) if p == 1 or p > COIN_WORKERS else None
    turns = int(colour.max()) + 1 if colour is not None else 2
    quiet, gains = 0, []  # passes in a row without a move; the last passes' gains
    damped = 0  # passes taken back so far; from the first, every vertex moves on a coin
    while passes < max_passes:
        turn = passes % turns
        passes += 1
        if damped:  # salted by the seed, level, pass, worker and the passes taken back
            rules = [-(2 + (_salt(*seed_words, passes, k, damped) >> 2)) for k in range(p)]
        elif colour is not None and passes <= COLOUR_ROUNDS * turns:
            rules = [int(colour[k] == turn) for k in range(p)]  # one colour's boundary
        elif colour is not None:
            rules = [1] * p
        elif passes <= COIN_PASSES:  # on coins salted by the seed, level, pass and worker
            rules = [2 + (_salt(*seed_words, passes, k) >> 2) for k in range(p)]
        else:
            rules = [1] * p
        moves = [g.submit(k, lw.move, ready[k], two_m, resolution, rules[k], singleton_rule)
                 for k in range(p)]
        blocks = _exchange(g, moves)
        reports = g.gather(moves)
        moved = sum(r["moved"] for r in reports)
        stats["passes"] += 1
        ready = moves
        if moved == 0:
            quiet += 1
            if quiet >= turns * (1 + DAMPED_QUIET * bool(damped)):
                break
            continue
        quiet = 0
        received = g.gather([g.submit(k, lw.receive, *[blocks[i][k] for i in range(p)])
                             for k in range(p)])
        del blocks
        merged = _merge(reports)  # distinct ids
        total[merged["ids"]] += merged["sums"]
        size[merged["ids"]] += merged["counts"]
        stats["bytes_moved"] += 8 * 2 * g.stats["cut_edges"] + \
            24 * sum(len(r["ids"]) for r in reports) + \
            24 * sum(len(r["slots"]) for r in received)
        new_q = _q(received, total, resolution)
        log_step("dask louvain pass", passes - 1, g.num_vertices, g.num_edges, clock.lap(),
                 moved=moved, Q=new_q)
        if new_q < q:
            g.on_all(lw.undo)
            total[merged["ids"]] -= merged["sums"]
            size[merged["ids"]] -= merged["counts"]
            damped += 1
            stats["passes_taken_back"] += 1
            if not synchronous or damped > DAMPED_TRIES:
                break
            # the slots of the partition taken back, and their totals
            received = g.gather([g.submit(k, lw.receive) for k in range(p)])
            stats["bytes_moved"] += 24 * sum(len(r["slots"]) for r in received)
            ready = [g.submit(k, lw.take_totals, values)
                     for k, values in enumerate(_slot_values(g, total, size, received))]
            continue
        gains.append(new_q - q)
        q = new_q
        moved_total += moved
        if len(gains) >= turns and sum(gains[-turns:]) < threshold or passes >= max_passes:
            break
        # the next pass waits for them (``ready``): no totals arrive after the phase
        ready = [g.submit(k, lw.take_totals, values)
                 for k, values in enumerate(_slot_values(g, total, size, received))]
    g.on_all(lw.phase_end)
    stats["phase_communities"] = int(np.count_nonzero(size))
    return q_start, q, moved_total


def refinement_phase(g: DistributedGraph, two_m: float, resolution: float, threshold: float,
                     max_passes: int, seed_words: list, stats: dict) -> None:
    """Leiden's refinement of the workers' partition across the workers: every
    vertex starts alone in a sub-community, and in the move phase's passes a
    vertex still alone and well connected to its community joins the
    neighbouring sub-community of its community of largest gain (θ = 0), a
    sub-community of any worker's vertices.  The workers then hold the
    sub-communities and each vertex's community as its ``parent``."""
    p = len(g.workers)
    blocks = _exchange(g, [None] * p)
    sums = g.gather([g.submit(k, lw.refinement_start, *[blocks[i][k] for i in range(p)])
                     for k in range(p)])
    del blocks  # taken: freed on the workers before the move phase's own
    ids = np.concatenate([s["ids"] for s in sums])
    total = np.bincount(ids, weights=np.concatenate([s["sums"] for s in sums]),
                        minlength=g.num_vertices)
    g.gather([g.submit(k, lw.refinement_singletons,
                       _send(g, k, (s["ids"], total[s["ids"]])), two_m, resolution)
              for k, s in enumerate(sums)])
    stats["bytes_moved"] += 8 * 2 * g.stats["cut_edges"] + 16 * len(ids)
    clock = Stopwatch()
    _, _, joined = move_phase(g, two_m, resolution, threshold, max_passes, seed_words, stats)
    log_step("dask leiden refinement", None, g.num_vertices, g.num_edges, clock.lap(),
             joined=joined, sub_communities=stats["phase_communities"])


def _refined_parents(g: DistributedGraph) -> pd.Series:
    """After :func:`refinement_phase`: the community of every sub-community,
    indexed by the sub-community (both ids of g's level).  A sub-community
    with members on several workers is listed by each, with one community:
    a vertex joins one only through a neighbour of its own community."""
    frame = pd.concat(g.on_all(lw.refined_parents), ignore_index=True)
    frame = frame.drop_duplicates("refined")
    return pd.Series(frame["parent"].to_numpy(), index=frame["refined"].to_numpy())


def _start_in_parents(g: DistributedGraph, parents: pd.Series) -> None:
    """Every vertex of the level just built (a refined sub-community of the
    level before) starts in its community, named by the smallest id of its
    sub-communities on this level, as Leiden's next level starts."""
    labels = g.on_all(lw.owned_labels_of_level)
    ids = pd.Index(np.concatenate([s.to_numpy(np.int64) for s in labels]))
    where = ids.get_indexer(parents.index)
    if (where < 0).any():
        raise RuntimeError("a refined sub-community is missing from the coarse level")
    first = np.concatenate([int(g.offsets[k]) + np.arange(len(s), dtype=np.int64)
                            for k, s in enumerate(labels)])[where]
    start = pd.Series(first).groupby(parents.to_numpy()).transform("min").to_numpy()
    start = pd.Series(start, index=parents.index)
    g.gather([g.submit(k, lw.set_owned_communities,
                       start.reindex(s.to_numpy()).to_numpy(np.int64))
              for k, s in enumerate(labels)])


def split_components(g: DistributedGraph, stats: dict) -> int:
    """Every community of the workers' partition split into its connected
    components, each named by its smallest vertex; returns the rounds.

    Each worker groups its owned vertices and ghosts by community along its
    owned rows (a union-find) and gives every owned vertex the smallest label
    in its group; the workers swap their cut-edge ends' labels and repeat
    until no label falls anywhere.  A component crossing the workers is one
    group on each, joined through the ghosts, so the smallest label reaches
    all of it in at most one round per worker boundary on its paths."""
    p = len(g.workers)
    blocks = _exchange(g, [None] * p)  # the ghosts' communities
    after = [g.submit(k, lw.components_start, *[blocks[i][k] for i in range(p)])
             for k in range(p)]
    rounds = 0
    while True:
        blocks = _exchange(g, after, lw.owned_labels)
        # each pass follows its own worker's start or last pass (``after[k]``),
        # not only the other workers' blocks: with several threads a worker
        # ran its first pass beside its start (KeyError 'label'; with one
        # worker there are no blocks to wait for at all)
        after = [g.submit(k, lw.components_pass, after[k], *[blocks[i][k] for i in range(p)])
                 for k in range(p)]
        rounds += 1
        stats["bytes_moved"] += 8 * 2 * g.stats["cut_edges"]
        if sum(g.gather(after)) == 0:
            break
    g.on_all(lw.components_end)
    return rounds


def aggregated_level(graph, source, destination, weight, backend, gpu: bool,
                     g0: DistributedGraph, rebuild: bool, two_m: float, resolution: float,
                     threshold: float, max_passes: int, seed: int,
                     stats: dict) -> DistributedGraph:
    """Leiden's last aggregation, across the workers: the workers' partition
    of level 0 refined (:func:`refinement_phase`), the graph of its
    sub-communities built, each sub-community started in its community and
    moved there, and level 0 relabelled by the result (built again from the
    caller's frame if ``rebuild``: its parts are freed while the coarse
    graph exists, each vertex's sub-community kept on the client)."""
    client = g0.client
    clock = Stopwatch()
    refinement_phase(g0, two_m, resolution, threshold, max_passes, [seed, 2**31 + 1], stats)
    parents = _refined_parents(g0)
    coarse, _ = _coarse_graph(g0)
    refined = None
    if rebuild:
        refined = pd.concat(g0.on_all(lw.owned_communities), ignore_index=True)
        g0.on_all(lw.end)
        g0.release()
    g1 = DistributedGraph.of_summed_pieces(coarse, client)
    try:
        _start(g1, gpu)
        _start_in_parents(g1, parents)
        del parents
        _, q, moved = move_phase(g1, two_m, resolution, threshold, max_passes,
                                 [seed, 2**31 + 2], stats)
        mapping = _level_map(g1).sort_index()
    finally:
        g1.on_all(lw.end)
        g1.release()
    stats["aggregated_level"] = {"vertices": g1.num_vertices, "edges": g1.num_edges,
                                 "moved": moved, "Q": q}
    log_step("dask leiden aggregated level", None, g1.num_vertices, g1.num_edges, clock.lap(),
             moved=moved, Q=q)
    if refined is not None:
        return _level0_again(graph, source, destination, weight, backend, gpu, refined,
                             mapping, stats)
    g0.on_all(lw.relabel, mapping.index.to_numpy(np.int64), mapping.to_numpy(np.int64))
    return g0


def _coarse_graph(g: DistributedGraph) -> tuple[list, int]:
    """The next level's edges: futures of every worker's ``src | dst |
    weight`` frame (a pair several workers wrote is in each of their frames,
    to be summed where it is built) and their row count, an upper bound of
    the level's edges."""
    client, p = g.client, len(g.workers)
    parts = [g.submit(k, lw.coarse_edges) for k in range(p)]
    rows = sum(g.gather([client.submit(len, part, pure=False) for part in parts]))
    return parts, rows


def _level0_again(graph, source, destination, weight, backend, gpu: bool,
                  level0: pd.DataFrame, composite: pd.Series, stats: dict) -> DistributedGraph:
    """Level 0 built again from the caller's frame, each vertex in its final
    community: ``level0`` (``vertex | community``, the level-0 communities)
    composed with ``composite`` (level-0 community -> final community)."""
    clock = Stopwatch()
    g0 = as_distributed_graph(graph, source, destination, weight, backend, gpu_kernels=True)
    _start(g0, gpu)
    final = composite.reindex(level0["community"].to_numpy()).to_numpy(np.int64)
    known = pd.Index(level0["vertex"])
    g0.gather([g0.submit(k, lw.set_owned_communities, final[known.get_indexer(labels)])
               for k, labels in enumerate(g0.on_all(lw.owned_labels_of_level))])
    stats["level0_rebuilt"] = True
    log_step("dask louvain level 0 rebuilt", None, g0.num_vertices, g0.num_edges, clock.lap())
    return g0


def _level_map(g: DistributedGraph) -> pd.Series:
    """The level's communities by vertex id (its caller's ids: the previous
    level's communities)."""
    frames = g.gather([g.submit(k, lw.owned_communities) for k in range(len(g.workers))])
    frame = pd.concat(frames, ignore_index=True)
    return pd.Series(frame["community"].to_numpy(), index=frame["vertex"].to_numpy())


def louvain_dask(graph: Any, source: str, destination: str, weight, resolution: float,
                 threshold: float, max_level: int, backend: str, seed: int, refine: bool,
                 finish: Callable, coarse_threshold: float, coarse_above: int,
                 max_passes: int, return_stats: bool = False,
                 leiden: bool = False):
    """``louvain`` of a Dask edge list (or DistributedGraph): a Dask frame
    ``vertex | community`` and Q.  ``finish(frame, resolution, threshold,
    max_level, seed)`` is the single-machine Louvain of a pandas ``src | dst
    | weight`` frame returning a Series of communities by vertex; the
    thresholds are the single machine's (see ``community/louvain.py``).

    ``finish`` takes ``backend="gpu"`` too: the last levels run on worker
    0's GPU when the passes ran on the workers' GPUs.

    ``leiden=True`` makes it Leiden on Dask (``finish`` the single-machine
    Leiden): every level's partition refined across the workers before it is
    aggregated, one more aggregation after the refinement phase, and the
    final communities split into their connected components across the
    workers (:func:`split_components`), so every community is connected, as
    Leiden's are on one machine."""
    connected = leiden
    seed = numpy_seed(seed)  # as one machine: a negative seed modulo 2**64
    g0 = as_distributed_graph(graph, source, destination, weight, backend, gpu_kernels=True)
    # one algorithm at a time on a caller's DistributedGraph (see its exclusive)
    with g0.exclusive():
        client, p = g0.client, len(g0.workers)
        gpu = passes_on_gpu(g0, backend)
        if gpu:  # the last levels on worker 0's GPU too
            finish = functools.partial(finish, backend="gpu")
        starts = _start(g0, gpu)
        two_m = float(sum(s["two_m"] for s in starts))
        if two_m == 0.0:
            g0.on_all(lw.end)
            raise ValueError("louvain needs at least one edge: the graph has no edge weight")
        stats: dict = {"workers": p, "levels": [], "passes": 0, "passes_taken_back": 0,
                       "bytes_moved": 0}
        finish_edges = max(FINISH_EDGES, int(FINISH_SHARE * g0.num_edges / p))
        g, chain, levels, clock = g0, [], 0, Stopwatch()
        # level 0's parts are freed during the coarse levels and built again for
        # the end when the graph is ours (built here from the caller's frame)
        release_level0, level0 = g0 is not graph, None

        def finish_on_one_worker(coarse: list, rows: int) -> int:
            """The last levels on worker 0; returns how many it ran (Leiden's
            count, so that its last aggregation keeps to ``max_level``; Louvain
            has none after it and counts 0)."""
            done = client.submit(lw.finish_coarse, finish, resolution, threshold,
                                 max_level - levels, seed, *coarse, count_levels=connected,
                                 workers=[g0.workers[0]], pure=False)
            coarse.clear()  # each piece freed once the finish is done with it
            result = g0.gather([done])[0]  # worker 0 is watched while it works
            mapping, ran = result if connected else (result, 0)
            chain.append(mapping)
            stats["finish"] = {"edges": rows, "levels_before": levels, "levels": ran,
                               "communities": int(mapping.nunique())}
            return ran

        try:
            whole_on_one_worker = g0.num_edges <= finish_edges
            if whole_on_one_worker:  # small: not split at all
                blocks = _exchange(g0, [None] * p)  # the ghosts' ids, for the edges' far ends
                g0.gather([g0.submit(k, lw.phase_totals, *[blocks[i][k] for i in range(p)])
                           for k in range(p)])
                if not connected and refine:
                    # one machine's Louvain, its refinement included: split
                    # across the workers, the refinement's coin-gated passes
                    # stopped short of one machine's at a large threshold
                    # (an 80-edge graph at threshold=1: Q 0.2508 against 0.2663)
                    finish = functools.partial(finish, refine=True)
                levels += finish_on_one_worker(*_coarse_graph(g0))
            else:
                if not math.isfinite(resolution * two_m * two_m):
                    # one machine rescales the weights for such a resolution
                    # (``edges.resolution_safe``); the workers' levels, whose
                    # state is built at the graph's scale, refuse it
                    raise ValueError(
                        f"resolution {resolution!r} is too large for the distributed levels: "
                        f"the moves' resolution x (degree products) overflows float64 on "
                        f"this graph; use a resolution below "
                        f"{float(np.finfo(np.float64).max) / two_m**2:.4g}")
                while True:
                    # the coarse threshold on a large level from singletons; Leiden's
                    # later levels start from the communities, where a pass gains
                    # less (R-MAT 20 on 2 workers: level 1's 134,000 sub-communities
                    # stopped after two passes at Q 0.067; one machine's 93,000,
                    # under the vertex bound, reach 0.084)
                    large = g.num_vertices > coarse_above and not (connected and levels > 0)
                    limit = coarse_threshold if large else threshold
                    q_start, q, moved = move_phase(g, two_m, resolution, limit, max_passes,
                                                   [seed, levels], stats, levels > 0)
                    levels += 1
                    stats["levels"].append({"vertices": g.num_vertices, "edges": g.num_edges,
                                            "moved": moved, "Q": q})
                    log_step("dask louvain level", levels - 1, g.num_vertices, g.num_edges,
                             clock.lap(), moved=moved, Q=q)
                    parents = None
                    if connected:
                        # Leiden: the level's partition refined across the workers; the
                        # next level is the sub-communities' graph, each started in its
                        # community (as one machine's Leiden)
                        communities = stats.pop("phase_communities")
                        done = communities == g.num_vertices or levels >= max_level
                        if not done:
                            refinement_phase(g, two_m, resolution, threshold, max_passes,
                                             [seed, levels, 1], stats)
                            refined = stats.pop("phase_communities")
                            # the level gained nothing and the refinement split nothing
                            done = q - q_start < threshold and refined == communities
                            if refined == g.num_vertices or done:
                                # nothing merged: the level aggregates by its communities
                                # (else the graph would not shrink), from singletons
                                g.on_all(lw.unrefine)
                            else:
                                parents = _refined_parents(g)
                    else:
                        done = moved == 0 or q - q_start < threshold or levels >= max_level
                    if g is not g0:
                        chain.append(_level_map(g))
                    if done:
                        break
                    coarse, rows = _coarse_graph(g)
                    to_one_worker = rows <= finish_edges * (
                        1 if parents is None else REFINED_FINISH_FACTOR)
                    if g is not g0 or release_level0:
                        # its coarse edges are computed: the level is done, and its
                        # parts go before the next level is built or finished
                        if g is g0:  # kept on the client: each vertex's community
                            level0 = pd.concat(g0.on_all(lw.owned_communities),
                                               ignore_index=True)
                        g.on_all(lw.end)
                        g.release()
                    if to_one_worker:
                        levels += finish_on_one_worker(coarse, rows)
                        break
                    # the workers' coarse edges go to their owners and are freed as taken
                    g = DistributedGraph.of_summed_pieces(coarse, client)
                    _start(g, gpu)
                    if parents is not None:
                        _start_in_parents(g, parents)
                    del parents
            del g
            if chain:
                composite = chain[0]
                for mapping in chain[1:]:
                    composite = composite.map(mapping)
                composite = composite.sort_index()
                if level0 is not None:
                    g0 = _level0_again(graph, source, destination, weight, backend, gpu, level0,
                                       composite, stats)
                    del level0
                else:
                    g0.on_all(lw.relabel, composite.index.to_numpy(np.int64),
                              composite.to_numpy(np.int64))
            # Louvain or Leiden finished whole on one worker is one machine's,
            # levels, refinement and all: no pass or level after it (Leiden's
            # merged past max_level=1)
            one_machine_leiden = connected and whole_on_one_worker
            passes = max_passes if refine and not whole_on_one_worker else 0
            _, q, _ = move_phase(g0, two_m, resolution, threshold, passes, [seed, 2**31], stats)
            # Leiden's last aggregation is a level: none once max_level levels ran
            if connected and not one_machine_leiden and levels < max_level:
                g0 = aggregated_level(graph, source, destination, weight, backend, gpu, g0,
                                      release_level0, two_m, resolution, threshold, max_passes,
                                      seed, stats)
            if connected:
                before = len(np.unique(np.concatenate([f["ids"] for f in
                                                       g0.on_all(lw.first_members)])))
                rounds = split_components(g0, stats)
                _, q, _ = move_phase(g0, two_m, resolution, threshold, 0, [seed, 2**31], stats)
                stats["split"] = {"rounds": rounds, "communities_before": int(before)}
            firsts = g0.on_all(lw.first_members)
            ids = np.concatenate([f["ids"] for f in firsts])
            first = np.concatenate([f["first"] for f in firsts])
            order = np.lexsort((first, ids))
            ids, first = ids[order], first[order]
            keep = np.ones(len(ids), dtype=bool)
            keep[1:] = ids[1:] != ids[:-1]  # each community's first vertex overall
            ids, first = ids[keep], first[keep]
            codes = np.empty(len(ids), dtype=np.int64)
            codes[np.argsort(first, kind="stable")] = np.arange(len(ids), dtype=np.int64)
            ids_f, codes_f = _broadcast(client, ids), _broadcast(client, codes)
            owned = [int(c) for c in g0.stats["owned"]]
            futures = [g0.submit(k, lw.result_partition, ids_f, codes_f, int(g0.offsets[k]))
                       for k in range(p)]
            g0.wait(futures)  # they read the run's state in the parts
            result = g0.frame(futures, owned)
        except BaseException:
            if not g0.released:  # level 0 may be freed while the coarse levels run
                g0.on_all(lw.end)
            raise
        stats["communities"] = int(len(ids))
        stats.pop("phase_communities", None)
        if connected:
            stats["split"]["new_communities"] = stats["communities"] - \
                stats["split"]["communities_before"]
            log_step("dask leiden connectivity split", None, g0.num_vertices, g0.num_edges,
                     clock.lap(), **stats["split"])
        log.info("cugraph_match.dask: %s in %d levels on %d workers, Q=%.6f",
                 "Leiden" if connected else "Louvain", levels, p, q)
        return (result, q, stats) if return_stats else (result, q)
