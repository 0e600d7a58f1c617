"""Command line: ``python -m cugraph_match match --dataset netscience``."""

from __future__ import annotations

import argparse
import sys
import time

from . import datasets
from .structure.backend import resolve_backend
from .structure.graph import Graph
from .matching.locally_dominant import locally_dominant_matching
from .matching.properties import matches_prepared, matching_weight
from .matching.suitor import suitor_matching

ALGORITHMS = {"suitor": suitor_matching, "locally_dominant": locally_dominant_matching}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m cugraph_match",
                                     description="Matching on GPU dataframes and graphs.")
    sub = parser.add_subparsers(dest="command", required=True)
    match = sub.add_parser("match", help="½-approximate weighted matching of a graph")
    source = match.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", choices=sorted(datasets.available()),
                        help="a graph shipped with the package")
    source.add_argument("--file", help="a MatrixMarket file or 'src dst [weight]' edge list")
    match.add_argument("--algorithm", choices=sorted(ALGORITHMS), default="suitor")
    match.add_argument("--backend", choices=["auto", "cpu", "gpu"], default="auto")
    match.add_argument("--output", help="write the vertex|mate|weight frame to this CSV")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.dataset:
        edges, name = datasets.load(args.dataset), args.dataset
    else:
        edges, _ = datasets.read_graph(args.file)
        name = args.file
    backend = resolve_backend(args.backend)
    algorithm = ALGORITHMS[args.algorithm]
    algorithm(edges, backend=args.backend)  # warm-up: compiles the kernels once
    start = time.perf_counter()
    matching = algorithm(edges, backend=args.backend)
    elapsed = time.perf_counter() - start
    graph = Graph(edges, backend="cpu")  # for the counts and the validity check
    pairs = int(matching["mate"].notna().sum()) // 2
    valid = matches_prepared(graph, matching, maximal=True)
    where = backend.name + (" (CUDA simulator)" if backend.simulated else "")
    print(f"graph        {name}")
    print(f"algorithm    {args.algorithm}")
    print(f"backend      {where}")
    print(f"vertices     {graph.num_vertices:,}")
    print(f"edges        {graph.num_edges:,} undirected")
    print(f"matched      {pairs:,} pairs ({2 * pairs / graph.num_vertices:.1%} of vertices)")
    print(f"weight       {matching_weight(matching):.6g}")
    print(f"time         {elapsed * 1e3:.2f} ms (after one warm-up run)")
    print(f"valid        {'yes' if valid else 'NO'} (a maximal matching of the input)")
    if args.output:
        matching.to_csv(args.output, index=False)
        print(f"written      {args.output}")
    return 0 if valid else 1


if __name__ == "__main__":
    sys.exit(main())
