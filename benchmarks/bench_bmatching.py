"""Benchmark what a user of b_suitor_matching and maximal_matching waits for:
the whole call from the caller's pandas frame to the returned frame, with the
kernel beside it, NetworKit's BSuitorMatcher end to end and an argsort floor.

Graphs and input variants are those of ``bench_matching.py`` (R-MAT at
``--scales``, optional meshes, the MatrixMarket files of ``--data-dir``; each
as an int64 ``src``/``dst`` frame with a float64, a float32 or no ``weight``
column).

For every graph and variant (minimum of ``--repeat`` timed runs after one
untimed warm-up run; every call compiled on small frames first):

* ``cm.Graph(df, backend="cpu")``: the prepared-graph build alone;
* b-Suitor, for each ``--b`` (one capacity for every vertex):
  ``cm.b_suitor_matching(df, b=b, backend="cpu")`` (whole call), the call on a
  prepared Graph, and the kernel ``b_suitor_pairs(g, cap)`` on a Graph whose
  preference rows are built (``cap = capacities(g, df, b)``); the delayed
  (queue) kernel ``b_suitor_pairs(g, cap, eager=False)`` beside it; NetworKit
  end to end from the same arrays (``GraphFromCoo`` + ``removeSelfLoops`` +
  ``removeMultiEdges`` + ``BSuitorMatcher(G, b).run()`` + ``getBMatching()``,
  in its own process, ``_nk_worker.py``);
* handshake maximal matching, heavy-edge (``weighted=True``) and random:
  ``cm.maximal_matching(df, method="handshake", weighted=..., seed=...,
  backend="cpu")``, the call on a prepared Graph, and the kernel
  ``maximal_mates(g, "handshake", weighted, seed)`` on a Graph whose neighbour
  rows are built; a serial random greedy maximal matching (written below, on
  the same rows) as the size and speed baseline of a sequential code;
* the floor: ``np.argsort`` of one uint64 key ``(src << 32) | dst`` per row;
* with ``--rss`` (default), the peak RSS per input byte of every public call,
  one fresh process per call (``_rss_worker.py``), on generated graphs.

Checks (untimed): the whole call, the prepared-Graph call and the kernel
give the same edges; eager = delayed; both equal an independent greedy
b-matching computed here from the Graph's edges (heaviest first under the
library's tie order; ``--no-reference`` skips it); capacities hold (ours and
NetworKit's); the maximal matchings are valid and maximal.  NetworKit's
edge set is compared with ours: it may differ where weights tie and where
duplicate rows carry different weights (NetworKit keeps the first row's
weight, we keep the largest); its weight is summed on our graph.  A failed
check among ours makes the script exit with status 1.

Example::

    python benchmarks/bench_bmatching.py --scales 18 20 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as C  # noqa: E402

TARGET_SCALES = (18, 20)
RSS_TARGET_SCALES = (20,)
DEFAULT_B = (1, 2, 5, 10)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Whole-call and kernel timings of b_suitor_matching and "
                    "maximal_matching (handshake) against NetworKit's BSuitorMatcher (end to "
                    "end) and an argsort floor, with peak RSS per input byte.")
    C.add_graph_arguments(p, default_scales=(14, 16))
    C.add_common_arguments(p, "bmatching")
    p.add_argument("--b", type=int, nargs="+", default=list(DEFAULT_B),
                   help="b values, one capacity for every vertex (default 1 2 5 10)")
    p.add_argument("--matching-seed", type=int, default=0,
                   help="seed of the handshake colourings and of the serial random greedy "
                        "(default 0)")
    p.add_argument("--no-networkit", action="store_true", help="skip NetworKit")
    p.add_argument("--no-reference", action="store_true",
                   help="skip the independent sort-based greedy b-matching check")
    p.add_argument("--threads-per-block", type=int, default=128,
                   help="GPU b-Suitor block size (default 128)")
    args = C.finish_args(p, p.parse_args(argv))
    if min(args.b) < 0:
        p.error("--b values must be non-negative")
    return args


# --------------------------------------------------------------------------
# reference codes and checks (njit; never timed except the serial greedy)
# --------------------------------------------------------------------------


@njit(cache=False, nogil=True)
def random_greedy_mates(offsets, indices, seed):
    """Serial random greedy maximal matching (timed as a sequential baseline).

    Vertices are visited in a random order; a free vertex is matched to a
    uniformly random free neighbour, drawn without shuffling the row.
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
    """The Graph's undirected edges in the caller's ids: sorted codes
    ``lo * n_ids + hi`` (``lo < hi``) and their weights (1 when unweighted)."""

    def __init__(self, g, n_ids: int):
        e = g.edges
        labels = g.labels.to_numpy().astype(np.int64)
        self.labels, self.n_ids = labels, n_ids
        self.lo_i = np.asarray(e.lo).astype(np.int64)
        self.hi_i = np.asarray(e.hi).astype(np.int64)
        self.w = None if e.w is None else np.asarray(e.w)
        code = labels[self.lo_i] * n_ids + labels[self.hi_i]
        order = np.argsort(code, kind="stable")
        self.code = code[order]
        self.weight = np.ones(code.shape[0]) if self.w is None \
            else self.w[order].astype(np.float64)

    def codes_of_ids(self, a, b) -> np.ndarray:
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        return np.sort(np.minimum(a, b) * self.n_ids + np.maximum(a, b))

    def codes_of_internal(self, a, b) -> np.ndarray:
        a = self.labels[np.asarray(a, dtype=np.int64)]
        b = self.labels[np.asarray(b, dtype=np.int64)]
        return self.codes_of_ids(a, b)

    def weight_of(self, codes) -> float:
        """Sum (float64, our graph's weights) of the given edges; raises if one is not an edge."""
        pos = np.searchsorted(self.code, codes)
        if codes.size and (pos.max() >= self.code.size or
                           not np.array_equal(self.code[pos], codes)):
            raise RuntimeError("a matched pair is not an edge of the graph")
        return float(self.weight[pos].sum())

    def greedy_codes(self, b: int) -> np.ndarray:
        """Codes of the greedy b-matching: heaviest first, ties to the larger
        (hi, lo) pair of internal ids (the library's order)."""
        keys = (self.lo_i, self.hi_i) + (() if self.w is None else (self.w,))
        order = np.lexsort(keys)[::-1]
        take = greedy_b_matching(self.lo_i[order], self.hi_i[order], b, self.labels.shape[0])
        return self.codes_of_internal(self.lo_i[order][take], self.hi_i[order][take])


