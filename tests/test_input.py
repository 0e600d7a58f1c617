"""Input handling: every input kind, the graph semantics, validation, output format,
``cm.Graph`` and its rows and edge keys, backend selection, and the ``is_matching`` /
``matching_weight`` checkers.

All expected matchings below are worked out by hand from the greedy rule:
edge (u, v) beats (x, y) iff its weight is larger, or the weights are equal
and (max(u, v), min(u, v)) is larger in the sorted order of the vertex ids.
"""

from __future__ import annotations

import copy
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from cugraph_match.structure import backend as core
from cugraph_match.structure.edges import index_dtype

ALGORITHMS = {
    "suitor": cm.suitor_matching,
    "locally_dominant": cm.locally_dominant_matching,
}
KINDS = ["pandas", "networkx", "scipy"]

NA = None  # "unmatched" in the expected dicts


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def build(kind, edges, n=None, isolated=()):
    """The graph ``edges`` = [(u, v, w), ...] over int ids 0..n-1 as ``kind``.

    ``isolated`` vertices are added where the kind can hold them (networkx,
    scipy; for scipy every id below ``n`` is a vertex anyway).
    """
    us = [e[0] for e in edges]
    vs = [e[1] for e in edges]
    ws = [float(e[2]) for e in edges]
    if n is None:
        n = max(us + vs + list(isolated)) + 1
    if kind == "pandas":
        assert not isolated, "an edge list cannot hold isolated vertices"
        return pd.DataFrame({"src": us, "dst": vs, "weight": ws})
    if kind == "networkx":
        g = nx.Graph()
        g.add_nodes_from(isolated)
        for u, v, w in zip(us, vs, ws):
            g.add_edge(u, v, weight=w)
        return g
    if kind == "scipy":
        return sp.csr_matrix((np.asarray(ws), (np.asarray(us), np.asarray(vs))), shape=(n, n))
    raise AssertionError(kind)


def as_dict(frame):
    """{vertex: (mate or None, weight or None)}, in the frame's row order."""
    out = {}
    for v, m, w in zip(frame["vertex"], frame["mate"], frame["weight"]):
        out[v] = (None, None) if pd.isna(m) else (m, float(w))
    return out


def check_frame(result, expected):
    """``result`` is a well-formed pandas output frame equal to ``expected``."""
    assert isinstance(result, pd.DataFrame)
    assert list(result.columns) == ["vertex", "mate", "weight"]
    assert isinstance(result.index, pd.RangeIndex) and result.index.start == 0
    assert list(result["vertex"]) == sorted(expected), "one row per vertex, sorted by vertex"
    got = as_dict(result)
    for v, (mate, w) in expected.items():
        gm, gw = got[v]
        assert gm == mate, f"vertex {v!r}: mate {gm!r}, expected {mate!r}"
        if mate is None:
            assert gw is None
            assert pd.isna(result.loc[result["vertex"] == v, "weight"].iloc[0])
        else:
            assert gw == pytest.approx(w, rel=1e-6), f"vertex {v!r}: weight {gw}, expected {w}"


def matched(*pairs, unmatched=()):
    """Expected dict from (u, v, w) pairs and unmatched vertices."""
    out = {v: (None, None) for v in unmatched}
    for u, v, w in pairs:
        out[u] = (v, w)
        out[v] = (u, w)
    return out


def run_all(graph, **kwargs):
    """Both algorithms on ``graph``; asserts they agree and returns the result."""
    results = [f(graph, backend="cpu", **kwargs) for f in ALGORITHMS.values()]
    pd.testing.assert_frame_equal(results[0], results[1])
    return results[0]


def escape(*parts):
    """A regex requiring each part, literally, in order (anything in between)."""
    return ".*".join(re.escape(str(p)) for p in parts)


# --------------------------------------------------------------------------
# every input kind x both algorithms: small graphs with a known greedy matching
# --------------------------------------------------------------------------

