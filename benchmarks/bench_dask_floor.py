"""The CPU floor of any layout of the distributed matching on Dask, beside the
layout we have, measured in one run.

The floor: on a LocalCluster of p worker processes (1 thread each) holding the
input as :func:`bench_dask.placed_frame` places it (1/p of the rows each),
every worker runs the single-machine ``suitor_matching(frame, backend="cpu")``
on the rows it already holds.  Nothing moves between the workers and no
superstep runs, so the answer is not the graph's matching: this is about
the work that a layout handling each edge once (edges split among the
workers, no duplicated cut edges) cannot avoid, with each worker paying one machine's cost
per edge and Dask's per-process background, and nothing for the messages such
a layout would add.  The issue's target (the workers' CPU seconds summed
<= 1.5x the single call's at p = 2 and 4) can be met by a layout only if its
floor is well under 1.5x.

In the same cluster, alternating with the floor, the real call
(``cm.suitor_matching(dask_frame)`` to the persisted result, checked equal
to the single call's frame) is measured the same way: the workers' CPU
seconds summed over the call.  The single call runs in fresh processes, as
in ``bench_dask.py``.

    python benchmarks/bench_dask_floor.py --graphs rmat20:int64 rmat20 --workers 2 4 \
        --repeat 3 --out benchmarks/results/dask_floor_cpu_2026-11-29
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_dask as B


def single_machine_call(*parts) -> int:
    """On a worker: one machine's call on the rows this worker holds."""
    import cugraph_match as cm

    frame = pd.concat(parts, ignore_index=True)
    return len(cm.suitor_matching(frame, backend="cpu"))


def worker_seconds(client) -> tuple[float, float]:
    """The workers' CPU and user seconds so far, summed."""
    cpu = sum(B.on_workers(client, B.cpu_seconds))
    user = sum(B.on_workers(client, B.user_seconds))
    return cpu, user


def measured(client, run) -> dict:
    """The workers' CPU and user seconds, summed, and the wall seconds of ``run()``."""
    cpu, user = worker_seconds(client)
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    cpu_after, user_after = worker_seconds(client)
    return {"cpu": cpu_after - cpu, "user": user_after - user, "seconds": seconds}


def on_cluster(spec: str, workers: int, edges: pd.DataFrame, expected: pd.DataFrame,
               repeat: int) -> dict:
    from distributed import Client, LocalCluster, wait

    import cugraph_match as cm

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        addresses = sorted(client.nthreads())
        for small in B.warm_up_graphs(spec):  # compile both calls in every worker
            client.run(single_machine_call, B.make_graph(small))
        B.warm_up(client, spec, workers)
        frame = B.placed_frame(client, edges, workers)
        wait(frame)
        # the partitions each worker holds (placed_frame puts partition i on
        # worker i mod p)
        held = frame.to_delayed()

        def floor():
            wait([client.submit(single_machine_call, *client.compute(held[k::workers]),
                                workers=[addresses[k]], pure=False)
                  for k in range(workers)])

        def layout():
            result = cm.suitor_matching(frame, backend="cpu").persist()
            wait(result)
            got = result.compute()
            pd.testing.assert_frame_equal(got.astype({"vertex": expected["vertex"].dtype}),
                                          expected)

        rows = {"floor": [], "layout": []}
        for _ in range(repeat):
            rows["floor"].append(measured(client, floor))
            rows["layout"].append(measured(client, layout))
        quiet = worker_seconds(client)[0]
        time.sleep(B.IDLE_SECONDS)
        background = (worker_seconds(client)[0] - quiet) / B.IDLE_SECONDS
    return {"graph": spec, "workers": workers, "rows": len(edges), **rows,
            "background_cpu_per_second": background}


def median(runs: list[dict], key: str) -> float:
    return float(np.median([r[key] for r in runs]))


def write(report: dict, out: str) -> None:
    lines = B.report_head(report, out, "suitor_matching, its CPU floor,") + [
             ("Workers' CPU seconds summed (user + system), medians of the repeats (each listed "
             "in the JSON). *Floor*: each worker runs one machine's call on the rows it holds "
             "(1/p of them), nothing moved, no superstep (not the matching: about the least "
             "work any layout does). *Layout*: the real call to its persisted result, checked "
             "equal to the single call's. The single call: fresh processes. The layout's "
             "column includes the check's `.compute()` of the result."), "",
             ("| graph | rows | p | single CPU s | floor CPU s | floor / single | layout CPU s | "
             "layout / single | floor user / single user | layout user / single user | "
             "background CPU per s |"),
             "|" + "---|" * 11]
    for r in report["runs"]:
        s = r["single"]
        lines.append(
            f"| {r['graph']} | {r['rows']:,} | {r['workers']} | {s['cpu']:.2f} | "
            f"{median(r['floor'], 'cpu'):.2f} | {median(r['floor'], 'cpu') / s['cpu']:.2f} | "
            f"{median(r['layout'], 'cpu'):.2f} | {median(r['layout'], 'cpu') / s['cpu']:.2f} | "
            f"{median(r['floor'], 'user') / s['user']:.2f} | "
            f"{median(r['layout'], 'user') / s['user']:.2f} | "
            f"{r['background_cpu_per_second']:.3f} |")
    Path(out + ".md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphs", nargs="+", default=["rmat16:int64"])
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    report = B.new_report()
    for spec in args.graphs:
        path = f"/tmp/bench_dask_floor_single_{spec}.parquet"
        single = B.median_single([B.single_machine(spec, path) for _ in range(args.repeat)])
        expected = pd.read_parquet(path)
        edges = B.make_graph(spec)
        for workers in args.workers:
            run = on_cluster(spec, workers, edges, expected, args.repeat)
            run["single"] = single
            report["runs"].append(run)
            print(json.dumps({"graph": spec, "workers": workers, "single": single["cpu"],
                              "floor": [round(r["cpu"], 2) for r in run["floor"]],
                              "layout": [round(r["cpu"], 2) for r in run["layout"]]}),
                  flush=True)
    if args.out:
        write(report, args.out)


if __name__ == "__main__":
    main()
