"""Benchmark Leiden as a user waits for it: the whole call, from the caller's
pandas frame to the returned frame, with the kernel beside it, against our
Louvain and against igraph's Leiden, leidenalg and NetworKit's ParallelLeiden
end to end from the same arrays.

Graphs and input variants are those of ``bench_louvain.py`` (R-MAT at
``--scales``, the MatrixMarket files of ``--data-dir``; int64 ids with a
float64, a float32 or no ``weight`` column; pattern graphs get float32
weights U(0, 1] from ``--seed``), plus LFR benchmark graphs with planted
communities (``--lfr N`` nodes at the mixing parameters ``--lfr-mu``,
NetworkX's generator, unweighted).

For every graph and variant (minimum of ``--repeat`` timed runs after
``--warmup`` untimed ones; everything compiled on small frames first), wall
time and the process CPU time (all threads) of each call, because the 2-core
machine is shared:

* ``cm.leiden(df, backend="cpu", seed=...)`` (whole call), the call on a
  prepared ``cm.Graph`` and the kernel ``leiden_communities(wg, ...)``;
* ``cm.louvain(df, backend="cpu", seed=...)`` (whole call, its default
  refinement on), the bar for time and Q;
* igraph end to end (``_ig_worker.py``): ``Graph(n, edges)`` + weights +
  ``simplify(combine_edges="max")`` + ``community_leiden(objective_function=
  "modularity", n_iterations=2)`` (igraph's default), and once with
  ``n_iterations=-1`` (until an iteration changes nothing) on graphs of at
  most ``--converged-max-edges`` edges;
* leidenalg end to end (same igraph build + ``find_partition(...,
  ModularityVertexPartition, n_iterations=2)``), NetworKit end to end
  (``GraphFromCoo`` + ``removeMultiEdges`` + ``ParallelLeiden(G, True, 3,
  gamma).run()``), each in its own process (their bundled OpenMP runtimes);
* with ``--rss``, the peak RSS per input byte of ``cm.leiden`` and
  ``cm.louvain`` (fresh process per call) on generated graphs.

Quality: every partition scored by our ``modularity_of`` on our graph;
disconnected communities counted by SciPy's connected components of the
edges inside communities (ours must have none; Louvain's are reported); on
LFR graphs the NMI (arithmetic normalisation) against the planted
communities.  Checks (exit status 1 on failure): Q equal across whole call,
prepared call and kernel, equal to ``cm.modularity`` of the returned frame,
and no disconnected community in any Leiden result of ours.

``--append`` merges this run's graphs into an existing result of the same
name (each part of a long benchmark in its own command).

Example::

    python benchmarks/bench_leiden.py --scales --repeat 3 --variants float64 unweighted
    python benchmarks/bench_leiden.py --scales 20 --no-real --append --no-peers
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as C  # noqa: E402
from bench_louvain import score  # noqa: E402

SPEED_SCALES = (20,)  # the speed targets' R-MAT scale


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Whole-call Leiden against our Louvain, igraph's Leiden, leidenalg and "
                    "NetworKit ParallelLeiden end to end; quality on real and LFR graphs.")
    C.add_graph_arguments(p, default_scales=())
    C.add_common_arguments(p, "leiden")
    p.add_argument("--lfr", type=int, nargs="*", default=[],
                   help="LFR graphs of these many nodes (NetworkX's generator)")
    p.add_argument("--lfr-mu", type=float, nargs="+", default=[0.1, 0.3, 0.5, 0.7],
                   help="mixing parameters of the LFR graphs (default 0.1 0.3 0.5 0.7)")
    p.add_argument("--seed-leiden", type=int, default=0,
                   help="seed of every run: ours, igraph (Python random), leidenalg, NetworKit")
    p.add_argument("--resolution", type=float, default=1.0, help="γ (default 1.0)")
    p.add_argument("--theta", type=float, default=None, help="our θ (default cm.leiden's)")
    p.add_argument("--converged-max-edges", type=int, default=1_000_000,
                   help="run igraph's Leiden to convergence (n_iterations=-1) only on graphs "
                        "of at most this many undirected edges (default 1,000,000)")
    p.add_argument("--no-igraph", action="store_true", help="skip igraph")
    p.add_argument("--no-leidenalg", action="store_true", help="skip leidenalg")
    p.add_argument("--no-networkit", action="store_true", help="skip NetworKit")
    p.add_argument("--no-peers", action="store_true", help="skip every peer")
    p.add_argument("--no-kernel", action="store_true",
                   help="skip the prepared-Graph and kernel timings of Leiden")
    p.add_argument("--append", action="store_true",
                   help="merge into an existing result of the same --out-name")
    p.add_argument("--quality-seeds", type=int, nargs="*", default=[0, 1, 2],
                   help="on real and LFR graphs, also run ours and igraph's converged Leiden "
                        "with each of these seeds (one run each) and compare the means "
                        "(default 0 1 2)")
    p.add_argument("--peer-timeout", type=int, default=540,
                   help="seconds one peer call may take before its worker is killed and the "
                        "peer recorded as not finished (default 540)")
    args = C.finish_args(p, p.parse_args(argv))
    if args.no_peers:
        args.no_igraph = args.no_leidenalg = args.no_networkit = True
    return args


def leiden_kwargs(args) -> dict:
    kw = {"resolution": args.resolution, "seed": args.seed_leiden}
    if args.theta is not None:
        kw["theta"] = args.theta
    return kw


def timed(fn, repeat: int, warmup: int):
    """(wall times, CPU times, last result): ``warmup`` untimed runs, then ``repeat``."""
    result = None
    for _ in range(warmup):
        result = None
        gc.collect()
        result = fn()
    walls, cpus = [], []
    for _ in range(repeat):
        result = None
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return walls, cpus, result


def timing(walls, cpus) -> dict:
    return {"time_s": float(min(walls)), "times_s": [float(t) for t in walls],
            "cpu_s": float(min(cpus)), "cpus_s": [float(t) for t in cpus],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()]}


def warm_up(args) -> None:
    import cugraph_match as cm
    from cugraph_match.community.leiden import leiden_communities

    for variant in args.variants:
        for df in C.small_frames(variant):
            cm.leiden(df, backend="cpu", **leiden_kwargs(args))
            cm.louvain(df, backend="cpu", seed=args.seed_leiden)
            g = cm.Graph(df, backend="cpu")
            cm.leiden(g, **leiden_kwargs(args))
            leiden_communities(g.weighted_graph(), args.resolution, 1e-7, 100, g.backend,
                               args.seed_leiden)


def disconnected_pieces(wg, codes: np.ndarray) -> int:
    """Connected pieces of the communities minus the communities (SciPy)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    lo, hi = np.asarray(wg.lo), np.asarray(wg.hi)
    inside = codes[lo] == codes[hi]
    matrix = sp.coo_matrix((np.ones(int(inside.sum())), (lo[inside], hi[inside])),
                           shape=(wg.n, wg.n))
    pieces, _ = connected_components(matrix, directed=False)
    return int(pieces - np.unique(codes).shape[0])


