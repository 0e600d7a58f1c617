"""Helpers shared by the benchmark scripts.

* graphs: R-MAT (``rmat.py``), 2-D meshes and the MatrixMarket files of a
  data directory, each rebuilt deterministically from a :class:`GraphSpec`
  (so a worker process can rebuild exactly the frame the parent timed);
* the three input variants of every graph, as a user's pandas frame:
  ``src``/``dst`` int64 and ``weight`` float64, float32, or no weight column;
* timing (one untimed warm-up, then the minimum of ``repeat`` runs), the
  sort floor, the peak-RSS worker (``_rss_worker.py``) and the peer worker
  processes (``_nk_worker.py``, ``_ig_worker.py``);
* the machine description and the result files.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import gc
import importlib.metadata
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_DATA_DIR = REPO.parent / "shared" / "data" / "graphs"
RESULTS_DIR = HERE / "results"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import rmat  # noqa: E402  (benchmarks/rmat.py)

#: The input variants of every graph: pandas' default float64 weights,
#: float32 weights, and no weight column at all (every weight 1).
VARIANTS = ("float64", "float32", "unweighted")

_STARTED = time.perf_counter()
_LOADAVG_AT_START = [round(x, 2) for x in os.getloadavg()]


def log(message: str) -> None:
    """A progress line on stderr, with the seconds since the script started."""
    print(f"[{time.perf_counter() - _STARTED:7.1f} s] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# graphs and frames
# --------------------------------------------------------------------------


@dataclasses.dataclass
class GraphSpec:
    """Everything needed to rebuild one benchmark graph's base frame."""

    name: str
    kind: str  # "rmat", "mesh" or "file"
    param: Any  # R-MAT scale, mesh side, or file path (str)
    seed: int
    edge_factor: int = 16
    permute: bool = False

    @property
    def generated(self) -> bool:
        return self.kind in ("rmat", "mesh")

    def describe(self) -> str:
        if self.kind == "rmat":
            return (f"rmat_edges(scale={self.param}, edge_factor={self.edge_factor}, a=0.57, "
                    f"b=0.19, c=0.19, seed={self.seed}, permute={self.permute})")
        if self.kind == "mesh":
            return f"mesh_edges(side={self.param}, seed={self.seed})"
        return str(self.param)

    def task(self) -> dict:
        return dataclasses.asdict(self)


def add_graph_arguments(p, default_scales) -> None:
    """The graph-selection flags every graph benchmark takes."""
    p.add_argument("--scales", type=int, nargs="*", default=list(default_scales),
                   help="R-MAT scales (2**scale ids, edge_factor * 2**scale rows); pass "
                        "--scales with no value for none (default: %(default)s)")
    p.add_argument("--edge-factor", type=int, default=16, help="R-MAT rows per id (default 16)")
    p.add_argument("--rmat-permute", action="store_true",
                   help="randomly relabel R-MAT vertices (Graph500 style)")
    p.add_argument("--mesh", type=int, nargs="*", default=[],
                   help="also run side x side 2-D grids (e.g. --mesh 1024)")
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                   help="directory of MatrixMarket graphs (default: ../shared/data/graphs "
                        "relative to the repository root)")
    p.add_argument("--pattern", default="*.mtx", help="file glob inside --data-dir (default *.mtx)")
    p.add_argument("--no-real", action="store_true", help="skip the graphs of --data-dir")
    p.add_argument("--seed", type=int, default=42,
                   help="seed of the R-MAT structure and of every random weight (default 42)")
    p.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS),
                   help="input variants to run (default: all three)")


