"""Stable marriage, b-marriage, popular matching and blocking pairs on the CPU backend.

Oracles (``marriage_oracle``, the ``matching`` package, brute force) share no
code with the package.  The GPU kernels are checked against the same
results in ``test_marriage_simulator.py``.
"""

from __future__ import annotations

import copy
import random
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
import marriage_oracle as O
from cugraph_match.marriage.b_marriage import run_b_marriage
from cugraph_match.structure.backend import resolve_backend
from cugraph_match.datasets import stable_marriage_instance, stable_marriage_master_lists
from cugraph_match.marriage.preferences import build_preferences_sorted, capacities, prepare_preferences
from cugraph_match.marriage.stable_marriage import run_proposals
from oracle import greedy_matching

CPU = {"backend": "cpu"}
ALGORITHMS = ["mcvitie_wilson", "gale_shapley"]
HYP = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def sm(pp, ap, algorithm="mcvitie_wilson", **kw):
    return O.matching_from_frame(cm.stable_marriage(pp, ap, algorithm=algorithm, **CPU, **kw))


# --------------------------------------------------------------------------
# stable marriage against independent solvers
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 6, 15, 40, 70])
@pytest.mark.parametrize("seed", [0, 1])
def test_equals_matching_package_on_complete_instances(n, seed):
    from matching.games import StableMarriage

    P, A = O.complete_lists(random.Random(1000 * n + seed), n)
    # The package names players by str(); keep ids as strings on both sides.
    game = StableMarriage.create_from_dictionaries(
        {f"m{p}": [f"w{a}" for a in lst] for p, lst in P.items()},
        {f"w{a}": [f"m{p}" for p in lst] for a, lst in A.items()})
    theirs = {str(m): str(w) for m, w in game.solve(optimal="suitor").items()}
    pp, ap = O.frames_from_lists({f"m{p}": [f"w{a}" for a in lst] for p, lst in P.items()},
                                 {f"w{a}": [f"m{p}" for p in lst] for a, lst in A.items()},
                                 shuffle_seed=seed)
    for algorithm in ALGORITHMS:
        ours = sm(pp, ap, algorithm)
        assert ours == theirs
        assert cm.blocking_pairs(pp, ap, cm.stable_marriage(pp, ap, algorithm, **CPU),
                                 **CPU).empty


@HYP
@given(case=O.instances(max_people=7))
def test_random_incomplete_instances_equal_reference(case):
    P, A, pp, ap = case
    expected = O.gale_shapley(P, A)
    for algorithm in ALGORITHMS:
        result = cm.stable_marriage(pp, ap, algorithm=algorithm, **CPU)
        assert O.matching_from_frame(result) == expected
        assert list(result["proposer"]) == sorted(P, key=lambda x: x), "one row per proposer, sorted"
        assert cm.blocking_pairs(pp, ap, result, **CPU).empty


@settings(max_examples=examples(40), deadline=None)
@given(case=O.instances(max_people=4))
def test_proposer_optimal_by_brute_force(case):
    P, A, pp, ap = case
    assert sm(pp, ap) == O.proposer_optimal(P, A)


@HYP
@given(case=O.instances(max_people=6), seed=st.integers(0, 1000))
def test_blocking_pairs_of_arbitrary_matchings(case, seed):
    P, A, pp, ap = case
    rng = random.Random(seed)
    matchings = O.all_matchings(P, A) if len(O.acceptable_pairs(P, A)) <= 12 else [O.gale_shapley(P, A)]
    m = rng.choice(matchings)
    pairs = pd.DataFrame({"proposer": pd.Series(list(m), dtype=pp["proposer"].dtype),
                          "acceptor": pd.Series(list(m.values()), dtype=object)})
    got = cm.blocking_pairs(pp, ap, pairs, **CPU)
    expected = O.blocking_pairs(P, A, {(p, a) for p, a in m.items() if a is not None})
    assert sorted(zip(got["proposer"], got["acceptor"]), key=repr) == expected


@pytest.mark.parametrize("kind,n", [("easy", 1), ("easy", 2), ("easy", 300), ("easy", 3000),
                                    ("hard", 1), ("hard", 60)])
def test_algorithms_agree_on_generated_instances(kind, n):
    pp, ap = stable_marriage_instance(n, kind, seed=n)
    mw = cm.stable_marriage(pp, ap, "mcvitie_wilson", **CPU)
    gs = cm.stable_marriage(pp, ap, "gale_shapley", **CPU)
    assert mw.equals(gs)
    assert cm.blocking_pairs(pp, ap, mw, **CPU).empty
    if n <= 300:
        P, A = O.lists_from_frames(pp, ap)
        assert O.matching_from_frame(mw) == O.gale_shapley(P, A)


@pytest.mark.parametrize("n", [1, 2, 7, 100])
def test_master_lists_closed_form_and_frame_api(n):
    p_order, a_order = stable_marriage_master_lists(n, seed=n)
    expected = np.empty(n, dtype=np.int64)
    expected[a_order] = p_order  # i-th best proposer gets the i-th best acceptor
    be = resolve_backend("cpu")
    pp, ap = stable_marriage_instance(n, "hard", seed=n)
    frame_mate = cm.stable_marriage(pp, ap, **CPU)["acceptor"].to_numpy(dtype=np.int64)
    assert (frame_mate == expected).all()
    prep = prepare_preferences(pp, ap, backend="cpu")
    for algorithm in ALGORITHMS:
        mate = cm.stable_marriage_master_lists(p_order, a_order, algorithm, **CPU)
        assert (mate == expected).all()
        # both layouts consider exactly n(n+1)/2 entries
        from cugraph_match.marriage.preferences import master_layout

        for layout in (master_layout(p_order, a_order, np), prep.layout()):
            _, nxt = run_proposals(layout, be, algorithm)
            assert int(nxt.sum()) == n * (n + 1) // 2