# (name, edges, expected, isolated vertices or None when the case needs them)
CASES = {
    # the docstring example: the heavy middle edge wins, the ends stay single
    "path_heavy_middle": (
        [(0, 1, 1.0), (1, 2, 3.0), (2, 3, 1.0)],
        matched((1, 2, 3.0), unmatched=(0, 3)),
    ),
    # greedy is not optimal: 1-2 (3) blocks 0-1 + 2-3 (total 4)
    "greedy_not_optimal": (
        [(0, 1, 2.0), (1, 2, 3.0), (2, 3, 2.0)],
        matched((1, 2, 3.0), unmatched=(0, 3)),
    ),
    # equal weights: (2, 1) beats (1, 0)
    "tie_path": (
        [(0, 1, 1.0), (1, 2, 1.0)],
        matched((1, 2, 1.0), unmatched=(0,)),
    ),
    # equal weights on a 4-path: (3, 2) first, then (1, 0)
    "tie_path4": (
        [(1, 0, 1.0), (2, 1, 1.0), (3, 2, 1.0)],
        matched((2, 3, 1.0), (0, 1, 1.0)),
    ),
    # two weight-5 edges tie: (4, 3) before (2, 1); then 0-5 is left
    "tie_cycle6": (
        [(0, 1, 4.0), (1, 2, 5.0), (2, 3, 4.0), (3, 4, 5.0), (4, 5, 1.0), (0, 5, 2.0)],
        matched((3, 4, 5.0), (1, 2, 5.0), (0, 5, 2.0)),
    ),
    # the tie rule compares max endpoints first: (3, 0) beats (2, 1)
    "tie_max_endpoint_first": (
        [(0, 3, 2.0), (1, 2, 2.0), (0, 1, 2.0)],
        matched((0, 3, 2.0), (1, 2, 2.0)),
    ),
    # ... then min endpoints: (3, 1) beats (3, 0); 0 is left with 2
    "tie_min_endpoint_second": (
        [(3, 0, 2.0), (3, 1, 2.0), (0, 2, 1.0)],
        matched((1, 3, 2.0), (0, 2, 1.0)),
    ),
    # a vertex with only a self-loop is in the output, unmatched
    "self_loop_only_vertex": (
        [(0, 1, 1.0), (2, 2, 10.0)],
        matched((0, 1, 1.0), unmatched=(2,)),
    ),
    # a heavy self-loop never counts as an edge
    "heavy_self_loop_ignored": (
        [(1, 1, 100.0), (0, 1, 1.0), (1, 2, 0.5)],
        matched((0, 1, 1.0), unmatched=(2,)),
    ),
    # a star: only the heaviest spoke is matched
    "star": (
        [(0, 1, 0.25), (0, 2, 4.0), (0, 3, 3.5), (0, 4, 4.0)],
        matched((0, 4, 4.0), unmatched=(1, 2, 3)),
    ),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("case", CASES)
def test_known_greedy_matching(case, algorithm, kind):
    edges, expected = CASES[case]
    graph = build(kind, edges)
    result = ALGORITHMS[algorithm](graph, backend="cpu")
    check_frame(result, expected)
    assert str(result["mate"].dtype) == "Int64"
    assert cm.is_matching(graph, result, maximal=True)
    assert cm.matching_weight(result) == pytest.approx(
        sum(w for v, (m, w) in expected.items() if m is not None and m > v))


@pytest.mark.parametrize("kind", ["networkx", "scipy"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_isolated_vertices_are_in_the_output(algorithm, kind):
    graph = build(kind, [(0, 1, 2.0), (1, 3, 1.0), (3, 5, 2.0)], n=7, isolated=(2, 4, 6))
    result = ALGORITHMS[algorithm](graph, backend="cpu")
    check_frame(result, matched((0, 1, 2.0), (3, 5, 2.0), unmatched=(2, 4, 6)))
    assert cm.is_matching(graph, result, maximal=True)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_caller_input_is_not_modified(algorithm, kind):
    edges = [(3, 1, 2.0), (1, 3, 7.0), (0, 2, 1.0), (2, 2, 9.0), (0, 1, 0.5)]
    if kind == "networkx":
        edges = edges[1:]  # nx.Graph keeps one (1, 3)
    graph = build(kind, edges)
    if kind == "pandas":
        graph.index = [10, 30, 20, 50, 40]  # unsorted labels: nothing may reorder them
        graph["note"] = list("abcde")
    before = copy.deepcopy(graph)
    ALGORITHMS[algorithm](graph, backend="cpu")
    cm.is_matching(graph, ALGORITHMS[algorithm](graph, backend="cpu"))
    if kind == "pandas":
        pd.testing.assert_frame_equal(graph, before)
    elif kind == "networkx":
        assert nx.utils.graphs_equal(graph, before)
    else:
        assert graph.format == before.format
        assert (graph != before).nnz == 0
        np.testing.assert_array_equal(graph.indptr, before.indptr)
        np.testing.assert_array_equal(graph.indices, before.indices)
        np.testing.assert_array_equal(graph.data, before.data)


# --------------------------------------------------------------------------
# pandas edge lists
# --------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_string_ids_are_ordered_as_strings(algorithm):
    # sorted as strings: "10" < "2" < "9", so (9, 2) is the largest tied pair
    frame = pd.DataFrame({"src": ["10", "9", "2"], "dst": ["9", "2", "10"]})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched(("2", "9", 1.0), unmatched=("10",)))
    assert list(result["vertex"]) == ["10", "2", "9"]
    # the same triangle with int ids: 10 is the largest id, so (10, 9) wins
    ints = frame.astype(np.int64)
    check_frame(ALGORITHMS[algorithm](ints, backend="cpu"), matched((9, 10, 1.0), unmatched=(2,)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_string_ids_output_strings_with_missing_values(algorithm):
    frame = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "d"],
                          "weight": [1.0, 5.0, 1.0]})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched(("b", "c", 5.0), unmatched=("a", "d")))
    mates = result["mate"]
    assert mates.isna().tolist() == [True, False, False, True]
    assert all(isinstance(m, str) for m in mates.dropna())
    assert not pd.api.types.is_numeric_dtype(mates.dtype)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_string_ids_unweighted_docstring_example(algorithm):
    frame = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "d"]})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    assert result["mate"].tolist() == ["b", "a", "d", "c"]
    assert result["weight"].tolist() == [1.0] * 4


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_negative_and_huge_int_ids(algorithm):
    big = 10**12
    frame = pd.DataFrame({"src": [-5, 3, big, -5], "dst": [3, big, -5, -7],
                          "weight": [1.0, 1.0, 1.0, 0.5]})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    # all three triangle edges tie; (big, 3) is the largest pair; -5 then takes -7
    check_frame(result, matched((3, big, 1.0), (-7, -5, 0.5)))
    assert list(result["vertex"]) == [-7, -5, 3, big]
    assert str(result["mate"].dtype) == "Int64"


@pytest.mark.parametrize(
    "src_dtype,dst_dtype",
    [(np.int8, np.int64), (np.int32, np.int16), (np.uint8, np.int32), (np.uint16, np.int16),
     (np.uint32, np.int64), (np.int64, np.int32), (np.uint64, np.int64)],
    ids=lambda d: np.dtype(d).name,
)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_mixed_int_widths(algorithm, src_dtype, dst_dtype):
    frame = pd.DataFrame({"src": np.array([0, 1, 2, 3], dtype=src_dtype),
                          "dst": np.array([1, 2, 3, 4], dtype=dst_dtype),
                          "weight": [1.0, 1.0, 1.0, 1.0]})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    # tied 5-path: (4, 3) then (2, 1); 0 is left alone
    check_frame(result, matched((3, 4, 1.0), (1, 2, 1.0), unmatched=(0,)))
    assert result["vertex"].dtype.kind in "iu", (
        f"integer ids came back as {result['vertex'].dtype}")
    assert pd.api.types.is_integer_dtype(result["mate"].dtype)
    assert isinstance(result["mate"].dtype, pd.api.extensions.ExtensionDtype)
    assert all(isinstance(x, (int, np.integer)) for x in result["vertex"])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dst_dtype", [np.uint64, np.int64])
def test_uint64_ids_beyond_float_precision(algorithm, dst_dtype):
    # 2**62 and 2**62 + 1 are one float64: ids must stay integers, or two vertices
    # merge and the edge between them turns into a self-loop
    big = 2**62
    frame = pd.DataFrame({"src": np.array([big + 1, 5], dtype=np.uint64),
                          "dst": np.array([big, big], dtype=dst_dtype),
                          "weight": [2.0, 1.0]})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched((big, big + 1, 2.0), unmatched=(5,)))
    assert [int(x) for x in result["vertex"]] == [5, big, big + 1]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_nullable_int_ids(algorithm):
    frame = pd.DataFrame({"src": pd.array([0, 1, 2], dtype="Int64"),
                          "dst": pd.array([1, 2, 3], dtype="Int64"),
                          "weight": [1.0, 3.0, 1.0]})
    check_frame(ALGORITHMS[algorithm](frame, backend="cpu"),
                matched((1, 2, 3.0), unmatched=(0, 3)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("order", ["uv_then_vu", "vu_then_uv", "exact_duplicate"])
def test_reversed_and_duplicate_edges_keep_the_max_weight(algorithm, order):
    # with max kept 0-1 weighs 5 and beats 1-2 (3); with min or first kept 1-2 would win
    first, second = {"uv_then_vu": ((0, 1, 1.0), (1, 0, 5.0)),
                     "vu_then_uv": ((1, 0, 5.0), (0, 1, 1.0)),
                     "exact_duplicate": ((0, 1, 1.0), (0, 1, 5.0))}[order]
    frame = pd.DataFrame([first, (1, 2, 3.0), second], columns=["src", "dst", "weight"])
    frame[["src", "dst"]] = frame[["src", "dst"]].astype(np.int64)
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched((0, 1, 5.0), unmatched=(2,)))
    assert cm.is_matching(frame, result, maximal=True)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_custom_column_names(algorithm):
    frame = pd.DataFrame({"a": [0, 1, 2], "b": [1, 2, 3], "cost": [1.0, 3.0, 1.0],
                          "weight": [9.0, 1.0, 9.0]})
    result = ALGORITHMS[algorithm](frame, source="a", destination="b", weight="cost",
                                   backend="cpu")
    check_frame(result, matched((1, 2, 3.0), unmatched=(0, 3)))
    assert cm.is_matching(frame, result, source="a", destination="b", weight="cost")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_default_weight_column_absent_means_unweighted(algorithm):
    # the "w" column would make 1-2 win; unweighted, the tie rule picks (3, 2) and (1, 0)
    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "w": [1.0, 9.0, 1.0]})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched((2, 3, 1.0), (0, 1, 1.0)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_weight_none_ignores_the_weight_column(algorithm):
    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 9.0, 1.0]})
    result = ALGORITHMS[algorithm](frame, weight=None, backend="cpu")
    check_frame(result, matched((2, 3, 1.0), (0, 1, 1.0)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.float32, np.float64])
