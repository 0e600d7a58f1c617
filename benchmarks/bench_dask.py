"""Distributed matching (or Louvain, Leiden: ``--algorithm louvain | leiden``) on a LocalCluster
against the single-machine CPU call.

For each graph (R-MAT ``rmatS`` of scale S, or the 2-D grid ``meshN``, N x N
vertices, ids row by row, so that id ranges are bands of the grid; int32 ids
and float32 weights, or with ``:int64`` pandas' int64 / float64, with
``:unweighted`` int64 ids and no weights): the
single-machine ``suitor_matching(frame, backend="cpu")`` in a fresh process,
then the same frame as a persisted Dask frame (4 partitions per worker, or
``--partitions-per-worker``, placed by :func:`placed_frame`) on
LocalClusters of 1, 2, 4, 8 worker processes (1 thread each): the whole call
from the caller's Dask frame to the computed pandas result, checked equal.

Memory, per process (the single-machine process, and every worker):

* ``idle``: resident bytes after imports and compilation (a warm-up call on a
  small graph) and ``malloc_trim(0)``, before any input exists;
* ``input``: resident bytes once the process holds its input (the single
  process: the whole frame; a worker: its persisted partitions);
* ``peak``: ``VmHWM`` over the call (reset once the input is held), the call
  ending when every partition of the frame it returns exists on its worker
  (``.persist()`` and wait);
* ``compute peak``: ``VmHWM`` over the caller's ``.compute()`` of that frame
  afterwards (the heap trimmed and the peak reset before it), reported
  beside: Dask concatenates the partitions on one worker before they go to
  the client.

``peak - idle`` (the input counted) is the issue's measure; ``peak - input``
(the call's own memory) is printed beside it.  CPU seconds are the process's
user + system time over the call (``getrusage``), summed over the workers,
with the user part's ratio beside (system time here is mostly the kernel
handing out fresh pages: it follows the bytes first touched, see
:func:`user_seconds`); wall time on a shared 2-core machine says little
about more than 2 workers.

    python benchmarks/bench_dask.py --graphs rmat20 mesh2048 --workers 1 2 4 8 \
        --out benchmarks/results/dask_cpu_2026-11-24

For Louvain the distributed partition may differ from one machine's: each run
reports both Q and their ratio (the issue's bar: at least 0.99) and checks the
returned Q against ``cm.modularity`` of the returned frame.
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
ROOT = HERE.parent
# this checkout's package, here, in the single-machine process and in the
# workers (an editable install elsewhere would otherwise win)
sys.path[:0] = [str(ROOT), str(HERE)]
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE),
                                            os.environ.get("PYTHONPATH", "")])
#: The environment as this process started.  A Nanny writes Dask's
#: ``distributed.nanny.pre-spawn-environ`` (MALLOC_TRIM_THRESHOLD_=65536,
#: OMP_NUM_THREADS=1, ...) into its parent's ``os.environ`` before it spawns a
#: worker, so a single call started after a cluster would inherit them: its
#: glibc then maps every array over 128 KiB afresh, as a worker's does.  The
#: single calls get this copy: the process a user runs without Dask.
START_ENVIRONMENT = dict(os.environ)
from dask_limited import idle_bytes, status_bytes  # noqa: E402
from rmat import mesh_edges, rmat_edges  # noqa: E402


#: ``graph:dtypes`` suffixes: the generators' int32 ids and float32 weights
#: (none), pandas' defaults (int64 ids, float64 weights), or int64 ids and no
#: weight column (the call then runs unweighted).
DTYPES = {"": None, "int64": {"ids": np.int64, "weight": np.float64},
          "unweighted": {"ids": np.int64, "weight": None}}


def make_graph(spec: str) -> pd.DataFrame:
    """``rmatS`` (R-MAT scale S, 16 rows per id, seed 1), ``rmatSeF`` (F rows
    per id) or ``meshN`` (N x N grid, seed 1), optionally ``:int64`` or
    ``:unweighted`` (see :data:`DTYPES`)."""
    name, _, dtypes = spec.partition(":")
    if dtypes not in DTYPES:
        raise ValueError(f"unknown dtypes {dtypes!r} in {spec!r}: one of {sorted(DTYPES)}")
    if name.startswith("rmat"):
        scale, _, factor = name[4:].partition("e")
        edges = rmat_edges(int(scale), edge_factor=int(factor or 16), seed=1)
    elif name.startswith("mesh"):
        edges = mesh_edges(int(name[4:]), seed=1)
    else:
        raise ValueError(f"unknown graph {spec!r}")
    return with_dtypes(edges, dtypes)


def with_dtypes(edges: pd.DataFrame, dtypes: str) -> pd.DataFrame:
    """A generator's ``src | dst | weight`` frame at one of :data:`DTYPES`."""
    change = DTYPES[dtypes]
    if change is None:
        return edges
    ids = {"src": change["ids"], "dst": change["ids"]}
    if change["weight"] is None:
        return edges[["src", "dst"]].astype(ids)
    return edges.astype({**ids, "weight": change["weight"]})


