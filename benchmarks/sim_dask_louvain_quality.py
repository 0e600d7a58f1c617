"""Quality of Louvain (or Leiden) on Dask with the passes on the workers' GPUs,
in Numba's CUDA simulator: Q over the single-machine CPU call's Q, every
level distributed (no finish on one worker), on small shared graphs.

The simulator is slow (a Python thread per CUDA thread), so this covers
graphs of at most a few thousand edges; it measures the distributed GPU
pass's *decisions* (which vertices move when), not time.  The workers are
threads of one process (Dask's ``processes=False``), each simulated launch
under one lock (each worker's own GPU), Dask's worker profiler off: the
tests' ``conftest.simulated_gpu_cluster``.

    python benchmarks/sim_dask_louvain_quality.py --graphs karate jazz \\
        --workers 2 3 4 --seeds 0 1 2 --damped-tries 0 3 \\
        --out benchmarks/results/dask_louvain_gpu_sim_2026-11-27

``--damped-tries 0`` is the driver before the damped retry (a pass that
lowers Q ends the phase); see ``cugraph_match.dask.louvain.DAMPED_TRIES``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))

# the tests' threaded simulator cluster (each launch under one lock, Dask's
# worker profiler off); importing conftest installs the warp-intrinsic shim
from conftest import simulated_gpu_cluster  # noqa: E402

import dask.dataframe as dd  # noqa: E402

import cugraph_match as cm  # noqa: E402
from cugraph_match.dask import louvain as dask_louvain  # noqa: E402
from cugraph_match.datasets import read_graph  # noqa: E402

SHARED = Path(os.environ.get("CUGRAPH_MATCH_DATA", ROOT.parent / "shared" / "data"))


def load(name: str):
    """A bundled graph by name, else ``<name>.mtx`` from the shared data."""
    if name in cm.datasets.available():
        return cm.datasets.load(name)
    for folder in ("graphs", "cugraph"):
        path = SHARED / folder / f"{name}.mtx"
        if path.exists():
            return read_graph(path)[0]
    raise SystemExit(f"no graph {name!r} bundled or under {SHARED}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=["louvain", "leiden"], default="louvain")
    parser.add_argument("--graphs", nargs="+", default=["karate", "lesmis", "jazz"])
    parser.add_argument("--workers", nargs="+", type=int, default=[2, 3, 4])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--damped-tries", nargs="+", type=int,
                        default=[dask_louvain.DAMPED_TRIES])
    parser.add_argument("--out", required=True, help="path without suffix: .json and .md")
    args = parser.parse_args()
    dask_louvain.FINISH_EDGES, dask_louvain.FINISH_SHARE = 0, 0.0  # every level distributed
    run = getattr(cm, args.algorithm)
    rows = []
    for name in args.graphs:
        edges = load(name)
        single = run(edges, backend="cpu")[1]
        for p in args.workers:
            with simulated_gpu_cluster(p):
                frame = dd.from_pandas(edges, npartitions=p)
                for tries in args.damped_tries:
                    dask_louvain.DAMPED_TRIES = tries
                    for seed in args.seeds:
                        start = time.perf_counter()
                        _, q = run(frame, backend="gpu", seed=seed)
                        rows.append({"graph": name, "edges": len(edges), "workers": p,
                                     "damped_tries": tries, "seed": seed, "q": q,
                                     "single_q": single, "ratio": q / single,
                                     "seconds": time.perf_counter() - start})
                        print(json.dumps(rows[-1]), flush=True)
    report = {"algorithm": args.algorithm, "date": time.strftime("%Y-%m-%d"),
              "command": "python " + " ".join([Path(sys.argv[0]).as_posix()] + sys.argv[1:]),
              "machine": f"{os.cpu_count()} cores, no GPU: Numba's CUDA simulator",
              "rows": rows}
    Path(args.out + ".json").write_text(json.dumps(report, indent=1))
    lines = [f"# {args.algorithm} on Dask, passes on the workers' GPUs, in the simulator "
             f"({report['date']})", "", f"Command: `{report['command']}`  ",
             f"Machine: {report['machine']}; every level distributed; Q over the "
             "single-machine CPU call's Q.", "",
             "| graph | edges | workers | damped tries | " +
             " | ".join(f"seed {s}" for s in args.seeds) + " |",
             "|---|---:|---:|---:|" + "---:|" * len(args.seeds)]
    for name in args.graphs:
        for p in args.workers:
            for tries in args.damped_tries:
                got = [r for r in rows if (r["graph"], r["workers"], r["damped_tries"]) ==
                       (name, p, tries)]
                lines.append(f"| {name} | {got[0]['edges']:,} | {p} | {tries} | " +
                             " | ".join(f"{r['ratio']:.3f}" for r in got) + " |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
