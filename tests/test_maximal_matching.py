"""Handshake maximal matching: valid, maximal, reproducible, and about as large as greedy."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
from cugraph_match.matching.maximal_hash import BLUE_BELOW, round_keys
from cugraph_match.structure.hashing import mix64, mix64_host
from cugraph_match.datasets import read_graph
from oracle import SHARED_DATA, assert_equal_matchings, greedy_matching, random_greedy_matching_size
from strategies import edge_frames, multigraphs_with_isolated

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))
needs_shared = pytest.mark.skipif(not GRAPHS, reason=f"no graphs under {SHARED_DATA}")


def pairs(result):
    matched = result[result["mate"].notna()]
    return len(matched) // 2


@settings(max_examples=examples(100), deadline=None)
@given(edges=edge_frames(), weighted=st.booleans(), seed=st.integers(0, 2**40),
       low_degree_first=st.booleans())
def test_valid_and_maximal(edges, weighted, seed, low_degree_first):
    result = cm.maximal_matching(edges, weighted=weighted, seed=seed, backend="cpu",
                                 low_degree_first=low_degree_first)
    assert cm.is_matching(edges, result, maximal=True)


@settings(max_examples=examples(40), deadline=None)
@given(case=multigraphs_with_isolated(), weighted=st.booleans())
def test_isolated_vertices_stay_unmatched(case, weighted):
    graph, edges, isolated = case
    result = cm.maximal_matching(graph, weighted=weighted, backend="cpu")
    assert cm.is_matching(graph, result, maximal=True)
    assert result.set_index("vertex").loc[isolated, "mate"].isna().all()


def test_same_seed_same_result_and_seeds_matter():
    edges = cm.datasets.load("netscience")
    runs = [cm.maximal_matching(edges, seed=s, weighted=False, backend="cpu") for s in range(4)]
    again = cm.maximal_matching(edges, seed=0, weighted=False, backend="cpu")
    pd.testing.assert_frame_equal(runs[0], again)
    assert any(not runs[0].equals(r) for r in runs[1:])


def _colour_key_for(blue_vertices, red_vertices):
    """A round's colour key under which exactly the given vertices are blue / red."""
    from cugraph_match.matching.maximal_cpu import is_blue

    for round_id in range(10_000):
        key, choice = round_keys(0, round_id)
        if all(is_blue(v, key) for v in blue_vertices) and \
                not any(is_blue(v, key) for v in red_vertices):
            return key, choice
    raise AssertionError("no such colouring in 10,000 rounds")