def layout_cell(run: dict) -> str:
    """The layout a run took, with the setting when that chose it (``auto: edge``)."""
    ran = run.get("layout_run", "vertex")
    return f"auto: {ran}" if run.get("layout") == "auto" else ran


def warm_up_graphs(spec: str) -> list[str]:
    """Small graphs with the dtypes of ``spec``: the kernels compiled for them
    before the measure (Numba compiles one version per dtype)."""
    dtypes = spec.partition(":")[2]
    return [small + (":" + dtypes if dtypes else "") for small in ("rmat10", "mesh30")]


def cpu_seconds() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def user_seconds() -> float:
    """The user part of :func:`cpu_seconds`.  The rest, system time, is on
    this VM mostly the kernel handing out fresh pages (measured: 100 MB of
    new zeros cost 0.013 s user and 0.40 s system), so it follows the bytes a
    call first touches more than the work it does, and varies with what the
    process freed before."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def compile_radix_paths() -> None:
    """Compile the radix sort for every value dtype it carries: the small
    warm-up graphs take the packed sort, and a large graph's first call would
    otherwise compile the radix sort inside its measure (Numba's cache is per
    checkout: measured, a fresh worktree's single call on the 2048² grid took
    11.9 CPU s instead of 2.2)."""
    from cugraph_match.structure.sort_cpu import radix_sort_pairs, sort_with_positions

    keys = np.arange(70_000, dtype=np.uint64)[::-1].copy()
    sort_with_positions(keys, 64)
    for dtype in (np.int32, np.int64, np.uint64, np.float32, np.float64):
        radix_sort_pairs(keys, np.zeros(keys.shape[0], dtype=dtype), 64)


def trimmed_point() -> dict:
    """On a worker (or here): free the heap, reset the peak to the resident
    bytes, read them and the CPU time (at idle, and again just before a call)."""
    return {"rss": idle_bytes(), "cpu": cpu_seconds(), "user": user_seconds()}


def end_call() -> dict:
    return {"peak": status_bytes("VmHWM"), "cpu": cpu_seconds(), "user": user_seconds(),
            "rss": status_bytes("VmRSS")}


#: The call timed, on a frame or a Dask frame: returns (frame, Q or None).
CALLS = {
    "suitor": "(cm.suitor_matching({edges}{backend}), None)",
    "louvain": "cm.louvain({edges}{backend})",
    "leiden": "cm.leiden({edges}{backend})",
}
#: The community detections: a partition and Q, compared by Q (their partitions may differ).
COMMUNITY = ("louvain", "leiden")

SINGLE = """
import sys, time, json
sys.path.insert(0, {here!r})
import bench_dask as B
import cugraph_match as cm
assert cm.__file__.startswith({root!r}), cm.__file__
for small in B.warm_up_graphs({spec!r}):  # compile outside the measure
    edges = B.make_graph(small)
    {call}
B.compile_radix_paths()
idle = B.trimmed_point()
edges = B.make_graph({spec!r})
held = B.trimmed_point()
start = time.perf_counter()
m, q = {call}
seconds = time.perf_counter() - start
end = B.end_call()
m.to_parquet({path!r})
print(json.dumps({{"seconds": seconds, "idle": idle["rss"], "input": held["rss"],
                  "peak": end["peak"], "cpu": end["cpu"] - held["cpu"],
                  "user": end["user"] - held["user"], "q": q}}))
