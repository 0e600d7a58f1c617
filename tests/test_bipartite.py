"""Two tables (``bipartite=True``): two id spaces, linked pairs.

The oracle of every two-sided matching is the one-id-space call on ids made
disjoint by hand (each side ranked on its own, right ranks after every left
rank), mapped back; the greedy ones are also held to the independent
plain-Python greedy of ``tests/oracle.py`` on ids tagged with their side.
Hypothesis draws ties, rectangular shapes, empty sides, isolated records and
ids that collide across the sides (ints, strings, ints on one side and
strings on the other)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from oracle import greedy_b_matching, greedy_matching

S, D, W = "left_id", "right_id", "score"
GREEDY = {"suitor": cm.suitor_matching, "locally_dominant": cm.locally_dominant_matching}
UNMATCHED = ["drop", "left", "right", "both"]
FAST = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------
# drawing two tables
# --------------------------------------------------------------------------


def _ids(draw, kind: str, size: int):
    """``size`` distinct ids of one side from a small pool, so that the two
    sides' ids collide often."""
    if kind == "int":
        return draw(st.lists(st.integers(-3, 12), min_size=size, max_size=size, unique=True))
    return draw(st.lists(st.sampled_from([f"r{i}" for i in range(16)] + ["0", "1", "2"]),
                         min_size=size, max_size=size, unique=True))


@st.composite
def two_tables(draw, max_side: int = 9, max_edges: int = 30):
    """(candidate pairs frame, declared vertices or None): ties on purpose,
    duplicate pairs, isolated records, an empty side now and then."""
    kinds = draw(st.sampled_from([("int", "int"), ("str", "str"), ("int", "str"),
                                  ("str", "int")]))
    n_left = draw(st.integers(0, max_side))
    n_right = draw(st.integers(0 if n_left else 1, max_side))
    left = _ids(draw, kinds[0], n_left)
    right = _ids(draw, kinds[1], n_right)
    m = draw(st.integers(0, max_edges)) if n_left and n_right else 0
    src = [left[draw(st.integers(0, n_left - 1))] for _ in range(m)]
    dst = [right[draw(st.integers(0, n_right - 1))] for _ in range(m)]
    if draw(st.booleans()):
        weight = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=m, max_size=m))
    else:
        weight = draw(st.lists(st.floats(0.125, 100.0, allow_nan=False, width=32),
                               min_size=m, max_size=m))
    dtypes = {"int": np.int64, "str": object}
    frame = pd.DataFrame({S: pd.Series(src, dtype=dtypes[kinds[0]]),
                          D: pd.Series(dst, dtype=dtypes[kinds[1]]),
                          W: np.asarray(weight, dtype=draw(st.sampled_from([np.float32,
                                                                            np.float64])))})
    declared = None
    if m == 0 or draw(st.booleans()):  # every record of both tables, those without a pair too
        declared = {"source": pd.Series(left, dtype=dtypes[kinds[0]]),
                    "destination": pd.Series(right, dtype=dtypes[kinds[1]])}
    return frame, declared


def _sides(frame, declared):
    left = set(frame[S])
    right = set(frame[D])
    if declared is not None:
        left |= set(declared["source"])
        right |= set(declared["destination"])
    return sorted(left), sorted(right)


def disjoint_by_hand(frame, declared):
    """The one-id-space input of the same rows: left ids ranked 0..nL-1, right
    ids ranked nL..nL+nR-1, every record a vertex; and both sides' ids."""
    left, right = _sides(frame, declared)
    rank_left = {x: i for i, x in enumerate(left)}
    rank_right = {y: len(left) + j for j, y in enumerate(right)}
    one = pd.DataFrame({"src": np.array([rank_left[x] for x in frame[S]], dtype=np.int64),
                        "dst": np.array([rank_right[y] for y in frame[D]], dtype=np.int64),
                        "weight": frame[W].to_numpy()})
    return one, left, right


def pairs_of(result) -> list:
    """The linked pairs of a result as [(source, destination, weight)], nulls as None."""
    out = []
    for s, d, w in zip(result[S], result[D], result[W]):
        out.append((None if pd.isna(s) else s, None if pd.isna(d) else d,
                    None if pd.isna(w) else float(w)))
    return out


def expected_frame_rows(pairs, left, right, unmatched):
    """The linked-pairs rows ``unmatched`` asks for, from the pairs (sorted by
    source id) and both sides' ids: the documented order."""
    rows = sorted(pairs, key=lambda p: (left.index(p[0]), right.index(p[1])))
    if unmatched in ("left", "both"):
        linked = {p[0] for p in rows}
        rows = sorted(rows + [(x, None, None) for x in left if x not in linked],
                      key=lambda p: left.index(p[0]))
    if unmatched in ("right", "both"):
        linked = {p[1] for p in rows if p[1] is not None}
        rows += [(None, y, None) for y in right if y not in linked]
    return rows