def test_proposals_considered_equal_across_algorithms():
    pp, ap = stable_marriage_instance(2000, "easy", seed=4)
    layout = prepare_preferences(pp, ap, backend="cpu").layout()
    be = resolve_backend("cpu")
    held_mw, nxt_mw = run_proposals(layout, be, "mcvitie_wilson")
    held_gs, nxt_gs = run_proposals(layout, be, "gale_shapley")
    assert (held_mw == held_gs).all() and (nxt_mw == nxt_gs).all()


# --------------------------------------------------------------------------
# the preference plumbing
# --------------------------------------------------------------------------


@HYP
@given(case=O.instances(max_people=8))
def test_cpu_and_sorting_builders_agree(case):
    _, _, pp, ap = case
    prep = prepare_preferences(pp, ap, backend="cpu")
    codes = _codes(pp, ap, prep)
    errors, arrays = build_preferences_sorted(*codes, prep.n_proposers, prep.n_acceptors, np)
    assert all(row < 0 for err in errors for row, _ in err)
    ours = (prep.prop_offsets, prep.prop_acceptors, prep.prop_keys, prep.acc_offsets,
            prep.acc_proposers)
    for a, b in zip(ours, arrays):
        assert np.array_equal(a, b)


def _codes(pp, ap, prep):
    p_code = {p: i for i, p in enumerate(prep.proposer_labels)}
    a_code = {a: i for i, a in enumerate(prep.acceptor_labels)}
    return (np.array([p_code[x] for x in pp["proposer"]], dtype=np.int64),
            np.array([a_code[x] for x in pp["acceptor"]], dtype=np.int64),
            pp["rank"].to_numpy(),
            np.array([p_code[x] for x in ap["proposer"]], dtype=np.int64),
            np.array([a_code[x] for x in ap["acceptor"]], dtype=np.int64),
            ap["rank"].to_numpy())


@settings(max_examples=examples(40), deadline=None)
@given(case=O.instances(max_people=6), which=st.sampled_from(["p_entry", "p_rank", "a_entry",
                                                               "a_rank"]), seed=st.integers(0, 99))
def test_builders_report_the_same_first_duplicate(case, which, seed):
    _, _, pp, ap = case
    frame = pp if which.startswith("p") else ap
    if len(frame) == 0:
        return
    rng = random.Random(seed)
    row = frame.iloc[[rng.randrange(len(frame))]].copy()
    if which.endswith("rank"):
        other = "acceptor" if which.startswith("p") else "proposer"
        row[other] = "fresh" if frame[other].dtype == object else 10**6
    frame = pd.concat([frame, row], ignore_index=True).sample(frac=1, random_state=seed)
    frame = frame.reset_index(drop=True)
    pp2, ap2 = (frame, ap) if which.startswith("p") else (pp, frame)
    messages = []
    for backend in ("cpu", "sorted"):
        with pytest.raises(ValueError, match="more than once|more than one") as err:
            if backend == "cpu":
                prepare_preferences(pp2, ap2, backend="cpu")
            else:
                _prepare_sorted(pp2, ap2)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def _prepare_sorted(pp, ap):
    """prepare_preferences, but with the sorting builder on NumPy (the GPU path)."""
    import cugraph_match.marriage.preferences as prefs

    real = prefs.resolve_backend
    try:
        prefs.resolve_backend = lambda name: prefs.Backend("gpu", np, simulated=True)
        return prepare_preferences(pp, ap, backend="gpu")
    finally:
        prefs.resolve_backend = real


def test_non_mutual_entries_are_purged():
    pp = pd.DataFrame({"proposer": [1, 1, 2], "acceptor": [1, 2, 2], "rank": [1, 2, 1]})
    # acceptor 1 does not list proposer 1; acceptor 2 lists 1 and 2, and a stranger 9
    ap = pd.DataFrame({"acceptor": [2, 2, 2], "proposer": [9, 1, 2], "rank": [1, 2, 3]})
    prep = prepare_preferences(pp, ap, backend="cpu")
    assert list(prep.proposer_labels) == [1, 2, 9]
    assert list(prep.acceptor_labels) == [1, 2]
    assert prep.num_pairs == 2  # (1, 2) and (2, 2)
    assert prep.prop_keys.tolist() == [0, 1]  # acceptor 2's positions among her mutual entries
    assert sm(pp, ap) == {1: 2, 2: None, 9: None}


def test_ids_are_two_separate_spaces_and_rank_values_only_order():
    pp = pd.DataFrame({"proposer": [0, 0, 1, 1], "acceptor": [1, 0, 1, 0],
                       "rank": [-3.5, 10.0, 7, 100]})
    ap = pd.DataFrame({"acceptor": [0, 0, 1, 1], "proposer": [0, 1, 1, 0], "rank": [5, 6, 0, 2]})
    # proposer 0: acceptor 1 first; acceptor 1: proposer 1 first -> 1-1, 0-0
    assert sm(pp, ap) == {0: 0, 1: 1}
    dense = pp.assign(rank=[1, 2, 1, 2])
    assert sm(dense, ap) == sm(pp, ap)


