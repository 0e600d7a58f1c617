"""Consecutive distributed ``suitor_matching`` calls on one LocalCluster against
consecutive single-machine calls in one process, the workers' CPU split by
thread, under glibc's settings as Dask leaves them or settings that keep
freed memory in the process.

``bench_dask.py`` times one call per fresh cluster.  A notebook calls again
on the cluster it has, and on these VMs a call's system time is mostly the
kernel handing out fresh pages (``bench_dask.user_seconds``): how much a call
pays for them depends on whether the process kept the memory its last call
freed.  glibc maps every allocation over its threshold afresh and unmaps it
when freed (Dask's Nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``,
which also pins that threshold at 128 KiB), and a worker's task thread
allocates from a thread arena whose heaps hold at most 64 MiB, so a larger
array is mapped afresh whatever the threshold.  ``--malloc keep`` starts the
single process and the workers with ``MALLOC_ARENA_MAX=1`` (every thread on
the main heap), ``MALLOC_MMAP_THRESHOLD_`` 1 GiB, ``MALLOC_TRIM_THRESHOLD_``
16 GiB and ``MALLOC_TOP_PAD_`` 256 MiB: freed memory stays in the process for
the next call (and the process's resident memory stays at its peak).

For each graph (``bench_dask.make_graph`` specs, pandas' int64 / float64 by
default): the single process's calls, then, for each worker count, a cluster
of that many 1-thread worker processes holding the frame as
``bench_dask.placed_frame`` places it, and the same number of calls; each
distributed result is computed after its call (outside the measure) and
checked equal to the single call's.  Per call: wall seconds, user and
system CPU seconds of the single process, and of the workers' task threads,
event loops (``MainThread``: Dask's messages, transfers, heartbeats) and
other threads, summed over the workers.

    python benchmarks/bench_dask_calls.py --graphs rmat20 rmat22 --workers 2 4 \
        --calls 3 --malloc default keep --out benchmarks/results/dask_calls_cpu_2026-11-30

``--profiler on off`` runs each cluster twice, with Dask's sampling profiler
in the workers (the default) and without (``distributed.worker.profile.enabled``:
every 10 ms the event loop reads the running task's stack).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_dask as B  # noqa: E402  (puts this checkout first on the paths)

#: The glibc settings of ``--malloc keep`` (see the module notes).
KEEP = {"MALLOC_ARENA_MAX": "1", "MALLOC_MMAP_THRESHOLD_": str(2**30),
        "MALLOC_TRIM_THRESHOLD_": str(2**34), "MALLOC_TOP_PAD_": str(2**28)}

SINGLE = """
import sys, time, json, resource
sys.path.insert(0, {here!r})
import bench_dask as B
import cugraph_match as cm
assert cm.__file__.startswith({root!r}), cm.__file__
for small in B.warm_up_graphs({spec!r}):  # compile outside the measure
    cm.suitor_matching(B.make_graph(small), backend="cpu")
B.compile_radix_paths()
edges = B.make_graph({spec!r})
for call in range({calls}):
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    result = cm.suitor_matching(edges, backend="cpu")
    seconds, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
    if call == 0:
        result.to_parquet({path!r})
    del result
    print(json.dumps({{"seconds": seconds, "user": after.ru_utime - before.ru_utime,
                      "sys": after.ru_stime - before.ru_stime}}), flush=True)