def test_numeric_weight_dtypes(algorithm, dtype):
    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
                          "weight": np.array([1, 3, 1], dtype=dtype)})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched((1, 2, 3.0), unmatched=(0, 3)))
    assert pd.api.types.is_float_dtype(result["weight"].dtype)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", ["Int64", "Float64"])
def test_nullable_numeric_weights_are_numeric(algorithm, dtype):
    # pandas' nullable numeric dtypes hold numbers; without nulls they are valid weights
    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
                          "weight": pd.array([1, 3, 1], dtype=dtype)})
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched((1, 2, 3.0), unmatched=(0, 3)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_output_frame_format(algorithm):
    frame = pd.DataFrame({"src": [5, 3, 9], "dst": [3, 9, 7], "weight": [2.0, 1.0, 3.0]},
                         index=[100, 7, 42])
    result = ALGORITHMS[algorithm](frame, backend="cpu")
    check_frame(result, matched((7, 9, 3.0), (3, 5, 2.0)))
    assert result["vertex"].tolist() == [3, 5, 7, 9]
    assert result["vertex"].is_monotonic_increasing
    assert str(result["mate"].dtype) == "Int64"
    assert result.index.tolist() == [0, 1, 2, 3]


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------

LABELS = ["r0", "r1", "r2", "r3", "r4"]


def frame5(**columns):
    base = {"src": [0, 1, 2, 3, 4], "dst": [1, 2, 3, 4, 0], "weight": [1.0, 2.0, 3.0, 4.0, 5.0]}
    base.update(columns)
    return pd.DataFrame(base, index=LABELS)


BAD_ROWS = {
    # name: (frame, exception, column, count, first bad row label)
    "nan_weight": (frame5(weight=[1.0, 2.0, np.nan, 4.0, np.nan]), ValueError, "weight", 2, "r2"),
    "inf_weight": (frame5(weight=[1.0, np.inf, 3.0, -np.inf, np.inf]), ValueError, "weight", 3, "r1"),
    "zero_weight": (frame5(weight=[1.0, 2.0, 3.0, 0.0, 5.0]), ValueError, "weight", 1, "r3"),
    "negative_weight": (frame5(weight=[-1.0, 2.0, -0.5, 4.0, 0.0]), ValueError, "weight", 3, "r0"),
    "negative_int_weight": (frame5(weight=[1, 2, 3, 4, -7]), ValueError, "weight", 1, "r4"),
    "null_weight_nullable_float": (frame5(weight=pd.array([1.0, None, 3.0, 4.0, 5.0],
                                                          dtype="Float64")),
                                   ValueError, "weight", 1, "r1"),
    "null_src_float": (frame5(src=[0.0, np.nan, 2.0, np.nan, 4.0]), ValueError, "src", 2, "r1"),
    "null_src_nullable_int": (frame5(src=pd.array([0, 1, 2, None, 4], dtype="Int64")),
                              ValueError, "src", 1, "r3"),
    "null_dst_string": (frame5(src=list("abcde"), dst=["b", "c", None, None, None]),
                        ValueError, "dst", 3, "r2"),
    "null_src_object": (frame5(src=pd.Series(["a", None, "c", "d", "e"], dtype=object,
                                             index=LABELS)),
                        ValueError, "src", 1, "r1"),
}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("case", BAD_ROWS)
def test_bad_rows_are_reported_with_column_count_and_first_row(case, algorithm):
    frame, exc, column, count, label = BAD_ROWS[case]
    before = frame.copy(deep=True)
    with pytest.raises(exc, match=escape(repr(column), count, repr(label))):
        ALGORITHMS[algorithm](frame, backend="cpu")
    pd.testing.assert_frame_equal(frame, before)


def test_bad_row_label_is_the_index_label_not_the_position():
    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, -1.0, 2.0]},
                         index=[70, 80, 90])
    with pytest.raises(ValueError, match=r"'weight'.*\b1\b.*\b80\b"):
        cm.suitor_matching(frame, backend="cpu")
    # the label as a plain int (an index of NumPy ints read 'row np.int64(80)')
    with pytest.raises(ValueError, match=r"first is row 80 \(src=1, dst=2, weight=-1\.0\)"):
        cm.suitor_matching(frame, backend="cpu")
    with pytest.raises(ValueError, match=r"first is row 80 \(src=1, dst=2, weight=inf\)"):
        cm.assignment(frame.assign(weight=[1.0, np.inf, 2.0]), backend="cpu")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_non_numeric_weight_column(algorithm):
    frame = frame5(weight=["1", "2", "x", "4", "5"])
    with pytest.raises(TypeError, match="'weight'"):
        ALGORITHMS[algorithm](frame, backend="cpu")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_non_numeric_weight_values_are_counted(algorithm):
    # an object column with two non-numeric entries among numbers
    weights = pd.Series([1.0, 2.0, "heavy", 4.0, None], dtype=object, index=LABELS)
    weights.iloc[4] = "light"
    frame = frame5(weight=weights)
    with pytest.raises(TypeError, match=escape("'weight'", 2, "'r2'")):
        ALGORITHMS[algorithm](frame, backend="cpu")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("missing,kwargs", [
    ("src", {}),
    ("dst", {}),
    ("u", {"source": "u"}),
    ("v", {"destination": "v"}),
    ("cost", {"weight": "cost"}),
])
def test_missing_columns(algorithm, missing, kwargs):
    frame = frame5()
    if missing in frame.columns:
        frame = frame.drop(columns=[missing])
    with pytest.raises(ValueError, match=re.escape(repr(missing))):
        ALGORITHMS[algorithm](frame, backend="cpu", **kwargs)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("frame", [
    pd.DataFrame({"src": [], "dst": [], "weight": []}),
    pd.DataFrame({"src": pd.Series([], dtype=np.int64), "dst": pd.Series([], dtype=np.int64)}),
], ids=["weighted", "unweighted"])
def test_empty_frame(algorithm, frame):
    with pytest.raises(ValueError, match="empty"):
        ALGORITHMS[algorithm](frame, backend="cpu")