def capacity_ok(codes, n_ids: int, b: int) -> bool:
    lo, hi = codes // n_ids, codes % n_ids
    load = np.bincount(np.concatenate([lo, hi]), minlength=n_ids)
    return bool(load.max(initial=0) <= b)


def mate_checks(mate, offsets, indices) -> dict:
    """Valid (symmetric, along edges) and maximal (every edge has a matched end)."""
    n = mate.shape[0]
    matched = mate >= 0
    ids = np.arange(n)
    symmetric = bool(np.all(mate[mate[matched]] == ids[matched]))
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    along_edges = int(np.count_nonzero(indices == mate[rows])) == int(matched.sum())
    maximal = bool(np.all(matched[rows] | matched[indices]))
    return {"valid": symmetric and along_edges, "maximal": maximal}


# --------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------


def warm_up(variants, b_values, seed: int) -> None:
    import cugraph_match as cm
    from cugraph_match.matching.b_suitor import b_suitor_pairs, capacities
    from cugraph_match.matching.maximal import maximal_mates

    for variant in variants:
        for df in C.small_frames(variant):
            g = cm.Graph(df, backend="cpu")
            g.preference_csr()
            rows = g.neighbour_csr()
            for b in sorted(set(b_values)):
                cm.b_suitor_matching(df, b=b, backend="cpu")
                cm.b_suitor_matching(g, b=b)
                cap = capacities(g, df, b)
                b_suitor_pairs(g, cap)
                b_suitor_pairs(g, cap, eager=False)
            for weighted in (True, False):
                cm.maximal_matching(df, method="handshake", weighted=weighted, seed=seed,
                                    backend="cpu")
                cm.maximal_matching(g, method="handshake", weighted=weighted, seed=seed)
                maximal_mates(g, "handshake", weighted, seed)
            random_greedy_mates(rows.offsets, rows.indices, seed)
            EdgeTable(g, int(max(df["src"].max(), df["dst"].max())) + 1).greedy_codes(1)


