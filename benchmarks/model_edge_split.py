"""A cost model of an "edge-split" distributed Suitor matching, simulated in
one process on R-MAT graphs: rounds, words crossing workers, entries scanned.

Why: before building the design on Dask, count what it would send and scan,
and whether its mirrors of the held offers (one round stale at most) cost
rounds.  Nothing is timed; every figure is a count.

The design, for p workers:

* *Rows*: the input's rows in 4p equal consecutive ranges, range i on worker
  i mod p (as :func:`bench_dask.placed_frame` places a frame).  Each worker
  drops self-loops and keeps the heaviest copy of each pair among its own
  rows only: a pair repeated on two workers stays on both.
* *Owners*: vertex ids cut into p consecutive ranges holding equal numbers
  of edge ends (of the raw rows).  owner(v) keeps v's held offer ws(v) and
  its suitor.
* *Holders* of v: the workers with a row at v.  Each keeps v's row of its
  own rows in preference order, with a pointer, and a mirror of ws(v) for
  every v it holds but does not own.
* *Round* (synchronous, three exchanges): (1) for every active u, each
  holder of u moves its pointer past the entries (u, x) whose offer would
  not beat ws(x) as it knows it and sends the entry it stops at, if any, to
  owner(u) (a *candidate*); (2) owner(u) proposes the best candidate to
  owner(v) (a *proposal*); (3) owner(v) accepts the best proposal of the
  round if it beats ws(v), sends every change of ws(v) to v's holders (*ws
  updates*) and re-activates the vertex it displaced and every proposer it
  refused by telling their holders (*activations*).  No word goes to a
  worker from itself, and the test for the end (one word per worker and
  round) is not counted.  In ``bcast`` a refusal needs no word of its own: a
  refused candidate beat ws(v) at the start of the round, so ws(v) changed
  and its update reaches the supplying worker.
* The supplying worker's pointer moves past the proposed entry at once,
  counted free: otherwise (the supplier not told which of its candidates was
  proposed) it would examine that entry once more when u is next active and
  skip it by its mirror.  Neither rounds nor words change, but the scans grow:
  at scale 20, bcast, 3.99 M -> 4.63 M (p = 2) and 5.73 M -> 6.37 M (p = 4)
  if no supplier is told, owner(u)'s own candidates included.

Modes (what step 1 compares against):

* ``bcast`` -- the design: mirrors, updated by the ws updates of the round
  before; so at every read a mirror equals ws.
* ``fresh`` -- the idealisation: every holder reads owner(v)'s ws(v) itself.
  Its words are counted as in ``bcast`` (the ws updates included), so the two
  are comparable counter for counter.
* ``lazy`` -- genuinely stale mirrors: no ws updates; a worker learns ws(v)
  only from the answer to a candidate of its own that was proposed to v
  (accepted: its own key; refused: ws(v) after the round), one *answer*
  word.  Mirrors never exceed ws, so they stay safe to skip by; they only
  cost futile proposals.

Baselines: p = 1 (plain synchronous Suitor: one worker, nothing crosses) and
the sequential Suitor (the loop of ``suitor_cpu.suitor_offers``) on the
globally de-duplicated graph, with a counter of the entries it scans.  Every
run's matching is checked equal to ``cugraph_match.suitor_matching(edges,
backend="cpu")``; the script exits with status 1 if one differs.

Reported per scale, p and mode: rounds; words crossing workers per exchange
(a word is one message record from one worker to another; its bytes,
:data:`BYTES_PER_WORD`, give the MB); entries scanned against the sequential
Suitor; per worker the share of its local vertices owned elsewhere (the
mirrors it keeps); holders per vertex; and the load imbalance, max / min over
the workers of the cross words each receives.

    NUMBA_NUM_THREADS=1 python benchmarks/model_edge_split.py --scales 16 20 --workers 2 4 \
        --out benchmarks/results/edge_split_model_cpu_2026-11-29

The graph is ``rmat_edges(scale, seed=1)`` (not permuted: the hubs sit at small
ids, so worker 0 owns few vertices).  Scale 20 takes about 4 minutes on one
core, mostly the sorts that build each p's rows (about 70 s per p).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before Numba is imported
import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_dask as B  # noqa: E402  (puts this checkout's package first on sys.path)
from rmat import rmat_edges  # noqa: E402

#: The modes of :func:`synchronous_rounds` (see the module docstring).
BCAST, FRESH, LAZY = 0, 1, 2
MODES = {"bcast": BCAST, "fresh": FRESH, "lazy": LAZY}

#: The exchanges whose words cross workers, and the bytes of one word of each:
#: a candidate is u, v (int32) and the weight (float32), 12 bytes counted as 16
#: (the key is recomputed from weight and ids); a proposal the same (plus 2 bits
#: naming the supplying worker); a ws update v, suitor and weight; an
#: activation the vertex id (8; 4 would do); a lazy answer u, v and ws(v).
EXCHANGES = ("candidates", "proposals", "ws_updates", "activations", "answers")
CANDIDATES, PROPOSALS, WS_UPDATES, ACTIVATIONS, ANSWERS = range(len(EXCHANGES))
BYTES_PER_WORD = {"candidates": 16, "proposals": 16, "ws_updates": 16, "activations": 8,
                  "answers": 16}
N_EXCHANGES = len(EXCHANGES)
SENT, RECEIVED = 0, 1

#: The per-round counters of :func:`synchronous_rounds` (columns of its
#: ``counts``); the words crossing workers are in its ``words`` array.
COUNTERS = ("active", "proposals", "accepted", "refused", "displaced", "ws_changes",
            "candidates_local", "proposals_local", "scanned")
(ACTIVE, PROPOSED, ACCEPTED, REFUSED, DISPLACED, WS_CHANGES, CANDIDATES_LOCAL,
 PROPOSALS_LOCAL, SCANNED) = range(len(COUNTERS))
N_COUNTERS = len(COUNTERS)

MB = 1e6
STARTED = time.perf_counter()


# --------------------------------------------------------------------------
# the layout: rows per worker, greedy-order keys, preference rows, owners
# --------------------------------------------------------------------------


@dataclass
class Layout:
    """One p's distributed layout of a graph.

    Attributes
    ----------
    offsets : int64 array, ``p * n + 1``
        Row ``k * n + u`` (worker k's row of u) is ``offsets[k*n+u]:offsets[k*n+u+1]``.
    neighbour, key : int32 and int64 arrays
        The entries of every row, by descending key.
    owner : int64 array, ``n``
        The worker that owns each vertex.
    holders : int64 array, ``n``
        Bit k set when worker k has a row at the vertex.
    row_worker : int8 array
        The worker of each row kept (self-loops dropped, per-worker duplicates merged).
    """

    offsets: np.ndarray
    neighbour: np.ndarray
    key: np.ndarray
    owner: np.ndarray
    holders: np.ndarray
    row_worker: np.ndarray


def worker_of_rows(rows: int, p: int) -> np.ndarray:
    """The worker holding each input row: 4p equal consecutive ranges, range i
    on worker i mod p (as ``bench_dask.placed_frame``)."""
    bounds = np.linspace(0, rows, 4 * p + 1).astype(np.int64)
    worker = np.empty(rows, dtype=np.int8)
    for i in range(4 * p):
        worker[bounds[i]:bounds[i + 1]] = i % p
    return worker


def vertex_owners(src: np.ndarray, dst: np.ndarray, n: int, p: int) -> np.ndarray:
    """owner(v): ids cut into p consecutive ranges with equal numbers of edge
    ends of the raw rows (self-loops and repeats counted)."""
    ends = np.bincount(np.concatenate([src, dst]), minlength=n).astype(np.int64)
    ends_before = np.cumsum(ends) - ends
    return np.minimum((ends_before * p) // ends.sum(), p - 1).astype(np.int64)


def prepare(src: np.ndarray, dst: np.ndarray, weight: np.ndarray, n: int, p: int) -> Layout:
    """The rows of each worker as preference rows, with owners and holders.

    The key of a row is the dense rank of (weight, larger id, smaller id) over
    every worker's rows: a strict order of the pairs in which the library's
    matching takes them (the exactness check confirms it), with equal copies
    of a pair on two workers sharing a key and a lighter copy ranked lower.
    So an offer is just a key (it names the pair, hence the proposer), key 0
    meaning "no offer", and offers compare by "key strictly greater".

    Parameters
    ----------
    src, dst, weight : arrays
        The raw rows (``rmat_edges``' columns).
    n, p : int
        Vertex ids ``0..n-1``; the number of workers.

    Returns
    -------
    Layout
    """
    worker = worker_of_rows(src.shape[0], p)
    owner = vertex_owners(src, dst, n, p)
    low = np.minimum(src, dst).astype(np.int64)
    high = np.maximum(src, dst).astype(np.int64)
    not_loop = low != high
    low, high, weight, worker = low[not_loop], high[not_loop], weight[not_loop], worker[not_loop]

    # each worker keeps the heaviest copy of each pair among its own rows
    order = np.lexsort((weight, high, low, worker))
    low, high, weight, worker = low[order], high[order], weight[order], worker[order]
    last_of_pair = np.ones(low.shape[0], dtype=bool)
    last_of_pair[:-1] = ((low[1:] != low[:-1]) | (high[1:] != high[:-1])
                         | (worker[1:] != worker[:-1]))
    low, high, weight, worker = (low[last_of_pair], high[last_of_pair], weight[last_of_pair],
                                 worker[last_of_pair])

    # greedy-order key: dense rank of (weight, high, low), 1-based
    order = np.lexsort((low, high, weight))
    w_sorted, high_sorted, low_sorted = weight[order], high[order], low[order]
    new_tuple = np.ones(order.shape[0], dtype=bool)
    new_tuple[1:] = ((w_sorted[1:] != w_sorted[:-1]) | (high_sorted[1:] != high_sorted[:-1])
                     | (low_sorted[1:] != low_sorted[:-1]))
    key = np.empty(order.shape[0], dtype=np.int64)
    key[order] = np.cumsum(new_tuple)

    # both directions of every row, grouped by (worker, vertex), each group by descending key
    vertex = np.concatenate([low, high])
    neighbour = np.concatenate([high, low])
    entry_key = np.concatenate([key, key])
    group = np.concatenate([worker, worker]).astype(np.int64) * n + vertex
    order = np.lexsort((-entry_key, group))
    offsets = np.zeros(p * n + 1, dtype=np.int64)
    np.cumsum(np.bincount(group, minlength=p * n), out=offsets[1:])
    row_length = np.diff(offsets).reshape(p, n)
    holders = np.zeros(n, dtype=np.int64)
    for k in range(p):
        holders |= (row_length[k] > 0).astype(np.int64) << k
    return Layout(offsets=offsets, neighbour=neighbour[order].astype(np.int32),
                  key=entry_key[order], owner=owner, holders=holders, row_worker=worker)


# --------------------------------------------------------------------------
# the kernels
# --------------------------------------------------------------------------


@njit
def send_one(words, round_, sender, receiver, exchange):
    """Count one word from ``sender`` to ``receiver`` (nothing when they are one worker)."""
    if sender != receiver:
        words[round_, sender, exchange, SENT] += 1
        words[round_, receiver, exchange, RECEIVED] += 1


@njit
def send_to_holders(words, round_, sender, holder_bits, exchange, p):
    """Count one word from ``sender`` to every other worker whose bit is set in ``holder_bits``."""
    for k in range(p):
        if k != sender and (holder_bits >> k) & 1:
            words[round_, sender, exchange, SENT] += 1
            words[round_, k, exchange, RECEIVED] += 1


@njit
def synchronous_rounds(offsets, neighbour, key, owner, holders, n, p, mode, max_rounds):
    """Run the edge-split Suitor in synchronous rounds and count what it does.

    Parameters
    ----------
    offsets, neighbour, key, owner, holders : arrays
        A :class:`Layout`'s.
    n, p : int
        Vertices and workers.
    mode : int
        ``BCAST``, ``FRESH`` or ``LAZY`` (see the module docstring).
    max_rounds : int
        Size of the per-round arrays; the caller checks that the run ended sooner.

    Returns
    -------
    suitor : int64 array
        Each vertex's final suitor (-1: none).
    counts : int64 array, ``rounds x len(COUNTERS)``
        The per-round counters.
    words : int64 array, ``rounds x p x len(EXCHANGES) x 2``
        Words crossing workers, per round, worker and exchange, sent and received.
    """
    counts = np.zeros((max_rounds, N_COUNTERS), dtype=np.int64)
    words = np.zeros((max_rounds, p, N_EXCHANGES, 2), dtype=np.int64)
    ws = np.zeros(n, dtype=np.int64)  # the key of the offer v holds (0: none), at owner(v)
    suitor = np.full(n, -1, dtype=np.int64)
    next_entry = offsets[:-1].copy()  # each worker's pointer into its row of each vertex
    # worker k's idea of ws(x) at mirror[k * n + x] (unused where k owns x, or in FRESH)
    mirror = np.zeros(p * n if mode != FRESH else 1, dtype=np.int64)

    # every vertex with a row starts active
    active = np.empty(n, dtype=np.int64)
    n_active = 0
    for x in range(n):
        if holders[x] != 0:
            active[n_active] = x
            n_active += 1
    next_active = np.empty(n, dtype=np.int64)

    # the round's proposals: proposer, target, key, supplying worker, entry
    prop_u = np.empty(n, dtype=np.int64)
    prop_v = np.empty(n, dtype=np.int64)
    prop_key = np.empty(n, dtype=np.int64)
    prop_worker = np.empty(n, dtype=np.int64)
    prop_entry = np.empty(n, dtype=np.int64)
    best_proposed = np.zeros(n, dtype=np.int64)  # per target, this round (0: none yet)
    targets = np.empty(n, dtype=np.int64)  # the vertices proposed to this round
    ws_before = np.zeros(n, dtype=np.int64)  # their ws at the start of the round

    r = 0
    while n_active > 0 and r < max_rounds:
        count = counts[r]
        count[ACTIVE] = n_active

        # -- exchanges 1 and 2: every holder of u sends its candidate to owner(u),
        #    which proposes the best one to owner(v)
        n_proposals = 0
        for i in range(n_active):
            u = active[i]
            owner_u = owner[u]
            best_key = 0
            best_worker = -1
            best_entry = -1
            for k in range(p):
                row = k * n + u
                end = offsets[row + 1]
                if offsets[row] == end:
                    continue  # k holds no row of u
                j = next_entry[row]
                while j < end:
                    count[SCANNED] += 1  # the entry it stops at included
                    x = neighbour[j]
                    if mode == FRESH or owner[x] == k:
                        known_ws = ws[x]
                    else:
                        known_ws = mirror[k * n + x]
                    if key[j] > known_ws:
                        break
                    j += 1  # x holds a better offer: u can never win it
                next_entry[row] = j
                if j == end:
                    continue  # k has no candidate for u
                if k == owner_u:
                    count[CANDIDATES_LOCAL] += 1
                else:
                    send_one(words, r, k, owner_u, CANDIDATES)
                # strictly greater: of two workers with the same pair and key, the first
                if key[j] > best_key:
                    best_key = key[j]
                    best_worker = k
                    best_entry = j
            if best_worker < 0:
                continue  # nobody left who would accept u (it sends nothing)
            v = neighbour[best_entry]
            prop_u[n_proposals] = u
            prop_v[n_proposals] = v
            prop_key[n_proposals] = best_key
            prop_worker[n_proposals] = best_worker
            prop_entry[n_proposals] = best_entry
            n_proposals += 1
            if owner[v] == owner_u:
                count[PROPOSALS_LOCAL] += 1
            else:
                send_one(words, r, owner_u, owner[v], PROPOSALS)
        count[PROPOSED] = n_proposals

        # -- exchange 3: owner(v) keeps the best proposal of the round if it beats ws(v)
        n_targets = 0
        for i in range(n_proposals):
            v = prop_v[i]
            if best_proposed[v] == 0:
                targets[n_targets] = v
                n_targets += 1
                ws_before[v] = ws[v]
            best_proposed[v] = max(best_proposed[v], prop_key[i])
        n_next = 0
        for i in range(n_proposals):
            u = prop_u[i]
            v = prop_v[i]
            owner_v = owner[v]
            k = prop_worker[i]
            # proposed, accepted or not: the supplier never offers this entry again
            next_entry[k * n + u] = prop_entry[i] + 1
            if prop_key[i] == best_proposed[v] and prop_key[i] > ws_before[v]:
                displaced = suitor[v]
                ws[v] = prop_key[i]
                suitor[v] = u
                count[ACCEPTED] += 1
                if mode == LAZY:  # the answer: your candidate is now ws(v)
                    mirror[k * n + v] = prop_key[i]
                    send_one(words, r, owner_v, k, ANSWERS)
                if displaced >= 0:
                    next_active[n_next] = displaced
                    n_next += 1
                    count[DISPLACED] += 1
                    send_to_holders(words, r, owner_v, holders[displaced], ACTIVATIONS, p)
            else:
                next_active[n_next] = u
                n_next += 1
                count[REFUSED] += 1
                send_to_holders(words, r, owner_v, holders[u], ACTIVATIONS, p)
        for t in range(n_targets):
            v = targets[t]
            if ws[v] != ws_before[v]:
                count[WS_CHANGES] += 1
                if mode != LAZY:  # counted in FRESH too, which just doesn't read them
                    send_to_holders(words, r, owner[v], holders[v], WS_UPDATES, p)
                    if mode == BCAST:
                        for k in range(p):
                            if (holders[v] >> k) & 1:
                                mirror[k * n + v] = ws[v]
            best_proposed[v] = 0
        if mode == LAZY:
            # a refused candidate's answer carries ws(v) as the round left it
            for i in range(n_proposals):
                v = prop_v[i]
                if suitor[v] != prop_u[i] or ws[v] != prop_key[i]:
                    k = prop_worker[i]
                    mirror[k * n + v] = ws[v]
                    send_one(words, r, owner[v], k, ANSWERS)

        active[:n_next] = next_active[:n_next]
        n_active = n_next
        r += 1
    return suitor, counts[:r], words[:r]


@njit
def sequential_suitor(offsets, neighbour, key, n):
    """The sequential Suitor (the loop of ``suitor_cpu.suitor_offers``) with counters.

    Returns
    -------
    suitor : int64 array
    scanned, proposals : int
        Entries examined (the one a pointer stops at included) and proposals made.
    """
    ws = np.zeros(n, dtype=np.int64)
    suitor = np.full(n, -1, dtype=np.int64)
    next_entry = offsets[:-1].copy()
    scanned = 0
    proposals = 0
    for start in range(n):
        current = start
        while True:
            j = next_entry[current]
            end = offsets[current + 1]
            while j < end:
                scanned += 1
                if key[j] > ws[neighbour[j]]:
                    break
                j += 1
            if j == end:
                next_entry[current] = end
                break  # nobody left who would accept `current`
            next_entry[current] = j + 1
            target = neighbour[j]
            displaced = suitor[target]
            ws[target] = key[j]
            suitor[target] = current
            proposals += 1
            if displaced < 0:
                break
            current = displaced
    return suitor, scanned, proposals


def mates(suitor: np.ndarray) -> np.ndarray:
    """Each vertex's mate (-1: unmatched): u and v are mates when each is the other's suitor."""
    has = suitor >= 0
    back = suitor[np.where(has, suitor, 0)]
    return np.where(has & (back == np.arange(suitor.shape[0])), suitor, -1)


# --------------------------------------------------------------------------
# one scale
# --------------------------------------------------------------------------


def reference_mates(edges, n: int) -> np.ndarray:
    """The mates of ``cugraph_match.suitor_matching(edges, backend="cpu")``."""
    import cugraph_match as cm

    result = cm.suitor_matching(edges, source="src", destination="dst", weight="weight",
                                backend="cpu")
    mate = np.full(n, -1, dtype=np.int64)
    vertex = result["vertex"].to_numpy()
    other = result["mate"].to_numpy(dtype=np.float64, na_value=np.nan)
    matched = ~np.isnan(other)
    mate[vertex[matched]] = other[matched].astype(np.int64)
    return mate


def partition_facts(layout: Layout, n: int, p: int) -> dict:
    """Per worker: rows, entries, local / owned vertices, and holders per vertex."""
    holders, owner = layout.holders, layout.owner
    with_rows = holders != 0
    workers = []
    for k in range(p):
        local = (holders >> k) & 1 == 1
        owned = owner == k
        workers.append({
            "worker": k, "rows": int((layout.row_worker == k).sum()),
            "entries": int(layout.offsets[(k + 1) * n] - layout.offsets[k * n]),
            "local": int(local.sum()), "owned": int(owned.sum()),
            "owned_with_rows": int((owned & with_rows).sum()),
            "local_owned_elsewhere": int((local & ~owned).sum()),
            "owned_not_local": int((owned & ~local & with_rows).sum()),
            "share_local_owned_elsewhere": float((local & ~owned).sum() / max(local.sum(), 1))})
    bits = np.array([x.bit_count() for x in range(1 << p)])[holders[with_rows]]
    return {"workers": workers, "vertices_with_rows": int(with_rows.sum()),
            "holders_per_vertex_mean": float(bits.mean()),
            "vertices_by_holders": {str(h): int((bits == h).sum()) for h in range(1, p + 1)}}


def megabytes(words_by_exchange: dict) -> float:
    """MB (10^6 bytes) of the words of each exchange, at :data:`BYTES_PER_WORD`."""
    return sum(words_by_exchange[x] * BYTES_PER_WORD[x] for x in EXCHANGES) / MB


def summarize_run(p: int, mode: str, equal: bool, counts: np.ndarray, words: np.ndarray,
                  sequential_scanned: int, seconds: float) -> dict:
    """A run's totals, its per-round rows and its per-worker words."""
    rounds = []
    for r in range(counts.shape[0]):
        cross = {x: int(words[r, :, i, SENT].sum()) for i, x in enumerate(EXCHANGES)}
        rounds.append({"round": r, **{c: int(counts[r, i]) for i, c in enumerate(COUNTERS)},
                       "words_cross": cross, "MB_cross": megabytes(cross)})
    total = {c: int(counts[:, i].sum()) for i, c in enumerate(COUNTERS)}
    cross = {x: int(words[:, :, i, SENT].sum()) for i, x in enumerate(EXCHANGES)}
    received = words[:, :, :, RECEIVED].sum(axis=(0, 2))
    per_worker = [{"worker": k,
                   "sent": {x: int(words[:, k, i, SENT].sum()) for i, x in enumerate(EXCHANGES)},
                   "received": {x: int(words[:, k, i, RECEIVED].sum())
                                for i, x in enumerate(EXCHANGES)}}
                  for k in range(p)]
    return {"p": p, "mode": mode, "equal": equal, "rounds": len(rounds), **total,
            "words_cross": cross, "MB_cross": megabytes(cross),
            "MB_by_exchange": {x: cross[x] * BYTES_PER_WORD[x] / MB for x in EXCHANGES},
            "scanned_vs_sequential": total["scanned"] / sequential_scanned,
            "received_max_over_min": (float(received.max() / received.min())
                                      if p > 1 and received.min() > 0 else None),
            "received_per_round_max_over_min": [
                float(x.max() / x.min()) if p > 1 and x.min() > 0 else None
                for x in words[:, :, :, RECEIVED].sum(axis=2)],
            "per_worker": per_worker, "per_round": rounds, "kernel_seconds": seconds}


def log(message: str) -> None:
    """A progress line on stderr, with the seconds since the script started."""
    print(f"[{time.perf_counter() - STARTED:7.1f} s] {message}", file=sys.stderr, flush=True)


def run_scale(scale: int, workers: list[int], modes: list[str], max_rounds: int) -> dict:
    """Every run of one R-MAT scale: the sequential Suitor, p = 1, then each p and mode.

    Returns
    -------
    dict
        The scale's graph facts, ``sequential``, ``partitions`` (by p) and ``runs``.
    """
    started = time.perf_counter()
    edges = rmat_edges(scale, seed=1)
    n = 1 << scale
    src = edges["src"].to_numpy()
    dst = edges["dst"].to_numpy()
    weight = edges["weight"].to_numpy()
    reference = reference_mates(edges, n)
    log(f"scale {scale}: {len(edges):,} rows, reference {int((reference >= 0).sum()):,} "
        f"matched vertices")
    result = {"scale": scale, "rows": len(edges), "n": n,
              "matched_vertices": int((reference >= 0).sum()), "runs": [], "partitions": {}}

    for p in [1] + sorted(set(workers) - {1}):
        start = time.perf_counter()
        layout = prepare(src, dst, weight, n, p)
        prep_seconds = time.perf_counter() - start
        args = (layout.offsets, layout.neighbour, layout.key, layout.owner, layout.holders, n, p)
        if p == 1:
            start = time.perf_counter()
            s_suitor, s_scanned, s_proposals = sequential_suitor(
                layout.offsets, layout.neighbour, layout.key, n)
            equal = bool(np.array_equal(mates(s_suitor), reference))
            result["sequential"] = {"equal": equal, "entries": int(layout.neighbour.shape[0]),
                                    "scanned": int(s_scanned), "proposals": int(s_proposals),
                                    "seconds": time.perf_counter() - start}
            log(f"  sequential Suitor: equal={equal} scanned={s_scanned:,} "
                f"proposals={s_proposals:,}")
        facts = partition_facts(layout, n, p)
        facts["prepare_seconds"] = prep_seconds
        facts["entries"] = int(layout.neighbour.shape[0])
        result["partitions"][str(p)] = facts
        # at p = 1 every mode reads ws itself: the plain synchronous Suitor
        for mode in (["sync"] if p == 1 else modes):
            start = time.perf_counter()
            suitor, counts, words = synchronous_rounds(*args, MODES.get(mode, FRESH),
                                                       max_rounds)
            seconds = time.perf_counter() - start
            if counts.shape[0] == max_rounds:
                raise RuntimeError(f"scale {scale} p={p} {mode}: no end in {max_rounds} rounds")
            equal = bool(np.array_equal(mates(suitor), reference))
            run = summarize_run(p, mode, equal, counts, words,
                                result["sequential"]["scanned"], seconds)
            run["entries"] = facts["entries"]
            result["runs"].append(run)
            log(f"  p={p} {mode}: equal={equal} rounds={run['rounds']} "
                f"MB={run['MB_cross']:.2f} scanned={run['scanned']:,} "
                f"({run['scanned_vs_sequential']:.2f}x) prep {prep_seconds:.0f} s")
        del layout
    result["seconds"] = time.perf_counter() - started
    return result


# --------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------


def table(header: list[str], rows: list[list]) -> list[str]:
    """A Markdown table: ints with thousands separators, floats to 2 places, None as -."""
    def cell(x):
        if isinstance(x, bool) or x is None:
            return "-" if x is None else str(x)
        if isinstance(x, int):
            return f"{x:,}"
        if isinstance(x, float):
            return f"{x:.2f}"
        return str(x)

    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows])


