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
per pair of workers (0: blocks always; ``inf``: whole steps always, the
first batch's too); ``--setting whole-edge``: the same limit of the edge
layout's rounds (``dask.edge_split.WHOLE_STEP_BYTES``), whose first batch
sends blocks unless the limit is ``inf``.  ``--setting builds-per-host``: the
Dask setting ``cugraph_match.dask.builds-per-host`` (``dask/threads.py``),
the parts' builds that run at once on one host (``auto``, ``unlimited`` or a
count), set around each call.

``--setting functions``: worker-side code, which the client cannot set.
The values are ``current`` (the checkout's) and the path given by
``--functions-from``, a Python file defining the functions ``--functions``
names (``module:name,name``) as they were: before each call every worker
sets those names of the module to the file's functions or back to its own
(the module's callers read them at call time).

Each call is ``suitor_matching`` of the frame ``bench_dask.placed_frame``
places (``--partitions-per-worker`` each), its result checked equal to the
single machine's after the measure; the tasks are counted from Dask's task
stream.

    python benchmarks/dask_ab.py --graph mesh2048 --workers 2 4 8 --setting groups \
        --values 1 4 --repeat 6 --out benchmarks/results/dask_ab_groups_mesh_cpu_2026-11-30
    python benchmarks/dask_ab.py --graph mesh2048 --workers 2 4 --setting functions \
        --functions cugraph_match.dask.build:_scatter_owned,_scatter_owned_in_order \
        --functions-from old_scatter.py --repeat 5
    python benchmarks/dask_ab.py --graph rmat20:int64 --workers 4 --setting builds-per-host \
        --values unlimited auto --repeat 8
    python benchmarks/dask_ab.py --graph rmat20:int64 --workers 4 --setting whole-edge \
        --values 1048576 inf --repeat 8
"""

from __future__ import annotations

import argparse
import math
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
            "whole": ("cugraph_match.dask.matching", "WHOLE_STEP_BYTES"),
            "whole-edge": ("cugraph_match.dask.edge_split", "WHOLE_STEP_BYTES")}
#: --setting: Dask settings the client reads at each call.
CONFIG_SETTINGS = {"builds-per-host": "cugraph_match.dask.builds-per-host"}


def use_functions(module: str, names: list, path: str) -> str:
    """On a worker: ``module``'s ``names`` set to those ``path`` defines, or
    back to the module's own (``path`` ``current``).  The file is loaded once
    per worker process, so its functions compile once (at the warm-up calls),
    not at every swap."""
    import importlib
    import importlib.util
    import sys

    target = importlib.import_module(module)
    own = target.__dict__.setdefault("_dask_ab_own", {n: getattr(target, n) for n in names})
    if path == "current":
        functions = own
    else:
        name = f"dask_ab_functions_{abs(hash(path))}"
        loaded = sys.modules.get(name)
        if loaded is None:
            spec = importlib.util.spec_from_file_location(name, path)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            sys.modules[name] = loaded
        functions = {n: getattr(loaded, n) for n in names}
    for n in names:
        setattr(target, n, functions[n])
    return path


def alternating_calls(spec: str, workers: int, setting: str, values: list, repeat: int,
                      per_worker: int, edges: pd.DataFrame, expected: pd.DataFrame,
                      functions: str | None = None) -> list:
    import importlib

    import dask
    from distributed import Client, LocalCluster, get_task_stream, wait

    import cugraph_match as cm

    if setting == "functions":
        module, _, names = functions.partition(":")
        names = names.split(",")
    elif setting in CONFIG_SETTINGS:
        module, name, kept = None, CONFIG_SETTINGS[setting], None
    else:
        module, name = SETTINGS[setting]
        module = importlib.import_module(module)
        kept = getattr(module, name)
    runs = []
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        frame = B.warmed_frame(client, spec, edges, workers, per_worker)
        if setting == "functions":  # each version compiled before the measures
            for value in values:
                client.run(use_functions, module, names, value)
                wait(cm.suitor_matching(frame, backend="cpu").persist())
        try:
            for call in range(repeat):
                for value in values if call % 2 == 0 else values[::-1]:
                    if setting == "functions":
                        client.run(use_functions, module, names, value)
                    elif setting not in CONFIG_SETTINGS:
                        setattr(module, name, value)
                    with get_task_stream(client) as stream, \
                            dask.config.set({name: value} if setting in CONFIG_SETTINGS
                                            else {}):
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
            if setting == "functions":
                client.run(use_functions, module, names, "current")
            elif setting not in CONFIG_SETTINGS:
                setattr(module, name, kept)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", default="mesh2048")
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--setting", choices=[*sorted(SETTINGS), *sorted(CONFIG_SETTINGS),
                                              "functions"], default="groups")
    parser.add_argument("--values", nargs=2, default=["1", "4"],
                        help="integers (inf: no limit), or words where the setting takes them")
    parser.add_argument("--functions", default=None,
                        help="--setting functions: module:name,name swapped on the workers")
    parser.add_argument("--functions-from", default=None,
                        help="--setting functions: the file defining the other version")
    parser.add_argument("--repeat", type=int, default=6, help="calls per value and cluster")
    parser.add_argument("--partitions-per-worker", type=int, default=4)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    import cugraph_match as cm

    edges = B.make_graph(args.graph) if args.graph.startswith("mesh") else \
        B.with_dtypes(B.make_graph(args.graph), "int64")
    expected = cm.suitor_matching(edges, backend="cpu")
    report = B.new_report()
    values = [int(v) if v.isdigit() else math.inf if v == "inf" else v for v in args.values]
    if args.setting == "functions":
        if not args.functions or not args.functions_from:
            parser.error("--setting functions needs --functions and --functions-from")
        values = ["current", str(Path(args.functions_from).resolve())]
        name = tuple(args.functions.split(":"))
    elif args.setting in CONFIG_SETTINGS:
        name = ("the Dask setting", CONFIG_SETTINGS[args.setting])
    else:
        name = SETTINGS[args.setting]
    # the report names no limit "inf" (JSON has no infinity)
    shown = ["inf" if v == math.inf else v for v in values]
    report.update(setting=args.setting, name=name, values=shown,
                  functions_from=args.functions_from)
    for p in args.workers:
        runs = alternating_calls(args.graph, p, args.setting, values, args.repeat,
                                 args.partitions_per_worker, edges, expected, args.functions)
        report["runs"] += [{**r, "value": shown[values.index(r["value"])]} for r in runs]
        for line in summary_lines(report)[-len(values):]:
            print(line, flush=True)
    if args.out:
        lines = B.report_head(report, args.out, f"client settings A/B ({args.setting})")
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
            label = Path(value).name if report["setting"] == "functions" else value
            lines.append(
                f"| {graph} | {p} | {label} | {len(runs)} | {med(r['tasks'] for r in runs):.0f} "
                f"| {med(cpu(r) for r in runs):.2f} | {med(cpu(r, 'task') for r in runs):.2f} "
                f"| {med(cpu(r, 'loop') for r in runs):.2f} "
                f"| {med(r['seconds'] for r in runs):.2f} "
                f"| {' / '.join(f'{cpu(r):.2f}' for r in runs)} |")
    return lines


def table(report: dict) -> list[str]:
    module, name = report["name"]
    if report["setting"] == "functions":
        head = (f"`{module}`'s `{name}` as in the checkout (`current`) and as defined in "
                f"`{report['functions_from']}`, swapped on the workers before each call")
    elif report["setting"] in CONFIG_SETTINGS:
        head = f"The Dask setting `{name}` at {report['values'][0]} and {report['values'][1]}"
    else:
        head = f"`{module}.{name}` at {report['values'][0]} and {report['values'][1]}"
    return [f"{head}, alternating "
            "call by call on one cluster per worker count; medians over the calls; every "
            "result equal to the single call's. CPU s: the workers' user + system seconds over "
            "the call, summed (task threads, event loops: the main threads, and the rest).", "",
            "| graph | p | value | calls | tasks | workers' CPU s | task threads | event loops "
            "| wall s | each call's CPU s |",
            "|---|---|---|---|---|---|---|---|---|---|", *summary_lines(report)]


if __name__ == "__main__":
    main()
