"""Benchmark of the exact assignment, ``cm.assignment``.

Every figure times the whole call from the caller's pandas frame (int64
ids; float64, float32 or int64 weights) to the returned frame, with the
process CPU time beside it (the machine is shared: CPU time is what the call
itself cost), and the kernel alone (``assignment_cpu.solve_sparse`` on a
prepared CSR).  Peers are timed end to end from the same arrays:

* SciPy's ``min_weight_full_bipartite_matching`` (building its CSR matrix from
  the frame's columns included), on random sparse candidates, ``per_left`` per
  left record, one of them from a random permutation so that a perfect
  matching exists, duplicates removed (SciPy would sum them);
* ``lap.lapjv`` and SciPy's ``linear_sum_assignment`` on dense matrices.

Every result's objective value is checked against the peer's.  Peak RSS of
the whole call is measured in a fresh process (``--rss-worker``), per byte of
the input frame.

    python benchmarks/bench_assignment.py --out-name assignment_cpu_2026-11-24
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from _common import (RESULTS_DIR, cpu_model, fmt_t, git_state, log, ram_gib,  # noqa: E402
                     table, version_of)


def candidates(n: int, per_left: int, kind: str, seed: int) -> pd.DataFrame:
    """Random candidate pairs with a hidden perfect matching, no repeated pair."""
    rng = np.random.default_rng(seed)
    left = np.repeat(np.arange(n, dtype=np.int64), per_left)
    right = rng.integers(0, n, left.shape[0]).astype(np.int64)
    right[::per_left] = rng.permutation(n)
    key = left * n + right
    _, first = np.unique(key, return_index=True)
    first.sort()
    left, right = left[first], right[first]
    if kind == "int64":
        weight = rng.integers(1, 1001, left.shape[0]).astype(np.int64)
    else:
        weight = rng.random(left.shape[0])
        weight[weight == 0] = 0.5  # SciPy drops explicit zeros
        weight = weight.astype(np.float32 if kind == "float32" else np.float64)
    return pd.DataFrame({"src": left, "dst": right, "weight": weight})


def clock(fn, repeat: int):
    """Untimed warm-up, then the best of ``repeat`` runs: (wall, cpu, result)."""
    result = fn()
    walls, cpus = [], []
    for _ in range(repeat):
        result = None
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus), result


def clock_once(fn):
    gc.collect()
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - w0, time.process_time() - c0, result


def scipy_sparse(frame: pd.DataFrame, n: int):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    matrix = sp.csr_matrix((frame["weight"].to_numpy(dtype=np.float64),
                            (frame["src"].to_numpy(), frame["dst"].to_numpy())), shape=(n, n))
    rows, cols = min_weight_full_bipartite_matching(matrix)
    return float(matrix[rows, cols].sum())


def kernel_only(frame: pd.DataFrame, n: int):
    """The solver on a prepared CSR (the frame's own ids are 0..n-1 already)."""
    from cugraph_match.bipartite import assignment_cpu as K

    weight = frame["weight"].to_numpy()
    costs = weight.astype(np.float64) if weight.dtype.kind == "f" else weight.astype(np.int64)
    inf = np.inf if costs.dtype.kind == "f" else np.int64(2**62)
    indptr, indices, cost, _ = K.rows_from_pairs(frame["src"].to_numpy(),
                                                frame["dst"].to_numpy(), costs, n, n)
    w0, c0 = time.perf_counter(), time.process_time()
    col4row, bad = K.solve_sparse(indptr, indices, cost, n, n, K.PERFECT, inf)
    assert bad < 0
    return time.perf_counter() - w0, time.process_time() - c0


def scipy_in_child(n: int, per_left: int, kind: str, seed: int, timeout: int) -> dict:
    """SciPy on the big instance in a child process, killed after ``timeout``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--scipy-worker",
           json.dumps({"n": n, "per_left": per_left, "kind": kind, "seed": seed})]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {timeout} s", "wall_s": None}
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1:], "wall_s": None}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_wall_s"] = time.perf_counter() - t0
    return out


def rss_in_child(n: int, per_left: int, kind: str, seed: int) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--rss-worker",
           json.dumps({"n": n, "per_left": per_left, "kind": kind, "seed": seed})]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def worker(mode: str, task: dict) -> None:
    frame = candidates(task["n"], task["per_left"], task["kind"], task["seed"])
    if mode == "scipy":
        w0, c0 = time.perf_counter(), time.process_time()
        value = scipy_sparse(frame, task["n"])
        print(json.dumps({"wall_s": time.perf_counter() - w0,
                          "cpu_s": time.process_time() - c0, "value": value}))
        return
    import ctypes

    import cugraph_match as cm

    cm.assignment(candidates(50, 3, task["kind"], 1), perfect=True, backend="cpu")  # compile
    input_bytes = int(frame.memory_usage(deep=True).sum())
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    base = _status_kib("VmRSS")
    result = cm.assignment(frame, perfect=True, backend="cpu")
    peak = (_status_kib("VmHWM") - base) * 1024
    print(json.dumps({"peak_bytes": peak, "input_bytes": input_bytes,
                      "per_input_byte": peak / input_bytes, "rows": len(result)}))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sparse", type=int, nargs="*", default=[100_000])
    p.add_argument("--large", type=int, default=1_000_000,
                   help="the large sparse instance (0: skip)")
    p.add_argument("--per-left", type=int, default=10)
    p.add_argument("--dense", type=int, nargs="*", default=[5000])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--scipy-timeout", type=int, default=120,
                   help="seconds SciPy gets on the large instance (in a child process)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out-name", default=None)
    p.add_argument("--append", action="store_true",
                   help="keep the sections of an existing result file of that name that "
                        "this run does not measure (to split the run into commands)")
    p.add_argument("--scipy-worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--rss-worker", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.scipy_worker:
        worker("scipy", json.loads(args.scipy_worker))
        return 0
    if args.rss_worker:
        worker("rss", json.loads(args.rss_worker))
        return 0

    import numba
    from scipy.optimize import linear_sum_assignment

    import cugraph_match as cm

    load_start = [round(x, 2) for x in os.getloadavg()]
    started = time.perf_counter()
    records = {"sparse": [], "large": [], "dense": [], "rss": []}
    for n in args.sparse:
        for kind in ("float64", "float32", "int64"):
            frame = candidates(n, args.per_left, kind, args.seed)
            log(f"sparse n={n} {kind}: {len(frame)} candidate pairs")
            wall, cpu, result = clock(lambda: cm.assignment(frame, perfect=True, backend="cpu"),
                                      args.repeat)
            ours = float(result["weight"].astype(np.float64).sum())
            wall_mc, cpu_mc, result_mc = clock_once(lambda: cm.assignment(frame, backend="cpu"))
            wall_mw, cpu_mw, result_mw = clock_once(
                lambda: cm.assignment(frame, maximize=True, backend="cpu"))
            k_wall, k_cpu = kernel_only(frame, n)
            s_wall, s_cpu, scipy_value = clock_once(lambda: scipy_sparse(frame, n))
            rec = {"n": n, "pairs": len(frame), "weights": kind, "ours_wall_s": wall,
                   "ours_cpu_s": cpu, "kernel_wall_s": k_wall, "kernel_cpu_s": k_cpu,
                   "min_card_wall_s": wall_mc, "min_card_cpu_s": cpu_mc,
                   "max_weight_wall_s": wall_mw, "max_weight_cpu_s": cpu_mw,
                   "max_weight_pairs": len(result_mw),
                   "max_weight_value": float(result_mw["weight"].astype(np.float64).sum()),
                   "scipy_wall_s": s_wall, "scipy_cpu_s": s_cpu, "value": ours,
                   "scipy_value": scipy_value,
                   "values_agree": bool(np.isclose(ours, scipy_value, rtol=1e-9, atol=0)
                                        and np.isclose(float(result_mc["weight"].astype(
                                            np.float64).sum()), scipy_value, rtol=1e-9))}
            log(f"  ours {wall:.3f} s (cpu {cpu:.3f}), scipy {s_wall:.3f} s (cpu {s_cpu:.3f}), "
                f"agree {rec['values_agree']}")
            records["sparse"].append(rec)
        records["rss"].append({"n": n, "weights": "float64",
                               **rss_in_child(n, args.per_left, "float64", args.seed)})
    if args.large:
        n = args.large
        frame = candidates(n, args.per_left, "float64", args.seed)
        log(f"large n={n}: {len(frame)} candidate pairs")
        wall, cpu, result = clock_once(lambda: cm.assignment(frame, perfect=True, backend="cpu"))
        ours = float(result["weight"].sum())
        del frame, result
        gc.collect()
        log(f"  ours {wall:.1f} s (cpu {cpu:.1f}); SciPy in a child, {args.scipy_timeout} s")
        scipy = scipy_in_child(n, args.per_left, "float64", args.seed, args.scipy_timeout)
        records["large"].append({"n": n, "pairs": n * args.per_left, "weights": "float64",
                                 "ours_wall_s": wall, "ours_cpu_s": cpu, "value": ours,
                                 "scipy": scipy})
    for n in args.dense:
        import lap

        rng = np.random.default_rng(args.seed)
        for kind in ("float64", "int64"):
            matrix = rng.random((n, n)) if kind == "float64" else rng.integers(0, 1000, (n, n))
            log(f"dense {n} x {n} {kind}")
            wall, cpu, (rows, cols) = clock(lambda: cm.assignment(matrix, backend="cpu"),
                                            args.repeat)
            ours = float(matrix[rows, cols].sum())
            l_wall, l_cpu, lap_out = clock(lambda: lap.lapjv(matrix.astype(np.float64)),
                                           args.repeat)
            s_wall, s_cpu, (r, c) = clock(lambda: linear_sum_assignment(matrix), 1)
            rec = {"n": n, "weights": kind, "ours_wall_s": wall, "ours_cpu_s": cpu,
                   "lap_wall_s": l_wall, "lap_cpu_s": l_cpu, "scipy_wall_s": s_wall,
                   "scipy_cpu_s": s_cpu, "value": ours, "lap_value": float(lap_out[0]),
                   "scipy_value": float(matrix[r, c].sum())}
            rec["values_agree"] = bool(np.isclose(ours, rec["lap_value"], rtol=1e-9)
                                       and np.isclose(ours, rec["scipy_value"], rtol=1e-9))
            log(f"  ours {wall:.3f} s (cpu {cpu:.3f}), lap {l_wall:.3f} s (cpu {l_cpu:.3f}), "
                f"scipy {s_wall:.3f} s")
            records["dense"].append(rec)

    meta = {
        "date": time.strftime("%Y-%m-%d"), "run_at_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                       time.gmtime()),
        "command": "python benchmarks/bench_assignment.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "machine": {"cpu_model": cpu_model(), "cores": os.cpu_count(), "ram_gib": ram_gib(),
                    "loadavg_at_start": load_start,
                    "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]},
        "git": git_state(), "numba_threads": numba.get_num_threads(),
        "versions": {d: version_of(d) for d in ("numpy", "pandas", "numba", "scipy", "lap")},
        "repeat": args.repeat, "total_wall_s": time.perf_counter() - started,
    }
    out = args.out_name or f"assignment_cpu_{meta['date']}"
    RESULTS_DIR.mkdir(exist_ok=True)
    report = {"meta": meta, **records}
    previous = RESULTS_DIR / f"{out}.json"
    if args.append and previous.exists():
        old = json.loads(previous.read_text())
        for section in records:
            if not records[section]:
                report[section] = old.get(section, [])
        report["meta"] = {**meta, "earlier_runs": old["meta"].get("earlier_runs", [])
                          + [{k: old["meta"][k] for k in ("command", "run_at_utc", "machine",
                                                         "total_wall_s")}]}
    text = markdown(report)
    (RESULTS_DIR / f"{out}.json").write_text(json.dumps(report, indent=1) + "\n")
    (RESULTS_DIR / f"{out}.md").write_text(text)
    print(text)
    return 0


def markdown(report: dict) -> str:
    m = report["meta"]
    mc = m["machine"]
    lines = [f"# Exact assignment benchmark: {m['date']}", "",
             f"- command: `{m['command']}` (run at {m['run_at_utc']})",
             f"- machine: {mc['cpu_model']}, {mc['cores']} cores, {mc['ram_gib']} GiB, SHARED "
             f"with other engineers' jobs: load average (1, 5, 15 min) {mc['loadavg_at_start']} "
             f"at the start, {mc['loadavg_at_end']} at the end; wall times are inflated by "
             f"the load, the CPU times (process time of the call) are what the call cost",
             f"- code: commit {m['git']['commit']}"
             + (" (uncommitted changes in cugraph_match/)" if m["git"]["package_dirty"] else ""),
             f"- Numba threads: {m['numba_threads']} (the solver is sequential); versions: "
             + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v),
             f"- timing: best of {m['repeat']} after a warm-up (ours, lap); SciPy once; the "
             f"whole run took {m['total_wall_s']:.0f} s",
             *[f"- also: `{e['command']}` (run at {e['run_at_utc']}, load "
               f"{e['machine']['loadavg_at_start']} to {e['machine']['loadavg_at_end']}, "
               f"{e['total_wall_s']:.0f} s)" for e in m.get("earlier_runs", [])],
             "- GPU: none on this machine; the GPU kernels ran only in Numba's simulator", "",
             "## Sparse candidates, perfect assignment (`perfect=True`, minimise)", "",
             "Whole call from the pandas frame; SciPy's `min_weight_full_bipartite_matching` "
             "including building its CSR matrix from the same columns.", ""]
    rows = []
    for r in report["sparse"]:
        rows.append([f"{r['n']:,} × {r['n']:,}", f"{r['pairs']:,}", r["weights"],
                     fmt_t(r["ours_wall_s"]), fmt_t(r["ours_cpu_s"]), fmt_t(r["kernel_cpu_s"]),
                     fmt_t(r["scipy_wall_s"]), fmt_t(r["scipy_cpu_s"]),
                     f"{r['scipy_wall_s'] / r['ours_wall_s']:.1f}×",
                     f"{r['scipy_cpu_s'] / r['ours_cpu_s']:.1f}×", "yes" if r["values_agree"]
                     else "NO"])
    lines += table(["size", "pairs", "weights", "ours wall", "ours CPU", "kernel CPU",
                    "SciPy wall", "SciPy CPU", "SciPy ÷ ours (wall)", "SciPy ÷ ours (CPU)",
                    "same optimum"], rows)
    lines += ["", "The same instances with unmatched records allowed (ours only; a perfect "
              "matching exists, so the optimum is the same):", ""]
    rows = [[f"{r['n']:,}", r["weights"], fmt_t(r["min_card_wall_s"]), fmt_t(r["min_card_cpu_s"]),
             fmt_t(r["max_weight_wall_s"]), fmt_t(r["max_weight_cpu_s"]),
             f"{r['max_weight_pairs']:,}"] for r in report["sparse"]]
    lines += table(["n", "weights", "`maximize=False` wall", "CPU", "`maximize=True` wall",
                    "CPU", "pairs linked (max weight)"], rows)
    for r in report["rss"]:
        if "error" in r:
            lines += ["", f"Peak RSS (n = {r['n']:,}): failed: {r['error']}"]
        else:
            lines += ["", f"Peak RSS of the whole call (n = {r['n']:,}, float64, fresh "
                      f"process): {r['peak_bytes'] / 2**20:.0f} MiB over a "
                      f"{r['input_bytes'] / 2**20:.0f} MiB frame, "
                      f"{r['per_input_byte']:.2f} bytes per input byte."]
    for r in report["large"]:
        s = r["scipy"]
        scipy_text = (f"SciPy {fmt_t(s['wall_s'])} (CPU {fmt_t(s['cpu_s'])}), value "
                      f"{s['value']:.6f}" if s.get("wall_s") else f"SciPy: {s['error']}")
        lines += ["", f"## Large: {r['n']:,} × {r['n']:,}, {r['pairs']:,} candidates "
                  f"(float64)", "",
                  f"Ours: whole call {fmt_t(r['ours_wall_s'])} (CPU {fmt_t(r['ours_cpu_s'])}), "
                  f"value {r['value']:.6f}. {scipy_text}."]
    lines += ["", "## Dense matrices (`linear_sum_assignment` semantics)", ""]
    rows = [[f"{r['n']:,} × {r['n']:,}", r["weights"], fmt_t(r["ours_wall_s"]),
             fmt_t(r["ours_cpu_s"]), fmt_t(r["lap_wall_s"]), fmt_t(r["lap_cpu_s"]),
             fmt_t(r["scipy_wall_s"]), fmt_t(r["scipy_cpu_s"]),
             f"{r['ours_cpu_s'] / r['lap_cpu_s']:.2f}×",
             "yes" if r["values_agree"] else "NO"] for r in report["dense"]]
    lines += table(["size", "weights", "ours wall", "ours CPU", "lap.lapjv wall", "lap CPU",
                    "SciPy wall", "SciPy CPU", "ours ÷ lap (CPU)", "same optimum"], rows)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
