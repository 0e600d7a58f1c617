"""Benchmark b-Suitor against NetworKit, and handshake maximal matching against greedy codes.

Two experiments on every graph (R-MAT at ``--scales``, optional meshes, and
the MatrixMarket files of ``--data-dir``; pattern graphs get float32
weights uniform on (0, 1] from ``--seed``):

1. **b-Suitor** for each ``--b`` value (default 1 2 5 10), same b for every
   vertex: ``b_suitor_pairs`` (sequential njit, eager re-proposal) against
   NetworKit's ``BSuitorMatcher(G, b)`` (``run()`` + ``getBMatching()``
   timed; NetworKit runs in a worker process, see ``_nk_worker.py``).
   Checks, none of them timed:

   * our eager result equals the delayed (queue) variant
     (``b_suitor_pairs(..., eager=False)``, which is timed as well);
   * our result equals an independent greedy b-matching computed here (all
     undirected edges sorted heaviest first under the library's tie order,
     each taken while both ends have spare capacity), unless
     ``--no-reference``;
   * capacities hold for both codes; NetworKit's edge set is compared with
     ours (it may differ where weights tie: NetworKit breaks ties its own
     way) and its weight is reported as a ratio to ours.

2. **Maximal matching**: handshake (``handshake_mates_cpu``, Numba
   ``prange``), weighted and random, against a serial random greedy maximal
   matching written below (vertices in a random order from a fixed seed;
   each still-free vertex is matched to a uniformly random free neighbour,
   i.e. the first free one in a random order of its row) and against Suitor
   (``maximal_mates(pg, "suitor", True, 0)``, the ½-approximate greedy).
   Size, weight, time and handshake rounds are reported; every result is
   checked to be a valid maximal matching.

Timing follows ``bench_matching.py``: the CSR is built once per graph
(``prepare_graph`` + ``weight_keys``, timed separately); each measurement is
one untimed warm-up (Numba compilation excluded) then ``--repeat`` runs, of
which the minimum is reported.  On a usable GPU the same kernels also run on
a GPU copy of the graph, with a device synchronisation before starting and
before stopping the clock, and are checked equal to the CPU results.

Example::

    python benchmarks/bench_bmatching.py --scales 16 18 --repeat 3
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
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import bench_matching as bm  # noqa: E402  (shared helpers: graphs, timing, machine)

DEFAULT_B = (1, 2, 5, 10)


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    today = _dt.date.today().isoformat()
    cores = os.cpu_count() or 1
    p = argparse.ArgumentParser(
        description="Time b-Suitor against NetworKit's BSuitorMatcher, and handshake maximal "
                    "matching against a serial random greedy and Suitor (CPU, and GPU when usable).")
    p.add_argument("--scales", type=int, nargs="*", default=[16, 18],
                   help="R-MAT scales; pass --scales with no value for none (default: 16 18)")
    p.add_argument("--edge-factor", type=int, default=16, help="R-MAT edges per id (default 16)")
    p.add_argument("--rmat-permute", action="store_true",
                   help="randomly relabel R-MAT vertices (Graph500 style)")
    p.add_argument("--mesh", type=int, nargs="*", default=[],
                   help="also run side x side 2-D grids (e.g. --mesh 1024)")
    p.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data" / "graphs"),
                   help="directory of MatrixMarket graphs (default: ../shared/data/graphs)")
    p.add_argument("--pattern", default="*.mtx", help="file glob inside --data-dir (default *.mtx)")
    p.add_argument("--no-real", action="store_true", help="skip the graphs of --data-dir")
    p.add_argument("--seed", type=int, default=42,
                   help="seed of R-MAT structure and of all random weights (default 42)")
    p.add_argument("--b", type=int, nargs="+", default=list(DEFAULT_B),
                   help="b values, one capacity for every vertex (default 1 2 5 10)")
    p.add_argument("--matching-seed", type=int, default=0,
                   help="seed of the handshake colourings and of the serial random greedy "
                        "(default 0)")
    p.add_argument("--max-rounds", type=int, default=1000, help="handshake round guard")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per measurement; the "
                   "minimum is reported (default 3, after one untimed warm-up)")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="Numba prange threads (default: all usable cores)")
    p.add_argument("--handshake-threads", type=int, nargs="+", default=None,
                   help="Numba thread counts to time handshake at, one record each "
                        "(default: --threads only)")
    p.add_argument("--nk-threads", type=int, default=cores,
                   help=f"NetworKit threads (default os.cpu_count() = {cores})")
    p.add_argument("--threads-per-block", type=int, default=128,
                   help="GPU b-Suitor block size (default 128)")
    p.add_argument("--gpu", choices=("auto", "off"), default="auto",
                   help="run the GPU kernels when a GPU is usable (auto) or never (off)")
    p.add_argument("--no-networkit", action="store_true", help="skip NetworKit")
    p.add_argument("--no-reference", action="store_true",
                   help="skip the independent sort-based greedy b-matching check")
    p.add_argument("--out-dir", default=str(HERE / "results"), help="default benchmarks/results")
    p.add_argument("--out-name", default=None,
                   help=f"file stem of the .json/.md results (default bmatching_cpu_{today}, "
                        f"or bmatching_gpu_{today} when the GPU runs)")
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    p.add_argument("--note", default=None, help="a free-text line for the report (e.g. the "
                   "machine was shared)")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if min(args.b) < 0:
        p.error("--b values must be non-negative")
    return args


def lscpu() -> dict:
    """A few lines of ``lscpu`` (model, sockets, cores, caches), when it is available."""
    wanted = ("Vendor ID", "Model name", "CPU family", "Model", "Socket(s)", "Core(s) per socket", "Thread(s) per core", "CPU(s)",
              "L2 cache", "L3 cache", "Hypervisor vendor")
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    info = {}
    for line in out.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in wanted:
            info[key.strip()] = value.strip()
    return info


# --------------------------------------------------------------------------
# reference codes and checks (njit, never in the timed region unless said)
# --------------------------------------------------------------------------


@njit(cache=False, nogil=True)
def random_greedy_mates(offsets, indices, seed):
    """Serial random greedy maximal matching (timed as a baseline).

    Vertices are visited in a random order; a free vertex is matched to a
    uniformly random free neighbour, which is the first free neighbour in a
    uniformly random order of its row, drawn without shuffling the row.
    """
    np.random.seed(seed)
    n = offsets.shape[0] - 1
    order = np.random.permutation(n)
    mate = np.full(n, -1, dtype=np.int64)
    max_degree = 0
    for v in range(n):
        max_degree = max(max_degree, offsets[v + 1] - offsets[v])
    free = np.empty(max_degree, dtype=np.int64)
    for i in range(n):
        v = order[i]
        if mate[v] >= 0:
            continue
        k = 0
        for e in range(offsets[v], offsets[v + 1]):
            w = indices[e]
            if mate[w] < 0 and w != v:
                free[k] = w
                k += 1
        if k > 0:
            w = free[np.random.randint(0, k)]
            mate[v] = w
            mate[w] = v
    return mate


@njit(cache=False, nogil=True)
def greedy_b_matching(lo, hi, b, n):
    """Take edges in the given (heaviest-first) order while both ends have room."""
    room = np.full(n, b, dtype=np.int64)
    take = np.zeros(lo.shape[0], dtype=np.bool_)
    for i in range(lo.shape[0]):
        u, v = lo[i], hi[i]
        if room[u] > 0 and room[v] > 0:
            take[i] = True
            room[u] -= 1
            room[v] -= 1
    return take


class EdgeTable:
    """The undirected edges (lo < hi) of a CPU CSR, sorted by code lo * n + hi."""

    def __init__(self, pg, keys):
        n = pg.num_vertices
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(pg.offsets))
        cols = pg.indices.astype(np.int64)
        upper = rows < cols
        self.n = n
        self.lo, self.hi = rows[upper], cols[upper]
        self.weight = pg.weights[upper].astype(np.float64)
        self.key = np.asarray(keys)[upper]
        code = self.lo * n + self.hi
        order = np.argsort(code, kind="stable")
        self.code = code[order]
        self.lo, self.hi = self.lo[order], self.hi[order]
        self.weight, self.key = self.weight[order], self.key[order]
        self._greedy_order = None

    def codes(self, lo, hi) -> np.ndarray:
        return np.asarray(lo, dtype=np.int64) * self.n + np.asarray(hi, dtype=np.int64)

    def weight_of(self, codes) -> float:
        """Sum (float64) of the weights of the given edges; raises if one is not an edge."""
        pos = np.searchsorted(self.code, codes)
        if codes.size and (pos.max() >= self.code.size or
                           not np.array_equal(self.code[pos], codes)):
            raise RuntimeError("a matched pair is not an edge of the graph")
        return float(self.weight[pos].sum())

    def greedy_codes(self, b: int) -> np.ndarray:
        """Sorted codes of the greedy b-matching under the library's tie order.

        Heaviest first; at equal weight key the edge with the larger
        (max, min) endpoint pair first (``core.weight_keys``).
        """
        if self._greedy_order is None:
            self._greedy_order = np.lexsort((self.lo, self.hi, self.key))[::-1]
        o = self._greedy_order
        take = greedy_b_matching(self.lo[o], self.hi[o], b, self.n)
        return np.sort(self.code[o][take])


def capacity_ok(lo, hi, n, b) -> bool:
    load = np.bincount(np.asarray(lo, dtype=np.int64), minlength=n) + \
        np.bincount(np.asarray(hi, dtype=np.int64), minlength=n)
    return bool(load.max(initial=0) <= b)


def mate_checks(mate, offsets, indices) -> dict:
    """Valid (symmetric, along edges) and maximal (every edge has a matched end)."""
    n = mate.shape[0]
    matched = mate >= 0
    ids = np.arange(n)
    symmetric = bool(np.all(mate[mate[matched]] == ids[matched]))
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    # rows hold no repeated neighbour, so each matched vertex finds its mate in its row once
    along_edges = int(np.count_nonzero(indices == mate[rows])) == int(matched.sum())
    maximal = bool(np.all(matched[rows] | matched[indices]))
    return {"valid": symmetric and along_edges, "maximal": maximal}


# --------------------------------------------------------------------------
# the runs
# --------------------------------------------------------------------------


def b_suitor_cpu_runs(pg, keys, table, args, bar, name):
    """Eager and delayed b-Suitor per b; returns records and each b's edge codes."""
    from cugraph_match.matching.b_suitor import b_suitor_pairs

    n = pg.num_vertices
    records, ours = [], {}
    for b in args.b:
        cap = np.full(n, b, dtype=np.int64)
        bar.set_postfix_str(f"{name}: b-suitor b={b}")
        times, (lo, hi, _key) = bm.timed(lambda: b_suitor_pairs(pg, cap, keys, eager=True),
                                         args.repeat)
        codes = table.codes(lo, hi)
        ours[b] = codes
        bar.update()
        bar.set_postfix_str(f"{name}: b-suitor delayed b={b}")
        dtimes, (dlo, dhi, _dkey) = bm.timed(lambda: b_suitor_pairs(pg, cap, keys, eager=False),
                                             args.repeat)
        bar.update()
        rec = {
            "b": b, "algorithm": "b-suitor-cpu", "times_s": times, "time_s": min(times),
            "weight": table.weight_of(codes), "cardinality": int(codes.size),
            "capacity_ok": capacity_ok(lo, hi, n, b),
            "delayed_times_s": dtimes, "delayed_time_s": min(dtimes),
            "delayed_identical": bool(np.array_equal(codes, table.codes(dlo, dhi))),
        }
        if not args.no_reference:
            bar.set_postfix_str(f"{name}: greedy reference b={b}")
            rec["greedy_reference_identical"] = bool(np.array_equal(codes, table.greedy_codes(b)))
        records.append(rec)
    return records, ours


