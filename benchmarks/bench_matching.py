"""Benchmark what a user of the matchings waits for: the whole call, from the
caller's pandas frame to the returned frame, with the kernel beside it.

Graphs: R-MAT (``--scales``, see ``rmat.py``), optional 2-D meshes
(``--mesh``) and every MatrixMarket file in ``--data-dir``.  Each graph is run
as three input frames (``--variants``): ``src``/``dst`` int64 with a float64
``weight`` column (pandas' default), with a float32 one, and with none
(unweighted).  Pattern graphs get float32 weights uniform on (0, 1] from
``--seed``; ``lesmis`` keeps its own.  Duplicate rows and self-loops stay in
the frame: the library merges the former and drops the latter.

For every graph and variant (every timing is the minimum of ``--repeat`` runs
after one untimed warm-up run; before anything is timed every call runs once
on small frames, so Numba compilation is never timed):

* ``cm.Graph(df, backend="cpu")``: the prepared-graph build alone;
* ``cm.suitor_matching(df, backend="cpu")`` (whole call), the same call on a
  prepared Graph whose preference rows are built (what a user reusing a
  Graph waits for), and the kernel ``suitor_mates(g)`` on that Graph;
* ``cm.locally_dominant_matching``: whole call, on the prepared Graph, and
  the kernel ``locally_dominant_mates(pref.offsets, pref.indices)``;
* ``cm.coarsen_hierarchy(df, backend="cpu")``: whole call only, with its
  levels and their sizes;
* NetworKit end to end from the same arrays (``_nk_worker.py``, in its own
  process): ``GraphFromCoo`` + ``removeSelfLoops`` + ``removeMultiEdges`` +
  ``SuitorMatcher(G, False, False)``, and the same with
  ``graphtools.sortEdgesByWeight(G, True)`` + ``SuitorMatcher(G, True, False)``
  (SortSuitor);
* the floor: ``np.argsort`` of one uint64 key ``(src << 32) | dst`` per input
  row, once per graph;
* with ``--rss`` (default), the peak RSS of each public call per input byte,
  one fresh process per call (``_rss_worker.py``), on generated graphs.

Whole call minus kernel is the plumbing (validation, renumbering,
de-duplication, CSR build, output frame).  When ``cm.gpu_available()`` the
same calls also run with ``backend="gpu"`` (device synchronised before the
clock starts and before it stops).

Every result is checked: the whole call, the call on the prepared Graph,
the Suitor kernel and the locally-dominant kernel must give the same
matching; NetworKit's is compared and may differ where weights tie or where
duplicate rows carry different weights (it keeps the first, we keep the
largest).  A mismatch among ours makes the script exit with status 1.

Example::

    python benchmarks/bench_matching.py --scales 18 20 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as C  # noqa: E402

TARGET_SCALES = (18, 20)  # Suitor vs NetworKit and the floor ratios
COARSEN_TARGET_SCALES = (18,)
RSS_TARGET_SCALES = (20,)
PUBLIC = ("Graph", "suitor_matching", "locally_dominant_matching", "coarsen_hierarchy")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Whole-call and kernel timings of suitor_matching, "
                    "locally_dominant_matching and coarsen_hierarchy against NetworKit "
                    "(end to end) and an argsort floor, with peak RSS per input byte.")
    C.add_graph_arguments(p, default_scales=(14, 16))
    C.add_common_arguments(p, "matching")
    p.add_argument("--no-networkit", action="store_true", help="skip NetworKit")
    p.add_argument("--no-coarsen", action="store_true", help="skip coarsen_hierarchy")
    p.add_argument("--vertices-per-warp", type=int, nargs="+", default=[8],
                   help="GPU Suitor kernel vertices_per_warp values (default 8)")
    p.add_argument("--threads-per-block", type=int, default=128, help="GPU block size")
    args = C.finish_args(p, p.parse_args(argv))
    return args


# --------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------


def warm_up(variants, coarsen: bool) -> None:
    """Every call and kernel once on small frames of every variant (compilation)."""
    import cugraph_match as cm
    from cugraph_match.matching.locally_dominant_cpu import locally_dominant_mates
    from cugraph_match.matching.suitor import suitor_mates

    for variant in variants:
        for df in C.small_frames(variant):
            cm.suitor_matching(df, backend="cpu")
            cm.locally_dominant_matching(df, backend="cpu")
            if coarsen:
                cm.coarsen_hierarchy(df, backend="cpu")
            g = cm.Graph(df, backend="cpu")
            pref = g.preference_csr()
            suitor_mates(g)
            locally_dominant_mates(pref.offsets, pref.indices)
            cm.suitor_matching(g)
            cm.locally_dominant_matching(g)


def call_record(whole, prepared=None, kernel=None, kernel_what=None, floor_s=None) -> dict:
    rec = {"whole": C.timing(whole)}
    if prepared is not None:
        rec["prepared_graph"] = C.timing(prepared)
    if kernel is not None:
        rec["kernel"] = C.timing(kernel)
        rec["kernel_what"] = kernel_what
        rec["plumbing_s"] = rec["whole"]["time_s"] - rec["kernel"]["time_s"]
        rec["kernel_share"] = C.ratio(rec["kernel"]["time_s"], rec["whole"]["time_s"])
    rec["whole_over_floor"] = C.ratio(rec["whole"]["time_s"], floor_s)
    return rec


def by_id(labels: np.ndarray, mate: np.ndarray, n: int) -> np.ndarray:
    """An internal-id mate array as a mate array over the caller's ids 0..n-1."""
    out = np.full(n, -1, dtype=np.int64)
    out[labels] = np.where(mate >= 0, labels[np.maximum(mate, 0)], -1)
    return out


