"""igraph side of ``bench_louvain.py``, run in a separate worker process.

igraph's wheel bundles its own libgomp, as NetworKit's does (see
``_nk_worker.py``), so it runs in its own process too; the timed Numba
``prange`` kernels then share their process with one OpenMP runtime only.

The parent saves the caller's arrays once per graph and variant (``load``,
as in ``_nk_worker.py``).  Every timed run starts from those arrays:

1. ``build``: ``ig.Graph(n=n, edges=np.column_stack([u, v]), directed=False)``;
2. ``weights``: ``G.es["weight"] = w`` (weighted variants only);
3. ``simplify``: ``G.simplify(multiple=True, loops=False, combine_edges="max")``:
   parallel edges merge keeping the largest weight and self-loops stay, which
   is this library's graph for Louvain and modularity;
4. the call: ``community_multilevel(weights=..., resolution=...)`` and its
   ``membership``, or ``modularity(membership, weights=..., resolution=...)``.
"""

from __future__ import annotations

import gc
import random
import time

import numpy as np

_STATE: dict = {}


def setup(threads: int) -> dict:
    import igraph

    return {"version": igraph.__version__, "threads": 1}


def load(path: str) -> dict:
    _STATE.clear()
    with np.load(path) as data:
        _STATE["u"] = data["u"]
        _STATE["v"] = data["v"]
        _STATE["w"] = data["w"] if "w" in data.files else None
        _STATE["n"] = int(data["n"])
    return {"rows": int(_STATE["u"].shape[0]), "n": _STATE["n"]}


def release() -> None:
    _STATE.clear()
    gc.collect()


def _graph(phases: dict):
    import igraph as ig

    u, v, w, n = _STATE["u"], _STATE["v"], _STATE["w"], _STATE["n"]
    t0 = time.perf_counter()
    graph = ig.Graph(n=n, edges=np.column_stack([u, v]), directed=False)
    t1 = time.perf_counter()
    if w is not None:
        graph.es["weight"] = w
    t2 = time.perf_counter()
    graph.simplify(multiple=True, loops=False,
                   combine_edges="max" if w is not None else None)
    phases["build_s"] = t1 - t0
    phases["weights_s"] = t2 - t1
    phases["simplify_s"] = time.perf_counter() - t2
    return graph


def _runs(one_run, repeat: int, warmup: int):
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


def run_multilevel(repeat: int, resolution: float = 1.0, seed: int = 0,
                   warmup: int = 1) -> dict:
    """End to end: graph from the arrays + ``community_multilevel`` + ``membership``.
    Python's ``random`` (igraph's RNG here) is seeded before every run."""
    weights = "weight" if _STATE["w"] is not None else None

    def one(phases):
        graph = _graph(phases)
        random.seed(seed)
        t0 = time.perf_counter()
        clustering = graph.community_multilevel(weights=weights, resolution=resolution)
        membership = clustering.membership
        phases["louvain_s"] = time.perf_counter() - t0
        return graph, clustering, membership

    runs, (graph, clustering, membership) = _runs(one, repeat, warmup)
    return {"runs": runs, "membership": np.asarray(membership, dtype=np.int64),
            "modularity_own": float(clustering.modularity),
            "ig_edges": int(graph.ecount())}


def run_modularity(membership_path: str, repeat: int, resolution: float = 1.0,
                   warmup: int = 1) -> dict:
    """End to end: graph from the arrays + ``G.modularity(membership, ...)``.
    ``membership`` (one community per id ``0..n-1``) is read from an .npy
    before the clock starts."""
    membership = np.load(membership_path)
    weights = "weight" if _STATE["w"] is not None else None

    def one(phases):
        graph = _graph(phases)
        t0 = time.perf_counter()
        q = graph.modularity(membership, weights=weights, resolution=resolution)
        phases["modularity_s"] = time.perf_counter() - t0
        return q

    runs, q = _runs(one, repeat, warmup)
    return {"runs": runs, "modularity": float(q)}


def run_leiden(repeat: int, n_iterations: int = 2, resolution: float = 1.0, seed: int = 0,
               warmup: int = 1, beta: float = 0.01) -> dict:
    """End to end: graph from the arrays + ``community_leiden(objective_function=
    "modularity", n_iterations=...)`` + ``membership`` (``bench_leiden.py``).
    Python's ``random`` is igraph's RNG and is seeded before every run; each
    run's process CPU time is recorded beside its wall time (``cpu_s``)."""
    import igraph as ig

    weights = "weight" if _STATE["w"] is not None else None

    def one(phases):
        cpu = time.process_time()
        graph = _graph(phases)
        random.seed(seed)
        ig.set_random_number_generator(random)
        t0 = time.perf_counter()
        clustering = graph.community_leiden(objective_function="modularity", weights=weights,
                                            resolution=resolution, beta=beta,
                                            n_iterations=n_iterations)
        membership = clustering.membership
        phases["leiden_s"] = time.perf_counter() - t0
        phases["cpu_s"] = time.process_time() - cpu
        return graph, membership

    runs, (graph, membership) = _runs(one, repeat, warmup)
    return {"runs": runs, "membership": np.asarray(membership, dtype=np.int64),
            "modularity_own": float(graph.modularity(membership, weights=weights,
                                                     resolution=resolution)),
            "ig_edges": int(graph.ecount())}


def run_leidenalg(repeat: int, n_iterations: int = 2, resolution: float = 1.0, seed: int = 0,
                  warmup: int = 1) -> dict:
    """End to end: igraph's graph from the arrays (as ``run_leiden``) +
    ``leidenalg.find_partition`` (``ModularityVertexPartition``; at γ ≠ 1
    ``RBConfigurationVertexPartition``, the same quality with a resolution)."""
    import leidenalg

    weights = "weight" if _STATE["w"] is not None else None

    def one(phases):
        cpu = time.process_time()
        graph = _graph(phases)
        t0 = time.perf_counter()
        if resolution == 1.0:
            part = leidenalg.find_partition(graph, leidenalg.ModularityVertexPartition,
                                            weights=weights, n_iterations=n_iterations,
                                            seed=seed)
        else:
            part = leidenalg.find_partition(graph, leidenalg.RBConfigurationVertexPartition,
                                            weights=weights, n_iterations=n_iterations,
                                            seed=seed, resolution_parameter=resolution)
        membership = part.membership
        phases["leiden_s"] = time.perf_counter() - t0
        phases["cpu_s"] = time.process_time() - cpu
        return graph, membership

    runs, (graph, membership) = _runs(one, repeat, warmup)
    return {"runs": runs, "membership": np.asarray(membership, dtype=np.int64),
            "modularity_own": float(graph.modularity(membership, weights=weights,
                                                     resolution=resolution)),
            "version": leidenalg.__version__}
