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
