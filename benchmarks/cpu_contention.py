"""CPU seconds of the same work run by one process alone and by 2 and 4 at once.

The Dask benchmarks sum CPU seconds over worker processes to compare them with
one call's: that sum measures work only if a process's CPU time does not grow
when others run beside it.  This measures by how much it grows on the machine
at hand, for two kinds of work: a pure integer loop (registers and L1) and
random gathers over 512 MB (DRAM, like the builds' sorts and scatters).
Each process reports its own user + system seconds (``getrusage``) and wall
seconds; nothing else should run meanwhile.

    python benchmarks/cpu_contention.py --repeat 3 \
        --out benchmarks/results/cpu_contention_2026-11-29
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing as mp
import os
import resource
import sys
import time

import numpy as np

from _common import cpu_model

LOOP_STEPS = 20_000_000
GATHER_ROUNDS = 6


def integer_loop() -> None:
    x = 0
    for _ in range(LOOP_STEPS):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def random_gathers() -> None:
    rng = np.random.default_rng(1)
    values = rng.integers(0, 1 << 26, 1 << 26)  # 512 MB of int64
    at = rng.integers(0, 1 << 26, 1 << 25)
    for _ in range(GATHER_ROUNDS):
        values[at].sum()


WORK = {"integer loop": integer_loop, "random gathers over 512 MB": random_gathers}


def one_process(kind: str, queue) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    WORK[kind]()
    after = resource.getrusage(resource.RUSAGE_SELF)
    queue.put({"cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
               "wall": time.perf_counter() - start})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the whole set this many times, one after the other")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    load = os.getloadavg()
    runs = []
    for repeat in range(args.repeat):
        for kind in WORK:
            for count in args.processes:
                queue = mp.Queue()
                procs = [mp.Process(target=one_process, args=(kind, queue))
                         for _ in range(count)]
                for p in procs:
                    p.start()
                got = [queue.get() for _ in procs]
                for p in procs:
                    p.join()
                runs.append({"work": kind, "processes": count, "repeat": repeat,
                             "cpu": [g["cpu"] for g in got], "wall": [g["wall"] for g in got]})
    # each set's own process alone
    alone = {(r["work"], r["repeat"]): r["cpu"][0] for r in runs if r["processes"] == 1}
    report = {"date": datetime.date.today().isoformat(),
              "machine": cpu_model(), "cores": len(os.sched_getaffinity(0)),
              "load_average_at_start": [round(x, 2) for x in load],
              "command": " ".join(["python", "benchmarks/cpu_contention.py", *sys.argv[1:]]),
              "runs": runs}
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=1)
    lines = [f"# CPU seconds of the same work, alone and as several processes at once "
             f"({report['date']})", "", f"Command: `{report['command']}`  ",
             f"Machine: {report['machine']}, {report['cores']} cores; load average at start "
             f"{report['load_average_at_start']}", "",
             "| set | work | processes at once | CPU s per process | over the set's process alone "
             "| wall s per process |", "|---:|---|---:|---|---|---|"]
    for r in runs:
        base = alone.get((r["work"], r["repeat"]), float("nan"))
        cpu = " / ".join(f"{c:.2f}" for c in r["cpu"])
        over = " / ".join(f"{c / base:.2f}" for c in r["cpu"])
        wall = " / ".join(f"{w:.2f}" for w in r["wall"])
        lines.append(f"| {r['repeat'] + 1} | {r['work']} | {r['processes']} | {cpu} | {over} "
                     f"| {wall} |")
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
