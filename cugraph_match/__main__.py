"""Command line: ``python -m cugraph_match match --dataset netscience``."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from . import datasets
from .matching.locally_dominant import locally_dominant_matching
from .matching.properties import matches_prepared, matching_weight
from .matching.suitor import suitor_matching
from .structure.backend import resolve_backend
from .structure.graph import Graph

ALGORITHMS = {"suitor": suitor_matching, "locally_dominant": locally_dominant_matching}
PROG = "python -m cugraph_match"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG,
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
    match.add_argument("--max-isolated", type=_max_isolated, default=datasets.MAX_ISOLATED,
                       metavar="N",
                       help="the most vertices a MatrixMarket size line may declare without an "
                            f"edge (default {datasets.MAX_ISOLATED:,}; 'none' trusts the file)")
    return parser


def _max_isolated(text: str) -> int | None:
    if text.lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer or 'none', got "
                                         f"{text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Every problem with the input (a file that cannot be read or is not a
    graph, an unwritable ``--output``, ``--backend gpu`` without a usable
    GPU) is one line on stderr, ``python -m cugraph_match: error: ...``, and
    exit status 2, as argparse reports a bad argument; an invalid matching is
    status 1.
    """
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (OSError, ValueError, TypeError, RuntimeError, MemoryError) as err:
        message = " ".join(str(err).split()) or type(err).__name__
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # arrives when the running numba kernel returns
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


def _check_writable(path: str, source: str | None) -> bool:
    """Fail at once, before the work, when ``--output`` cannot be written or
    is the input ``--file`` (by any name: writing it would destroy the
    input); an existing file is not truncated yet.  True when the file was
    created here."""
    if not path:
        raise OSError("--output is an empty path; name the CSV file to write")
    existed = os.path.lexists(path)  # a dangling link exists: its target is not ours
    if source and existed and os.path.exists(path) and os.path.samefile(path, source):
        raise OSError(f"--output {path} is the input --file {source}; writing the matching "
                      f"there would destroy the input: name another file")
    try:
        with open(path, "a"):
            pass
    except OSError as err:
        raise OSError(f"cannot write --output {path}: {err.strerror or err}") from None
    return not existed


def _refuse_non_positive(path, edges, lines) -> None:
    """The matchings need positive weights: one that is not is named by its
    file line (the graph's own check could only name its row of the frame)."""
    if "weight" not in edges:
        return
    bad = ~(edges["weight"].to_numpy() > 0)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        weight, u, v = (_plain(edges[column].iloc[at]) for column in ("weight", "src", "dst"))
        raise ValueError(f"{path}, line {int(lines[at])}: weight {weight!r} of the edge {u!r} - "
                         f"{v!r} is not positive ({int(bad.sum()):,} edge(s) weigh 0 or less; "
                         f"the matchings need positive weights)")


def _plain(value):
    """A NumPy scalar as the Python number it holds (its repr is np.int64(3))."""
    return value.item() if isinstance(value, np.generic) else value


def _run(args) -> int:
    if args.dataset:
        edges, name = datasets.load(args.dataset), args.dataset
        vertices = None
    else:
        edges, vertices, lines = datasets.read_graph(args.file, max_isolated=args.max_isolated,
                                                     return_lines=True)
        _refuse_non_positive(args.file, edges, lines)
        name = args.file
    backend = resolve_backend(args.backend)
    created = _check_writable(args.output, args.file) if args.output is not None else False
    try:
        algorithm = ALGORITHMS[args.algorithm]

        def run():
            # the whole call, as a user waits for it: a graph built from the
            # frame (with the vertices the file declares) and matched
            return algorithm(Graph(edges, vertices=vertices, backend=args.backend))

        run()  # warm-up: compiles the kernels once
        start = time.perf_counter()
        matching = run()
        elapsed = time.perf_counter() - start
        graph = Graph(edges, vertices=vertices, backend="cpu")  # counts and the validity check
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
        if args.output is not None:
            try:
                matching.to_csv(args.output, index=False)
            except OSError as err:
                raise OSError(f"cannot write --output {args.output}: "
                              f"{err.strerror or err}") from None
            print(f"written      {args.output}")
    except BaseException:
        if created:  # leave no empty file behind
            Path(args.output).unlink(missing_ok=True)
        raise
    return 0 if valid else 1


if __name__ == "__main__":
    sys.exit(main())