def add_common_arguments(p, name: str) -> None:
    """Timing, RSS, thread, GPU and output flags every script takes."""
    today = _dt.date.today().isoformat()
    p.add_argument("--repeat", type=int, default=3,
                   help="timed runs per measurement, after one untimed warm-up run; the "
                        "minimum is reported (default 3)")
    p.add_argument("--warmup", type=int, default=1,
                   help="untimed runs before the timed ones of every measurement (default 1)")
    p.add_argument("--peer-repeat", type=int, default=None,
                   help="timed runs of each peer (NetworKit, igraph) measurement (default: "
                        "--repeat)")
    p.add_argument("--peer-warmup", type=int, default=None,
                   help="untimed peer runs before the timed ones (default: --warmup)")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="threads for Numba prange and the peers (default: all usable cores)")
    p.add_argument("--rss", action=argparse.BooleanOptionalAction, default=True,
                   help="measure the peak RSS of every public call in a fresh process "
                        "(--no-rss to skip; it costs one process per call)")
    p.add_argument("--rss-only", action="store_true",
                   help="only the peak-RSS processes (generated graphs), no timings or peers; "
                        "results go to <name>_rss_cpu_<date> unless --out-name is given")
    p.add_argument("--rss-functions", nargs="+", default=None, metavar="NAME",
                   help="measure the peak RSS of these public functions only (e.g. louvain; "
                        "Graph for cm.Graph); default: every one the script times")
    p.add_argument("--rss-timeout", type=int, default=1800,
                   help="seconds allowed for one RSS worker process (default 1800)")
    p.add_argument("--gpu", choices=("auto", "off"), default="auto",
                   help="also run backend='gpu' when cm.gpu_available() (auto) or never (off)")
    p.add_argument("--out-dir", default=str(RESULTS_DIR), help="default benchmarks/results")
    p.add_argument("--out-name", default=None,
                   help=f"file stem of the .json/.md results (default {name}_cpu_{today}, "
                        f"or {name}_gpu_{today} when the GPU runs)")
    p.add_argument("--note", default=None, help="a free-text line for the report")


def finish_args(p, args) -> argparse.Namespace:
    """Checks and defaults shared by every script's arguments."""
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if args.warmup < 0:
        p.error("--warmup must be at least 0")
    args.peer_repeat = args.repeat if args.peer_repeat is None else args.peer_repeat
    args.peer_warmup = args.warmup if args.peer_warmup is None else args.peer_warmup
    if args.peer_repeat < 1 or args.peer_warmup < 0:
        p.error("--peer-repeat must be at least 1 and --peer-warmup at least 0")
    return args


def rss_wanted(args, function: str) -> bool:
    return args.rss_functions is None or function in args.rss_functions


def graph_specs(args) -> list[GraphSpec]:
    specs = [GraphSpec(f"rmat-{s}", "rmat", s, args.seed, args.edge_factor, args.rmat_permute)
             for s in args.scales]
    specs += [GraphSpec(f"mesh-{side}", "mesh", side, args.seed) for side in args.mesh]
    if not args.no_real:
        data_dir = Path(args.data_dir)
        if not data_dir.is_dir():
            print(f"warning: --data-dir {data_dir} not found; no real graphs", file=sys.stderr)
        else:
            specs += [GraphSpec(path.stem, "file", str(path), args.seed)
                      for path in sorted(data_dir.glob(args.pattern))]
    return specs


def load_base(spec: GraphSpec | dict):
    """The base frame of a graph (``src``, ``dst``, ``weight``) and a note on its weights.

    R-MAT and meshes: int32 ids, float32 weights uniform on (0, 1] from the
    spec's seed.  Files: int64 ids; their own weights when they have a weight
    column (``lesmis``), else float32 weights uniform on (0, 1] drawn from the
    seed in file order.  Duplicates and self-loops are kept.
    """
    if isinstance(spec, dict):
        spec = GraphSpec(**spec)
    if spec.kind == "rmat":
        return (rmat.rmat_edges(int(spec.param), spec.edge_factor, seed=spec.seed,
                                permute=spec.permute),
                f"float32 U(0,1], seed {spec.seed} (rmat.rmat_edges)")
    if spec.kind == "mesh":
        return (rmat.mesh_edges(int(spec.param), seed=spec.seed),
                f"float32 U(0,1], seed {spec.seed} (rmat.mesh_edges)")
    from cugraph_match.datasets import read_graph

    edges, _vertices = read_graph(spec.param)  # isolated vertices: never matched, no Q
    if "weight" in edges.columns:
        return edges, f"from the file ({edges['weight'].dtype})"
    edges["weight"] = rmat.uniform_weights(len(edges), spec.seed)
    return edges, f"float32 U(0,1], seed {spec.seed} (rmat.uniform_weights, file order)"