def nmi(a, b) -> float:
    """Normalised mutual information, arithmetic-mean normalisation."""
    _, a = np.unique(np.asarray(a), return_inverse=True)
    _, b = np.unique(np.asarray(b), return_inverse=True)
    joint = np.zeros((a.max() + 1, b.max() + 1))
    np.add.at(joint, (a.ravel(), b.ravel()), 1.0)
    joint /= joint.sum()
    pa, pb = joint.sum(1), joint.sum(0)
    nz = joint > 0
    mutual = float((joint[nz] * np.log(joint[nz] / np.outer(pa, pb)[nz])).sum())
    h = [-float((p[p > 0] * np.log(p[p > 0])).sum()) for p in (pa, pb)]
    return mutual / (sum(h) / 2) if sum(h) else 1.0


def codes_of(wg, labels, membership_by_id) -> np.ndarray:
    membership = np.asarray(membership_by_id, dtype=np.int64)[labels]
    return np.unique(membership, return_inverse=True)[1].astype(np.int64).ravel()


def ours_runs(df, args, tag: str, n_ids: int, quality_seeds=()) -> tuple[dict, tuple]:
    import cugraph_match as cm
    from cugraph_match.community.leiden import leiden_communities
    from cugraph_match.community.modularity import modularity_of

    r, warm, res = args.repeat, args.warmup, args.resolution
    kw = leiden_kwargs(args)
    out = {"calls": {}}
    g = cm.Graph(df, backend="cpu")
    wg = g.weighted_graph()
    out["num_vertices"], out["num_edges"] = g.num_vertices, g.num_edges
    out["self_loops"] = int(np.count_nonzero(wg.loop))
    labels = g.labels.to_numpy().astype(np.int64)
    found = {}
    for name, call in (("leiden", lambda: cm.leiden(df, backend="cpu", **kw)),
                       ("louvain", lambda: cm.louvain(df, backend="cpu",
                                                      seed=args.seed_leiden))):
        C.log(f"{tag}: {name} whole call")
        walls, cpus, (parts, q) = timed(call, r, warm)
        membership = np.zeros(n_ids, dtype=np.int64)
        membership[parts["vertex"].to_numpy(dtype=np.int64)] = \
            parts["community"].to_numpy(dtype=np.int64)
        codes = codes_of(wg, labels, membership)
        rec = {"whole": timing(walls, cpus), "q": float(q),
               "communities": int(parts["community"].nunique()),
               "modularity_of_frame": float(cm.modularity(df, parts, resolution=res)),
               "disconnected_pieces": disconnected_pieces(wg, codes)}
        found[name] = membership
        out["calls"][name] = rec
        del parts
    rec = out["calls"]["leiden"]
    if quality_seeds:
        C.log(f"{tag}: leiden with seeds {quality_seeds}")
        rec["q_by_seed"] = {str(s): rec["q"] if s == args.seed_leiden else
                            float(cm.leiden(df, backend="cpu", **{**kw, "seed": s})[1])
                            for s in quality_seeds}
    if not args.no_kernel:
        C.log(f"{tag}: leiden on a prepared Graph, kernel")
        walls, cpus, (_, pq) = timed(lambda: cm.leiden(g, **kw), r, warm)
        rec["prepared_graph"] = timing(walls, cpus)
        rec["prepared_q"] = float(pq)
        theta = kw.get("theta")
        extra = {} if theta is None else {"theta": theta}
        walls, cpus, community = timed(
            lambda: leiden_communities(wg, res, 1e-7, 100, g.backend, args.seed_leiden, **extra),
            r, warm)
        rec["kernel"] = timing(walls, cpus)
        rec["kernel_what"] = "leiden_communities(wg, resolution, 1e-7, 100, g.backend, seed)"
        rec["kernel_q"] = modularity_of(wg, community, res, np)
        rec["plumbing_s"] = rec["whole"]["time_s"] - rec["kernel"]["time_s"]
    close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b))  # noqa: E731
    out["checks"] = {
        "leiden_q_equals_modularity_of_frame": close(rec["q"], rec["modularity_of_frame"]),
        "louvain_q_equals_modularity_of_frame":
            close(out["calls"]["louvain"]["q"], out["calls"]["louvain"]["modularity_of_frame"]),
        "leiden_communities_connected": rec["disconnected_pieces"] == 0,
    }
    if not args.no_kernel:
        out["checks"]["prepared_and_kernel_q_equal"] = close(rec["prepared_q"], rec["q"]) and \
            close(rec["kernel_q"], rec["q"])
    return out, (wg, labels, found)


