"""Dtypes neither CuPy nor the numba kernels read (longdouble, float16, a
byte-swapped order) are converted where they come in, on both backends.

CuPy has no longdouble arrays (``cupy.asarray`` raises "Unsupported dtype"),
so weights, weight matrices and points are cast to float64 before they move
to the device (found by the CuPy stand-in); stable-marriage ranks of these
dtypes crashed the CPU kernels (a Numba typing error) and are now read as
float64 (float16), in native order (byte-swapped), or as dense ranks from
NumPy's exact sort (longdouble: float64 could merge two ranks).  Every result
equals the one for the same values in a plain dtype.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cupy_standin import installed

EDGES = pd.DataFrame({"src": [0, 0, 1, 2, 3], "dst": [1, 2, 2, 3, 0],
                      "weight": [3.0, 1.0, 2.0, 5.0, 4.0]})
MATRIX = np.array([[0, 1, 5, 1], [1, 0, 1, 5], [5, 1, 0, 1], [1, 5, 1, 0]], dtype=np.float64)
POINTS = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [1.0, 2.5]])
ODD = [np.longdouble, np.float16, np.dtype(">f8"), np.dtype(">i4")]


def _prefs(dtype):
    ranks = np.array([1, 2, 1, 2], dtype=np.float64)
    pp = pd.DataFrame({"proposer": [0, 0, 1, 1], "acceptor": [0, 1, 0, 1],
                       "rank": ranks.astype(dtype)})
    ap = pd.DataFrame({"acceptor": [0, 0, 1, 1], "proposer": [1, 0, 0, 1],
                       "rank": ranks.astype(dtype)})
    return pp, ap


@pytest.mark.parametrize("dtype", ODD, ids=str)
def test_rank_dtypes_on_the_cpu(dtype):
    if np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize > 8 and \
            np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant:
        pytest.skip("longdouble is float64 on this platform")
    expected = cm.stable_marriage(*_prefs(np.float64), backend="cpu")
    assert cm.stable_marriage(*_prefs(dtype), backend="cpu").equals(expected)


def test_longdouble_ranks_are_not_merged():
    """Proposer 0 prefers acceptor 1 by 2**-60, which float64 cannot hold: both
    acceptors prefer him, so that tiny preference decides who he marries."""
    if np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant:
        pytest.skip("longdouble is float64 on this platform")
    close = np.array([1, 1, 1, 2], dtype=np.longdouble) + \
        np.array([2**-60, 0, 0, 0], dtype=np.longdouble)
    pp = pd.DataFrame({"proposer": [0, 0, 1, 1], "acceptor": [0, 1, 0, 1], "rank": close})
    ap = pd.DataFrame({"acceptor": [0, 0, 1, 1], "proposer": [0, 1, 0, 1],
                       "rank": np.array([1, 2, 1, 2], dtype=np.longdouble)})
    with pytest.raises(ValueError, match="rank"):  # as float64 the two ranks tie
        cm.stable_marriage(pp.assign(rank=close.astype(np.float64)), ap, backend="cpu")
    assert cm.stable_marriage(pp, ap, backend="cpu")["acceptor"].tolist() == [1, 0]


def _calls(dtype):
    weighted = EDGES.assign(weight=EDGES["weight"].astype(dtype))
    return lambda be: (cm.suitor_matching(weighted, backend=be, threads_per_block=32),
                       cm.stable_marriage(*_prefs(dtype), backend=be, threads_per_block=32))


@pytest.mark.cudasim
@pytest.mark.parametrize("dtype", ODD, ids=str)
def test_odd_dtypes_on_the_stand_in(dtype):
    call = _calls(dtype)
    with installed():
        matching, marriage = call("gpu")
        roma = cm.roma_matching(MATRIX.astype(dtype) if np.dtype(dtype).kind == "f" else MATRIX,
                                backend="gpu", threads_per_block=32)
        geometric = cm.roma_matching(points=POINTS.astype(dtype) if np.dtype(dtype).kind == "f"
                                     else POINTS, backend="gpu", threads_per_block=32)
    expected = _calls(np.float64)("cpu")
    pd.testing.assert_frame_equal(matching, expected[0])
    pd.testing.assert_frame_equal(marriage, expected[1])
    for result in (roma, geometric):
        assert result["mate"].notna().all()
        mate = result["mate"].astype(int).to_numpy()
        assert (mate[mate] == np.arange(4)).all()


LONGDOUBLE_IS_WIDER = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


@pytest.mark.skipif(not LONGDOUBLE_IS_WIDER, reason="longdouble is float64 on this platform")
@pytest.mark.parametrize("value, meaning", [
    (np.longdouble(1) + np.longdouble(2) ** -60, "rounded: tied with 1"),
    (np.longdouble("1e4000"), "finite, overflowing to inf"),
    (np.longdouble("1e-4000"), "positive, underflowing to 0")], ids=str)
def test_longdouble_weights_float64_cannot_hold_are_refused(value, meaning):
    """Weights are computed in float64: a longdouble weight that float64 rounds
    was cast after validation, so 1 + 2**-60 tied with 1 (the lighter edge
    matched), 1e4000 became inf (reported as infinite: it is not) and 1e-4000
    became 0 (the assignment dropped a positive pair).  Now refused, naming
    the column, the count and the first row, before any cast."""
    frame = pd.DataFrame({"src": [0, 1], "dst": [1, 2],
                          "weight": np.array([value, 1], dtype=np.longdouble)})
    before = frame.copy()
    message = r"weight column 'weight' has 1 longdouble value\(s\) that float64.*first is row 0"
    for call in (lambda: cm.suitor_matching(frame, backend="cpu"),
                 lambda: cm.louvain(frame, backend="cpu"),
                 lambda: cm.Graph(frame, backend="cpu"),
                 lambda: cm.assignment(frame, backend="cpu"),
                 lambda: cm.assignment(frame, maximize=True, backend="cpu"),
                 lambda: cm.suitor_matching(frame.astype({"weight": object}), backend="cpu")):
        with pytest.raises(TypeError, match=message):
            call()
    pd.testing.assert_frame_equal(frame, before)
    matrix = np.array([[value, 1], [1, value]], dtype=np.longdouble)
    with pytest.raises(TypeError, match=r"cost matrix has 2 longdouble entr\(y/ies\).*first at "
                                        r"row 0, column 0"):
        cm.assignment(matrix, maximize=True, backend="cpu")
    # the workaround the message names: float64 columns accept the rounding
    with np.errstate(over="ignore", under="ignore"):
        rounded = frame.astype({"weight": np.float64})
    if np.isfinite(rounded["weight"]).all() and (rounded["weight"] > 0).all():
        cm.suitor_matching(rounded, backend="cpu")


@pytest.mark.skipif(not LONGDOUBLE_IS_WIDER, reason="longdouble is float64 on this platform")
def test_longdouble_weights_float64_holds_are_read_as_before():
    exact = EDGES.assign(weight=EDGES["weight"].astype(np.longdouble))
    for f in (lambda g: cm.suitor_matching(g, backend="cpu"),
              lambda g: cm.assignment(g, maximize=True, backend="cpu")):
        pd.testing.assert_frame_equal(f(exact), f(EDGES), check_dtype=False)
    nan = exact.copy()
    nan.loc[2, "weight"] = np.longdouble("nan")
    with pytest.raises(ValueError, match=r"1 null/NaN value\(s\); first is row 2"):
        cm.suitor_matching(nan, backend="cpu")


@pytest.mark.skipif(not LONGDOUBLE_IS_WIDER, reason="longdouble is float64 on this platform")
def test_networkx_weights_float64_cannot_hold_are_refused():
    """A NetworkX graph's weights beside floats were cast to float64 without a
    check (before 2026-11-28): a longdouble 1 + 2**-60 tied with 1 and an
    integer 2**53 + 1 beside 1.5 became 2**53.  Now the same refusals as a
    DataFrame's, naming the edge; exact values are read as before."""
    import networkx as nx

    for wide, message in ((np.longdouble(1) + np.longdouble(2) ** -60,
                           r"1 longdouble value\(s\) that float64"),
                          (2**53 + 1, r"mixes floats with 1 integer weight\(s\) beyond 2\*\*53")):
        graph = nx.Graph([(0, 1, {"weight": 1.5}), (1, 2, {"weight": wide})])
        two_sided = nx.Graph([("a", "x", {"weight": 1.5}), ("b", "y", {"weight": wide})])
        nx.set_node_attributes(two_sided, {"a": 0, "b": 0, "x": 1, "y": 1}, "bipartite")
        with pytest.raises(TypeError, match=message + r".*first is row 1 \(src=1, dst=2"):
            cm.suitor_matching(graph, backend="cpu")
        with pytest.raises(TypeError, match=message):
            cm.suitor_matching(two_sided, bipartite=True, backend="cpu")
    exact = nx.Graph([(0, 1, {"weight": 1.5}), (1, 2, {"weight": np.longdouble(3)}),
                      (2, 3, {"weight": 2**53})])
    result = cm.suitor_matching(exact, backend="cpu")
    assert result["weight"].tolist() == [1.5, 1.5, 2.0**53, 2.0**53]