def variant_frame(base, variant: str):
    """A user's pandas frame of the base graph: int64 ``src``/``dst`` (pandas'
    default) and a float64 or float32 ``weight``, or no weight column."""
    import pandas as pd

    cols = {"src": np.asarray(base["src"]).astype(np.int64),
            "dst": np.asarray(base["dst"]).astype(np.int64)}
    if variant == "float64":
        cols["weight"] = np.asarray(base["weight"]).astype(np.float64)
    elif variant == "float32":
        cols["weight"] = np.asarray(base["weight"]).astype(np.float32)
    elif variant != "unweighted":
        raise ValueError(f"unknown variant {variant!r}")
    return pd.DataFrame(cols)


def frame_bytes(df) -> int:
    return int(df.memory_usage(deep=True).sum())


def small_frames(variant: str, scales=(8, 12), seed: int = 1) -> list:
    """Small R-MAT frames of one variant, for warming up (compiling) every code
    path before anything is timed; scale 12 has more than 1,000 vertices, so
    coarsen_hierarchy makes at least one level on it."""
    return [variant_frame(rmat.rmat_edges(s, seed=seed), variant) for s in scales]


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


def no_sync() -> None:
    pass


def gpu_simulated() -> bool:
    """True when the GPU code paths are to run in Numba's CUDA simulator
    (``BENCH_GPU_SIMULATOR=1`` with ``NUMBA_ENABLE_CUDASIM=1``): a check that
    they run, on a machine without a GPU; its timings mean nothing."""
    return os.environ.get("BENCH_GPU_SIMULATOR", "0") not in ("", "0") and \
        os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def gpu_sync() -> Callable[[], None]:
    if gpu_simulated():
        return no_sync
    import cupy

    return cupy.cuda.Device().synchronize


def free_device_memory() -> None:
    if gpu_simulated():
        return
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()


def timed(fn: Callable[[], Any], repeat: int, warmup: int = 1,
          sync: Callable[[], None] = no_sync):
    """``warmup`` untimed calls, then ``repeat`` timed ones; (times, last result).

    The previous result is dropped and garbage collected before each call,
    outside the clock, so one result at a time is alive.
    """
    result = None
    for _ in range(warmup):
        result = None
        gc.collect()
        result = fn()
        sync()
    times = []
    for _ in range(repeat):
        result = None
        gc.collect()
        sync()
        t0 = time.perf_counter()
        result = fn()
        sync()
        times.append(time.perf_counter() - t0)
    return times, result


def timing(times) -> dict:
    return {"time_s": float(min(times)), "times_s": [float(t) for t in times]}


def floor_record(src, dst, repeat: int) -> dict:
    """The floor: ``np.argsort`` of one uint64 key per input row,
    ``(src << 32) | dst``.  Only the argsort is timed (key build apart)."""
    t0 = time.perf_counter()
    key = (np.asarray(src).astype(np.uint64) << np.uint64(32)) | \
        np.asarray(dst).astype(np.uint64)
    key_s = time.perf_counter() - t0
    times, _ = timed(lambda: np.argsort(key), repeat)
    return {**timing(times), "key_build_s": key_s, "rows": int(key.shape[0]),
            "what": "np.argsort((src.astype(uint64) << 32) | dst.astype(uint64)), default kind"}


def ratio(a, b):
    """a / b, or None when either is missing or b is 0."""
    if a is None or b is None or b == 0:
        return None
    return float(a) / float(b)


def geomean(values):
    values = [x for x in values if x is not None and x > 0]
    if not values:
        return None
    return float(math.exp(sum(math.log(x) for x in values) / len(values)))


# --------------------------------------------------------------------------
# peak RSS per input byte (fresh process per call)
# --------------------------------------------------------------------------


def rss_measure(task: dict, timeout: int) -> dict:
    """Run ``_rss_worker.py`` on ``task`` in a fresh interpreter; its JSON record.

    The worker rebuilds the frame from the task, warms up on small frames,
    resets the peak (``/proc/self/clear_refs``), runs the call once and
    reports ``(VmHWM - VmRSS before) / df.memory_usage(deep=True).sum()``.
    """
    cmd = [sys.executable, str(HERE / "_rss_worker.py"), json.dumps(task)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}
    try:
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"no JSON from the worker: {proc.stdout[-200:]!r}"}
    out["process_wall_s"] = wall
    return out


