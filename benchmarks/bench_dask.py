"""Distributed matching on a LocalCluster against the single-machine CPU call.

For each R-MAT scale: the single-machine ``suitor_matching(frame, backend="cpu")``
in a fresh process (whole call, peak resident memory), then the same frame as a
persisted Dask frame on LocalClusters of 1 and 2 worker processes (1 thread
each): the whole call from the caller's Dask frame to the computed pandas
result, supersteps, bytes moved (build shuffle and supersteps), cut edges
and their bytes, and each worker's peak resident memory during the call.
Both results are checked equal.

    python benchmarks/bench_dask.py --scales 20 22 --workers 1 2 \
        --out benchmarks/results/dask_cpu_2026-11-23
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from rmat import rmat_edges  # noqa: E402

SINGLE = """
import sys, time, json
sys.path.insert(0, {here!r})
from rmat import rmat_edges
import cugraph_match as cm
from cugraph_match.dask.worker import peak_rss_bytes
cm.suitor_matching(rmat_edges(10, seed=1), backend="cpu")  # compile outside the timing
edges = rmat_edges({scale}, seed=1)
peak_rss_bytes(reset=True)
start = time.perf_counter()
m = cm.suitor_matching(edges, backend="cpu")
seconds = time.perf_counter() - start
m.to_parquet({path!r})
print(json.dumps({{"seconds": seconds, "peak_bytes": peak_rss_bytes()}}))
"""


def single_machine(scale: int, path: str) -> dict:
    code = SINGLE.format(here=str(HERE), scale=scale, path=path)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def distributed_call(scale: int, workers: int, edges: pd.DataFrame, expected) -> dict:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    import cugraph_match as cm
    from cugraph_match.dask import worker as w

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        warm = dd.from_pandas(rmat_edges(10, seed=1), npartitions=2)
        cm.suitor_matching(warm).compute()  # compile the kernels in every worker
        frame = client.persist(dd.from_pandas(edges, npartitions=4 * workers))
        wait(frame)
        addresses = sorted(client.nthreads())
        for a in addresses:
            client.submit(w.peak_rss_bytes, True, workers=[a], pure=False).result()
        start = time.perf_counter()
        result, stats = cm.suitor_matching(frame, return_stats=True)
        got = result.compute()
        seconds = time.perf_counter() - start
        peaks = [client.submit(w.peak_rss_bytes, False, workers=[a], pure=False).result()
                 for a in addresses]
        pd.testing.assert_frame_equal(got.astype({"vertex": np.int64}), expected)
    build = stats["build"]
    return {"workers": workers, "seconds": seconds, "rounds": stats["rounds"],
            "superstep_bytes": stats["bytes_moved"], "build_bytes": build["build_bytes_moved"],
            "total_bytes": stats["bytes_moved"] + build["build_bytes_moved"],
            "cut_edges": build["cut_edges"], "cut_edge_bytes": build["cut_edge_bytes"],
            "edges": build["edges"], "messages_per_round": stats["messages_per_round"],
            "peak_bytes_per_worker": peaks, "part_bytes": build["part_bytes"],
            "run_seconds": stats["seconds"]}


def machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), platform.processor())
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {"cpu": model, "cores": os.cpu_count(), "ram_gib": round(ram / 2**30, 1),
            "python": platform.python_version(), "gpu": "none lent in this task"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", type=int, nargs="+", default=[16, 18])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=HERE).stdout.strip()
    report = {"date": datetime.date.today().isoformat(), "machine": machine(),
              "command": "python " + " ".join(sys.argv), "commit": commit,
              "load_average_at_start": os.getloadavg(), "runs": []}
    for scale in args.scales:
        path = f"/tmp/bench_dask_single_{scale}.parquet"
        single = single_machine(scale, path)
        expected = pd.read_parquet(path)
        expected["vertex"] = expected["vertex"].astype(np.int64)
        edges = rmat_edges(scale, seed=1)
        for workers in args.workers:
            run = distributed_call(scale, workers, edges, expected)
            run.update(scale=scale, rows=len(edges), single_seconds=single["seconds"],
                       single_peak_bytes=single["peak_bytes"])
            run["time_ratio"] = run["seconds"] / single["seconds"]
            run["peak_ratio"] = max(run["peak_bytes_per_worker"]) / single["peak_bytes"]
            run["bytes_over_cut"] = run["total_bytes"] / max(run["cut_edge_bytes"], 1)
            report["runs"].append(run)
            print(json.dumps({k: v for k, v in run.items() if k != "messages_per_round"}),
                  flush=True)
    if args.out:
        Path(args.out + ".json").write_text(json.dumps(report, indent=1))
        lines = [f"# Distributed suitor_matching on a LocalCluster ({report['date']})", "",
                 f"Machine: {report['machine']}  ", f"Command: `{report['command']}`  ",
                 f"Commit: {commit}; load average at start {report['load_average_at_start']}",
                 "", "| scale | rows | workers | whole call s | single s | ratio | supersteps | "
                 "cut edges | superstep MB | build MB | total / cut bytes | peak/worker GB | "
                 "single peak GB | peak ratio |", "|" + "---|" * 14]
        for r in report["runs"]:
            lines.append(
                f"| {r['scale']} | {r['rows']:,} | {r['workers']} | {r['seconds']:.2f} | "
                f"{r['single_seconds']:.2f} | {r['time_ratio']:.2f} | {r['rounds']} | "
                f"{r['cut_edges']:,} | {r['superstep_bytes'] / 1e6:.1f} | "
                f"{r['build_bytes'] / 1e6:.1f} | {r['bytes_over_cut']:.2f} | "
                f"{max(r['peak_bytes_per_worker']) / 2**30:.2f} | "
                f"{r['single_peak_bytes'] / 2**30:.2f} | {r['peak_ratio']:.2f} |")
        Path(args.out + ".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
