"""Independent references for the stable-marriage family: plain Python, no project code.

Preferences are dicts ``{person: [other, ...]}``, best first.  A pair is
acceptable only when each lists the other.  Matchings are dicts
``{proposer: acceptor or None}``; assignments (b-marriage) are sets of
``(proposer, acceptor)`` pairs.
"""

from __future__ import annotations

import random
from collections import deque

import pandas as pd


# --------------------------------------------------------------------------
# frames <-> dicts
# --------------------------------------------------------------------------


def lists_from_frames(proposer_prefs, acceptor_prefs, proposer="proposer", acceptor="acceptor",
                      rank="rank"):
    """``(P, A)``: every person named in either frame, lists sorted by rank."""
    entries_p, entries_a = {}, {}
    for p, a, r in zip(proposer_prefs[proposer], proposer_prefs[acceptor], proposer_prefs[rank]):
        entries_p.setdefault(p, []).append((r, a))
        entries_a.setdefault(a, [])
    for a, p, r in zip(acceptor_prefs[acceptor], acceptor_prefs[proposer], acceptor_prefs[rank]):
        entries_a.setdefault(a, []).append((r, p))
        entries_p.setdefault(p, [])
    P = {p: [a for _, a in sorted(lst, key=lambda x: x[0])] for p, lst in entries_p.items()}
    A = {a: [p for _, p in sorted(lst, key=lambda x: x[0])] for a, lst in entries_a.items()}
    return P, A


def frames_from_lists(P, A, rank_of=None, shuffle_seed=None):
    """Long-format frames from lists; ``rank_of(i)`` maps a list index to a rank (default i + 1)."""
    rank_of = rank_of or (lambda i: i + 1)
    rows_p = [(p, a, rank_of(i)) for p, lst in P.items() for i, a in enumerate(lst)]
    rows_a = [(a, p, rank_of(i)) for a, lst in A.items() for i, p in enumerate(lst)]
    if shuffle_seed is not None:
        rng = random.Random(shuffle_seed)
        rng.shuffle(rows_p)
        rng.shuffle(rows_a)
    pp = pd.DataFrame(rows_p, columns=["proposer", "acceptor", "rank"])
    ap = pd.DataFrame(rows_a, columns=["acceptor", "proposer", "rank"])
    return pp, ap


def matching_from_frame(frame, proposer="proposer", acceptor="acceptor"):
    """A ``proposer | acceptor`` result frame as ``{proposer: acceptor or None}``."""
    return {p: (None if pd.isna(a) else a) for p, a in zip(frame[proposer], frame[acceptor])}


def pairs_from_frame(frame, proposer="proposer", acceptor="acceptor"):
    return {(p, a) for p, a in zip(frame[proposer], frame[acceptor]) if not pd.isna(a)}


# --------------------------------------------------------------------------
# stable marriage
# --------------------------------------------------------------------------


def _acceptor_ranks(A):
    return {a: {p: i for i, p in enumerate(lst)} for a, lst in A.items()}


def gale_shapley(P, A):
    """Textbook deferred acceptance: free proposers in a queue, every entry proposed to
    in turn (no skipping), an acceptor trades up whenever she can."""
    rank = _acceptor_ranks(A)
    nxt = {p: 0 for p in P}
    holder = {}
    free = deque(sorted(P, key=repr))
    while free:
        p = free.popleft()
        while nxt[p] < len(P[p]):
            a = P[p][nxt[p]]
            nxt[p] += 1
            if p not in rank.get(a, {}):
                continue  # she does not rank him
            h = holder.get(a)
            if h is None:
                holder[a] = p
                break
            if rank[a][p] < rank[a][h]:
                holder[a] = p
                free.append(h)
                break
    mate = {p: None for p in P}
    for a, p in holder.items():
        mate[p] = a
    return mate


def acceptable_pairs(P, A):
    rank = _acceptor_ranks(A)
    return [(p, a) for p in P for a in P[p] if p in rank.get(a, {})]


def prefers(lst, x, y):
    """Does the owner of ``lst`` prefer ``x`` to ``y`` (None = single, worst)?"""
    if x is None:
        return False
    if y is None:
        return True
    return lst.index(x) < lst.index(y)