def test_empty_graph_message_names_no_algorithm():
    """Community detection on an empty edge list said "there is no vertex to
    match" (before 2026-11-28); the message now fits every function."""
    frame = pd.DataFrame({"src": [], "dst": [], "weight": []})
    for call in (cm.louvain, cm.leiden, cm.suitor_matching):
        with pytest.raises(ValueError, match=r"^the edge list is empty: the graph has no vertex$"):
            call(frame, backend="cpu")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_unorderable_mixed_type_ids(algorithm):
    frame = pd.DataFrame({"src": pd.Series([0, "a"], dtype=object),
                          "dst": pd.Series(["b", 1], dtype=object)})
    with pytest.raises(TypeError, match=r"'src'.*'dst'.*ordered"):
        ALGORITHMS[algorithm](frame, backend="cpu")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_unorderable_mixed_type_networkx_nodes(algorithm):
    g = nx.Graph()
    g.add_edge("a", "b")
    g.add_edge(1, "b")
    with pytest.raises(TypeError, match="ordered"):
        ALGORITHMS[algorithm](g, backend="cpu")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("graph", [[(0, 1), (1, 2)], "edges", 42, np.eye(3)],
                         ids=["list", "str", "int", "dense_ndarray"])
def test_unsupported_input_type(algorithm, graph):
    with pytest.raises(TypeError, match="expected"):
        ALGORITHMS[algorithm](graph, backend="cpu")


