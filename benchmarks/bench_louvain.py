"""Benchmark cugraph_match's Louvain against igraph, NetworKit and NetworkX.

Graphs: R-MAT graphs (``--scales``), optional 2-D meshes (``--mesh``) and
every MatrixMarket file in ``--data-dir`` (see ``bench_matching.py``).
Generated graphs keep the float32 weights uniform on (0, 1] that ``rmat.py``
draws (``--unit-weights`` makes them all 1); pattern ``.mtx`` files are
unweighted (every weight 1) and files with a weight column keep it.

Every graph is read once into this library's canonical undirected form
(``read_edges`` + ``canonical_graph``: each edge once with the largest weight
of its duplicates, self-loops kept), and every code runs on exactly that
graph: the peers' graphs are built from its ``lo``/``hi``/``w`` edges plus its
self-loops, outside the timing.

Codes, each timed on its own (algorithm only, graph already built):

* ``ours-cpu``: ``louvain_communities(g, γ, threshold, max_level, cpu, seed)``
  with the library defaults (refinement pass on, as ``cm.louvain`` does);
  ``ours-cpu[refine=False]`` without the final refinement move phase
  (``--no-variant`` skips it).  The move phases are sequential njit; the CSR
  build of each level uses Numba ``prange`` on ``--threads`` threads;
* ``ours-gpu`` when a real GPU is usable: the same call on a GPU copy of the
  graph, with a device synchronisation before starting and before stopping;
* ``igraph``: ``Graph.community_multilevel(weights=...)``, sequential;
  Python's ``random`` (igraph's RNG) is seeded with ``--seed-louvain`` before
  every run, so every run is the same computation;
* ``networkit-plm``: ``PLM(G, refine=False, gamma, par="balanced")``, ``run()``
  timed, on ``--nk-threads`` threads, in a worker process (``_nk_worker.py``);
  ``networkit-plm[refine=True]`` as well (``--no-variant`` skips it), so that
  a like-for-like table pairs ours without refinement with PLM without, and
  ours (refinement on by default) with PLM with;
* ``networkx``: ``nx.community.louvain_communities(G, weight="weight",
  seed=...)``, once, only on graphs of at most ``--nx-max-edges`` edges.

Ours: one untimed warm-up (Numba compilation excluded), then the minimum of
``--repeat`` runs.  NetworKit: one warm-up, then ``--repeat``.  igraph has no
compilation or caches to warm: ``--repeat`` runs, minimum reported.

Quality: the modularity of every code's partition is computed by this
library's ``modularity_of`` on the same graph (one definition for all: a
self-loop counts once in m and twice in its vertex's degree, as in
NetworkX).  Each library's own modularity of its partition is recorded beside
it as a cross-check.  Ratios: ``time(peer) / time(ours)`` (above 1: ours
faster) and ``Q(ours) / Q(peer)`` (above 1: ours better).  A one-off
``cm.louvain`` end-to-end call (edge frame in, partition frame out) is timed
as well and its ``q`` checked equal to the algorithm-only run's.

Example::

    python benchmarks/bench_louvain.py --scales 16 18 --mesh 512 --repeat 3
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import math
import os
import platform
import random
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import bench_matching as bm  # noqa: E402  (shared helpers: graphs, timing, machine)

OURS = "ours-cpu"
PEERS = ("igraph", "networkit-plm", "networkx")
NK_REFINE = "networkit-plm[refine=True]"
# Same algorithmic setting on both sides: without / with the final refinement move phase.
LIKE_FOR_LIKE = ((f"{OURS}[refine=False]", "networkit-plm"), (OURS, NK_REFINE))


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    today = _dt.date.today().isoformat()
    cores = os.cpu_count() or 1
    p = argparse.ArgumentParser(
        description="Time cugraph_match's Louvain (CPU, and GPU when usable) against igraph "
                    "community_multilevel, NetworKit PLM and NetworkX louvain_communities; "
                    "modularity of every partition by one definition.")
    p.add_argument("--scales", type=int, nargs="*", default=[16, 18],
                   help="R-MAT scales; pass --scales with no value for none (default: 16 18)")
    p.add_argument("--edge-factor", type=int, default=16, help="R-MAT edges per id (default 16)")
    p.add_argument("--rmat-permute", action="store_true",
                   help="randomly relabel R-MAT vertices (Graph500 style)")
    p.add_argument("--mesh", type=int, nargs="*", default=[],
                   help="also run side x side 2-D grids (e.g. --mesh 512)")
    p.add_argument("--unit-weights", action="store_true",
                   help="give the generated graphs (R-MAT, meshes) weight 1 on every edge "
                        "instead of the generators' U(0,1] weights")
    p.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data" / "graphs"),
                   help="directory of MatrixMarket graphs (default: ../shared/data/graphs)")
    p.add_argument("--pattern", default="*.mtx", help="file glob inside --data-dir (default *.mtx)")
    p.add_argument("--no-real", action="store_true", help="skip the graphs of --data-dir")
    p.add_argument("--seed", type=int, default=42,
                   help="seed of the generated graphs' structure and weights (default 42)")
    p.add_argument("--seed-louvain", type=int, default=0,
                   help="seed of every Louvain run: ours, igraph (Python random), NetworKit, "
                        "NetworkX (default 0)")
    p.add_argument("--resolution", type=float, default=1.0, help="γ (default 1.0)")
    p.add_argument("--threshold", type=float, default=1e-7,
                   help="our threshold (default 1e-7, as cm.louvain and NetworkX)")
    p.add_argument("--max-level", type=int, default=100, help="our max_level (default 100)")
    p.add_argument("--no-variant", action="store_true",
                   help="skip the ours-cpu[refine=False] variant")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per measurement; the "
                   "minimum is reported (default 3; ours and NetworKit after one warm-up)")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="Numba threads (default: all usable cores)")
    p.add_argument("--nk-threads", type=int, default=cores,
                   help=f"NetworKit threads (default os.cpu_count() = {cores})")
    p.add_argument("--nx-max-edges", type=int, default=20_000,
                   help="run NetworkX only on graphs with at most this many undirected edges "
                        "(self-loops included; default 20000)")
    p.add_argument("--gpu", choices=("auto", "off"), default="auto",
                   help="run our GPU Louvain when a GPU is usable (auto) or never (off)")
    p.add_argument("--no-igraph", action="store_true", help="skip igraph")
    p.add_argument("--no-networkit", action="store_true", help="skip NetworKit")
    p.add_argument("--no-networkx", action="store_true", help="skip NetworkX")
    p.add_argument("--out-dir", default=str(HERE / "results"), help="default benchmarks/results")
    p.add_argument("--out-name", default=None,
                   help=f"file stem of the .json/.md results (default louvain_cpu_{today}, "
                        f"or louvain_gpu_{today} when the GPU runs)")
    p.add_argument("--date", default=None,
                   help="date to record in the report (default: today, UTC)")
    p.add_argument("--note", default=None, help="a free-text line for the report")
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if not args.resolution > 0:
        p.error("--resolution must be positive")
    return args


# --------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------


def graph_specs(args) -> list:
    """``bm.graph_specs`` with this benchmark's weights: real pattern files get weight 1
    (not random weights), and generated graphs weight 1 under ``--unit-weights``."""
    specs = bm.graph_specs(args)
    for spec in specs:
        if spec.kind == "file":
            spec.load = lambda path=Path(spec.source): load_file_unit(path)
        elif args.unit_weights:
            spec.load = lambda load=spec.load: unit_weights(load())
    return specs


def load_file_unit(path: Path):
    from cugraph_match.datasets import read_graph

    edges, _vertices = read_graph(path)  # isolated vertices are left out (no edge, no Q)
    if "weight" in edges.columns:
        return edges, f"from the file ({edges['weight'].dtype})"
    edges["weight"] = np.float64(1.0)
    return edges, "unweighted (pattern file): every weight 1"


def unit_weights(loaded):
    edges, _note = loaded
    edges["weight"] = np.float32(1.0)
    return edges, "unit (--unit-weights): every weight 1"


def short_weights(note: str) -> str:
    if note.startswith("from the file"):
        return "file"
    if note.startswith("unweighted") or note.startswith("unit"):
        return "1"
    return "U(0,1]"


def self_loops(g):
    """(vertex, weight) of the self-loops of a host WeightedGraph."""
    at = np.flatnonzero(g.loop)
    return at, g.loop[at]


def peer_edges(g):
    """The graph as one list of undirected edges, self-loops last: (u, v, w) int64/float64."""
    at, lw = self_loops(g)
    u = np.concatenate([np.asarray(g.lo, dtype=np.int64), at.astype(np.int64)])
    v = np.concatenate([np.asarray(g.hi, dtype=np.int64), at.astype(np.int64)])
    w = np.concatenate([np.asarray(g.w, dtype=np.float64), lw.astype(np.float64)])
    return u, v, w


# --------------------------------------------------------------------------
# the runs
# --------------------------------------------------------------------------


def record(code: str, times, membership, g, q_own, resolution: float, params=None,
           threads=None) -> dict:
    from cugraph_match.community.modularity import modularity_of

    membership = np.asarray(membership, dtype=np.int64)
    if membership.shape != (g.n,) or (g.n and membership.min() < 0):
        raise RuntimeError(f"{code}: partition of shape {membership.shape} for {g.n} vertices")
    # codes 0..k-1 so that modularity_of's bincounts stay small
    _, codes = np.unique(membership, return_inverse=True)
    q = modularity_of(g, codes.astype(np.int64), resolution, np)
    return {
        "code": code,
        "params": params or {},
        "threads": threads,
        "times_s": [float(t) for t in times],
        "time_s": float(min(times)),
        "modularity": q,
        "modularity_own": None if q_own is None else float(q_own),
        "modularity_own_minus_ours_def": None if q_own is None else float(q_own) - q,
        "communities": int(np.unique(codes).shape[0]),
    }


def our_cpu_runs(g, backend, args, bar, name, numba_threads) -> list:
    from cugraph_match.community.louvain import louvain_communities

    out = []
    variants = [(OURS, True)] + ([] if args.no_variant else [(f"{OURS}[refine=False]", False)])
    for code, refine in variants:
        bar.set_postfix_str(f"{name}: {code}")
        times, community = bm.timed(
            lambda refine=refine: louvain_communities(g, args.resolution, args.threshold,
                                                      args.max_level, backend, args.seed_louvain,
                                                      refine=refine), args.repeat)
        out.append(record(code, times, community, g, None, args.resolution,
                          {"refine": refine, "threshold": args.threshold,
                           "max_level": args.max_level, "seed": args.seed_louvain},
                          f"move phases 1, CSR builds {numba_threads}"))
        bar.update()
    return out


def end_to_end(edges_df, args, q_ref) -> dict:
    """One ``cm.louvain`` call (frame in, frame out), after the kernels are compiled."""
    import cugraph_match as cm

    t0 = time.perf_counter()
    parts, q = cm.louvain(edges_df, source="src", destination="dst", weight="weight",
                          resolution=args.resolution, threshold=args.threshold,
                          max_level=args.max_level, backend="cpu", seed=args.seed_louvain)
    elapsed = time.perf_counter() - t0
    return {"time_s": elapsed, "q": float(q), "communities": int(parts["community"].nunique()),
            "q_equals_algorithm_run": bool(abs(q - q_ref) <= 1e-12)}


def our_gpu_run(edges_df, args, bar, name, host_g) -> tuple[float, dict]:
    """GPU graph preparation (timed) and ``louvain_communities`` on the device."""
    import cupy

    from cugraph_match.structure.core import canonical_graph, read_edges, to_backend
    from cugraph_match.community.louvain import louvain_communities

    sync = cupy.cuda.Device().synchronize
    bar.set_postfix_str(f"{name}: GPU graph")
    sync()
    t0 = time.perf_counter()
    edges = read_edges(edges_df, "src", "dst", "weight", backend="gpu")
    g = canonical_graph(edges.u, edges.v, edges.w, len(edges.labels), cupy)
    sync()
    prep_s = time.perf_counter() - t0
    bar.set_postfix_str(f"{name}: ours-gpu")
    times, community = bm.timed(
        lambda: louvain_communities(g, args.resolution, args.threshold, args.max_level,
                                    edges.backend, args.seed_louvain), args.repeat, sync)
    rec = record("ours-gpu", times, to_backend(community, np), host_g, None, args.resolution,
                 {"refine": True, "threshold": args.threshold, "max_level": args.max_level},
                 "GPU")
    g = edges = community = None  # free device memory before the next graph
    cupy.get_default_memory_pool().free_all_blocks()
    bar.update()
    return prep_s, rec


def igraph_run(g, args, bar, name) -> tuple[float, dict]:
    import igraph

    bar.set_postfix_str(f"{name}: igraph graph")
    u, v, w = peer_edges(g)
    t0 = time.perf_counter()
    graph = igraph.Graph(n=g.n, edges=np.column_stack([u, v]), directed=False)
    weights = w.tolist()
    build_s = time.perf_counter() - t0
    del u, v, w
    if graph.ecount() != len(weights):
        raise RuntimeError(f"igraph graph has {graph.ecount()} edges, expected {len(weights)}")
    bar.set_postfix_str(f"{name}: igraph")
    times, clustering = [], None
    for _ in range(args.repeat):
        random.seed(args.seed_louvain)  # python-igraph draws from Python's random module
        t0 = time.perf_counter()
        clustering = graph.community_multilevel(weights=weights, resolution=args.resolution)
        times.append(time.perf_counter() - t0)
    rec = record("igraph", times, clustering.membership, g, clustering.modularity,
                 args.resolution,
                 {"resolution": args.resolution, "seed (python random)": args.seed_louvain},
                 1)
    bar.update()
    return build_s, rec


def networkit_run(pool, g, args, bar, name, tmpdir: Path, nk_threads) -> tuple[float, list]:
    import _nk_worker as W

    bar.set_postfix_str(f"{name}: NetworKit graph")
    u, v, w = peer_edges(g)
    path = tmpdir / "graph.npz"
    np.savez(path, n=np.int64(g.n), u=u, v=v, w=w)
    info = pool.submit(W.load, str(path)).result()
    path.unlink()
    if (info["n"], info["m"]) != (g.n, u.shape[0]):
        raise RuntimeError(f"NetworKit graph has n={info['n']}, m={info['m']}; "
                           f"expected n={g.n}, m={u.shape[0]}")
    del u, v, w
    out = []
    for refine in (False,) if args.no_variant else (False, True):
        code = NK_REFINE if refine else "networkit-plm"
        bar.set_postfix_str(f"{name}: {code}")
        res = pool.submit(W.run_plm, args.repeat, refine, args.resolution, "balanced",
                          args.seed_louvain).result()
        rec = record(code, res["times"], res["membership"], g, res["modularity"],
                     args.resolution,
                     {"refine": refine, "gamma": args.resolution, "par": "balanced",
                      "seed": args.seed_louvain}, nk_threads)
        rec["nk_communities"] = res["communities"]
        rec["nk_phase_timings"] = res["phase_timings"]
        out.append(rec)
        bar.update()
    pool.submit(W.release).result()
    return info["build_s"], out


def networkx_run(g, args, bar, name) -> tuple[float, dict]:
    import networkx as nx

    bar.set_postfix_str(f"{name}: NetworkX")
    u, v, w = peer_edges(g)
    t0 = time.perf_counter()
    graph = nx.Graph()
    graph.add_nodes_from(range(g.n))
    graph.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()), weight="weight")
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    communities = nx.community.louvain_communities(graph, weight="weight",
                                                   resolution=args.resolution,
                                                   seed=args.seed_louvain)
    elapsed = time.perf_counter() - t0
    own = nx.community.modularity(graph, communities, weight="weight",
                                  resolution=args.resolution)
    membership = np.full(g.n, -1, dtype=np.int64)
    for c, members in enumerate(communities):
        membership[list(members)] = c
    rec = record("networkx", [elapsed], membership, g, own, args.resolution,
                 {"resolution": args.resolution, "seed": args.seed_louvain,
                  "threshold": "default (1e-7)", "runs": 1}, 1)
    bar.update()
    return build_s, rec


# --------------------------------------------------------------------------
# ratios and summary
# --------------------------------------------------------------------------


def _pair(ours: dict, peer: dict) -> dict:
    return {
        "time_peer_over_ours": peer["time_s"] / ours["time_s"] if ours["time_s"] > 0 else None,
        "q_ours_over_peer": ours["modularity"] / peer["modularity"]
        if peer["modularity"] > 0 else None,
    }


def add_ratios(graph_rec: dict) -> None:
    """``ratios[peer]``: the peer's time over ours-cpu's and ours-cpu's Q over the peer's
    (and the same for ours-gpu when it ran); ``like_for_like``: the pairs of
    ``LIKE_FOR_LIKE`` (refinement off on both sides, or on on both)."""
    runs = {r["code"]: r for r in graph_rec["runs"]}
    ours = runs[OURS]
    ratios = {}
    for code in PEERS + (NK_REFINE,):
        peer = runs.get(code)
        if peer is None:
            continue
        entry = _pair(ours, peer)
        if "ours-gpu" in runs:
            gpu = _pair(runs["ours-gpu"], peer)
            entry["time_peer_over_gpu"] = gpu["time_peer_over_ours"]
            entry["q_gpu_over_peer"] = gpu["q_ours_over_peer"]
        ratios[code] = entry
    graph_rec["ratios"] = ratios
    graph_rec["like_for_like"] = {
        f"{a} vs {b}": _pair(runs[a], runs[b])
        for a, b in LIKE_FOR_LIKE if a in runs and b in runs}


def geomean(values):
    values = [x for x in values if x is not None and x > 0]
    if not values:
        return None
    return float(math.exp(sum(math.log(x) for x in values) / len(values)))


def _aggregate(named: list) -> dict:
    """Geometric mean, min and max of the ratios of ``[(graph, ratio dict), ...]``."""
    out = {"graphs": len(named)}
    for key in ("time_peer_over_ours", "q_ours_over_peer", "time_peer_over_gpu",
                "q_gpu_over_peer"):
        values = [r[key] for _, r in named if r.get(key) is not None]
        if not values:
            continue
        out[f"{key}_geomean"] = geomean(values)
        out[f"{key}_min"] = min(values)
        out[f"{key}_max"] = max(values)
    rmat = [r["time_peer_over_ours"] for name, r in named
            if name.startswith("rmat-") and r.get("time_peer_over_ours") is not None]
    out["time_peer_over_ours_geomean_rmat"] = geomean(rmat)
    return out


def summarise(graphs: list) -> dict:
    per_peer, per_pair = {}, {}
    low_q, slower, much_slower, own_diff, e2e_mismatch = [], [], [], [], []
    for g in graphs:
        for code, r in g["ratios"].items():
            per_peer.setdefault(code, []).append((g["name"], r))
            q, t = r["q_ours_over_peer"], r["time_peer_over_ours"]
            if q is not None and q < 0.99:
                low_q.append(f"{g['name']} vs {code}: Q ratio {q:.4f}")
            if t is not None and t < 1.0:
                slower.append(f"{g['name']} vs {code}: {t:.2f}×")
                if t < 0.2:
                    much_slower.append(f"{g['name']} vs {code}: {t:.2f}×")
        for pair, r in g["like_for_like"].items():
            per_pair.setdefault(pair, []).append((g["name"], r))
        for r in g["runs"]:
            d = r["modularity_own_minus_ours_def"]
            if d is not None and abs(d) > 1e-9:
                own_diff.append(f"{g['name']} {r['code']}: own − ours {d:+.2e}")
        if not g["end_to_end"]["q_equals_algorithm_run"]:
            e2e_mismatch.append(g["name"])
    return {"by_peer": {c: _aggregate(v) for c, v in per_peer.items()},
            "like_for_like": {p: _aggregate(v) for p, v in per_pair.items()},
            "q_below_99pct_of_peer": low_q, "ours_slower_than_peer": slower,
            "ours_below_0.2x_of_peer": much_slower, "own_modularity_differs": own_diff,
            "end_to_end_q_mismatch": e2e_mismatch}


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def _r(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}×"


def _q(x):
    return "—" if x is None else f"{x:.4f}"


def markdown(report: dict) -> str:
    meta = report["meta"]
    cpu = meta["cpu"]
    lscpu = cpu.get("lscpu") or {}
    detail = ", ".join(f"{k} {lscpu[k]}" for k in ("Model name", "CPU family", "Model",
                                                  "Hypervisor vendor") if k in lscpu)
    lines = [
        f"# Louvain benchmark: {meta['out_name']}",
        "",
        f"- date: {meta['date']} (run at {meta['run_at_utc']})",
        f"- command: `{meta['command']}`",
        f"- CPU: {cpu['model']}" + (f" (lscpu: {detail})" if detail else "")
        + f", {cpu['cores']} cores ({cpu['usable_cores']} usable); platform {meta['platform']}; "
        f"load average at start {meta['loadavg_start']}, at end {meta['loadavg_end']}",
        f"- threads: ours = sequential njit move phases, Numba `prange` CSR builds on "
        f"{meta['numba_threads']} thread(s) (layer {meta['numba_threading_layer']}); "
        f"NetworKit PLM on {meta['networkit_threads']} thread(s) (par=\"balanced\"); "
        "igraph and NetworkX sequential",
        "- GPU: " + (f"{meta['gpu']['name']} (ours-gpu rows)" if meta["gpu"] else
                     "none available on this machine (no GPU lent to this task): "
                     "GPU rows omitted"),
        f"- code: commit {meta['git']['commit']}"
        + (" with uncommitted changes in cugraph_match/" if meta["git"]["package_dirty"] else ""),
        "- versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v),
        f"- parameters: resolution {meta['args']['resolution']}, our threshold "
        f"{meta['args']['threshold']} (10⁻² while a level has > 100,000 vertices), max_level "
        f"{meta['args']['max_level']}, Louvain seed {meta['args']['seed_louvain']}; "
        "NetworKit `PLM(G, refine=False, gamma, par=\"balanced\")`; igraph "
        "`community_multilevel(weights=...)`; NetworkX `louvain_communities(G, "
        f"weight=\"weight\", seed)` on graphs of ≤ {meta['args']['nx_max_edges']:,} edges",
        f"- timing: algorithm only, on a graph built beforehand. Ours: min of {meta['repeat']} "
        "runs after 1 warm-up (Numba compilation excluded); NetworKit: `run()`, min of "
        f"{meta['repeat']} after 1 warm-up; igraph: min of {meta['repeat']} (no warm-up needed); "
        "NetworkX: one run",
        "- quality: Q of every partition by our `modularity_of` on the same graph (self-loop "
        "once in m, twice in its vertex's degree, as NetworkX); each library's own Q is in "
        "the JSON (`modularity_own`) as a cross-check",
        f"- weights: {meta['weights_note']}",
    ]
    if meta["args"].get("note"):
        lines.append(f"- note: {meta['args']['note']}")
    lines += [
        "",
        "## Graphs",
        "",
        "| graph | vertices | undirected edges | self-loops | weights | prep (ours) "
        "| igraph build | NetworKit build | `cm.louvain` end-to-end |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for g in report["graphs"]:
        e2e = g["end_to_end"]
        lines.append(
            f"| {g['name']} | {g['num_vertices']:,} | {g['num_edges']:,} | {g['self_loops']:,} "
            f"| {g['weights_short']} | {bm.fmt_t(g['prep_s'])} "
            f"| {bm.fmt_t(g.get('igraph_build_s'))} | {bm.fmt_t(g.get('nk_build_s'))} "
            f"| {bm.fmt_t(e2e['time_s'])} (q {'=' if e2e['q_equals_algorithm_run'] else '≠'}) |")

    graphs = report["graphs"]
    summary = report["summary"]
    peers = [c for c in PEERS if any(c in g["ratios"] for g in graphs)]
    lines += [
        "",
        "## Headline: ratios against ours-cpu",
        "",
        "t = peer's time ÷ ours (above 1×: ours faster); Q = our modularity ÷ peer's "
        "(above 1: ours better). Ours runs with its default final refinement move phase, "
        "PLM with `refine=False` (see the like-for-like table below).",
        "",
    ]
    lines += _ratio_table(graphs, peers, lambda g, c: g["ratios"].get(c), summary["by_peer"],
                          lead=lambda g: _our_cells(g, OURS), lead_head="ours time | ours Q")
    pairs = [f"{a} vs {b}" for a, b in LIKE_FOR_LIKE
             if any(f"{a} vs {b}" in g["like_for_like"] for g in graphs)]
    if pairs:
        lines += [
            "",
            "## Like-for-like against NetworKit PLM",
            "",
            "Refinement off on both sides (`ours-cpu[refine=False]` vs `PLM(refine=False)`) "
            "and on on both (`ours-cpu` vs `PLM(refine=True)`); t and Q as above.",
            "",
        ]
        lines += _ratio_table(graphs, pairs, lambda g, c: g["like_for_like"].get(c),
                              summary["like_for_like"])
    if any("ours-gpu" in {r["code"] for r in g["runs"]} for g in graphs):
        lines += ["", "## ours-gpu against the peers", "",
                  "t = peer's time ÷ ours-gpu; Q = ours-gpu's modularity ÷ peer's.", ""]
        lines += _ratio_table(graphs, peers, lambda g, c: g["ratios"].get(c),
                              summary["by_peer"], lead=lambda g: _our_cells(g, "ours-gpu"),
                              lead_head="GPU time | GPU Q", gpu=True)

    lines += [
        "",
        "## All runs",
        "",
        "| graph | code | threads | time | Q (our definition) | own Q − ours | communities "
        "| t(this) ÷ t(ours-cpu) | Q(ours-cpu) ÷ Q(this) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for g in graphs:
        for r in g["runs"]:
            ratio = g["ratios"].get(r["code"], {})
            d = r["modularity_own_minus_ours_def"]
            lines.append(
                f"| {g['name']} | {r['code']} | {r['threads']} | {bm.fmt_t(r['time_s'])} "
                f"| {r['modularity']:.6f} | {'—' if d is None else f'{d:+.1e}'} "
                f"| {r['communities']:,} | {_r(ratio.get('time_peer_over_ours'))} "
                f"| {_q(ratio.get('q_ours_over_peer'))} |")

    lines += ["", "## Summary", ""]
    listed = [(c, x) for c, x in summary["by_peer"].items() if c != NK_REFINE]  # in a pair
    for name, x in listed + list(summary["like_for_like"].items()):
        label = name if " vs " in name else f"ours-cpu vs {name}"
        lines.append(
            f"- {label} ({x['graphs']} graphs): t ratio geometric mean "
            f"{_r(x['time_peer_over_ours_geomean'])} (min {_r(x['time_peer_over_ours_min'])}, "
            f"max {_r(x['time_peer_over_ours_max'])}"
            + (f"; R-MAT only {_r(x['time_peer_over_ours_geomean_rmat'])}"
               if x["time_peer_over_ours_geomean_rmat"] else "")
            + f"); Q ratio geometric mean {x['q_ours_over_peer_geomean']:.4f} "
            f"(min {x['q_ours_over_peer_min']:.4f}, max {x['q_ours_over_peer_max']:.4f})")
    lines.append("- our Q below 99% of a peer's: "
                 + ("; ".join(summary["q_below_99pct_of_peer"]) or "none"))
    lines.append("- ours-cpu more than 5× slower than a peer (t ratio < 0.2×): "
                 + ("; ".join(summary["ours_below_0.2x_of_peer"]) or "none"))
    lines.append(f"- ours-cpu slower than a peer: {len(summary['ours_slower_than_peer'])} "
                 "graph/peer pairs (listed in the JSON summary)")
    lines.append("- `cm.louvain` end-to-end q ≠ algorithm-only q: "
                 + (", ".join(summary["end_to_end_q_mismatch"]) or "none (all equal)"))
    lines.append("- libraries' own Q differing from our definition by > 1e-9: "
                 + ("; ".join(summary["own_modularity_differs"]) or "none"))
    return "\n".join(lines) + "\n"


def _our_cells(g: dict, code: str) -> list:
    r = next((r for r in g["runs"] if r["code"] == code), None)
    return ["—", "—"] if r is None else [bm.fmt_t(r["time_s"]), _q(r["modularity"])]


def _ratio_table(graphs, columns, get, aggregates, lead=None, lead_head=None,
                 gpu=False) -> list:
    """Rows of t / Q ratio pairs per graph and column, and a geometric-mean row."""
    t_key, q_key = ("time_peer_over_gpu", "q_gpu_over_peer") if gpu else \
        ("time_peer_over_ours", "q_ours_over_peer")
    head = "| graph | " + (f"{lead_head} | " if lead else "") \
        + " | ".join(f"{c} t | {c} Q" for c in columns) + " |"
    rule = "|---|" + ("---:|---:|" if lead else "") + "---:|---:|" * len(columns)
    out = [head, rule]
    for g in graphs:
        cells = lead(g) if lead else []
        for c in columns:
            r = get(g, c) or {}
            cells += [_r(r.get(t_key)), _q(r.get(q_key))]
        out.append(f"| {g['name']} | " + " | ".join(cells) + " |")
    cells = ["", ""] if lead else []
    for c in columns:
        x = aggregates.get(c, {})
        cells += [_r(x.get(f"{t_key}_geomean")), _q(x.get(f"{q_key}_geomean"))]
    out.append("| **geometric mean** | " + " | ".join(cells) + " |")
    return out


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba
    from tqdm import tqdm

    import cugraph_match
    from cugraph_match.structure.core import canonical_graph, gpu_available, read_edges

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    use_gpu = args.gpu == "auto" and gpu_available()
    gpu_info = bm.gpu_description() if use_gpu else None
    date = args.date or _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    out_name = args.out_name or f"louvain_{'gpu' if use_gpu else 'cpu'}_{date}"
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    pool, nk_setup = bm.start_networkit(args.nk_threads, disabled=args.no_networkit)
    specs = graph_specs(args)
    per_graph = (1 if args.no_variant else 2) + int(use_gpu) + int(not args.no_igraph) \
        + (pool is not None) * (1 if args.no_variant else 2) + int(not args.no_networkx)

    started = time.perf_counter()
    loadavg_start = [round(x, 2) for x in os.getloadavg()]
    graphs = []
    with tempfile.TemporaryDirectory(prefix="bench_louvain_") as tmp, \
            tqdm(total=len(specs) * per_graph, unit="run", disable=args.no_progress,
                 dynamic_ncols=True) as bar:
        tmpdir = Path(tmp)
        for spec in specs:
            bar.set_postfix_str(f"{spec.name}: load")
            t0 = time.perf_counter()
            edges_df, weights_note = spec.load()
            load_s = time.perf_counter() - t0

            bar.set_postfix_str(f"{spec.name}: prepare")
            t0 = time.perf_counter()
            edges = read_edges(edges_df, "src", "dst", "weight", backend="cpu")
            g = canonical_graph(edges.u, edges.v, edges.w, len(edges.labels), np)
            prep_s = time.perf_counter() - t0
            n_loops = int(np.count_nonzero(g.loop))
            rec = {
                "name": spec.name, "kind": spec.kind, "source": spec.source,
                "weights": weights_note, "weights_short": short_weights(weights_note),
                "raw_edges": len(edges_df), "num_vertices": int(g.n),
                "num_edges": int(g.lo.shape[0]), "self_loops": n_loops,
                "total_weight": float(g.w.sum() + g.loop.sum()),
                "load_s": load_s, "prep_s": prep_s,
            }
            runs = our_cpu_runs(g, edges.backend, args, bar, spec.name, numba.get_num_threads())
            rec["end_to_end"] = end_to_end(edges_df, args, runs[0]["modularity"])
            if use_gpu:
                rec["prep_gpu_s"], gpu_rec = our_gpu_run(edges_df, args, bar, spec.name, g)
                runs.append(gpu_rec)
            del edges_df, edges
            gc.collect()
            if not args.no_igraph:
                rec["igraph_build_s"], r = igraph_run(g, args, bar, spec.name)
                runs.append(r)
                gc.collect()
            if pool is not None:
                rec["nk_build_s"], r = networkit_run(pool, g, args, bar, spec.name, tmpdir,
                                                     nk_setup["threads"])
                runs += r
            if not args.no_networkx:
                if rec["num_edges"] + n_loops <= args.nx_max_edges:
                    rec["networkx_build_s"], r = networkx_run(g, args, bar, spec.name)
                    runs.append(r)
                else:
                    bar.update()
            rec["runs"] = runs
            add_ratios(rec)
            graphs.append(rec)
            del g
            gc.collect()
    if pool is not None:
        pool.shutdown()

    import igraph
    import networkx

    command = shlex.join(["python"] + (sys.argv if argv is None
                                       else ["benchmarks/bench_louvain.py"] + list(argv)))
    report = {
        "meta": {
            "out_name": out_name,
            "date": date,
            "run_at_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "command": command,
            "argv": sys.argv if argv is None else list(argv),
            "cwd": os.getcwd(),
            "args": vars(args),
            "cpu": {"model": bm.cpu_model(), "cores": os.cpu_count(),
                    "usable_cores": len(os.sched_getaffinity(0)), "lscpu": _lscpu()},
            "platform": platform.platform(),
            "git": bm.git_state(),
            "gpu": gpu_info,
            "gpu_note": None if use_gpu else
            ("--gpu off" if args.gpu == "off" else "no usable GPU on this machine"),
            "numba_threads": numba.get_num_threads(),
            "numba_threading_layer": bm._threading_layer(numba),
            "networkit_threads": nk_setup["threads"],
            "versions": {
                "python": platform.python_version(),
                "cugraph_match": cugraph_match.__version__,
                "numpy": np.__version__,
                "numba": numba.__version__,
                "pandas": bm.version_of("pandas"),
                "igraph": igraph.__version__,
                "networkit": nk_setup["version"] or bm.version_of("networkit"),
                "networkx": networkx.__version__,
                "cupy": gpu_info["cupy"] if gpu_info else None,
            },
            "repeat": args.repeat,
            "seed": args.seed,
            "weights_note": (
                "R-MAT and meshes: " + ("weight 1 (--unit-weights)" if args.unit_weights else
                                        f"float32 U(0,1] from seed {args.seed} (rmat.py)")
                + "; pattern .mtx files: weight 1; files with weights keep them. Duplicate "
                "edges keep their largest weight; self-loops are kept (R-MAT draws some)"),
            "total_wall_s": time.perf_counter() - started,
            "loadavg_start": loadavg_start,
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        },
        "graphs": graphs,
        "summary": summarise(graphs),
    }
    json_path = out_dir / f"{out_name}.json"
    md_path = out_dir / f"{out_name}.md"
    json_path.write_text(json.dumps(report, indent=1, default=bm._json_default) + "\n")
    text = markdown(report)
    md_path.write_text(text)
    print(text)
    print(f"wrote {json_path} and {md_path} ({report['meta']['total_wall_s']:.0f} s)")
    return 1 if report["summary"]["end_to_end_q_mismatch"] else 0


def _lscpu() -> dict:
    try:
        import bench_bmatching

        return bench_bmatching.lscpu()
    except Exception:  # informative only
        return {}


if __name__ == "__main__":
    sys.exit(main())