def b_suitor_gpu_runs(pg_gpu, table, args, xp, sync, bar, name, ours):
    from cugraph_match.matching.b_suitor import b_suitor_pairs
    from cugraph_match.structure.core import to_backend, weight_keys

    keys = weight_keys(pg_gpu.weights, xp)
    out = {}
    for b in args.b:
        cap = xp.full(pg_gpu.num_vertices, b, dtype=np.int64)
        bar.set_postfix_str(f"{name}: b-suitor-gpu b={b}")
        times, (lo, hi, _key) = bm.timed(
            lambda: b_suitor_pairs(pg_gpu, cap, keys, threads_per_block=args.threads_per_block),
            args.repeat, sync)
        codes = np.sort(table.codes(to_backend(lo, np), to_backend(hi, np)))
        out[b] = {"gpu_times_s": times, "gpu_time_s": min(times),
                  "gpu_identical": bool(np.array_equal(codes, ours[b]))}
        bar.update()
    return out


def networkit_b_runs(pool, pg, table, args, bar, name, tmpdir: Path, ours):
    import _nk_worker as W

    path = tmpdir / "graph.npz"
    bar.set_postfix_str(f"{name}: NetworKit graph")
    bm.export_for_networkit(pg, path)
    info = pool.submit(W.load, str(path)).result()
    path.unlink()
    if (info["n"], info["m"]) != (pg.num_vertices, pg.num_edges):
        raise RuntimeError(f"NetworKit graph has n={info['n']}, m={info['m']}; "
                           f"ours n={pg.num_vertices}, m={pg.num_edges}")
    out = {}
    for b in args.b:
        bar.set_postfix_str(f"{name}: nk-bsuitor b={b}")
        res = pool.submit(W.run_bsuitor, b, args.repeat).result()
        codes = table.codes(res["lo"], res["hi"])
        weight = table.weight_of(codes)
        mine = ours[b]
        out[b] = {
            "nk_times_s": res["times"], "nk_time_s": min(res["times"]),
            "nk_weight": weight, "nk_weight_reported": res["weight"],
            "nk_cardinality": int(codes.size),
            # BMatching.size() counts matched vertices / 2: the edge count only for b = 1.
            "nk_size_reported": res["cardinality"],
            "nk_capacity_ok": capacity_ok(res["lo"], res["hi"], pg.num_vertices, b),
            "nk_identical": bool(np.array_equal(codes, mine)),
            "nk_only_edges": int(np.setdiff1d(codes, mine, assume_unique=True).size),
            "ours_only_edges": int(np.setdiff1d(mine, codes, assume_unique=True).size),
        }
        bar.update()
    pool.submit(W.release).result()
    return info["build_s"], out