# --------------------------------------------------------------------------
# networkx
# --------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_networkx_missing_weight_attributes_mean_one(algorithm):
    g = nx.Graph()
    g.add_edge("a", "b")               # weight 1
    g.add_edge("b", "c", weight=0.5)
    g.add_edge("c", "d")               # weight 1
    g.add_edge("d", "e", weight=0.25)
    result = ALGORITHMS[algorithm](g, backend="cpu")
    # (d, c) and (b, a) tie at 1; both are taken; e is left
    check_frame(result, matched(("c", "d", 1.0), ("a", "b", 1.0), unmatched=("e",)))
    assert result["mate"].isna().tolist() == [False] * 4 + [True]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_networkx_all_attributes_missing(algorithm):
    g = nx.path_graph(4)  # 0-1-2-3, no attributes: tie rule gives (3, 2), (1, 0)
    result = ALGORITHMS[algorithm](g, backend="cpu")
    check_frame(result, matched((2, 3, 1.0), (0, 1, 1.0)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_networkx_isolated_string_nodes(algorithm):
    g = nx.Graph()
    g.add_nodes_from(["zeta", "alpha"])
    g.add_edge("b", "c", weight=2.0)
    g.add_edge("c", "d", weight=1.0)
    result = ALGORITHMS[algorithm](g, backend="cpu")
    check_frame(result, matched(("b", "c", 2.0), unmatched=("alpha", "d", "zeta")))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_networkx_only_isolated_nodes(algorithm):
    g = nx.Graph()
    g.add_nodes_from([5, 3, 1])
    result = ALGORITHMS[algorithm](g, backend="cpu")
    check_frame(result, {1: (NA, NA), 3: (NA, NA), 5: (NA, NA)})


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_networkx_custom_weight_attribute_and_none(algorithm):
    g = nx.Graph()
    g.add_edge(0, 1, cost=1.0, weight=9.0)
    g.add_edge(1, 2, cost=3.0, weight=1.0)
    g.add_edge(2, 3, cost=1.0, weight=9.0)
    check_frame(ALGORITHMS[algorithm](g, weight="cost", backend="cpu"),
                matched((1, 2, 3.0), unmatched=(0, 3)))
    check_frame(ALGORITHMS[algorithm](g, backend="cpu"),
                matched((2, 3, 9.0), (0, 1, 9.0)))
    check_frame(ALGORITHMS[algorithm](g, weight=None, backend="cpu"),
                matched((2, 3, 1.0), (0, 1, 1.0)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("graph_type", [nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph])
def test_networkx_reversed_and_parallel_edges_keep_max(algorithm, graph_type):
    g = graph_type()
    g.add_edge(0, 1, weight=1.0)
    g.add_edge(1, 0, weight=5.0)
    g.add_edge(1, 2, weight=3.0)
    result = ALGORITHMS[algorithm](g, backend="cpu")
    check_frame(result, matched((0, 1, 5.0), unmatched=(2,)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_networkx_self_loop_only_node(algorithm):
    g = nx.Graph()
    g.add_edge(7, 7, weight=3.0)
    g.add_edge(1, 2, weight=1.0)
    result = ALGORITHMS[algorithm](g, backend="cpu")
    check_frame(result, matched((1, 2, 1.0), unmatched=(7,)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_networkx_bad_weight_attribute(algorithm):
    g = nx.Graph()
    g.add_edge(0, 1, weight=1.0)
    g.add_edge(1, 2, weight=-2.0)
    with pytest.raises(ValueError, match=r"'weight'.*\b1\b.*negative"):
        ALGORITHMS[algorithm](g, backend="cpu")


# --------------------------------------------------------------------------
# SciPy sparse matrices
# --------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_scipy_csr_with_explicit_rows_and_cols(algorithm):
    rows = np.array([0, 2, 4, 4])
    cols = np.array([1, 3, 5, 1])
    data = np.array([2.0, 1.0, 4.0, 3.0])
    a = sp.csr_matrix((data, (rows, cols)), shape=(8, 8))
    result = ALGORITHMS[algorithm](a, backend="cpu")
    # 4-5 (4) first, then 0-1 (2) and 2-3 (1); 6 and 7 exist only as rows
    check_frame(result, matched((4, 5, 4.0), (0, 1, 2.0), (2, 3, 1.0), unmatched=(6, 7)))
    assert len(result) == 8


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "bsr"])
def test_scipy_asymmetric_matrix_is_symmetrised(algorithm, fmt):
    dense = np.zeros((4, 4))
    dense[0, 1] = 1.0   # (0, 1) given both ways: the max, 5, is kept
    dense[1, 0] = 5.0
    dense[2, 1] = 3.0   # given once, below the diagonal
    dense[3, 2] = 2.0
    a = sp.csr_matrix(dense).asformat(fmt)
    result = ALGORITHMS[algorithm](a, backend="cpu")
    check_frame(result, matched((0, 1, 5.0), (2, 3, 2.0)))
    assert cm.is_matching(a, result, maximal=True)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_scipy_sparse_array_and_int_data(algorithm):
    a = sp.csr_array((np.array([1, 3, 1]), (np.array([0, 1, 2]), np.array([1, 2, 3]))),
                     shape=(5, 5))
    result = ALGORITHMS[algorithm](a, backend="cpu")
    check_frame(result, matched((1, 2, 3.0), unmatched=(0, 3, 4)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_scipy_matrix_without_entries(algorithm):
    result = ALGORITHMS[algorithm](sp.csr_matrix((3, 3)), backend="cpu")
    check_frame(result, {0: (NA, NA), 1: (NA, NA), 2: (NA, NA)})


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_scipy_non_square_is_rejected(algorithm):
    with pytest.raises(ValueError, match=r"square.*\(3, 4\)"):
        ALGORITHMS[algorithm](sp.csr_matrix((3, 4)), backend="cpu")


# --------------------------------------------------------------------------
# backends
# --------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_gpu_backend_without_gpu_raises(algorithm, monkeypatch):
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(core, "gpu_available", lambda: False)
    frame = pd.DataFrame({"src": [0], "dst": [1]})
    with pytest.raises(RuntimeError, match=r"backend='gpu'.*CUDA.*backend='cpu'"):
        ALGORITHMS[algorithm](frame, backend="gpu")


def test_gpu_backend_without_gpu_raises_for_real(monkeypatch):
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    if cm.gpu_available():
        pytest.skip("a GPU is usable here")
    with pytest.raises(RuntimeError, match="CUDA"):
        cm.suitor_matching(pd.DataFrame({"src": [0], "dst": [1]}), backend="gpu")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("backend", ["bogus", "CPU", "cuda", ""])
def test_unknown_backend(algorithm, backend):
    with pytest.raises(ValueError, match=re.escape(repr(backend))):
        ALGORITHMS[algorithm](pd.DataFrame({"src": [0], "dst": [1]}), backend=backend)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_auto_backend_without_gpu_is_cpu(algorithm, monkeypatch):
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(core, "gpu_available", lambda: False)
    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 3.0, 1.0]})
    check_frame(ALGORITHMS[algorithm](frame), matched((1, 2, 3.0), unmatched=(0, 3)))
    assert core.resolve_backend("auto").name == "cpu"


# --------------------------------------------------------------------------
# cm.Graph: semantics, dtypes, rows in preference order, edge keys
# --------------------------------------------------------------------------


def _rows(g):
    """{row label: [(neighbour label, weight), ...]} in preference-row order."""
    labels = list(g.labels)
    pref = g.preference_csr()
    weights = pref.weights(pref.keys.astype(np.int64), np)
    out = {}
    for i, label in enumerate(labels):
        lo, hi = int(pref.offsets[i]), int(pref.offsets[i + 1])
        out[label] = [(labels[int(j)], float(w)) for j, w in
                      zip(pref.indices[lo:hi], weights[lo:hi])]
    return out


def test_graph_semantics_and_preference_rows():
    frame = pd.DataFrame({"src": ["c", "b", "a", "d", "a", "b"],
                          "dst": ["a", "c", "c", "d", "b", "a"],
                          "weight": [1.0, 2.0, 4.0, 9.0, 2.0, 0.5]})
    g = cm.Graph(frame, backend="cpu")
    assert list(g.labels) == ["a", "b", "c", "d"]   # sorted, self-loop vertex kept
    assert g.num_vertices == 4
    assert g.num_edges == 3                          # a-c (max 4), b-c, a-b (max 2)
    assert g.weighted
    # rows: weight descending, ties to the larger neighbour
    assert _rows(g) == {
        "a": [("c", 4.0), ("b", 2.0)],
        "b": [("c", 2.0), ("a", 2.0)],
        "c": [("a", 4.0), ("b", 2.0)],
        "d": [],
    }
    # the self-loop d-d is kept apart, for the algorithms that count it
    assert g.edges.loop.tolist() == [0.0, 0.0, 0.0, 9.0]


@pytest.mark.parametrize("weights,dtype,weighted", [
    (np.array([1.0, 2.0], dtype=np.float32), np.float32, True),
    (np.array([1.0, 2.0], dtype=np.float64), np.float64, True),
    (np.array([1, 2], dtype=np.int32), np.int64, True),
    (np.array([1, 2], dtype=np.int64), np.int64, True),
    (np.array([1, 2], dtype=np.uint8), np.uint64, True),
    (None, None, False),
])
def test_graph_dtypes(weights, dtype, weighted):
    frame = pd.DataFrame({"src": [0, 1], "dst": [1, 2]})
    if weights is not None:
        frame["weight"] = weights
    g = cm.Graph(frame, backend="cpu")
    pref = g.preference_csr()
    assert pref.offsets.dtype == np.int32
    assert pref.indices.dtype == np.int32
    assert pref.keys.dtype == np.uint32
    assert g.weighted is weighted
    if weights is None:
        assert g.edges.w is None
        assert (pref.weights(pref.keys.astype(np.int64), np) == 1).all()
    else:
        assert g.edges.w.dtype == dtype
        np.testing.assert_array_equal(np.sort(g.edges.w), np.sort(weights))
    assert pref.offsets.tolist() == [0, 1, 3, 4]
    rows = g.neighbour_csr()
    assert rows.offsets.tolist() == [0, 1, 3, 4] and rows.indices.tolist() == [1, 0, 2, 1]


def test_graph_weight_none_is_unweighted():
    frame = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [3.0, 4.0]})
    g = cm.Graph(frame, weight=None, backend="cpu")
    assert not g.weighted and g.edges.w is None


def test_index_dtype_threshold():
    assert index_dtype(0) == np.int32
    assert index_dtype(2**31 - 1) == np.int32
    assert index_dtype(2**31) == np.int64


def test_graph_scipy_and_networkx_keep_every_vertex():
    g = cm.Graph(sp.csr_matrix((6, 6)), backend="cpu")
    assert list(g.labels) == list(range(6)) and g.num_edges == 0
    nxg = nx.Graph()
    nxg.add_nodes_from([9, 4])
    nxg.add_edge(4, 2)
    g = cm.Graph(nxg, backend="cpu")
    assert list(g.labels) == [2, 4, 9] and g.num_edges == 1


# --------------------------------------------------------------------------
# edge keys: the greedy order, unique, never 0
# --------------------------------------------------------------------------


@st.composite
def tied_weights(draw, dtype):
    """Positive finite weights of ``dtype`` drawn from a small pool, so ties are common.

    The pool includes float neighbours (nextafter) so near-ties are exercised,
    and extremes (subnormals, the largest finite value).
    """
    width = 32 if dtype == np.float32 else 64
    finfo = np.finfo(dtype)
    base = st.one_of(
        st.floats(min_value=0.0, exclude_min=True, max_value=float(finfo.max),
                  allow_nan=False, allow_infinity=False, width=width),
        st.sampled_from([float(finfo.smallest_subnormal), float(finfo.tiny), 1.0,
                         float(finfo.max)]),
    )
    pool = draw(st.lists(base, min_size=1, max_size=6))
    pool = np.asarray(pool, dtype=dtype)
    with np.errstate(over="ignore"):  # nextafter(max) is inf, dropped below
        neighbours = np.nextafter(pool, np.asarray(np.inf, dtype=dtype))
    neighbours = neighbours[np.isfinite(neighbours)]
    pool = np.concatenate([pool, neighbours])
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=40))
    return pool[np.asarray(picks)]


def _check_keys(weights):
    """The edge keys of a path graph carrying ``weights`` follow the greedy order:
    heavier first, at equal weight the larger (hi, lo) first; unique, 1..m."""
    m = weights.shape[0]
    frame = pd.DataFrame({"src": np.arange(m), "dst": np.arange(1, m + 1), "weight": weights})
    g = cm.Graph(frame, backend="cpu")
    pref = g.preference_csr()
    key_of = {}
    for r in range(g.num_vertices):
        for j in range(pref.offsets[r], pref.offsets[r + 1]):
            key_of[(min(r, pref.indices[j]), max(r, pref.indices[j]))] = int(pref.keys[j])
    assert sorted(key_of.values()) == list(range(1, m + 1))
    greedy = sorted(range(m), key=lambda i: (weights[i], i + 1, i), reverse=True)
    assert [key_of[(i, i + 1)] for i in greedy] == list(range(m, 0, -1))
    # the key maps back to the weight, exactly
    for (a, b), key in key_of.items():
        assert pref.weight_of_key[key] == weights[a]


@settings(max_examples=examples(200), deadline=None)
@given(weights=tied_weights(np.float32))
def test_edge_keys_float32_follow_the_greedy_order(weights):
    assert weights.dtype == np.float32
    _check_keys(weights)


@settings(max_examples=examples(200), deadline=None)
@given(weights=tied_weights(np.float64))
def test_edge_keys_float64_follow_the_greedy_order(weights):
    assert weights.dtype == np.float64
    _check_keys(weights)


def test_edge_keys_float64_beyond_float32_precision():
    # distinct as float64, equal once rounded to float32: the order must still see them
    _check_keys(np.array([1.0, 1.0 + 2**-40, 1.0, 1.0 + 2**-30], dtype=np.float64))


def test_integer_weights_order_exactly_beyond_2_53():
    _check_keys(np.array([2**53, 2**53 + 1, 2**53, 2**53], dtype=np.int64))
    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
                          "weight": np.array([2**53, 2**53 + 1, 2**53], dtype=np.int64)})
    for f in ALGORITHMS.values():
        mate = f(frame, backend="cpu")["mate"]
        assert mate.isna().tolist() == [True, False, False, True]
        assert mate.tolist()[1:3] == [2, 1]


