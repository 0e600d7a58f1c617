"""Independent references for the tests: plain Python, no project code.

``greedy_matching`` is the sequential greedy matching under the project's
tie order: edge (u, v) beats (x, y) iff its weight is larger, or the weights
are equal and (max(u, v), min(u, v)) > (max(x, y), min(x, y)) comparing
vertex ids in their sorted order.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
# The real graphs: ../shared/data beside the checkout, or wherever
# CUGRAPH_MATCH_DATA points (a lent GPU machine receives the checkout only,
# so ci/gpu.sh has them copied into a git-ignored folder inside it).
SHARED_DATA = Path(os.environ.get("CUGRAPH_MATCH_DATA", REPO.parent / "shared" / "data"))


def _edges_in_greedy_order(src, dst, weight, vertices):
    """(sorted ids, [((hi, lo), weight)] heaviest first under the tie order), in id ranks."""
    src, dst = list(src), list(dst)
    weight = [1.0] * len(src) if weight is None else [float(w) for w in weight]
    ids = sorted(set(src) | set(dst) | set(vertices))
    rank = {v: i for i, v in enumerate(ids)}
    heaviest = {}
    for u, v, w in zip(src, dst, weight):
        if u == v:
            continue
        pair = (max(rank[u], rank[v]), min(rank[u], rank[v]))
        if pair not in heaviest or w > heaviest[pair]:
            heaviest[pair] = w
    return ids, sorted(heaviest.items(), key=lambda item: (item[1], item[0]), reverse=True)


def greedy_matching(src, dst, weight=None, vertices=()):
    """{vertex: (mate or None, weight or None)} in the caller's ids."""
    ids, order = _edges_in_greedy_order(src, dst, weight, vertices)
    mate = {}
    for (hi, lo), w in order:
        if hi not in mate and lo not in mate:
            mate[hi] = (lo, w)
            mate[lo] = (hi, w)
    return {ids[i]: ((ids[mate[i][0]], mate[i][1]) if i in mate else (None, None))
            for i in range(len(ids))}


def frame_to_dict(matching):
    """A ``vertex | mate | weight`` frame as {vertex: (mate or None, weight or None)}."""
    out = {}
    for v, m, w in zip(matching["vertex"], matching["mate"], matching["weight"]):
        matched = not pd.isna(m)
        out[v] = (m if matched else None, float(w) if matched else None)
    return out


def assert_equal_matchings(matching, expected) -> None:
    """Edge for edge, with weights equal to float32 precision."""
    got = frame_to_dict(matching)
    assert list(got) == sorted(expected), "vertex rows differ from the input's vertices"
    wrong = [(v, got[v], expected[v]) for v in expected
             if got[v][0] != expected[v][0]
             or (expected[v][1] is not None
                 and not np.isclose(got[v][1], expected[v][1], rtol=1e-6, atol=0))]
    assert not wrong, f"{len(wrong)} vertices differ from the greedy oracle, e.g. {wrong[:3]}"


def _heaviest_by_pair(src, dst, weight):
    """{(min, max): largest weight} over the non-loop edges."""
    edges = {}
    for u, v, w in zip(src, dst, weight):
        if u != v:
            key = (min(u, v), max(u, v))
            edges[key] = max(edges.get(key, 0.0), float(w))
    return edges


def brute_force_max_weight(src, dst, weight):
    """Exact maximum-weight matching by search (tiny graphs only)."""
    edges = _heaviest_by_pair(src, dst, weight)
    items = sorted(edges.items())
    best = 0.0

    def search(i, used, total):
        nonlocal best
        best = max(best, total)
        for j in range(i, len(items)):
            (u, v), w = items[j]
            if u not in used and v not in used:
                search(j + 1, used | {u, v}, total + w)

    search(0, frozenset(), 0.0)
    return best


def greedy_b_matching(src, dst, weight=None, b=1, vertices=()):
    """Sequential greedy b-matching: sorted [(lo, hi, weight)] in the caller's ids.

    Edges in the project's tie order, heaviest first; an edge is taken while
    both ends have spare capacity.  ``b`` is an int or {vertex: b}.
    """
    ids, order = _edges_in_greedy_order(src, dst, weight, vertices)
    spare = {i: (b if isinstance(b, int) else b[ids[i]]) for i in range(len(ids))}
    taken = []
    for (hi, lo), w in order:
        if spare[hi] > 0 and spare[lo] > 0:
            spare[hi] -= 1
            spare[lo] -= 1
            taken.append((ids[lo], ids[hi], w))
    return sorted(taken)


def brute_force_max_b_matching(src, dst, weight, b):
    """Weight of a maximum-weight b-matching by exhaustive search (tiny graphs only)."""
    edges = _heaviest_by_pair(src, dst, weight)
    items = sorted(edges.items())
    cap = {v: (b if isinstance(b, int) else b[v]) for e in edges for v in e}
    best = 0.0

    def search(i, total):
        nonlocal best
        if i == len(items):
            best = max(best, total)
            return
        (u, v), w = items[i]
        if cap[u] > 0 and cap[v] > 0:
            cap[u] -= 1
            cap[v] -= 1
            search(i + 1, total + w)
            cap[u] += 1
            cap[v] += 1
        search(i + 1, total)

    search(0, 0.0)
    return best


def random_greedy_matching_size(src, dst, seed=0):
    """Size of the serial random-greedy maximal matching (vertices in a random
    order, each matched to its first unmatched neighbour in a random order)."""
    rng = np.random.default_rng(seed)
    adjacency = {}
    for u, v in zip(src, dst):
        if u != v:
            adjacency.setdefault(u, set()).add(v)
            adjacency.setdefault(v, set()).add(u)
    vertices = list(adjacency)
    rng.shuffle(vertices)
    matched = set()
    size = 0
    for u in vertices:
        if u in matched:
            continue
        free = [v for v in adjacency[u] if v not in matched]
        if free:
            v = free[rng.integers(len(free))]
            matched.update((u, v))
            size += 1
    return size


def edge_tuples(frame) -> list:
    """A ``src | dst | weight`` frame as sorted ``(src, dst, float weight)``
    tuples, the form :func:`greedy_b_matching` returns."""
    return sorted(zip(frame["src"].tolist(), frame["dst"].tolist(),
                      [float(w) for w in frame["weight"].tolist()]))