def maximal_cpu_runs(pg, args, bar, name):
    """Handshake (weighted, random), serial random greedy and Suitor; records and mates.

    Handshake runs once per ``--handshake-threads`` value (Numba threads);
    the sequential baselines run on one thread whatever the setting.
    """
    import numba

    from cugraph_match.matching.maximal import handshake_mates_cpu, maximal_mates

    seed = args.matching_seed
    runs = []
    default_threads = numba.get_num_threads()
    for threads in args.handshake_threads:
        numba.set_num_threads(threads)
        for weighted in (True, False):
            label = f"handshake-{'weighted' if weighted else 'random'}-cpu"
            bar.set_postfix_str(f"{name}: {label} ({threads} threads)")
            rounds = []

            def hs(weighted=weighted, rounds=rounds):
                mate, r = handshake_mates_cpu(pg.offsets, pg.indices, weighted, seed,
                                              args.max_rounds)
                rounds.append(int(r))
                return mate

            times, mate = bm.timed(hs, args.repeat)
            runs.append(({"algorithm": label, "threads": threads, "times_s": times,
                          "rounds": rounds[-1]}, mate))
            bar.update()
    numba.set_num_threads(default_threads)
    bar.set_postfix_str(f"{name}: random greedy")
    times, mate = bm.timed(lambda: random_greedy_mates(pg.offsets, pg.indices, seed), args.repeat)
    runs.append(({"algorithm": "random-greedy-serial", "threads": 1, "times_s": times}, mate))
    bar.update()
    bar.set_postfix_str(f"{name}: suitor")
    times, mate = bm.timed(lambda: maximal_mates(pg, "suitor", True, 0), args.repeat)
    runs.append(({"algorithm": "suitor-cpu", "threads": 1, "times_s": times}, mate))
    bar.update()
    return runs


