"""ROMA benchmark: Hovland's complete-graph table reproduced, and sparse graphs
against Suitor and rustworkx's exact matching, in one run.

Complete graphs (``--complete N ...``): for each distribution (uniform on
[0,1), exponential with λ = 3.5, geometric = distances of uniform points in
the unit square) and each n, ``--seeds`` graphs.  Weights are stored as a
float32 matrix, as in the thesis, and rounded to multiples of 2^-20 so that
rustworkx (integer weights only) sees exactly the same weights as ROMA
(k · 2^-20 with k < 2^24 is exact in float32).  Two configurations:

* ``thesis``: the thesis' setting, vertices paired in order, at most 8
  phases, gain threshold 1e-5;
* ``greedy``: the same from the greedy start (``initial="greedy"``).

plus, for geometric graphs, the points variant (weights computed on the
fly from float64 coordinates, no matrix; seed 0 only).  Reported: the whole
call (caller's matrix to returned frame, validation of the matrix
included), the phases (sum of per-phase wall times) and per phase, the
number of phases and flips, the weight, and the gap to the optimum
``1 - w / w_opt`` where rustworkx computes it (``--exact-max-n``).

Sparse graphs (``--sparse``, ``--rmat S ...``): every graph of
``../shared/data/graphs`` and seeded R-MAT graphs, with integer weights
uniform on [1, 2^20] (seed ``--seed``).  Reported: Suitor's and ROMA's
weights and whole-call times, ROMA's phases and flips, and rustworkx's exact
matching (time from the de-duplicated edge arrays, and weight) where it
finishes within ``--exact-timeout`` seconds (it runs in a worker process).

Run from the repository root::

    python benchmarks/bench_roma.py --complete 1024 2048 4096 --seeds 5 --sparse --rmat 16 18 20
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata
import json
import multiprocessing as mp
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit, prange

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
SHARED_GRAPHS = REPO.parent / "shared" / "data" / "graphs"
QUANTUM = 2.0 ** -20  # weights are multiples of this (exact integers for rustworkx)
KINDS = ("uniform", "exponential", "geometric")
#: Hovland (2020), sequential ROMA: gap to the optimum (%) by n (Table 5.4) and
#: time (s, random weights, Table 5.1).
THESIS_GAP = {
    "uniform": {1024: 0.95777, 2048: 0.70153, 4096: 0.50431, 8192: 0.36636, 16384: 0.26686,
                32768: 0.18996},
    "exponential": {1024: 7.38184, 2048: 7.68937, 4096: 8.26674, 8192: 8.47281, 16384: 8.91158,
                    32768: 9.31349},
    "geometric": {1024: 0.00024, 2048: 0.00015, 4096: 0.00012, 8192: 0.00023, 16384: 0.00007},
}
THESIS_TIME = {1024: 0.02996, 2048: 0.12578, 4096: 0.63515, 8192: 2.80525, 16384: 14.08896,
               32768: 62.57684}


def parse_args(argv=None):
    today = _dt.date.today().isoformat()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--complete", type=int, nargs="*", default=[],
                   help="complete-graph sizes n (the thesis: 1024 ... 32768)")
    p.add_argument("--kinds", nargs="*", default=list(KINDS), choices=KINDS)
    p.add_argument("--seeds", type=int, default=5, help="graphs per (distribution, n)")
    p.add_argument("--exact", nargs="*", default=["1024:5"], metavar="N:SEEDS",
                   help="complete graphs whose optimum rustworkx computes: size n and how many "
                        "of its seeds (rustworkx's blossom is cubic: ~25 s at n = 1024 here)")
    p.add_argument("--greedy-geometric-max-n", type=int, default=16384,
                   help="largest geometric n run from the greedy start (Suitor needs ~n²/2 "
                        "proposals there: far-out vertices are everyone's favourites)")
    p.add_argument("--points-n", type=int, nargs="*", default=[],
                   help="extra geometric sizes run from points only (no matrix; seed 0)")
    p.add_argument("--repeat", type=int, default=3,
                   help="sparse graphs: best of this many whole calls")
    p.add_argument("--sparse", action="store_true", help="the shared real graphs")
    p.add_argument("--rmat", type=int, nargs="*", default=[], help="R-MAT scales")
    p.add_argument("--exact-timeout", type=float, default=600.0,
                   help="seconds rustworkx may take per sparse graph")
    p.add_argument("--seed", type=int, default=20261123, help="seed of the sparse weights")
    p.add_argument("--out-name", default=f"roma_cpu_{today}")
    return p.parse_args(argv)


# -- machine -------------------------------------------------------------------


def machine() -> dict:
    def first(path, key):
        try:
            with open(path) as fh:
                for line in fh:
                    if line.startswith(key):
                        return line.split(":", 1)[1].strip()
        except OSError:
            return None
        return None

    mem = first("/proc/meminfo", "MemTotal")
    return {"cpu_model": first("/proc/cpuinfo", "model name") or platform.processor(),
            "cores": os.cpu_count(), "usable_cores": len(os.sched_getaffinity(0)),
            "ram_gib": round(int(mem.split()[0]) / 2**20, 1) if mem else None,
            "platform": platform.platform(), "gpu": "none (no GPU was lent to this task)"}


def git_state() -> dict:
    def git(*cmd):
        return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True,
                              timeout=30).stdout.strip()

    return {"commit": git("rev-parse", "HEAD") or None,
            "package_dirty": bool(git("status", "--porcelain", "--", "cugraph_match"))}


def versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in ("cugraph_match", "numpy", "numba", "pandas", "rustworkx"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


# -- complete graphs ---------------------------------------------------------------


@njit(parallel=True, cache=True)
def _mirror_upper(matrix, tile):
    """matrix[j, i] = matrix[i, j] for i < j, tile by tile; diagonal 0."""
    n = matrix.shape[0]
    tiles = (n + tile - 1) // tile
    for ti in prange(tiles):
        for tj in range(ti, tiles):
            for i in range(ti * tile, min(n, ti * tile + tile)):
                for j in range(max(tj * tile, i + 1), min(n, tj * tile + tile)):
                    matrix[j, i] = matrix[i, j]
        for i in range(ti * tile, min(n, ti * tile + tile)):
            matrix[i, i] = 0


def complete_graph(kind: str, n: int, seed: int):
    """(float32 symmetric matrix of multiples of 2^-20, points or None), built
    in row bands so no n×n float64 temporary exists."""
    rng = np.random.default_rng([seed, n, KINDS.index(kind)])
    matrix = np.empty((n, n), dtype=np.float32)
    points = rng.random((n, 2)) if kind == "geometric" else None
    band = max(1, (1 << 24) // n)
    for i0 in range(0, n, band):
        i1 = min(n, i0 + band)
        if kind == "uniform":
            rows = rng.random((i1 - i0, n))
        elif kind == "exponential":
            rows = rng.exponential(1 / 3.5, (i1 - i0, n))
        else:
            d = points[i0:i1, None, :] - points[None, :, :]
            rows = np.sqrt((d * d).sum(axis=2))
        matrix[i0:i1] = np.round(rows / QUANTUM) * QUANTUM
    _mirror_upper(matrix, 64)
    return matrix, points


def _exact_complete(matrix) -> tuple[float, float]:
    import rustworkx as rx

    n = matrix.shape[0]
    clock = time.perf_counter()
    i, j = np.triu_indices(n, 1)
    k = np.rint(matrix[i, j].astype(np.float64) / QUANTUM).astype(np.int64)
    g = rx.PyGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(list(zip(i.tolist(), j.tolist(), k.tolist())))
    pairs = rx.max_weight_matching(g, weight_fn=lambda w: w)
    seconds = time.perf_counter() - clock
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    return float(matrix[a, b].astype(np.float64).sum()), seconds


def run_roma(graph=None, **kwargs) -> dict:
    import cugraph_match as cm

    clock = time.perf_counter()
    frame, info = cm.roma_matching(graph, backend="cpu", return_info=True, **kwargs)
    total = time.perf_counter() - clock
    return {"total_s": total, "start_s": info.start_seconds,
            "phases_s": float(sum(info.phase_seconds)),
            "per_phase_s": [round(s, 6) for s in info.phase_seconds],
            "phases": info.phases, "flips": info.flips, "converged": info.converged,
            "start_weight": info.start_weight, "weight": info.weight,
            "frame_weight": float(frame["weight"].astype("float64").sum()) / 2}


def bench_complete(args, log) -> list:
    exact_seeds = {int(n): int(k) for n, k in (item.split(":") for item in args.exact)}
    for kind in args.kinds:  # compile / load every specialisation before timing
        matrix, points = complete_graph(kind, 64, 0)
        run_roma(matrix)
        run_roma(matrix, initial="greedy")
        if points is not None:
            run_roma(points=points)
    results = []
    for n in args.complete:
        for kind in args.kinds:
            for seed in range(args.seeds):
                matrix, points = complete_graph(kind, n, seed)
                row = {"kind": kind, "n": n, "seed": seed, "thesis": run_roma(matrix, seed=seed)}
                if kind != "geometric" or n <= args.greedy_geometric_max_n:
                    row["greedy"] = run_roma(matrix, seed=seed, initial="greedy")
                if points is not None and seed == 0:
                    row["points"] = run_roma(points=points, seed=seed)
                if seed < exact_seeds.get(n, 0):
                    row["exact_weight"], row["exact_s"] = _exact_complete(matrix)
                    for config in ("thesis", "greedy"):
                        if config in row:
                            row[config]["gap_pct"] = 100 * (1 - row[config]["weight"]
                                                            / row["exact_weight"])
                results.append(row)
                greedy = row.get("greedy", {})
                log(f"complete {kind} n={n} seed={seed}: thesis "
                    f"{row['thesis']['phases']} phases {row['thesis']['phases_s']:.3f}s "
                    f"w={row['thesis']['weight']:.3f}, greedy start {greedy.get('start_s', 0):.2f}s "
                    f"w={greedy.get('weight', float('nan')):.3f}"
                    + (f", gap {row['thesis']['gap_pct']:.4f}% / "
                       f"{greedy.get('gap_pct', float('nan')):.4f}%"
                       f" (rustworkx {row['exact_s']:.1f}s)" if "exact_s" in row else ""))
                del matrix
    for n in args.points_n:
        rng = np.random.default_rng([0, n, KINDS.index("geometric")])
        row = {"kind": "geometric", "n": n, "seed": 0,
               "points": run_roma(points=rng.random((n, 2)), seed=0)}
        results.append(row)
        log(f"points n={n}: {row['points']['phases']} phases {row['points']['phases_s']:.2f}s "
            f"w={row['points']['weight']:.3f}")
    return results


# -- sparse graphs -------------------------------------------------------------------


def _exact_worker(path, queue):
    import rustworkx as rx

    data = np.load(path)
    lo, hi, w, n = data["lo"], data["hi"], data["w"], int(data["n"])
    clock = time.perf_counter()
    g = rx.PyGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(list(zip(lo.tolist(), hi.tolist(), w.tolist())))
    pairs = rx.max_weight_matching(g, weight_fn=lambda x: x)
    seconds = time.perf_counter() - clock
    weight = sum(g.get_edge_data(a, b) for a, b in pairs)
    queue.put((float(weight), seconds))


def exact_sparse(graph, timeout: float, scratch: Path):
    """rustworkx's optimum of the de-duplicated edges, in a worker process
    (killed after ``timeout`` seconds): (weight, seconds) or (None, None)."""
    e = graph.edges
    path = scratch / "edges.npz"
    np.savez(path, lo=e.lo, hi=e.hi, w=e.w, n=graph.num_vertices)
    queue = mp.get_context("spawn").Queue()
    worker = mp.get_context("spawn").Process(target=_exact_worker, args=(str(path), queue))
    worker.start()
    try:
        return queue.get(timeout=timeout)
    except Exception:  # queue.Empty: too slow
        return None, None
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join()


def sparse_graphs(args):
    from cugraph_match.datasets import read_graph

    if args.sparse:
        for path in sorted(SHARED_GRAPHS.glob("*.mtx")):
            edges, _ = read_graph(path)
            yield path.stem, edges
    for scale in args.rmat:
        from rmat import rmat_edges

        yield f"rmat-{scale}", rmat_edges(scale, seed=scale)[["src", "dst"]]


def bench_sparse(args, log, scratch: Path) -> list:
    import cugraph_match as cm

    results = []
    for name, edges in sparse_graphs(args):
        rng = np.random.default_rng([args.seed, len(edges)])
        edges = edges[["src", "dst"]].copy()
        edges["weight"] = rng.integers(1, 1 << 20, len(edges), endpoint=True)
        if not results:  # compile / load every specialisation before timing
            cm.suitor_matching(edges, backend="cpu")
            run_roma(edges)
        suitor_s = np.inf
        for _ in range(args.repeat):
            clock = time.perf_counter()
            suitor = cm.suitor_matching(edges, backend="cpu")
            suitor_s = min(suitor_s, time.perf_counter() - clock)
        roma = min((run_roma(edges) for _ in range(args.repeat)), key=lambda r: r["total_s"])
        graph = cm.Graph(edges, backend="cpu")
        exact, exact_s = exact_sparse(graph, args.exact_timeout, scratch)
        row = {"graph": name, "vertices": graph.num_vertices, "edges": graph.num_edges,
               "suitor_weight": cm.matching_weight(suitor), "suitor_s": suitor_s, "roma": roma,
               "exact_weight": exact, "exact_s": exact_s}
        if exact:
            row["suitor_gap_pct"] = 100 * (1 - row["suitor_weight"] / exact)
            row["roma_gap_pct"] = 100 * (1 - roma["weight"] / exact)
            row["closed_pct"] = 100 * (roma["weight"] - row["suitor_weight"]) / \
                (exact - row["suitor_weight"])
        results.append(row)
        log(f"sparse {name}: suitor {row['suitor_weight']:.0f} ({suitor_s * 1e3:.1f} ms), roma "
            f"{roma['weight']:.0f} ({roma['total_s'] * 1e3:.1f} ms, {roma['phases']} phases), "
            + (f"exact {exact:.0f} ({exact_s:.2f} s), closed {row['closed_pct']:.1f}%"
               if exact else f"exact: over {args.exact_timeout:.0f} s"))
    return results


# -- report ----------------------------------------------------------------------------


def fmt_s(seconds) -> str:
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def markdown(report: dict) -> str:
    meta = report["meta"]
    m = meta["machine"]
    lines = [f"# ROMA benchmark: {meta['out_name']}", "",
             f"- date: {meta['date']}",
             f"- command: `{meta['command']}`",
             f"- machine: {m['cpu_model']}, {m['cores']} cores ({m['usable_cores']} usable), "
             f"{m['ram_gib']} GiB RAM; load average {meta['load_before']} before, "
             f"{meta['load_after']} after (the machine is shared: times are noisy)",
             f"- GPU: {m['gpu']}; every figure here is the CPU backend (sequential ROMA)",
             f"- code: commit {meta['git']['commit']}"
             + (" with uncommitted changes in cugraph_match/" if meta["git"]["package_dirty"]
                else ""),
             f"- versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()),
             f"- Numba threads: {meta['numba_threads']} (only the matrix check and the "
             f"pipeline run in parallel; the phases are sequential)", ""]
    complete = report["complete"]
    if complete:
        lines += ["## Complete graphs", "",
                  "Means over the seeds.  *call*: the whole `cm.roma_matching(W)` (matrix check, "
                  "start, phases, frame); *start*: building the start matching (pairs, or the "
                  "greedy matching by Suitor); *phases*: the phases alone; *per phase*: phases / "
                  "number of phases.  Gap = 1 − w / w_opt (rustworkx, same weights); the thesis' "
                  "sequential gaps (Table 5.4) and times (Table 5.1, random weights, Xeon 8168, "
                  "C) beside.", "",
                  "| weights | n | seeds | config | call | start | phases | per phase | phases run "
                  "| flips | weight | gap % | thesis gap % | thesis time |",
                  "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for kind in KINDS:
            for n in sorted({r["n"] for r in complete}):
                rows = [r for r in complete if r["kind"] == kind and r["n"] == n]
                if not rows:
                    continue
                for config in ("thesis", "greedy", "points"):
                    runs = [r[config] for r in rows if config in r]
                    if not runs:
                        continue
                    phases = _mean([x["phases"] for x in runs])
                    phase_s = _mean([x["phases_s"] for x in runs])
                    gap = _mean([x.get("gap_pct") for x in runs])
                    lines.append(
                        f"| {kind} | {n} | {len(runs)} | {config} | "
                        f"{fmt_s(_mean([x['total_s'] for x in runs]))} | "
                        f"{fmt_s(_mean([x['start_s'] for x in runs]))} | {fmt_s(phase_s)} | "
                        f"{fmt_s(phase_s / phases if phases else None)} | {phases:.1f} | "
                        f"{_mean([sum(x['flips']) for x in runs]):.0f} | "
                        f"{_mean([x['weight'] for x in runs]):.3f} | "
                        + (f"{gap:.4f} ({sum(1 for x in runs if 'gap_pct' in x)} seeds)"
                           if gap is not None else "—")
                        + f" | {THESIS_GAP.get(kind, {}).get(n, '—')} | "
                        + (f"{THESIS_TIME[n]} s" if kind == "uniform" and config == "thesis"
                           and n in THESIS_TIME else "—") + " |")
        exact = [r for r in complete if r.get("exact_s")]
        if exact:
            lines += ["", "rustworkx's exact matching of the same complete graphs: "
                      + ", ".join(f"n = {n}: {fmt_s(_mean([r['exact_s'] for r in exact if r['n'] == n]))}"
                                  for n in sorted({r["n"] for r in exact}))
                      + " (mean, graph build from the arrays included)."]
        lines.append("")
    sparse = report["sparse"]
    if sparse:
        lines += ["## Sparse graphs", "",
                  "Integer weights uniform on [1, 2^20]; Suitor and ROMA (default: Suitor start, "
                  "≤ 8 phases) timed as whole calls from the pandas edge list (best of "
                  f"{report['meta']['args']['repeat']}); rustworkx's exact "
                  "`max_weight_matching` timed from the de-duplicated edge arrays (graph build "
                  "included).  *closed*: the share of Suitor's gap to the optimum that ROMA "
                  "closes.", "",
                  "| graph | vertices | edges | Suitor weight | Suitor | ROMA weight | ROMA call "
                  "| ROMA phases (s) | phases | optimum | rustworkx | Suitor gap % | ROMA gap % "
                  "| closed % |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in sparse:
            roma = r["roma"]
            lines.append(
                f"| {r['graph']} | {r['vertices']:,} | {r['edges']:,} | {r['suitor_weight']:,.0f} "
                f"| {fmt_s(r['suitor_s'])} | {roma['weight']:,.0f} | {fmt_s(roma['total_s'])} | "
                f"{fmt_s(roma['phases_s'])} | {roma['phases']} | "
                + (f"{r['exact_weight']:,.0f} | {fmt_s(r['exact_s'])} | "
                   f"{r['suitor_gap_pct']:.3f} | {r['roma_gap_pct']:.3f} | {r['closed_pct']:.1f} |"
                   if r["exact_weight"] else
                   f"— | > {report['meta']['args']['exact_timeout']:.0f} s | — | — | — |"))
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> None:
    import numba

    args = parse_args(argv)
    out_dir = REPO / "benchmarks" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = out_dir / f".{args.out_name}.scratch"
    scratch.mkdir(exist_ok=True)
    command = shlex.join(["python"] + (sys.argv if argv is None
                                       else ["benchmarks/bench_roma.py"] + list(argv)))
    load_before = os.getloadavg()

    def log(text):
        print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)

    report = {"meta": {}, "complete": [], "sparse": []}
    report["complete"] = bench_complete(args, log)
    report["sparse"] = bench_sparse(args, log, scratch)
    report["meta"] = {
        "out_name": args.out_name,
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": command, "args": vars(args), "machine": machine(), "git": git_state(),
        "versions": versions(), "numba_threads": numba.get_num_threads(),
        "load_before": [round(x, 1) for x in load_before],
        "load_after": [round(x, 1) for x in os.getloadavg()],
    }
    (out_dir / f"{args.out_name}.json").write_text(json.dumps(report, indent=1))
    (out_dir / f"{args.out_name}.md").write_text(markdown(report))
    for leftover in scratch.iterdir():
        leftover.unlink()
    scratch.rmdir()
    log(f"wrote {out_dir / args.out_name}.json and .md")


if __name__ == "__main__":
    main()
