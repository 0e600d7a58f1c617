"""What Dask alone costs for the edge layout's rounds: the same tasks with no work in them.

``dask/edge_split.py`` submits, per round, three phases of one task per
worker plus one ``block`` task per (sender, other worker) pair, the next
phase on each worker depending on its previous phase and on the blocks sent
to it, and one counts task per worker after the last phase.  Here the same
graph of tasks runs on a LocalCluster of p worker processes (1 thread each)
with every phase returning p blocks of ``--block-bytes`` zeros and doing
nothing else: the workers' CPU seconds over it, split into the task threads
and the event loops (``MainThread``: Dask's scheduling messages, transfers,
heartbeats), are the floor any run of that many rounds pays on Dask,
whatever its kernels do.  ``--modes whole`` runs the rounds as the edge
layout sends its small ones: each phase depending on the other workers'
whole steps, with no block tasks.  ``--modes star`` is a routing the
library does not use, measured to see whether it would pay: each phase's
steps go to one worker, whose route task (one more task a phase) hands
every worker all of them, so a phase makes 2(p - 1) transfers instead of
p(p - 1), at the cost of one more hop.

    python benchmarks/dask_round_tasks.py --workers 2 4 --rounds 7 --block-bytes 8 250000 \
        --modes blocks whole --repeat 3 --out benchmarks/results/dask_round_tasks_cpu_2026-11-30
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_dask as B  # noqa: E402
from bench_dask_calls import by_group, thread_seconds  # noqa: E402


def phase_step(previous, *incoming, blocks: int = 2, block_bytes: int = 8) -> list:
    """A phase that only sends: one block of zeros to each of ``blocks`` workers."""
    return [np.zeros(block_bytes // 8, dtype=np.int64) for _ in range(blocks)]


def block(step: list, k: int):
    return step[k]


def counts(step: list) -> int:
    return len(step)


def route(*steps) -> list:
    """The star's hub: every worker's step, handed on together."""
    return list(steps)


def rounds_once(client, workers: list, rounds: int, block_bytes: int,
                mode: str = "blocks") -> dict:
    """One run of ``rounds`` rounds as ``edge_split.run_rounds`` submits them
    (one batch; ``mode``: ``blocks``, ``whole``, each phase taking the others'
    whole steps, or ``star``, taking them from one worker's route task): wall
    seconds and the workers' CPU seconds by thread group."""
    p = len(workers)
    whole = mode == "whole"
    before, start = client.run(thread_seconds), time.perf_counter()
    previous: list = [None] * p
    inbox: list = [[] for _ in range(p)]
    counted = []
    for _ in range(rounds):
        for _phase in range(3):
            steps = [client.submit(phase_step, previous[k], *inbox[k], blocks=p,
                                   block_bytes=block_bytes, workers=[workers[k]], pure=False)
                     for k in range(p)]
            if mode == "star":
                hub = client.submit(route, *steps, workers=[workers[0]], pure=False)
                inbox = [[hub] for _ in range(p)]
            else:
                inbox = [[steps[i] if whole else
                          client.submit(block, steps[i], k, workers=[workers[i]], pure=False)
                          for i in range(p) if i != k] for k in range(p)]
            previous = steps
        counted += [client.submit(counts, s, workers=[workers[k]], pure=False)
                    for k, s in enumerate(previous)]
    client.gather(counted)
    seconds, after = time.perf_counter() - start, client.run(thread_seconds)
    del previous, inbox, counted
    per_phase = {"blocks": (p + p * (p - 1), p * (p - 1)), "whole": (p, p * (p - 1)),
                 "star": (p + 1, 2 * (p - 1))}[mode]
    return {"seconds": seconds, "tasks": rounds * (3 * per_phase[0] + p),
            "transfers": rounds * 3 * per_phase[1], "mode": mode,
            **by_group(before, after)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--block-bytes", type=int, nargs="+", default=[8])
    parser.add_argument("--modes", nargs="+", default=["blocks"],
                        choices=["blocks", "whole", "star"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    report = B.new_report()
    for p in args.workers:
        with LocalCluster(n_workers=p, threads_per_worker=1, processes=True,
                          dashboard_address=None, memory_limit=0) as cluster, \
                Client(cluster) as client:
            workers = sorted(client.nthreads())
            for mode in args.modes:  # the functions pickled and imported once
                rounds_once(client, workers, 1, 8, mode)
            for block_bytes in args.block_bytes:
                for _ in range(args.repeat):  # the modes alternate
                    for mode in args.modes:
                        run = {"workers": p, "rounds": args.rounds, "block_bytes": block_bytes,
                               **rounds_once(client, workers, args.rounds, block_bytes,
                                             mode)}
                        report["runs"].append(run)
                        print(json.dumps(run), flush=True)
    if args.out:
        lines = B.report_head(report, args.out, "edge-layout rounds with no work,")
        lines += ["CPU seconds of the workers, summed (user + system); event loops: the "
                  "workers' main threads.", "",
                  "| p | rounds | mode | tasks | transfers | bytes per block | wall s | "
                  "task threads CPU s | event loops CPU s |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in report["runs"]:
            lines.append(f"| {r['workers']} | {r['rounds']} | {r['mode']} | {r['tasks']} | "
                         f"{r['transfers']} | "
                         f"{r['block_bytes']:,} | {r['seconds']:.2f} | "
                         f"{r['task']['user'] + r['task']['sys']:.2f} | "
                         f"{r['loop']['user'] + r['loop']['sys']:.2f} |")
        Path(args.out + ".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