def maximal_gpu_runs(pg_gpu, args, xp, sync, bar, name):
    from cugraph_match.matching.handshake_gpu import handshake_mates_gpu
    from cugraph_match.structure.core import to_backend
    from cugraph_match.matching.maximal import maximal_mates

    seed = args.matching_seed
    runs = []
    for weighted in (True, False):
        label = f"handshake-{'weighted' if weighted else 'random'}-gpu"
        bar.set_postfix_str(f"{name}: {label}")
        rounds = []

        def hs(weighted=weighted, rounds=rounds):
            mate, r = handshake_mates_gpu(pg_gpu.offsets, pg_gpu.indices, xp, weighted, seed,
                                          args.max_rounds)
            rounds.append(int(r))
            return mate

        times, mate = bm.timed(hs, args.repeat, sync)
        runs.append(({"algorithm": label, "times_s": times, "rounds": rounds[-1]},
                     to_backend(mate, np)))
        bar.update()
    bar.set_postfix_str(f"{name}: suitor-gpu")
    times, mate = bm.timed(lambda: maximal_mates(pg_gpu, "suitor", True, 0), args.repeat, sync)
    runs.append(({"algorithm": "suitor-gpu", "times_s": times}, to_backend(mate, np)))
    bar.update()
    return runs


def finish_maximal(runs, pg) -> list[dict]:
    """Stats, validity and ratios (to the serial greedy and to Suitor) of every maximal run."""
    mates = {}
    for rec, mate in runs:
        mates.setdefault(rec["algorithm"], mate)
    for rec, mate in runs:
        if rec["algorithm"].endswith("-cpu") and rec["algorithm"] in mates:
            # the same algorithm at another thread count must give the same matching
            rec["identical_to_first"] = bool(np.array_equal(mate, mates[rec["algorithm"]]))
        rec["time_s"] = min(rec["times_s"])
        rec["weight"], rec["cardinality"] = bm.matching_stats(mate, pg.offsets, pg.indices,
                                                              pg.weights)
        rec.update(mate_checks(mate, pg.offsets, pg.indices))
        twin = rec["algorithm"].replace("-gpu", "-cpu")
        if rec["algorithm"].endswith("-gpu") and twin in mates:
            rec["identical_to_cpu"] = bool(np.array_equal(mate, mates[twin]))
    recs = [rec for rec, _ in runs]
    greedy = next(r for r in recs if r["algorithm"] == "random-greedy-serial")
    suitor = next(r for r in recs if r["algorithm"] == "suitor-cpu")
    for r in recs:
        r["size_over_greedy"] = r["cardinality"] / greedy["cardinality"] if greedy["cardinality"] else None
        r["weight_over_suitor"] = r["weight"] / suitor["weight"] if suitor["weight"] else None
        r["greedy_time_over_this"] = greedy["time_s"] / r["time_s"] if r["time_s"] > 0 else None
    return recs


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def _yes(flag) -> str:
    return "—" if flag is None else ("yes" if flag else "**NO**")


