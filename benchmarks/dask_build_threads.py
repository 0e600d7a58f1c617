"""The edge-split parts' builds of one Dask cluster: on Numba's default threads
or the worker's (``dask/threads.py``), every worker at once or one at a time.

``bench_dask.py`` sums the workers' CPU seconds to compare them with one
call's.  Two things make that sum grow with the workers on a machine with
fewer cores than workers, and this measures both on the same parts of the
same cluster, alternating the four ways to build them:

- *threads*: Numba's default starts a thread per core in every worker (p
  workers on c cores: p x c threads); since 2026-11-29 our tasks on a
  worker take its ``OMP_NUM_THREADS`` (Dask's Nanny sets 1);
- *together or in turn*: the workers' builds at once (as a call ran them
  before 2026-11-30) or one after the other, each alone on the machine; and
  *by the cores*: in waves of as many builds as the machine has cores, as
  the host's build slots (``dask/threads.py``, since 2026-11-30) let a call
  run them.  Every way here runs the builds with the slots off
  (``builds_per_host="unlimited"``), its own order being the measure.

Each build reports its worker process's user + system seconds over the
task (``getrusage``: its Numba threads and Dask's own threads included), the
task thread's alone, and its wall seconds.

    python benchmarks/dask_build_threads.py --graph rmat20:int64 --workers 4 --repeat 3 \\
        --out benchmarks/results/dask_build_threads_2026-11-29
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import cpu_model, git_state  # noqa: E402
from bench_dask import make_graph, placed_frame  # noqa: E402

from cugraph_match.dask.threads import usable_cores  # noqa: E402

WAYS = [("Numba's default", "together"), ("the worker's", "together"),
        ("Numba's default", "in turn"), ("the worker's", "in turn"),
        ("the worker's", "by the cores")]


def timed_build(key: str, k: int, p: int, threads: str, *partitions) -> dict:
    """One worker's edge-split part from its partitions, timed; the part is
    dropped afterwards."""
    import numba

    from cugraph_match.dask import edge_split_worker as es
    from cugraph_match.dask.threads import task_threads

    build = es.build_part if threads == "the worker's" else es.build_part.__wrapped__
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # Numba's default
    used = (task_threads() if threads == "the worker's" else None) or numba.get_num_threads()
    thread_before = resource.getrusage(resource.RUSAGE_THREAD)
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    build(key, k, p, None, "src", "dst", "weight", "ids", *partitions,
          builds_per_host="unlimited")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    thread_after = resource.getrusage(resource.RUSAGE_THREAD)
    es.PARTS.pop(key, None)
    return {"process_cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
            "thread_cpu": (thread_after.ru_utime - thread_before.ru_utime +
                           thread_after.ru_stime - thread_before.ru_stime),
            "wall": wall, "threads": used}


def main() -> None:
    from distributed import Client, LocalCluster, wait

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="rmat20:int64")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    load = os.getloadavg()
    edges = make_graph(args.graph)
    p = args.workers
    runs = []
    with LocalCluster(n_workers=p, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        frame = placed_frame(client, edges, p)
        wait(frame)
        held = client.compute(frame.to_delayed())
        wait(held)
        addresses = sorted(client.nthreads())
        where = client.who_has(held)
        mine: list[list] = [[] for _ in range(p)]
        for future in held:
            mine[addresses.index(next(iter(where[future.key])))].append(future)
        numba_threads = client.run(lambda: __import__("numba").config.NUMBA_NUM_THREADS)
        # compile and warm every worker's kernels on a small piece first
        wait([client.submit(timed_build, "warm", k, p, threads, mine[k][0], workers=[a],
                            pure=False)
              for threads in ("Numba's default", "the worker's")
              for k, a in enumerate(addresses)])
        cores = usable_cores()  # the slots' "auto" with one thread a task
        for repeat in range(args.repeat):
            for threads, how in WAYS:
                started = time.perf_counter()
                submit = [lambda k=k, a=a: client.submit(timed_build, f"b{k}", k, p, threads,
                                                         *mine[k], workers=[a], pure=False)
                          for k, a in enumerate(addresses)]
                if how == "together":
                    builds = client.gather([s() for s in submit])
                elif how == "by the cores":
                    builds = [b for i in range(0, p, cores)
                              for b in client.gather([s() for s in submit[i:i + cores]])]
                else:
                    builds = [s().result() for s in submit]
                runs.append({"repeat": repeat, "threads": threads, "how": how,
                             "seconds": time.perf_counter() - started, "builds": builds})
    report = {"date": datetime.date.today().isoformat(), "machine": cpu_model(),
              "cores": len(os.sched_getaffinity(0)), "graph": args.graph, "workers": p,
              "numba_threads": sorted(set(numba_threads.values())),
              "load_average_at_start": [round(x, 2) for x in load], "git": git_state(),
              "command": " ".join(["python", "benchmarks/dask_build_threads.py",
                                   *sys.argv[1:]]),
              "runs": runs}
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=1)
    lines = [f"# The edge-split parts' builds of {args.graph} on {p} workers: threads, "
             f"together or in turn ({report['date']})", "",
             f"Command: `{report['command']}`  ",
             f"Machine: {report['machine']}, {report['cores']} cores, no GPU; Numba's default "
             f"threads in the workers: {report['numba_threads']}; commit "
             f"{(report['git'].get('commit') or '?')[:7]}"
             f"{' (package changed)' if report['git'].get('package_dirty') else ''}; "
             f"load average at start "
             f"{report['load_average_at_start']}", "",
             "Per way, the sum over the workers' builds: their processes' CPU seconds over the "
             "task, the task threads' alone, and the wall seconds of the whole (every build of "
             "the way).", "",
             "| repeat | threads | builds | threads per build | process CPU s | task thread CPU s "
             "| wall s |", "|---:|---|---|---:|---:|---:|---:|"]
    for r in runs:
        b = r["builds"]
        lines.append(f"| {r['repeat'] + 1} | {r['threads']} | {r['how']} | "
                     f"{b[0]['threads']} | {sum(x['process_cpu'] for x in b):.2f} | "
                     f"{sum(x['thread_cpu'] for x in b):.2f} | {r['seconds']:.2f} |")
    lines += ["", "Medians over the repeats (process CPU s, wall s):", ""]
    for threads, how in WAYS:
        chosen = [r for r in runs if r["threads"] == threads and r["how"] == how]
        cpu = float(np.median([sum(x["process_cpu"] for x in r["builds"]) for r in chosen]))
        wall = float(np.median([r["seconds"] for r in chosen]))
        lines.append(f"- {threads} threads, {how}: {cpu:.2f} CPU s, {wall:.2f} s")
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