def test_float64_near_ties_decide_the_matching():
    # 1-2 outweighs 0-1 only beyond float32 precision
    frame = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, 1.0 + 2**-40]})
    for f in ALGORITHMS.values():
        result = f(frame, backend="cpu")
        assert result["mate"].tolist()[1] == 2


# --------------------------------------------------------------------------
# is_matching and matching_weight
# --------------------------------------------------------------------------


GRAPH = pd.DataFrame({"src": [0, 1, 2, 3, 0], "dst": [1, 2, 3, 4, 4],
                      "weight": [1.0, 3.0, 1.0, 2.0, 0.5]})
# greedy: 1-2 (3), 3-4 (2); 0 is left (its neighbours 1 and 4 are taken)


def mframe(vertex, mate, weight):
    return pd.DataFrame({"vertex": vertex,
                         "mate": pd.array(mate, dtype="Int64"),
                         "weight": pd.array(weight, dtype="Float64")})


VALID = mframe([0, 1, 2, 3, 4], [None, 2, 1, 4, 3], [None, 3.0, 3.0, 2.0, 2.0])


def test_is_matching_accepts_the_greedy_matching():
    assert cm.is_matching(GRAPH, VALID)
    assert cm.is_matching(GRAPH, VALID, maximal=True)
    for f in ALGORITHMS.values():
        result = f(GRAPH, backend="cpu")
        pd.testing.assert_frame_equal(result[["vertex", "mate"]], VALID[["vertex", "mate"]])
        assert cm.is_matching(GRAPH, result, maximal=True)


def test_is_matching_accepts_other_valid_matchings():
    # the maximum-weight matching 0-1, 2-3 ... is not maximal? 4 is free but 4's
    # neighbours 3 and 0 are both taken, so it is maximal
    other = mframe([0, 1, 2, 3, 4], [1, 0, 3, 2, None], [1.0, 1.0, 1.0, 1.0, None])
    assert cm.is_matching(GRAPH, other, maximal=True)
    empty = mframe([0, 1, 2, 3, 4], [None] * 5, [None] * 5)
    assert cm.is_matching(GRAPH, empty)
    # no weight column: only the pairs are checked
    assert cm.is_matching(GRAPH, VALID[["vertex", "mate"]], maximal=True)


def test_is_matching_non_maximal():
    # only 1-2 matched: edge 3-4 has both ends free
    partial = mframe([0, 1, 2, 3, 4], [None, 2, 1, None, None], [None, 3.0, 3.0, None, None])
    assert cm.is_matching(GRAPH, partial)
    assert not cm.is_matching(GRAPH, partial, maximal=True)
    empty = mframe([0, 1, 2, 3, 4], [None] * 5, [None] * 5)
    assert not cm.is_matching(GRAPH, empty, maximal=True)