def test_output_format_names_strings_and_singles():
    pp = pd.DataFrame({"man": ["b", "a", "c"], "woman": ["x", "x", "x"], "pref": [1, 1, 1]})
    ap = pd.DataFrame({"woman": ["x", "x", "x"], "man": ["a", "b", "d"], "pref": [2, 1, 3]})
    out = cm.stable_marriage(pp, ap, proposer="man", acceptor="woman", rank="pref", **CPU)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["man", "woman"]
    assert list(out["man"]) == ["a", "b", "c", "d"]
    assert out["woman"].tolist()[1] == "x"
    assert out["woman"].isna().tolist() == [True, False, True, True]


def test_int_output_is_nullable_and_empty_lists():
    pp = pd.DataFrame({"proposer": [5], "acceptor": [7], "rank": [1]})
    ap = pd.DataFrame({"acceptor": pd.Series([], dtype=np.int64),
                       "proposer": pd.Series([], dtype=np.int64),
                       "rank": pd.Series([], dtype=np.int64)})
    out = cm.stable_marriage(pp, ap, **CPU)
    assert out["proposer"].tolist() == [5]
    assert str(out["acceptor"].dtype) == "Int64" and out["acceptor"].isna().all()


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, "Int32", "UInt8", "string",
                                   np.bool_])
def test_id_dtypes_are_kept(dtype):
    """An empty int64 placeholder renumbered beside the ids made float32,
    Int32, string or bool ids come back as float64, Int64 or object."""
    pp = pd.DataFrame({"proposer": [0, 0, 1, 1], "acceptor": [0, 1, 0, 1], "rank": [1, 2, 1, 2]})
    ap = pd.DataFrame({"acceptor": [0, 0, 1, 1], "proposer": [0, 1, 0, 1], "rank": [1, 2, 1, 2]})
    pp, ap = (f.astype({"proposer": dtype, "acceptor": dtype}) for f in (pp, ap))
    for out in (cm.stable_marriage(pp, ap, **CPU), cm.popular_matching(pp, ap, **CPU),
                cm.b_marriage(pp, ap, 1, **CPU)):
        for col in ("proposer", "acceptor"):
            # the numeric dtype kept, nullable where a single needs a null
            assert getattr(out[col].dtype, "numpy_dtype", out[col].dtype) == \
                getattr(pp[col].dtype, "numpy_dtype", pp[col].dtype)


def test_callers_frames_are_not_modified():
    pp, ap = stable_marriage_instance(50, "easy", seed=1)
    pp = pp.sample(frac=1, random_state=0)
    before = (copy.deepcopy(pp), copy.deepcopy(ap))
    result = cm.stable_marriage(pp, ap, **CPU)
    caps = pd.Series(2, index=pd.RangeIndex(50))
    cm.b_marriage(pp, ap, proposer_capacity=caps, acceptor_capacity=3, **CPU)
    cm.popular_matching(pp, ap, **CPU)
    result_before = result.copy()
    cm.blocking_pairs(pp, ap, result, **CPU)
    assert pp.equals(before[0]) and ap.equals(before[1])
    assert (pp.index == before[0].index).all()
    assert result.equals(result_before)
    assert caps.tolist() == [2] * 50


# --------------------------------------------------------------------------
# bad input, each with its message
# --------------------------------------------------------------------------


def _frames():
    pp = pd.DataFrame({"proposer": [1, 1, 2], "acceptor": [1, 2, 1], "rank": [1, 2, 1]})
    ap = pd.DataFrame({"acceptor": [1, 1, 2], "proposer": [1, 2, 1], "rank": [1, 2, 1]})
    return pp, ap