"""


#: Seconds each cluster sits idle before the call, to measure its background CPU.
IDLE_SECONDS = 3.0


def single_machine(spec: str, path: str, algorithm: str = "suitor", backend: str = "cpu") -> dict:
    call = CALLS[algorithm].format(edges="edges", backend=f', backend="{backend}"')
    code = SINGLE.format(here=str(HERE), root=str(ROOT), spec=spec, path=path, call=call)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=START_ENVIRONMENT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def on_workers(client, function, *args) -> list:
    addresses = sorted(client.nthreads())
    return [client.submit(function, *args, workers=[a], pure=False).result()
            for a in addresses]


def placed_frame(client, edges: pd.DataFrame, workers: int, per_worker: int = 4):
    """``edges`` as a Dask frame of ``per_worker`` consecutive row ranges per
    worker, each worker holding that many (round-robin): every worker starts with 1/p of
    the input, as a cluster reading its own files would.  (``persist`` of
    ``from_pandas`` leaves the placement to the scheduler: in one 4-worker
    run at R-MAT 20 the workers held 51, 51, 177 and 126 MB of the 403 MB.)"""
    import dask.dataframe as dd

    addresses = sorted(client.nthreads())
    parts = per_worker * workers
    bounds = np.linspace(0, len(edges), parts + 1).astype(np.int64)
    futures = [client.scatter(edges.iloc[bounds[i]:bounds[i + 1]],
                              workers=[addresses[i % len(addresses)]])
               for i in range(parts)]
    return dd.from_delayed(futures, meta=edges.iloc[:0], verify_meta=False).persist()


def warm_up(client, spec: str, workers: int, algorithm: str = "suitor",
            backend: str = "cpu") -> None:
    """The call's kernels compiled in every worker before the measure: each of
    :func:`warm_up_graphs`' graphs placed as :func:`placed_frame` places the
    input, so every worker holds rows of it (the edge layout builds one
    machine's pipeline on the rows a worker holds, so a worker without rows
    compiles nothing; until 2026-11-30 the warm-up frames had two partitions,
    and at p = 4 two workers compiled 14 kernels inside the measured call),
    then :func:`compile_radix_paths`."""
    from distributed import wait

    import cugraph_match as cm

    for small in warm_up_graphs(spec):
        frame = placed_frame(client, make_graph(small), workers)
        wait(frame)
        cm.suitor_matching(frame, backend=backend).compute()
        if algorithm in COMMUNITY:
            getattr(cm, algorithm)(frame)[0].compute()
    client.run(compile_radix_paths)


def warmed_frame(client, spec: str, edges: pd.DataFrame, workers: int, per_worker: int = 4):
    """``suitor_matching``'s kernels compiled in every worker (calls on
    :func:`warm_up_graphs`' graphs and :func:`compile_radix_paths`), then
    ``edges`` placed as :func:`placed_frame` places them, persisted."""
    from distributed import wait

    warm_up(client, spec, workers)
    frame = placed_frame(client, edges, workers, per_worker)
    wait(frame)
    return frame


def distributed_call(spec: str, workers: int, edges: pd.DataFrame, expected,
                     algorithm: str = "suitor", single_q=None, backend: str = "cpu",
                     layout: str = "auto", per_worker: int = 4) -> dict:
    """One cluster's call; ``layout``: the matchings' layout (the Dask setting
    ``cugraph_match.dask.layout``: ``auto``, ``edge`` or ``vertex``);
    ``per_worker``: input partitions per worker (:func:`placed_frame`)."""
    import dask

    with dask.config.set({"cugraph_match.dask.layout": layout}):
        run = _distributed_call(spec, workers, edges, expected, algorithm, single_q, backend,
                                per_worker)
    run["layout"] = layout
    run["partitions_per_worker"] = per_worker
    return run


def _distributed_call(spec: str, workers: int, edges: pd.DataFrame, expected,
                      algorithm: str = "suitor", single_q=None, backend: str = "cpu",
                      per_worker: int = 4) -> dict:
    from distributed import Client, LocalCluster, wait

    import cugraph_match as cm

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        where = client.run(lambda: __import__("cugraph_match").__file__)
        assert all(f.startswith(str(ROOT)) for f in where.values()), where
        warm_up(client, spec, workers, algorithm, backend)
        idle = on_workers(client, trimmed_point)
        frame = placed_frame(client, edges, workers, per_worker)
        wait(frame)
        # what the cluster spends doing nothing (heartbeats, Dask's sampling
        # profiler, the memory monitor), per worker and second: the part of
        # the call's CPU that follows its wall time and not its work
        quiet = on_workers(client, cpu_seconds)
        time.sleep(IDLE_SECONDS)
        idle_rate = [(after - before) / IDLE_SECONDS
                     for after, before in zip(on_workers(client, cpu_seconds), quiet)]
        held = on_workers(client, trimmed_point)
        start = time.perf_counter()
        q = None
        if algorithm in COMMUNITY:
            result, q = getattr(cm, algorithm)(frame)
        else:
            result, stats = cm.suitor_matching(frame, backend=backend, return_stats=True)
        # the call: until every partition of the returned frame exists on its worker
        result = result.persist()
        wait(result)
        call_seconds = time.perf_counter() - start
        called = on_workers(client, end_call)
        on_workers(client, trimmed_point)  # the freed heap trimmed, then the peak reset
        # the caller's .compute(): Dask concatenates the partitions on one worker
        got = result.compute()
        seconds = time.perf_counter() - start
        end = on_workers(client, end_call)
        if algorithm in COMMUNITY:
            assert got["vertex"].tolist() == expected["vertex"].tolist()
            checked = cm.modularity(edges, got)
            assert abs(checked - q) <= 1e-9 * abs(q), (checked, q)
            return {"workers": workers, "seconds": seconds, "q": q, "q_ratio": q / single_q,
                    "communities": int(got["community"].nunique()),
                    "single_communities": int(expected["community"].nunique()),
                    "call_seconds": call_seconds,
                    "idle_bytes": [i["rss"] for i in idle],
                    "input_bytes": [h["rss"] for h in held],
                    "peak_bytes": [c["peak"] for c in called],
                    "compute_peak_bytes": [e["peak"] for e in end],
                    "cpu_seconds": [e["cpu"] - h["cpu"] for e, h in zip(end, held)],
            # the call alone (to the persisted result), without the caller's .compute()
            "call_cpu_seconds": [c["cpu"] - h["cpu"] for c, h in zip(called, held)],
            "call_user_seconds": [c["user"] - h["user"] for c, h in zip(called, held)]}
        pd.testing.assert_frame_equal(got.astype({"vertex": expected["vertex"].dtype}),
                                      expected)
        del result, got
    build = stats["build"]
    return {"workers": workers, "seconds": seconds, "rounds": stats["rounds"],
            "layout_run": stats.get("layout", "vertex"),
            "superstep_bytes": stats["bytes_moved"], "build_bytes": build["build_bytes_moved"],
            "total_bytes": stats["bytes_moved"] + build["build_bytes_moved"],
            "cut_edges": build.get("cut_edges"), "cut_edge_bytes": build.get("cut_edge_bytes"),
            "held_vertices": build.get("held_vertices"),
            "build_cpu_seconds": build.get("build_cpu_seconds"),
            "edges": build["edges"], "messages_per_round": stats["messages_per_round"],
            "call_seconds": call_seconds,
            "idle_bytes": [i["rss"] for i in idle], "input_bytes": [h["rss"] for h in held],
            "peak_bytes": [c["peak"] for c in called],
            "compute_peak_bytes": [e["peak"] for e in end],
            "cpu_seconds": [e["cpu"] - h["cpu"] for e, h in zip(end, held)],
            # the call alone (to the persisted result), without the caller's .compute()
            "call_cpu_seconds": [c["cpu"] - h["cpu"] for c, h in zip(called, held)],
            "call_user_seconds": [c["user"] - h["user"] for c, h in zip(called, held)],
            "part_bytes": build["part_bytes"], "build_phases": build.get("phases"),
            "run_seconds": stats["seconds"], "device": stats["device"],
            "idle_cpu_per_second": idle_rate,
            # the supersteps' kernels, every worker's, summed over the rounds: wall
            # seconds (which count the time a worker waits for a core) and the
            # task thread's CPU seconds (what the breakdown adds up)
            "superstep_seconds_summed": float(sum(stats.get(
                "superstep_seconds_summed", stats.get("round_seconds_summed", [])))),
            "superstep_cpu_seconds_summed": float(sum(stats.get(
                "superstep_cpu_seconds_summed", stats.get("round_cpu_seconds_summed", [])))),
            # the kernels beside the call: each superstep's slowest worker, summed
            # (the edge layout reports its rounds' phases summed only)
            "superstep_seconds": float(sum(stats.get("superstep_seconds", [float("nan")])))}


def new_report() -> dict:
    """A report's head: date, machine, command line, commit, load; no runs yet."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=HERE).stdout.strip()
    return {"date": datetime.date.today().isoformat(), "machine": machine(),
            "command": "python " + " ".join(sys.argv), "commit": commit,
            "load_average_at_start": os.getloadavg(), "runs": []}


def machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), platform.processor())
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {"cpu": model, "cores": os.cpu_count(), "ram_gib": round(ram / 2**30, 1),
            "python": platform.python_version(), "gpu": gpu_names()}


def gpu_names() -> str:
    """The machine's GPUs as ``nvidia-smi`` names them (no CUDA context made
    here: the workers start after), or ``"none found"``."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "none found"
    names = [line.strip() for line in out.stdout.splitlines() if line.strip()]
    return ", ".join(names) if out.returncode == 0 and names else "none found"


def summarize(run: dict, single: dict) -> dict:
    above_idle = [p - i for p, i in zip(run["peak_bytes"], run["idle_bytes"])]
    above_input = [p - i for p, i in zip(run["peak_bytes"], run["input_bytes"])]
    single_idle = single["peak"] - single["idle"]
    single_input = single["peak"] - single["input"]
    p = run["workers"]
    in_compute = [p - i for p, i in zip(run["compute_peak_bytes"], run["idle_bytes"])]
    return {"peak_over_idle_max": max(above_idle), "peak_over_input_max": max(above_input),
            "compute_peak_over_idle_max": max(in_compute),
            "compute_idle_ratio": max(in_compute) / single_idle,
            "idle_ratio": max(above_idle) / single_idle,
            "input_ratio": max(above_input) / max(single_input, 1),
            "target_ratio": 1.5 / p + 0.05,
            "cpu_total": sum(run["cpu_seconds"]), "cpu_ratio": sum(run["cpu_seconds"]) /
            single["cpu"], "call_cpu_total": sum(run["call_cpu_seconds"]),
            "call_cpu_ratio": sum(run["call_cpu_seconds"]) / single["cpu"],
            "call_user_ratio": sum(run["call_user_seconds"]) / single["user"]
            if "call_user_seconds" in run and single.get("user") else float("nan")}


def median_single(singles: list[dict]) -> dict:
    """The first single call, with the median CPU and user seconds of all
    (each listed beside, in run order)."""
    single = dict(singles[0])
    for name in ("cpu", "user", "seconds"):
        single[name + "_repeats"] = [s[name] for s in singles]
        single[name] = float(np.median(single[name + "_repeats"]))
    return single


def median_run(runs: list[dict]) -> dict:
    """The cluster run whose call CPU seconds (summed over the workers) are
    the median (an odd count: one of the runs, all of its figures), with
    every run's call CPU and user seconds listed beside."""
    order = sorted(range(len(runs)), key=lambda i: sum(runs[i]["call_cpu_seconds"]))
    run = dict(runs[order[len(runs) // 2]])
    run["call_cpu_repeats"] = [sum(r["call_cpu_seconds"]) for r in runs]
    run["call_user_repeats"] = [sum(r["call_user_seconds"]) for r in runs]
    run["repeats"] = len(runs)
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphs", nargs="+", default=["rmat16", "mesh256"])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--algorithm", choices=sorted(CALLS), default="suitor")
    parser.add_argument("--backend", choices=["cpu", "gpu"], default="cpu",
                        help="the single call's backend and the workers' supersteps (gpu: "
                             "the matching only; every worker process on the machine's GPUs)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the single call and each cluster this many times (fresh "
                             "processes each time) and report the median: CPU seconds of "
                             "one call vary by a third between runs on these VMs")
    parser.add_argument("--layouts", nargs="+", default=["auto"],
                        choices=["auto", "edge", "vertex"],
                        help="the matchings' layouts to run, each on every cluster size")
    parser.add_argument("--partitions-per-worker", type=int, default=4,
                        help="input partitions per worker (a frame read from many small "
                             "files has many)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.partitions_per_worker < 1:
        parser.error("--partitions-per-worker: at least 1")
    if args.backend == "gpu" and args.algorithm in COMMUNITY:
        parser.error("--backend gpu: the Dask Louvain and Leiden run CPU kernels")
    report = new_report()
    for spec in args.graphs:
        path = f"/tmp/bench_dask_single_{spec}.parquet"
        single = median_single([single_machine(spec, path, args.algorithm, args.backend)
                                for _ in range(args.repeat)])
        print(json.dumps({"graph": spec, "single": single}), flush=True)
        expected = pd.read_parquet(path)
        edges = make_graph(spec)
        for workers, layout in [(p, lay) for p in args.workers for lay in args.layouts]:
            load = os.getloadavg()[0]
            run = median_run([distributed_call(spec, workers, edges, expected,
                                               args.algorithm, single["q"], args.backend,
                                               layout, args.partitions_per_worker)
                              for _ in range(args.repeat)])
            run.update(graph=spec, rows=len(edges), single=single, load_average=load)
            run.update(summarize(run, single))
            report["runs"].append(run)
            print(json.dumps({k: v for k, v in run.items()
                              if k not in ("messages_per_round", "build_phases")}), flush=True)
    report["algorithm"] = args.algorithm
    report["backend"] = args.backend
    if args.out:
        (write_community_report if args.algorithm in COMMUNITY else write_report)(report,
                                                                                  args.out)


def report_head(report: dict, out: str, what: str) -> list[str]:
    """Write the JSON report; the Markdown report's title, machine, command and commit lines."""
    Path(out + ".json").write_text(json.dumps(report, indent=1))
    return [f"# Distributed {what} on a LocalCluster ({report['date']})", "",
            f"Machine: {report['machine']}  ", f"Command: `{report['command']}`  ",
            f"Commit: {report['commit']}; load average at start "
            f"{tuple(round(x, 2) for x in report['load_average_at_start'])}", ""]


def write_community_report(report: dict, out: str) -> None:
    mb = 1e6
    lines = report_head(report, out, report["algorithm"].capitalize()) + [
             "Q: the distributed call's modularity (checked equal to cm.modularity of its "
             "frame) over the single-machine CPU call's. Memory in MB above each process's "
             "idle baseline (the input it holds counted); worker columns: the largest worker.",
             "", "| graph | rows | p | Q single | Q workers | Q ratio | communities single / "
             "workers | single peak−idle | worker peak−idle | ratio | target 1.5/p+0.05 | "
             "worker peak−idle in .compute() | ratio | "
             "CPU s single | CPU s workers | CPU ratio | CPU ratio without .compute() | "
             "user CPU ratio without .compute() | wall s | single wall s | load |",
             "|" + "---|" * 21]
    for r in report["runs"]:
        s = r["single"]
        lines.append(
            f"| {r['graph']} | {r['rows']:,} | {r['workers']} | {s['q']:.4f} | {r['q']:.4f} | "
            f"{r['q_ratio']:.4f} | {r['single_communities']} / {r['communities']} | "
            f"{(s['peak'] - s['idle']) / mb:.0f} | {r['peak_over_idle_max'] / mb:.0f} | "
            f"{r['idle_ratio']:.3f} | {r['target_ratio']:.3f} | "
            f"{r['compute_peak_over_idle_max'] / mb:.0f} | {r['compute_idle_ratio']:.3f} | "
            f"{s['cpu']:.2f} | "
            f"{r['cpu_total']:.2f} | {r['cpu_ratio']:.2f} | {r['call_cpu_ratio']:.2f} | "
            f"{r['call_user_ratio']:.2f} | "
            f"{r['seconds']:.2f} | {s['seconds']:.2f} | {r['load_average']:.1f} |")
    Path(out + ".md").write_text("\n".join(lines) + "\n")


def write_report(report: dict, out: str) -> None:
    mb = 1e6
    lines = report_head(report, out, "suitor_matching") + [
             f"Backend: the single call's and the workers' supersteps: "
             f"{report.get('backend', 'cpu')}.", "",
             "Repeats: " + ", ".join(
                 f"{r['graph']} p={r['workers']}: {r.get('repeats', 1)} runs, call CPU s "
                 + " / ".join(f"{x:.2f}" for x in r.get('call_cpu_repeats', [])) +
                 " (single: " + " / ".join(f"{x:.2f}" for x in
                                           r['single'].get('cpu_repeats', [])) + ")"
                 for r in report["runs"]) + "; the table holds the median run of each "
             "cluster and the single calls' median CPU and user seconds.", "",
             "Memory in MB above each process's idle baseline (after imports and compilation;"
             " the input it holds counted) and above its input (the call's own memory); "
             "worker columns: the largest worker.", "",
             "| graph | layout | rows | p | single idle MB | single peak−idle | worker idle MB | "
             "worker peak−idle | ratio | target 1.5/p+0.05 | single peak−input | "
             "worker peak−input | ratio | worker peak−idle in .compute() | ratio | "
             "CPU s single | CPU s workers | CPU ratio | CPU ratio without .compute() | "
             "user CPU ratio without .compute() | "
             "wall s | single wall s | supersteps | superstep s (slowest worker) | "
             "build MB moved | superstep MB | load |", "|" + "---|" * 27]
    for r in report["runs"]:
        s = r["single"]
        lines.append(
            f"| {r['graph']} | {layout_cell(r)} | {r['rows']:,} | {r['workers']} | {s['idle'] / mb:.0f} | "
            f"{(s['peak'] - s['idle']) / mb:.0f} | {max(r['idle_bytes']) / mb:.0f} | "
            f"{r['peak_over_idle_max'] / mb:.0f} | {r['idle_ratio']:.3f} | "
            f"{r['target_ratio']:.3f} | {(s['peak'] - s['input']) / mb:.0f} | "
            f"{r['peak_over_input_max'] / mb:.0f} | {r['input_ratio']:.3f} | "
            f"{r['compute_peak_over_idle_max'] / mb:.0f} | {r['compute_idle_ratio']:.3f} | "
            f"{s['cpu']:.2f} | {r['cpu_total']:.2f} | {r['cpu_ratio']:.2f} | "
            f"{r['call_cpu_ratio']:.2f} | {r['call_user_ratio']:.2f} | "
            f"{r['seconds']:.2f} | {s['seconds']:.2f} | {r['rounds']} | "
            f"{r.get('superstep_seconds', float('nan')):.2f} | {r['build_bytes'] / mb:.1f} | {r['superstep_bytes'] / mb:.1f} | "
            f"{r['load_average']:.1f} |")
    lines += ["", "Where the workers' CPU seconds of the call (without `.compute()`) go: the "
              "part's build (each worker's build thread from its first absorbed piece to "
              "its finished part: renumbering, edge set, preference rows), the supersteps' "
              "kernels (every worker's task thread's CPU, summed), the "
              "cluster's background (each worker's CPU per second while idle before the "
              "call, times the call's wall seconds: heartbeats, Dask's sampling profiler, the "
              "memory monitor), and the rest (summaries, routes, takes and the pieces' "
              "transfer, messages, tasks, the result frames).", "",
              "| graph | layout | p | CPU s single | CPU s workers | part build | superstep kernels "
              "| background | rest | ratio | ratio without background |", "|" + "---|" * 11]
    for r in report["runs"]:
        parts = breakdown(r)
        if parts is None:
            continue
        total = sum(r["call_cpu_seconds"])
        lines.append(
            f"| {r['graph']} | {layout_cell(r)} | {r['workers']} | {r['single']['cpu']:.2f} | {total:.2f} | "
            f"{parts['build']:.2f} | {parts['supersteps']:.2f} | {parts['background']:.2f} | "
            f"{parts['rest']:.2f} | {total / r['single']['cpu']:.2f} | "
            f"{(total - parts['background']) / r['single']['cpu']:.2f} |")
    Path(out + ".md").write_text("\n".join(lines) + "\n")


def breakdown(run: dict) -> dict | None:
    """The call's CPU seconds summed over the workers, by where they went
    (None for a run measured before these figures were kept)."""
    if "idle_cpu_per_second" not in run or not (run.get("build_phases") or
                                                run.get("build_cpu_seconds")):
        return None
    if run.get("build_phases"):
        # a phase is (name, peak bytes, resident bytes, the build thread's CPU s)
        build = sum(phases[-1][3] - phases[0][3] for phases in run["build_phases"])
    else:  # the edge layout: each worker's build task, its process's CPU
        build = sum(run["build_cpu_seconds"])
    background = sum(run["idle_cpu_per_second"]) * run["call_seconds"]
    # the steps' CPU seconds; runs measured before 2026-11-29 kept their wall
    # seconds only (with more workers than cores, more than their CPU)
    supersteps = run.get("superstep_cpu_seconds_summed", run["superstep_seconds_summed"])
    rest = sum(run["call_cpu_seconds"]) - build - supersteps - background
    return {"build": build, "supersteps": supersteps, "background": background, "rest": rest}


if __name__ == "__main__":
    main()