"""


def single_calls(spec: str, calls: int, malloc: dict, path: str) -> list[dict]:
    code = SINGLE.format(here=str(HERE), root=str(B.ROOT), spec=spec, calls=calls, path=path)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={**B.START_ENVIRONMENT, **malloc})
    return [json.loads(line) for line in out.stdout.strip().splitlines()[-calls:]]


def thread_seconds() -> dict:
    """On a worker: user and system CPU seconds of each of its threads so
    far, by thread id, with the thread's group (``task``: Dask's task
    threads, ``loop``: the main thread, which runs the event loop, ``other``)."""
    import threading

    names = {t.native_id: t.name for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            stat = Path(f"/proc/self/task/{tid}/stat").read_text()
        except OSError:  # the thread ended
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        name = names.get(int(tid), "")
        group = "task" if "Dask-Default-Threads" in name else \
            "loop" if name == "MainThread" else "other"
        seconds[int(tid)] = (group, int(fields[11]) / tick, int(fields[12]) / tick)
    return seconds


def by_group(before: dict, after: dict) -> dict:
    """Each group's user and system seconds between two :func:`thread_seconds`
    of every worker, summed over the workers."""
    total = {g: {"user": 0.0, "sys": 0.0} for g in ("task", "loop", "other")}
    for worker, threads in after.items():
        for tid, (group, user, system) in threads.items():
            _, user0, system0 = before.get(worker, {}).get(tid, (group, 0.0, 0.0))
            total[group]["user"] += user - user0
            total[group]["sys"] += system - system0
    return total


def cluster_calls(spec: str, workers: int, calls: int, malloc: dict,
                  edges: pd.DataFrame, expected: pd.DataFrame,
                  profiler: bool = True) -> list[dict]:
    import dask
    from distributed import Client, LocalCluster, wait

    import cugraph_match as cm

    environ = {**dask.config.get("distributed.nanny.pre-spawn-environ"), **malloc}
    with dask.config.set({"distributed.nanny.pre-spawn-environ": environ,
                          "distributed.worker.profile.enabled": profiler}), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                         dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        frame = B.warmed_frame(client, spec, edges, workers)
        runs = []
        for _ in range(calls):
            before, start = client.run(thread_seconds), time.perf_counter()
            result = cm.suitor_matching(frame, backend="cpu").persist()
            wait(result)
            seconds, after = time.perf_counter() - start, client.run(thread_seconds)
            got = result.compute()
            pd.testing.assert_frame_equal(got.astype({"vertex": expected["vertex"].dtype}),
                                          expected)
            del result, got
            runs.append({"seconds": seconds, **by_group(before, after)})
        return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphs", nargs="+", default=["rmat16"])
    parser.add_argument("--dtypes", default="int64", choices=sorted(B.DTYPES))
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--malloc", nargs="+", default=["default"], choices=["default", "keep"])
    parser.add_argument("--profiler", nargs="+", default=["on"], choices=["on", "off"],
                        help="Dask's sampling profiler in the workers "
                             "(distributed.worker.profile.enabled)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    report = B.new_report()
    report["keep"] = KEEP
    for spec in [f"{g}:{args.dtypes}" if args.dtypes else g for g in args.graphs]:
        edges = B.make_graph(spec)
        for setting in args.malloc:
            malloc = KEEP if setting == "keep" else {}
            path = f"/tmp/bench_dask_calls_{spec}.parquet"
            single = single_calls(spec, args.calls, malloc, path)
            expected = pd.read_parquet(path)
            for workers in args.workers:
                for profiler in args.profiler:
                    runs = cluster_calls(spec, workers, args.calls, malloc, edges, expected,
                                         profiler == "on")
                    entry = {"graph": spec, "malloc": setting, "workers": workers,
                             "profiler": profiler, "single": single, "cluster": runs}
                    report["runs"].append(entry)
                    print(json.dumps(entry), flush=True)
    if args.out:
        write_report(report, args.out)


def cpu(entry: dict) -> float:
    return entry["user"] + entry["sys"]


def write_report(report: dict, out: str) -> None:
    lines = B.report_head(report, out, "suitor_matching, consecutive calls,")
    lines += [f"`--malloc keep`: {report['keep']} in the single process's and the workers' "
              "environment.", "",
              "CPU seconds (user + system; system in brackets); workers: summed over the "
              "workers, split into the task threads and the event loops (other threads: "
              "the rest of the total). Ratio: the workers' total over the single call's, "
              "call for call.", "",
              "Profiler: Dask's sampling profiler in the workers "
              "(`distributed.worker.profile.enabled`, on by default).", "",
              "| graph | malloc | profiler | p | call | single wall s | single CPU s | "
              "workers wall s | task threads CPU s | event loops CPU s | workers CPU s | ratio |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for run in report["runs"]:
        for call, (one, many) in enumerate(zip(run["single"], run["cluster"])):
            total = sum(cpu(many[g]) for g in ("task", "loop", "other"))
            lines.append(
                f"| {run['graph']} | {run['malloc']} | {run.get('profiler', 'on')} | "
                f"{run['workers']} | {call + 1} | "
                f"{one['seconds']:.2f} | {cpu(one):.2f} ({one['sys']:.2f}) | "
                f"{many['seconds']:.2f} | {cpu(many['task']):.2f} ({many['task']['sys']:.2f}) | "
                f"{cpu(many['loop']):.2f} ({many['loop']['sys']:.2f}) | {total:.2f} | "
                f"{total / cpu(one):.2f} |")
    Path(out + ".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