def cpu_runs(df, args, name: str, floor_s: float, n_ids: int) -> dict:
    import cugraph_match as cm
    from cugraph_match.matching.locally_dominant_cpu import locally_dominant_mates
    from cugraph_match.matching.suitor import suitor_mates

    r, warm = args.repeat, args.warmup
    out = {"calls": {}, "mates": {}}
    C.log(f"{name}: cm.Graph")
    times, _ = C.timed(lambda: cm.Graph(df, backend="cpu"), r, warm)
    out["calls"]["Graph"] = call_record(times, floor_s=floor_s)

    g = cm.Graph(df, backend="cpu")
    t0 = time.perf_counter()
    pref = g.preference_csr()
    out["preference_csr_s"] = time.perf_counter() - t0
    out["num_vertices"], out["num_edges"] = g.num_vertices, g.num_edges
    labels = g.labels.to_numpy().astype(np.int64)

    C.log(f"{name}: suitor_matching")
    whole, frame = C.timed(lambda: cm.suitor_matching(df, backend="cpu"), r, warm)
    prepared, pframe = C.timed(lambda: cm.suitor_matching(g), r, warm)
    kernel, (mate, _keys) = C.timed(lambda: suitor_mates(g), r, warm)
    rec = call_record(whole, prepared, kernel, "suitor_mates(g)", floor_s)
    rec["weight"], rec["cardinality"] = C.matching_stats(frame)
    out["calls"]["suitor_matching"] = rec
    out["mates"]["suitor whole call"] = C.mate_by_id(frame, n_ids)
    out["mates"]["suitor on prepared Graph"] = C.mate_by_id(pframe, n_ids)
    out["mates"]["suitor kernel"] = by_id(labels, mate, n_ids)
    out["suitor_frame"] = frame
    del pframe

    C.log(f"{name}: locally_dominant_matching")
    whole, frame = C.timed(lambda: cm.locally_dominant_matching(df, backend="cpu"), r, warm)
    prepared, pframe = C.timed(lambda: cm.locally_dominant_matching(g), r, warm)
    kernel, (mate, rounds) = C.timed(
        lambda: locally_dominant_mates(pref.offsets, pref.indices), r, warm)
    rec = call_record(whole, prepared, kernel,
                      "locally_dominant_mates(pref.offsets, pref.indices)", floor_s)
    rec["weight"], rec["cardinality"] = C.matching_stats(frame)
    rec["rounds"] = int(rounds)
    out["calls"]["locally_dominant_matching"] = rec
    out["mates"]["LD whole call"] = C.mate_by_id(frame, n_ids)
    out["mates"]["LD on prepared Graph"] = C.mate_by_id(pframe, n_ids)
    out["mates"]["LD kernel"] = by_id(labels, mate, n_ids)
    del frame, pframe, g, pref

    if not args.no_coarsen:
        C.log(f"{name}: coarsen_hierarchy")
        whole, levels = C.timed(lambda: cm.coarsen_hierarchy(df, backend="cpu"), r, warm)
        rec = call_record(whole, floor_s=floor_s)
        rec["levels"] = [{"vertices": int(mapping["coarse_vertex"].max()) + 1
                          if len(mapping) else 0,
                          "coarse_edges": int(len(coarse))} for coarse, mapping in levels]
        rec["over_suitor_whole"] = C.ratio(rec["whole"]["time_s"],
                                           out["calls"]["suitor_matching"]["whole"]["time_s"])
        out["calls"]["coarsen_hierarchy"] = rec
        del levels
    gc.collect()
    return out