def rss_supported() -> bool:
    return os.path.exists("/proc/self/clear_refs") and os.path.exists("/proc/self/status")


# --------------------------------------------------------------------------
# peers in worker processes
# --------------------------------------------------------------------------


def start_worker(module: str, threads: int, disabled: bool = False):
    """A one-process pool (spawn) running ``module`` (``_nk_worker`` or
    ``_ig_worker``) and its setup record; ``(None, {})`` when disabled or
    the library cannot be imported.

    NetworKit's and igraph's wheels each bundle their own ``libgomp``; they
    run in their own processes so that no second OpenMP runtime is loaded
    into the process whose Numba ``prange`` kernels are timed.
    """
    if disabled:
        return None, {}
    worker = __import__(module)
    pool = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"))
    try:
        return pool, pool.submit(worker.setup, threads).result()
    except ImportError as err:
        print(f"warning: {module} unusable ({err}); running without it", file=sys.stderr)
        pool.shutdown()
        return None, {}


def save_arrays(path: Path, df) -> dict:
    """The frame's columns as the arrays a peer is given (``u``, ``v``, and
    ``w`` when weighted) in an ``.npz``; ``n`` = largest id + 1."""
    u = df["src"].to_numpy()
    v = df["dst"].to_numpy()
    n = int(max(u.max(initial=-1), v.max(initial=-1))) + 1
    arrays = {"u": u, "v": v, "n": np.int64(n)}
    if "weight" in df.columns:
        arrays["w"] = df["weight"].to_numpy()
    np.savez(path, **arrays)
    return {"n": n, "rows": int(u.shape[0]), "weighted": "weight" in df.columns}


def best_phases(runs: list) -> dict:
    """The phases of the fastest of a worker's end-to-end runs, and all totals."""
    best = min(runs, key=lambda r: r["total_s"])
    return {"time_s": best["total_s"], "times_s": [r["total_s"] for r in runs],
            "phases_s": {k: v for k, v in best.items() if k != "total_s"}}


# --------------------------------------------------------------------------
# our results as arrays
# --------------------------------------------------------------------------


def mate_by_id(frame, n: int) -> np.ndarray:
    """A ``vertex | mate`` frame as an int64 array over ids ``0..n-1`` (-1 unmatched
    or absent); the vertex ids must be non-negative ints below ``n``."""
    out = np.full(n, -1, dtype=np.int64)
    vertex = frame["vertex"].to_numpy(dtype=np.int64)
    mate = frame["mate"].astype("Int64").fillna(-1).to_numpy(dtype=np.int64)
    out[vertex] = mate
    return out


def matching_stats(frame) -> tuple[float, int]:
    """(weight summed in float64, matched edges) of a ``vertex | mate | weight`` frame."""
    matched = int(frame["mate"].notna().sum()) // 2
    if "weight" in frame.columns:
        weight = float(frame["weight"].astype("Float64").fillna(0).to_numpy(np.float64).sum())
        return weight / 2.0, matched
    return float(matched), matched


# --------------------------------------------------------------------------
# machine and report
# --------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def ram_gib() -> float | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def version_of(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def git_state() -> dict:
    """The commit (``git rev-parse HEAD``) and whether cugraph_match/ has uncommitted
    changes (``git --no-optional-locks status``, which writes nothing)."""
    def git(*cmd):
        return subprocess.run(["git", "--no-optional-locks", *cmd], cwd=REPO,
                              capture_output=True, text=True, timeout=60).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD") or None,
                "package_dirty": bool(git("status", "--porcelain", "--", "cugraph_match"))}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "package_dirty": None}


def gpu_description() -> dict:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return {"name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{props['major']}.{props['minor']}",
            "memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
            "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
            "cuda_driver": cupy.cuda.runtime.driverGetVersion(), "cupy": cupy.__version__}


def use_gpu(args) -> tuple[bool, dict | None]:
    import cugraph_match as cm

    if args.gpu == "off":
        return False, None
    if gpu_simulated():
        # the simulator has no warp intrinsics; the test suite's shim supplies them
        sys.path.insert(0, str(REPO / "tests"))
        from cudasim_shim import install

        install()
        return True, {"name": "Numba CUDA simulator (timings meaningless)",
                      "compute_capability": "sim"}
    if not cm.gpu_available():
        return False, None
    return True, gpu_description()