def _num(x, fmt="{:.4f}") -> str:
    return "—" if x is None else fmt.format(x)


def markdown(report: dict) -> str:
    meta = report["meta"]
    cpu = meta["cpu"]
    has_gpu = meta["gpu"] is not None
    has_nk = meta["networkit_threads"] is not None
    lines = [
        f"# b-matching and maximal-matching benchmark: {meta['out_name']}",
        "",
        f"- date: {meta['date']}",
        f"- command: `{meta['command']}`",
        f"- CPU: {cpu['model']} (lscpu: {cpu['lscpu'].get('Model name', '?')}, family "
        f"{cpu['lscpu'].get('CPU family', '?')} model {cpu['lscpu'].get('Model', '?')}, "
        f"hypervisor {cpu['lscpu'].get('Hypervisor vendor', 'none')}), "
        f"{cpu['cores']} cores ({cpu['usable_cores']} usable); platform {meta['platform']}; "
        f"load average at start {meta['loadavg_start']}, at end {meta['loadavg_end']}",
        f"- threads: Numba {meta['numba_threads']} (layer {meta['numba_threading_layer']}); "
        f"NetworKit {meta['networkit_threads'] if has_nk else 'not run'}; "
        "b-Suitor (ours and NetworKit's), the random greedy and CPU Suitor are sequential, "
        f"handshake uses Numba prange on {', '.join(map(str, meta['args']['handshake_threads']))} "
        "thread(s)",
        "- GPU: " + (f"{meta['gpu']['name']} (CC {meta['gpu']['compute_capability']})" if has_gpu
                     else "none usable on this machine: GPU columns omitted"),
        f"- code: commit {meta['git']['commit']}"
        + (" with uncommitted changes in cugraph_match/" if meta["git"]["package_dirty"] else ""),
        "- versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v),
        f"- timing: min of {meta['repeat']} runs after 1 warm-up; kernels only (CSR build "
        "and NetworKit graph build reported separately). Ours = `b_suitor_pairs` (slots + "
        "matched-pair extraction); NetworKit = `BSuitorMatcher(G, b).run()` + `getBMatching()`",
        f"- weights: {meta['weights_note']}",
    ]
    if meta["args"].get("note"):
        lines.append(f"- note: {meta['args']['note']}")
    lines += [
        "",
        "## Graphs",
        "",
        "| graph | vertices | undirected edges | max degree | weights | distinct weights "
        "| CSR build | NetworKit graph build |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for g in report["graphs"]:
        lines.append(
            f"| {g['name']} | {g['num_vertices']:,} | {g['num_edges']:,} | {g['max_degree']:,} "
            f"| {g['weights_short']} | {g['distinct_weights']:,} | {bm.fmt_t(g['build_s'])} "
            f"| {bm.fmt_t(g.get('nk_build_s'))} |")

    lines += [
        "", "## b-Suitor vs NetworKit BSuitorMatcher", "",
        "NK ÷ ours is NetworKit's time divided by ours (above 1×: ours faster). Weights are "
        "summed in float64 from the graph's weights for both codes. \"greedy\": our edge set "
        "equals the delayed (queue) b-Suitor and an independent sort-based greedy b-matching. "
        "NK edge-set differences are edges in one set only (NK only / ours only); ties in the "
        "weights allow them.", "",
    ]
    head = "| graph | b | ours | delayed |"
    rule = "|---|---:|---:|---:|"
    if has_gpu:
        head += " GPU | GPU = CPU |"
        rule += "---:|---|"
    head += (" NK | NK ÷ ours | our weight | NK weight ÷ ours | our card. | NK card. "
             "| identical to NK | greedy |")
    rule += "---:|---:|---:|---:|---:|---:|---|---|"
    lines += [head, rule]
    for g in report["graphs"]:
        for r in g["b_suitor"]:
            row = (f"| {g['name']} | {r['b']} | {bm.fmt_t(r['time_s'])} "
                   f"| {bm.fmt_t(r['delayed_time_s'])} |")
            if has_gpu:
                row += f" {bm.fmt_t(r.get('gpu_time_s'))} | {_yes(r.get('gpu_identical'))} |"
            if "nk_time_s" in r:
                same = ("yes" if r["nk_identical"] else
                        f"no ({r['nk_only_edges']:,} / {r['ours_only_edges']:,})")
                row += (f" {bm.fmt_t(r['nk_time_s'])} | {bm.fmt_ratio(r['nk_time_over_ours'])} "
                        f"| {r['weight']:.10g} | {r['nk_weight'] / r['weight']:.6f} "
                        f"| {r['cardinality']:,} | {r['nk_cardinality']:,} | {same} |")
            else:
                row += (f" — | — | {r['weight']:.10g} | — | {r['cardinality']:,} | — | — |")
            ok = r["delayed_identical"] and r.get("greedy_reference_identical", True) \
                and r["capacity_ok"]
            row += " yes |" if ok else " **NO** |"
            lines.append(row)

    lines += [
        "", "## Maximal matching: handshake vs serial random greedy vs Suitor", "",
        "Size and weight are relative to the serial random greedy and to Suitor (the "
        "½-approximate greedy, weighted). \"greedy ÷ this\" is the serial random greedy's time "
        "divided by this run's (above 1×: this one faster).", "",
        "| graph | algorithm | threads | time | greedy ÷ this | rounds | size | size ÷ greedy "
        "| weight | weight ÷ Suitor | valid & maximal |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for g in report["graphs"]:
        for r in g["maximal"]:
            ok = r["valid"] and r["maximal"] and r.get("identical_to_cpu", True) \
                and r.get("identical_to_first", True)
            lines.append(
                f"| {g['name']} | {r['algorithm']} | {r.get('threads', 'GPU')} "
                f"| {bm.fmt_t(r['time_s'])} "
                f"| {bm.fmt_ratio(r['greedy_time_over_this'])} | {r.get('rounds', '—')} "
                f"| {r['cardinality']:,} | {_num(r['size_over_greedy'])} | {r['weight']:.10g} "
                f"| {_num(r['weight_over_suitor'])} | {'yes' if ok else '**NO**'} |")

    s = report["summary"]
    lines += ["", "## Summary", ""]
    lines.append("- our consistency checks (eager = delayed = sort-based greedy, capacities, GPU = "
                 "CPU, maximal matchings valid and maximal): "
                 + ("all passed" if not s["failures"] else "**failed**: " + ", ".join(s["failures"])))
    if has_nk:
        for b, (lo_r, gm, hi_r, count) in s["nk_over_ours_by_b"].items():
            lines.append(f"- b = {b}: NK ÷ ours over {count} graphs: min {lo_r:.2f}×, "
                         f"geometric mean {gm:.2f}×, max {hi_r:.2f}×")
        lines.append("- b-Suitor: graphs and b where NetworKit is faster than ours: "
                     + (", ".join(s["b_suitor_slower_than_networkit"]) or "none"))
        lines.append("- NetworKit edge set not identical to ours: "
                     + (", ".join(s["networkit_not_identical"]) or "none"))
        lines.append("- NetworKit b-matchings over capacity: "
                     + (", ".join(s["networkit_capacity_violations"]) or "none"))
        lines.append("- note: NetworKit's `BMatching.size()` returns (matched vertices) / 2, "
                     "which is the edge count only for b = 1; the NK cardinality above is "
                     "counted from `getMatches()` (its `size()` is kept in the JSON as "
                     "`nk_size_reported`).")
    lines.append("- handshake size ÷ serial random greedy: " + s["handshake_size_range"])
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba
    from tqdm import tqdm

    import cugraph_match
    from cugraph_match.structure.core import gpu_available, prepare_graph, weight_keys

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    args.handshake_threads = [min(max(t, 1), numba.config.NUMBA_NUM_THREADS)
                              for t in (args.handshake_threads or [numba.get_num_threads()])]
    use_gpu = args.gpu == "auto" and gpu_available()
    xp, sync, gpu_info = np, bm._no_sync, None
    if use_gpu:
        import cupy

        xp = cupy
        sync = cupy.cuda.Device().synchronize
        gpu_info = bm.gpu_description()
    out_name = args.out_name or \
        f"bmatching_{'gpu' if use_gpu else 'cpu'}_{_dt.date.today().isoformat()}"
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    pool, nk_setup = bm.start_networkit(args.nk_threads, disabled=args.no_networkit)
    specs = bm.graph_specs(args)
    nb = len(args.b)
    per_graph = 2 * nb + 2 * len(args.handshake_threads) + 2 + (nb + 3 if use_gpu else 0) + (nb if pool else 0)

    started = time.perf_counter()
    loadavg_start = [round(x, 2) for x in os.getloadavg()]
    graphs = []
    with tempfile.TemporaryDirectory(prefix="bench_bmatching_") as tmp, \
            tqdm(total=len(specs) * per_graph, unit="run", disable=args.no_progress,
                 dynamic_ncols=True) as bar:
        tmpdir = Path(tmp)
        for spec in specs:
            bar.set_postfix_str(f"{spec.name}: load")
            t0 = time.perf_counter()
            edges, weights_note = spec.load()
            load_s = time.perf_counter() - t0

            bar.set_postfix_str(f"{spec.name}: CSR")
            t0 = time.perf_counter()
            pg = prepare_graph(edges, "src", "dst", "weight", backend="cpu")
            keys = weight_keys(pg.weights, np)
            build_s = time.perf_counter() - t0
            table = EdgeTable(pg, keys)
            record = {
                "name": spec.name, "kind": spec.kind, "source": spec.source,
                "weights": weights_note,
                "weights_short": "file" if weights_note.startswith("from the file")
                else f"U(0,1] seed {args.seed}",
                "raw_edges": len(edges), "num_vertices": pg.num_vertices,
                "num_edges": pg.num_edges,
                "max_degree": int(np.diff(pg.offsets).max()) if pg.num_vertices else 0,
                "distinct_weights": int(np.unique(pg.weights).shape[0]),
                "load_s": load_s, "build_s": build_s,
            }
            b_recs, ours = b_suitor_cpu_runs(pg, keys, table, args, bar, spec.name)
            max_runs = maximal_cpu_runs(pg, args, bar, spec.name)
            if use_gpu:
                bar.set_postfix_str(f"{spec.name}: GPU CSR")
                sync()
                t0 = time.perf_counter()
                pg_gpu = prepare_graph(edges, "src", "dst", "weight", backend="gpu")
                sync()
                record["build_gpu_s"] = time.perf_counter() - t0
                gpu_b = b_suitor_gpu_runs(pg_gpu, table, args, xp, sync, bar, spec.name, ours)
                for r in b_recs:
                    r.update(gpu_b[r["b"]])
                max_runs += maximal_gpu_runs(pg_gpu, args, xp, sync, bar, spec.name)
                del pg_gpu
                xp.get_default_memory_pool().free_all_blocks()
            del edges
            gc.collect()
            if pool is not None:
                record["nk_build_s"], nk = networkit_b_runs(pool, pg, table, args, bar,
                                                             spec.name, tmpdir, ours)
                for r in b_recs:
                    r.update(nk[r["b"]])
                    r["nk_time_over_ours"] = r["nk_time_s"] / r["time_s"] if r["time_s"] else None
                    r["nk_weight_over_ours"] = r["nk_weight"] / r["weight"] if r["weight"] else None
            record["b_suitor"] = b_recs
            record["maximal"] = finish_maximal(max_runs, pg)
            graphs.append(record)
            del pg, keys, table, ours, max_runs
            gc.collect()
    if pool is not None:
        pool.shutdown()

    failures, slower, nk_diff, nk_cap = [], [], [], []
    hs_ratios = []
    for g in graphs:
        for r in g["b_suitor"]:
            tag = f"{g['name']} b={r['b']}"
            if not r["capacity_ok"]:
                failures.append(f"{tag} (capacity)")
            if not r["delayed_identical"]:
                failures.append(f"{tag} (eager != delayed)")
            if r.get("greedy_reference_identical") is False:
                failures.append(f"{tag} (!= sort-based greedy)")
            if r.get("gpu_identical") is False:
                failures.append(f"{tag} (GPU != CPU)")
            if "nk_time_s" in r:
                if r["nk_time_s"] < r["time_s"]:
                    slower.append(f"{tag} (NK {bm.fmt_t(r['nk_time_s'])} vs ours "
                                  f"{bm.fmt_t(r['time_s'])}: {bm.fmt_ratio(r['nk_time_over_ours'])})")
                if not r["nk_identical"]:
                    nk_diff.append(f"{tag} (weight ratio {r['nk_weight_over_ours']:.6f})")
                if not r["nk_capacity_ok"]:
                    nk_cap.append(tag)
        for r in g["maximal"]:
            if not (r["valid"] and r["maximal"]) or r.get("identical_to_cpu") is False \
                    or r.get("identical_to_first") is False:
                failures.append(f"{g['name']} {r['algorithm']}")
            if r["algorithm"].startswith("handshake") and r["size_over_greedy"] is not None:
                hs_ratios.append((r["size_over_greedy"], f"{g['name']} {r['algorithm']}"))
    by_b = {}
    for g in graphs:
        for r in g["b_suitor"]:
            if r.get("nk_time_over_ours"):
                by_b.setdefault(r["b"], []).append(r["nk_time_over_ours"])
    nk_by_b = {b: (min(v), float(np.exp(np.mean(np.log(v)))), max(v), len(v))
               for b, v in by_b.items()}
    if hs_ratios:
        lo_r, hi_r = min(hs_ratios), max(hs_ratios)
        hs_range = f"{lo_r[0]:.4f} ({lo_r[1]}) to {hi_r[0]:.4f} ({hi_r[1]})"
    else:
        hs_range = "—"

    command = shlex.join(["python"] + (sys.argv if argv is None
                                       else ["benchmarks/bench_bmatching.py"] + list(argv)))
    report = {
        "meta": {
            "out_name": out_name,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "command": command,
            "argv": sys.argv if argv is None else list(argv),
            "cwd": os.getcwd(),
            "args": vars(args),
            "cpu": {"model": bm.cpu_model(), "cores": os.cpu_count(),
                    "usable_cores": len(os.sched_getaffinity(0)), "lscpu": lscpu()},
            "platform": platform.platform(),
            "git": bm.git_state(),
            "gpu": gpu_info,
            "numba_threads": numba.get_num_threads(),
            "numba_threading_layer": bm._threading_layer(numba),
            "networkit_threads": nk_setup["threads"],
            "versions": {
                "python": platform.python_version(),
                "cugraph_match": cugraph_match.__version__,
                "numpy": np.__version__,
                "numba": numba.__version__,
                "numba-cuda": bm.version_of("numba-cuda"),
                "pandas": bm.version_of("pandas"),
                "networkit": nk_setup["version"] or bm.version_of("networkit"),
                "cupy": gpu_info["cupy"] if gpu_info else None,
            },
            "repeat": args.repeat,
            "seed": args.seed,
            "matching_seed": args.matching_seed,
            "weights_note": (f"pattern graphs (R-MAT, meshes, pattern .mtx files) get float32 "
                             f"weights uniform on (0,1] from seed {args.seed}; "
                             f"files with a weight column keep their own weights"),
            "total_wall_s": time.perf_counter() - started,
            "loadavg_start": loadavg_start,
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        },
        "graphs": graphs,
        "summary": {
            "failures": failures,
            "b_suitor_slower_than_networkit": slower,
            "networkit_not_identical": nk_diff,
            "networkit_capacity_violations": nk_cap,
            "handshake_size_range": hs_range,
            "nk_over_ours_by_b": nk_by_b,
        },
    }
    json_path = out_dir / f"{out_name}.json"
    md_path = out_dir / f"{out_name}.md"
    json_path.write_text(json.dumps(report, indent=1, default=bm._json_default) + "\n")
    text = markdown(report)
    md_path.write_text(text)
    print(text)
    print(f"wrote {json_path} and {md_path} ({report['meta']['total_wall_s']:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