def blocking_pairs(P, A, pairs, p_cap=None, a_cap=None):
    """Capacitated blocking pairs of an assignment (set of pairs), sorted.

    (p, a) acceptable and not assigned blocks when p is under capacity or
    prefers a to his worst partner, and a likewise.  Capacities default to 1.
    """
    p_cap = p_cap or {}
    a_cap = a_cap or {}
    partners_p = {p: [a for q, a in pairs if q == p] for p in P}
    partners_a = {a: [p for p, b in pairs if b == a] for a in A}

    def wants(lst, partners, cap, other):
        if len(partners) < cap:
            return True
        if not partners:  # capacity 0: takes nobody
            return False
        worst = max(partners, key=lst.index)
        return lst.index(other) < lst.index(worst)

    out = []
    for p, a in acceptable_pairs(P, A):
        if (p, a) in pairs:
            continue
        if wants(P[p], partners_p[p], p_cap.get(p, 1), a) and \
                wants(A[a], partners_a[a], a_cap.get(a, 1), p):
            out.append((p, a))
    return sorted(out, key=repr)


def all_matchings(P, A):
    """Every matching of acceptable pairs, as dicts (tiny instances only)."""
    pairs = acceptable_pairs(P, A)
    out = []

    def extend(i, used_p, used_a, chosen):
        if i == len(pairs):
            mate = {p: None for p in P}
            mate.update(dict(chosen))
            out.append(mate)
            return
        extend(i + 1, used_p, used_a, chosen)
        p, a = pairs[i]
        if p not in used_p and a not in used_a:
            extend(i + 1, used_p | {p}, used_a | {a}, chosen + [(p, a)])

    extend(0, frozenset(), frozenset(), [])
    return out


def stable_matchings(P, A):
    return [m for m in all_matchings(P, A)
            if not blocking_pairs(P, A, {(p, a) for p, a in m.items() if a is not None})]


def proposer_optimal(P, A):
    """The stable matching every proposer likes best among all stable ones (brute force)."""
    stable = stable_matchings(P, A)
    best = {p: None for p in P}
    for m in stable:
        for p, a in m.items():
            if prefers(P[p], a, best[p]):
                best[p] = a
    assert best in stable, "proposer-optimal stable matching must be stable"
    return best


# --------------------------------------------------------------------------
# b-marriage
# --------------------------------------------------------------------------


def b_marriage(P, A, p_cap, a_cap):
    """Sequential many-to-many deferred acceptance: free places of proposers in a
    queue, one shared pointer per proposer, an acceptor keeps her best ``cap``
    offers (sorted list, evicting the worst)."""
    rank = _acceptor_ranks(A)
    nxt = {p: 0 for p in P}
    kept = {a: [] for a in A}
    free = deque(p for p in sorted(P, key=repr) for _ in range(p_cap.get(p, 1)))
    while free:
        p = free.popleft()
        while nxt[p] < len(P[p]):
            a = P[p][nxt[p]]
            nxt[p] += 1
            if p not in rank.get(a, {}) or a_cap.get(a, 1) == 0:
                continue
            held = kept[a]
            if len(held) < a_cap.get(a, 1):
                held.append(p)
                held.sort(key=lambda q: rank[a][q])
                break
            worst = held[-1]
            if rank[a][p] < rank[a][worst]:
                held[-1] = p
                held.sort(key=lambda q: rank[a][q])
                free.append(worst)
                break
    return {(p, a) for a, held in kept.items() for p in held}


# --------------------------------------------------------------------------
# popular matching
# --------------------------------------------------------------------------


def huang_kavitha(P, A):
    """Two-level deferred acceptance: a proposer rejected by his whole list goes
    round again at level 1; acceptors rank (level desc, own rank asc)."""
    rank = _acceptor_ranks(A)
    level = {p: 0 for p in P}
    nxt = {p: 0 for p in P}
    holder = {}
    free = deque(sorted(P, key=repr))

    def better(a, p, q):
        return (level[p], -rank[a][p]) > (level[q], -rank[a][q])

    while free:
        p = free.popleft()
        while True:
            if nxt[p] == len(P[p]):
                if level[p] == 1:
                    break
                level[p], nxt[p] = 1, 0
                continue
            a = P[p][nxt[p]]
            nxt[p] += 1
            if p not in rank.get(a, {}):
                continue
            h = holder.get(a)
            if h is None or better(a, p, h):
                holder[a] = p
                if h is not None:
                    free.append(h)
                break
    mate = {p: None for p in P}
    for a, p in holder.items():
        mate[p] = a
    return mate


def votes(P, A, m1, m2):
    """(people preferring m1, people preferring m2) between two matchings."""
    back1 = {a: p for p, a in m1.items() if a is not None}
    back2 = {a: p for p, a in m2.items() if a is not None}
    for_1 = for_2 = 0
    for p in P:
        for_1 += prefers(P[p], m1[p], m2[p])
        for_2 += prefers(P[p], m2[p], m1[p])
    for a in A:
        for_1 += prefers(A[a], back1.get(a), back2.get(a))
        for_2 += prefers(A[a], back2.get(a), back1.get(a))
    return for_1, for_2