def gpu_runs(df, args, name: str, n_ids: int) -> dict:
    """The same calls with backend="gpu"; the device is synchronised around every run."""
    import cugraph_match as cm
    from cugraph_match.matching.locally_dominant_gpu import locally_dominant_mates_gpu
    from cugraph_match.matching.suitor import suitor_mates
    from cugraph_match.structure.backend import to_backend

    sync = C.gpu_sync()
    r, warm = args.repeat, args.warmup
    out = {"calls": {}, "mates": {}}
    C.log(f"{name}: GPU")
    times, _ = C.timed(lambda: cm.Graph(df, backend="gpu"), r, warm, sync)
    out["calls"]["Graph"] = call_record(times)
    g = cm.Graph(df, backend="gpu")
    pref = g.preference_csr()
    sync()
    xp = g.backend.xp
    labels = g.labels.to_numpy().astype(np.int64)
    whole, frame = C.timed(lambda: cm.suitor_matching(df, backend="gpu"), r, warm, sync)
    prepared, _ = C.timed(lambda: cm.suitor_matching(g), r, warm, sync)
    by_vpw = {}
    for vpw in args.vertices_per_warp:
        kernel, (mate, _keys) = C.timed(
            lambda: suitor_mates(g, vertices_per_warp=vpw,
                                 threads_per_block=args.threads_per_block), r, warm, sync)
        by_vpw[vpw] = kernel
        out["mates"][f"suitor GPU kernel vpw={vpw}"] = by_id(labels, to_backend(mate, np), n_ids)
    best = min(by_vpw, key=lambda k: min(by_vpw[k]))
    rec = call_record(whole, prepared, by_vpw[best],
                      f"suitor_mates(g, vertices_per_warp={best}) (fastest of "
                      f"{list(by_vpw)})")
    rec["kernel_by_vertices_per_warp"] = {k: C.timing(t) for k, t in by_vpw.items()}
    out["calls"]["suitor_matching"] = rec
    out["mates"]["suitor GPU whole call"] = C.mate_by_id(frame, n_ids)
    whole, frame = C.timed(lambda: cm.locally_dominant_matching(df, backend="gpu"), r, warm,
                           sync)
    prepared, _ = C.timed(lambda: cm.locally_dominant_matching(g), r, warm, sync)
    kernel, (mate, _rounds) = C.timed(
        lambda: locally_dominant_mates_gpu(pref.offsets, pref.indices, xp,
                                           threads_per_block=args.threads_per_block),
        r, warm, sync)
    out["calls"]["locally_dominant_matching"] = call_record(
        whole, prepared, kernel, "locally_dominant_mates_gpu(pref.offsets, pref.indices)")
    out["mates"]["LD GPU whole call"] = C.mate_by_id(frame, n_ids)
    out["mates"]["LD GPU kernel"] = by_id(labels, to_backend(mate, np), n_ids)
    del g, pref, frame
    C.free_device_memory()
    return out