def b_suitor_runs(df, g, table: EdgeTable, args, tag: str, floor_s: float) -> tuple[list, dict]:
    import cugraph_match as cm
    from cugraph_match.matching.b_suitor import b_suitor_pairs, capacities

    r, warm = args.repeat, args.warmup
    records, ours = [], {}
    for b in args.b:
        C.log(f"{tag}: b_suitor_matching b={b}")
        cap = capacities(g, df, b)
        whole, frame = C.timed(lambda: cm.b_suitor_matching(df, b=b, backend="cpu"), r, warm)
        prepared, pframe = C.timed(lambda: cm.b_suitor_matching(g, b=b), r, warm)
        kernel, (lo, hi, _key) = C.timed(lambda: b_suitor_pairs(g, cap), r, warm)
        delayed, (dlo, dhi, _dkey) = C.timed(lambda: b_suitor_pairs(g, cap, eager=False), r, warm)
        codes = table.codes_of_ids(frame["src"].to_numpy(), frame["dst"].to_numpy())
        rec = {"b": b, "whole": C.timing(whole), "prepared_graph": C.timing(prepared),
               "kernel": C.timing(kernel), "kernel_what": "b_suitor_pairs(g, cap)",
               "delayed_kernel": C.timing(delayed)}
        rec["plumbing_s"] = rec["whole"]["time_s"] - rec["kernel"]["time_s"]
        rec["kernel_share"] = C.ratio(rec["kernel"]["time_s"], rec["whole"]["time_s"])
        rec["whole_over_floor"] = C.ratio(rec["whole"]["time_s"], floor_s)
        rec["weight"], rec["cardinality"] = table.weight_of(codes), int(codes.size)
        rec["checks"] = {
            "prepared_graph_identical": bool(np.array_equal(
                codes, table.codes_of_ids(pframe["src"].to_numpy(), pframe["dst"].to_numpy()))),
            "kernel_identical": bool(np.array_equal(codes, table.codes_of_internal(lo, hi))),
            "delayed_identical": bool(np.array_equal(codes, table.codes_of_internal(dlo, dhi))),
            "capacity_ok": capacity_ok(codes, table.n_ids, b),
        }
        if not args.no_reference:
            rec["checks"]["greedy_reference_identical"] = bool(
                np.array_equal(codes, table.greedy_codes(b)))
        ours[b] = codes
        records.append(rec)
        del frame, pframe
    return records, ours


