"""Benchmark stable marriage (McVitie-Wilson, Gale-Shapley), b-marriage and
popular matching on the instances of Lerring's thesis / Manne et al. (CSC 2016).

* ``easy`` (``--easy`` sizes): random incomplete lists of ``floor(log2 n)``
  to ``2 floor(log2 n) - 1`` entries (``cm.datasets.stable_marriage_instance``).
  Timed: instance generation, the preference preparation (validation,
  renumbering, rank inversion, CSRs: ``prepare_preferences``), each
  algorithm's kernel on the prepared lists, and the whole public call.
* ``hard`` (``--hard`` sizes): every proposer has the same complete list and
  every acceptor too (``stable_marriage_master_lists``), run through the
  master-list layout; exactly n(n+1)/2 list entries are considered.  For
  ``n <= --hard-frames-max`` the same instance also goes through the frame
  API, which must give the same pairs.
* the ``matching`` package (``--package`` sizes): its stable-marriage solver
  on hard and on uniformly random complete instances, against ours on the
  same instance (the package's recursion limits it to small n).
* b-marriage on the easy instances with uniform capacities ``--b`` (b = 1
  also through the general slot kernel, to price the special case), and
  popular matching (proposers lifted, size gain over the stable matching).

"proposals/s" counts list entries considered (skipped or proposed to):
``sum(nxt)``, identical for every algorithm and backend, n(n+1)/2 on hard
instances (the paper's TEPS divides the same quantity by time).  Every
timing is the minimum of ``--repeat`` runs after one untimed warm-up; GPU
runs synchronise the device before stopping the clock.  Every result is
checked against the CPU McVitie-Wilson result.

Example::

    python benchmarks/bench_marriage.py --easy 10000 100000 1000000 \\
        --hard 1000 10000 20000 50000 --repeat 3
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_matching as bm  # noqa: E402  (machine description, timing helpers)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Time the stable-marriage family (CPU, and GPU "
                                            "when usable).")
    p.add_argument("--easy", type=int, nargs="*", default=[10_000, 100_000, 1_000_000],
                   help="easy instance sizes n (default 1e4 1e5 1e6)")
    p.add_argument("--hard", type=int, nargs="*", default=[1000, 10_000, 20_000, 50_000],
                   help="hard (master-list) instance sizes n (default 1e3 1e4 2e4 5e4)")
    p.add_argument("--hard-frames-max", type=int, default=2000,
                   help="also run hard instances up to this n through the frame API")
    p.add_argument("--package", type=int, nargs="*", default=[20, 50, 90],
                   help="sizes for the `matching` package comparison (complete lists)")
    p.add_argument("--b", type=int, nargs="*", default=[1, 3, 5],
                   help="uniform b-marriage capacities on the easy instances")
    p.add_argument("--b-max-n", type=int, default=1_000_000,
                   help="largest easy n for b-marriage and popular matching")
    p.add_argument("--seed", type=int, default=0, help="instance seed (default 0)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs (min reported)")
    p.add_argument("--hard-repeat", type=int, default=1,
                   help="timed runs for hard n >= 20000 (default 1: they take seconds each)")
    p.add_argument("--gpu", choices=("auto", "off"), default="auto")
    p.add_argument("--threads-per-block", type=int, default=128)
    p.add_argument("--solo-entries", type=int, nargs="+", default=[0, 4, 16],
                   help="GPU solo_entries values to try (default 0 4 16)")
    p.add_argument("--out-dir", default=str(HERE / "results"))
    p.add_argument("--out-name", default=None,
                   help="file stem (default marriage_<cpu|gpu>_<date>)")
    args = p.parse_args(argv)
    if args.repeat < 1 or args.hard_repeat < 1:
        p.error("--repeat and --hard-repeat must be at least 1")
    return args


def best_of(fn, repeat, sync):
    times, result = bm.timed(fn, repeat, sync)
    return min(times), times, result


# --------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------


def easy_runs(n, args, backends, sync):
    import cugraph_match as cm
    from cugraph_match.marriage.b_marriage import run_b_marriage
    from cugraph_match.structure.core import to_backend
    from cugraph_match.datasets import stable_marriage_instance
    from cugraph_match.marriage.preferences import LEVEL_BIAS, mates_from_held, prepare_preferences
    from cugraph_match.marriage.stable_marriage import run_proposals

    t0 = time.perf_counter()
    pp, ap = stable_marriage_instance(n, "easy", seed=args.seed)
    gen_s = time.perf_counter() - t0
    record = {"kind": "easy", "n": n, "entries": len(pp), "generate_s": gen_s, "runs": []}
    ref = None
    for be_name, be in backends:
        prep_s, _, prep = best_of(lambda: prepare_preferences(pp, ap, backend=be_name),
                                  args.repeat, sync[be_name])
        record[f"prepare_{be_name}_s"] = prep_s
        record["mutual_pairs"] = prep.num_pairs
        layout, xp = prep.layout(), be.xp
        configs = [("mcvitie_wilson", None), ("gale_shapley", None)]
        if be_name == "gpu":
            configs = [(alg, s) for alg in ("mcvitie_wilson", "gale_shapley")
                       for s in args.solo_entries]
        for algorithm, solo in configs:
            kw = {} if solo is None else {"threads_per_block": args.threads_per_block,
                                          "solo_entries": solo}
            t, times, (held, nxt) = best_of(lambda: run_proposals(layout, be, algorithm, **kw),
                                            args.repeat, sync[be_name])
            mate = to_backend(mates_from_held(layout, held, xp), np)
            considered = int(nxt.sum())
            if ref is None:
                ref = (mate, considered)
            run = {"backend": be_name, "what": "stable_marriage", "algorithm": algorithm,
                   "params": kw, "time_s": t, "times_s": times, "considered": considered,
                   "proposals_per_s": considered / t, "matched": int((mate >= 0).sum()),
                   "identical": bool(np.array_equal(mate, ref[0])) and considered == ref[1]}
            record["runs"].append(run)
            print(f"  easy n={n:,} {be_name} {algorithm} {kw or ''}: {bm.fmt_t(t)}, "
                  f"{considered / t / 1e6:.1f} M proposals/s, identical={run['identical']}")
        # the whole public call, frames in -> frame out
        t, times, _ = best_of(lambda: cm.stable_marriage(pp, ap, backend=be_name),
                              args.repeat, sync[be_name])
        record["runs"].append({"backend": be_name, "what": "stable_marriage (whole call)",
                               "algorithm": "mcvitie_wilson", "params": {}, "time_s": t,
                               "times_s": times, "considered": ref[1],
                               "proposals_per_s": ref[1] / t, "matched": int((ref[0] >= 0).sum()),
                               "identical": True})
        if n > args.b_max_n:
            continue
        stable_pairs = None
        for b in args.b:
            caps_p = xp.full(prep.n_proposers, b, dtype=np.int64)
            caps_a = xp.full(prep.n_acceptors, b, dtype=np.int64)
            variants = [("slots", False)] + ([("single-capacity kernels", True)] if b == 1 else [])
            for label, shortcut in variants:
                t, times, (p, a, nxt) = best_of(
                    lambda: run_b_marriage(layout, be, caps_p, caps_a,
                                           allow_single_capacity=shortcut,
                                           threads_per_block=args.threads_per_block),
                    args.repeat, sync[be_name])
                pairs = np.sort(to_backend(p, np) * n + to_backend(a, np))
                same = True
                if b == 1:  # both b = 1 paths must give the stable matching
                    if stable_pairs is None:
                        matched = np.nonzero(ref[0] >= 0)[0]
                        stable_pairs = np.sort(matched * n + ref[0][matched])
                    same = bool(np.array_equal(pairs, stable_pairs))
                record["runs"].append({
                    "backend": be_name, "what": f"b_marriage b={b} ({label})",
                    "algorithm": "mcvitie_wilson", "params": {"b": b}, "time_s": t,
                    "times_s": times, "considered": int(nxt.sum()),
                    "proposals_per_s": int(nxt.sum()) / t, "matched": int(pairs.shape[0]),
                    "identical": same})
                print(f"  easy n={n:,} {be_name} b-marriage b={b} ({label}): {bm.fmt_t(t)}, "
                      f"{pairs.shape[0]:,} pairs")
        t, times, (held, nxt) = best_of(lambda: run_proposals(layout, be, "mcvitie_wilson", 1),
                                        args.repeat, sync[be_name])
        held = to_backend(held, np)
        mate = to_backend(mates_from_held(layout, held, xp, LEVEL_BIAS), np)
        lifted = int(((held != np.iinfo(np.int64).max) & (held < LEVEL_BIAS)).sum())
        record["runs"].append({"backend": be_name, "what": "popular_matching",
                               "algorithm": "mcvitie_wilson", "params": {}, "time_s": t,
                               "times_s": times, "considered": int(nxt.sum()),
                               "proposals_per_s": int(nxt.sum()) / t,
                               "matched": int((mate >= 0).sum()),
                               "identical": True, "matched_at_level_1": lifted})
        print(f"  easy n={n:,} {be_name} popular: {bm.fmt_t(t)}, matched "
              f"{int((mate >= 0).sum()):,} vs stable {int((ref[0] >= 0).sum()):,}")
        gc.collect()
    return record


def hard_runs(n, args, backends, sync):
    import cugraph_match as cm
    from cugraph_match.structure.core import to_backend
    from cugraph_match.datasets import stable_marriage_instance, stable_marriage_master_lists
    from cugraph_match.marriage.preferences import master_layout, mates_from_held
    from cugraph_match.marriage.stable_marriage import run_proposals

    p_order, a_order = stable_marriage_master_lists(n, seed=args.seed)
    expected = np.empty(n, dtype=np.int64)
    expected[a_order] = p_order
    repeat = args.hard_repeat if n >= 20_000 else args.repeat
    record = {"kind": "hard", "n": n, "entries": n * n, "considered_expected": n * (n + 1) // 2,
              "runs": []}
    for be_name, be in backends:
        layout = master_layout(p_order, a_order, be.xp)
        configs = [("mcvitie_wilson", None), ("gale_shapley", None)]
        if be_name == "gpu":
            configs = [("mcvitie_wilson", s) for s in args.solo_entries] + \
                      [("gale_shapley", 0)]
        for algorithm, solo in configs:
            kw = {} if solo is None else {"threads_per_block": args.threads_per_block,
                                          "solo_entries": solo}
            if be_name == "cpu":  # warm up (compile) on a tiny instance, not on the big one
                run_proposals(master_layout(np.arange(3), np.arange(3), np), be, algorithm)
                times = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    held, nxt = run_proposals(layout, be, algorithm)
                    times.append(time.perf_counter() - t0)
                t = min(times)
            else:
                t, times, (held, nxt) = best_of(lambda: run_proposals(layout, be, algorithm, **kw),
                                                repeat, sync[be_name])
            mate = to_backend(mates_from_held(layout, held, be.xp), np)
            considered = int(nxt.sum())
            run = {"backend": be_name, "what": "stable_marriage (master lists)",
                   "algorithm": algorithm, "params": kw, "time_s": t, "times_s": times,
                   "considered": considered, "proposals_per_s": considered / t,
                   "matched": int((mate >= 0).sum()),
                   "identical": bool(np.array_equal(mate, expected))
                   and considered == n * (n + 1) // 2}
            record["runs"].append(run)
            print(f"  hard n={n:,} {be_name} {algorithm} {kw or ''}: {bm.fmt_t(t)}, "
                  f"{considered / t / 1e6:.1f} M proposals/s, identical={run['identical']}")
        if n <= args.hard_frames_max:
            pp, ap = stable_marriage_instance(n, "hard", seed=args.seed)
            t, times, out = best_of(lambda: cm.stable_marriage(pp, ap, backend=be_name),
                                    args.repeat, sync[be_name])
            acc = out["acceptor"]
            got = (acc.to_pandas() if hasattr(acc, "to_pandas") else acc).to_numpy(dtype=np.int64)
            record["runs"].append({"backend": be_name, "what": "stable_marriage (frames, whole call)",
                                   "algorithm": "mcvitie_wilson", "params": {}, "time_s": t,
                                   "times_s": times, "considered": n * (n + 1) // 2,
                                   "proposals_per_s": n * (n + 1) / 2 / t, "matched": n,
                                   "identical": bool(np.array_equal(got, expected))})
            print(f"  hard n={n:,} {be_name} frames (whole call): {bm.fmt_t(t)}")
    return record


def package_runs(n, args):
    """The `matching` package vs ours on hard and random complete instances."""
    import cugraph_match as cm
    from cugraph_match.datasets import stable_marriage_master_lists

    try:
        from matching.games import StableMarriage
    except ImportError:
        return None
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
            t_theirs, _, their_result = best_of(theirs, args.repeat, bm._no_sync)
            error = None
        except RecursionError:
            t_theirs, their_result, error = None, None, "RecursionError"
        import pandas as pd

        pp = pd.DataFrame([(p, a, i) for p, lst in sp.items() for i, a in enumerate(lst)],
                          columns=["proposer", "acceptor", "rank"])
        ap = pd.DataFrame([(a, p, i) for a, lst in sa.items() for i, p in enumerate(lst)],
                          columns=["acceptor", "proposer", "rank"])
        t_ours, _, ours = best_of(lambda: cm.stable_marriage(pp, ap, backend="cpu"),
                                  args.repeat, bm._no_sync)
        ours = dict(zip(ours["proposer"], ours["acceptor"]))
        out.append({"instance": name, "n": n, "package_s": t_theirs, "ours_cpu_s": t_ours,
                    "package_error": error,
                    "identical": None if their_result is None else their_result == ours})
        print(f"  matching package {name} n={n}: theirs {bm.fmt_t(t_theirs)}"
              f"{' (' + error + ')' if error else ''}, ours (whole call) {bm.fmt_t(t_ours)}")
    return out


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def markdown(report) -> str:
    meta = report["meta"]
    lines = [
        f"# Stable-marriage benchmark: {meta['out_name']}",
        "",
        f"- date: {meta['date']}",
        f"- command: `{meta['command']}`",
        f"- CPU: {meta['cpu']['model']}, {meta['cpu']['cores']} cores "
        f"({meta['cpu']['usable_cores']} usable); the CPU kernels are sequential",
        f"- GPU: {meta['gpu']['name'] if meta['gpu'] else 'none (no GPU on this machine)'}",
        f"- code: commit {meta['git']['commit']}"
        + (" with uncommitted changes in cugraph_match/" if meta["git"]["package_dirty"] else ""),
        "- versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v),
        f"- timing: min of {meta['repeat']} runs after 1 warm-up (hard n >= 20,000: "
        f"{meta['hard_repeat']} run(s), warm-up on a tiny instance); kernel rows time the "
        "proposal kernel on prepared lists; 'whole call' rows time the public function "
        "(frames in, frame out)",
        "- proposals/s: list entries considered (skipped or proposed to) per second; "
        "n(n+1)/2 per run on hard instances",
        "",
        "## Instances",
        "",
        "| kind | n | list entries | mutual pairs | generate | prepare (CPU) | prepare (GPU) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["instances"]:
        lines.append(f"| {r['kind']} | {r['n']:,} | {r['entries']:,} | "
                     f"{r.get('mutual_pairs', r['entries']):,} | {bm.fmt_t(r.get('generate_s'))} "
                     f"| {bm.fmt_t(r.get('prepare_cpu_s'))} | {bm.fmt_t(r.get('prepare_gpu_s'))} |")
    lines += ["", "## Runs", "",
              "| kind | n | backend | what | algorithm | params | time | M proposals/s "
              "| matched | check |",
              "|---|---:|---|---|---|---|---:|---:|---:|---|"]
    for r in report["instances"]:
        for run in r["runs"]:
            params = ", ".join(f"{k}={v}" for k, v in run["params"].items())
            extra = (f" ({run['matched_at_level_1']:,} at level 1)"
                     if "matched_at_level_1" in run else "")
            lines.append(
                f"| {r['kind']} | {r['n']:,} | {run['backend']} | {run['what']} | "
                f"{run['algorithm']} | {params} | {bm.fmt_t(run['time_s'])} | "
                f"{run['proposals_per_s'] / 1e6:.1f} | {run['matched']:,}{extra} | "
                f"{'ok' if run['identical'] else '**MISMATCH**'} |")
    if report["package"]:
        lines += ["", "## Against the `matching` package (complete lists, whole calls)", "",
                  "| instance | n | matching package | ours (CPU, frames in/out) | ratio | same pairs |",
                  "|---|---:|---:|---:|---:|---|"]
        for p in report["package"]:
            ratio = (f"{p['package_s'] / p['ours_cpu_s']:.2g}×" if p["package_s"] else "—")
            lines.append(f"| {p['instance']} | {p['n']} | "
                         f"{bm.fmt_t(p['package_s']) if p['package_s'] else p['package_error']} | "
                         f"{bm.fmt_t(p['ours_cpu_s'])} | {ratio} | "
                         f"{'—' if p['identical'] is None else ('yes' if p['identical'] else '**no**')} |")
    lines += ["", "## Summary", "",
              "- all results identical to the CPU McVitie-Wilson result (and, for hard "
              "instances, to the closed form with n(n+1)/2 entries considered): "
              + ("yes" if not report["summary"]["mismatches"] else
                 "**no**: " + ", ".join(report["summary"]["mismatches"]))]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba

    import cugraph_match
    from cugraph_match.structure.core import gpu_available, resolve_backend

    use_gpu = args.gpu == "auto" and gpu_available()
    backends = [("cpu", resolve_backend("cpu"))]
    sync = {"cpu": bm._no_sync}
    gpu_info = None
    if use_gpu:
        import cupy

        backends.append(("gpu", resolve_backend("gpu")))
        sync["gpu"] = cupy.cuda.Device().synchronize
        gpu_info = bm.gpu_description()
    out_name = args.out_name or (f"marriage_{'gpu' if use_gpu else 'cpu'}_"
                                 f"{_dt.date.today().isoformat()}")
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    instances, package = [], []
    for n in args.package:
        res = package_runs(n, args)
        if res:
            package += res
    for n in args.hard:
        instances.append(hard_runs(n, args, backends, sync))
    for n in args.easy:
        instances.append(easy_runs(n, args, backends, sync))

    mismatches = [f"{r['kind']} n={r['n']} {run['backend']} {run['what']} {run['algorithm']}"
                  for r in instances for run in r["runs"] if not run["identical"]]
    mismatches += [f"matching package {p['instance']} n={p['n']}" for p in package
                   if p["identical"] is False]
    command = shlex.join(["python"] + (sys.argv if argv is None
                                       else ["benchmarks/bench_marriage.py"] + list(argv)))
    report = {
        "meta": {
            "out_name": out_name,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "command": command, "args": vars(args),
            "cpu": {"model": bm.cpu_model(), "cores": os.cpu_count(),
                    "usable_cores": len(os.sched_getaffinity(0))},
            "platform": platform.platform(), "git": bm.git_state(), "gpu": gpu_info,
            "versions": {"python": platform.python_version(),
                         "cugraph_match": cugraph_match.__version__, "numpy": np.__version__,
                         "numba": numba.__version__, "numba-cuda": bm.version_of("numba-cuda"),
                         "pandas": bm.version_of("pandas"), "matching": bm.version_of("matching"),
                         "cupy": gpu_info["cupy"] if gpu_info else None},
            "repeat": args.repeat, "hard_repeat": args.hard_repeat,
            "total_wall_s": time.perf_counter() - started,
        },
        "instances": instances, "package": package,
        "summary": {"mismatches": mismatches},
    }
    json_path, md_path = out_dir / f"{out_name}.json", out_dir / f"{out_name}.md"
    json_path.write_text(json.dumps(report, indent=1, default=bm._json_default) + "\n")
    text = markdown(report)
    md_path.write_text(text)
    print(text)
    print(f"wrote {json_path} and {md_path} ({report['meta']['total_wall_s']:.0f} s)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