def networkit_runs(pool, path: Path, args, name: str, ours_frame, n_ids: int) -> dict:
    import _nk_worker as W

    info = pool.submit(W.load, str(path)).result()
    our_weight, our_card = C.matching_stats(ours_frame)
    ours = C.mate_by_id(ours_frame, n_ids)
    out = {"arrays": info}
    for key, sort in (("suitor", False), ("sortsuitor", True)):
        C.log(f"{name}: NetworKit {'SortSuitor' if sort else 'Suitor'} end to end")
        res = pool.submit(W.run_suitor, sort, args.peer_repeat, args.peer_warmup).result()
        rec = C.best_phases(res["runs"])
        rec.update({"weight_own_graph": res["weight"], "cardinality": res["cardinality"],
                    "nk_edges": res["nk_edges"], "proper": res["proper"],
                    "weight_over_ours": C.ratio(res["weight"], our_weight),
                    "cardinality_over_ours": C.ratio(res["cardinality"], our_card),
                    "identical_to_ours": bool(np.array_equal(res["mate"], ours))})
        if not rec["identical_to_ours"]:
            rec["vertices_with_other_mate"] = int((res["mate"] != ours).sum())
        out[key] = rec
    pool.submit(W.release).result()
    return out


def rss_runs(spec, variant: str, args, name: str) -> list:
    out = []
    for function in PUBLIC:
        if (function == "coarsen_hierarchy" and args.no_coarsen) \
                or not C.rss_wanted(args, function):
            continue
        C.log(f"{name}: peak RSS of {function} (fresh process)")
        task = {"graph": spec.task(), "variant": variant, "function": function,
                "params": {}, "threads": args.threads}
        rec = C.rss_measure(task, args.rss_timeout)
        out.append({**rec, "graph": spec.name, "variant": variant, "function": function})
    return out


# --------------------------------------------------------------------------
# checks, targets, report
# --------------------------------------------------------------------------


def check_mates(mates: dict) -> dict:
    """Every one of our mate arrays equal to the Suitor whole call's."""
    ref = mates["suitor whole call"]
    return {k: bool(np.array_equal(v, ref)) for k, v in mates.items()}


def evaluate_targets(graphs: list) -> list:
    out = []
    for g in graphs:
        scale = g["param"] if g["kind"] == "rmat" else None
        for variant, v in g["variants"].items():
            where = f"{g['name']} {variant}"
            calls = v["cpu"]["calls"]
            if scale in TARGET_SCALES:
                nk = v.get("networkit", {})
                nk_times = [nk[k]["time_s"] for k in ("suitor", "sortsuitor") if k in nk]
                if nk_times:
                    out.append(C.target(
                        "suitor_matching: fastest NetworKit end to end ÷ whole call", where,
                        C.ratio(min(nk_times), calls["suitor_matching"]["whole"]["time_s"]),
                        2.0, True))
                for call in ("suitor_matching", "locally_dominant_matching"):
                    out.append(C.target(f"{call}: whole call ÷ floor", where,
                                        calls[call]["whole_over_floor"], 3.0, False))
            if scale in COARSEN_TARGET_SCALES and "coarsen_hierarchy" in calls:
                out.append(C.target("coarsen_hierarchy ÷ suitor_matching whole call", where,
                                    calls["coarsen_hierarchy"]["over_suitor_whole"], 3.0, False))
            if scale in RSS_TARGET_SCALES:
                for rec in v.get("rss", []):
                    out.append(C.target(f"{rec['function']}: peak RSS per input byte", where,
                                        rec.get("peak_per_input_byte"), 4.0, False))
    return out


CALL_LABEL = {"Graph": "cm.Graph(df)", "suitor_matching": "suitor_matching",
              "locally_dominant_matching": "locally_dominant_matching",
              "coarsen_hierarchy": "coarsen_hierarchy"}