def maximal_runs(df, g, args, tag: str, floor_s: float, n_ids: int) -> tuple[list, dict]:
    import cugraph_match as cm
    from cugraph_match.matching.maximal import maximal_mates

    r, warm, seed = args.repeat, args.warmup, args.matching_seed
    rows = g.neighbour_csr()
    labels = g.labels.to_numpy().astype(np.int64)
    out, cpu_mates = [], {}
    for weighted in (True, False):
        label = f"handshake {'heavy-edge' if weighted else 'random'}"
        C.log(f"{tag}: maximal_matching {label}")
        whole, frame = C.timed(
            lambda: cm.maximal_matching(df, method="handshake", weighted=weighted, seed=seed,
                                        backend="cpu"), r, warm)
        prepared, pframe = C.timed(
            lambda: cm.maximal_matching(g, method="handshake", weighted=weighted, seed=seed),
            r, warm)
        kernel, mate = C.timed(lambda: maximal_mates(g, "handshake", weighted, seed), r, warm)
        by_id = np.full(n_ids, -1, dtype=np.int64)
        by_id[labels] = np.where(mate >= 0, labels[np.maximum(mate, 0)], -1)
        rec = {"algorithm": label, "weighted": weighted, "whole": C.timing(whole),
               "prepared_graph": C.timing(prepared), "kernel": C.timing(kernel),
               "kernel_what": f"maximal_mates(g, 'handshake', {weighted}, {seed})"}
        rec["plumbing_s"] = rec["whole"]["time_s"] - rec["kernel"]["time_s"]
        rec["kernel_share"] = C.ratio(rec["kernel"]["time_s"], rec["whole"]["time_s"])
        rec["whole_over_floor"] = C.ratio(rec["whole"]["time_s"], floor_s)
        rec["cardinality"] = int((mate >= 0).sum()) // 2
        rec["checks"] = {
            "prepared_graph_identical": bool(np.array_equal(C.mate_by_id(frame, n_ids),
                                                            C.mate_by_id(pframe, n_ids))),
            "kernel_identical": bool(np.array_equal(C.mate_by_id(frame, n_ids), by_id)),
            **mate_checks(mate, rows.offsets, rows.indices)}
        out.append(rec)
        cpu_mates[weighted] = by_id
        del frame, pframe
    C.log(f"{tag}: serial random greedy")
    times, mate = C.timed(lambda: random_greedy_mates(rows.offsets, rows.indices, seed),
                          r, warm)
    greedy = {"algorithm": "serial random greedy (kernel, neighbour rows)",
              "kernel": C.timing(times), "cardinality": int((mate >= 0).sum()) // 2,
              "checks": mate_checks(mate, rows.offsets, rows.indices)}
    for rec in out:
        rec["size_over_greedy"] = C.ratio(rec["cardinality"], greedy["cardinality"])
        rec["greedy_kernel_over_kernel"] = C.ratio(greedy["kernel"]["time_s"],
                                                   rec["kernel"]["time_s"])
    out.append(greedy)
    return out, cpu_mates


def networkit_runs(pool, path: Path, args, tag: str, table: EdgeTable, ours: dict) -> dict:
    import _nk_worker as W

    pool.submit(W.load, str(path)).result()
    out = {}
    for b in args.b:
        C.log(f"{tag}: NetworKit BSuitorMatcher b={b} end to end")
        res = pool.submit(W.run_bsuitor, b, args.peer_repeat, args.peer_warmup).result()
        codes = table.codes_of_ids(res["lo"], res["hi"])
        rec = C.best_phases(res["runs"])
        mine = ours[b]
        rec.update({
            "weight": table.weight_of(codes), "weight_reported": res["weight_reported"],
            "cardinality": int(codes.size),
            # BMatching.size() counts matched vertices / 2: the edge count only for b = 1
            "size_reported": res["size_reported"], "nk_edges": res["nk_edges"],
            "capacity_ok": capacity_ok(codes, table.n_ids, b),
            "identical_to_ours": bool(np.array_equal(codes, mine)),
            "nk_only_edges": int(np.setdiff1d(codes, mine, assume_unique=True).size),
            "ours_only_edges": int(np.setdiff1d(mine, codes, assume_unique=True).size)})
        out[b] = rec
    pool.submit(W.release).result()
    return out


