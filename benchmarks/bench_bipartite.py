"""Benchmark the two-sided greedy matchings (``bipartite=True``) against
today's one-id-space call on the same rows.

Inputs: two tables of record ids ``0..N-1`` each (so every left id collides
with a right id), as a caller's pandas frame ``src | dst | weight`` with int64
ids and float64, float32 or no weights:

* ``random-N-K``: K candidate right records per left record, drawn uniformly
  (``--random N:K``; default 10⁵:10 and 10⁶:10, i.e. 10⁶ and 10⁷ rows);
* ``rmat-S``: an R-MAT edge list read as two tables (``src`` the left
  table's ids, ``dst`` the right table's; skewed degrees; ``--scales``).

Weights: float32 uniform on (0, 1] from ``--seed`` (``rmat.uniform_weights``).

For every input and variant (every call compiled on small frames first, then
run once untimed; then ``--repeat`` rounds in which each call below runs once
in turn, so that load from other jobs falls on all of them alike; the
minimum over the rounds is reported):

* **two-sided**: ``cm.suitor_matching(df, bipartite=True)`` and
  ``cm.locally_dominant_matching(df, bipartite=True)``, whole call from the
  frame to the linked-pairs frame;
* **one id space, same rows**: the same calls without ``bipartite`` on the
  same frame (today's call: colliding ids read as one vertex — a different
  graph, the same rows);
* **one id space, disjoint ids**: ``suitor_matching`` on the frame with
  every right id shifted past the left ids (the same graph as the two-sided
  call; the shift is made outside the clock);
* **workaround end to end**: what a caller does today to get linked pairs:
  shift the right ids, call, keep the left rows with a mate, shift back;
* **kernel**: ``suitor_mates`` on the prepared two-sided and one-id-space
  graphs (preference rows built);
* with ``--rss`` (default), the peak RSS per input byte of the two-sided
  and the same-rows calls, each in a fresh process.

The target: two-sided whole call ≤ 1.2× the one-id-space call on the same
rows.  Every two-sided result is checked equal to the disjoint-ids call's
pairs (exit status 1 otherwise).

Example::

    NUMBA_NUM_THREADS=1 python benchmarks/bench_bipartite.py --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as C  # noqa: E402
import rmat  # noqa: E402

TARGET = 1.2
SCRIPT = "bench_bipartite.py"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Two-sided greedy matchings against the "
                                            "one-id-space call on the same rows.")
    p.add_argument("--random", nargs="*", default=["100000:10", "1000000:10"],
                   metavar="N:K", help="N records per table, K candidates per left record")
    p.add_argument("--scales", type=int, nargs="*", default=[18],
                   help="R-MAT scales read as two tables (default: 18)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--variants", nargs="+", choices=C.VARIANTS, default=list(C.VARIANTS))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--rss", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--rss-timeout", type=int, default=900)
    p.add_argument("--out-dir", default=str(C.RESULTS_DIR))
    p.add_argument("--out-name", default=None)
    p.add_argument("--note", default=None)
    p.add_argument("--rss-task", default=None, help=argparse.SUPPRESS)  # worker mode
    args = p.parse_args(argv)
    # what _common.meta and meta_lines read
    args.peer_repeat, args.peer_warmup, args.gpu = args.repeat, args.warmup, "off"
    return args


# --------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------


def base_frame(spec: dict):
    """``src | dst | weight`` (int64 ids in 0..N-1 on both sides, float32 weights)."""
    import pandas as pd

    rng = np.random.default_rng(spec["seed"])
    if spec["kind"] == "random":
        n, k = spec["n"], spec["k"]
        src = np.repeat(np.arange(n, dtype=np.int64), k)
        dst = rng.integers(0, n, n * k, dtype=np.int64)
        return pd.DataFrame({"src": src, "dst": dst,
                             "weight": rmat.uniform_weights(n * k, rng)})
    edges = rmat.rmat_edges(spec["scale"], seed=spec["seed"])
    return pd.DataFrame({"src": edges["src"].to_numpy().astype(np.int64),
                         "dst": edges["dst"].to_numpy().astype(np.int64),
                         "weight": edges["weight"].to_numpy()})


def specs(args) -> list[dict]:
    out = []
    for item in args.random:
        n, k = (int(x) for x in item.split(":"))
        out.append({"name": f"random-{n}-{k}", "kind": "random", "n": n, "k": k,
                    "seed": args.seed})
    out += [{"name": f"rmat-{s}", "kind": "rmat", "scale": s, "seed": args.seed}
            for s in args.scales]
    return out


def shifted(df):
    """The frame with every right id past the left ids (the caller's workaround)."""
    offset = int(df["src"].max()) + 1
    return df.assign(dst=df["dst"] + offset), offset


def workaround(cm, df, function):
    """Linked pairs the way a caller gets them without ``bipartite=True``."""
    import pandas as pd

    frame, offset = shifted(df)
    m = function(frame, backend="cpu")
    left = m[(m["vertex"] < offset) & m["mate"].notna()]
    return pd.DataFrame({"src": left["vertex"].to_numpy(),
                         "dst": left["mate"].to_numpy(dtype=np.int64) - offset,
                         "weight": left["weight"].to_numpy()})


def calls(cm, df, disjoint):
    return {
        ("suitor", "two_sided"): lambda: cm.suitor_matching(df, backend="cpu", bipartite=True),
        ("suitor", "same_rows"): lambda: cm.suitor_matching(df, backend="cpu"),
        ("suitor", "disjoint"): lambda: cm.suitor_matching(disjoint, backend="cpu"),
        ("suitor", "workaround"): lambda: workaround(cm, df, cm.suitor_matching),
        ("locally_dominant", "two_sided"):
            lambda: cm.locally_dominant_matching(df, backend="cpu", bipartite=True),
        ("locally_dominant", "same_rows"): lambda: cm.locally_dominant_matching(df,
                                                                                backend="cpu"),
    }


# --------------------------------------------------------------------------
# peak RSS in a fresh process
# --------------------------------------------------------------------------


def rss_worker(task: dict) -> int:
    """Worker mode: warm up, then the peak RSS of one call (see _rss_worker.py)."""
    import _rss_worker as R
    import cugraph_match as cm

    for small in C.small_frames(task["variant"]):
        cm.suitor_matching(small, backend="cpu", bipartite=True)
        cm.suitor_matching(small, backend="cpu")
    df = C.variant_frame(base_frame(task["spec"]), task["variant"])
    call = (lambda: cm.suitor_matching(df, backend="cpu", bipartite=True)) \
        if task["call"] == "two_sided" else (lambda: cm.suitor_matching(df, backend="cpu"))
    gc.collect()
    R.release_free_heap()
    R.reset_peak()
    baseline = R.status_kib("VmRSS")
    t0 = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - t0
    hwm = R.status_kib("VmHWM")
    del result
    input_bytes = C.frame_bytes(df)
    print(json.dumps({"peak_bytes": (hwm - baseline) * 1024, "input_bytes": input_bytes,
                      "peak_per_input_byte": (hwm - baseline) * 1024 / input_bytes,
                      "call_s": seconds}))
    return 0


def rss_measure(spec, variant, call, timeout):
    task = json.dumps({"spec": spec, "variant": variant, "call": call})
    try:
        proc = subprocess.run([sys.executable, str(HERE / SCRIPT), "--rss-task", task],
                              capture_output=True, text=True, timeout=timeout, cwd=C.REPO)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    if proc.returncode:
        return {"error": " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------
# the run
# --------------------------------------------------------------------------


def interleaved(fns: dict, repeat: int, warmup: int, keep=()):
    """Each call ``warmup`` times untimed, then ``repeat`` rounds in which every
    call runs once in turn: on a machine shared with other jobs, load that
    comes and goes then falls on every call alike (the minimum over rounds is
    reported).  Returns the times per key and the results of the keys in ``keep``."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {key: [] for key in fns}
    results = {}
    for _ in range(repeat):
        for key, fn in fns.items():
            gc.collect()
            t0 = time.perf_counter()
            result = fn()
            times[key].append(time.perf_counter() - t0)
            if key in keep:
                results[key] = result
            del result
    return times, results


def same_pairs(two_sided, disjoint, offset) -> bool:
    """The two-sided linked pairs equal the disjoint call's left rows, shifted back."""
    d = disjoint[(disjoint["vertex"] < offset) & disjoint["mate"].notna()]
    return (np.array_equal(two_sided["src"].to_numpy(), d["vertex"].to_numpy())
            and np.array_equal(two_sided["dst"].to_numpy(),
                               d["mate"].to_numpy(dtype=np.int64) - offset)
            and np.allclose(two_sided["weight"].to_numpy(dtype=np.float64),
                            d["weight"].to_numpy(dtype=np.float64)))


def kernel_times(cm, df, disjoint, repeat):
    from cugraph_match.matching.suitor import suitor_mates

    out = {}
    for name, g in (("two_sided", cm.Graph(df, backend="cpu", bipartite=True)),
                    ("same_rows", cm.Graph(df, backend="cpu")),
                    ("disjoint", cm.Graph(disjoint, backend="cpu"))):
        g.preference_csr()
        times, _ = C.timed(lambda g=g: suitor_mates(g), repeat)
        out[name] = C.timing(times)
    return out


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.rss_task:
        return rss_worker(json.loads(args.rss_task))
    import cugraph_match as cm

    C.log("compiling on small frames")
    for variant in args.variants:
        for small in C.small_frames(variant):
            for fn in calls(cm, small, shifted(small)[0]).values():
                fn()
    out_name = args.out_name or f"bipartite_cpu_{C._dt.date.today().isoformat()}"
    inputs, targets, mismatches = [], [], []
    for spec in specs(args):
        t0 = time.perf_counter()
        base = base_frame(spec)
        entry = {"spec": spec, "rows": len(base), "generate_s": time.perf_counter() - t0,
                 "left_records": int(base["src"].nunique()),
                 "right_records": int(base["dst"].nunique()), "variants": {}}
        for variant in args.variants:
            df = C.variant_frame(base, variant)
            disjoint, offset = shifted(df)
            rec = {"input_bytes": C.frame_bytes(df), "whole_call": {}}
            C.log(f"{spec['name']} {variant} whole calls, interleaved")
            timings, results = interleaved(calls(cm, df, disjoint), args.repeat, args.warmup,
                                           keep={("suitor", "two_sided"),
                                                 ("locally_dominant", "two_sided"),
                                                 ("suitor", "disjoint")})
            for (algorithm, kind), times in timings.items():
                rec["whole_call"][f"{algorithm}/{kind}"] = C.timing(times)
            for algorithm in ("suitor", "locally_dominant"):
                # both greedy matchings are the same unique matching
                ok = same_pairs(results[(algorithm, "two_sided")],
                                results[("suitor", "disjoint")], offset)
                rec[f"{algorithm}_equals_disjoint"] = ok
                if not ok:
                    mismatches.append(f"{spec['name']} {variant} {algorithm}")
            rec["pairs"] = len(results[("suitor", "two_sided")])
            del results
            C.log(f"{spec['name']} {variant} kernels")
            rec["kernel"] = kernel_times(cm, df, disjoint, args.repeat)
            w = rec["whole_call"]
            for algorithm in ("suitor", "locally_dominant"):
                rec[f"{algorithm}_ratio_same_rows"] = C.ratio(
                    w[f"{algorithm}/two_sided"]["time_s"], w[f"{algorithm}/same_rows"]["time_s"])
            rec["suitor_ratio_disjoint"] = C.ratio(w["suitor/two_sided"]["time_s"],
                                                   w["suitor/disjoint"]["time_s"])
            rec["workaround_over_two_sided"] = C.ratio(w["suitor/workaround"]["time_s"],
                                                       w["suitor/two_sided"]["time_s"])
            targets.append(C.target("suitor two-sided ÷ one id space (same rows)",
                                    f"{spec['name']} {variant}",
                                    rec["suitor_ratio_same_rows"], TARGET, False))
            if args.rss:
                rec["rss"] = {}
                for call in ("two_sided", "same_rows"):
                    C.log(f"{spec['name']} {variant} peak RSS {call}")
                    rec["rss"][call] = rss_measure(spec, variant, call, args.rss_timeout)
            entry["variants"][variant] = rec
            del df, disjoint
            gc.collect()
        inputs.append(entry)
        del base
    report = {"meta": C.meta(args, argv, SCRIPT, out_name, None, {}), "inputs": inputs,
              "targets": targets, "mismatches": mismatches}
    C.write_report(args, out_name, report, markdown(report))
    return 1 if mismatches else 0


def markdown(report) -> str:
    m = report["meta"]
    lines = [f"# Two-sided matching benchmark: {m['out_name']}", ""]
    lines += C.meta_lines(m, f"min of {m['repeat']} rounds, the calls of an input interleaved "
                             f"(each runs once per round), after {m['args']['warmup']} untimed "
                             f"run(s) each; every call compiled on small frames first")
    lines += ["", "Whole call: from the caller's pandas frame (int64 `src`/`dst` ids 0..N-1 on "
              "both sides, then float64, float32 or no `weight`) to the returned frame, "
              "`backend=\"cpu\"`. *two-sided*: `bipartite=True` (linked pairs). *same rows*: "
              "today's one-id-space call on the same frame (colliding ids are one vertex: "
              "another graph, the same rows). *disjoint*: the one-id-space call on the frame "
              "with right ids shifted past the left ones (the same graph; shift not timed). "
              "*workaround*: shift + one-id-space call + keep the left rows with a mate + "
              "shift back, all timed. Kernel: `suitor_mates` on the prepared graph.", ""]
    rows = []
    for entry in report["inputs"]:
        for variant, rec in entry["variants"].items():
            w = rec["whole_call"]
            rows.append([entry["spec"]["name"], f"{entry['rows']:,}", variant,
                         C.fmt_t(w["suitor/two_sided"]["time_s"]),
                         C.fmt_t(w["suitor/same_rows"]["time_s"]),
                         C.fmt_x(rec["suitor_ratio_same_rows"]),
                         C.fmt_t(w["suitor/disjoint"]["time_s"]),
                         C.fmt_x(rec["suitor_ratio_disjoint"]),
                         C.fmt_t(w["suitor/workaround"]["time_s"]),
                         C.fmt_t(rec["kernel"]["two_sided"]["time_s"]),
                         C.fmt_t(rec["kernel"]["same_rows"]["time_s"]),
                         C.fmt_t(w["locally_dominant/two_sided"]["time_s"]),
                         C.fmt_x(rec["locally_dominant_ratio_same_rows"]),
                         f"{rec['pairs']:,}",
                         "yes" if rec["suitor_equals_disjoint"]
                         and rec["locally_dominant_equals_disjoint"] else "**NO**"])
    lines += ["## suitor_matching and locally_dominant_matching", ""]
    lines += C.table(["input", "rows", "weights", "two-sided", "same rows", "÷", "disjoint",
                      "÷", "workaround", "kernel two-sided", "kernel same rows",
                      "LD two-sided", "LD ÷ same rows", "pairs", "equals disjoint"], rows,
                     right=set(range(1, 15)) - {2})
    rss_rows = []
    for entry in report["inputs"]:
        for variant, rec in entry["variants"].items():
            for call, r in rec.get("rss", {}).items():
                if "error" in r:
                    rss_rows.append([entry["spec"]["name"], variant, call, "—", "—",
                                     f"error: {r['error']}"])
                else:
                    rss_rows.append([entry["spec"]["name"], variant, call,
                                     C.fmt_mib(r["input_bytes"]), C.fmt_mib(r["peak_bytes"]),
                                     f"{r['peak_per_input_byte']:.2f}"])
    lines += ["", "## Peak RSS per input byte (suitor_matching, fresh process per call)", ""]
    lines += C.table(["input", "weights", "call", "input", "peak − baseline", "per input byte"],
                     rss_rows, right={3, 4, 5}) if rss_rows else ["Not measured (--no-rss)."]
    lines += ["", "## Target", ""] + C.target_lines(report["targets"])
    if report["mismatches"]:
        lines += ["", "**Mismatches**: " + ", ".join(report["mismatches"])]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