def peer_record(res, wg, labels, resolution) -> dict:
    rec = C.best_phases(res["runs"])
    rec["cpu_s"] = min(run["cpu_s"] for run in res["runs"])
    rec.update(score(wg, labels, res["membership"], resolution))
    rec["modularity_own"] = res["modularity_own"]
    rec["disconnected_pieces"] = disconnected_pieces(wg, codes_of(wg, labels,
                                                                  res["membership"]))
    rec["membership"] = res["membership"]  # dropped before writing; NMI needs it
    return rec


class PeerTimeout(Exception):
    pass


def call_peer(pools: dict, key: str, timeout: int, fn, *args):
    """``fn(*args)`` in the worker ``pools[key]``; past ``timeout`` seconds the
    worker is killed (a fresh one is started for the next graph)."""
    from concurrent.futures import TimeoutError as FutureTimeout

    future = pools[key].submit(fn, *args)
    try:
        return future.result(timeout=timeout)
    except FutureTimeout:
        pool = pools[key]
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        pools[key] = C.start_worker("_nk_worker" if key == "nk" else "_ig_worker",
                                    pools["threads"])[0]
        raise PeerTimeout(f"did not finish within {timeout} s (worker killed)")


def peers_runs(pools: dict, path: Path, args, tag: str, wg, labels, num_edges: int,
               quality_seeds=()) -> dict:
    import _ig_worker as IG
    import _nk_worker as NK

    out = {}
    res_, t = args.resolution, args.peer_timeout
    runs = []
    if pools.get("ig") is not None:
        if not args.no_igraph:
            runs.append(("ig", "igraph leiden (2 iterations)", IG.run_leiden,
                         (args.peer_repeat, 2, res_, args.seed_leiden, args.peer_warmup)))
            if num_edges <= args.converged_max_edges:
                runs.append(("ig", "igraph leiden (converged)", IG.run_leiden,
                             (1, -1, res_, args.seed_leiden, 0)))
        if not args.no_leidenalg:
            runs.append(("ig", "leidenalg (2 iterations)", IG.run_leidenalg,
                         (args.peer_repeat, 2, res_, args.seed_leiden, args.peer_warmup)))
    if pools.get("nk") is not None:
        runs.append(("nk", "NetworKit ParallelLeiden", NK.run_parallel_leiden,
                     (args.peer_repeat, 3, res_, args.seed_leiden, args.peer_warmup)))
    loaded = set()
    for key, label, fn, fn_args in runs:
        if key not in loaded:
            call_peer(pools, key, t, IG.load if key == "ig" else NK.load, str(path))
            loaded.add(key)
        C.log(f"{tag}: {label} end to end")
        try:
            out[label] = peer_record(call_peer(pools, key, t, fn, *fn_args), wg, labels, res_)
        except PeerTimeout as err:
            out[label] = {"not_finished": str(err), "timeout_s": t}
            loaded.discard(key)
            continue
        except ImportError as err:
            out[label] = {"not_finished": repr(err)}
            continue
        if label == "igraph leiden (converged)" and quality_seeds:
            qs = {}
            for seed in quality_seeds:
                if seed == args.seed_leiden:  # the run above
                    qs[str(seed)] = out[label]["modularity"]
                    continue
                C.log(f"{tag}: {label} seed {seed}")
                res = call_peer(pools, key, t, fn, 1, -1, res_, seed, 0)
                qs[str(seed)] = peer_record(res, wg, labels, res_)["modularity"]
            out[label]["q_by_seed"] = qs
    for key in loaded:
        call_peer(pools, key, t, IG.release if key == "ig" else NK.release)
    return out