def one_space_pairs(result, left, right):
    """A one-id-space ``vertex | mate | weight`` frame on ranked ids as linked pairs."""
    n_left = len(left)
    out = []
    for v, mate, w in zip(result["vertex"], result["mate"], result["weight"]):
        if v < n_left and not pd.isna(mate):
            out.append((left[v], right[int(mate) - n_left], float(w)))
    return out


def _close(a, b) -> bool:
    return len(a) == len(b) and all(
        x[:2] == y[:2] and (x[2] is None) == (y[2] is None)
        and (x[2] is None or np.isclose(x[2], y[2], rtol=1e-6)) for x, y in zip(a, b))


def _call(function, frame, declared, **kwargs):
    if declared is None:
        return function(frame, source=S, destination=D, weight=W, backend="cpu",
                        bipartite=True, **kwargs)
    g = cm.Graph(frame, S, D, W, backend="cpu", bipartite=True, vertices=declared)
    return function(g, **kwargs)


# --------------------------------------------------------------------------
# the greedy matchings against the oracles
# --------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", GREEDY)
@FAST
@given(case=two_tables(), unmatched=st.sampled_from(UNMATCHED))
def test_greedy_equals_the_one_id_space_call_on_disjoint_ids(algorithm, case, unmatched):
    frame, declared = case
    one, left, right = disjoint_by_hand(frame, declared)
    vertices = np.arange(len(left) + len(right))
    expected = one_space_pairs(GREEDY[algorithm](cm.Graph(one, vertices=vertices,
                                                          backend="cpu")), left, right)
    # the independent greedy, on ids tagged with their side
    tagged = greedy_matching([("L", x) for x in frame[S]], [("R", y) for y in frame[D]],
                             frame[W], vertices=[("L", x) for x in left] +
                             [("R", y) for y in right])
    independent = [(u[1], m[1], w) for u, (m, w) in tagged.items()
                   if u[0] == "L" and m is not None]
    assert _close(sorted(expected, key=str), sorted(independent, key=str))
    got = _call(GREEDY[algorithm], frame, declared, unmatched=unmatched)
    assert list(got.columns) == [S, D, W]
    assert list(got.index) == list(range(len(got)))
    assert _close(pairs_of(got), expected_frame_rows(expected, left, right, unmatched))


@FAST
@given(case=two_tables(), b_left=st.integers(0, 3), b_right=st.integers(0, 3),
       form=st.sampled_from(["dict", "pair", "series", "frame", "int"]))
def test_b_suitor_capacity_per_side(case, b_left, b_right, form):
    frame, declared = case
    one, left, right = disjoint_by_hand(frame, declared)
    b_of = {i: b_left for i in range(len(left))} | \
        {len(left) + j: b_right for j in range(len(right))}
    if form == "int":
        b_of = {v: b_left for v in b_of}
        b = b_left
    elif form in ("series", "frame"):
        per = [pd.Series(b_left, index=pd.Index(left, dtype=frame[S].dtype)),
               pd.Series(b_right, index=pd.Index(right, dtype=frame[D].dtype))]
        if form == "frame":
            per = [pd.DataFrame({"vertex": s.index, "b": s.to_numpy()}) for s in per]
        b = {"source": per[0], "destination": per[1]}
    else:
        b = {"source": b_left, "destination": b_right} if form == "dict" else (b_left, b_right)
    expected = greedy_b_matching(one["src"], one["dst"], one["weight"], b_of,
                                 vertices=list(b_of))
    expected = [(left[lo], right[hi - len(left)], w) for lo, hi, w in expected]
    got = _call(cm.b_suitor_matching, frame, declared, b=b)
    assert _close(pairs_of(got), expected_frame_rows(expected, left, right, "drop"))
    one_space = cm.b_suitor_matching(cm.Graph(one, vertices=list(b_of), backend="cpu"),
                                     b=pd.Series(b_of))
    assert _close(pairs_of(got), [(left[s], right[d - len(left)], float(w)) for s, d, w in
                                  zip(one_space["src"], one_space["dst"], one_space["weight"])])