def default_out_name(args, name: str, gpu: bool) -> str:
    return args.out_name or f"{name}_{'gpu' if gpu else 'cpu'}_{_dt.date.today().isoformat()}"


def threading_layer(numba) -> str | None:
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        return None


def meta(args, argv, script: str, out_name: str, gpu_info, peers: dict) -> dict:
    """Machine, code, versions, command line and arguments of one run."""
    import numba

    import cugraph_match

    versions = {"python": platform.python_version(), "cugraph_match": cugraph_match.__version__}
    for dist in ("numpy", "pandas", "numba", "scipy", "networkit", "igraph", "networkx",
                 "matching", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x"):
        versions[dist] = version_of(dist)
    for name, setup in peers.items():
        if setup.get("version"):
            versions[name] = setup["version"]
    return {
        "out_name": out_name,
        "date": _dt.date.today().isoformat(),
        "run_at_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(["python", f"benchmarks/{script}"]
                              + (sys.argv[1:] if argv is None else list(argv))),
        "cwd": os.getcwd(),
        "args": vars(args),
        "machine": {"cpu_model": cpu_model(), "cores": os.cpu_count(),
                    "usable_cores": len(os.sched_getaffinity(0)), "ram_gib": ram_gib(),
                    "platform": platform.platform(),
                    "loadavg_at_start": _LOADAVG_AT_START,
                    "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]},
        "git": git_state(),
        "gpu": gpu_info,
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": threading_layer(numba),
        "peer_threads": {name: setup.get("threads") for name, setup in peers.items()},
        "versions": {k: v for k, v in versions.items() if v},
        "repeat": args.repeat,
        "total_wall_s": time.perf_counter() - _STARTED,
    }


def meta_lines(m: dict, timing_note: str) -> list:
    mc = m["machine"]
    lines = [
        f"- date: {m['date']} (run at {m['run_at_utc']})",
        f"- command: `{m['command']}`",
        f"- machine: {mc['cpu_model']}, {mc['cores']} cores ({mc['usable_cores']} usable), "
        f"{mc['ram_gib']} GiB RAM; {mc['platform']}; load average (1, 5, 15 min) at the "
        f"start {mc['loadavg_at_start']}, at the end {mc['loadavg_at_end']}",
        f"- threads: Numba {m['numba_threads']} (layer {m['numba_threading_layer']})"
        + "".join(f"; {k} {v}" for k, v in m["peer_threads"].items() if v),
        "- GPU: " + (f"{m['gpu']['name']} (CC {m['gpu']['compute_capability']})" if m["gpu"]
                     else "none used (cm.gpu_available() is False or --gpu off)"),
        f"- code: commit {m['git']['commit']}"
        + (" with uncommitted changes in cugraph_match/" if m["git"]["package_dirty"] else ""),
        "- versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()),
        f"- timing: {timing_note}"
        + (f"; peers end to end: min of {m['args']['peer_repeat']} run(s) after "
           f"{m['args']['peer_warmup']} untimed run(s)" if m["peer_threads"] else ""),
        f"- wall time of the whole run: {m['total_wall_s']:.0f} s",
    ]
    if m["args"].get("note"):
        lines.append(f"- note: {m['args']['note']}")
    return lines


def write_report(args, out_name: str, report: dict, markdown_text: str) -> None:
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"{out_name}.json"
    md_path = out_dir / f"{out_name}.md"
    json_path.write_text(json.dumps(report, indent=1, default=_json_default) + "\n")
    md_path.write_text(markdown_text)
    print(markdown_text)
    print(f"wrote {json_path} and {md_path}")


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj)}")


# --------------------------------------------------------------------------
# formatting
# --------------------------------------------------------------------------


def fmt_t(t) -> str:
    if t is None:
        return "—"
    if t < 0:
        return "−" + fmt_t(-t)
    if t < 1e-3:
        return f"{t * 1e6:.3g} µs"
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def fmt_x(x, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}×"


def fmt_mib(b) -> str:
    return "—" if b is None else f"{b / 2**20:.1f} MiB"


