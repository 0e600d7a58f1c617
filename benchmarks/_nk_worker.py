"""NetworKit side of the benchmarks, run in a separate worker process.

Why a separate process: NetworKit's wheel bundles its own copy of libgomp.
Loading it into the process that runs Numba's ``omp`` threading layer (which
uses the system libgomp) leaves two OpenMP thread pools competing for the
cores, and on a 2-core machine that made our ``prange`` kernels ~400x slower
(0.3 s instead of 0.7 ms per LD call on an R-MAT scale-12 graph).  Keeping
NetworKit in its own process keeps both sides' timings honest.

The parent saves the caller's arrays once per graph and variant (``load``:
``u``, ``v`` as in the frame, int64; ``w`` float64 or float32, absent for the
unweighted variant; ``n`` = largest id + 1).  Every timed run then starts
from those arrays, end to end:

1. ``build``: ``nk.GraphFromCoo((w, (u.astype(np.uint64), v.astype(np.uint64))),
   n=n, weighted=True, directed=False)``, or ``GraphFromCoo((u, v), n=n,
   weighted=False, directed=False)`` for the unweighted variant
   (``weighted=True``, every weight 1.0, for ``BSuitorMatcher``, which
   refuses unweighted graphs);
2. ``simplify``: ``removeSelfLoops()`` (matchings only: our matchings drop
   loops, our Louvain keeps them) and ``removeMultiEdges()`` (NetworKit
   keeps the first of a set of parallel edges; we keep the heaviest);
3. ``sort`` (SortSuitor only): ``graphtools.sortEdgesByWeight(G, True)``;
4. the algorithm and its result object (``run()`` + ``getMatching()`` /
   ``getBMatching()`` / ``getPartition()``).

Each phase is timed; ``total_s`` is the whole.  Converting the result to a
NumPy array for the checks happens after the clock stops.
"""

from __future__ import annotations

import gc
import time

import numpy as np

_STATE: dict = {}


def _nk():
    import networkit as nk

    return nk


def setup(threads: int) -> dict:
    """Set NetworKit's thread count; return its version and thread count."""
    nk = _nk()
    nk.setNumberOfThreads(int(threads))
    return {"version": nk.__version__, "threads": int(nk.getMaxNumberOfThreads())}


def load(path: str) -> dict:
    """Load the arrays of one graph and variant (untimed)."""
    _STATE.clear()
    with np.load(path) as data:
        _STATE["u"] = data["u"]
        _STATE["v"] = data["v"]
        _STATE["w"] = data["w"] if "w" in data.files else None
        _STATE["n"] = int(data["n"])
    return {"rows": int(_STATE["u"].shape[0]), "n": _STATE["n"],
            "weighted": _STATE["w"] is not None}


def release() -> None:
    _STATE.clear()
    gc.collect()


def _graph(drop_loops: bool, phases: dict, weighted_always: bool = False):
    """NetworKit's graph of the loaded arrays; ``weighted_always`` builds a
    weighted graph (every weight 1.0) from an unweighted variant too, for
    algorithms that refuse unweighted graphs (``BSuitorMatcher``)."""
    nk = _nk()
    u, v, w, n = _STATE["u"], _STATE["v"], _STATE["w"], _STATE["n"]
    t0 = time.perf_counter()
    if w is not None:
        graph = nk.GraphFromCoo((w, (u.astype(np.uint64), v.astype(np.uint64))), n=n,
                                weighted=True, directed=False)
    else:
        graph = nk.GraphFromCoo((u, v), n=n, weighted=weighted_always, directed=False)
    t1 = time.perf_counter()
    if drop_loops:
        graph.removeSelfLoops()
    graph.removeMultiEdges()
    phases["build_s"] = t1 - t0
    phases["simplify_s"] = time.perf_counter() - t1
    return graph


def _runs(one_run, repeat: int, warmup: int):
    """``warmup`` untimed and ``repeat`` timed end-to-end runs; (phase records, last result)."""
    runs, last = [], None
    for i in range(warmup + repeat):
        last = None
        gc.collect()
        phases = {}
        t0 = time.perf_counter()
        last = one_run(phases)
        phases["total_s"] = time.perf_counter() - t0
        if i >= warmup:
            runs.append(phases)
    return runs, last


def _mate_vector(matching, n: int) -> np.ndarray:
    vector = matching.getVector()
    return np.fromiter((-1 if x is None or x >= n else x for x in vector), dtype=np.int64,
                       count=len(vector))


