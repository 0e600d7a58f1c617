"""NetworKit side of ``bench_matching.py``, run in a separate worker process.

Why a separate process: NetworKit's wheel bundles its own copy of libgomp.
Loading it into the process that runs Numba's ``omp`` threading layer (which
uses the system libgomp) leaves two OpenMP thread pools competing for the
cores, and on a 2-core machine that made our ``prange`` kernels ~400x slower
(0.3 s instead of 0.7 ms per LD call on an R-MAT scale-12 graph).  Keeping
NetworKit in its own process keeps both sides' timings honest.

The worker keeps one graph at a time in a module global, so the parent can
load a graph once and time several matchers on it, one call per run.
"""

from __future__ import annotations

import time

import numpy as np

_STATE: dict = {}


def _nk():
    import networkit as nk

    return nk


def setup(threads: int) -> dict:
    """Set NetworKit's thread count; return its version and thread count."""
    nk = _nk()
    nk.setNumberOfThreads(threads)
    return {"version": nk.__version__, "threads": int(nk.getMaxNumberOfThreads())}


def load(path: str) -> dict:
    """Build the undirected weighted NetworKit graph saved by the parent.

    ``path`` is an ``.npz`` with ``n``, ``u``, ``v`` (one row per undirected
    edge, ``u < v``) and ``w`` (float64).  Returns the build time and counts.
    """
    nk = _nk()
    _STATE.clear()
    data = np.load(path)
    n = int(data["n"])
    # addEdges needs 64-bit ids: int32 arrays fail with "invalid input format".
    u = data["u"].astype(np.uint64)
    v = data["v"].astype(np.uint64)
    w = data["w"].astype(np.float64)
    t0 = time.perf_counter()
    graph = nk.Graph(n, weighted=True, directed=False)
    graph.addEdges((w, (u, v)))
    build_s = time.perf_counter() - t0
    _STATE["graph"] = graph
    _STATE["sorted"] = False
    return {"build_s": build_s, "n": int(graph.numberOfNodes()), "m": int(graph.numberOfEdges())}


def sort_edges() -> float:
    """Sort every adjacency list by non-increasing weight (SortSuitor's precondition)."""
    nk = _nk()
    t0 = time.perf_counter()
    nk.graphtools.sortEdgesByWeight(_STATE["graph"], True)
    _STATE["sorted"] = True
    return time.perf_counter() - t0


def run_suitor(sort_suitor: bool, repeat: int) -> dict:
    """Time ``SuitorMatcher(G, sort_suitor, False).run()`` + ``getMatching()``.

    One warm-up run (with ``checkSortedEdges=True`` for SortSuitor, so an
    unsorted graph raises instead of giving a wrong answer), then ``repeat``
    timed runs, each on a freshly constructed matcher (construction is not
    timed).  Returns the times, weight, cardinality and mate vector (-1 for
    unmatched).
    """
    nk = _nk()
    graph = _STATE["graph"]
    if sort_suitor and not _STATE["sorted"]:
        raise RuntimeError("SortSuitor needs sort_edges() first")
    warm = nk.matching.SuitorMatcher(graph, sort_suitor, sort_suitor)
    warm.run()
    warm.getMatching()
    times = []
    matching = None
    for _ in range(repeat):
        matcher = nk.matching.SuitorMatcher(graph, sort_suitor, False)
        t0 = time.perf_counter()
        matcher.run()
        matching = matcher.getMatching()
        times.append(time.perf_counter() - t0)
    vector = matching.getVector()
    n = len(vector)
    mate = np.fromiter((-1 if x is None or x >= n else x for x in vector), dtype=np.int64, count=n)
    return {
        "times": times,
        "weight": float(matching.weight(graph)),
        "cardinality": int(matching.size(graph)),
        "mate": mate,
    }


def release() -> None:
    _STATE.clear()


# --------------------------------------------------------------------------
# b-matching (used by bench_bmatching.py)
# --------------------------------------------------------------------------


def run_bsuitor(b: int, repeat: int) -> dict:
    """Time ``BSuitorMatcher(G, b).run()`` + ``getBMatching()`` on the loaded graph.

    One warm-up run, then ``repeat`` timed runs, each on a freshly built
    matcher (construction untimed).  Returns the times, NetworKit's own
    weight and size of the b-matching, and its edges as sorted ``lo``/``hi``
    int64 arrays (``lo < hi``), extracted after the clock stopped.
    """
    nk = _nk()
    graph = _STATE["graph"]
    warm = nk.matching.BSuitorMatcher(graph, int(b))
    warm.run()
    warm.getBMatching()
    del warm
    times = []
    bm = None
    for _ in range(repeat):
        matcher = nk.matching.BSuitorMatcher(graph, int(b))
        t0 = time.perf_counter()
        matcher.run()
        bm = matcher.getBMatching()
        times.append(time.perf_counter() - t0)
    lo, hi = [], []
    for u, partners in enumerate(bm.getMatches()):
        for v in partners:
            if u < v:
                lo.append(u)
                hi.append(v)
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    order = np.lexsort((hi, lo))
    return {
        "times": times,
        "weight": float(bm.weight()),
        "cardinality": int(bm.size()),
        "lo": lo[order],
        "hi": hi[order],
    }


# --------------------------------------------------------------------------
# Louvain (used by bench_louvain.py)
# --------------------------------------------------------------------------


def run_plm(repeat: int, refine: bool = False, gamma: float = 1.0, par: str = "balanced",
            seed: int = 0) -> dict:
    """Time ``PLM(G, refine, gamma, par).run()`` on the loaded graph.

    NetworKit's seed is set to ``seed`` before every run (the parallel
    strategies stay nondeterministic across threads all the same).  One
    untimed warm-up run, then ``repeat`` timed runs, each on a freshly
    constructed PLM (construction untimed).  Returns the times, the community
    of every vertex from the last run (int64), NetworKit's own modularity of
    that partition, its number of communities and PLM's internal phase timings.
    """
    nk = _nk()
    graph = _STATE["graph"]
    nk.setSeed(int(seed), False)
    warm = nk.community.PLM(graph, bool(refine), float(gamma), str(par))
    warm.run()
    del warm
    times = []
    plm = None
    for _ in range(repeat):
        nk.setSeed(int(seed), False)
        plm = nk.community.PLM(graph, bool(refine), float(gamma), str(par))
        t0 = time.perf_counter()
        plm.run()
        times.append(time.perf_counter() - t0)
    partition = plm.getPartition()
    membership = np.asarray(partition.getVector(), dtype=np.int64)
    try:
        phases = {str(k): [float(x) for x in v] for k, v in dict(plm.getTiming()).items()}
    except Exception:  # timing keys are informative only
        phases = None
    return {
        "times": times,
        "membership": membership,
        "modularity": float(nk.community.Modularity().getQuality(partition, graph)),
        "communities": int(partition.numberOfSubsets()),
        "phase_timings": phases,
    }
