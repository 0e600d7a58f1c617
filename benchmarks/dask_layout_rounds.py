"""Rounds of the two Dask matching layouts on the shared real graphs, with
their ties (as the files give them: unweighted) and with random weights.

The edge-split layout (``cugraph_match.dask.layout = "edge"``) runs Suitor
in synchronous rounds, so its rounds follow the longest chain of
displacements in the greedy order; the vertex layout (the default) runs each
worker's part to a fixed point every superstep.  Where ties leave the order
to the ids, as on a mesh whose ids follow its geometry, the chains are long.
For each graph and weighting: rounds (supersteps) and the call's wall
seconds to the computed frame on a 2-worker LocalCluster (1 thread each, 5
partitions), each result checked equal to the single call's.

    python benchmarks/dask_layout_rounds.py --graphs 4elt astro-ph \\
        --out benchmarks/results/dask_layout_rounds_cpu_2026-11-29

``--layouts auto`` shows what the default setting chooses, with the sampled
rows' figures it read.
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
import bench_dask as B  # noqa: E402  (puts this checkout's package first on sys.path)

SHARED = HERE.parent.parent / "shared" / "data" / "graphs"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphs", nargs="+", default=["4elt", "astro-ph"])
    parser.add_argument("--layouts", nargs="+", default=["edge", "vertex"],
                        help="settings of cugraph_match.dask.layout (auto: the call chooses)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()

    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import cugraph_match as cm
    from cugraph_match.datasets import read_graph

    report = B.new_report()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        for name in args.graphs:
            edges, _ = read_graph(SHARED / f"{name}.mtx")
            for weighting in ("ties", "random"):
                if weighting == "random":
                    edges = edges.assign(
                        weight=np.random.default_rng(1).random(len(edges)) + 0.1)
                single = cm.suitor_matching(edges, backend="cpu")
                for layout in args.layouts:
                    with dask.config.set({"cugraph_match.dask.layout": layout}):
                        for _ in range(2):  # the second call timed (the first compiles)
                            start = time.perf_counter()
                            result, stats = cm.suitor_matching(
                                dd.from_pandas(edges, npartitions=5), return_stats=True)
                            got = result.compute()
                            seconds = time.perf_counter() - start
                    pd.testing.assert_frame_equal(got, single)
                    ran = {"layout": layout, "layout_run": stats.get("layout", "vertex")}
                    run = {"graph": name, "rows": len(edges), "weights": weighting,
                           "layout": B.layout_cell(ran),
                           "rounds": stats["rounds"], "seconds": seconds,
                           "choice": stats["build"].get("layout_choice")}
                    report["runs"].append(run)
                    print(json.dumps(run), flush=True)
    if args.out:
        lines = B.report_head(report, args.out, "suitor_matching: the layouts' rounds") + [
            "", "The sampled rows' figures (`auto` only): the cut over scattered ids', the "
                "distinct weights' share, rows per id of the id range "
                "(`edge_split.choose_layout`).",
            "", "| graph | rows | weights | layout | rounds | wall s | cut | distinct weights | "
                "rows per id |", "|---|---:|---|---|---:|---:|---:|---:|---:|"]
        for r in report["runs"]:
            choice = r["choice"] if r["choice"] and "cut" in r["choice"] else None
            figures = (f"{choice['cut']:.2f} | {choice['distinct_weights']:.2f} | "
                       f"{choice['rows_per_id']:.1f}") if choice else "| |"
            lines.append(f"| {r['graph']} | {r['rows']:,} | {r['weights']} | {r['layout']} | "
                         f"{r['rounds']} | {r['seconds']:.2f} | {figures} |")
        Path(args.out + ".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