def run_suitor(sort_suitor: bool, repeat: int, warmup: int = 1) -> dict:
    """End to end: graph from the arrays, simplify, (sort), ``SuitorMatcher(G,
    sort_suitor, False).run()`` + ``getMatching()``."""
    nk = _nk()

    def one(phases):
        graph = _graph(True, phases)
        if sort_suitor:
            t0 = time.perf_counter()
            nk.graphtools.sortEdgesByWeight(graph, True)
            phases["sort_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        matcher = nk.matching.SuitorMatcher(graph, sort_suitor, False)
        matcher.run()
        matching = matcher.getMatching()
        phases["match_s"] = time.perf_counter() - t0
        return graph, matching

    runs, (graph, matching) = _runs(one, repeat, warmup)
    if sort_suitor:  # the precondition held: checkSortedEdges=True raises otherwise
        check = nk.matching.SuitorMatcher(graph, True, True)
        check.run()
    return {"runs": runs, "weight": float(matching.weight(graph)),
            "cardinality": int(matching.size(graph)), "proper": bool(matching.isProper(graph)),
            "nk_edges": int(graph.numberOfEdges()),
            "mate": _mate_vector(matching, _STATE["n"])}


def run_bsuitor(b: int, repeat: int, warmup: int = 1) -> dict:
    """End to end: graph from the arrays, simplify, ``BSuitorMatcher(G, b).run()``
    + ``getBMatching()``; the matched edges (``lo < hi``, sorted) come back."""
    nk = _nk()

    def one(phases):
        graph = _graph(True, phases, weighted_always=True)  # it refuses unweighted graphs
        t0 = time.perf_counter()
        matcher = nk.matching.BSuitorMatcher(graph, int(b))
        matcher.run()
        bm = matcher.getBMatching()
        phases["match_s"] = time.perf_counter() - t0
        return graph, bm

    runs, (graph, bm) = _runs(one, repeat, warmup)
    lo, hi = [], []
    for u, partners in enumerate(bm.getMatches()):
        for v in partners:
            if u < v:
                lo.append(u)
                hi.append(v)
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    order = np.lexsort((hi, lo))
    return {"runs": runs, "weight_reported": float(bm.weight()),
            "size_reported": int(bm.size()), "nk_edges": int(graph.numberOfEdges()),
            "lo": lo[order], "hi": hi[order]}


def run_plm(repeat: int, refine: bool = False, gamma: float = 1.0, seed: int = 0,
            warmup: int = 1, par: str = "balanced") -> dict:
    """End to end: graph from the arrays (self-loops kept, parallel edges
    removed), ``PLM(G, refine, gamma, par).run()`` + ``getPartition()``;
    NetworKit's seed is set before every run."""
    nk = _nk()

    def one(phases):
        graph = _graph(False, phases)
        nk.setSeed(int(seed), False)
        t0 = time.perf_counter()
        plm = nk.community.PLM(graph, bool(refine), float(gamma), str(par))
        plm.run()
        partition = plm.getPartition()
        phases["louvain_s"] = time.perf_counter() - t0
        return graph, partition

    runs, (graph, partition) = _runs(one, repeat, warmup)
    return {"runs": runs,
            "membership": np.asarray(partition.getVector(), dtype=np.int64),
            "modularity_own": float(nk.community.Modularity().getQuality(partition, graph)),
            "communities": int(partition.numberOfSubsets()),
            "nk_edges": int(graph.numberOfEdges())}


def run_parallel_leiden(repeat: int, iterations: int = 3, gamma: float = 1.0, seed: int = 0,
                        warmup: int = 1) -> dict:
    """End to end: graph from the arrays (self-loops kept, parallel edges
    removed), ``ParallelLeiden(G, randomize=True, iterations, gamma).run()`` +
    ``getPartition()`` (``bench_leiden.py``); NetworKit's seed set before every
    run; each run's process CPU time (all its threads) beside its wall time."""
    nk = _nk()

    def one(phases):
        cpu = time.process_time()
        graph = _graph(False, phases)
        nk.setSeed(int(seed), False)
        t0 = time.perf_counter()
        algo = nk.community.ParallelLeiden(graph, True, int(iterations), float(gamma))
        algo.run()
        partition = algo.getPartition()
        phases["leiden_s"] = time.perf_counter() - t0
        phases["cpu_s"] = time.process_time() - cpu
        return graph, partition

    runs, (graph, partition) = _runs(one, repeat, warmup)
    return {"runs": runs,
            "membership": np.asarray(partition.getVector(), dtype=np.int64),
            "modularity_own": float(nk.community.Modularity().getQuality(partition, graph)),
            "nk_edges": int(graph.numberOfEdges())}