@pytest.mark.parametrize("weighted", [True, False])
def test_select_rules_with_a_chosen_colouring(weighted):
    """Blue 0 and 1 both see red 2, 3, 4; weighted, each proposes to its heaviest
    red neighbour and red 2 accepts its heaviest proposer; random, a proposal
    goes to some red neighbour and is accepted only from an actual proposer."""
    from cugraph_match.matching.maximal_cpu import match, propose, respond

    edges = pd.DataFrame({"src": [0, 0, 0, 1, 1, 1], "dst": [2, 3, 4, 2, 3, 4],
                          "weight": [5.0, 1.0, 2.0, 7.0, 6.0, 1.0]})
    pg = cm.Graph(edges, backend="cpu").neighbour_csr()
    key, choice = _colour_key_for([0, 1], [2, 3, 4])
    mate = np.full(5, -1, dtype=np.int64)
    request = np.full(5, -1, dtype=np.int64)
    propose(pg.offsets, pg.indices, pg.weights, mate, request, key, choice, weighted, True)
    respond(pg.offsets, pg.indices, pg.weights, mate, request, key, choice, weighted, True)
    if weighted:
        assert request[0] == 2 and request[1] == 2  # both want 2 (weights 5 and 7)
        assert request[2] == 1  # 2 takes the heavier proposer
        assert request[3] == -1 and request[4] == -1  # nobody proposed to them
    else:
        assert request[0] in (2, 3, 4) and request[1] in (2, 3, 4)
        for red in (2, 3, 4):
            assert request[red] == -1 or request[request[red]] == red
    live = match(mate, request)
    assert live == 5 - 2 * int((mate >= 0).sum() // 2)
    if weighted:
        assert list(mate) == [-1, 2, 1, -1, -1]


@pytest.mark.parametrize("m", [1, 5, 40])
def test_star_matches_one_edge(m):
    edges = pd.DataFrame({"src": [0] * m, "dst": list(range(1, m + 1))})
    for seed in range(5):
        result = cm.maximal_matching(edges, seed=seed, weighted=False, backend="cpu")
        assert pairs(result) == 1


def test_disjoint_edges_all_match_and_complete_graph_nearly_all():
    disjoint = pd.DataFrame({"src": list(range(0, 40, 2)), "dst": list(range(1, 41, 2))})
    assert pairs(cm.maximal_matching(disjoint, backend="cpu")) == 20
    complete = nx.complete_graph(15)
    assert pairs(cm.maximal_matching(complete, weighted=False, backend="cpu")) == 7


def test_suitor_method_is_suitor():
    edges = cm.datasets.load("lesmis")
    result = cm.maximal_matching(edges, method="suitor", backend="cpu")
    pd.testing.assert_frame_equal(result, cm.suitor_matching(edges, backend="cpu"))
    unweighted = cm.maximal_matching(edges, method="suitor", weighted=False, backend="cpu")
    expected = greedy_matching(edges["src"], edges["dst"])  # every weight 1
    expected = {v: (m, None if m is None else float(w)) for v, (m, _) in expected.items()
                for w in [edges.loc[((edges.src == v) & (edges.dst == m))
                                    | ((edges.src == m) & (edges.dst == v)), "weight"].max()]}
    assert_equal_matchings(unweighted, expected)


@needs_shared
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_real_graphs_maximal_and_near_greedy_size(path):
    """Valid and maximal; size within a soft band of serial random greedy.

    The paper reports > 99% of the serial size on average; the band asserted
    here is 95% of the serial random greedy (seeded), a soft bound that
    leaves room for graph-to-graph variation."""
    edges, vertices = read_graph(path)
    serial = random_greedy_matching_size(edges["src"], edges["dst"], seed=1)
    result = cm.maximal_matching(edges, weighted=False, seed=1, backend="cpu")
    assert cm.is_matching(edges, result, maximal=True)
    assert pairs(result) >= 0.95 * serial
    # the paper's uniform choice: valid and maximal; its size is measured (0.91-1.00 of
    # serial here, in the benchmark), with only a loose band asserted
    uniform = cm.maximal_matching(edges, weighted=False, seed=1, low_degree_first=False,
                                  backend="cpu")
    assert cm.is_matching(edges, uniform, maximal=True)
    assert pairs(uniform) >= 0.85 * serial
    heavy = cm.maximal_matching(edges, weighted=True, seed=1, backend="cpu")
    assert cm.is_matching(edges, heavy, maximal=True)


def test_input_is_not_modified():
    edges = cm.datasets.load("lesmis")
    before = edges.copy()
    cm.maximal_matching(edges, backend="cpu")
    pd.testing.assert_frame_equal(edges, before)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"method": "greedy"}, ValueError, "method must be one of ('handshake', 'suitor')"),
    ({"seed": 1.5}, TypeError, "seed must be an int, got 1.5"),
    ({"seed": None}, TypeError, "seed must be an int, got None"),
    ({"max_rounds": 1}, RuntimeError, "did not finish in 1 rounds"),
    # checked before any work (0 raised only once the graph was built; 'x' and
    # 2.5 were taken); a string flag read as true did the opposite of 'no'
    ({"max_rounds": 0}, ValueError, "max_rounds must be a positive int, got 0"),
    ({"max_rounds": "x"}, ValueError, "max_rounds must be a positive int, got 'x'"),
    ({"max_rounds": 2.5}, ValueError, "max_rounds must be a positive int, got 2.5"),
    ({"weighted": "no"}, TypeError, "weighted must be True or False, got 'no'"),
    ({"low_degree_first": "no"}, TypeError, "low_degree_first must be True or False, got 'no'"),
])
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error) as info:
        cm.maximal_matching(cm.datasets.load("karate"), backend="cpu", **kwargs)
    assert message in str(info.value)


# --- the colouring hash -------------------------------------------------------


def test_mix64_is_the_same_function_compiled_and_on_the_host():
    from numba import njit

    compiled = njit(mix64)
    for z in [0, 1, 2**63 + 5, 2**64 - 1, 0x9E3779B97F4A7C15]:
        assert int(compiled(np.uint64(z))) == mix64_host(z)
    assert mix64_host(0) == 0 and mix64_host(1) == 0x5692161D100B05E5  # SplitMix64 golden


def test_blue_fraction_is_p_and_colourings_change_per_round():
    from cugraph_match.matching.maximal_cpu import is_blue

    ids = np.arange(200_000, dtype=np.uint64)
    colour_key, _ = round_keys(0, 0)
    hashes = np.array([mix64_host(int(v) ^ int(colour_key)) for v in ids[:2000]], dtype=np.uint64)
    assert np.array_equal(hashes >> np.uint64(32) < BLUE_BELOW,
                          np.array([is_blue(int(v), colour_key) for v in ids[:2000]]))
    blue = [np.mean([is_blue(int(v), round_keys(7, r)[0]) for v in ids[:50_000]])
            for r in range(3)]
    assert all(abs(fraction - 0.53406) < 0.01 for fraction in blue)
    # vertex 0 changes colour from round to round (it does not in the paper's hash)
    assert len({bool(is_blue(0, round_keys(0, r)[0])) for r in range(64)}) == 2
    # two rounds' colourings are nearly uncorrelated
    a = np.array([is_blue(int(v), round_keys(0, 0)[0]) for v in ids[:20_000]])
    b = np.array([is_blue(int(v), round_keys(0, 1)[0]) for v in ids[:20_000]])
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.05