def gpu_runs(df, args, tag: str, table: EdgeTable, ours: dict, cpu_mates: dict,
             n_ids: int) -> dict:
    """backend="gpu" whole calls, prepared-Graph calls and kernels, device synchronised."""
    import cugraph_match as cm
    from cugraph_match.matching.b_suitor import b_suitor_pairs, capacities
    from cugraph_match.matching.maximal import maximal_mates
    from cugraph_match.structure.backend import to_backend

    sync = C.gpu_sync()
    r, warm, seed = args.repeat, args.warmup, args.matching_seed
    C.log(f"{tag}: GPU")
    out = {}
    times, _ = C.timed(lambda: cm.Graph(df, backend="gpu"), r, warm, sync)
    out["Graph"] = C.timing(times)
    g = cm.Graph(df, backend="gpu")
    g.preference_csr()
    g.neighbour_csr()
    sync()
    out["b_suitor"] = {}
    for b in args.b:
        cap = capacities(g, df, b)
        whole, frame = C.timed(lambda: cm.b_suitor_matching(df, b=b, backend="gpu"), r, warm,
                               sync)
        prepared, _ = C.timed(lambda: cm.b_suitor_matching(g, b=b), r, warm, sync)
        kernel, (lo, hi, _key) = C.timed(
            lambda: b_suitor_pairs(g, cap, threads_per_block=args.threads_per_block), r, warm,
            sync)
        codes = table.codes_of_ids(frame["src"].to_numpy(), frame["dst"].to_numpy())
        out["b_suitor"][b] = {
            "whole": C.timing(whole), "prepared_graph": C.timing(prepared),
            "kernel": C.timing(kernel),
            "identical_to_cpu": bool(np.array_equal(codes, ours[b])) and bool(np.array_equal(
                codes, table.codes_of_internal(to_backend(lo, np), to_backend(hi, np))))}
    out["maximal"] = {}
    for weighted in (True, False):
        whole, frame = C.timed(
            lambda: cm.maximal_matching(df, method="handshake", weighted=weighted, seed=seed,
                                        backend="gpu"), r, warm, sync)
        kernel, _ = C.timed(lambda: maximal_mates(g, "handshake", weighted, seed), r, warm,
                            sync)
        out["maximal"][str(weighted)] = {
            "whole": C.timing(whole), "kernel": C.timing(kernel),
            "identical_to_cpu": bool(np.array_equal(C.mate_by_id(frame, n_ids),
                                                    cpu_mates[weighted]))}
    del g
    C.free_device_memory()
    return out


def rss_runs(spec, variant: str, args, tag: str) -> list:
    tasks = [("Graph", {})] + [("b_suitor_matching", {"b": b}) for b in args.b] + \
        [("maximal_matching", {"weighted": w, "seed": args.matching_seed}) for w in (True, False)]
    out = []
    for function, params in tasks:
        if not C.rss_wanted(args, function):
            continue
        C.log(f"{tag}: peak RSS of {function} {params or ''} (fresh process)")
        task = {"graph": spec.task(), "variant": variant, "function": function,
                "params": params, "threads": args.threads}
        rec = C.rss_measure(task, args.rss_timeout)
        label = function + ("" if not params else " (" + ", ".join(
            f"{k}={v}" for k, v in params.items() if k != "seed") + ")")
        out.append({**rec, "graph": spec.name, "variant": variant, "function": label})
    return out


# --------------------------------------------------------------------------
# targets and report
# --------------------------------------------------------------------------


def evaluate_targets(graphs: list) -> list:
    out = []
    for g in graphs:
        scale = g["param"] if g["kind"] == "rmat" else None
        for variant, v in g["variants"].items():
            where = f"{g['name']} {variant}"
            if scale in TARGET_SCALES:
                for rec in v["b_suitor"]:
                    out.append(C.target(f"b_suitor_matching b={rec['b']}: whole call ÷ floor",
                                        where, rec["whole_over_floor"], 3.0, False))
                for rec in v["maximal"]:
                    if "whole" in rec:
                        out.append(C.target(f"maximal_matching {rec['algorithm']}: whole call "
                                            "÷ floor", where, rec["whole_over_floor"], 3.0,
                                            False))
            if scale in RSS_TARGET_SCALES:
                for rec in v.get("rss", []):
                    out.append(C.target(f"{rec['function']}: peak RSS per input byte", where,
                                        rec.get("peak_per_input_byte"), 4.0, False))
    return out


def _ok(checks: dict) -> str:
    bad = [k for k, ok in checks.items() if not ok]
    return "yes" if not bad else "**NO**: " + ", ".join(bad)