@FAST
@given(case=two_tables(), seed=st.integers(0, 3))
def test_roma_equals_the_one_id_space_call_on_disjoint_ids(case, seed):
    frame, declared = case
    one, left, right = disjoint_by_hand(frame, declared)
    vertices = np.arange(len(left) + len(right))
    expected = one_space_pairs(cm.roma_matching(cm.Graph(one, vertices=vertices, backend="cpu"),
                                                seed=seed), left, right)
    got = _call(cm.roma_matching, frame, declared, seed=seed)
    assert _close(pairs_of(got), expected_frame_rows(expected, left, right, "drop"))
    # a start given as linked pairs: ROMA from the greedy pairs is ROMA's default run
    greedy = _call(cm.suitor_matching, frame, declared, unmatched="both")
    again = _call(cm.roma_matching, frame, declared, seed=seed, initial=greedy)
    assert _close(pairs_of(again), pairs_of(got))


def test_the_issue_example():
    """Left 2 – right 0 (0.95) is one pair of two different records, not vertices 2 and 0."""
    cand = pd.DataFrame({"left_id": [0, 1, 2, 0, 2], "right_id": [1, 2, 0, 0, 1],
                         "score": [.9, .8, .95, .1, .2]})
    got = cm.suitor_matching(cand, "left_id", "right_id", "score", backend="cpu",
                             bipartite=True)
    assert pairs_of(got) == [(0, 1, 0.9), (1, 2, 0.8), (2, 0, 0.95)]
    assert got.dtypes.tolist() == [np.int64, np.int64, np.float64]


def test_tie_order_puts_right_ids_after_left_ids():
    """All weights equal: the heaviest edge under the two-sided order is the
    one with the largest right id, then the largest left id."""
    cand = pd.DataFrame({"l": [5, 5, 9], "r": [0, 1, 1], "w": [1.0, 1.0, 1.0]})
    got = cm.suitor_matching(cand, "l", "r", "w", backend="cpu", bipartite=True)
    # (9, 1) beats (5, 1): equal right id, larger left id; then (5, 0) is free
    assert got.values.tolist() == [[5, 0, 1.0], [9, 1, 1.0]]


def test_unweighted_and_float32_weights():
    cand = pd.DataFrame({"a": ["x", "y"], "b": ["x", "x"]})
    got = cm.suitor_matching(cand, "a", "b", None, backend="cpu", bipartite=True,
                             unmatched="left")
    assert list(got.columns) == ["a", "b", "weight"]
    assert pairs_of(got.rename(columns={"a": S, "b": D, "weight": W})) == \
        [("x", None, None), ("y", "x", 1.0)]
    cand["w"] = np.float32([1.5, 2.5])
    got = cm.suitor_matching(cand, "a", "b", "w", backend="cpu", bipartite=True)
    assert got["w"].dtype == np.float32


def test_graph_is_reused_and_equals_the_frame_path():
    rng = np.random.default_rng(3)
    cand = pd.DataFrame({S: rng.integers(0, 40, 300), D: rng.integers(0, 50, 300),
                         W: rng.random(300)})
    g = cm.Graph(cand, S, D, W, backend="cpu", bipartite=True)
    for function in (cm.suitor_matching, cm.locally_dominant_matching, cm.roma_matching):
        pd.testing.assert_frame_equal(function(g), function(cand, S, D, W, backend="cpu",
                                                            bipartite=True))
    pd.testing.assert_frame_equal(cm.b_suitor_matching(g, b=(2, 1)), cm.b_suitor_matching(
        cand, {"source": 2, "destination": 1}, S, D, W, backend="cpu", bipartite=True))
    edges = g.view_edge_list()
    assert list(edges.columns) == [S, D, W]
    assert len(edges) == len(cand.drop_duplicates([S, D]))
    assert repr(g).startswith(f"Graph({cand[S].nunique()} + {cand[D].nunique()} vertices")


def test_input_is_not_modified():
    cand = pd.DataFrame({S: [0, 1, 1], D: [0, 0, 1], W: [1.0, 2.0, 3.0]})
    before = cand.copy()
    cm.b_suitor_matching(cand, (1, 2), S, D, W, backend="cpu", bipartite=True,
                         unmatched="both")
    pd.testing.assert_frame_equal(cand, before)


# --------------------------------------------------------------------------
# NetworkX and SciPy inputs
# --------------------------------------------------------------------------


