"""The weight dtype of every output frame, as README's contract states it: float64,
float32 weights stay float32, an edge list without a weight column reports its
weights of 1 as float32, coarsen's summed weights are float64."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm

EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})

# function -> how it is called; each returns a frame with a weight column
MATCHINGS = {
    "suitor_matching": lambda g: cm.suitor_matching(g, backend="cpu"),
    "locally_dominant_matching": lambda g: cm.locally_dominant_matching(g, backend="cpu"),
    "b_suitor_matching": lambda g: cm.b_suitor_matching(g, b=2, backend="cpu"),
    "maximal_matching": lambda g: cm.maximal_matching(g, backend="cpu"),
    "roma_matching": lambda g: cm.roma_matching(g, backend="cpu"),
}


def numpy_kind(dtype) -> np.dtype:
    """The NumPy dtype of a column, nullable ones (Float32/Float64) included."""
    return np.dtype(getattr(dtype, "numpy_dtype", dtype))


@pytest.mark.parametrize("name", MATCHINGS)
@pytest.mark.parametrize("weight_dtype,expected", [
    (None, np.float32),  # no weight column: weights of 1, reported as float32
    (np.float32, np.float32),
    (np.float64, np.float64),
    (np.float16, np.float64),
    (np.int32, np.float64),
    (np.int64, np.float64),
    (np.uint64, np.float64),
])
def test_matching_weight_dtype(name, weight_dtype, expected):
    edges = EDGES if weight_dtype is None else \
        EDGES.assign(weight=np.array([1, 3, 1]).astype(weight_dtype))
    frame = MATCHINGS[name](edges)
    assert numpy_kind(frame["weight"].dtype) == expected
    assert frame["weight"].sum() > 0


@pytest.mark.parametrize("name", MATCHINGS)
@pytest.mark.parametrize("weight_dtype,expected", [
    (None, np.float32), (np.float32, np.float32), (np.float64, np.float64),
    (np.int64, np.float64)])
def test_a_graph_of_self_loops_only_keeps_the_weight_dtype(name, weight_dtype, expected):
    """No edge to match: every vertex unmatched, the weight column still of
    the input's dtype (the locally-dominant matching reported float32 for
    float64 weights)."""
    loops = pd.DataFrame({"src": [0, 1, 2], "dst": [0, 1, 2]})
    edges = loops if weight_dtype is None else \
        loops.assign(weight=np.array([1, 3, 1]).astype(weight_dtype))
    frame = MATCHINGS[name](edges)
    assert numpy_kind(frame["weight"].dtype) == expected


@pytest.mark.parametrize("name", MATCHINGS)
def test_networkx_without_weights_is_float64(name):
    # NetworkX's own rule: a missing weight attribute is weight 1, a Python int
    frame = MATCHINGS[name](nx.path_graph(4))
    assert numpy_kind(frame["weight"].dtype) == np.float64


@pytest.mark.parametrize("weight_dtype", [None, np.float32, np.int64])
def test_coarsen_sums_in_float64(weight_dtype):
    edges = EDGES if weight_dtype is None else \
        EDGES.assign(weight=np.array([1, 3, 1]).astype(weight_dtype))
    coarse, _ = cm.coarsen(edges, cm.suitor_matching(edges, backend="cpu"), backend="cpu")
    assert coarse["weight"].dtype == np.float64
