"""Every GPU kernel once, on small inputs, checked against the CPU backend.

Run under ``compute-sanitizer`` by ``ci/gpu.sh sanitize`` (memcheck and
racecheck): small, so the sanitizer's slowdown stays within a few minutes,
yet every kernel and both slot paths of b-Suitor, every Louvain bucket
(a hub above 319 neighbours for the global-table kernels), ROMA's sparse and
dense kernels (1,024-thread blocks among them) and the device pipeline
(renumbering, de-duplication, both row builds) run.  Exits non-zero on any
difference.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

import cugraph_match as cm
from cugraph_match.datasets import stable_marriage_instance


def skewed(seed: int, n: int = 2000, m: int = 20000) -> pd.DataFrame:
    """A skewed graph with one hub above 319 neighbours, integer weights (ties)."""
    rng = np.random.default_rng(seed)
    src = (rng.pareto(1.1, m) * 3).astype(np.int64) % n
    hub = pd.DataFrame({"src": np.zeros(400, dtype=np.int64),
                        "dst": np.arange(1, 401, dtype=np.int64)})  # degree > 319
    frame = pd.concat([pd.DataFrame({"src": src, "dst": rng.integers(0, n, m)}), hub],
                      ignore_index=True)
    frame["weight"] = rng.integers(1, 5, len(frame)).astype(np.float64)
    return frame


def same(name: str, gpu, cpu) -> bool:
    try:
        pd.testing.assert_frame_equal(gpu, cpu)
        print(f"ok    {name}")
        return True
    except AssertionError as err:
        print(f"FAIL  {name}: {err}")
        return False


def verdict(name: str, good: bool, detail: str = "") -> bool:
    print(f"{'ok  ' if good else 'FAIL'}  {name}{': ' + detail if detail else ''}")
    return good


def assignment(small: bool) -> bool:
    """The assignment kernels (bids, claims, installs, slack): a square dense
    matrix (the auction), a rectangular one and an edge list (the row
    reduction), each checked against SciPy's optimum (ties on purpose:
    integer costs), since equal optima may pick different pairs."""
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(5)
    n = 40 if small else 300
    ok = True
    for rows, cols in ((n, n), (n, n + n // 3)):
        costs = rng.integers(0, 4 * rows, (rows, cols)).astype(np.float64)
        r, c = cm.assignment(costs, backend="gpu")
        sr, sc = linear_sum_assignment(costs)
        ok &= verdict(f"assignment dense {rows}x{cols}",
                      len(r) == len(sr) and costs[r, c].sum() == costs[sr, sc].sum(),
                      f"{costs[r, c].sum():.0f} vs scipy {costs[sr, sc].sum():.0f}")
    pairs = pd.DataFrame({"src": rng.integers(0, n, 8 * n), "dst": rng.integers(0, n, 8 * n),
                          "weight": rng.integers(1, 9, 8 * n).astype(np.float64)})
    for maximize in (False, True):
        got = cm.assignment(pairs, maximize=maximize, backend="gpu")
        want = cm.assignment(pairs, maximize=maximize, backend="cpu")
        ok &= verdict(f"assignment pairs maximize={maximize}",
                      len(got) == len(want) and got["weight"].sum() == want["weight"].sum(),
                      f"{got['weight'].sum():.0f} vs cpu {want['weight'].sum():.0f}")
    return ok


def roma(frame, small: bool) -> bool:
    """ROMA's kernels: the sparse one from Suitor's start (blocks up to 1,024
    threads, the register cap's case), the dense ones on a weight matrix (its
    default 1,024-thread blocks) and on points.  Parallel phases differ from
    the CPU's sequential ones, so each result is checked, not compared: a
    valid (perfect, on complete graphs) matching no lighter than its start."""
    ok = True
    for threads in (128, 1024):
        result, info = cm.roma_matching(frame, backend="gpu", threads_per_block=threads,
                                        return_info=True)
        ok &= verdict(f"roma sparse tpb={threads}",
                      cm.is_matching(frame, result) and info.weight >= info.start_weight,
                      f"{info.start_weight:.0f} -> {info.weight:.0f}")
    rng = np.random.default_rng(3)
    n = 64 if small else 512
    upper = np.triu(rng.random((n, n)), 1).astype(np.float32)
    matrix = upper + upper.T
    points = rng.random((n // 2, 2))
    for what, call in (("matrix", lambda t: cm.roma_matching(matrix, threads_per_block=t,
                                                             backend="gpu", return_info=True)),
                       ("points", lambda t: cm.roma_matching(points=points, threads_per_block=t,
                                                             backend="gpu", return_info=True))):
        for threads in (128, 1024):
            result, info = call(threads)
            mate = result["mate"].to_numpy(dtype=np.float64, na_value=-1).astype(np.int64)
            size = len(mate)
            matched = np.flatnonzero(mate >= 0)
            perfect = len(matched) == size - size % 2 and (mate[mate[matched]] == matched).all()
            ok &= verdict(f"roma {what} tpb={threads}",
                          bool(perfect) and info.weight >= info.start_weight,
                          f"{info.start_weight:.3f} -> {info.weight:.3f}")
    return ok


def main(argv: list[str]) -> int:
    # ``--small`` shrinks everything, for a check in Numba's simulator
    small = "--small" in argv
    frame = skewed(1, n=300, m=600) if small else skewed(1)
    sizes = (("easy", 60), ("hard", 20)) if small else (("easy", 3000), ("hard", 300))
    ok = True
    for vpw, tpb in ((1, 32), (8, 128), (32, 256)):
        ok &= same(f"suitor vpw={vpw} tpb={tpb}",
                   cm.suitor_matching(frame, backend="gpu", vertices_per_warp=vpw,
                                      threads_per_block=tpb),
                   cm.suitor_matching(frame, backend="cpu"))
    ok &= same("locally dominant", cm.locally_dominant_matching(frame, backend="gpu"),
               cm.locally_dominant_matching(frame, backend="cpu"))
    for heap_above in (0, 32):
        ok &= same(f"b-suitor heap_above={heap_above}",
                   cm.b_suitor_matching(frame, b=3, backend="gpu", heap_above=heap_above),
                   cm.b_suitor_matching(frame, b=3, backend="cpu"))
    for weighted in (True, False):
        ok &= same(f"handshake weighted={weighted}",
                   cm.maximal_matching(frame, weighted=weighted, seed=1, backend="gpu"),
                   cm.maximal_matching(frame, weighted=weighted, seed=1, backend="cpu"))
    gpu_levels = cm.coarsen_hierarchy(frame, min_vertices=50, backend="gpu")
    cpu_levels = cm.coarsen_hierarchy(frame, min_vertices=50, backend="cpu")
    for i, ((gc, gm), (cc, cmap)) in enumerate(zip(gpu_levels, cpu_levels)):
        ok &= same(f"coarsen level {i}", gc, cc) and same(f"coarsen mapping {i}", gm, cmap)
    parts, q = cm.louvain(frame, backend="gpu")
    again, q_again = cm.louvain(frame, backend="gpu")
    ok &= same("louvain twice", again, parts) and q == q_again
    cpu_q = cm.louvain(frame, backend="cpu")[1]
    print(f"{'ok  ' if q >= 0.95 * cpu_q else 'FAIL'}  louvain q {q:.4f} vs cpu {cpu_q:.4f}")
    ok &= q >= 0.95 * cpu_q
    ok &= roma(frame, small)
    parts, q = cm.leiden(frame, backend="gpu")
    again, q_again = cm.leiden(frame, backend="gpu")
    ok &= same("leiden twice", again, parts) and q == q_again
    cpu_q = cm.leiden(frame, backend="cpu")[1]
    print(f"{'ok  ' if q >= 0.95 * cpu_q else 'FAIL'}  leiden q {q:.4f} vs cpu {cpu_q:.4f}")
    ok &= q >= 0.95 * cpu_q
    ok &= assignment(small)
    for kind, n in sizes:
        pp, ap = stable_marriage_instance(n, kind, seed=1)
        for algorithm in ("mcvitie_wilson", "gale_shapley"):
            ok &= same(f"stable marriage {kind} {algorithm}",
                       cm.stable_marriage(pp, ap, algorithm=algorithm, backend="gpu"),
                       cm.stable_marriage(pp, ap, algorithm=algorithm, backend="cpu"))
        ok &= same(f"b-marriage {kind}", cm.b_marriage(pp, ap, 2, 3, backend="gpu"),
                   cm.b_marriage(pp, ap, 2, 3, backend="cpu"))
        ok &= same(f"popular {kind}", cm.popular_matching(pp, ap, backend="gpu"),
                   cm.popular_matching(pp, ap, backend="cpu"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