BAD = {
    "missing column": (lambda pp, ap: (pp.drop(columns="rank"), ap),
                       ValueError, "proposer_prefs has no column 'rank'"),
    "null id": (lambda pp, ap: (pp, ap.assign(proposer=[1, None, 1])),
                ValueError, r"acceptor_prefs column 'proposer' has 1 null value\(s\); first is row 1"),
    "null rank": (lambda pp, ap: (pp.assign(rank=[1.0, np.nan, 1.0]), ap),
                  ValueError, r"proposer_prefs column 'rank' has 1 null value\(s\); first is row 1"),
    "text rank": (lambda pp, ap: (pp.assign(rank=pd.Series([1, "two", 1], dtype=object)), ap),
                  TypeError, r"rank column 'rank' has 1 non-numeric value\(s\); first is row 1"),
    "bool rank": (lambda pp, ap: (pp.assign(rank=[True, False, True]), ap),
                  TypeError, "must be numeric .* got dtype bool"),
    "infinite rank": (lambda pp, ap: (pp, ap.assign(rank=[1.0, np.inf, 1.0])),
                      ValueError, r"has 1 infinite value\(s\); first is row 1"),
    "repeated entry": (lambda pp, ap: (pd.concat([pp, pp.iloc[[0]].assign(rank=9)],
                                                 ignore_index=True), ap),
                       ValueError, r"proposer_prefs: proposer 1 lists acceptor 1 more than once "
                                   r"\(rows 0 and 3\)"),
    "repeated rank": (lambda pp, ap: (pp, ap.assign(rank=[1, 1, 1])),
                      ValueError, r"acceptor_prefs: acceptor 1 gives rank 1 to more than one "
                                  r"proposer \(1 in row 0 and 2 in row 1\)"),
    # an index of NumPy ints (not a RangeIndex): rows named as plain ints, not np.int64(0)
    "repeated entry, concatenated index": (
        lambda pp, ap: (pd.concat([pp, pp.iloc[[0]].assign(rank=9)]), ap),
        ValueError, r"more than once \(rows 0 and 0, at positions 0 and 3\); each list"),
    "repeated rank, labelled index": (
        lambda pp, ap: (pp, ap.assign(rank=[1, 1, 1]).set_axis(pd.Index([10, 11, 12]))),
        ValueError, r"\(1 in row 10 and 2 in row 11\); ranks within"),
    "both empty": (lambda pp, ap: (pp.iloc[:0], ap.iloc[:0]), ValueError, "both empty"),
    "not a frame": (lambda pp, ap: (pp.to_dict(), ap), TypeError,
                    "proposer_prefs must be a cuDF or pandas DataFrame"),
    "mixed ids": (lambda pp, ap: (pp.assign(proposer=pd.Series([1, "b", 2], dtype=object)), ap),
                  TypeError, "proposer ids cannot be ordered"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
@pytest.mark.parametrize("function", ["stable_marriage", "b_marriage", "popular_matching"])
def test_bad_preferences(case, function):
    make, error, message = BAD[case]
    pp, ap = make(*_frames())
    with pytest.raises(error, match=message):
        getattr(cm, function)(pp, ap, **CPU)


def test_bad_arguments():
    pp, ap = _frames()
    with pytest.raises(ValueError, match="algorithm must be 'mcvitie_wilson' or 'gale_shapley'"):
        cm.stable_marriage(pp, ap, algorithm="roth", **CPU)
    with pytest.raises(ValueError, match="backend must be"):
        cm.stable_marriage(pp, ap, backend="tpu")
    from cugraph_match.structure.checks import check_launch

    with pytest.raises(ValueError, match="threads_per_block must be a multiple of 32"):
        check_launch(48, whole_warps=True, non_negative={"solo_entries": 4})
    with pytest.raises(ValueError, match="solo_entries must be non-negative"):
        check_launch(64, whole_warps=True, non_negative={"solo_entries": -1})


@pytest.mark.parametrize("orders,error,message", [
    (([0, 1, 1], [0, 1, 2]), ValueError, r"proposer_order must be a permutation of 0..2; 2 is missing"),
    (([0, 1, 2], [0, 5, 2]), ValueError, r"acceptor_order must be a permutation of 0..2; position 1 holds 5"),
    (([0.0, 1.0], [0, 1]), TypeError, "proposer_order must be a 1-D integer array"),
    (([], [0]), ValueError, "proposer_order is empty"),
])
def test_bad_master_lists(orders, error, message):
    with pytest.raises(error, match=message):
        cm.stable_marriage_master_lists(np.array(orders[0]), np.array(orders[1]), **CPU)


@pytest.mark.parametrize("order,message", [
    ([[0, 1], [0]], "got a list that is not one"),     # NumPy's inhomogeneous-shape error
    (None, "got NoneType"),
    ({0: 1}, "got dict"),
    (["1", "0"], "got 1-D <U1"),
    ([2**70, 0], "got 1-D object"),
])
def test_master_lists_that_are_not_integer_arrays(order, message):
    with pytest.raises(TypeError, match=f"proposer_order must be a 1-D integer array, {message}"):
        cm.stable_marriage_master_lists(order, np.array([0, 1]), **CPU)


def test_master_lists_with_nulls_are_named():
    """A nullable Int64 order with a null was refused as "got 1-D float64"
    (NumPy's reading of it; before 2026-11-28); without nulls it is read."""
    with pytest.raises(ValueError, match=r"^proposer_order has 1 null value\(s\); first at "
                                         r"position 1$"):
        cm.stable_marriage_master_lists(pd.array([2, None, 1], dtype="Int64"),
                                        np.array([1, 2, 0]), **CPU)
    np.testing.assert_array_equal(
        cm.stable_marriage_master_lists(pd.Series([2, 0, 1], dtype="Int64"), np.array([1, 2, 0]),
                                        **CPU),
        cm.stable_marriage_master_lists(np.array([2, 0, 1]), np.array([1, 2, 0]), **CPU))


@pytest.mark.parametrize("capacity,error,message", [
    (-1, ValueError, "acceptor_capacity must be non-negative"),
    (1.5, TypeError, "acceptor_capacity must be an integer"),
    (pd.Series([1], index=[1]), ValueError,
     r"acceptor_capacity gives no capacity for 1 acceptor\(s\) of the preferences; first is 2"),
    (pd.Series([1, -2], index=[1, 2]), ValueError,
     r"1 negative capacity value\(s\); first is row 1 \(acceptor=2, capacity=-2\)"),
    (pd.Series([1.5, 2.0], index=[1, 2]), TypeError,
     r"acceptor_capacity: 1 capacity value\(s\) are not integers; first is row 0"),
    (pd.Series(["1", "2"], index=[1, 2]), TypeError, "capacity value"),
    (pd.Series([1, 2, 3], index=[1, 2, 1]), ValueError, "gives acceptor 1 more than one capacity"),
    (pd.DataFrame({"acceptor": [1, 2], "cap": [1, 1]}), ValueError,
     "acceptor_capacity has no column 'capacity'"),
    (pd.Series([1, 2], index=["x", "y"]), (TypeError, ValueError), "acceptor"),
    # pandas' merge advice ("you should use pd.concat") was passed on (before 2026-11-28)
    (pd.Series([1, 2], index=["x", "y"]), TypeError,
     r"^acceptor_capacity ids \(str\) do not have the type of the acceptor ids in the "
     r"preferences \(int64\)$"),
    # NumPy's isfinite refused a Fraction ("ufunc 'isfinite' not supported")
    (Fraction(5, 2), TypeError, r"acceptor_capacity must be an integer \(an integral number\), "
                                r"got Fraction\(5, 2\)"),
    (pd.Series([Fraction(1), Fraction(3, 2)], index=[1, 2], dtype=object), TypeError,
     r"1 capacity value\(s\) are not integers; first is row 1"),
])
def test_bad_capacities(capacity, error, message):
    pp, ap = _frames()
    with pytest.raises(error, match=message):
        cm.b_marriage(pp, ap, acceptor_capacity=capacity, **CPU)


def test_integral_fractions_and_float16_capacities_are_read():
    pp, ap = _frames()
    expected = cm.b_marriage(pp, ap, acceptor_capacity=2, **CPU)
    pd.testing.assert_frame_equal(cm.b_marriage(pp, ap, acceptor_capacity=Fraction(2), **CPU),
                                  expected)
    for capacity in (pd.Series([Fraction(2), Fraction(4, 2)], index=[1, 2], dtype=object),
                     pd.Series([2, 2], index=[1, 2], dtype=np.float16)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # float16: the ceiling's clip overflowed (a warning)
            result = cm.b_marriage(pp, ap, acceptor_capacity=capacity, **CPU)
        pd.testing.assert_frame_equal(result, expected)


@pytest.mark.parametrize("pairs", [
    pd.DataFrame({"proposer": [1.5], "acceptor": [2.0]}),      # cast to 1: a pair the caller
    pd.DataFrame({"proposer": [True], "acceptor": [False]}),    # did not give was checked
    pd.DataFrame({"proposer": ["1"], "acceptor": ["2"]}),
])
def test_blocking_pairs_does_not_cast_ids_into_other_people(pairs):
    pp, ap = _frames()
    with pytest.raises((ValueError, TypeError)) as info:
        cm.blocking_pairs(pp, ap, pairs, **CPU)
    assert "not a mutually acceptable pair" in str(info.value) or \
        "cannot be ordered (mixed types" in str(info.value)


def test_blocking_pairs_names_the_callers_ids():
    pp, ap = _frames()
    unsigned = [f.astype({"proposer": np.uint64}) for f in (pp, ap)]
    with pytest.raises(ValueError, match=r"pairs row 0 \(proposer=-1, acceptor=1\) is not a"):
        cm.blocking_pairs(*unsigned, pd.DataFrame({"proposer": [-1], "acceptor": [1]}), **CPU)
    # the pair's check before the capacities': 7 is not one of the proposers
    with pytest.raises(ValueError, match=r"pairs row 0 \(proposer=7, acceptor=1\) is not a"):
        cm.blocking_pairs(pp, ap, pd.DataFrame({"proposer": [7], "acceptor": [1]}),
                          proposer_capacity=pd.Series([1, 1], index=[1, 2]), **CPU)
    # ids the nulls of singles made float or object are the preferences' again
    singles = pd.DataFrame({"proposer": [1, 2], "acceptor": [1.0, np.nan]})
    assert cm.blocking_pairs(pp, ap, singles, **CPU).to_dict("list") == \
        cm.blocking_pairs(pp, ap, singles.dropna().astype(np.int64), **CPU).to_dict("list")


def test_bad_pairs_for_blocking_pairs():
    pp, ap = _frames()
    with pytest.raises(ValueError, match=r"pairs row 0 \(proposer=2, acceptor=2\) is not a mutually"):
        cm.blocking_pairs(pp, ap, pd.DataFrame({"proposer": [2], "acceptor": [2]}), **CPU)
    with pytest.raises(ValueError, match=r"pairs row 7 \(proposer=2, acceptor=2\) is not a"):
        cm.blocking_pairs(pp, ap, pd.DataFrame({"proposer": [2], "acceptor": [2]},
                                               index=pd.Index([7])), **CPU)
    with pytest.raises(ValueError, match=r"lists the pair \(1, 1\) more than once"):
        cm.blocking_pairs(pp, ap, pd.DataFrame({"proposer": [1, 1], "acceptor": [1, 1]}),
                          proposer_capacity=2, acceptor_capacity=2, **CPU)
    with pytest.raises(ValueError, match="gives proposer 1 2 partners, over the capacity 1"):
        cm.blocking_pairs(pp, ap, pd.DataFrame({"proposer": [1, 1], "acceptor": [1, 2]}), **CPU)
    with pytest.raises(ValueError, match="pairs must be a DataFrame with columns"):
        cm.blocking_pairs(pp, ap, pd.DataFrame({"p": [1]}), **CPU)
    with pytest.raises(ValueError, match="pairs column 'proposer' has 1 null"):
        cm.blocking_pairs(pp, ap, pd.DataFrame({"proposer": [None], "acceptor": [1]}), **CPU)


@pytest.mark.parametrize("args,message", [
    ((0, "easy"), "n must be a positive integer"),
    ((5, "medium"), "kind must be 'easy' or 'hard'"),
    ((5000, "hard"), "frames are built up to n=4096"),
])
def test_bad_dataset_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        stable_marriage_instance(*args)


# --------------------------------------------------------------------------
# b-marriage
# --------------------------------------------------------------------------


def _capacity_forms(rng, ids, side, max_cap):
    caps = {i: rng.randint(0, max_cap) for i in ids}
    form = rng.choice(["scalar", "series", "frame"])
    if form == "scalar":
        c = rng.randint(0, max_cap)
        return c, {i: c for i in ids}
    series = pd.Series(list(caps.values()), index=pd.Index(list(caps), dtype=object
                       if any(isinstance(i, str) for i in ids) else None))
    if form == "series":
        return series, caps
    return pd.DataFrame({side: series.index, "capacity": series.to_numpy()}), caps


@HYP
@given(case=O.instances(max_people=7), seed=st.integers(0, 10**6))
def test_b_marriage_equals_reference_and_is_stable(case, seed):
    P, A, pp, ap = case
    rng = random.Random(seed)
    p_arg, p_cap = _capacity_forms(rng, list(P), "proposer", 3)
    a_arg, a_cap = _capacity_forms(rng, list(A), "acceptor", 3)
    expected = O.b_marriage(P, A, p_cap, a_cap)
    for algorithm in ALGORITHMS:
        out = cm.b_marriage(pp, ap, p_arg, a_arg, algorithm=algorithm, **CPU)
        got = O.pairs_from_frame(out)
        assert got == expected
        assert len(out) == len(got), "no pair twice"
        for p in P:
            assert sum(q == p for q, _ in got) <= p_cap[p]
        for a in A:
            assert sum(b == a for _, b in got) <= a_cap[a]
        assert O.blocking_pairs(P, A, got, p_cap, a_cap) == []
        assert cm.blocking_pairs(pp, ap, out, proposer_capacity=p_arg, acceptor_capacity=a_arg,
                                 **CPU).empty
        keys = list(zip(out["proposer"], out["acceptor"]))
        assert keys == sorted(keys, key=lambda k: (k[0], k[1])), "sorted by proposer, acceptor"


@HYP
@given(case=O.instances(max_people=7))
def test_b_marriage_with_capacity_one_is_stable_marriage(case):
    P, A, pp, ap = case
    stable = O.pairs_from_frame(cm.stable_marriage(pp, ap, **CPU))
    assert O.pairs_from_frame(cm.b_marriage(pp, ap, 1, 1, **CPU)) == stable
    # the general slot kernels (not the single-capacity shortcut) agree too
    prep = prepare_preferences(pp, ap, backend="cpu")
    be = prep.backend
    ones_p = np.ones(prep.n_proposers, dtype=np.int64)
    ones_a = np.ones(prep.n_acceptors, dtype=np.int64)
    for algorithm in ALGORITHMS:
        p, a, _ = run_b_marriage(prep.layout(), be, ones_p, ones_a, algorithm,
                                 allow_single_capacity=False)
        assert {(prep.proposer_labels[i], prep.acceptor_labels[j])
                for i, j in zip(p.tolist(), a.tolist())} == stable


@pytest.mark.parametrize("n,b", [(200, 3), (500, 5), (60, 2)])
def test_b_marriage_generated_instances(n, b):
    pp, ap = stable_marriage_instance(n, "easy", seed=b)
    out = cm.b_marriage(pp, ap, b, b, **CPU)
    assert out.equals(cm.b_marriage(pp, ap, b, b, algorithm="gale_shapley", **CPU))
    P, A = O.lists_from_frames(pp, ap)
    assert O.pairs_from_frame(out) == O.b_marriage(P, A, dict.fromkeys(P, b), dict.fromkeys(A, b))
    assert cm.blocking_pairs(pp, ap, out, proposer_capacity=b, acceptor_capacity=b, **CPU).empty


def test_college_admissions_equals_stable_marriage_on_cloned_colleges():
    rng = random.Random(3)
    P, A = O.random_lists(rng, 12, 4, density=0.8, mutual=0.9)
    cap = {a: rng.randint(1, 3) for a in A}
    pp, ap = O.frames_from_lists(P, A)
    got = O.pairs_from_frame(cm.b_marriage(pp, ap, 1, pd.Series(cap), **CPU))
    clones_P = {p: [(a, k) for a in lst for k in range(cap[a])] for p, lst in P.items()}
    clones_A = {(a, k): lst for a, lst in A.items() for k in range(cap[a])}
    cloned = O.gale_shapley(clones_P, clones_A)
    assert got == {(p, c[0]) for p, c in cloned.items() if c is not None}


# --------------------------------------------------------------------------
# popular matching
# --------------------------------------------------------------------------


@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=O.instances(max_people=4))
def test_popular_matching_is_popular_and_maximum_by_brute_force(case):
    P, A, pp, ap = case
    candidates = O.all_matchings(P, A)
    results = [O.matching_from_frame(cm.popular_matching(pp, ap, algorithm=alg, **CPU))
               for alg in ALGORITHMS]
    assert results[0] == results[1] == O.huang_kavitha(P, A)
    pop = results[0]
    assert pop in candidates, "a matching of mutually acceptable pairs"
    assert O.is_popular(P, A, pop, candidates)
    largest_popular = max(O.size(m) for m in candidates if O.is_popular(P, A, m, candidates))
    assert O.size(pop) == largest_popular
    assert O.size(pop) >= O.size(sm(pp, ap))


@HYP
@given(case=O.instances(max_people=8))
def test_popular_matching_equals_reference(case):
    P, A, pp, ap = case
    pop = O.matching_from_frame(cm.popular_matching(pp, ap, **CPU))
    assert pop == O.huang_kavitha(P, A)
    assert O.size(pop) >= O.size(sm(pp, ap))


def test_popular_equals_stable_on_complete_lists():
    pp, ap = stable_marriage_instance(40, "hard", seed=2)
    assert cm.popular_matching(pp, ap, **CPU).equals(cm.stable_marriage(pp, ap, **CPU))
    P, A = O.complete_lists(random.Random(5), 9)
    pp, ap = O.frames_from_lists(P, A)
    assert cm.popular_matching(pp, ap, **CPU).equals(cm.stable_marriage(pp, ap, **CPU))


def test_popular_on_easy_instance_lifts_few_and_grows():
    pp, ap = stable_marriage_instance(3000, "easy", seed=9)
    stable = cm.stable_marriage(pp, ap, **CPU)["acceptor"].notna().sum()
    popular = cm.popular_matching(pp, ap, **CPU)["acceptor"].notna().sum()
    assert stable < popular <= 3000
    P, A = O.lists_from_frames(pp, ap)
    assert O.size(O.huang_kavitha(P, A)) == popular


# --------------------------------------------------------------------------
# greedy matching = stable marriage on the doubled graph (Manne et al., Lemma 3.1)
# --------------------------------------------------------------------------


def doubled_graph_preferences(edges):
    """Proposer i and acceptor i per vertex; both rank neighbours by decreasing weight,
    ties to the larger id (the project's order).  Duplicate edges keep the largest weight."""
    best = {}
    for u, v, w in zip(edges["src"], edges["dst"], edges["weight"]):
        if u != v:
            key = (min(u, v), max(u, v))
            best[key] = max(best.get(key, -np.inf), float(w))
    nbrs = {}
    for (u, v), w in best.items():
        nbrs.setdefault(u, []).append((w, v))
        nbrs.setdefault(v, []).append((w, u))
    lists = {u: [x for _, x in sorted(lst, reverse=True)] for u, lst in nbrs.items()}
    return O.frames_from_lists(lists, lists, shuffle_seed=1)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 30), m=st.integers(1, 80),
       tied=st.booleans())