def test_networkx_sides_from_the_bipartite_attribute():
    G = nx.Graph()
    G.add_nodes_from(["a", "b", "c"], bipartite=0)
    G.add_nodes_from([1, 2, 7], bipartite=1)
    G.add_edge(1, "a", weight=2.0)  # written right to left: still a -> 1
    G.add_edge("b", 1, weight=3.0)
    G.add_edge("b", 2, weight=1.0)
    got = cm.suitor_matching(G, backend="cpu", bipartite=True, unmatched="both")
    assert list(got.columns) == ["src", "dst", "weight"]
    assert pairs_of(got.set_axis([S, D, W], axis=1)) == [
        ("a", None, None), ("b", 1, 3.0), ("c", None, None), (None, 2, None),
        (None, 7, None)]
    # node ids need not be orderable across the sides, only within one
    nx.set_node_attributes(G, 2, "cap")
    got = cm.b_suitor_matching(G, b="cap", backend="cpu", bipartite=True)
    assert sorted(map(tuple, got[["src", "dst"]].values.tolist()), key=str) == \
        sorted([("a", 1), ("b", 1), ("b", 2)], key=str)


def test_networkx_without_the_attribute_or_with_edges_inside_a_side():
    G = nx.complete_bipartite_graph(2, 3)
    G.add_node(99)  # no bipartite attribute
    with pytest.raises(ValueError, match=r"'bipartite' node attribute.*1 of 6 node\(s\) "
                                         r"lack it; first is 99"):
        cm.suitor_matching(G, backend="cpu", bipartite=True)
    G = nx.complete_bipartite_graph(2, 3)
    G.add_edge(3, 4)
    G.add_edge(0, 1)
    with pytest.raises(ValueError, match=r"2 edge\(s\) join two nodes of one side.*first is "
                                         r"\(0, 1\), both bipartite=0"):
        cm.suitor_matching(G, backend="cpu", bipartite=True)
    G = nx.path_graph(2)
    nx.set_node_attributes(G, {0: 0, 1: "right"}, "bipartite")
    with pytest.raises(ValueError, match="must be 0 or 1.*first is 1"):
        cm.suitor_matching(G, backend="cpu", bipartite=True)