@pytest.mark.parametrize("bad", [
    # asymmetric: 0 says 1, 1 says 2
    mframe([0, 1, 2, 3, 4], [1, 2, 1, 4, 3], [1.0, 3.0, 3.0, 2.0, 2.0]),
    # asymmetric: 0 says 1, 1 unmatched
    mframe([0, 1, 2, 3, 4], [1, None, None, 4, 3], [1.0, None, None, 2.0, 2.0]),
    # 0-2 is not an edge
    mframe([0, 1, 2, 3, 4], [2, None, 0, 4, 3], [1.0, None, 1.0, 2.0, 2.0]),
    # 1-3 is not an edge
    mframe([0, 1, 2, 3, 4], [None, 3, None, 1, None], [None, 1.0, None, 1.0, None]),
    # wrong weight on 1-2
    mframe([0, 1, 2, 3, 4], [None, 2, 1, 4, 3], [None, 3.0, 2.5, 2.0, 2.0]),
    # weight given for an unmatched vertex
    mframe([0, 1, 2, 3, 4], [None, 2, 1, 4, 3], [1.0, 3.0, 3.0, 2.0, 2.0]),
    # matched weight missing
    mframe([0, 1, 2, 3, 4], [None, 2, 1, 4, 3], [None, 3.0, None, 2.0, 2.0]),
    # missing vertex row (0)
    mframe([1, 2, 3, 4], [2, 1, 4, 3], [3.0, 3.0, 2.0, 2.0]),
    # a vertex the graph lacks
    mframe([0, 1, 2, 3, 4, 5], [None, 2, 1, 4, 3, None], [None, 3.0, 3.0, 2.0, 2.0, None]),
    # unknown vertex instead of a real one
    mframe([0, 1, 2, 3, 7], [None, 2, 1, 7, 3], [None, 3.0, 3.0, 2.0, 2.0]),
    # duplicated vertex row
    mframe([0, 1, 2, 3, 3], [None, 2, 1, 4, 4], [None, 3.0, 3.0, 2.0, 2.0]),
    # mate that is no vertex
    mframe([0, 1, 2, 3, 4], [9, 2, 1, 4, 3], [1.0, 3.0, 3.0, 2.0, 2.0]),
    # matched to itself
    mframe([0, 1, 2, 3, 4], [0, 2, 1, 4, 3], [1.0, 3.0, 3.0, 2.0, 2.0]),
    # one vertex with two partners (0 and 2 both claim 1)
    mframe([0, 1, 2, 3, 4], [1, 2, 1, 4, 3], [1.0, 3.0, 3.0, 2.0, 2.0]),
], ids=["asym_mates", "asym_unmatched", "non_edge_0_2", "non_edge_1_3", "wrong_weight",
        "weight_on_unmatched", "missing_weight", "missing_vertex_row", "extra_vertex_row",
        "unknown_vertex", "duplicate_row", "unknown_mate", "self_mate", "two_partners"])
def test_is_matching_rejects_invalid(bad):
    assert not cm.is_matching(GRAPH, bad)
    assert not cm.is_matching(GRAPH, bad, maximal=True)


def test_is_matching_compares_weights_exactly():
    """Weights were compared with a relative tolerance of 1e-6 (before
    2026-11-28): weights 1,000,000 and 1,000,001 swapped between two matched
    edges passed.  Now exactly; a float32 column against the edge weight
    rounded to float32; integers as integers; a non-numeric column named."""
    graph = pd.DataFrame({"src": [0, 2], "dst": [1, 3], "weight": [1_000_000.0, 1_000_001.0]})
    right = mframe([0, 1, 2, 3], [1, 0, 3, 2], [1_000_000.0, 1_000_000.0, 1_000_001.0,
                                                1_000_001.0])
    assert cm.is_matching(graph, right)
    swapped = right.assign(weight=right["weight"][::-1].to_numpy())
    assert not cm.is_matching(graph, swapped)
    assert not cm.is_matching(graph, right.assign(weight=right["weight"] * (1 + 1e-9)))
    # a float32 result checked against the float64 weights it was computed from
    tenth = graph.assign(weight=[0.1, 0.2])
    assert cm.is_matching(tenth, cm.suitor_matching(tenth.astype({"weight": np.float32}),
                                                    backend="cpu"))
    # integers past 2**53, which float64 would tie
    wide = pd.DataFrame({"src": [0, 2], "dst": [1, 3],
                         "weight": np.array([2**53 + 1, 5], dtype=np.int64)})
    exact = mframe([0, 1, 2, 3], [1, 0, 3, 2], [None] * 4).assign(
        weight=pd.array([2**53 + 1, 2**53 + 1, 5, 5], dtype="Int64"))
    assert cm.is_matching(wide, exact)
    off = exact.assign(weight=pd.array([2**53, 2**53, 5, 5], dtype="Int64"))
    assert not cm.is_matching(wide, off)
    assert cm.is_matching(wide.astype({"weight": np.uint64}), exact)
    with pytest.raises(TypeError, match="matching column 'weight' has 4 non-numeric value"):
        cm.is_matching(graph, right.astype({"weight": object}).assign(weight=list("aabb")))


def test_is_matching_self_loop_is_not_an_edge():
    graph = pd.DataFrame({"src": [0, 1], "dst": [0, 2], "weight": [5.0, 1.0]})
    bad = mframe([0, 1, 2], [0, 2, 1], [5.0, 1.0, 1.0])
    assert not cm.is_matching(graph, bad)
    good = mframe([0, 1, 2], [None, 2, 1], [None, 1.0, 1.0])
    assert cm.is_matching(graph, good, maximal=True)


def test_is_matching_uses_the_max_duplicate_weight():
    graph = pd.DataFrame({"src": [0, 1], "dst": [1, 0], "weight": [1.0, 5.0]})
    assert cm.is_matching(graph, mframe([0, 1], [1, 0], [5.0, 5.0]))
    assert not cm.is_matching(graph, mframe([0, 1], [1, 0], [1.0, 1.0]))


def test_is_matching_string_ids_and_other_inputs():
    frame = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "d"]})
    m = pd.DataFrame({"vertex": ["a", "b", "c", "d"], "mate": ["b", "a", "d", "c"],
                      "weight": [1.0, 1.0, 1.0, 1.0]})
    assert cm.is_matching(frame, m, maximal=True)
    bad = m.assign(mate=["c", None, "a", None])
    assert not cm.is_matching(frame, bad)
    g = nx.Graph([("a", "b"), ("b", "c"), ("c", "d")])
    g.add_node("e")
    assert not cm.is_matching(g, m)  # e has no row
    m_e = pd.concat([m, pd.DataFrame({"vertex": ["e"], "mate": [None], "weight": [None]})],
                    ignore_index=True)
    assert cm.is_matching(g, m_e, maximal=True)


def test_is_matching_requires_columns():
    with pytest.raises(ValueError, match="mate"):
        cm.is_matching(GRAPH, VALID.drop(columns=["mate"]))


def test_matching_weight():
    assert cm.matching_weight(VALID) == pytest.approx(5.0)
    empty = mframe([0, 1], [None, None], [None, None])
    assert cm.matching_weight(empty) == 0.0
    result = cm.suitor_matching(GRAPH, backend="cpu")
    assert cm.matching_weight(result) == pytest.approx(5.0)
    assert isinstance(cm.matching_weight(result), float)
    with pytest.raises(ValueError, match="weight"):
        cm.matching_weight(VALID.drop(columns=["weight"]))
    # a weight on a row without a mate was summed (before 2026-11-28): 5 + 3.5
    stray = VALID.assign(weight=pd.array([7.0, 3.0, 3.0, 2.0, 2.0], dtype="Float64"))
    assert cm.matching_weight(stray) == 5.0