def test_greedy_matching_reduction_reproduces_suitor(seed, n, m, tied):
    rng = np.random.default_rng(seed)
    edges = pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m),
                          "weight": (rng.integers(1, 4, m) if tied else rng.random(m) + 0.01)
                          .astype(np.float64)})
    if (edges["src"] == edges["dst"]).all():
        return
    suitor = cm.suitor_matching(edges, backend="cpu")
    expected = {v: m for v, m in zip(suitor["vertex"], suitor["mate"]) if not pd.isna(m)}
    assert expected == {v: m for v, (m, _) in greedy_matching(edges["src"], edges["dst"],
                                                             edges["weight"]).items()
                        if m is not None}
    pp, ap = doubled_graph_preferences(edges)
    for algorithm in ALGORITHMS:
        got = {p: a for p, a in sm(pp, ap, algorithm).items() if a is not None}
        assert got == expected


# --------------------------------------------------------------------------
# the instance generator
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5, 64, 1000])
def test_easy_instance_shape(n):
    pp, ap = stable_marriage_instance(n, "easy", seed=3)
    k = max(1, int(np.floor(np.log2(n)))) if n > 1 else 1
    lengths = pp.groupby("proposer").size()
    assert len(lengths) == n
    assert lengths.min() >= min(k, n) and lengths.max() <= min(2 * k - 1, n)
    assert not pp.duplicated(["proposer", "acceptor"]).any()
    for frame, person in ((pp, "proposer"), (ap, "acceptor")):
        ranks = frame.sort_values([person, "rank"]).groupby(person)["rank"].apply(list)
        assert all(r == list(range(1, len(r) + 1)) for r in ranks)
    mutual = set(zip(pp["proposer"], pp["acceptor"]))
    assert mutual == set(zip(ap["proposer"], ap["acceptor"])), "acceptors rank their suitors"
    again = stable_marriage_instance(n, "easy", seed=3)
    assert again[0].equals(pp) and again[1].equals(ap)


