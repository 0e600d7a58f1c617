"""Two values of one of the client's settings of the distributed build or
rounds, alternating call by call on one LocalCluster: the workers' CPU per
call, split into task threads and event loops.

The client alone reads these settings, so one cluster serves both values:
the calls alternate (A B, B A, A B, ...) and each value's median is taken
over the same cluster, its placement and its state, which a fresh cluster
per value (``bench_dask.py``) does not hold still on these VMs (one value's
three clusters spread by 10-20 %).

``--setting groups``: ``dask.graph.GROUPS_PER_WORKER``, the groups a
worker's input partitions are read in (a summary, a route, and per owner a
take and an absorb per group).  ``--setting whole``:
``dask.matching.WHOLE_STEP_BYTES``, the vertex layout's limit under which a
superstep sends each worker the others' whole steps instead of a block task
per pair of workers (0: blocks always).

Each call is ``suitor_matching`` of the frame ``bench_dask.placed_frame``
places (``--partitions-per-worker`` each), its result checked equal to the
single machine's after the measure; the tasks are counted from Dask's task
stream.

    python benchmarks/dask_ab.py --graph mesh2048 --workers 2 4 8 --setting groups \
        --values 1 4 --repeat 6 --out benchmarks/results/dask_ab_groups_mesh_cpu_2026-11-30
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_dask as B  # noqa: E402  (puts this checkout first on the paths)
from bench_dask_calls import by_group, thread_seconds  # noqa: E402

#: --setting: the module and the name of the client's setting.
SETTINGS = {"groups": ("cugraph_match.dask.graph", "GROUPS_PER_WORKER"),
            "whole": ("cugraph_match.dask.matching", "WHOLE_STEP_BYTES")}


def alternating_calls(spec: str, workers: int, setting: str, values: list, repeat: int,
                      per_worker: int, edges: pd.DataFrame, expected: pd.DataFrame) -> list:
    import importlib

    from distributed import Client, LocalCluster, get_task_stream, wait

    import cugraph_match as cm

    module, name = SETTINGS[setting]
    module = importlib.import_module(module)
    kept = getattr(module, name)
    runs = []
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        frame = B.warmed_frame(client, spec, edges, workers, per_worker)
        try:
            for call in range(repeat):
                for value in values if call % 2 == 0 else values[::-1]:
                    setattr(module, name, value)
                    with get_task_stream(client) as stream:
                        before, start = client.run(thread_seconds), time.perf_counter()
                        result = cm.suitor_matching(frame, backend="cpu").persist()
                        wait(result)
                        seconds = time.perf_counter() - start
                        after = client.run(thread_seconds)
                    tasks = len(stream.data)
                    got = result.compute()
                    pd.testing.assert_frame_equal(
                        got.astype({"vertex": expected["vertex"].dtype}), expected)
                    del result, got
                    runs.append({"graph": spec, "workers": workers, "value": value,
                                 "seconds": seconds, "tasks": tasks,
                                 **by_group(before, after)})
        finally:
            setattr(module, name, kept)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", default="mesh2048")
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="groups")
    parser.add_argument("--values", type=int, nargs=2, default=[1, 4])
    parser.add_argument("--repeat", type=int, default=6, help="calls per value and cluster")
    parser.add_argument("--partitions-per-worker", type=int, default=4)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    import cugraph_match as cm

    edges = B.make_graph(args.graph) if args.graph.startswith("mesh") else \
        B.with_dtypes(B.make_graph(args.graph), "int64")
    expected = cm.suitor_matching(edges, backend="cpu")
    report = B.new_report()
    report.update(setting=args.setting, name=SETTINGS[args.setting], values=args.values)
    for p in args.workers:
        report["runs"] += alternating_calls(args.graph, p, args.setting, args.values,
                                            args.repeat, args.partitions_per_worker, edges,
                                            expected)
        for line in summary_lines(report)[-len(args.values):]:
            print(line, flush=True)
    if args.out:
        lines = B.report_head(report, args.out, f"build settings A/B ({args.setting})")
        Path(args.out + ".md").write_text("\n".join(lines + table(report)) + "\n")


def cpu(run: dict, group: str | None = None) -> float:
    groups = [group] if group else ["task", "loop", "other"]
    return sum(run[g]["user"] + run[g]["sys"] for g in groups)


def summary_lines(report: dict) -> list[str]:
    lines = []
    keys = sorted({(r["graph"], r["workers"]) for r in report["runs"]}, key=lambda k: k[1])
    for graph, p in keys:
        for value in report["values"]:
            runs = [r for r in report["runs"] if (r["graph"], r["workers"], r["value"]) ==
                    (graph, p, value)]
            med = statistics.median
            lines.append(
                f"| {graph} | {p} | {value} | {len(runs)} | {med(r['tasks'] for r in runs):.0f} "
                f"| {med(cpu(r) for r in runs):.2f} | {med(cpu(r, 'task') for r in runs):.2f} "
                f"| {med(cpu(r, 'loop') for r in runs):.2f} "
                f"| {med(r['seconds'] for r in runs):.2f} "
                f"| {' / '.join(f'{cpu(r):.2f}' for r in runs)} |")
    return lines


def table(report: dict) -> list[str]:
    module, name = report["name"]
    return [f"`{module}.{name}` at {report['values'][0]} and {report['values'][1]}, alternating "
            "call by call on one cluster per worker count; medians over the calls; every "
            "result equal to the single call's. CPU s: the workers' user + system seconds over "
            "the call, summed (task threads, event loops: the main threads, and the rest).", "",
            "| graph | p | value | calls | tasks | workers' CPU s | task threads | event loops "
            "| wall s | each call's CPU s |",
            "|---|---|---|---|---|---|---|---|---|---|", *summary_lines(report)]


if __name__ == "__main__":
    main()
