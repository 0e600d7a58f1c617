"""Benchmark cugraph_match's matching kernels against NetworKit's SuitorMatcher.

Graphs: R-MAT graphs (``--scales``, see ``rmat.py``), optional 2-D meshes
(``--mesh``) and every MatrixMarket file in ``--data-dir``.  Pattern graphs
get float32 weights uniform on (0, 1] drawn from ``--seed``; files that carry
weights keep them.

For every graph the CSR is built once (``prepare_graph`` + ``weight_keys``,
timed and reported separately), then each algorithm is timed on it: one
warm-up run (Numba compilation and caches excluded), then ``--repeat`` runs,
of which the minimum is reported.

* ``suitor-cpu``: ``suitor_offers`` + ``mates_from_offers_cpu`` (sequential njit);
* ``ld-cpu``: ``locally_dominant_mates`` (Numba ``prange``, all threads);
* ``suitor-gpu[vpw=k]`` and ``ld-gpu`` when a real GPU is usable, with a
  device synchronisation before starting and before stopping the clock;
* ``nk-sortsuitor`` / ``nk-suitor``: NetworKit's ``SuitorMatcher`` with
  ``sortSuitor=True`` / ``False``; ``run()`` + ``getMatching()`` timed.  The
  NetworKit graph is built from the same de-duplicated undirected edges and
  weights (CSR rows with u < v) in a worker process (see ``_nk_worker.py``
  for why); SortSuitor needs adjacency lists sorted by weight, and that sort
  (``graphtools.sortEdgesByWeight``) is timed separately, not in the run.

Every result is checked: ours must all equal the CPU Suitor matching
exactly; NetworKit's weight and cardinality are reported beside ours, with
whether its matching is identical (it may legitimately differ when weights
tie, since it breaks ties differently).

Example::

    python benchmarks/bench_matching.py --scales 16 18 20 --repeat 3
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import importlib.metadata
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import rmat  # noqa: E402  (benchmarks/rmat.py)

DEFAULT_VPW = (1, 4, 8, 16, 32)


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    today = _dt.date.today().isoformat()
    p = argparse.ArgumentParser(
        description="Time cugraph_match's Suitor and locally-dominant kernels (CPU, and GPU "
                    "when usable) against NetworKit's SuitorMatcher.")
    p.add_argument("--scales", type=int, nargs="*", default=[16, 18, 20],
                   help="R-MAT scales (2**scale ids, edge_factor * 2**scale edges); "
                        "pass --scales with no value for none (default: 16 18 20)")
    p.add_argument("--edge-factor", type=int, default=16, help="R-MAT edges per id (default 16)")
    p.add_argument("--rmat-permute", action="store_true",
                   help="randomly relabel R-MAT vertices (Graph500 style)")
    p.add_argument("--mesh", type=int, nargs="*", default=[],
                   help="also run side x side 2-D grids (e.g. --mesh 1024)")
    p.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data" / "graphs"),
                   help="directory of MatrixMarket graphs (default: ../shared/data/graphs "
                        "relative to the repository root)")
    p.add_argument("--pattern", default="*.mtx", help="file glob inside --data-dir (default *.mtx)")
    p.add_argument("--no-real", action="store_true", help="skip the graphs of --data-dir")
    p.add_argument("--seed", type=int, default=42,
                   help="seed of R-MAT structure and of all random weights (default 42)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per measurement; the "
                   "minimum is reported (default 3, after one untimed warm-up)")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="threads for Numba prange and NetworKit (default: all usable cores)")
    p.add_argument("--vertices-per-warp", type=int, nargs="+", default=list(DEFAULT_VPW),
                   help="GPU Suitor vertices_per_warp values (default 1 4 8 16 32)")
    p.add_argument("--threads-per-block", type=int, default=128, help="GPU block size (default 128)")
    p.add_argument("--gpu", choices=("auto", "off"), default="auto",
                   help="run the GPU kernels when a GPU is usable (auto) or never (off)")
    p.add_argument("--no-networkit", action="store_true", help="skip NetworKit")
    p.add_argument("--out-dir", default=str(HERE / "results"), help="default benchmarks/results")
    p.add_argument("--out-name", default=None,
                   help=f"file stem of the .json/.md results (default matching_cpu_{today}, "
                        f"or matching_gpu_{today} when the GPU runs)")
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


# --------------------------------------------------------------------------
# machine description
# --------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version_of(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def git_state() -> dict:
    """Commit of the repository and whether the package has uncommitted changes."""
    import subprocess

    def git(*cmd):
        return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True,
                              timeout=30).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD") or None,
                "package_dirty": bool(git("status", "--porcelain", "--", "cugraph_match"))}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "package_dirty": None}


def gpu_description() -> dict:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return {
        "name": name.decode() if isinstance(name, bytes) else str(name),
        "compute_capability": f"{props['major']}.{props['minor']}",
        "memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
        "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "cuda_driver": cupy.cuda.runtime.driverGetVersion(),
        "cupy": cupy.__version__,
    }


# --------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------


@dataclass
class GraphSpec:
    name: str
    kind: str  # "rmat", "mesh" or "file"
    load: Callable[[], tuple[Any, str]]  # -> (edge frame, description of its weights)
    source: str


def graph_specs(args) -> list[GraphSpec]:
    specs = []
    for scale in args.scales:
        def load(scale=scale):
            df = rmat.rmat_edges(scale, args.edge_factor, seed=args.seed, permute=args.rmat_permute)
            return df, f"random float32 U(0,1], seed {args.seed} (rmat.rmat_edges)"
        specs.append(GraphSpec(f"rmat-{scale}", "rmat", load,
                               f"rmat_edges(scale={scale}, edge_factor={args.edge_factor}, "
                               f"a=0.57, b=0.19, c=0.19, seed={args.seed}, "
                               f"permute={args.rmat_permute})"))
    for side in args.mesh:
        def load(side=side):
            return (rmat.mesh_edges(side, seed=args.seed),
                    f"random float32 U(0,1], seed {args.seed} (rmat.mesh_edges)")
        specs.append(GraphSpec(f"mesh-{side}", "mesh", load, f"mesh_edges(side={side}, seed={args.seed})"))
    if not args.no_real:
        data_dir = Path(args.data_dir)
        if not data_dir.is_dir():
            print(f"warning: --data-dir {data_dir} not found; no real graphs", file=sys.stderr)
        else:
            for path in sorted(data_dir.glob(args.pattern)):
                specs.append(GraphSpec(path.stem, "file", lambda path=path: load_file(path, args.seed),
                                       str(path)))
    return specs


def load_file(path: Path, seed: int):
    from cugraph_match.datasets import read_graph

    edges, _vertices = read_graph(path)  # isolated vertices cannot be matched: not needed
    if "weight" in edges.columns:
        return edges, f"from the file ({edges['weight'].dtype})"
    edges["weight"] = rmat.uniform_weights(len(edges), seed)
    return edges, (f"random float32 U(0,1], seed {seed} "
                   f"(rmat.uniform_weights(#file edges, {seed}), in file order)")


# --------------------------------------------------------------------------
# timing helpers
# --------------------------------------------------------------------------


def _no_sync():
    pass


def timed(fn: Callable[[], Any], repeat: int, sync: Callable[[], None] = _no_sync):
    """One untimed warm-up call, then ``repeat`` timed calls; (times, last result)."""
    result = fn()
    sync()
    times = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        result = fn()
        sync()
        times.append(time.perf_counter() - t0)
    return times, result


def matching_stats(mate: np.ndarray, offsets, indices, weights) -> tuple[float, int]:
    """(total weight summed in float64, number of matched edges) of a mate array."""
    n = offsets.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(offsets))
    hit = indices == mate[rows]  # each matched edge is hit from both ends
    return float(weights[hit].astype(np.float64).sum()) / 2.0, int((mate >= 0).sum()) // 2


def run_record(algorithm: str, times, mate, num_edges, stats, params=None) -> dict:
    best = min(times)
    weight, cardinality = stats
    rec = {
        "algorithm": algorithm,
        "params": params or {},
        "times_s": times,
        "time_s": best,
        "edges_per_s": num_edges / best if best > 0 else None,
        "weight": weight,
        "cardinality": cardinality,
    }
    return rec, mate


# --------------------------------------------------------------------------
# the runs
# --------------------------------------------------------------------------


def our_cpu_runs(pg, keys, repeat, bar, name):
    from cugraph_match.matching.locally_dominant_cpu import locally_dominant_mates
    from cugraph_match.matching.suitor_cpu import mates_from_offers_cpu, suitor_offers

    out = []
    bar.set_postfix_str(f"{name}: suitor-cpu")
    times, mate = timed(lambda: mates_from_offers_cpu(suitor_offers(pg.offsets, pg.indices, keys)),
                        repeat)
    out.append(run_record("suitor-cpu", times, mate, pg.num_edges,
                          matching_stats(mate, pg.offsets, pg.indices, pg.weights)))
    bar.update()

    bar.set_postfix_str(f"{name}: ld-cpu")
    rounds = []
    def ld():
        mate, r = locally_dominant_mates(pg.offsets, pg.indices)
        rounds.append(int(r))
        return mate

    times, mate = timed(ld, repeat)
    out.append(run_record("ld-cpu", times, mate, pg.num_edges,
                          matching_stats(mate, pg.offsets, pg.indices, pg.weights),
                          {"rounds": rounds[-1]}))
    bar.update()
    return out


def our_gpu_runs(edges, args, repeat, bar, name, xp, sync, ref):
    """GPU CSR build (timed) and the GPU kernels; mates are copied to the host."""
    from cugraph_match.matching.locally_dominant_gpu import locally_dominant_mates_gpu
    from cugraph_match.matching.suitor_gpu import suitor_offers_gpu
    from cugraph_match.structure.core import mates_from_offers, prepare_graph, to_backend, weight_keys

    bar.set_postfix_str(f"{name}: GPU CSR")
    sync()
    t0 = time.perf_counter()
    pg = prepare_graph(edges, backend="gpu")
    keys = weight_keys(pg.weights, xp)
    sync()
    build_s = time.perf_counter() - t0
    tpb = args.threads_per_block
    out = []
    for vpw in args.vertices_per_warp:
        bar.set_postfix_str(f"{name}: suitor-gpu vpw={vpw}")
        times, mate = timed(lambda: mates_from_offers(
            suitor_offers_gpu(pg.offsets, pg.indices, keys, xp, vertices_per_warp=vpw,
                              threads_per_block=tpb), xp), repeat, sync)
        mate = to_backend(mate, np)
        out.append(run_record(f"suitor-gpu[vpw={vpw}]", times, mate, ref.num_edges,
                              matching_stats(mate, ref.offsets, ref.indices, ref.weights),
                              {"vertices_per_warp": vpw, "threads_per_block": tpb}))
        bar.update()
    bar.set_postfix_str(f"{name}: ld-gpu")
    rounds = []
    def ld():
        mate, r = locally_dominant_mates_gpu(pg.offsets, pg.indices, xp, threads_per_block=tpb)
        rounds.append(int(r))
        return mate

    times, mate = timed(ld, repeat, sync)
    mate = to_backend(mate, np)
    out.append(run_record("ld-gpu", times, mate, ref.num_edges,
                          matching_stats(mate, ref.offsets, ref.indices, ref.weights),
                          {"threads_per_block": tpb, "rounds": rounds[-1]}))
    bar.update()
    pg = keys = None  # free device memory before the next graph
    return build_s, out


def export_for_networkit(pg, path: Path) -> None:
    n = pg.num_vertices
    rows = np.repeat(np.arange(n, dtype=pg.indices.dtype), np.diff(pg.offsets))
    upper = rows < pg.indices
    np.savez(path, n=np.int64(n), u=rows[upper], v=pg.indices[upper],
             w=pg.weights[upper].astype(np.float64))


def networkit_runs(pool, pg, repeat, bar, name, tmpdir: Path):
    import _nk_worker as W

    path = tmpdir / "graph.npz"
    bar.set_postfix_str(f"{name}: NetworKit graph")
    export_for_networkit(pg, path)
    info = pool.submit(W.load, str(path)).result()
    path.unlink()
    if (info["n"], info["m"]) != (pg.num_vertices, pg.num_edges):
        raise RuntimeError(f"NetworKit graph has n={info['n']}, m={info['m']}; "
                           f"ours n={pg.num_vertices}, m={pg.num_edges}")
    out = []
    bar.set_postfix_str(f"{name}: nk-suitor")
    res = pool.submit(W.run_suitor, False, repeat).result()
    out.append(run_record("nk-suitor", res["times"], res["mate"], pg.num_edges,
                          (res["weight"], res["cardinality"]),
                          {"sortSuitor": False, "checkSortedEdges": False}))
    bar.update()
    bar.set_postfix_str(f"{name}: NetworKit sort")
    sort_s = pool.submit(W.sort_edges).result()
    bar.set_postfix_str(f"{name}: nk-sortsuitor")
    res = pool.submit(W.run_suitor, True, repeat).result()
    out.append(run_record("nk-sortsuitor", res["times"], res["mate"], pg.num_edges,
                          (res["weight"], res["cardinality"]),
                          {"sortSuitor": True, "checkSortedEdges": False,
                           "note": "adjacency pre-sorted by weight (sort_s, not timed here)"}))
    bar.update()
    pool.submit(W.release).result()
    return info["build_s"], sort_s, out


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def compare(records_and_mates, ref_mate):
    """Annotate every run with how it compares to the CPU Suitor matching."""
    ref_weight = None
    for rec, mate in records_and_mates:
        if rec["algorithm"] == "suitor-cpu":
            ref_weight, ref_card = rec["weight"], rec["cardinality"]
    for rec, mate in records_and_mates:
        identical = bool(np.array_equal(mate, ref_mate))
        rec["identical_to_suitor_cpu"] = identical
        rec["weight_rel_diff"] = (rec["weight"] - ref_weight) / ref_weight if ref_weight else 0.0
        rec["weight_equal"] = abs(rec["weight_rel_diff"]) <= 1e-9
        rec["cardinality_equal"] = rec["cardinality"] == ref_card
        if not identical:
            rec["vertices_with_other_mate"] = int((mate != ref_mate).sum())


def add_ratios(runs, nk_sort_s=None):
    """``<nk run>_time_over_this``: NetworKit's time / this run's time (above 1: ours faster).

    ``nk-sort+sortsuitor`` adds the adjacency sort SortSuitor needs, since our
    kernels take the CSR as built (rows sorted by neighbour id, not weight).
    """
    nk = {r["algorithm"]: r["time_s"] for r in runs if r["algorithm"].startswith("nk-")}
    if "nk-sortsuitor" in nk and nk_sort_s is not None:
        nk["nk-sort+sortsuitor"] = nk["nk-sortsuitor"] + nk_sort_s
    for r in runs:
        if r["algorithm"].startswith("nk-"):
            continue
        for key, t in nk.items():
            r[f"{key}_time_over_this"] = t / r["time_s"] if r["time_s"] > 0 else None


def fmt_t(t):
    return "—" if t is None else (f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s")


def fmt_ratio(x):
    return "—" if x is None else f"{x:.2f}×"


def agreement(rec) -> str:
    if rec["identical_to_suitor_cpu"]:
        return "identical" if rec["algorithm"] != "suitor-cpu" else "(reference)"
    if rec["algorithm"].startswith("nk-"):
        same = "equal" if rec["weight_equal"] else f"Δw {rec['weight_rel_diff']:+.2e}"
        card = "equal" if rec["cardinality_equal"] else "differs"
        return f"differs on {rec['vertices_with_other_mate']} vertices (weight {same}, card. {card})"
    return f"**MISMATCH** ({rec['vertices_with_other_mate']} vertices)"


def markdown(report: dict) -> str:
    meta = report["meta"]
    lines = [
        f"# Matching benchmark: {meta['out_name']}",
        "",
        f"- date: {meta['date']}",
        f"- command: `{meta['command']}`",
        f"- CPU: {meta['cpu']['model']}, {meta['cpu']['cores']} cores "
        f"({meta['cpu']['usable_cores']} usable); Numba threads {meta['numba_threads']} "
        f"(layer {meta['numba_threading_layer']}), NetworKit threads {meta['networkit_threads']}",
        f"- GPU: {meta['gpu']['name'] if meta['gpu'] else 'none used'}",
        f"- code: commit {meta['git']['commit']}"
        + (" with uncommitted changes in cugraph_match/" if meta["git"]["package_dirty"] else ""),
        "- versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v),
        f"- timing: min of {meta['repeat']} runs after 1 warm-up; kernels only "
        "(CSR build and NetworKit graph build/sort reported separately); "
        "Suitor = offers kernel + mutual-offer pass, NetworKit = run() + getMatching()",
        f"- weights: {meta['weights_note']}",
        "",
        "## Graphs",
        "",
        "| graph | vertices | undirected edges | weights | distinct weights | CSR build (CPU) "
        "| CSR build (GPU) | NetworKit graph build | NetworKit sort by weight |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for g in report["graphs"]:
        lines.append(
            f"| {g['name']} | {g['num_vertices']:,} | {g['num_edges']:,} | {g['weights_short']} "
            f"| {g['distinct_weights']:,} | {fmt_t(g['build_s'])} | {fmt_t(g.get('build_gpu_s'))} "
            f"| {fmt_t(g.get('nk_build_s'))} | {fmt_t(g.get('nk_sort_s'))} |")
    lines += [
        "",
        "## Runs",
        "",
        "Ratios are NetworKit's time divided by this run's time: above 1× means ours is faster. "
        "\"sort + SortSuitor\" adds NetworKit's adjacency sort by weight (parallel), which "
        "SortSuitor requires and our kernels do not.",
        "",
        "| graph | algorithm | time | M edges/s | weight | cardinality "
        "| NK SortSuitor ÷ this | NK (sort + SortSuitor) ÷ this | NK Suitor ÷ this | vs suitor-cpu |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for g in report["graphs"]:
        for r in g["runs"]:
            eps = r["edges_per_s"]
            lines.append(
                f"| {g['name']} | {r['algorithm']} | {fmt_t(r['time_s'])} "
                f"| {eps / 1e6:.1f} | {r['weight']:.10g} | {r['cardinality']:,} "
                f"| {fmt_ratio(r.get('nk-sortsuitor_time_over_this'))} "
                f"| {fmt_ratio(r.get('nk-sort+sortsuitor_time_over_this'))} "
                f"| {fmt_ratio(r.get('nk-suitor_time_over_this'))} | {agreement(r)} |"
                if eps is not None else
                f"| {g['name']} | {r['algorithm']} | {fmt_t(r['time_s'])} | — | {r['weight']:.10g} "
                f"| {r['cardinality']:,} | — | — | — | {agreement(r)} |")
    slower = report["summary"]["suitor_cpu_slower_than_networkit"]
    mism = report["summary"]["mismatches_among_ours"]
    lines += ["", "## Summary", ""]
    lines.append("- our results all identical to each other: "
                 + ("yes" if not mism else "**no**: " + ", ".join(mism)))
    has_nk = any(r["algorithm"].startswith("nk-") for g in report["graphs"] for r in g["runs"])
    lines.append("- graphs where our CPU Suitor is slower than a NetworKit SuitorMatcher: "
                 + ((", ".join(slower) if slower else "none") if has_nk else "NetworKit not run"))
    nk_diff = report["summary"]["networkit_not_identical"]
    lines.append("- NetworKit matching not identical to ours: "
                 + (", ".join(nk_diff) if nk_diff else "none"))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def start_networkit(threads: int, disabled: bool = False):
    """The NetworKit worker process (see ``_nk_worker.py``) and its setup record;
    ``(None, {...})`` when disabled or NetworKit cannot be imported."""
    setup = {"version": None, "threads": None}
    if disabled:
        return None, setup
    import _nk_worker as W

    pool = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"))
    try:
        return pool, pool.submit(W.setup, threads).result()
    except ImportError as err:
        print(f"warning: NetworKit unusable ({err}); running without it", file=sys.stderr)
        pool.shutdown()
        return None, setup


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba
    from tqdm import tqdm

    import cugraph_match
    from cugraph_match.structure.core import gpu_available, prepare_graph, weight_keys

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    use_gpu = args.gpu == "auto" and gpu_available()
    xp, sync, gpu_info = np, _no_sync, None
    if use_gpu:
        import cupy

        xp = cupy
        sync = cupy.cuda.Device().synchronize
        gpu_info = gpu_description()
    out_name = args.out_name or f"matching_{'gpu' if use_gpu else 'cpu'}_{_dt.date.today().isoformat()}"
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    pool, nk_setup = start_networkit(args.threads, disabled=args.no_networkit)
    specs = graph_specs(args)
    per_graph = 2 + ((len(args.vertices_per_warp) + 1) if use_gpu else 0) + (2 if pool else 0)

    started = time.perf_counter()
    graphs = []
    with tempfile.TemporaryDirectory(prefix="bench_matching_") as tmp, \
            tqdm(total=len(specs) * per_graph, unit="run", disable=args.no_progress,
                 dynamic_ncols=True) as bar:
        tmpdir = Path(tmp)
        for spec in specs:
            bar.set_postfix_str(f"{spec.name}: load")
            t0 = time.perf_counter()
            edges, weights_note = spec.load()
            load_s = time.perf_counter() - t0
            raw_edges = len(edges)

            bar.set_postfix_str(f"{spec.name}: CSR")
            t0 = time.perf_counter()
            pg = prepare_graph(edges, backend="cpu")
            keys = weight_keys(pg.weights, np)
            build_s = time.perf_counter() - t0

            record = {
                "name": spec.name, "kind": spec.kind, "source": spec.source,
                "weights": weights_note,
                "weights_short": "file" if weights_note.startswith("from the file")
                else f"U(0,1] seed {args.seed}",
                "raw_edges": raw_edges, "num_vertices": pg.num_vertices, "num_edges": pg.num_edges,
                "max_degree": int(np.diff(pg.offsets).max()) if pg.num_vertices else 0,
                "distinct_weights": int(np.unique(pg.weights).shape[0]),
                "load_s": load_s, "build_s": build_s,
            }
            runs = our_cpu_runs(pg, keys, args.repeat, bar, spec.name)
            ref_mate = runs[0][1]
            if use_gpu:
                record["build_gpu_s"], gpu_runs = our_gpu_runs(
                    edges, args, args.repeat, bar, spec.name, xp, sync, pg)
                runs += gpu_runs
                xp.get_default_memory_pool().free_all_blocks()
            del edges
            gc.collect()
            if pool is not None:
                record["nk_build_s"], record["nk_sort_s"], nk_runs = networkit_runs(
                    pool, pg, args.repeat, bar, spec.name, tmpdir)
                runs += nk_runs
            compare(runs, ref_mate)
            record["runs"] = [rec for rec, _ in runs]
            add_ratios(record["runs"], record.get("nk_sort_s"))
            graphs.append(record)
            del pg, keys, runs, ref_mate
            gc.collect()
    if pool is not None:
        pool.shutdown()

    mismatches, slower, nk_diff = [], [], []
    for g in graphs:
        for r in g["runs"]:
            if r["algorithm"].startswith("nk-"):
                if not r["identical_to_suitor_cpu"]:
                    nk_diff.append(f"{g['name']} ({r['algorithm']})")
            elif not r["identical_to_suitor_cpu"]:
                mismatches.append(f"{g['name']} ({r['algorithm']})")
        ours = next(r for r in g["runs"] if r["algorithm"] == "suitor-cpu")
        for r in g["runs"]:
            if r["algorithm"].startswith("nk-") and r["time_s"] < ours["time_s"]:
                slower.append(f"{g['name']} ({r['algorithm']} {fmt_t(r['time_s'])} vs "
                              f"ours {fmt_t(ours['time_s'])}: "
                              f"{fmt_ratio(r['time_s'] / ours['time_s'])})")

    command = shlex.join(["python"] + (sys.argv if argv is None
                                       else ["benchmarks/bench_matching.py"] + list(argv)))
    report = {
        "meta": {
            "out_name": out_name,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "command": command,
            "argv": sys.argv if argv is None else list(argv),
            "cwd": os.getcwd(),
            "args": vars(args),
            "cpu": {"model": cpu_model(), "cores": os.cpu_count(),
                    "usable_cores": len(os.sched_getaffinity(0))},
            "platform": platform.platform(),
            "git": git_state(),
            "gpu": gpu_info,
            "numba_threads": numba.get_num_threads(),
            "numba_threading_layer": _threading_layer(numba),
            "networkit_threads": nk_setup["threads"],
            "versions": {
                "python": platform.python_version(),
                "cugraph_match": cugraph_match.__version__,
                "numpy": np.__version__,
                "numba": numba.__version__,
                "numba-cuda": version_of("numba-cuda"),
                "pandas": version_of("pandas"),
                "networkit": nk_setup["version"] or version_of("networkit"),
                "cupy": gpu_info["cupy"] if gpu_info else None,
            },
            "repeat": args.repeat,
            "seed": args.seed,
            "weights_note": (f"pattern graphs (R-MAT, meshes, pattern .mtx files) get float32 "
                             f"weights uniform on (0,1] from seed {args.seed}; "
                             f"files with a weight column keep their own weights"),
            "total_wall_s": time.perf_counter() - started,
        },
        "graphs": graphs,
        "summary": {
            "mismatches_among_ours": mismatches,
            "suitor_cpu_slower_than_networkit": slower,
            "networkit_not_identical": nk_diff,
        },
    }
    json_path = out_dir / f"{out_name}.json"
    md_path = out_dir / f"{out_name}.md"
    json_path.write_text(json.dumps(report, indent=1, default=_json_default) + "\n")
    text = markdown(report)
    md_path.write_text(text)
    print(text)
    print(f"wrote {json_path} and {md_path} ({report['meta']['total_wall_s']:.0f} s)")
    return 1 if mismatches else 0


def _threading_layer(numba) -> str | None:
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        return None


def _json_default(obj):
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    raise TypeError(f"not JSON serialisable: {type(obj)}")


if __name__ == "__main__":
    sys.exit(main())