def rss_runs(spec, variant: str, args, tag: str) -> list:
    out = []
    for function in ("leiden", "louvain"):
        if not C.rss_wanted(args, function):
            continue
        C.log(f"{tag}: peak RSS of {function} (fresh process)")
        task = {"graph": spec.task(), "variant": variant, "function": function,
                "params": {"seed": args.seed_leiden}, "threads": args.threads,
                "partition": None}
        rec = C.rss_measure(task, args.rss_timeout)
        out.append({**rec, "graph": spec.name, "variant": variant, "function": function})
    return out


def lfr_graphs(args):
    """(name, edge frame, planted community per id) of each LFR graph."""
    import networkx as nx
    import pandas as pd

    for n in args.lfr:
        for mu in args.lfr_mu:
            for attempt in range(20):  # the generator gives up on some seeds
                try:
                    graph = nx.LFR_benchmark_graph(n, 3, 1.5, mu, average_degree=10,
                                                   max_degree=max(50, n // 20),
                                                   min_community=20,
                                                   max_community=max(100, n // 10),
                                                   seed=args.seed + attempt)
                    break
                except nx.ExceededMaxIterations:
                    continue
            else:
                C.log(f"LFR n={n} mu={mu}: generator failed 20 seeds; skipped")
                continue
            graph.remove_edges_from(nx.selfloop_edges(graph))
            edges = np.array(list(graph.edges()), dtype=np.int64)
            planted = np.zeros(n, dtype=np.int64)
            for v in graph:
                planted[v] = min(graph.nodes[v]["community"])
            df = pd.DataFrame({"src": edges[:, 0], "dst": edges[:, 1]})
            yield f"lfr-{n}-mu{mu}", df, planted, args.seed + attempt


def evaluate_targets(graphs: list) -> list:
    out = []
    ratios_louvain = []
    for g in graphs:
        for variant, v in g["variants"].items():
            where = f"{g['name']} {variant}"
            ours = v["ours"]["calls"]
            conv = v.get("peers", {}).get("igraph leiden (converged)")
            if g["kind"] == "file" and conv and "modularity" in conv:
                out.append(C.target("Q: ours ÷ igraph Leiden converged (one seed)", where,
                                    C.ratio(ours["leiden"]["q"], conv["modularity"]), 0.995,
                                    True))
                if "q_by_seed" in conv and "q_by_seed" in ours["leiden"]:
                    out.append(C.target(
                        "Q: ours ÷ igraph Leiden converged (means over the quality seeds)",
                        where, C.ratio(seed_mean(ours["leiden"]), seed_mean(conv)), 0.995,
                        True))
            if g["kind"] == "file":
                ratios_louvain.append(C.ratio(ours["leiden"]["q"], ours["louvain"]["q"]))
            if g["kind"] == "rmat" and g["param"] in SPEED_SCALES:
                for clock, key in (("CPU time", "cpu_s"), ("wall", "time_s")):
                    out.append(C.target(f"whole call: leiden ÷ louvain ({clock})", where,
                                        C.ratio(ours["leiden"]["whole"][key],
                                                ours["louvain"]["whole"][key]), 1.3, False))
                ig = v.get("peers", {}).get("igraph leiden (2 iterations)")
                if ig and "not_finished" in ig:
                    out.append(C.target("igraph Leiden (2 iterations) end to end ÷ our whole "
                                        "call (wall; igraph did not finish: a lower bound)",
                                        where, C.ratio(ig.get("timeout_s"),
                                                       ours["leiden"]["whole"]["time_s"]),
                                        2.0, True))
                elif ig:
                    for clock, peer_key, key in (("CPU time", "cpu_s", "cpu_s"),
                                                 ("wall", "time_s", "time_s")):
                        out.append(C.target(f"igraph Leiden (2 iterations) end to end ÷ our "
                                            f"whole call ({clock})", where,
                                            C.ratio(ig[peer_key], ours["leiden"]["whole"][key]),
                                            2.0, True))
    if ratios_louvain:
        out.append(C.target("Q: ours ÷ our Louvain, mean over the real graphs and variants",
                            f"{len(ratios_louvain)} runs",
                            float(np.mean([x for x in ratios_louvain if x is not None])), 1.0,
                            True))
    return out


def seed_mean(rec):
    """Mean Q over the quality seeds (the main run's seed included when listed)."""
    values = list(rec.get("q_by_seed", {}).values())
    return float(np.mean(values)) if values else None


def _q(x) -> str:
    return "—" if x is None else f"{x:.4f}"


def _cpu(rec) -> str:
    return C.fmt_t(rec.get("cpu_s"))


def markdown(report: dict) -> str:
    m = report["meta"]
    a = m["args"]
    lines = [f"# Leiden benchmark: {m['out_name']}", ""]
    lines += C.meta_lines(m, f"min of {m['repeat']} runs after {a['warmup']} untimed run(s); "
                             "every call compiled on small frames first; wall and process CPU "
                             "time (all threads) of each call")
    for part in report.get("parts", []):
        lines.append(f"- part: `{part['command']}` (load average at the start "
                     f"{part['loadavg_at_start']}, at the end {part['loadavg_at_end']}, "
                     f"commit {part['commit']})")
    lines += [
        f"- parameters: resolution {a['resolution']}, θ "
        f"{a['theta'] if a['theta'] is not None else 'cm.leiden default'}, seed "
        f"{a['seed_leiden']}; our Louvain with its defaults (refinement on)",
        "",
        "Whole call: `cm.leiden(df, backend=\"cpu\", ...)` / `cm.louvain(df, ...)` from the "
        "pandas frame. Prepared: `cm.leiden(g)` on `g = cm.Graph(df)`. Kernel: "
        "`leiden_communities(wg, ...)`. Peers end to end from the same arrays (graph build "
        "included): igraph `Graph(n, edges)` + weights + `simplify(combine_edges=\"max\")` + "
        "`community_leiden(objective_function=\"modularity\", n_iterations=2 | -1)`; leidenalg "
        "on the same igraph graph, `find_partition(ModularityVertexPartition, "
        "n_iterations=2)`; NetworKit `GraphFromCoo` + `removeMultiEdges` + "
        "`ParallelLeiden(G, True, 3, γ)`. Q: every partition scored by our `modularity_of`. "
        "Disconnected: connected pieces of the communities minus the communities (SciPy).",
        "",
        "## Graphs",
        "",
    ]
    rows = [[g["name"], f"{g['rows']:,}", f"{g['num_vertices']:,}", f"{g['num_edges']:,}",
             g["weights"]] for g in report["graphs"]]
    lines += C.table(["graph", "input rows", "vertices", "undirected edges", "weights"], rows,
                     right={1, 2, 3})

    lines += ["", "## Quality", "",
              "Q of each partition; `Q ÷ igraph conv.`: ours ÷ igraph's converged Leiden; "
              "`Q ÷ Louvain`: ours ÷ our Louvain; disconnected: extra connected pieces "
              "(Louvain's communities that fall apart; Leiden's must be 0).", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            ours = v["ours"]["calls"]
            peers = v.get("peers", {})
            conv = peers.get("igraph leiden (converged)", {}).get("modularity")
            two = peers.get("igraph leiden (2 iterations)", {}).get("modularity")
            la = peers.get("leidenalg (2 iterations)", {}).get("modularity")
            nk = peers.get("NetworKit ParallelLeiden", {}).get("modularity")
            conv_rec = peers.get("igraph leiden (converged)", {})
            ours_mean, conv_mean = seed_mean(ours["leiden"]), seed_mean(conv_rec)
            rows.append([g["name"], variant, _q(ours["leiden"]["q"]),
                         ours["leiden"]["communities"], ours["leiden"]["disconnected_pieces"],
                         _q(ours["louvain"]["q"]), ours["louvain"]["disconnected_pieces"],
                         C.fmt_x(C.ratio(ours["leiden"]["q"], ours["louvain"]["q"]), 4),
                         _q(conv), C.fmt_x(C.ratio(ours["leiden"]["q"], conv), 4),
                         _q(ours_mean), _q(conv_mean),
                         C.fmt_x(C.ratio(ours_mean, conv_mean), 4), _q(two), _q(la), _q(nk)])
    lines += C.table(["graph", "variant", "Leiden Q", "communities", "disconnected",
                      "Louvain Q", "Louvain disconnected", "Q ÷ Louvain", "igraph conv. Q",
                      "Q ÷ igraph conv.", "Leiden Q, seed mean", "igraph conv., seed mean",
                      "ratio of means", "igraph 2-iter Q", "leidenalg Q", "NetworKit PL Q"],
                     rows, right=set(range(2, 16)))

    lfr = [g for g in report["graphs"] if g["kind"] == "lfr"]
    if lfr:
        lines += ["", "## LFR graphs: NMI against the planted communities", ""]
        rows = []
        for g in lfr:
            v = g["variants"]["unweighted"]
            peers = v.get("peers", {})
            rows.append([g["name"], f"{v['nmi']['leiden']:.4f}", f"{v['nmi']['louvain']:.4f}"]
                        + [f"{v['nmi'][k]:.4f}" if k in v["nmi"] else "—"
                           for k in ("igraph leiden (2 iterations)", "igraph leiden (converged)",
                                     "leidenalg (2 iterations)", "NetworKit ParallelLeiden")]
                        + [_q(v["ours"]["calls"]["leiden"]["q"]),
                           _q(peers.get("igraph leiden (converged)", {}).get("modularity"))])
        lines += C.table(["graph", "ours Leiden", "ours Louvain", "igraph 2-iter",
                          "igraph conv.", "leidenalg", "NetworKit PL", "our Leiden Q",
                          "igraph conv. Q"], rows, right=set(range(1, 9)))

    lines += ["", "## Speed: whole calls and peers end to end", "",
              "wall / CPU (process CPU time, all threads). Ratios: the peer's time ÷ our "
              "Leiden whole call (above 1×: ours faster), CPU over CPU.", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            ours = v["ours"]["calls"]
            le, lo = ours["leiden"], ours["louvain"]
            rows.append([g["name"], variant, "ours cm.leiden",
                         f"{C.fmt_t(le['whole']['time_s'])} / {_cpu(le['whole'])}",
                         C.fmt_t(le.get("prepared_graph", {}).get("time_s")),
                         C.fmt_t(le.get("kernel", {}).get("time_s")), "—",
                         str(le["whole"]["loadavg_after"][0])])
            rows.append([g["name"], variant, "ours cm.louvain",
                         f"{C.fmt_t(lo['whole']['time_s'])} / {_cpu(lo['whole'])}", "—", "—",
                         C.fmt_x(C.ratio(lo["whole"]["cpu_s"], le["whole"]["cpu_s"])),
                         str(lo["whole"]["loadavg_after"][0])])
            for label, rec in v.get("peers", {}).items():
                if "not_finished" in rec:
                    rows.append([g["name"], variant, label, rec["not_finished"], "—", "—", "—",
                                 "—"])
                    continue
                rows.append([g["name"], variant, label,
                             f"{C.fmt_t(rec['time_s'])} / {_cpu(rec)}", "—", "—",
                             C.fmt_x(C.ratio(rec["cpu_s"], le["whole"]["cpu_s"])), "—"])
    lines += C.table(["graph", "variant", "call", "wall / CPU", "on prepared Graph (wall)",
                      "kernel (wall)", "CPU ÷ our Leiden's", "load after"], rows,
                     right={3, 4, 5, 6, 7})

    lines += ["", "## Peak RSS per input byte (fresh process per call)", ""]
    lines += C.rss_table_lines([r for g in report["graphs"] for v in g["variants"].values()
                                for r in v.get("rss", [])])
    lines += ["", "## Targets", ""]
    rows = [[t["target"], t["where"], "—" if t["value"] is None else f"{t['value']:.4f}×",
             f"{t['comparison']} {t['bound']:g}×",
             "—" if t["met"] is None else ("met" if t["met"] else "**not met**")]
            for t in report["targets"]]
    lines += C.table(["target", "where", "measured", "bound", "result"], rows, right={2, 3}) \
        if rows else ["No target applies to the graphs of this run."]
    s = report["summary"]
    lines += ["", "## Checks", "",
              "- Leiden's Q equal across whole call, prepared call and kernel and equal to "
              "`cm.modularity` of the returned frame, Louvain's Q equal to `cm.modularity`, and "
              "every Leiden community connected: "
              + ("yes" if not s["failures"] else "**no**: " + "; ".join(s["failures"]))]
    return "\n".join(lines) + "\n"


def _strip(rec):
    """Drop the per-id memberships kept for NMI before the JSON is written."""
    if isinstance(rec, dict):
        return {k: _strip(v) for k, v in rec.items() if k != "membership"}
    return rec


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    out_name = C.default_out_name(args, "leiden", False)
    if args.rss_only:
        return C.run_rss_only(args, argv, "bench_leiden.py", "leiden",
                              lambda spec, variant: rss_runs(spec, variant, args,
                                                             f"{spec.name} {variant}"),
                              lambda spec, rec: False)
    nk_pool, nk_setup = C.start_worker("_nk_worker", args.threads, args.no_networkit)
    ig_pool, ig_setup = (None, {}) if args.no_igraph and args.no_leidenalg else \
        C.start_worker("_ig_worker", 1)
    pools = {"nk": nk_pool, "ig": ig_pool, "threads": args.threads}
    if args.rss and not C.rss_supported():
        args.rss = False
    C.log("warm-up on small frames (compilation)")
    warm_up(args)
    graphs, failures = [], []
    items = []
    for spec in C.graph_specs(args):
        items.append(("spec", spec))
    for name, df, planted, lfr_seed in lfr_graphs(args):
        items.append(("lfr", (name, df, planted, lfr_seed)))
    with tempfile.TemporaryDirectory(prefix="bench_leiden_") as tmp:
        tmpdir = Path(tmp)
        for kind, item in items:
            if kind == "spec":
                spec = item
                C.log(f"{spec.name}: load")
                base, weights_note = C.load_base(spec)
                g_rec = {"name": spec.name, "kind": spec.kind, "param": spec.param,
                         "source": spec.describe(), "weights": weights_note, "rows": len(base),
                         "variants": {}}
                variants, planted = args.variants, None
            else:
                name, base, planted, lfr_seed = item
                spec = None
                g_rec = {"name": name, "kind": "lfr", "param": name,
                         "source": f"networkx.LFR_benchmark_graph(seed={lfr_seed})",
                         "weights": "none", "rows": len(base), "variants": {}}
                variants = ["unweighted"]
            n_ids = int(max(base["src"].max(), base["dst"].max())) + 1
            for variant in variants:
                tag = f"{g_rec['name']} {variant}"
                df = C.variant_frame(base, variant) if kind == "spec" else base
                v = {"input_bytes": C.frame_bytes(df)}
                seeds = [x for x in args.quality_seeds] if kind == "lfr" or \
                    spec.kind == "file" else []
                ours, (wg, labels, found) = ours_runs(df, args, tag, n_ids, seeds)
                v["ours"] = ours
                for key in ("num_vertices", "num_edges", "self_loops"):
                    g_rec[key] = ours[key]
                failures += [f"{tag}: {k}" for k, ok in ours["checks"].items() if not ok]
                if pools["ig"] is not None or pools["nk"] is not None:
                    path = tmpdir / "arrays.npz"
                    C.save_arrays(path, df)
                    v["peers"] = peers_runs(pools, path, args, tag, wg, labels,
                                            ours["num_edges"], seeds)
                    path.unlink()
                if planted is not None:
                    truth = planted[labels]
                    v["nmi"] = {name: nmi(truth, found[name][labels]) for name in found}
                    for label, rec in v.get("peers", {}).items():
                        if isinstance(rec, dict) and "membership" in rec:
                            v["nmi"][label] = nmi(truth, rec["membership"][labels])
                del df, wg
                gc.collect()
                if args.rss and spec is not None and spec.generated:
                    v["rss"] = rss_runs(spec, variant, args, tag)
                g_rec["variants"][variant] = _strip(v)
            graphs.append(g_rec)
            del base
            gc.collect()
    for key in ("nk", "ig"):
        if pools[key] is not None:
            pools[key].shutdown()

    meta = C.meta(args, argv, "bench_leiden.py", out_name, None,
                  {"networkit": nk_setup, "igraph": ig_setup})
    part = {"command": meta["command"], "loadavg_at_start": meta["machine"]["loadavg_at_start"],
            "loadavg_at_end": meta["machine"]["loadavg_at_end"],
            "commit": meta["git"]["commit"]}
    report = {"meta": meta, "parts": [part], "graphs": graphs,
              "summary": {"failures": failures}}
    existing = Path(args.out_dir) / f"{out_name}.json"
    if args.append and existing.exists():
        old = json.loads(existing.read_text())
        merged = {g["name"]: g for g in old["graphs"]}
        for g in graphs:
            if g["name"] not in merged:
                merged[g["name"]] = g
                continue
            for variant, v in g["variants"].items():
                before = merged[g["name"]]["variants"].get(variant)
                if before is None:
                    merged[g["name"]]["variants"][variant] = v
                    continue
                # a part that adds peers keeps the earlier part's timings of ours
                before.setdefault("peers", {}).update(v.get("peers", {}))
                for key in ("nmi", "rss"):
                    if key in v and key not in before:
                        before[key] = v[key]
                    elif key == "nmi" and key in v:
                        before[key].update({k: x for k, x in v[key].items()
                                            if k not in ("leiden", "louvain")})
        report["graphs"] = list(merged.values())
        report["parts"] = old.get("parts", []) + [part]
        report["summary"]["failures"] = old["summary"]["failures"] + failures
    report["targets"] = evaluate_targets(report["graphs"])
    C.write_report(args, out_name, report, markdown(report))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