def test_easy_instance_statistics():
    n = 20000
    pp, ap = stable_marriage_instance(n, "easy", seed=0)
    k = int(np.log2(n))
    assert abs(len(pp) / n - (1.5 * k - 0.5)) < 0.1
    matched = cm.stable_marriage(pp, ap, **CPU)["acceptor"].notna().mean()
    assert 0.96 < matched < 0.995  # the thesis reports about 98 %


def test_hard_instance_frames_are_the_master_lists():
    p_order, a_order = stable_marriage_master_lists(6, seed=11)
    pp, ap = stable_marriage_instance(6, "hard", seed=11)
    assert len(pp) == len(ap) == 36
    for p, group in pp.groupby("proposer"):
        assert group.sort_values("rank")["acceptor"].tolist() == p_order.tolist()
    for a, group in ap.groupby("acceptor"):
        assert group.sort_values("rank")["proposer"].tolist() == a_order.tolist()


def test_capacities_helper_maps_ids():
    labels = pd.Series(["a", "b", "c"])
    caps = capacities(pd.DataFrame({"acceptor": ["c", "a", "b", "zz"], "capacity": [3, 1, 2, 9]}),
                      labels, "acceptor", "acceptor", pd, np, "acceptor_capacity")
    assert caps.tolist() == [1, 2, 3]