def markdown(report: dict) -> str:
    m = report["meta"]
    lines = [f"# b-matching and maximal-matching benchmark: {m['out_name']}", ""]
    lines += C.meta_lines(m, f"min of {m['repeat']} runs after {m['args']['warmup']} untimed "
                             "warm-up run(s); every call compiled on small frames first")
    lines += [
        "",
        "Whole call: `cm.b_suitor_matching(df, b=b, backend=\"cpu\")` / "
        "`cm.maximal_matching(df, method=\"handshake\", ...)` from the pandas frame to the "
        "returned frame. Prepared Graph: the same call on `g = cm.Graph(df)` with its rows "
        "built. Kernel: `b_suitor_pairs(g, cap)` / `maximal_mates(g, \"handshake\", weighted, "
        "seed)`. Plumbing = whole − kernel. Floor: `np.argsort` of one uint64 key per input "
        "row. NetworKit end to end: `GraphFromCoo` from the same arrays + `removeSelfLoops` + "
        "`removeMultiEdges` + `BSuitorMatcher(G, b).run()` + `getBMatching()` (for the "
        "unweighted variant the graph is built weighted, every weight 1.0: BSuitorMatcher "
        "refuses unweighted graphs).",
        "",
        "## Graphs",
        "",
    ]
    rows = [[g["name"], f"{g['rows']:,}", f"{g['num_vertices']:,}", f"{g['num_edges']:,}",
             f"{g['max_degree']:,}", g["weights"], C.fmt_t(g["floor"]["time_s"])]
            for g in report["graphs"]]
    lines += C.table(["graph", "input rows", "vertices", "undirected edges", "max degree",
                      "weights", "floor (argsort)"], rows, right={1, 2, 3, 4, 6})
    lines += ["", "## b-Suitor: whole call, prepared Graph, kernel, NetworKit end to end", "",
              "NK ÷ ours: NetworKit's end-to-end time over our whole call (above 1×: ours "
              "faster). Weights are summed in float64 on our graph for both. \"checks\": "
              "whole call = prepared-Graph call = kernel = delayed kernel = sort-based greedy, "
              "capacities hold. NK edge-set differences: edges in NetworKit's set only / in ours "
              "only.", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            lines_nk = v.get("networkit", {})
            for rec in v["b_suitor"]:
                nk = lines_nk.get(rec["b"]) or lines_nk.get(str(rec["b"]))
                row = [g["name"], variant, rec["b"], C.fmt_t(v["graph_build"]["time_s"]),
                       C.fmt_t(rec["whole"]["time_s"]), C.fmt_x(rec["whole_over_floor"]),
                       C.fmt_t(rec["prepared_graph"]["time_s"]),
                       C.fmt_t(rec["kernel"]["time_s"]),
                       C.fmt_t(rec["delayed_kernel"]["time_s"]), C.fmt_t(rec["plumbing_s"])]
                if nk:
                    same = "identical" if nk["identical_to_ours"] else \
                        f"{nk['nk_only_edges']:,} / {nk['ours_only_edges']:,}"
                    row += [C.fmt_t(nk["time_s"]),
                            C.fmt_x(C.ratio(nk["time_s"], rec["whole"]["time_s"])),
                            C.fmt_x(C.ratio(nk["phases_s"].get("match_s"),
                                            rec["kernel"]["time_s"])),
                            f"{C.ratio(nk['weight'], rec['weight']) or 0:.6f}", same]
                else:
                    row += ["—"] * 5
                row += [f"{rec['weight']:.10g}", f"{rec['cardinality']:,}", _ok(rec["checks"])]
                rows.append(row)
    lines += C.table(["graph", "variant", "b", "cm.Graph(df)", "whole call", "whole ÷ floor",
                      "on prepared Graph", "kernel", "delayed kernel", "plumbing",
                      "NK end to end", "NK ÷ ours", "NK match ÷ our kernel",
                      "NK weight ÷ ours", "NK edges differ", "our weight", "our card.",
                      "checks"], rows, right=set(range(2, 17)))
    lines += ["", "## Maximal matching (handshake): whole call, prepared Graph, kernel", "",
              "Size ÷ greedy: matched edges over the serial random greedy's. greedy ÷ kernel: "
              "the serial greedy's time over the handshake kernel's.", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            for rec in v["maximal"]:
                if "whole" not in rec:
                    rows.append([g["name"], variant, rec["algorithm"], "—", "—", "—",
                                 C.fmt_t(rec["kernel"]["time_s"]), "—",
                                 f"{rec['cardinality']:,}", "1.0000", "—", _ok(rec["checks"])])
                    continue
                rows.append([g["name"], variant, rec["algorithm"], C.fmt_t(rec["whole"]["time_s"]),
                             C.fmt_x(rec["whole_over_floor"]),
                             C.fmt_t(rec["prepared_graph"]["time_s"]),
                             C.fmt_t(rec["kernel"]["time_s"]), C.fmt_t(rec["plumbing_s"]),
                             f"{rec['cardinality']:,}",
                             "—" if rec["size_over_greedy"] is None
                             else f"{rec['size_over_greedy']:.4f}",
                             C.fmt_x(rec["greedy_kernel_over_kernel"]), _ok(rec["checks"])])
    lines += C.table(["graph", "variant", "algorithm", "whole call", "whole ÷ floor",
                      "on prepared Graph", "kernel", "plumbing", "matched edges",
                      "size ÷ greedy", "greedy ÷ kernel", "checks"], rows,
                     right=set(range(3, 11)))
    if any("gpu" in v for g in report["graphs"] for v in g["variants"].values()):
        lines += ["", "## GPU (backend=\"gpu\")", ""]
        rows = []
        for g in report["graphs"]:
            for variant, v in g["variants"].items():
                x = v.get("gpu")
                if not x:
                    continue
                for b, rec in x["b_suitor"].items():
                    rows.append([g["name"], variant, f"b_suitor_matching b={b}",
                                 C.fmt_t(rec["whole"]["time_s"]),
                                 C.fmt_t(rec["prepared_graph"]["time_s"]),
                                 C.fmt_t(rec["kernel"]["time_s"]),
                                 "yes" if rec["identical_to_cpu"] else "**NO**"])
                for w, rec in x["maximal"].items():
                    rows.append([g["name"], variant, f"maximal_matching weighted={w}",
                                 C.fmt_t(rec["whole"]["time_s"]), "—",
                                 C.fmt_t(rec["kernel"]["time_s"]),
                                 "yes" if rec.get("identical_to_cpu") else "**NO**"])
        lines += C.table(["graph", "variant", "call", "whole call", "on prepared Graph",
                          "kernel", "= CPU"], rows, right={3, 4, 5})
    lines += ["", "## Peak RSS per input byte (fresh process per call)", ""]
    lines += C.rss_table_lines([r for g in report["graphs"] for v in g["variants"].values()
                                for r in v.get("rss", [])])
    lines += ["", "## Targets", ""]
    lines += C.target_lines(report["targets"])
    s = report["summary"]
    lines += ["", "## Checks", "",
              "- our checks (whole = prepared = kernel = delayed = sort-based greedy, "
              "capacities, maximal matchings valid and maximal, GPU = CPU): "
              + ("all passed" if not s["failures"] else "**failed**: " + "; ".join(s["failures"])),
              "- NetworKit edge set not identical to ours: "
              + ("; ".join(s["networkit_not_identical"]) or "none"),
              "- NetworKit b-matchings over capacity: "
              + ("; ".join(s["networkit_capacity_violations"]) or "none")]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba

    import cugraph_match as cm

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    if args.rss_only:
        return C.run_rss_only(
            args, argv, "bench_bmatching.py", "bmatching",
            lambda spec, variant: rss_runs(spec, variant, args, f"{spec.name} {variant}"),
            lambda spec, rec: spec.kind == "rmat" and spec.param in RSS_TARGET_SCALES)
    gpu, gpu_info = C.use_gpu(args)
    out_name = C.default_out_name(args, "bmatching", gpu)
    pool, nk_setup = C.start_worker("_nk_worker", args.threads, args.no_networkit)
    if args.rss and not C.rss_supported():
        print("warning: /proc/self/clear_refs unavailable: no RSS measurement", file=sys.stderr)
        args.rss = False

    C.log("warm-up on small frames (compilation)")
    warm_up(args.variants, args.b, args.matching_seed)
    graphs, failures, nk_diff, nk_cap = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="bench_bmatching_") as tmp:
        for spec in C.graph_specs(args):
            C.log(f"{spec.name}: load")
            t0 = time.perf_counter()
            base, weights_note = C.load_base(spec)
            load_s = time.perf_counter() - t0
            floor = C.floor_record(base["src"], base["dst"], args.repeat)
            n_ids = int(max(base["src"].max(), base["dst"].max())) + 1
            g_rec = {"name": spec.name, "kind": spec.kind, "param": spec.param,
                     "source": spec.describe(), "weights": weights_note, "rows": len(base),
                     "load_s": load_s, "floor": floor, "variants": {}}
            for variant in args.variants:
                tag = f"{spec.name} {variant}"
                df = C.variant_frame(base, variant)
                v = {"input_bytes": C.frame_bytes(df)}
                C.log(f"{tag}: cm.Graph")
                times, _ = C.timed(lambda: cm.Graph(df, backend="cpu"), args.repeat,
                                   args.warmup)
                v["graph_build"] = C.timing(times)
                g = cm.Graph(df, backend="cpu")
                t0 = time.perf_counter()
                pref = g.preference_csr()
                v["preference_csr_s"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                g.neighbour_csr()
                v["neighbour_csr_s"] = time.perf_counter() - t0
                g_rec["num_vertices"], g_rec["num_edges"] = g.num_vertices, g.num_edges
                g_rec["max_degree"] = int(np.diff(pref.offsets).max()) if g.num_vertices else 0
                del pref
                table = EdgeTable(g, n_ids)
                v["b_suitor"], ours = b_suitor_runs(df, g, table, args, tag, floor["time_s"])
                v["maximal"], cpu_mates = maximal_runs(df, g, args, tag, floor["time_s"], n_ids)
                del g
                gc.collect()
                if gpu:
                    try:
                        x = gpu_runs(df, args, tag, table, ours, cpu_mates, n_ids)
                        v["gpu"] = x
                    except Exception as err:  # keep the CPU results of the run
                        v["gpu_error"] = repr(err)
                        failures.append(f"{tag} GPU error {err!r}")
                if pool is not None:
                    path = Path(tmp) / "arrays.npz"
                    C.save_arrays(path, df)
                    v["networkit"] = networkit_runs(pool, path, args, tag, table, ours)
                    path.unlink()
                del df, table, ours, cpu_mates
                gc.collect()
                if args.rss and spec.generated:
                    v["rss"] = rss_runs(spec, variant, args, tag)
                g_rec["variants"][variant] = v
                # checks
                for rec in v["b_suitor"]:
                    failures += [f"{tag} b={rec['b']}: {k}" for k, ok in rec["checks"].items()
                                 if not ok]
                    nk = v.get("networkit", {}).get(rec["b"])
                    if nk and not nk["identical_to_ours"]:
                        nk_diff.append(f"{tag} b={rec['b']} (weight ratio "
                                       f"{C.ratio(nk['weight'], rec['weight']) or 0:.6f})")
                    if nk and not nk["capacity_ok"]:
                        nk_cap.append(f"{tag} b={rec['b']}")
                for rec in v["maximal"]:
                    failures += [f"{tag} {rec['algorithm']}: {k}"
                                 for k, ok in rec["checks"].items() if not ok]
                if "gpu" in v:
                    for b, rec in v["gpu"]["b_suitor"].items():
                        if not rec["identical_to_cpu"]:
                            failures.append(f"{tag} b={b}: GPU != CPU")
                    # the handshake matching depends only on the graph and the seed
                    for w, rec in v["gpu"]["maximal"].items():
                        if not rec["identical_to_cpu"]:
                            failures.append(f"{tag} handshake weighted={w}: GPU != CPU")
            graphs.append(g_rec)
            del base
            gc.collect()
    if pool is not None:
        pool.shutdown()

    report = {
        "meta": C.meta(args, argv, "bench_bmatching.py", out_name, gpu_info,
                       {"networkit": nk_setup}),
        "graphs": graphs,
        "summary": {"failures": failures, "networkit_not_identical": nk_diff,
                    "networkit_capacity_violations": nk_cap},
    }
    report["targets"] = evaluate_targets(graphs)
    C.write_report(args, out_name, report, markdown(report))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