@pytest.mark.skipif(not LONGDOUBLE_IS_WIDER, reason="longdouble is float64 on this platform")
def test_roma_longdouble_matrix_and_points_float64_cannot_hold_are_refused():
    """ROMA cast longdouble weight matrices and points to float64 unchecked
    (before 2026-11-28); now the first value float64 would round is named.
    The diagonal of a matrix is never read, so it is not checked."""
    wide = np.longdouble(1) + np.longdouble(2) ** -60
    matrix = MATRIX.astype(np.longdouble)
    matrix[0, 0] = wide
    pd.testing.assert_frame_equal(cm.roma_matching(matrix, backend="cpu"),
                                  cm.roma_matching(MATRIX, backend="cpu"))
    matrix[1, 2] = matrix[2, 1] = wide
    with pytest.raises(TypeError, match=r"weight matrix has 2 longdouble value\(s\).*first is "
                                        r"W\[1, 2\]"):
        cm.roma_matching(matrix, backend="cpu")
    points = POINTS.astype(np.longdouble)
    points[3, 1] = np.longdouble("1e-4000")
    with pytest.raises(TypeError, match=r"points has 1 longdouble value\(s\).*first is "
                                        r"points\[3, 1\]"):
        cm.roma_matching(points=points, backend="cpu")
