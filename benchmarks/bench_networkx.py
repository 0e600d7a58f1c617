"""NetworkX's ``louvain_communities`` and ``maximal_matching`` through the
``cugraph_match`` backend, against NetworkX itself and nx-parallel.

What users wait for is the whole dispatched call, so every figure of ours is
``nx.<function>(G, ..., backend="cugraph_match")`` on a ``networkx.Graph``:

* ``ours``: with the conversion (``G.__networkx_cache__`` cleared before each
  run, so NetworkX converts the graph again);
* ``ours-cached``: the same call again, on NetworkX's cached conversion
  (which keeps the prepared ``cm.Graph`` and its rows: this is the kernels and
  the result's Python objects);
* ``convert``: the conversion alone (``convert_from_nx``), reported apart;
* ``networkx``: ``backend="networkx"``;
* ``nx-parallel``: ``backend="parallel"`` when nx-parallel implements the
  function (0.4 implements neither: the row says so).

Ours: one warm-up call on a small graph first (Numba's compilation, loaded
from its cache, excluded), then the minimum of ``--repeat`` runs.  NetworkX:
the minimum of ``--repeat`` runs for matchings, one run for Louvain (minutes
at R-MAT 18).  Every partition is scored by the same modularity (the
backend's, equal to NetworkX's to 1e-12, see tests/test_nx_backend.py; on
graphs up to ``--nx-modularity-max-edges`` NetworkX's own value is recorded
too); our matching must equal NetworkX's exactly (it is the same greedy
matching), else the run is flagged MISMATCH and exits 1.

Graphs: every ``*.mtx`` in ``--data-dir`` (pattern files unweighted, lesmis
with its weights) and R-MAT graphs at ``--scales`` from ``rmat.py`` (seed
``--seed``; float32 weights U(0, 1] stored as Python floats; repeated edges
keep the last weight, as ``add_edge`` does; self-loops kept).

Example::

    python benchmarks/bench_networkx.py --scales 16 17 18 --repeat 3
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from rmat import rmat_edges  # noqa: E402

BACKEND = "cugraph_match"
FUNCTIONS = ("louvain_communities", "maximal_matching")


# --------------------------------------------------------------------------
# machine and code
# --------------------------------------------------------------------------


def machine() -> dict:
    info = {"platform": platform.platform(), "python": platform.python_version(),
            "logical_cpus": os.cpu_count(),
            "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count()}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in lscpu.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("Model name", "CPU family", "Model", "Hypervisor vendor",
                               "Thread(s) per core", "Core(s) per socket", "Socket(s)"):
                info[key.strip()] = value.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return info


def git_state() -> dict:
    def git(*cmd):
        return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def versions() -> dict:
    import importlib.metadata as md

    out = {}
    for name in ("cugraph_match", "networkx", "nx-parallel", "numpy", "numba", "pandas"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


# --------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------


def shared_graphs(data_dir: Path):
    import networkx as nx

    from cugraph_match.datasets import read_graph

    for path in sorted(data_dir.glob("*.mtx")):
        edges, vertices = read_graph(path)
        G = nx.Graph()
        G.add_nodes_from(vertices.tolist())
        if "weight" in edges:
            G.add_weighted_edges_from(zip(edges["src"].tolist(), edges["dst"].tolist(),
                                          edges["weight"].astype(float).tolist()))
            weights = "file"
        else:
            G.add_edges_from(zip(edges["src"].tolist(), edges["dst"].tolist()))
            weights = "1"
        yield path.stem, G, weights


def rmat_graph(scale: int, seed: int):
    import networkx as nx

    edges = rmat_edges(scale, seed=seed)
    G = nx.Graph()
    G.add_weighted_edges_from(zip(edges["src"].tolist(), edges["dst"].tolist(),
                                  edges["weight"].astype(float).tolist()))
    return G


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


def timed(call, repeat: int, before=None):
    """(minimum seconds, last result) of ``repeat`` runs; ``before()`` untimed before each."""
    best, result = float("inf"), None
    for _ in range(repeat):
        if before is not None:
            before()
        gc.collect()
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def clear_cache(G):
    return lambda: G.__networkx_cache__.clear()


def run_graph(name: str, G, weights: str, args, parallel_functions: set) -> dict:
    import networkx as nx

    from cugraph_match.nx.interface import BackendInterface

    record = {"graph": name, "nodes": G.number_of_nodes(), "edges": G.number_of_edges(),
              "self_loops": nx.number_of_selfloops(G), "weights": weights}
    # the conversion alone, as each function needs it
    record["convert_weighted_s"], _ = timed(
        lambda: BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1}), args.repeat)
    record["convert_unweighted_s"], _ = timed(
        lambda: BackendInterface.convert_from_nx(G), args.repeat)

    # maximal matching
    mm = {}
    mm["networkx_s"], theirs = timed(lambda: nx.maximal_matching(G, backend="networkx"),
                                     args.repeat)
    mm["ours_s"], ours = timed(lambda: nx.maximal_matching(G, backend=BACKEND), args.repeat,
                               before=clear_cache(G))
    mm["ours_cached_s"], ours_cached = timed(lambda: nx.maximal_matching(G, backend=BACKEND),
                                             args.repeat)
    mm["size"] = len(ours)
    mm["equal_to_networkx"] = ours == theirs and ours_cached == theirs
    mm["nx_parallel"] = _parallel(lambda: nx.maximal_matching(G, backend="parallel"),
                                  "maximal_matching" in parallel_functions, args.repeat)
    record["maximal_matching"] = mm

    # Louvain
    lv = {}
    seed = args.louvain_seed
    lv["ours_s"], ours = timed(
        lambda: nx.community.louvain_communities(G, seed=seed, backend=BACKEND), args.repeat,
        before=clear_cache(G))
    lv["ours_cached_s"], ours_cached = timed(
        lambda: nx.community.louvain_communities(G, seed=seed, backend=BACKEND), args.repeat)
    lv["same_partition_cached"] = ours == ours_cached
    if args.nx_louvain_max_edges is None or G.number_of_edges() <= args.nx_louvain_max_edges:
        lv["networkx_s"], theirs = timed(
            lambda: nx.community.louvain_communities(G, seed=seed, backend="networkx"), 1)
    else:
        theirs = None
    lv["communities"] = len(ours)
    lv["modularity"] = nx.community.modularity(G, ours, backend=BACKEND)
    if theirs is not None:
        lv["networkx_communities"] = len(theirs)
        lv["networkx_modularity"] = nx.community.modularity(G, theirs, backend=BACKEND)
        if G.number_of_edges() <= args.nx_modularity_max_edges:
            lv["networkx_modularity_own"] = nx.community.modularity(G, theirs,
                                                                    backend="networkx")
            lv["modularity_own"] = nx.community.modularity(G, ours, backend="networkx")
    lv["nx_parallel"] = _parallel(
        lambda: nx.community.louvain_communities(G, seed=seed, backend="parallel"),
        "louvain_communities" in parallel_functions, 1)
    record["louvain_communities"] = lv
    G.__networkx_cache__.clear()
    return record


def _parallel(call, implemented: bool, repeat: int):
    if not implemented:
        return {"implemented": False}
    seconds, _ = timed(call, repeat)
    return {"implemented": True, "s": seconds}


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def fmt_s(seconds) -> str:
    if seconds is None:
        return "–"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def ratio(a, b) -> str:
    return "–" if a is None or b is None or b == 0 else f"{a / b:.1f}×"


def geomean(values):
    values = [v for v in values if v]
    return float(np.exp(np.mean(np.log(values)))) if values else None


def markdown(result: dict) -> str:
    meta = result["meta"]
    m = meta["machine"]
    lines = [
        f"# NetworkX backend benchmark: {meta['name']}",
        "",
        f"- date: {meta['date']} (run at {meta['started']}, {meta['wall_s']:.0f} s)",
        f"- command: `{meta['command']}`",
        f"- CPU: {m.get('Model name', '?')} (lscpu: CPU family {m.get('CPU family', '?')}, "
        f"Model {m.get('Model', '?')}, hypervisor {m.get('Hypervisor vendor', 'none')}), "
        f"{m['logical_cpus']} logical CPUs ({m['usable_cpus']} usable), "
        f"{m.get('memory_gib', '?')} GiB RAM; {m['platform']}",
        f"- load average at start {meta['load_start']}, at end {meta['load_end']} "
        f"(the machine is shared with other engineers' jobs)",
        f"- GPU: none (no GPU was lent to this task); device = {meta['device']}, so every "
        f"figure of ours is the CPU kernels",
        f"- code: commit {meta['git']['commit']}{' (dirty tree)' if meta['git']['dirty'] else ''}",
        f"- versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()),
        f"- nx-parallel implements: {', '.join(meta['nx_parallel_functions']) or 'nothing'} "
        f"of {', '.join(FUNCTIONS)}"
        + (" — so it has no row of its own: a call with backend='parallel' raises "
           "NotImplementedError, and with fallback it is NetworkX itself"
           if not meta["nx_parallel_functions"] else ""),
        f"- timing: whole dispatched call `nx.<function>(G, ..., backend=...)` on a "
        f"networkx.Graph. ours = conversion included (cache cleared before each run), "
        f"ours-cached = on NetworkX's cached conversion; min of {meta['repeat']} runs after a "
        f"warm-up; NetworkX maximal_matching min of {meta['repeat']}, NetworkX Louvain one run; "
        f"Louvain seed {meta['louvain_seed']}, resolution 1, threshold 1e-7 (NetworkX's defaults)",
        f"- quality: every partition scored by the backend's modularity (equal to NetworkX's "
        f"to 1e-12; NetworkX's own value is in the JSON for graphs up to "
        f"{meta['nx_modularity_max_edges']:,} edges)",
        "",
        "## Louvain (`nx.community.louvain_communities`)",
        "",
        "| graph | nodes | edges | NetworkX | ours | ours-cached | convert | speed-up (incl. conversion) | speed-up (cached) | Q ours | Q NetworkX | Q ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["graphs"]:
        lv = r["louvain_communities"]
        nx_s = lv.get("networkx_s")
        q_nx = lv.get("networkx_modularity")
        q_nx_text = "–" if q_nx is None else f"{q_nx:.4f}"
        q_ratio = "–" if q_nx is None else f"{lv['modularity'] / q_nx:.3f}"
        lines.append(
            f"| {r['graph']} | {r['nodes']:,} | {r['edges']:,} | {fmt_s(nx_s)} | "
            f"{fmt_s(lv['ours_s'])} | {fmt_s(lv['ours_cached_s'])} | "
            f"{fmt_s(r['convert_weighted_s'])} | {ratio(nx_s, lv['ours_s'])} | "
            f"{ratio(nx_s, lv['ours_cached_s'])} | {lv['modularity']:.4f} | "
            f"{q_nx_text} | {q_ratio} |")
    lines += [
        "",
        "## Maximal matching (`nx.maximal_matching`)",
        "",
        "Ours returns NetworkX's own matching (checked equal on every graph).",
        "",
        "| graph | edges | NetworkX | ours | ours-cached | convert | speed-up (incl. conversion) | speed-up (cached) | size | equal |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in result["graphs"]:
        mm = r["maximal_matching"]
        lines.append(
            f"| {r['graph']} | {r['edges']:,} | {fmt_s(mm['networkx_s'])} | {fmt_s(mm['ours_s'])} | "
            f"{fmt_s(mm['ours_cached_s'])} | {fmt_s(r['convert_unweighted_s'])} | "
            f"{ratio(mm['networkx_s'], mm['ours_s'])} | "
            f"{ratio(mm['networkx_s'], mm['ours_cached_s'])} | {mm['size']:,} | "
            f"{'yes' if mm['equal_to_networkx'] else '**MISMATCH**'} |")
    summary = result["summary"]
    lines += ["", "## Summary", ""]
    for key, value in summary.items():
        lines.append(f"- {key}: {value}")
    return "\n".join(lines) + "\n"


def summarise(records) -> dict:
    out = {}
    for function in FUNCTIONS:
        with_conv = geomean([r[function].get("networkx_s", 0) / r[function]["ours_s"]
                             for r in records if r[function].get("networkx_s")])
        cached = geomean([r[function].get("networkx_s", 0) / r[function]["ours_cached_s"]
                          for r in records if r[function].get("networkx_s")])
        out[f"{function}: geometric-mean speed-up over NetworkX, incl. conversion"] = \
            f"{with_conv:.1f}×" if with_conv else "–"
        out[f"{function}: geometric-mean speed-up over NetworkX, cached conversion"] = \
            f"{cached:.1f}×" if cached else "–"
    q = [r["louvain_communities"]["modularity"] / r["louvain_communities"]["networkx_modularity"]
         for r in records if r["louvain_communities"].get("networkx_modularity")]
    if q:
        out["Louvain modularity ratio ours / NetworkX"] = \
            f"geometric mean {geomean(q):.3f}, min {min(q):.3f}, max {max(q):.3f}"
    for r in records:
        if r["graph"].startswith("rmat-"):
            lv = r["louvain_communities"]
            if lv.get("networkx_s"):
                out[f"{r['graph']} Louvain"] = (
                    f"NetworkX {fmt_s(lv['networkx_s'])}, ours {fmt_s(lv['ours_s'])} incl. "
                    f"conversion ({lv['networkx_s'] / lv['ours_s']:.1f}×), "
                    f"{fmt_s(lv['ours_cached_s'])} cached "
                    f"({lv['networkx_s'] / lv['ours_cached_s']:.1f}×); Q {lv['modularity']:.4f} "
                    f"vs {lv['networkx_modularity']:.4f}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[16, 17, 18])
    parser.add_argument("--seed", type=int, default=42, help="R-MAT seed")
    parser.add_argument("--louvain-seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data" / "graphs")
    parser.add_argument("--no-real", action="store_true", help="skip the shared graphs")
    parser.add_argument("--nx-louvain-max-edges", type=int, default=None,
                        help="run NetworkX's Louvain only up to this many edges")
    parser.add_argument("--nx-modularity-max-edges", type=int, default=300_000)
    parser.add_argument("--device", default="cpu", choices=["auto", "cpu", "gpu"])
    parser.add_argument("--out-dir", type=Path, default=HERE / "results")
    parser.add_argument("--out-name", default=f"networkx_cpu_{_dt.date.today().isoformat()}")
    args = parser.parse_args(argv)

    import networkx as nx

    warnings.filterwarnings("ignore", message="Note: conversions to backend graphs")
    nx.config.warnings_to_ignore.add("cache")
    nx.config.backends.cugraph_match.device = args.device
    info = nx.utils.backends.backend_info
    parallel_functions = set(info.get("parallel", {}).get("functions", {})) & set(FUNCTIONS)

    started = _dt.datetime.now(_dt.timezone.utc)
    load_start = [round(x, 2) for x in os.getloadavg()]
    code = git_state()  # the code measured: taken before the run, not after
    # warm-up: Numba compilation (or loading it from its cache) is not what we measure
    K = nx.karate_club_graph()
    nx.maximal_matching(K, backend=BACKEND)
    nx.community.louvain_communities(K, seed=0, backend=BACKEND)

    graphs = []
    sources = [] if args.no_real else list(shared_graphs(args.data_dir))
    for name, G, weights in sources:
        print(f"{name}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges", flush=True)
        graphs.append(run_graph(name, G, weights, args, parallel_functions))
    for scale in args.scales:
        start = time.perf_counter()
        G = rmat_graph(scale, args.seed)
        build = time.perf_counter() - start
        print(f"rmat-{scale}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
              f"(built in {build:.1f} s)", flush=True)
        record = run_graph(f"rmat-{scale}", G, "U(0,1]", args, parallel_functions)
        record["build_networkx_graph_s"] = build
        graphs.append(record)
        lv = record["louvain_communities"]
        print(f"  Louvain: networkx {fmt_s(lv.get('networkx_s'))}, ours {fmt_s(lv['ours_s'])}, "
              f"cached {fmt_s(lv['ours_cached_s'])}; Q {lv['modularity']:.4f} vs "
              f"{lv.get('networkx_modularity', float('nan')):.4f}", flush=True)
        del G
        gc.collect()

    meta = {
        "name": args.out_name, "date": started.date().isoformat(),
        "started": started.isoformat(timespec="seconds"),
        "wall_s": (_dt.datetime.now(_dt.timezone.utc) - started).total_seconds(),
        "command": "python " + " ".join(shlex.quote(a) for a in
                                        [os.path.relpath(sys.argv[0], REPO), *sys.argv[1:]]),
        "machine": machine(), "git": code, "versions": versions(),
        "load_start": load_start, "load_end": [round(x, 2) for x in os.getloadavg()],
        "device": args.device, "repeat": args.repeat, "louvain_seed": args.louvain_seed,
        "nx_modularity_max_edges": args.nx_modularity_max_edges,
        "nx_parallel_functions": sorted(parallel_functions),
    }
    result = {"meta": meta, "graphs": graphs, "summary": summarise(graphs)}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / f"{args.out_name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out_dir / f"{args.out_name}.md").write_text(markdown(result))
    print(markdown(result))
    mismatch = [r["graph"] for r in graphs if not r["maximal_matching"]["equal_to_networkx"]]
    if mismatch:
        print(f"MISMATCH: our maximal matching differs from NetworkX's on {mismatch}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
