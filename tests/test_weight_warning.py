"""An edge list without a ``weight`` column is unweighted; when it has another
numeric column a warning names it (``weight=None`` says "unweighted" and silences it)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm

EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})


def no_warning(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


@pytest.mark.parametrize("extra", [
    {"w": [1.0, 5.0, 1.0]},
    {"w": np.array([1, 5, 1], dtype=np.uint8)},
    {"w": pd.array([1, 5, 1], dtype="Int64")},
])
def test_another_numeric_column_is_named(extra):
    edges = EDGES.assign(**extra)
    with pytest.warns(UserWarning) as record:
        got = cm.suitor_matching(edges, backend="cpu")
    assert len(record) == 1
    message = str(record[0].message)
    assert "no 'weight' column" in message and "['w']" in message
    assert "weight='w'" in message and "weight=None" in message
    assert record[0].filename == __file__  # it points at the caller's line
    # still unweighted, as before: the same result as weight=None
    pd.testing.assert_frame_equal(got, no_warning(
        lambda: cm.suitor_matching(edges, weight=None, backend="cpu")))
    # ... and the named column gives the weighted result
    weighted = no_warning(lambda: cm.suitor_matching(edges, weight="w", backend="cpu"))
    assert weighted["mate"].tolist()[1:3] == [2, 1]


def test_every_numeric_column_is_named_in_order():
    edges = EDGES.assign(time=[3, 2, 1], label=["a", "b", "c"], score=[0.5, 0.2, 0.1],
                         flag=[True, False, True])
    with pytest.warns(UserWarning, match=r"numeric column\(s\) \['time', 'score'\]: pass "
                                         r"weight='time'"):
        cm.Graph(edges, backend="cpu")


@pytest.mark.parametrize("edges", [
    EDGES,  # nothing else
    EDGES.assign(label=["a", "b", "c"], flag=[True, False, True]),  # nothing numeric
    EDGES.assign(weight=[1.0, 2.0, 3.0], w=[1.0, 2.0, 3.0]),  # a weight column is there
])
def test_no_warning_when_nothing_was_meant(edges):
    no_warning(lambda: cm.suitor_matching(edges, backend="cpu"))


def test_weight_none_silences_it():
    edges = EDGES.assign(w=[1.0, 5.0, 1.0])
    no_warning(lambda: cm.suitor_matching(edges, weight=None, backend="cpu"))
    no_warning(lambda: cm.Graph(edges, weight=None, backend="cpu"))
    no_warning(lambda: cm.louvain(edges, weight=None, backend="cpu"))


def test_ids_named_otherwise_are_not_counted():
    edges = pd.DataFrame({"a": [0, 1], "b": [1, 2]})
    no_warning(lambda: cm.suitor_matching(edges, source="a", destination="b", backend="cpu"))
    with pytest.warns(UserWarning, match=r"\['src'\]"):  # a numeric column not used as ids
        cm.suitor_matching(edges.assign(src=[7, 8]), source="a", destination="b",
                           backend="cpu")