def write(report: dict, out: str) -> None:
    """``out.json`` (the whole report) and ``out.md`` (its tables)."""
    head = B.report_head(report, out, "")  # writes the JSON
    lines = [f"# Edge-split distributed Suitor: a simulated cost model ({report['date']})"]
    lines += head[1:] + [
        ("Counts, not times: one process simulates p workers in synchronous rounds (see the "
         "script's docstring for the design and the modes). Graph: `rmat_edges(scale, seed=1)`. "
         "*equal*: the run's matching is the one of `cugraph_match.suitor_matching(edges, "
         "backend=\"cpu\")`. p = 1, mode *sync*: the plain synchronous Suitor."), "",
        "A *word* is one message record crossing from one worker to another; MB = 10^6 bytes "
        "with these bytes per word: " + ", ".join(f"{x} {b}" for x, b in BYTES_PER_WORD.items())
        + ". *answers* exist in *lazy* only (it sends no ws updates). *scanned*: row entries "
        "examined by a pointer, the one it stops at included, summed over workers and rounds "
        "(a proposed entry is passed over free: see the script's docstring); "
        "*x seq*: over the sequential Suitor's. *recv max/min*: over the workers, the cross "
        "words each receives (all exchanges and rounds).", ""]
    for s in report["scales"]:
        seq = s["sequential"]
        lines += [f"## R-MAT scale {s['scale']}", "",
                  (f"{s['rows']:,} rows; {s['partitions']['1']['vertices_with_rows']:,} "
                   f"vertices with an edge, {s['matched_vertices']:,} matched. Sequential "
                   f"Suitor (globally de-duplicated): equal = {seq['equal']}; "
                   f"{seq['entries']:,} entries, {seq['scanned']:,} scanned, "
                   f"{seq['proposals']:,} proposals."), ""]
        lines += table(
            ["p", "mode", "equal", "rounds", "candidates", "proposals", "ws updates",
             "activations", "answers", "MB cross", "MB round 0", "scanned", "x seq",
             "recv max/min", "entries", "refused", "displaced"],
            [[r["p"], r["mode"], r["equal"], r["rounds"],
              *[r["words_cross"][x] for x in EXCHANGES], r["MB_cross"],
              r["per_round"][0]["MB_cross"], r["scanned"], r["scanned_vs_sequential"],
              r["received_max_over_min"], r["entries"], r["refused"], r["displaced"]]
             for r in s["runs"]])
        lines += ["", "MB by exchange (candidates / proposals / ws updates / activations / "
                  "answers): " + "; ".join(
                      f"p={r['p']} {r['mode']}: " + " / ".join(
                          f"{r['MB_by_exchange'][x]:.2f}" for x in EXCHANGES)
                      for r in s["runs"] if r["p"] > 1), ""]
        lines += [("Partition: *local*: vertices with a row on the worker; *local owned "
                   "elsewhere*: the share of those another worker owns (the mirrors it keeps); "
                   "*recv words*: cross words the worker receives in *bcast*."), ""]
        rows = []
        for p, facts in s["partitions"].items():
            if p == "1":
                continue
            bcast = next((r for r in s["runs"] if r["p"] == int(p) and r["mode"] == "bcast"),
                         None)
            for w in facts["workers"]:
                recv = (sum(bcast["per_worker"][w["worker"]]["received"].values())
                        if bcast else None)
                rows.append([int(p), w["worker"], w["rows"], w["entries"], w["local"], w["owned"],
                             w["owned_with_rows"], w["share_local_owned_elsewhere"], recv])
        lines += table(["p", "worker", "rows", "entries", "local", "owned", "owned with rows",
                        "local owned elsewhere", "recv words"], rows)
        lines += [""] + [
            f"Holders per vertex with a row, p={p}: mean {f['holders_per_vertex_mean']:.2f}; "
            "vertices held by 1..p workers: "
            + " / ".join(f"{c:,}" for c in f["vertices_by_holders"].values()) + "."
            for p, f in s["partitions"].items() if p != "1"]
        for r in s["runs"]:
            if r["mode"] not in ("bcast", "sync"):
                continue
            lines += ["", f"Per round, p={r['p']} {r['mode']}:", ""]
            lines += table(["round", "active", "proposals", "refused", "displaced",
                            "candidates", "proposals cross", "ws updates", "activations",
                            "MB cross", "scanned"],
                           [[x["round"], x["active"], x["proposals"], x["refused"],
                             x["displaced"], *[x["words_cross"][e] for e in EXCHANGES[:4]],
                             x["MB_cross"], x["scanned"]] for x in r["per_round"]])
        lines.append("")
    Path(out + ".md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[16])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4],
                        help="p values beside p = 1, which always runs (at most 62)")
    parser.add_argument("--modes", nargs="+", choices=sorted(MODES),
                        default=["bcast", "fresh", "lazy"])
    parser.add_argument("--max-rounds", type=int, default=1000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    report = B.new_report()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", Path(__file__).name],
                           capture_output=True, text=True, cwd=HERE, check=False).stdout.strip()
    if dirty:
        report["commit"] += " (this script not committed at run time)"
    report.update(bytes_per_word=BYTES_PER_WORD, numba_threads=os.environ["NUMBA_NUM_THREADS"],
                  scales=[])
    del report["runs"]
    for scale in args.scales:
        report["scales"].append(run_scale(scale, args.workers, args.modes, args.max_rounds))
    if args.out:
        write(report, args.out)
    else:
        print(json.dumps(report, indent=1))
    wrong = [f"scale {s['scale']} p={r['p']} {r['mode']}" for s in report["scales"]
             for r in s["runs"] if not r["equal"]]
    wrong += [f"scale {s['scale']} sequential" for s in report["scales"]
              if not s["sequential"]["equal"]]
    if wrong:
        print("matching differs from suitor_matching: " + ", ".join(wrong), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
