"""The memory-limited cluster run at scale: ``suitor_matching`` of R-MAT 20 or
22 on 8 worker processes, each limited to its idle resident memory plus a
third of the single-machine call's peak above its own idle memory
(``dask_limited.py``; ``tests/test_dask_memory.py`` is the R-MAT 16 version).

For each scale: the single-machine CPU call in this process (its peak above
idle, the input counted), then the limited cluster; reports each worker's
idle bytes, limit, ``VmHWM``, its peak above idle over its share of the
single call's, Dask's status-change and memory-restart events, whether the
worker pids stayed the same, and whether the result equals the single call's
frame row for row.

    python benchmarks/bench_dask_limited.py --scales 20 22 \
        --out benchmarks/results/dask_limited_cpu_2026-11-25
"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from bench_dask import layout_cell, new_report, report_head  # noqa: E402  (sets sys.path)
from dask_limited import limited_run, single_machine  # noqa: E402
from rmat import rmat_edges  # noqa: E402

MB = 2**20


def run_scale(scale: int, workers: int, share: float, timeout: float) -> dict:
    import cugraph_match as cm

    cm.suitor_matching(rmat_edges(8, seed=1), backend="cpu")  # compiled before measuring
    edges, expected, single, single_seconds = single_machine(lambda: rmat_edges(scale, seed=1))
    try:
        run = limited_run(edges, single, workers=workers, share=share,
                          warm=rmat_edges(8, seed=1), timeout=timeout)
    except TimeoutError as stalled:  # small graphs: Dask's own overhead exceeds the share
        return {"scale": scale, "rows": len(edges), "workers": workers, "share": share,
                "single_peak_over_idle": single, "stalled": str(stalled)}
    got = run.pop("result")
    try:
        pd.testing.assert_frame_equal(got.astype({"vertex": expected["vertex"].dtype}),
                                      expected)
        equal = True
    except AssertionError:
        equal = False
    budget = single * share
    return {
        "scale": scale, "rows": len(edges), "workers": workers, "share": share,
        "single_peak_over_idle": single, "single_seconds": single_seconds,
        "seconds": run["seconds"], "equal": equal, "layout": run.get("layout"),
        "same_pids": run["pids"] == run["pids_after"],
        "events": {a: len(e) for a, e in run["events"].items()},
        "event_details": {a: [str(x) for x in e] for a, e in run["events"].items() if e},
        "idle": run["idle"], "limit": run["limit"], "peak": run["peak"],
        "over_budget": {a: (run["peak"][a] - run["idle"][a]) / budget for a in run["peak"]},
    }


def write(report: dict, out: str) -> None:
    lines = report_head(report, out, "memory-limited suitor_matching")
    lines += ["Each worker limited to its idle resident bytes plus `share` × the single call's "
              "peak above idle (input counted); Dask pauses a worker at its limit and the nanny "
              "kills it at 1.05 × (spilling off). `peak − idle / budget` ≤ 1 means the worker "
              "stayed within its share.", "",
              "| R-MAT | rows | workers | layout | single peak − idle MB | budget per worker MB | "
              "worker peak − idle MB (max) | / budget (max) | equal to one machine | paused "
              "or restarted | same pids | wall s (cluster / single) |",
              "|---|---:|---:|---|---:|---:|---:|---:|---|---:|---|---:|"]
    for r in report["runs"]:
        if "stalled" in r:
            lines.append(f"| {r['scale']} | {r['rows']:,} | {r['workers']} | "
                         f"{r.get('setting', 'auto')} | "
                         f"{r['single_peak_over_idle'] / MB:.0f} | stalled: {r['stalled']} |")
            continue
        over = [(r["peak"][a] - r["idle"][a]) for a in r["peak"]]
        lines.append(
            f"| {r['scale']} | {r['rows']:,} | {r['workers']} | "
            f"{layout_cell({'layout': r.get('setting', 'auto'), 'layout_run': r.get('layout')})} | "
            f"{r['single_peak_over_idle'] / MB:.0f} | "
            f"{r['single_peak_over_idle'] * r['share'] / MB:.0f} | {max(over) / MB:.0f} | "
            f"{max(r['over_budget'].values()):.3f} | {r['equal']} | "
            f"{sum(r['events'].values())} | {r['same_pids']} | "
            f"{r['seconds']:.1f} / {r['single_seconds']:.1f} |")
    lines += ["", "Per worker (idle MB, peak − idle MB, / budget):", ""]
    for r in report["runs"]:
        if "stalled" in r:
            continue
        cells = [f"{r['idle'][a] / MB:.0f}, {(r['peak'][a] - r['idle'][a]) / MB:.0f}, "
                 f"{r['over_budget'][a]:.2f}" for a in sorted(r["peak"])]
        lines.append(f"- R-MAT {r['scale']}: " + "; ".join(cells))
    with open(out + ".md", "w") as fh:
        fh.write("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", type=int, nargs="+", default=[20])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--share", type=float, default=1 / 3)
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds before a stalled (paused) cluster counts as failed")
    parser.add_argument("--layout", default="auto", choices=["auto", "edge", "vertex"],
                        help="the matchings' layout setting (cugraph_match.dask.layout)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    import dask

    report = new_report()
    for scale in args.scales:
        with dask.config.set({"cugraph_match.dask.layout": args.layout}):
            run = run_scale(scale, args.workers, args.share, args.timeout)
        run["setting"] = args.layout
        report["runs"].append(run)
        print(json.dumps(run), flush=True)
    if args.out:
        write(report, args.out)


if __name__ == "__main__":
    main()