@pytest.mark.parametrize("weight", ["src", "dst"])
def test_weight_naming_an_id_column_is_refused(weight):
    """weight='src' weighed the edges by their source ids (silently), and
    weight='dst' gave a message with a printed Series in it; both now say
    what is wrong, for one id space and two tables alike."""
    frame = pd.DataFrame({"src": [1, 1, 2], "dst": [0, 1, 0]})
    for call in (lambda: cm.suitor_matching(frame, "src", "dst", weight, backend="cpu"),
                 lambda: cm.suitor_matching(frame, "src", "dst", weight, bipartite=True,
                                            backend="cpu"),
                 lambda: cm.louvain(frame, "src", "dst", weight, backend="cpu")):
        with pytest.raises(ValueError, match=f"weight names the id column '{weight}'"):
            call()


def test_a_graph_of_a_graph_is_the_same_graph():
    """cm.Graph(g) read g as a cuGraph graph (its module starts with
    'cugraph'): self-loops and isolated vertices were lost, an unweighted
    graph came back weighted, two sides merged into one id space."""
    edges = pd.DataFrame({"src": [0, 1, 2, 3, 4], "dst": [1, 2, 3, 3, 0], "weight": [1.0] * 5})
    g = cm.Graph(edges, vertices=[9], backend="cpu")
    again = cm.Graph(g)
    assert (again.num_vertices, again.num_edges) == (g.num_vertices, g.num_edges) == (6, 4)
    assert cm.louvain(again)[1] == cm.louvain(g)[1]
    pd.testing.assert_frame_equal(cm.suitor_matching(again), cm.suitor_matching(g))
    assert not cm.Graph(cm.Graph(edges, weight=None)).weighted
    assert cm.Graph(cm.Graph(nx.DiGraph([(0, 1)]), backend="cpu")).directed_input
    two = cm.Graph(pd.DataFrame({"l": [1, 2], "r": [1, 2], "s": [1.0, 2.0]}), "l", "r", "s",
                   bipartite=True, vertices={"source": [1, 2, 3]})
    for copy_of in (cm.Graph(two), cm.Graph(two, bipartite=True)):
        assert copy_of.bipartite and copy_of.sides.n_left == 3 and copy_of.num_edges == 2
    with pytest.raises(ValueError, match="source cannot be set for a cm.Graph"):
        cm.Graph(g, source="x")
    with pytest.raises(ValueError, match="vertices cannot be set for a cm.Graph"):
        cm.Graph(g, vertices=[1])
    with pytest.raises(ValueError, match="bipartite=True needs two id spaces"):
        cm.Graph(g, bipartite=True)


def test_a_graph_takes_its_own_column_names_again():
    """The columns a Graph was built with were refused when a call named them."""
    edges = pd.DataFrame({"a": [0, 1], "b": [1, 2], "w": [1.0, 2.0]})
    g = cm.Graph(edges, "a", "b", "w", backend="cpu")
    pd.testing.assert_frame_equal(cm.suitor_matching(g, "a", "b", "w"), cm.suitor_matching(g))
    with pytest.raises(ValueError, match="weight cannot be set"):
        cm.suitor_matching(g, weight="x")
    with pytest.raises(ValueError, match="weight cannot be set"):
        cm.suitor_matching(g, weight=None)  # a weighted graph read unweighted: refused
    unweighted = cm.Graph(edges, "a", "b", weight=None, backend="cpu")
    assert cm.suitor_matching(unweighted, weight=None).shape == (3, 3)


def test_writing_into_labels_does_not_change_the_graph():
    g = cm.Graph(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 3.0, 1.0]}),
                 backend="cpu")
    before = cm.suitor_matching(g)
    labels = g.labels
    labels.iloc[1] = 100
    assert g.labels.tolist() == [0, 1, 2, 3]
    pd.testing.assert_frame_equal(cm.suitor_matching(g), before)


def test_a_dict_of_sides_needs_bipartite():
    """Read as ids, a dict's keys 'source' and 'destination' became vertices."""
    edges = pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]})
    with pytest.raises(TypeError, match="are for two tables: build the cm.Graph with "
                                        "bipartite=True"):
        cm.Graph(edges, vertices={"source": ["a"], "destination": ["z"]})


@pytest.mark.parametrize("bipartite", [False, True])
def test_a_graph_pickles_and_copies(bipartite):
    """deepcopy and pickle failed: 'cannot pickle module object' (the graph
    holds its array and frame libraries)."""
    import pickle

    frame = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 3.0, 1.0]})
    g = cm.Graph(frame, backend="cpu", bipartite=bipartite)
    expected = cm.suitor_matching(g)
    for other in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g), copy.copy(g)):
        assert repr(other) == repr(g)
        pd.testing.assert_frame_equal(cm.suitor_matching(other), expected)
    assert cm.suitor_matching(g).equals(expected)  # the original still works


@pytest.mark.parametrize("keyword", ["source", "destination", "weight"])
def test_a_list_as_a_column_name_is_refused_naming_the_argument(keyword):
    """source=["src"] raised pandas' "unhashable type: 'list'", naming nothing."""
    frame = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, 2.0]})
    for call in (cm.suitor_matching, cm.louvain, cm.Graph):
        with pytest.raises(TypeError, match=rf"{keyword} must be a column name \(a str, say\), "
                                            rf"got list \['src'\]"):
            call(frame, **{keyword: ["src"]})


def test_weight_none_makes_a_sparse_matrix_unweighted():
    """weight=None was ignored for SciPy input: the matrix values still
    weighed the edges (the heavy middle edge matched alone), where every
    other input, the same matrix as a NetworkX graph included, is unweighted."""
    dense = np.array([[0, 1, 0, 0], [1, 0, 5, 0], [0, 5, 0, 1], [0, 0, 1, 0]], dtype=float)
    matrix = sp.csr_matrix(dense)
    unweighted = cm.suitor_matching(matrix, weight=None, backend="cpu")
    expected = cm.suitor_matching(nx.from_scipy_sparse_array(matrix), weight=None,
                                  backend="cpu")
    pd.testing.assert_frame_equal(unweighted, expected, check_dtype=False)
    assert unweighted["mate"].tolist()[:2] == [1, 0]
    assert not cm.Graph(matrix, weight=None, backend="cpu").weighted
    assert cm.suitor_matching(matrix, backend="cpu")["mate"].tolist()[1] == 2  # weighted still


def test_a_numpy_small_int_vertices_per_warp_is_checked_as_its_value():
    """np.int16(1000) wrapped in the shared-memory product and was accepted."""
    frame = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, 2.0]})
    with pytest.raises(ValueError, match="vertices_per_warp=1000 needs"):
        cm.suitor_matching(frame, vertices_per_warp=np.int16(1000), threads_per_block=1024,
                           backend="cpu")
    assert len(cm.suitor_matching(frame, vertices_per_warp=np.int8(8), backend="cpu")) == 3