def call_rows(g, variant, calls, floor_s) -> list:
    rows = []
    for call, rec in calls.items():
        rows.append([g["name"], variant, CALL_LABEL.get(call, call),
                     C.fmt_t(rec["whole"]["time_s"]), C.fmt_x(rec.get("whole_over_floor")),
                     C.fmt_t(rec.get("prepared_graph", {}).get("time_s")),
                     C.fmt_t(rec.get("kernel", {}).get("time_s")),
                     C.fmt_t(rec.get("plumbing_s")),
                     "—" if rec.get("kernel_share") is None else f"{rec['kernel_share']:.0%}"])
    return rows


def markdown(report: dict) -> str:
    m = report["meta"]
    lines = [f"# Matching benchmark: {m['out_name']}", ""]
    lines += C.meta_lines(m, f"min of {m['repeat']} runs after {m['args']['warmup']} untimed "
                             "warm-up run(s); every call compiled on small frames first")
    lines += [
        "",
        "Whole call: `cm.suitor_matching(df, backend=\"cpu\")` etc. from the pandas frame "
        "(int64 `src`/`dst`, then float64, float32 or no `weight`) to the returned frame. "
        "Prepared Graph: the same call on `g = cm.Graph(df)` whose rows were built beforehand. "
        "Kernel: `suitor_mates(g)` / `locally_dominant_mates(pref.offsets, pref.indices)` on "
        "that Graph. Plumbing = whole − kernel. Floor: `np.argsort` of one uint64 key "
        "`(src << 32) | dst` per input row. NetworKit end to end: `GraphFromCoo` from the same "
        "arrays + `removeSelfLoops` + `removeMultiEdges` (+ `sortEdgesByWeight` for SortSuitor) "
        "+ `run()` + `getMatching()`.",
        "",
        "## Graphs",
        "",
    ]
    rows = [[g["name"], f"{g['rows']:,}", f"{g['num_vertices']:,}", f"{g['num_edges']:,}",
             g["weights"], C.fmt_t(g["floor"]["time_s"]), C.fmt_t(g["load_s"])]
            for g in report["graphs"]]
    lines += C.table(["graph", "input rows", "vertices", "undirected edges", "weights",
                      "floor (argsort)", "generate/read"], rows, right={1, 2, 3, 5, 6})
    lines += ["", "## Ratios", "",
              "Whole call ÷ floor (below 3× is the target at R-MAT 18 and 20); NetworKit end to "
              "end ÷ our whole call (the faster of Suitor and SortSuitor; at least 2× is the "
              "target); coarsen_hierarchy ÷ suitor_matching whole call (at most 3× at R-MAT 18).",
              ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            calls = v["cpu"]["calls"]
            nk = v.get("networkit", {})
            nk_best = min((nk[k]["time_s"] for k in ("suitor", "sortsuitor") if k in nk),
                          default=None)
            co = calls.get("coarsen_hierarchy", {})
            rows.append([g["name"], variant,
                         C.fmt_x(calls["suitor_matching"]["whole_over_floor"]),
                         C.fmt_x(calls["locally_dominant_matching"]["whole_over_floor"]),
                         C.fmt_x(calls["Graph"]["whole_over_floor"]),
                         C.fmt_x(C.ratio(nk_best, calls["suitor_matching"]["whole"]["time_s"])),
                         C.fmt_x(co.get("over_suitor_whole"))])
    lines += C.table(["graph", "variant", "suitor ÷ floor", "LD ÷ floor", "cm.Graph ÷ floor",
                      "NetworKit ÷ suitor", "coarsen ÷ suitor"], rows, right={2, 3, 4, 5, 6})
    lines += ["", "## Whole call, call on a prepared Graph, kernel (CPU)", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            rows += call_rows(g, variant, v["cpu"]["calls"], g["floor"]["time_s"])
    lines += C.table(["graph", "variant", "call", "whole call", "whole ÷ floor",
                      "on prepared Graph", "kernel", "plumbing", "kernel share"], rows,
                     right={3, 4, 5, 6, 7, 8})
    if any("gpu" in v for g in report["graphs"] for v in g["variants"].values()):
        lines += ["", "## GPU (backend=\"gpu\", pandas frame in and out)", ""]
        rows = []
        for g in report["graphs"]:
            for variant, v in g["variants"].items():
                if "gpu" in v:
                    rows += call_rows(g, variant, v["gpu"]["calls"], None)
        lines += C.table(["graph", "variant", "call", "whole call", "whole ÷ floor",
                          "on prepared Graph", "kernel", "plumbing", "kernel share"], rows,
                         right={3, 4, 5, 6, 7, 8})
    if any("networkit" in v for g in report["graphs"] for v in g["variants"].values()):
        lines += ["", "## NetworKit end to end from the same arrays", "",
                  "NK ÷ ours: NetworKit's end-to-end time over our whole call (above 1×: ours "
                  "faster). Phases of NetworKit's fastest run: build (`GraphFromCoo`), "
                  "simplify (`removeSelfLoops` + `removeMultiEdges`), sort "
                  "(`sortEdgesByWeight`), match (`run` + `getMatching`). NetworKit's weight "
                  "is summed on its own graph, where parallel edges keep the first weight "
                  "(ours keep the largest).", ""]
        rows = []
        for g in report["graphs"]:
            for variant, v in g["variants"].items():
                nk = v.get("networkit")
                if not nk:
                    continue
                ours = v["cpu"]["calls"]["suitor_matching"]
                for key, label in (("suitor", "Suitor"), ("sortsuitor", "SortSuitor")):
                    x = nk[key]
                    ph = x["phases_s"]
                    phases = " / ".join(C.fmt_t(ph.get(p)) for p in
                                        ("build_s", "simplify_s", "sort_s", "match_s"))
                    same = "identical" if x["identical_to_ours"] else \
                        f"differs on {x['vertices_with_other_mate']:,} vertices"
                    if not x["proper"]:
                        same += " (NetworKit: not a proper matching)"
                    rows.append([g["name"], variant, label, C.fmt_t(ours["whole"]["time_s"]),
                                 C.fmt_t(x["time_s"]),
                                 C.fmt_x(C.ratio(x["time_s"], ours["whole"]["time_s"])),
                                 phases, C.fmt_t(ours["kernel"]["time_s"]),
                                 C.fmt_x(C.ratio(ph.get("match_s"), ours["kernel"]["time_s"])),
                                 f"{x['weight_over_ours']:.6f}" if x["weight_over_ours"] else "—",
                                 same])
        lines += C.table(["graph", "variant", "NetworKit", "ours whole call", "NK end to end",
                          "NK ÷ ours", "NK build / simplify / sort / match", "our kernel",
                          "NK match ÷ our kernel", "NK weight ÷ ours", "matching"], rows,
                         right={3, 4, 5, 7, 8, 9})
    co = [(g, variant, v["cpu"]["calls"]["coarsen_hierarchy"])
          for g in report["graphs"] for variant, v in g["variants"].items()
          if "coarsen_hierarchy" in v["cpu"]["calls"]]
    if co:
        lines += ["", "## coarsen_hierarchy (whole call, default arguments)", ""]
        rows = [[g["name"], variant, C.fmt_t(rec["whole"]["time_s"]),
                 C.fmt_x(rec["over_suitor_whole"]), len(rec["levels"]),
                 ", ".join(f"{lv['vertices']:,}" for lv in rec["levels"]) or "—",
                 ", ".join(f"{lv['coarse_edges']:,}" for lv in rec["levels"]) or "—"]
                for g, variant, rec in co]
        lines += C.table(["graph", "variant", "whole call", "÷ suitor_matching whole call",
                          "levels", "vertices per level", "coarse edges per level"], rows,
                         right={2, 3, 4})
    lines += ["", "## Peak RSS per input byte (fresh process per call)", ""]
    lines += C.rss_table_lines([r for g in report["graphs"] for v in g["variants"].values()
                                for r in v.get("rss", [])])
    lines += ["", "## Targets", ""]
    lines += C.target_lines(report["targets"])
    s = report["summary"]
    lines += ["", "## Checks", "",
              "- our matchings (whole call, prepared Graph, Suitor and LD kernels"
              + (", GPU" if m["gpu"] else "") + ") identical: "
              + ("yes" if not s["mismatches"] else "**no**: " + "; ".join(s["mismatches"])),
              "- NetworKit matching not identical to ours: "
              + ("; ".join(s["networkit_not_identical"]) or "none")]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    if args.rss_only:
        return C.run_rss_only(
            args, argv, "bench_matching.py", "matching",
            lambda spec, variant: rss_runs(spec, variant, args, f"{spec.name} {variant}"),
            lambda spec, rec: spec.kind == "rmat" and spec.param in RSS_TARGET_SCALES)
    gpu, gpu_info = C.use_gpu(args)
    out_name = C.default_out_name(args, "matching", gpu)
    pool, nk_setup = C.start_worker("_nk_worker", args.threads, args.no_networkit)
    if args.rss and not C.rss_supported():
        print("warning: /proc/self/clear_refs unavailable: no RSS measurement", file=sys.stderr)
        args.rss = False

    C.log("warm-up on small frames (compilation)")
    warm_up(args.variants, not args.no_coarsen)
    graphs, mismatches, nk_diff = [], [], []
    with tempfile.TemporaryDirectory(prefix="bench_matching_") as tmp:
        for spec in C.graph_specs(args):
            C.log(f"{spec.name}: load")
            t0 = time.perf_counter()
            base, weights_note = C.load_base(spec)
            load_s = time.perf_counter() - t0
            floor = C.floor_record(base["src"], base["dst"], args.repeat)
            n_ids = int(max(base["src"].max(), base["dst"].max())) + 1
            g = {"name": spec.name, "kind": spec.kind, "param": spec.param,
                 "source": spec.describe(), "weights": weights_note, "rows": len(base),
                 "load_s": load_s, "floor": floor, "variants": {}}
            for variant in args.variants:
                tag = f"{spec.name} {variant}"
                df = C.variant_frame(base, variant)
                v = {"input_bytes": C.frame_bytes(df)}
                cpu = cpu_runs(df, args, tag, floor["time_s"], n_ids)
                mates = cpu.pop("mates")
                suitor_frame = cpu.pop("suitor_frame")
                g["num_vertices"], g["num_edges"] = cpu["num_vertices"], cpu["num_edges"]
                v["cpu"] = cpu
                if gpu:
                    try:
                        res = gpu_runs(df, args, tag, n_ids)
                        mates.update(res.pop("mates"))
                        v["gpu"] = res
                    except Exception as err:  # keep the CPU results of the run
                        v["gpu_error"] = repr(err)
                        mismatches.append(f"{tag} GPU error {err!r}")
                v["identical"] = check_mates(mates)
                mismatches += [f"{tag}: {k}" for k, ok in v["identical"].items() if not ok]
                if pool is not None:
                    path = Path(tmp) / "arrays.npz"
                    C.save_arrays(path, df)
                    v["networkit"] = networkit_runs(pool, path, args, tag, suitor_frame, n_ids)
                    path.unlink()
                    nk_diff += [f"{tag} ({k})" for k in ("suitor", "sortsuitor")
                                if not v["networkit"][k]["identical_to_ours"]]
                del df, suitor_frame, mates
                gc.collect()
                if args.rss and spec.generated:
                    v["rss"] = rss_runs(spec, variant, args, tag)
                g["variants"][variant] = v
            graphs.append(g)
            del base
            gc.collect()
    if pool is not None:
        pool.shutdown()

    report = {
        "meta": C.meta(args, argv, "bench_matching.py", out_name, gpu_info,
                       {"networkit": nk_setup}),
        "graphs": graphs,
        "summary": {"mismatches": mismatches, "networkit_not_identical": nk_diff},
    }
    report["targets"] = evaluate_targets(graphs)
    C.write_report(args, out_name, report, markdown(report))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
