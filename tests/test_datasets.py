"""The shipped datasets (``cm.datasets.available`` / ``load``) and ``read_graph``.

``read_graph`` is exercised on small files written here and on the cuGraph
test files under ``../shared/data`` (relative to the repository root); the
latter tests skip when that directory is absent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.datasets import read_graph

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
CUGRAPH = SHARED / "cugraph"
GRAPHS = SHARED / "graphs"

SHIPPED = {
    # name: (edge rows, distinct vertices in the edge list, largest vertex id, weighted)
    "karate": (78, 34, 34, False),
    "lesmis": (254, 77, 77, True),
    # 1,589 vertices in the original; 128 of them have no edge, so the
    # edge list names 1,461 distinct ids, the largest being 1589
    "netscience": (2742, 1461, 1589, True),
}


def needs(path: Path):
    return pytest.mark.skipif(not path.exists(),
                              reason=f"shared test data not found: {path} is missing")


def undirected_edges(frame):
    """{(min, max): weight} of an edge list (weights 1 when absent)."""
    weights = frame["weight"] if "weight" in frame else [1.0] * len(frame)
    return {(min(u, v), max(u, v)): float(w)
            for u, v, w in zip(frame["src"], frame["dst"], weights)}


# --------------------------------------------------------------------------
# available / load
# --------------------------------------------------------------------------


def test_available_lists_the_shipped_graphs():
    found = cm.datasets.available()
    assert isinstance(found, dict)
    assert set(found) == set(SHIPPED)
    assert all(isinstance(text, str) and text for text in found.values())
    found.clear()  # a copy: the caller cannot break the registry
    assert set(cm.datasets.available()) == set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_load_shapes_and_dtypes(name):
    rows, n_vertices, max_id, weighted = SHIPPED[name]
    frame = cm.datasets.load(name)
    assert isinstance(frame, pd.DataFrame)
    assert frame.shape == (rows, 3)
    assert list(frame.columns) == ["src", "dst", "weight"]
    assert frame["src"].dtype == np.int64 and frame["dst"].dtype == np.int64
    assert frame["weight"].dtype == np.float64
    ids = pd.concat([frame["src"], frame["dst"]])
    assert ids.nunique() == n_vertices
    assert ids.min() == 1 and ids.max() == max_id
    # a clean undirected edge list: no self-loops, no duplicate pairs, valid weights
    assert not (frame["src"] == frame["dst"]).any()
    assert len(undirected_edges(frame)) == rows
    w = frame["weight"].to_numpy()
    assert np.isfinite(w).all() and (w > 0).all()
    if weighted:
        assert frame["weight"].nunique() > 1
    else:
        assert (w == 1.0).all()


def test_load_returns_a_fresh_frame():
    first = cm.datasets.load("karate")
    first.loc[:, "weight"] = -1.0
    assert (cm.datasets.load("karate")["weight"] == 1.0).all()


@pytest.mark.parametrize("name", ["nope", "Karate", "", "karate.csv"])
def test_load_unknown_name(name):
    with pytest.raises(ValueError, match=r"unknown dataset.*" + repr(name) + r".*karate"):
        cm.datasets.load(name)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_graphs_match_with_both_algorithms(name):
    frame = cm.datasets.load(name)
    before = frame.copy(deep=True)
    suitor = cm.suitor_matching(frame, backend="cpu")
    ld = cm.locally_dominant_matching(frame, backend="cpu")
    pd.testing.assert_frame_equal(suitor, ld)
    assert len(suitor) == SHIPPED[name][1]
    assert cm.is_matching(frame, suitor, maximal=True)
    pd.testing.assert_frame_equal(frame, before)


def test_karate_unweighted_matching_is_maximal_and_large():
    result = cm.suitor_matching(cm.datasets.load("karate"), backend="cpu")
    pairs = int(result["mate"].notna().sum()) // 2
    # karate has a perfect-ish matching of 17 pairs; greedy gets at least half
    assert 9 <= pairs <= 17
    assert cm.matching_weight(result) == pairs


# --------------------------------------------------------------------------
# read_graph on small files written here
# --------------------------------------------------------------------------


def write(tmp_path, text, name="g.mtx"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_matrix_market_pattern_with_declared_size(tmp_path):
    path = write(tmp_path, "%%MatrixMarket matrix coordinate pattern symmetric\n"
                           "% a comment\n"
                           "%\n"
                           "6 6 3\n"
                           "2 1\n"
                           "3 2\n"
                           "\n"
                           "5 3\n")
    edges, vertices = read_graph(path)
    assert list(edges.columns) == ["src", "dst"]
    assert edges["src"].tolist() == [2, 3, 5] and edges["dst"].tolist() == [1, 2, 3]
    assert edges["src"].dtype == np.int64
    assert vertices.tolist() == [1, 2, 3, 4, 5, 6]  # 4 and 6 are declared only


def test_read_matrix_market_real(tmp_path):
    path = write(tmp_path, "%%MatrixMarket matrix coordinate real general\n"
                           "3 3 2\n"
                           "1 2 0.5\n"
                           "3 1 2.25\n")
    edges, vertices = read_graph(path)
    assert list(edges.columns) == ["src", "dst", "weight"]
    assert edges["weight"].tolist() == [0.5, 2.25]
    assert pd.api.types.is_float_dtype(edges["weight"].dtype)
    assert vertices.tolist() == [1, 2, 3]
    result = cm.suitor_matching(edges, backend="cpu")
    assert result["mate"].tolist()[:1] == [3]


def test_read_string_ids_and_isolated_lines(tmp_path):
    path = write(tmp_path, "b a\n"
                           "c b\n"
                           "zz\n"
                           "d c\n", name="g.txt")
    edges, vertices = read_graph(path)
    assert edges["src"].tolist() == ["b", "c", "d"]
    assert edges["dst"].tolist() == ["a", "b", "c"]
    assert vertices.tolist() == ["a", "b", "c", "d", "zz"]
    assert "weight" not in edges
    result = cm.locally_dominant_matching(edges, backend="cpu")
    assert result["mate"].tolist() == ["b", "a", "d", "c"]


def test_read_int_edge_list_with_isolated_and_partial_weights(tmp_path):
    path = write(tmp_path, "1 2 3.5\n"
                           "2 3\n"
                           "7\n", name="g.csv")
    edges, vertices = read_graph(path)
    assert edges["weight"].tolist() == [3.5, 1.0]  # a missing weight is 1
    assert vertices.tolist() == [1, 2, 3, 7]
    assert vertices.dtype == np.int64


@pytest.mark.parametrize("text,dtype,ids", [
    # past int64: uint64 as a frame holds them (they were strings, ordered as text)
    ("5 9\n5 10\n18446744073709551615 7\n", np.uint64, [5, 7, 9, 10, 2**64 - 1]),
    # negative beside past 2**63 - 1, or past 2**64: Python ints
    ("-1 9\n18446744073709551615 7\n", object, [-1, 7, 9, 2**64 - 1]),
    ("1 99999999999999999999999\n", object, [1, 99999999999999999999999]),
    # '3.0' is the vertex 3, as in a float64 frame (it was a vertex '3.0' beside '3')
    ("1 2\n2 3.0\n3 4\n", np.float64, [1.0, 2.0, 3.0, 4.0]),
    # digits only: '1_0' is a word, not the vertex 10 (Python's int() reads it so)
    ("1_0 10\n", str, ["10", "1_0"]),
])
def test_read_numeric_ids_as_a_frame_holds_them(tmp_path, text, dtype, ids):
    edges, vertices = read_graph(write(tmp_path, text, name="g.txt"))
    assert vertices.tolist() == ids
    if dtype is str:  # words: strings (object or pandas' str dtype)
        assert pd.api.types.is_string_dtype(vertices.dtype)
    else:
        assert edges["src"].dtype == np.dtype(dtype) and vertices.dtype == np.dtype(dtype)
    frame = pd.DataFrame({c: pd.Series(edges[c].tolist(), dtype=edges[c].dtype)
                          for c in ("src", "dst")})
    pd.testing.assert_frame_equal(cm.suitor_matching(edges, backend="cpu"),
                                  cm.suitor_matching(frame, backend="cpu"))


def test_read_integer_weights_exactly(tmp_path):
    """Integer weights past 2**53 keep their order (uint64 past 2**63 - 1)."""
    edges, _ = read_graph(write(tmp_path, "1 2 18446744073709551615\n"
                                          "2 3 18446744073709551614\n", name="g.txt"))
    assert edges["weight"].dtype == np.uint64
    assert edges["weight"].tolist() == [2**64 - 1, 2**64 - 2]
    assert cm.suitor_matching(edges, backend="cpu")["mate"].tolist()[:2] == [2, 1]


# --------------------------------------------------------------------------
# read_graph on the cuGraph test files
# --------------------------------------------------------------------------


@needs(CUGRAPH / "karate_str.mtx")
def test_read_karate_str():
    edges, vertices = read_graph(CUGRAPH / "karate_str.mtx")
    assert len(edges) == 78
    assert len(vertices) == 34
    assert all(isinstance(v, str) for v in vertices)
    assert vertices.is_monotonic_increasing and vertices.is_unique
    for f in (cm.suitor_matching, cm.locally_dominant_matching):
        result = f(edges, backend="cpu")
        assert result["vertex"].tolist() == vertices.tolist()
        assert all(isinstance(m, str) for m in result["mate"].dropna())
        assert cm.is_matching(edges, result, maximal=True)


@needs(CUGRAPH / "karate_mod.mtx")
def test_read_karate_mod_has_isolated_vertices():
    edges, vertices = read_graph(CUGRAPH / "karate_mod.mtx")  # no banner
    assert len(edges) == 78
    assert len(vertices) == 37
    assert vertices.tolist() == list(range(1, 38))
    in_edges = set(edges["src"]) | set(edges["dst"])
    assert set(vertices) - in_edges == {35, 36, 37}
    result = cm.suitor_matching(edges, backend="cpu")
    assert len(result) == 34  # isolated vertices live only in `vertices`


@needs(CUGRAPH / "netscience.mtx")
def test_read_netscience_mtx():
    edges, vertices = read_graph(CUGRAPH / "netscience.mtx")
    assert list(edges.columns) == ["src", "dst", "weight"]
    assert len(edges) == 2742
    assert len(vertices) == 1589
    assert vertices.tolist() == list(range(1, 1590))
    assert pd.api.types.is_float_dtype(edges["weight"].dtype)
    assert (edges["weight"] > 0).all() and edges["weight"].nunique() > 1
    # the shipped copy holds the same undirected edges and weights
    assert undirected_edges(edges) == undirected_edges(cm.datasets.load("netscience"))


@needs(CUGRAPH / "email-Eu-core.csv")
def test_read_email_eu_core():
    edges, vertices = read_graph(CUGRAPH / "email-Eu-core.csv")
    assert list(edges.columns) == ["src", "dst", "weight"]
    assert len(edges) == 25571
    assert edges["src"].dtype == np.int64
    assert vertices.iloc[0] == 0
    assert vertices.is_unique and vertices.is_monotonic_increasing
    assert len(vertices) == pd.concat([edges["src"], edges["dst"]]).nunique()
    result = cm.suitor_matching(edges, backend="cpu")
    assert len(result) == len(vertices)
    assert cm.is_matching(edges, result, maximal=True)


@needs(GRAPHS / "wiki-Vote.mtx")
def test_read_wiki_vote_declares_8298_vertices():
    edges, vertices = read_graph(GRAPHS / "wiki-Vote.mtx")
    assert len(vertices) == 8298
    assert vertices.tolist() == list(range(1, 8299))
    assert list(edges.columns) == ["src", "dst"]  # a pattern file
    assert len(edges) > 0