def is_popular(P, A, m, candidates=None):
    """No matching is preferred by more people than prefer ``m`` (brute force)."""
    for other in candidates if candidates is not None else all_matchings(P, A):
        mine, theirs = votes(P, A, m, other)
        if theirs > mine:
            return False
    return True


def size(m):
    return sum(a is not None for a in m.values())


def random_lists(rng, n_p, n_a, density=0.6, mutual=0.8, p_ids=None, a_ids=None):
    """Random incomplete lists: each proposer lists a random subset in random order;
    an acceptor lists most of those who listed her plus some who did not."""
    p_ids = p_ids if p_ids is not None else list(range(n_p))
    a_ids = a_ids if a_ids is not None else list(range(n_a))
    P = {p: [a for a in a_ids if rng.random() < density] for p in p_ids}
    for lst in P.values():
        rng.shuffle(lst)
    A = {}
    for a in a_ids:
        suitors = [p for p in p_ids if a in P[p] and rng.random() < mutual]
        suitors += [p for p in p_ids if a not in P[p] and rng.random() < (1 - mutual) * density]
        rng.shuffle(suitors)
        A[a] = suitors
    return P, A


def complete_lists(rng, n):
    P = {p: rng.sample(range(n), n) for p in range(n)}
    A = {a: rng.sample(range(n), n) for a in range(n)}
    return P, A



# --------------------------------------------------------------------------
# hypothesis strategy
# --------------------------------------------------------------------------


def _ranks(rng, style, length):
    """Increasing rank values for one list in a given style."""
    if style == "dense":
        return list(range(1, length + 1))
    if style == "gaps":
        return sorted(rng.sample(range(-50, 1000), length))
    if style == "float":
        return sorted(rng.uniform(-5, 5) for _ in range(length))
    return [-length + i for i in range(length)]  # negative, ending at -1


def _instances(draw, max_people=7):
    from hypothesis import assume
    from hypothesis import strategies as st

    n_p = draw(st.integers(1, max_people))
    n_a = draw(st.integers(1, max_people))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    ids = draw(st.sampled_from(["int", "str", "overlap"]))
    if ids == "str":
        p_ids = [f"p{i}" for i in rng.sample(range(100), n_p)]
        a_ids = [f"a{i}" for i in rng.sample(range(100), n_a)]
    elif ids == "overlap":  # the same values on both sides: two separate id spaces
        p_ids, a_ids = list(range(n_p)), list(range(n_a))
    else:
        p_ids, a_ids = rng.sample(range(-100, 100), n_p), rng.sample(range(-100, 100), n_a)
    density = draw(st.sampled_from([0.3, 0.7, 1.0]))
    mutual = draw(st.sampled_from([0.5, 0.9, 1.0]))
    P, A = random_lists(rng, n_p, n_a, density, mutual, p_ids, a_ids)
    style = draw(st.sampled_from(["dense", "gaps", "float", "negative"]))
    rows_p = [(p, a, r) for p, lst in P.items() for a, r in zip(lst, _ranks(rng, style, len(lst)))]
    rows_a = [(a, p, r) for a, lst in A.items() for p, r in zip(lst, _ranks(rng, style, len(lst)))]
    assume(rows_p or rows_a)  # two empty frames are an error (tested on its own)
    rng.shuffle(rows_p)
    rng.shuffle(rows_a)
    pp = pd.DataFrame(rows_p, columns=["proposer", "acceptor", "rank"])
    ap = pd.DataFrame(rows_a, columns=["acceptor", "proposer", "rank"])
    if ids == "str":
        for frame in (pp, ap):
            for col in ("proposer", "acceptor"):
                frame[col] = frame[col].astype(object)
    # people with no list at all still appear in the result when named by the other side
    P = {p: lst for p, lst in P.items() if lst or any(p in l for l in A.values())}
    A = {a: lst for a, lst in A.items() if lst or any(a in l for l in P.values())}
    return P, A, pp, ap


def instances(max_people=7):
    """Hypothesis strategy: ``(P, A, proposer_prefs, acceptor_prefs)`` with incomplete
    and non-mutual lists, empty lists, overlapping or string ids, rank values
    with gaps, floats or negatives, and shuffled rows."""
    from hypothesis import strategies as st

    return st.composite(_instances)(max_people)