def test_sparse_biadjacency_matrix_is_rectangular():
    B = sp.coo_array(([3.0, 1.0, 2.0, 5.0], ([0, 0, 1, 2], [0, 3, 3, 3])), shape=(4, 5))
    got = cm.suitor_matching(B, backend="cpu", bipartite=True, unmatched="both")
    assert pairs_of(got.set_axis([S, D, W], axis=1)) == [
        (0, 0, 3.0), (1, None, None), (2, 3, 5.0), (3, None, None),
        (None, 1, None), (None, 2, None), (None, 4, None)]


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_a_row_outside_its_declared_side():
    cand = pd.DataFrame({S: [0, 1, 7], D: [0, 0, 1], W: [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match=r"column 'left_id' has 1 id\(s\) that are not among "
                                         r"the declared source vertices.*row 2 \(left_id=7"):
        cm.Graph(cand, S, D, W, bipartite=True, vertices={"source": [0, 1, 2]})
    with pytest.raises(ValueError, match=r"column 'right_id' has 2 id\(s\).*first is row 0"):
        cm.Graph(cand, S, D, W, bipartite=True, vertices=([0, 1, 7], [1]))
    with pytest.raises(ValueError, match=r"vertices\['destination'\] has 1 null"):
        cm.Graph(cand, S, D, W, bipartite=True, vertices=(None, [0, None, 1]))
    with pytest.raises(ValueError, match="keys must be 'source' and/or 'destination'"):
        cm.Graph(cand, S, D, W, bipartite=True, vertices={"left": [0]})
    with pytest.raises(TypeError, match=r"vertices\['source'\] must be the side's ids"):
        cm.Graph(cand, S, D, W, bipartite=True, vertices=[0, 1])  # one-id-space style
    with pytest.raises(TypeError, match="must be a dict"):
        cm.Graph(cand, S, D, W, bipartite=True, vertices=[0, 1, 2])


def test_nan_scores_and_the_usual_checks():
    cand = pd.DataFrame({S: [0, 1], D: [0, 0], W: [1.0, np.nan]})
    with pytest.raises(ValueError, match=r"weight column 'score' has 1 null/NaN value\(s\); "
                                         r"first is row 1"):
        cm.suitor_matching(cand, S, D, W, bipartite=True)
    with pytest.raises(ValueError, match="the edge list is empty"):
        cm.suitor_matching(cand.iloc[:0], S, D, W, bipartite=True)
    with pytest.raises(ValueError, match="source column 'nope' not found"):
        cm.suitor_matching(cand, "nope", D, W, bipartite=True)


def test_argument_errors():
    cand = pd.DataFrame({S: [0, 1], D: [0, 0], W: [1.0, 2.0]})
    with pytest.raises(TypeError, match="bipartite must be True or False"):
        cm.suitor_matching(cand, S, D, W, bipartite="yes")
    with pytest.raises(ValueError, match="unmatched must be one of"):
        cm.suitor_matching(cand, S, D, W, bipartite=True, unmatched="outer")
    with pytest.raises(ValueError, match="pass bipartite=True"):
        cm.suitor_matching(cand, S, D, W, unmatched="left")
    with pytest.raises(TypeError, match="cannot be one Series.*give one per side"):
        cm.b_suitor_matching(cand, pd.Series([1, 1], index=[0, 1]), S, D, W, bipartite=True)
    with pytest.raises(ValueError, match="the destination side has no capacity"):
        cm.b_suitor_matching(cand, {"source": 1}, S, D, W, bipartite=True)
    with pytest.raises(ValueError, match=r"b\['destination'\]: 1 id\(s\) are not vertices of "
                                         r"the graph; first is 5"):
        cm.b_suitor_matching(cand, {"source": 1, "destination": pd.Series([1], index=[5])},
                             S, D, W, bipartite=True)
    with pytest.raises(ValueError, match=r"b\['source'\]: 1 vertex/vertices of the graph "
                                         r"have no capacity; first is 1"):
        cm.b_suitor_matching(cand, {"source": pd.Series([1], index=[0]), "destination": 1},
                             S, D, W, bipartite=True)
    with pytest.raises(ValueError, match=r"b\['source'\]: 1 negative capacity"):
        cm.b_suitor_matching(cand, (pd.Series([1, -1], index=[0, 1]), 1), S, D, W,
                             bipartite=True)
    with pytest.raises(ValueError, match="not a weight matrix or points"):
        cm.roma_matching(np.ones((3, 3)), bipartite=True)
    with pytest.raises(ValueError, match="must differ"):
        cm.suitor_matching(cand.rename(columns={W: "weight"}).drop(columns="weight")
                           .assign(weight=cand[S]), "weight", D, None, bipartite=True)


def test_one_id_space_functions_refuse_a_two_sided_graph():
    cand = pd.DataFrame({S: [0, 1], D: [0, 0], W: [1.0, 2.0]})
    g = cm.Graph(cand, S, D, W, backend="cpu", bipartite=True)
    mates = pd.DataFrame({"vertex": [0, 1], "mate": [None, None]})
    for call in (lambda: cm.louvain(g), lambda: cm.coarsen(g, mates),
                 lambda: cm.maximal_matching(g), lambda: cm.is_matching(g, mates),
                 lambda: cm.modularity(g, mates.rename(columns={"mate": "community"}))):
        with pytest.raises(ValueError, match="this cm.Graph has two id spaces"):
            call()
    one = cm.Graph(cand, S, D, W, backend="cpu")
    with pytest.raises(ValueError, match="bipartite=True needs two id spaces"):
        cm.suitor_matching(one, bipartite=True)


def test_roma_start_that_is_not_a_matching():
    cand = pd.DataFrame({S: [0, 0, 1], D: [0, 1, 1], W: [1.0, 2.0, 3.0]})
    start = pd.DataFrame({S: [0, 1], D: [1, 0], W: [2.0, 1.0]})
    with pytest.raises(ValueError, match=r"1 pair\(s\) are not edges; first is \(left_id 1, "
                                         r"right_id 0\)"):
        cm.roma_matching(cand, S, D, W, bipartite=True, initial=start)
    with pytest.raises(ValueError, match="initial 'right_id': 1 vertex id"):
        cm.roma_matching(cand, S, D, W, bipartite=True,
                         initial=pd.DataFrame({S: [0, 1], D: [1, 1]}))


# --------------------------------------------------------------------------
# the Dask path
# --------------------------------------------------------------------------


def _objects(frame):
    """String columns as objects with None for nulls (Dask keeps strings in its
    own string dtype)."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or isinstance(out[column].dtype, pd.StringDtype):
            out[column] = out[column].astype(object).where(out[column].notna(), None)
    return out


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=two_tables(max_side=8, max_edges=24), partitions=st.sampled_from([1, 2, 3]),
       unmatched=st.sampled_from(UNMATCHED), b=st.sampled_from([0, 1, 2, (1, 2), "series"]),
       floats=st.booleans())
def test_dask_equals_the_single_machine_call(client, case, partitions, unmatched, b, floats):
    import dask.dataframe as dd

    frame, _ = case
    if not len(frame):
        return
    if floats and frame[S].dtype.kind == "i":  # float ids on one side: the bit-pattern code
        frame = frame.assign(**{S: frame[S] / 4.0 - 0.5})
    dask_frame = dd.from_pandas(frame, npartitions=min(partitions, len(frame)), sort=False)
    frame = dask_frame.compute()  # what the workers read (Dask's string dtype)
    for function in GREEDY.values():
        single = function(frame, S, D, W, backend="cpu", bipartite=True, unmatched=unmatched)
        got = function(dask_frame, S, D, W, bipartite=True, unmatched=unmatched).compute()
        pd.testing.assert_frame_equal(_objects(got), _objects(single))
    if b == "series":
        b = {"source": pd.Series(1, index=pd.Index(frame[S].unique())),
             "destination": pd.Series(2, index=pd.Index(frame[D].unique()))}
    single = cm.b_suitor_matching(frame, b, S, D, W, backend="cpu", bipartite=True)
    got = cm.b_suitor_matching(dask_frame, b, S, D, W, bipartite=True).compute()
    pd.testing.assert_frame_equal(_objects(got), _objects(single))


def test_dask_colliding_keys_across_the_full_integer_range(client):
    """Spans that do not fit one uint64 together: the string code."""
    import dask.dataframe as dd

    big = np.iinfo(np.int64)
    frame = pd.DataFrame({S: np.array([big.min, 0, big.max, 0], dtype=np.int64),
                          D: np.array([big.max, big.min, 0, 0], dtype=np.int64),
                          W: [1.0, 2.0, 3.0, 3.0]})
    dask_frame = dd.from_pandas(frame, npartitions=2, sort=False)
    for unmatched in UNMATCHED:
        single = cm.suitor_matching(frame, S, D, W, backend="cpu", bipartite=True,
                                    unmatched=unmatched)
        got = cm.suitor_matching(dask_frame, S, D, W, bipartite=True,
                                 unmatched=unmatched).compute()
        pd.testing.assert_frame_equal(got, single)


def test_dask_bad_input_gives_the_single_machine_errors(client):
    import dask.dataframe as dd

    frame = pd.DataFrame({S: [0, 1, 2], D: ["a", "b", "c"], W: [1.0, np.nan, 2.0]})
    dask_frame = dd.from_pandas(frame, npartitions=2, sort=False)
    with pytest.raises(ValueError, match=r"weight column 'score' has 1 null/NaN value\(s\); "
                                         r"first is row 1 \(left_id=1, right_id='b'"):
        cm.suitor_matching(dask_frame, S, D, W, bipartite=True)
    frame[W] = 1.0
    dask_frame = dd.from_pandas(frame, npartitions=2, sort=False)
    with pytest.raises(ValueError, match=r"b\['destination'\]: 1 id\(s\) are not vertices of "
                                         r"the graph; first is 'z'"):
        cm.b_suitor_matching(dask_frame, {"source": 1, "destination": pd.Series(
            [1, 1, 1, 1], index=["a", "b", "c", "z"])}, S, D, W, bipartite=True)
    with pytest.raises(ValueError, match=r"b\['source'\]: 1 vertex/vertices of the graph have "
                                         r"no capacity; first is 2"):
        cm.b_suitor_matching(dask_frame, {"source": pd.Series([1, 1], index=[0, 1]),
                                          "destination": 1}, S, D, W, bipartite=True)
    with pytest.raises(ValueError, match="not available for b_suitor_matching on a Dask"):
        cm.b_suitor_matching(dask_frame, 1, S, D, W, bipartite=True, unmatched="left")
    with pytest.raises(ValueError, match="backend='gpu' is not available for this algorithm on Dask inputs"):
        cm.suitor_matching(dask_frame, S, D, W, bipartite=True, backend="gpu")


def test_dask_partitions_of_unmatched_records_keep_the_string_dtype(client):
    """With ``unmatched="right"`` a partition may hold only the right side's
    unmatched records: its string ``src`` column, every value null, was
    object beside the other partitions' and the meta's ``str``."""
    import dask.dataframe as dd

    frame = pd.DataFrame({S: ["a", "b", "c", "a"], D: [1, 2, 2, 3], W: [1.0, 2.0, 3.0, 1.0]})
    got = cm.suitor_matching(dd.from_pandas(frame, npartitions=2), S, D, W, bipartite=True,
                             unmatched="right")
    dtypes = {got.get_partition(i).compute()[S].dtype for i in range(got.npartitions)}
    assert dtypes == {got.dtypes[S]}
    pd.testing.assert_frame_equal(
        got.compute(), cm.suitor_matching(frame, S, D, W, backend="cpu", bipartite=True,
                                          unmatched="right"))


def test_dask_one_capacity_object_for_both_sides_gives_the_single_machine_error(client):
    import dask.dataframe as dd

    frame = pd.DataFrame({S: [0, 1, 2], D: [0, 1, 1], W: [1.0, 2.0, 3.0]})
    for b in (pd.Series([1, 1, 1], index=[0, 1, 2]),
              pd.DataFrame({"vertex": [0, 1, 2], "b": [1, 1, 1]})):
        with pytest.raises(TypeError) as single:
            cm.b_suitor_matching(frame, b, S, D, W, backend="cpu", bipartite=True)
        with pytest.raises(TypeError) as distributed:
            cm.b_suitor_matching(dd.from_pandas(frame, npartitions=2), b, S, D, W,
                                 bipartite=True)
        assert str(distributed.value) == str(single.value)
        assert "cannot be one" in str(single.value)


# --------------------------------------------------------------------------
# the GPU kernels in the simulator (NUMBA_ENABLE_CUDASIM=1, ci/test.sh step 2)
# --------------------------------------------------------------------------


@pytest.mark.cudasim
@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=two_tables(max_side=6, max_edges=14), unmatched=st.sampled_from(UNMATCHED))
def test_gpu_backend_equals_the_cpu(case, unmatched):
    frame, declared = case
    for function, kwargs in ((cm.suitor_matching, {"unmatched": unmatched}),
                             (cm.locally_dominant_matching, {"unmatched": unmatched}),
                             (cm.b_suitor_matching, {"b": (2, 1)})):
        graphs = [cm.Graph(frame, S, D, W, backend=backend, bipartite=True, vertices=declared)
                  if declared is not None or len(frame) else None
                  for backend in ("cpu", "gpu")]
        if graphs[0] is None:
            continue
        pd.testing.assert_frame_equal(function(graphs[1], **kwargs),
                                      function(graphs[0], **kwargs))


@pytest.mark.parametrize("dtype", ["Int64", "int8", "UInt64", "Int16"])
def test_an_empty_side_keeps_its_id_dtype(dtype):
    """An empty left side of nullable ids (Int64) came back as a float64
    column: its placeholder label was a null, which NumPy reads as NaN."""
    frame = pd.DataFrame({"L": pd.Series([], dtype=dtype), "R": pd.Series([], dtype="int64")})
    graph = cm.Graph(frame, "L", "R", None, bipartite=True, vertices=(None, [1]), backend="cpu")
    for unmatched in ("drop", "right"):
        column = cm.suitor_matching(graph, unmatched=unmatched)["L"]
        assert column.dtype.kind in "iu" or pd.api.types.is_integer_dtype(column.dtype), \
            (unmatched, column.dtype)


@pytest.mark.parametrize("left, given", [
    (np.array([1, 1, 2], dtype=np.int64), [1, 2, 1.5]),             # 1.5 was cast to 1
    (np.array([1, 1, 2], dtype=np.int64), [1.5, 1, 2]),
    (np.array([44, 44, 1], dtype=np.int8), [1, 44, 300]),           # 300 wrapped to 44
    (np.array([1, 1, 2], dtype=np.int64),
     np.array([1, 2, 2**64 - 1], dtype=np.uint64)),                  # was -1
    (np.array([0, 5, 9], dtype=np.uint8), [0, 5, 9, -256]),          # was 0
    (np.array([0.5, 1.0, 2.0], dtype=np.float32), [0.5, 1.0, 2.0, 0.1]),  # 0.1 is no float32
])
def test_dask_capacity_ids_the_side_cannot_hold_are_no_vertices(client, left, given):
    """The Dask path cast a side's capacity ids to the side's dtype, so an id
    that is no record landed on one and overrode its capacity; one machine
    refuses them."""
    import dask.dataframe as dd

    frame = pd.DataFrame({S: left, D: [10, 20, 20], W: [3.0, 2.0, 1.0]})
    index = pd.Index(given)
    b = {"source": pd.Series(np.ones(len(index), dtype=np.int64), index=index),
         "destination": 1}
    with pytest.raises(ValueError, match="are not vertices") as single:
        cm.b_suitor_matching(frame, b, S, D, W, backend="cpu", bipartite=True)
    with pytest.raises(ValueError, match="are not vertices") as distributed:
        cm.b_suitor_matching(dd.from_pandas(frame, npartitions=2), b, S, D, W, bipartite=True)
    assert str(distributed.value) == str(single.value)
    # the same ids with an unknown id beside them: both counted, the first named
    b["source"] = pd.concat([pd.Series([1], index=pd.Index([123], dtype=index.dtype)
                                       if index.dtype.kind != "u" else pd.Index([123],
                                                                                dtype=index.dtype)),
                             b["source"]])
    with pytest.raises(ValueError) as single:
        cm.b_suitor_matching(frame, b, S, D, W, backend="cpu", bipartite=True)
    with pytest.raises(ValueError) as distributed:
        cm.b_suitor_matching(dd.from_pandas(frame, npartitions=3), b, S, D, W, bipartite=True)
    assert str(distributed.value) == str(single.value)


@pytest.mark.parametrize("form", ["index", "Int64 unique", "categorical", "arrow", "frame",
                                  "string"])
def test_declared_vertices_of_any_array_form(form):
    """A pandas Index, a Categorical or an extension array (what
    ``Series.unique()`` returns for Int64, category and Arrow columns) as
    ``vertices`` raised AttributeError ('... has no attribute reset_index'),
    on both sides and in one id space."""
    cand = pd.DataFrame({S: [1, 1, 2], D: [10, 20, 20], W: [3.0, 2.0, 1.0]})
    ids = {"index": pd.Index([1, 2, 3]),
           "Int64 unique": pd.Series([3, 1, 2, 1], dtype="Int64").unique(),
           "categorical": pd.Categorical([1, 2, 3]),
           "arrow": pd.array([1, 2, 3], dtype="int64[pyarrow]"),
           "frame": pd.DataFrame({"id": [1, 2, 3]}),
           "string": "123"}[form]
    if form in ("frame", "string"):
        with pytest.raises(TypeError, match=r"vertices\['source'\] must be the side's ids .*got "
                                            + type(ids).__name__):
            cm.Graph(cand, S, D, W, bipartite=True, vertices={"source": ids})
        with pytest.raises(TypeError, match=r"vertices must be the ids .*got "
                                            + type(ids).__name__):
            cm.Graph(cand, S, D, W, vertices=ids)
        return
    got = cm.suitor_matching(cm.Graph(cand, S, D, W, bipartite=True, vertices={"source": ids}),
                             unmatched="left")
    assert sorted(got[S].tolist()) == [1, 2, 3]
    one_space = cm.suitor_matching(cm.Graph(cand, S, D, W, vertices=ids))
    assert sorted(one_space["vertex"].tolist()) == [1, 2, 3, 10, 20]


@pytest.mark.parametrize("unmatched", ["right", "both"])
def test_bool_ids_with_nulls_are_a_nullable_boolean_column(unmatched):
    """A bool side holding nulls came back as an object column of NaN, where
    every other id type is nullable (Int64, Float64, ...)."""
    cand = pd.DataFrame({S: [True, True], D: [1, 2], W: [2.0, 1.0]})
    got = cm.suitor_matching(cand, S, D, W, backend="cpu", bipartite=True, unmatched=unmatched)
    assert got[S].dtype == "boolean"
    assert got[S].tolist()[0] is True and got[S].isna().tolist() == [False, True]
    one_space = cm.suitor_matching(pd.DataFrame({"src": [False], "dst": [False],
                                                 "weight": [1.0]}), backend="cpu")
    assert one_space["mate"].dtype == "boolean" and one_space["mate"].isna().all()


@pytest.mark.parametrize("dtype, values", [("Int64", [1, 2, 3]), ("int64[pyarrow]", [1, 2, 3]),
                                           ("string[pyarrow]", ["x", "y", "z"])])
def test_extension_id_dtypes_are_kept_by_every_pairs_frame(dtype, values):
    """Pairs frames without nulls (two tables with unmatched="drop",
    b_suitor_matching's pairs) turned Int64 / Arrow / string ids into int64 or
    str, where assignment and the nullable modes kept them: the same linked
    pairs did not compare equal."""
    ids = pd.array(values, dtype=dtype)
    cand = pd.DataFrame({S: ids[[0, 1, 2]], D: ids[[0, 1, 1]], W: [1.0, 2.0, 0.5]})
    greedy = cm.suitor_matching(cand, S, D, W, backend="cpu", bipartite=True)
    exact = cm.assignment(cand, S, D, W, maximize=True, backend="cpu")
    assert greedy[S].dtype == ids.dtype and greedy[D].dtype == ids.dtype
    pd.testing.assert_frame_equal(greedy, exact)
    pairs = cm.b_suitor_matching(cand.rename(columns={S: "src", D: "dst", W: "weight"}), 1,
                                 backend="cpu")
    assert pairs["src"].dtype == ids.dtype and pairs["dst"].dtype == ids.dtype


def test_is_matching_refuses_a_two_table_graph_as_the_one_id_space_functions_do():
    """It said the linked pairs lacked columns 'vertex' and 'mate' instead."""
    cand = pd.DataFrame({S: [1, 2], D: [1, 2], W: [1.0, 2.0]})
    graph = cm.Graph(cand, S, D, W, bipartite=True, backend="cpu")
    with pytest.raises(ValueError, match="this cm.Graph has two id spaces"):
        cm.is_matching(graph, cm.suitor_matching(graph))
