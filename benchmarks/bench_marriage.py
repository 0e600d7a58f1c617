"""Benchmark the stable-marriage family as a user waits for it: the whole call
from the two preference frames (or the two master lists) to the returned
result, with the proposal kernels beside it, on the instances of Lerring's
thesis / Manne et al. (CSC 2016).

* ``easy`` (``--easy`` sizes): random incomplete lists of ``floor(log2 n)``
  to ``2 floor(log2 n) - 1`` entries (``cm.datasets.stable_marriage_instance``),
  pandas frames with int64 ``proposer``/``acceptor``/``rank`` columns.  For
  each public function the whole call (``cm.stable_marriage(pp, ap,
  algorithm=..., backend="cpu")``, ``cm.b_marriage(pp, ap, b, b)`` for each
  ``--b``, ``cm.popular_matching(pp, ap)``) and its kernel on the prepared
  lists (``run_proposals(layout, ...)``, ``run_b_marriage(layout, ...)``,
  ``run_proposals(layout, ..., max_level=1)``); the preparation
  (``prepare_preferences``: validation, renumbering, rank inversion, CSRs)
  is timed alone too.  The floor: ``np.argsort`` of one uint64 key
  ``(person << 32) | other`` per input row of both frames.
* ``hard`` (``--hard`` sizes): every proposer has the same complete list and
  every acceptor too; the whole call ``cm.stable_marriage_master_lists(
  proposer_order, acceptor_order, algorithm=...)`` and the kernel on the
  master-list layout; exactly n(n+1)/2 list entries are considered.  For
  ``n <= --hard-frames-max`` the same instance also goes through the frame
  API (n² rows per frame), which must give the same pairs.
* the ``matching`` package (``--package`` sizes): its stable-marriage solver
  on hard and on uniformly random complete instances, against our whole
  call on the same instance (its recursion limits it to small n).
* with ``--rss`` (default), the peak RSS per input byte (both frames) of
  each public call on the easy instances, one fresh process per call
  (``_rss_worker.py``).

"proposals/s" counts list entries considered (skipped or proposed to),
``sum(nxt)``: the same for every algorithm and backend, n(n+1)/2 on hard
instances.  Every timing is the minimum of ``--repeat`` runs after one
untimed warm-up run (hard n >= 20,000: ``--hard-repeat`` runs, warm-up on a
tiny instance); GPU runs synchronise the device before the clock starts and
before it stops.  Every result is checked against the CPU McVitie-Wilson
kernel; a mismatch makes the script exit with status 1.

Example::

    python benchmarks/bench_marriage.py --easy 10000 100000 1000000 \\
        --hard 1000 10000 20000 50000 --package 20 50 80 90 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as C  # noqa: E402


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Whole-call and kernel timings of the "
                                            "stable-marriage family (CPU, and GPU when usable).")
    p.add_argument("--easy", type=int, nargs="*", default=[10_000, 100_000],
                   help="easy instance sizes n (default 1e4 1e5)")
    p.add_argument("--hard", type=int, nargs="*", default=[1000, 10_000],
                   help="hard (master-list) instance sizes n (default 1e3 1e4)")
    p.add_argument("--hard-frames-max", type=int, default=2000,
                   help="also run hard instances up to this n through the frame API")
    p.add_argument("--package", type=int, nargs="*", default=[20, 50],
                   help="sizes for the `matching` package comparison (default 20 50)")
    p.add_argument("--b", type=int, nargs="*", default=[1, 3, 5],
                   help="uniform b-marriage capacities on the easy instances (default 1 3 5)")
    p.add_argument("--b-max-n", type=int, default=1_000_000,
                   help="largest easy n for b-marriage and popular matching")
    p.add_argument("--seed", type=int, default=0, help="instance seed (default 0)")
    p.add_argument("--hard-repeat", type=int, default=1,
                   help="timed runs for hard n >= 20000 (default 1: they take seconds each)")
    p.add_argument("--threads-per-block", type=int, default=128)
    p.add_argument("--solo-entries", type=int, nargs="+", default=[0, 4, 16],
                   help="GPU solo_entries values to try (default 0 4 16)")
    C.add_common_arguments(p, "marriage")
    args = C.finish_args(p, p.parse_args(argv))
    if args.hard_repeat < 1:
        p.error("--hard-repeat must be at least 1")
    return args


def best_of(fn, args, sync):
    times, result = C.timed(fn, args.repeat, args.warmup, sync)
    return C.timing(times), result


def warm_up(args) -> None:
    import cugraph_match as cm
    from cugraph_match.datasets import stable_marriage_instance, stable_marriage_master_lists

    for n in (200, 2000):
        pp, ap = stable_marriage_instance(n, "easy", seed=1)
        for algorithm in ("mcvitie_wilson", "gale_shapley"):
            cm.stable_marriage(pp, ap, algorithm=algorithm, backend="cpu")
        for b in sorted(set(args.b)):
            cm.b_marriage(pp, ap, b, b, backend="cpu")
        cm.popular_matching(pp, ap, backend="cpu")
        p_order, a_order = stable_marriage_master_lists(n, seed=1)
        for algorithm in ("mcvitie_wilson", "gale_shapley"):
            cm.stable_marriage_master_lists(p_order, a_order, algorithm=algorithm,
                                            backend="cpu")


# --------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------


def run_record(backend, function, algorithm, params, kernel, whole, considered, matched,
               identical, floor_s=None, **extra) -> dict:
    rec = {"backend": backend, "function": function, "algorithm": algorithm, "params": params,
           "kernel": kernel, "whole": whole, "considered": considered,
           "proposals_per_s": considered / kernel["time_s"] if kernel else None,
           "matched": matched, "identical": identical, **extra}
    if kernel and whole:
        rec["plumbing_s"] = whole["time_s"] - kernel["time_s"]
        rec["kernel_share"] = C.ratio(kernel["time_s"], whole["time_s"])
    rec["whole_over_floor"] = C.ratio(whole["time_s"], floor_s) if whole else None
    return rec


def easy_runs(n, args, backends, sync):
    import cugraph_match as cm
    from cugraph_match.datasets import stable_marriage_instance
    from cugraph_match.marriage.b_marriage import run_b_marriage
    from cugraph_match.marriage.preferences import (LEVEL_BIAS, mates_from_held,
                                                    prepare_preferences)
    from cugraph_match.marriage.stable_marriage import run_proposals
    from cugraph_match.structure.backend import to_backend

    t0 = time.perf_counter()
    pp, ap = stable_marriage_instance(n, "easy", seed=args.seed)
    gen_s = time.perf_counter() - t0
    keys = np.concatenate([
        (pp["proposer"].to_numpy().astype(np.uint64) << np.uint64(32))
        | pp["acceptor"].to_numpy().astype(np.uint64),
        (ap["acceptor"].to_numpy().astype(np.uint64) << np.uint64(32))
        | ap["proposer"].to_numpy().astype(np.uint64)])
    floor_t, _ = C.timed(lambda: np.argsort(keys), args.repeat, args.warmup)
    floor = C.timing(floor_t)
    del keys
    record = {"kind": "easy", "n": n, "entries": len(pp), "generate_s": gen_s,
              "input_bytes": C.frame_bytes(pp) + C.frame_bytes(ap), "floor": floor, "runs": []}
    ref = None
    for be_name, be in backends:
        C.log(f"easy n={n:,} {be_name}: prepare_preferences")
        prep_t, prep = best_of(lambda: prepare_preferences(pp, ap, backend=be_name), args,
                               sync[be_name])
        record[f"prepare_{be_name}"] = prep_t
        record["mutual_pairs"] = prep.num_pairs
        layout, xp = prep.layout(), be.xp
        # kernels return internal ids; frames carry the caller's (acceptors nobody ranks
        # are not in the labels, so the two differ)
        p_lab = np.asarray(prep.proposer_labels.to_numpy(), dtype=np.int64)
        a_lab = np.asarray(prep.acceptor_labels.to_numpy(), dtype=np.int64)

        def ids(mate):
            return np.where(mate >= 0, a_lab[np.maximum(mate, 0)], -1)
        configs = [("mcvitie_wilson", None), ("gale_shapley", None)]
        if be_name == "gpu":
            configs = [(alg, s) for alg in ("mcvitie_wilson", "gale_shapley")
                       for s in args.solo_entries]
        for algorithm, solo in configs:
            C.log(f"easy n={n:,} {be_name}: stable_marriage {algorithm} {solo or ''}")
            kw = {} if solo is None else {"threads_per_block": args.threads_per_block,
                                          "solo_entries": solo}
            kernel, (held, nxt) = best_of(lambda: run_proposals(layout, be, algorithm, **kw),
                                          args, sync[be_name])
            mate = ids(to_backend(mates_from_held(layout, held, xp), np))
            considered = int(nxt.sum())
            if ref is None:
                ref = (mate, considered)
            whole, frame = best_of(
                lambda: cm.stable_marriage(pp, ap, algorithm=algorithm, backend=be_name, **kw),
                args, sync[be_name])
            got = frame["acceptor"]
            got = (got.to_pandas() if hasattr(got, "to_pandas") else got)
            got = got.astype("Int64").fillna(-1).to_numpy(dtype=np.int64)
            same = bool(np.array_equal(mate, ref[0])) and considered == ref[1] and \
                bool(np.array_equal(got, ref[0]))  # ids are 0..n-1 on both sides
            record["runs"].append(run_record(
                be_name, "stable_marriage", algorithm, kw, kernel, whole, considered,
                int((mate >= 0).sum()), same, floor["time_s"]))
        if n > args.b_max_n:
            continue
        stable_pairs = None
        for b in args.b:
            C.log(f"easy n={n:,} {be_name}: b_marriage b={b}")
            caps_p = xp.full(prep.n_proposers, b, dtype=np.int64)
            caps_a = xp.full(prep.n_acceptors, b, dtype=np.int64)
            whole, frame = best_of(lambda: cm.b_marriage(pp, ap, b, b, backend=be_name), args,
                                   sync[be_name])
            whole_pairs = np.sort(frame["proposer"].to_numpy(dtype=np.int64) * n
                                  + frame["acceptor"].to_numpy(dtype=np.int64))
            variants = [("slots", False)] + ([("single-capacity kernels", True)] if b == 1 else [])
            for label, shortcut in variants:
                kernel, (p, a, nxt) = best_of(
                    lambda: run_b_marriage(layout, be, caps_p, caps_a,
                                           allow_single_capacity=shortcut,
                                           threads_per_block=args.threads_per_block),
                    args, sync[be_name])
                pairs = np.sort(p_lab[to_backend(p, np)] * n + a_lab[to_backend(a, np)])
                same = bool(np.array_equal(pairs, whole_pairs))
                if b == 1:  # both b = 1 paths must give the stable matching
                    if stable_pairs is None:
                        matched = np.nonzero(ref[0] >= 0)[0]
                        stable_pairs = np.sort(p_lab[matched] * n + ref[0][matched])
                    same = same and bool(np.array_equal(pairs, stable_pairs))
                record["runs"].append(run_record(
                    be_name, "b_marriage", "mcvitie_wilson", {"b": b, "kernel": label}, kernel,
                    whole, int(nxt.sum()), int(pairs.shape[0]), same, floor["time_s"]))
        C.log(f"easy n={n:,} {be_name}: popular_matching")
        kernel, (held, nxt) = best_of(lambda: run_proposals(layout, be, "mcvitie_wilson", 1),
                                      args, sync[be_name])
        whole, frame = best_of(lambda: cm.popular_matching(pp, ap, backend=be_name), args,
                               sync[be_name])
        held = to_backend(held, np)
        mate = ids(to_backend(mates_from_held(layout, held, xp, LEVEL_BIAS), np))
        got = frame["acceptor"]
        got = (got.to_pandas() if hasattr(got, "to_pandas") else got)
        got = got.astype("Int64").fillna(-1).to_numpy(dtype=np.int64)
        lifted = int(((held != np.iinfo(np.int64).max) & (held < LEVEL_BIAS)).sum())
        record["runs"].append(run_record(
            be_name, "popular_matching", "mcvitie_wilson", {}, kernel, whole, int(nxt.sum()),
            int((mate >= 0).sum()), bool(np.array_equal(got, mate)), floor["time_s"],
            matched_at_level_1=lifted, stable_matched=int((ref[0] >= 0).sum())))
        del prep, layout
        gc.collect()
    return record


def hard_runs(n, args, backends, sync):
    import cugraph_match as cm
    from cugraph_match.datasets import stable_marriage_instance, stable_marriage_master_lists
    from cugraph_match.marriage.preferences import master_layout, mates_from_held
    from cugraph_match.marriage.stable_marriage import run_proposals
    from cugraph_match.structure.backend import to_backend

    p_order, a_order = stable_marriage_master_lists(n, seed=args.seed)
    expected = np.empty(n, dtype=np.int64)
    expected[a_order] = p_order
    slow = n >= 20_000
    record = {"kind": "hard", "n": n, "entries": n * n, "considered_expected": n * (n + 1) // 2,
              "runs": []}

    def measure(fn, be_name):
        if slow:  # warm-up on a tiny instance (compiled already), not on the big one
            times = []
            result = None
            for _ in range(args.hard_repeat):
                result = None
                sync[be_name]()
                t0 = time.perf_counter()
                result = fn()
                sync[be_name]()
                times.append(time.perf_counter() - t0)
            return C.timing(times), result
        return best_of(fn, args, sync[be_name])

    for be_name, be in backends:
        layout = master_layout(p_order, a_order, be.xp)
        configs = [("mcvitie_wilson", None), ("gale_shapley", None)]
        if be_name == "gpu":
            configs = [("mcvitie_wilson", s) for s in args.solo_entries] + [("gale_shapley", 0)]
        for algorithm, solo in configs:
            C.log(f"hard n={n:,} {be_name}: {algorithm} {solo if solo is not None else ''}")
            kw = {} if solo is None else {"threads_per_block": args.threads_per_block,
                                          "solo_entries": solo}
            kernel, (held, nxt) = measure(lambda: run_proposals(layout, be, algorithm, **kw),
                                          be_name)
            mate = to_backend(mates_from_held(layout, held, be.xp), np)
            considered = int(nxt.sum())
            whole, got = measure(lambda: cm.stable_marriage_master_lists(
                p_order, a_order, algorithm=algorithm, backend=be_name, **kw), be_name)
            same = bool(np.array_equal(mate, expected)) and considered == n * (n + 1) // 2 \
                and bool(np.array_equal(to_backend(got, np), expected))
            record["runs"].append(run_record(
                be_name, "stable_marriage_master_lists", algorithm, kw, kernel, whole,
                considered, int((mate >= 0).sum()), same))
        if n <= args.hard_frames_max:
            C.log(f"hard n={n:,} {be_name}: stable_marriage on n²-row frames")
            pp, ap = stable_marriage_instance(n, "hard", seed=args.seed)
            whole, out = best_of(lambda: cm.stable_marriage(pp, ap, backend=be_name), args,
                                 sync[be_name])
            acc = out["acceptor"]
            got = (acc.to_pandas() if hasattr(acc, "to_pandas") else acc).to_numpy(dtype=np.int64)
            record["runs"].append(run_record(
                be_name, "stable_marriage (n² frames)", "mcvitie_wilson", {}, None, whole,
                n * (n + 1) // 2, n, bool(np.array_equal(got, expected))))
            del pp, ap, out
        del layout
        gc.collect()
    return record


def package_runs(n, args):
    """The `matching` package vs our whole call on hard and random complete instances."""
    import pandas as pd

    import cugraph_match as cm
    from cugraph_match.datasets import stable_marriage_master_lists

    try:
        from matching.games import StableMarriage
    except ImportError:
        return None
    C.log(f"matching package n={n}")
    rng = np.random.default_rng(args.seed + n)
    instances = {}
    p_order, a_order = stable_marriage_master_lists(n, seed=args.seed)
    instances["hard"] = ({p: list(p_order) for p in range(n)}, {a: list(a_order) for a in range(n)})
    instances["random complete"] = ({p: list(rng.permutation(n)) for p in range(n)},
                                    {a: list(rng.permutation(n)) for a in range(n)})
    out = []
    for name, (P, A) in instances.items():
        sp = {f"p{p}": [f"a{a}" for a in lst] for p, lst in P.items()}
        sa = {f"a{a}": [f"p{p}" for p in lst] for a, lst in A.items()}

        def theirs():
            game = StableMarriage.create_from_dictionaries(sp, sa)
            return {str(k): str(v) for k, v in game.solve(optimal="suitor").items()}

        try:
            t_theirs, their_result = best_of(theirs, args, C.no_sync)
            error = None
        except RecursionError:
            t_theirs, their_result, error = None, None, "RecursionError"
        pp = pd.DataFrame([(p, a, i) for p, lst in sp.items() for i, a in enumerate(lst)],
                          columns=["proposer", "acceptor", "rank"])
        ap = pd.DataFrame([(a, p, i) for a, lst in sa.items() for i, p in enumerate(lst)],
                          columns=["acceptor", "proposer", "rank"])
        t_ours, ours = best_of(lambda: cm.stable_marriage(pp, ap, backend="cpu"), args,
                               C.no_sync)
        ours = dict(zip(ours["proposer"], ours["acceptor"]))
        out.append({"instance": name, "n": n,
                    "package_s": None if t_theirs is None else t_theirs["time_s"],
                    "ours_cpu_s": t_ours["time_s"], "package_error": error,
                    "identical": None if their_result is None else their_result == ours})
    return out


def rss_runs(n, args) -> list:
    tasks = [("stable_marriage", {})] + [("b_marriage", {"b": b}) for b in args.b] + \
        [("popular_matching", {})]
    out = []
    for function, params in tasks:
        if (function != "stable_marriage" and n > args.b_max_n) \
                or not C.rss_wanted(args, function):
            continue
        C.log(f"easy n={n:,}: peak RSS of {function} {params or ''} (fresh process)")
        task = {"marriage": {"n": n, "kind": "easy", "seed": args.seed}, "function": function,
                "params": params, "threads": args.threads}
        rec = C.rss_measure(task, args.rss_timeout)
        label = function + (f" (b={params['b']})" if "b" in params else "")
        out.append({**rec, "graph": f"easy n={n:,}", "variant": "int64 frames",
                    "function": label})
    return out


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def markdown(report) -> str:
    m = report["meta"]
    lines = [f"# Stable-marriage benchmark: {m['out_name']}", ""]
    lines += C.meta_lines(m, f"min of {m['repeat']} runs after {m['args']['warmup']} untimed "
                             f"warm-up run(s) (hard n >= 20,000: {m['args']['hard_repeat']} "
                             "run(s), no warm-up on the instance); every call compiled on small "
                             "instances first")
    lines += [
        "",
        "Whole call: the public function from the two preference frames (or the two master "
        "lists) to the returned result. Kernel: the proposal kernel on the prepared lists "
        "(`run_proposals` / `run_b_marriage` on `prepare_preferences(...).layout()` or "
        "`master_layout(...)`). Plumbing = whole − kernel. Floor (easy instances): `np.argsort` "
        "of one uint64 key `(person << 32) | other` per input row of both frames. proposals/s: "
        "list entries considered per second of kernel time.",
        "",
        "## Instances",
        "",
    ]
    rows = [[r["kind"], f"{r['n']:,}", f"{r['entries']:,}",
             f"{r.get('mutual_pairs', r['entries']):,}", C.fmt_mib(r.get("input_bytes")),
             C.fmt_t(r.get("generate_s")), C.fmt_t(r.get("floor", {}).get("time_s")),
             C.fmt_t(r.get("prepare_cpu", {}).get("time_s")),
             C.fmt_t(r.get("prepare_gpu", {}).get("time_s"))]
            for r in report["instances"]]
    lines += C.table(["kind", "n", "list entries", "mutual pairs", "input frames", "generate",
                      "floor (argsort)", "prepare (CPU)", "prepare (GPU)"], rows,
                     right=set(range(1, 9)))
    lines += ["", "## Whole call and kernel", ""]
    rows = []
    for r in report["instances"]:
        for run in r["runs"]:
            params = ", ".join(f"{k}={v}" for k, v in run["params"].items())
            extra = (f" ({run['matched_at_level_1']:,} at level 1; stable "
                     f"{run['stable_matched']:,})" if "matched_at_level_1" in run else "")
            rows.append([r["kind"], f"{r['n']:,}", run["backend"], run["function"],
                         run["algorithm"], params,
                         C.fmt_t(run["whole"]["time_s"] if run["whole"] else None),
                         C.fmt_x(run.get("whole_over_floor")),
                         C.fmt_t(run["kernel"]["time_s"] if run["kernel"] else None),
                         C.fmt_t(run.get("plumbing_s")),
                         "—" if run.get("kernel_share") is None else f"{run['kernel_share']:.0%}",
                         "—" if run["proposals_per_s"] is None
                         else f"{run['proposals_per_s'] / 1e6:.1f}",
                         f"{run['matched']:,}{extra}",
                         "ok" if run["identical"] else "**MISMATCH**"])
    lines += C.table(["kind", "n", "backend", "function", "algorithm", "params", "whole call",
                      "whole ÷ floor", "kernel", "plumbing", "kernel share", "M proposals/s",
                      "matched", "check"], rows, right={1, 6, 7, 8, 9, 10, 11, 12})
    if report["package"]:
        lines += ["", "## Against the `matching` package (complete lists, whole calls)", ""]
        rows = []
        for p in report["package"]:
            ratio = f"{p['package_s'] / p['ours_cpu_s']:.2g}×" if p["package_s"] else "—"
            rows.append([p["instance"], p["n"],
                         C.fmt_t(p["package_s"]) if p["package_s"] else p["package_error"],
                         C.fmt_t(p["ours_cpu_s"]), ratio,
                         "—" if p["identical"] is None
                         else ("yes" if p["identical"] else "**no**")])
        lines += C.table(["instance", "n", "matching package", "ours (CPU, frames in and out)",
                          "package ÷ ours", "same pairs"], rows, right={1, 2, 3, 4})
    lines += ["", "## Peak RSS per input byte (both frames; fresh process per call)", ""]
    lines += C.rss_table_lines([r for inst in report["instances"] for r in inst.get("rss", [])])
    lines += ["", "## Checks", "",
              "- every result identical to the CPU McVitie-Wilson kernel (whole calls too; hard "
              "instances: to the closed form, with n(n+1)/2 entries considered): "
              + ("yes" if not report["summary"]["mismatches"] else
                 "**no**: " + "; ".join(report["summary"]["mismatches"]))]
    return "\n".join(lines) + "\n"


def rss_only(args, argv) -> int:
    """``--rss-only``: the peak-RSS processes of the easy instances, nothing timed."""
    import datetime as _dt

    out_name = args.out_name or f"marriage_rss_cpu_{_dt.date.today().isoformat()}"
    records = [r for n in args.easy for r in rss_runs(n, args)]
    errors = [f"{r['graph']} {r['function']}: {r['error']}" for r in records if "error" in r]
    report = {"meta": C.meta(args, argv, "bench_marriage.py", out_name, None, {}),
              "rss": records, "summary": {"errors": errors}}
    lines = [f"# Peak RSS per input byte (bench_marriage.py --rss-only): {out_name}", ""]
    lines += C.meta_lines(report["meta"], "one fresh process per call; no timing runs")
    lines += ["", "## Peak RSS per input byte (both frames)", ""] + C.rss_table_lines(records)
    if errors:
        lines += ["", "## Errors", ""] + [f"- {e}" for e in errors]
    C.write_report(args, out_name, report, "\n".join(lines) + "\n")
    return 1 if errors else 0


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba

    from cugraph_match.structure.backend import resolve_backend

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    gpu, gpu_info = C.use_gpu(args)
    backends = [("cpu", resolve_backend("cpu"))]
    sync = {"cpu": C.no_sync}
    if gpu:
        backends.append(("gpu", resolve_backend("gpu")))
        sync["gpu"] = C.gpu_sync()
    out_name = C.default_out_name(args, "marriage", gpu)
    if args.rss_only:
        return rss_only(args, argv)
    if args.rss and not C.rss_supported():
        print("warning: /proc/self/clear_refs unavailable: no RSS measurement", file=sys.stderr)
        args.rss = False
    C.log("warm-up on small instances (compilation)")
    warm_up(args)
    instances, package = [], []
    for n in args.package:
        res = package_runs(n, args)
        if res:
            package += res
    for n in args.hard:
        instances.append(hard_runs(n, args, backends, sync))
    for n in args.easy:
        rec = easy_runs(n, args, backends, sync)
        if args.rss:
            rec["rss"] = rss_runs(n, args)
        instances.append(rec)

    mismatches = [f"{r['kind']} n={r['n']} {run['backend']} {run['function']} "
                  f"{run['algorithm']} {run['params'] or ''}"
                  for r in instances for run in r["runs"] if not run["identical"]]
    mismatches += [f"matching package {p['instance']} n={p['n']}" for p in package
                   if p["identical"] is False]
    report = {"meta": C.meta(args, argv, "bench_marriage.py", out_name, gpu_info, {}),
              "instances": instances, "package": package,
              "summary": {"mismatches": mismatches}}
    C.write_report(args, out_name, report, markdown(report))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