RANK_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.float32, np.float64]


@pytest.mark.parametrize("dtype", RANK_DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_rank_dtype_keeps_the_order_of_its_values(dtype):
    """The CPU build reads ranks as int64 or float64 (one compilation per
    kind); each dtype's own order must survive: negative ranks, and uint64
    ranks on both sides of 2**63 (mapped by flipping the top bit)."""
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    n = 7
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    # distinct values spread over the type's range, lowest and highest included
    pool = (np.linspace(float(info.min), float(info.max), 40) if info is not None
            else np.linspace(-1e30 if dtype == np.float32 else -1e300, 1e30, 40))
    values = np.unique(pool.astype(dtype) if info is None or info.bits < 64 else
                       np.array([info.min, info.max, info.max - 1, info.min + 1, 0, 1, 5,
                                 info.max // 2, info.max // 2 + 1, info.max // 2 + 2, 2**40,
                                 2**62, 2**63 - 7 if dtype == np.int64 else 2**63 + 7, 17],
                                dtype=dtype))
    assert len(values) >= n

    def side(person, other):
        rows = []
        for p in range(n):
            ranks = rng.choice(values, n, replace=False)
            rows += [(p, o, r) for o, r in zip(rng.permutation(n), ranks)]
        frame = pd.DataFrame(rows, columns=[person, other, "rank"])
        return frame.astype({"rank": dtype})

    pp, ap = side("proposer", "acceptor"), side("acceptor", "proposer")
    # dense int64 ranks from NumPy's exact sort of the values themselves
    dense = {"rank": lambda f: np.unique(f["rank"].to_numpy(), return_inverse=True)[1]
             .reshape(-1).astype(np.int64)}
    expected = cm.stable_marriage(pp.assign(**dense), ap.assign(**dense), **CPU)
    assert pp["rank"].dtype == dtype
    assert cm.stable_marriage(pp, ap, **CPU).equals(expected)


def _two_choice_prefs(men_rank):
    men = pd.DataFrame({"proposer": [0, 0], "acceptor": [0, 1], "rank": men_rank})
    women = pd.DataFrame({"acceptor": [0, 1], "proposer": [0, 0], "rank": [1, 1]})
    return men, women


def test_categorical_ranks_are_read_by_value_not_category_order():
    """A categorical rank was ranked by its category order: categories [2, 1]
    made rank 2 the first choice, so the proposer married his second choice,
    and blocking_pairs called the stable matching unstable."""
    plain = _two_choice_prefs([2, 1])
    odd = _two_choice_prefs(pd.Categorical([2, 1], categories=[2, 1]))
    expected = cm.stable_marriage(*plain, backend="cpu")
    assert expected["acceptor"].tolist() == [1]
    for f in (lambda m, w: cm.stable_marriage(m, w, backend="cpu"),
              lambda m, w: cm.stable_marriage(m, w, algorithm="gale_shapley", backend="cpu"),
              lambda m, w: cm.b_marriage(m, w, backend="cpu"),
              lambda m, w: cm.popular_matching(m, w, backend="cpu")):
        pd.testing.assert_frame_equal(f(*odd), f(*plain))
    assert len(cm.blocking_pairs(*odd, expected, backend="cpu")) == 0
    with pytest.raises(TypeError, match="non-numeric"):  # categories of text are no ranks
        cm.stable_marriage(*_two_choice_prefs(pd.Categorical(["b", "a"])), backend="cpu")


def test_bool_acceptor_ids_with_a_single_proposer_are_nullable_booleans():
    """An unmatched proposer's acceptor made a bool column object, holding NaN."""
    men = pd.DataFrame({"proposer": [True, False], "acceptor": [True, True], "rank": [1, 1]})
    women = pd.DataFrame({"acceptor": [True, True], "proposer": [True, False], "rank": [1, 2]})
    for f in (cm.stable_marriage, cm.popular_matching):
        out = f(men, women, backend="cpu")
        assert out["acceptor"].dtype == "boolean"
        assert out["acceptor"].isna().tolist() == [True, False]  # False is single
        assert out["acceptor"].iloc[1] is np.True_ or bool(out["acceptor"].iloc[1]) is True


@pytest.mark.parametrize("columns", [dict(proposer="acceptor"), dict(acceptor="proposer"),
                                     dict(rank="proposer"), dict(rank="acceptor")], ids=str)
def test_one_column_for_two_roles_is_refused(columns):
    """proposer="acceptor" read one column as both sides' ids: stable_marriage
    said an entry was repeated, blocking_pairs raised "int() argument must
    be ... not 'Series'"; rank="proposer" ranked by the ids, silently."""
    men, women = _two_choice_prefs([2, 1])
    pairs = pd.DataFrame({"proposer": [0], "acceptor": [1]})
    for call in (lambda: cm.stable_marriage(men, women, backend="cpu", **columns),
                 lambda: cm.b_marriage(men, women, backend="cpu", **columns),
                 lambda: cm.blocking_pairs(men, women, pairs, backend="cpu", **columns)):
        with pytest.raises(ValueError, match="name the same column"):
            call()


def test_blocking_pairs_names_a_repeated_pairs_column_and_a_list_as_a_column():
    men, women = _two_choice_prefs([2, 1])
    pairs = pd.DataFrame({"proposer": [0], "acceptor": [1]})
    twice = pd.concat([pairs, pairs[["acceptor"]]], axis=1)
    with pytest.raises(ValueError, match=r"pairs: column 'acceptor' appears 2 times"):
        cm.blocking_pairs(men, women, twice, backend="cpu")
    with pytest.raises(TypeError, match=r"proposer must be a column name \(a str, say\), got list"):
        cm.stable_marriage(men, women, proposer=["proposer"], backend="cpu")


def test_blocking_pairs_of_categorical_ids_return_their_values_dtype():
    """With categorical ids and a single in the pairs (a nullable column), the
    blocking pairs came back Int64 where b_marriage gives int64."""
    cat = pd.CategoricalDtype([1, 0])
    men = pd.DataFrame({"proposer": pd.Series([0, 0, 1], dtype=cat),
                        "acceptor": pd.Series([0, 1, 0], dtype=cat), "rank": [1, 2, 1]})
    women = pd.DataFrame({"acceptor": pd.Series([0, 0, 1], dtype=cat),
                          "proposer": pd.Series([1, 0, 0], dtype=cat), "rank": [1, 2, 1]})
    single = pd.DataFrame({"proposer": [0, 1], "acceptor": pd.array([1, None], dtype="Int64")})
    blocking = cm.blocking_pairs(men, women, single, backend="cpu")
    assert len(blocking)
    expected = cm.b_marriage(men, women, backend="cpu").dtypes
    assert blocking.dtypes.tolist() == expected.tolist()
