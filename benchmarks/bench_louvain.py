"""Benchmark what a user of louvain and modularity waits for: the whole call,
from the caller's pandas frame to the returned result, with the kernel beside
it, against igraph, NetworKit and NetworkX end to end from the same arrays.

Graphs and input variants are those of ``bench_matching.py`` (R-MAT at
``--scales``, optional meshes, the MatrixMarket files of ``--data-dir``; each
as an int64 ``src``/``dst`` frame with a float64, a float32 or no ``weight``
column; pattern graphs get float32 weights U(0, 1] from ``--seed``, lesmis
keeps its own).  The library's Louvain and modularity read the graph with
duplicate rows merged (largest weight) and self-loops kept; the peers' graphs
are built to the same semantics where the library allows it (see below).

For every graph and variant (minimum of ``--repeat`` timed runs after one
untimed warm-up run; every call compiled on small frames first):

* ``cm.Graph(df, backend="cpu")``: the prepared-graph build alone;
* ``cm.louvain(df, backend="cpu", seed=...)`` (whole call, refinement on as
  by default), the call on a prepared Graph (``cm.louvain(g)``, its weighted
  graph built), and the kernel ``louvain_communities(wg, resolution,
  threshold, max_level, g.backend, seed)``; the same whole call and kernel
  with ``refine=False`` (``--no-variant`` skips them);
* ``cm.modularity(df, parts)`` of the partition the whole call returned,
  on a prepared Graph, and the kernel ``modularity_of(wg,
  community_codes(g, parts), resolution, np)`` (``community_codes`` alone
  reported too);
* igraph end to end (``_ig_worker.py``, own process): ``ig.Graph(n=n,
  edges=np.column_stack([u, v]), directed=False)``, ``G.es["weight"] = w``,
  ``simplify(multiple=True, loops=False, combine_edges="max")``, then
  ``community_multilevel(weights=..., resolution=...)`` + ``membership``, or
  ``modularity(membership, weights=..., resolution=...)`` of our partition;
* NetworKit end to end (``_nk_worker.py``, own process): ``GraphFromCoo`` +
  ``removeMultiEdges()`` (self-loops kept) + ``PLM(G, refine, gamma,
  "balanced").run()`` + ``getPartition()``, refine False and True;
* NetworkX, once, on graphs of at most ``--nx-max-edges`` undirected edges:
  ``nx.Graph`` from the same arrays (``add_weighted_edges_from``; a repeated
  edge keeps its last weight) + ``louvain_communities``;
* the floor: ``np.argsort`` of one uint64 key ``(src << 32) | dst`` per row;
* with ``--rss`` (default), the peak RSS per input byte of ``cm.Graph``,
  ``cm.louvain`` and ``cm.modularity`` (one fresh process per call,
  ``_rss_worker.py``), on generated graphs.

Quality: every partition is scored by the library's ``modularity_of`` on the
library's graph (one definition for all: a self-loop counts once in m and
twice in its vertex's degree); each peer's own value is kept beside it.
Checks: the whole call, the prepared-Graph call and the kernel give the same
modularity, and ``cm.modularity`` of the returned partition equals the
returned ``q``; a failure makes the script exit with status 1.

Example::

    python benchmarks/bench_louvain.py --scales 18 20 --repeat 3
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

TARGET_SCALES = (18, 20)  # modularity vs igraph
RSS_TARGET_SCALES = (20,)  # every public function
LOUVAIN_RSS_TARGET_SCALES = (20, 22)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Whole-call and kernel timings of louvain and modularity against igraph, "
                    "NetworKit PLM and NetworkX end to end, with peak RSS per input byte.")
    C.add_graph_arguments(p, default_scales=(14, 16))
    C.add_common_arguments(p, "louvain")
    p.add_argument("--seed-louvain", type=int, default=0,
                   help="seed of every Louvain run: ours, igraph (Python random), NetworKit, "
                        "NetworkX (default 0)")
    p.add_argument("--resolution", type=float, default=1.0, help="γ (default 1.0)")
    p.add_argument("--threshold", type=float, default=1e-7,
                   help="our threshold (default 1e-7, as cm.louvain)")
    p.add_argument("--max-level", type=int, default=100, help="our max_level (default 100)")
    p.add_argument("--no-variant", action="store_true",
                   help="skip our refine=False runs and NetworKit's PLM(refine=True)")
    p.add_argument("--nx-max-edges", type=int, default=20_000,
                   help="run NetworkX only on graphs with at most this many undirected edges "
                        "(default 20000)")
    p.add_argument("--no-igraph", action="store_true", help="skip igraph")
    p.add_argument("--no-networkit", action="store_true", help="skip NetworKit")
    p.add_argument("--no-networkx", action="store_true", help="skip NetworkX")
    args = C.finish_args(p, p.parse_args(argv))
    if not args.resolution > 0:
        p.error("--resolution must be positive")
    return args


# --------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------


def louvain_kwargs(args, refine: bool = True) -> dict:
    return {"resolution": args.resolution, "threshold": args.threshold,
            "max_level": args.max_level, "seed": args.seed_louvain, "refine": refine}


def warm_up(args) -> None:
    import cugraph_match as cm
    from cugraph_match.community.louvain import louvain_communities
    from cugraph_match.community.modularity import community_codes, modularity_of

    for variant in args.variants:
        for df in C.small_frames(variant):
            for refine in (True, False):
                parts, _ = cm.louvain(df, backend="cpu", **louvain_kwargs(args, refine))
            cm.modularity(df, parts, args.resolution)
            g = cm.Graph(df, backend="cpu")
            wg = g.weighted_graph()
            louvain_communities(wg, args.resolution, args.threshold, args.max_level, g.backend,
                                args.seed_louvain)
            cm.louvain(g, **louvain_kwargs(args))
            cm.modularity(g, parts, args.resolution)
            modularity_of(wg, community_codes(g, parts), args.resolution, np)


def score(wg, labels: np.ndarray, membership_by_id: np.ndarray, resolution: float) -> dict:
    """Q (our definition, our graph) of a partition given per caller id."""
    from cugraph_match.community.modularity import modularity_of

    membership = np.asarray(membership_by_id, dtype=np.int64)[labels]
    _, codes = np.unique(membership, return_inverse=True)
    return {"modularity": modularity_of(wg, codes.astype(np.int64).ravel(), resolution, np),
            "communities": int(codes.max()) + 1 if codes.size else 0}


def ours_runs(df, args, tag: str, floor_s: float, n_ids: int) -> tuple[dict, object]:
    import cugraph_match as cm
    from cugraph_match.community.louvain import louvain_communities
    from cugraph_match.community.modularity import community_codes, modularity_of

    r, warm, res = args.repeat, args.warmup, args.resolution
    out = {"calls": {}}
    C.log(f"{tag}: cm.Graph")
    times, _ = C.timed(lambda: cm.Graph(df, backend="cpu"), r, warm)
    out["calls"]["Graph"] = {"whole": C.timing(times),
                             "whole_over_floor": C.ratio(min(times), floor_s)}
    g = cm.Graph(df, backend="cpu")
    t0 = time.perf_counter()
    wg = g.weighted_graph()
    out["weighted_graph_s"] = time.perf_counter() - t0
    out["num_vertices"], out["num_edges"] = g.num_vertices, g.num_edges
    out["self_loops"] = int(np.count_nonzero(wg.loop))
    labels = g.labels.to_numpy().astype(np.int64)

    parts = None
    for refine in (True,) if args.no_variant else (True, False):
        name = "louvain" if refine else "louvain[refine=False]"
        C.log(f"{tag}: {name}")
        kw = louvain_kwargs(args, refine)
        whole, (p, q) = C.timed(lambda: cm.louvain(df, backend="cpu", **kw), r, warm)
        rec = {"whole": C.timing(whole), "q": float(q),
               "communities": int(p["community"].nunique()), "params": kw}
        if refine:
            parts = p
            prepared, (_, pq) = C.timed(lambda: cm.louvain(g, **kw), r, warm)
            rec["prepared_graph"] = C.timing(prepared)
            rec["prepared_q"] = float(pq)
        kernel, community = C.timed(
            lambda: louvain_communities(wg, res, args.threshold, args.max_level, g.backend,
                                        args.seed_louvain, refine=refine), r, warm)
        rec["kernel"] = C.timing(kernel)
        rec["kernel_what"] = ("louvain_communities(wg, resolution, threshold, max_level, "
                              f"g.backend, seed, refine={refine})")
        rec["kernel_q"] = modularity_of(wg, community, res, np)
        rec["plumbing_s"] = rec["whole"]["time_s"] - rec["kernel"]["time_s"]
        rec["kernel_share"] = C.ratio(rec["kernel"]["time_s"], rec["whole"]["time_s"])
        rec["whole_over_floor"] = C.ratio(rec["whole"]["time_s"], floor_s)
        out["calls"][name] = rec
        del p

    C.log(f"{tag}: modularity")
    whole, q = C.timed(lambda: cm.modularity(df, parts, res), r, warm)
    prepared, pq = C.timed(lambda: cm.modularity(g, parts, res), r, warm)
    kernel, kq = C.timed(lambda: modularity_of(wg, community_codes(g, parts), res, np), r, warm)
    codes_t, codes = C.timed(lambda: community_codes(g, parts), r, warm)
    only_q, _ = C.timed(lambda: modularity_of(wg, codes, res, np), r, warm)
    rec = {"whole": C.timing(whole), "q": float(q), "prepared_graph": C.timing(prepared),
           "prepared_q": float(pq), "kernel": C.timing(kernel), "kernel_q": float(kq),
           "kernel_what": "modularity_of(wg, community_codes(g, parts), resolution, np)",
           "community_codes": C.timing(codes_t), "modularity_of_alone": C.timing(only_q)}
    rec["plumbing_s"] = rec["whole"]["time_s"] - rec["kernel"]["time_s"]
    rec["kernel_share"] = C.ratio(rec["kernel"]["time_s"], rec["whole"]["time_s"])
    rec["whole_over_floor"] = C.ratio(rec["whole"]["time_s"], floor_s)
    out["calls"]["modularity"] = rec

    q_ref = out["calls"]["louvain"]["q"]
    close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b))  # noqa: E731
    out["checks"] = {
        "prepared_graph_q_equal": close(out["calls"]["louvain"]["prepared_q"], q_ref),
        "kernel_q_equal": close(out["calls"]["louvain"]["kernel_q"], q_ref),
        "modularity_equals_louvain_q": close(rec["q"], q_ref),
        "modularity_prepared_and_kernel_equal": close(rec["prepared_q"], rec["q"])
        and close(rec["kernel_q"], rec["q"]),
    }
    if not args.no_variant:
        x = out["calls"]["louvain[refine=False]"]
        out["checks"]["refine_false_kernel_q_equal"] = close(x["kernel_q"], x["q"])
    membership = np.zeros(n_ids, dtype=np.int64)
    membership[parts["vertex"].to_numpy(dtype=np.int64)] = \
        parts["community"].to_numpy(dtype=np.int64)
    return out, (g, wg, labels, parts, membership)


def igraph_runs(pool, path: Path, member_path: Path, args, tag: str, wg, labels) -> dict:
    import _ig_worker as W

    pool.submit(W.load, str(path)).result()
    C.log(f"{tag}: igraph community_multilevel end to end")
    res = pool.submit(W.run_multilevel, args.peer_repeat, args.resolution, args.seed_louvain,
                      args.peer_warmup).result()
    ml = C.best_phases(res["runs"])
    ml.update(score(wg, labels, res["membership"], args.resolution))
    ml["modularity_own"] = res["modularity_own"]
    ml["ig_edges"] = res["ig_edges"]
    C.log(f"{tag}: igraph modularity end to end")
    res = pool.submit(W.run_modularity, str(member_path), args.peer_repeat, args.resolution,
                      args.peer_warmup).result()
    mod = C.best_phases(res["runs"])
    mod["modularity_of_our_partition"] = res["modularity"]
    pool.submit(W.release).result()
    return {"multilevel": ml, "modularity": mod}


def networkit_runs(pool, path: Path, args, tag: str, wg, labels) -> dict:
    import _nk_worker as W

    pool.submit(W.load, str(path)).result()
    out = {}
    for refine in (False,) if args.no_variant else (False, True):
        key = "plm[refine=True]" if refine else "plm"
        C.log(f"{tag}: NetworKit {key} end to end")
        res = pool.submit(W.run_plm, args.peer_repeat, refine, args.resolution,
                          args.seed_louvain, args.peer_warmup).result()
        rec = C.best_phases(res["runs"])
        rec.update(score(wg, labels, res["membership"], args.resolution))
        rec["modularity_own"] = res["modularity_own"]
        rec["nk_edges"] = res["nk_edges"]
        out[key] = rec
    pool.submit(W.release).result()
    return out


def networkx_run(df, args, tag: str, wg, labels, n_ids: int) -> dict:
    import networkx as nx

    C.log(f"{tag}: NetworkX louvain_communities end to end (once)")
    u = df["src"].to_numpy()
    v = df["dst"].to_numpy()
    weighted = "weight" in df.columns
    t0 = time.perf_counter()
    graph = nx.Graph()
    if weighted:
        graph.add_weighted_edges_from(zip(u.tolist(), v.tolist(),
                                          df["weight"].to_numpy().tolist()), weight="weight")
    else:
        graph.add_edges_from(zip(u.tolist(), v.tolist()))
    t1 = time.perf_counter()
    communities = nx.community.louvain_communities(
        graph, weight="weight" if weighted else None, resolution=args.resolution,
        seed=args.seed_louvain)
    t2 = time.perf_counter()
    own = nx.community.modularity(graph, communities, weight="weight" if weighted else None,
                                  resolution=args.resolution)
    membership = np.zeros(n_ids, dtype=np.int64)
    for c, members in enumerate(communities):
        membership[list(members)] = c
    rec = {"time_s": t2 - t0, "times_s": [t2 - t0],
           "phases_s": {"build_s": t1 - t0, "louvain_s": t2 - t1}, "modularity_own": own}
    rec.update(score(wg, labels, membership, args.resolution))
    return rec


def rss_runs(spec, variant: str, args, tag: str, member_npz: Path) -> list:
    kw = {"seed": args.seed_louvain, "refine": True}
    tasks = [("Graph", {}, None), ("louvain", kw, None), ("modularity", {}, str(member_npz))]
    out = []
    for function, params, partition in tasks:
        if not C.rss_wanted(args, function):
            continue
        C.log(f"{tag}: peak RSS of {function} (fresh process)")
        task = {"graph": spec.task(), "variant": variant, "function": function,
                "params": params, "threads": args.threads, "partition": partition}
        rec = C.rss_measure(task, args.rss_timeout)
        out.append({**rec, "graph": spec.name, "variant": variant, "function": function})
    return out


def rss_only_runs(spec, variant: str, args) -> list:
    """``--rss-only``: the partition for ``modularity`` comes from one ``cm.louvain``
    call here (untimed), then the three RSS processes."""
    import cugraph_match as cm

    tag = f"{spec.name} {variant}"
    if not C.rss_wanted(args, "modularity"):
        return rss_runs(spec, variant, args, tag, None)
    C.log(f"{tag}: one cm.louvain call for the partition modularity scores")
    df = C.variant_frame(C.load_base(spec)[0], variant)
    parts, _ = cm.louvain(df, backend="cpu", **louvain_kwargs(args))
    del df
    with tempfile.TemporaryDirectory(prefix="bench_louvain_rss_") as tmp:
        member_npz = Path(tmp) / "partition.npz"
        np.savez(member_npz, vertex=parts["vertex"].to_numpy(),
                 community=parts["community"].to_numpy())
        del parts
        gc.collect()
        return rss_runs(spec, variant, args, tag, member_npz)


def rss_target_applies(spec, rec) -> bool:
    scale = spec.param if spec.kind == "rmat" else None
    return scale in RSS_TARGET_SCALES or (rec["function"] == "louvain"
                                          and scale in LOUVAIN_RSS_TARGET_SCALES)


def gpu_runs(df, args, tag: str, wg_host, labels, n_ids: int) -> dict:
    """backend="gpu": whole call and kernel, device synchronised; Q scored on the host graph."""
    import cugraph_match as cm
    from cugraph_match.community.louvain import louvain_communities
    from cugraph_match.structure.backend import to_backend

    sync = C.gpu_sync()
    r, warm = args.repeat, args.warmup
    C.log(f"{tag}: GPU")
    whole, (parts, q) = C.timed(lambda: cm.louvain(df, backend="gpu", **louvain_kwargs(args)),
                                r, warm, sync)
    g = cm.Graph(df, backend="gpu")
    wg = g.weighted_graph()
    sync()
    kernel, community = C.timed(
        lambda: louvain_communities(wg, args.resolution, args.threshold, args.max_level,
                                    g.backend, args.seed_louvain), r, warm, sync)
    membership = np.zeros(n_ids, dtype=np.int64)
    glabels = g.labels.to_numpy().astype(np.int64)
    membership[glabels] = to_backend(community, np)
    mod_whole, _ = C.timed(lambda: cm.modularity(cm.Graph(df, backend="gpu"), parts), r, warm,
                           sync)
    out = {"louvain": {"whole": C.timing(whole), "q": float(q), "kernel": C.timing(kernel),
                       **score(wg_host, labels, membership, args.resolution)},
           "modularity_on_gpu_graph": {"whole": C.timing(mod_whole)}}
    del g, wg
    C.free_device_memory()
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
            ig = v.get("igraph")
            if scale in TARGET_SCALES and ig:
                out.append(C.target("modularity: igraph end to end ÷ our whole call", where,
                                    C.ratio(ig["modularity"]["time_s"],
                                            v["ours"]["calls"]["modularity"]["whole"]["time_s"]),
                                    1.0, True))
            for rec in v.get("rss", []):
                if rss_target_applies(argparse.Namespace(kind=g["kind"], param=g["param"]), rec):
                    out.append(C.target(f"{rec['function']}: peak RSS per input byte", where,
                                        rec.get("peak_per_input_byte"), 4.0, False))
    return out


def _q(x) -> str:
    return "—" if x is None else f"{x:.6f}"


def markdown(report: dict) -> str:
    m = report["meta"]
    a = m["args"]
    lines = [f"# Louvain and modularity benchmark: {m['out_name']}", ""]
    lines += C.meta_lines(m, f"min of {m['repeat']} runs after {a['warmup']} untimed warm-up "
                             "run(s) (NetworkX: one run); every call compiled on small frames "
                             "first")
    lines += [
        f"- parameters: resolution {a['resolution']}, threshold {a['threshold']} (10⁻² while a "
        f"level has > 100,000 vertices), max_level {a['max_level']}, Louvain seed "
        f"{a['seed_louvain']}",
        "",
        "Whole call: `cm.louvain(df, backend=\"cpu\", ...)` / `cm.modularity(df, parts)` from "
        "the pandas frame. Prepared Graph: the same call on `g = cm.Graph(df)` with its "
        "weighted graph built. Kernel: `louvain_communities(wg, ...)` / `modularity_of(wg, "
        "community_codes(g, parts), ...)`. Plumbing = whole − kernel. Peers end to end from "
        "the same arrays: igraph `Graph(n, edges)` + weights + `simplify(combine_edges=\"max\")` "
        "(self-loops kept) + `community_multilevel` or `modularity`; NetworKit `GraphFromCoo` + "
        "`removeMultiEdges` (self-loops kept) + `PLM(...).run()` + `getPartition()`; NetworkX "
        "`Graph` + `louvain_communities` (one run, small graphs). Q: every partition scored by "
        "our `modularity_of` on our graph.",
        "",
        "## Graphs",
        "",
    ]
    rows = [[g["name"], f"{g['rows']:,}", f"{g['num_vertices']:,}", f"{g['num_edges']:,}",
             f"{g['self_loops']:,}", g["weights"], C.fmt_t(g["floor"]["time_s"])]
            for g in report["graphs"]]
    lines += C.table(["graph", "input rows", "vertices", "undirected edges", "self-loops",
                      "weights", "floor (argsort)"], rows, right={1, 2, 3, 4, 6})

    lines += ["", "## Ours: whole call, prepared Graph, kernel", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            for call, rec in v["ours"]["calls"].items():
                extra = ""
                if call == "modularity":
                    extra = (f"community_codes {C.fmt_t(rec['community_codes']['time_s'])}, "
                             f"modularity_of {C.fmt_t(rec['modularity_of_alone']['time_s'])}")
                rows.append([g["name"], variant, "cm.Graph(df)" if call == "Graph" else call,
                             C.fmt_t(rec["whole"]["time_s"]), C.fmt_x(rec.get("whole_over_floor")),
                             C.fmt_t(rec.get("prepared_graph", {}).get("time_s")),
                             C.fmt_t(rec.get("kernel", {}).get("time_s")),
                             C.fmt_t(rec.get("plumbing_s")),
                             "—" if rec.get("kernel_share") is None
                             else f"{rec['kernel_share']:.0%}",
                             _q(rec.get("q")), rec.get("communities", "—"), extra])
    lines += C.table(["graph", "variant", "call", "whole call", "whole ÷ floor",
                      "on prepared Graph", "kernel", "plumbing", "kernel share", "Q",
                      "communities", "kernel parts"], rows, right=set(range(3, 11)))

    lines += ["", "## Louvain against the peers, end to end from the same arrays", "",
              "t: the peer's end-to-end time ÷ our whole `cm.louvain` call (above 1×: ours "
              "faster); Q ratio: our Q ÷ the peer's (above 1: ours better). Ours with "
              "refinement (the default); PLM without and with refinement. Phases of the "
              "peer's fastest run in the JSON. A row `ours backend=\"gpu\"` compares our GPU "
              "whole call with our CPU whole call the same way.", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            ours = v["ours"]["calls"]["louvain"]
            peers = []
            if v.get("igraph"):
                peers.append(("igraph community_multilevel", v["igraph"]["multilevel"]))
            for key, rec in v.get("networkit", {}).items():
                peers.append((f"NetworKit {key}", rec))
            if v.get("networkx"):
                peers.append(("NetworkX louvain_communities", v["networkx"]))
            if v.get("gpu"):
                peers.append(("ours backend=\"gpu\"", {**v["gpu"]["louvain"],
                                                       "time_s": v["gpu"]["louvain"]["whole"]
                                                       ["time_s"]}))
            for label, rec in peers:
                rows.append([g["name"], variant, label, C.fmt_t(ours["whole"]["time_s"]),
                             _q(ours["q"]), C.fmt_t(rec["time_s"]),
                             C.fmt_x(C.ratio(rec["time_s"], ours["whole"]["time_s"])),
                             _q(rec["modularity"]),
                             "—" if not rec["modularity"]
                             else f"{ours['q'] / rec['modularity']:.4f}",
                             f"{rec['communities']:,}"])
    lines += C.table(["graph", "variant", "peer", "ours whole call", "our Q", "peer end to end",
                      "t", "peer Q", "Q ratio", "peer communities"], rows,
                     right=set(range(3, 10)))

    lines += ["", "## modularity against igraph, end to end from the same arrays", "",
              "Both score our partition; igraph's time includes building its graph from the "
              "arrays, setting the weights and `simplify` (phases beside).", ""]
    rows = []
    for g in report["graphs"]:
        for variant, v in g["variants"].items():
            ig = v.get("igraph")
            if not ig:
                continue
            ours = v["ours"]["calls"]["modularity"]
            x = ig["modularity"]
            ph = x["phases_s"]
            rows.append([g["name"], variant, C.fmt_t(ours["whole"]["time_s"]),
                         C.fmt_t(ours["kernel"]["time_s"]), C.fmt_t(x["time_s"]),
                         C.fmt_x(C.ratio(x["time_s"], ours["whole"]["time_s"])),
                         " / ".join(C.fmt_t(ph.get(k)) for k in
                                    ("build_s", "weights_s", "simplify_s", "modularity_s")),
                         f"{x['modularity_of_our_partition'] - ours['q']:+.1e}"])
    lines += C.table(["graph", "variant", "ours whole call", "our kernel", "igraph end to end",
                      "igraph ÷ ours", "igraph build / weights / simplify / modularity",
                      "igraph Q − ours"], rows, right={2, 3, 4, 5, 7})

    lines += ["", "## Peak RSS per input byte (fresh process per call)", ""]
    lines += C.rss_table_lines([r for g in report["graphs"] for v in g["variants"].values()
                                for r in v.get("rss", [])])
    lines += ["", "## Targets", ""]
    lines += C.target_lines(report["targets"])
    s = report["summary"]
    lines += ["", "## Checks", "",
              "- our Q equal across whole call, prepared-Graph call and kernel, and "
              "`cm.modularity` of the returned partition equal to the returned q: "
              + ("yes" if not s["failures"] else "**no**: " + "; ".join(s["failures"])),
              "- peers' own Q differing from our definition by more than 1e-6: "
              + ("; ".join(s["own_q_differs"]) or "none")]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    import numba

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    if args.rss_only:
        return C.run_rss_only(args, argv, "bench_louvain.py", "louvain",
                              lambda spec, variant: rss_only_runs(spec, variant, args),
                              rss_target_applies)
    gpu, gpu_info = C.use_gpu(args)
    out_name = C.default_out_name(args, "louvain", gpu)
    nk_pool, nk_setup = C.start_worker("_nk_worker", args.threads, args.no_networkit)
    ig_pool, ig_setup = C.start_worker("_ig_worker", 1, args.no_igraph)
    if args.rss and not C.rss_supported():
        print("warning: /proc/self/clear_refs unavailable: no RSS measurement", file=sys.stderr)
        args.rss = False

    C.log("warm-up on small frames (compilation)")
    warm_up(args)
    graphs, failures, own_diff = [], [], []
    with tempfile.TemporaryDirectory(prefix="bench_louvain_") as tmp:
        tmpdir = Path(tmp)
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
                ours, (g, wg, labels, parts, membership) = ours_runs(df, args, tag,
                                                                     floor["time_s"], n_ids)
                v["ours"] = ours
                for key in ("num_vertices", "num_edges", "self_loops"):
                    g_rec[key] = ours[key]
                failures += [f"{tag}: {k}" for k, ok in ours["checks"].items() if not ok]
                del g
                gc.collect()
                member_path = tmpdir / "membership.npy"
                np.save(member_path, membership)
                member_npz = tmpdir / "partition.npz"
                np.savez(member_npz, vertex=parts["vertex"].to_numpy(),
                         community=parts["community"].to_numpy())
                if gpu:
                    try:
                        v["gpu"] = gpu_runs(df, args, tag, wg, labels, n_ids)
                    except Exception as err:  # keep the CPU results of the run
                        v["gpu_error"] = repr(err)
                        failures.append(f"{tag} GPU error {err!r}")
                if ig_pool is not None or nk_pool is not None:
                    path = tmpdir / "arrays.npz"
                    C.save_arrays(path, df)
                    if ig_pool is not None:
                        v["igraph"] = igraph_runs(ig_pool, path, member_path, args, tag, wg,
                                                  labels)
                    if nk_pool is not None:
                        v["networkit"] = networkit_runs(nk_pool, path, args, tag, wg, labels)
                    path.unlink()
                if not args.no_networkx and ours["num_edges"] <= args.nx_max_edges:
                    v["networkx"] = networkx_run(df, args, tag, wg, labels, n_ids)
                for peer, rec in ([("igraph", v["igraph"]["multilevel"])] if "igraph" in v
                                  else []) + [(f"NetworKit {k}", r) for k, r in
                                              v.get("networkit", {}).items()] + \
                        ([("NetworkX", v["networkx"])] if "networkx" in v else []):
                    d = rec["modularity_own"] - rec["modularity"]
                    rec["modularity_own_minus_ours_def"] = d
                    if abs(d) > 1e-6:
                        own_diff.append(f"{tag} {peer}: own − ours {d:+.2e}")
                if "igraph" in v:
                    d = v["igraph"]["modularity"]["modularity_of_our_partition"] - \
                        ours["calls"]["modularity"]["q"]
                    if abs(d) > 1e-6:
                        own_diff.append(f"{tag} igraph modularity of our partition: "
                                        f"igraph − ours {d:+.2e}")
                del df, wg, parts, membership
                gc.collect()
                if args.rss and spec.generated:
                    v["rss"] = rss_runs(spec, variant, args, tag, member_npz)
                g_rec["variants"][variant] = v
            graphs.append(g_rec)
            del base
            gc.collect()
    for pool in (nk_pool, ig_pool):
        if pool is not None:
            pool.shutdown()

    report = {
        "meta": C.meta(args, argv, "bench_louvain.py", out_name, gpu_info,
                       {"networkit": nk_setup, "igraph": ig_setup}),
        "graphs": graphs,
        "summary": {"failures": failures, "own_q_differs": own_diff},
    }
    report["targets"] = evaluate_targets(graphs)
    C.write_report(args, out_name, report, markdown(report))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