def table(headers: list, rows: list, right: set | None = None) -> list:
    """Markdown table lines; columns whose index is in ``right`` are right-aligned."""
    right = right if right is not None else set(range(1, len(headers)))
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def target(what: str, where: str, value, bound: float, at_least: bool) -> dict:
    """One target check: ``value >= bound`` (at_least) or ``value <= bound``."""
    met = None if value is None else (value >= bound if at_least else value <= bound)
    return {"target": what, "where": where, "value": value, "bound": bound,
            "comparison": ">=" if at_least else "<=", "met": met}


def target_lines(targets: list) -> list:
    if not targets:
        return ["No target applies to the graphs of this run."]
    rows = [[t["target"], t["where"], fmt_x(t["value"]), f"{t['comparison']} {t['bound']:g}×",
             "—" if t["met"] is None else ("met" if t["met"] else "**not met**")]
            for t in targets]
    return table(["target", "where", "measured", "bound", "result"], rows, right={2, 3})


def rss_table_lines(records: list) -> list:
    """Rows of a peak-RSS table from ``[{graph, variant, function, ...rss fields}]``."""
    if not records:
        return ["Not measured (--no-rss, or no generated graph in this run)."]
    rows = []
    for r in records:
        if "error" in r:
            rows.append([r["graph"], r["variant"], r["function"], "—", "—", "—",
                         f"error: {r['error']}"])
            continue
        rows.append([r["graph"], r["variant"], r["function"], fmt_mib(r["input_bytes"]),
                     fmt_mib(r["peak_bytes"]), f"{r['peak_per_input_byte']:.2f}",
                     fmt_t(r["call_s"])])
    return table(["graph", "variant", "call", "input (df.memory_usage)", "peak − baseline",
                  "peak per input byte", "call time in the worker"], rows, right={3, 4, 5, 6})


# --------------------------------------------------------------------------
# --rss-only runs
# --------------------------------------------------------------------------


def run_rss_only(args, argv, script: str, name: str, measure, applies) -> int:
    """Only the peak-RSS worker processes, for every generated graph and variant.

    ``measure(spec, variant)`` returns the RSS records of one graph and
    variant; ``applies(spec, record)`` says whether the ≤ 4 bytes per input
    byte target applies to a record.
    """
    out_name = args.out_name or f"{name}_rss_cpu_{_dt.date.today().isoformat()}"
    if not rss_supported():
        print("error: /proc/self/clear_refs unavailable: cannot measure RSS", file=sys.stderr)
        return 1
    graphs, targets, errors = [], [], []
    for spec in graph_specs(args):
        if not spec.generated:
            continue
        g = {"name": spec.name, "kind": spec.kind, "param": spec.param,
             "source": spec.describe(), "variants": {}}
        for variant in args.variants:
            records = measure(spec, variant)
            g["variants"][variant] = {"rss": records}
            for rec in records:
                if "error" in rec:
                    errors.append(f"{spec.name} {variant} {rec['function']}: {rec['error']}")
                if applies(spec, rec):
                    targets.append(target(f"{rec['function']}: peak RSS per input byte",
                                          f"{spec.name} {variant}",
                                          rec.get("peak_per_input_byte"), 4.0, False))
        graphs.append(g)
    report = {"meta": meta(args, argv, script, out_name, None, {}), "graphs": graphs,
              "targets": targets, "summary": {"errors": errors}}
    lines = [f"# Peak RSS per input byte ({script} --rss-only): {out_name}", ""]
    lines += meta_lines(report["meta"], "one fresh process per call; no timing runs")
    lines += ["", "Each call runs once in a fresh process (`_rss_worker.py`) after a warm-up on "
              "small frames; peak = VmHWM after the call − VmRSS before it (the peak reset "
              "through /proc/self/clear_refs); input = `df.memory_usage(deep=True).sum()`.", "",
              "## Peak RSS", ""]
    lines += rss_table_lines([r for g in graphs for v in g["variants"].values()
                              for r in v["rss"]])
    lines += ["", "## Targets", ""] + target_lines(targets)
    if errors:
        lines += ["", "## Errors", ""] + [f"- {e}" for e in errors]
    write_report(args, out_name, report, "\n".join(lines) + "\n")
    return 1 if errors else 0
