"""NetworkX's ``bipartite.minimum_weight_full_matching`` on the backend.

The backend function wraps ``cm.assignment`` with NetworkX's semantics (node
sets, errors, the dict it returns).  Where this build has no
``cm.assignment``, the wrapper is tested around a stand-in with its
signature built on SciPy's ``linear_sum_assignment`` (so what is tested is
the wrapper: node sets, edges kept, errors, the result); where it has one,
the same tests run on it and NetworkX dispatches to it.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from cugraph_match.nx import bipartite as nx_bipartite
from cugraph_match.nx.interface import BackendInterface

REAL = nx_bipartite.solver()


def scipy_assignment(frame, source, destination, weight, *, maximize=False, perfect=False,
                     backend="auto"):
    """A stand-in with ``cm.assignment``'s signature: the full matching of the
    two-sided edge list (every vertex of the smaller side matched) by SciPy."""
    assert perfect and not maximize
    rows, row_of = np.unique(frame[source].to_numpy(), return_inverse=True)
    cols, col_of = np.unique(frame[destination].to_numpy(), return_inverse=True)
    cost = np.full((len(rows), len(cols)), np.inf)
    cost[row_of, col_of] = frame[weight].to_numpy()
    r, c = linear_sum_assignment(cost)  # raises ValueError when infeasible
    return pd.DataFrame({source: rows[r], destination: cols[c], weight: cost[r, c]})


@pytest.fixture(autouse=True)
def a_solver(monkeypatch):
    if REAL is None:
        monkeypatch.setattr(nx_bipartite, "solver", lambda: scipy_assignment)


def backend_call(G, top_nodes=None, weight="weight"):
    converted = BackendInterface.convert_from_nx(G, edge_attrs={weight: 1} if weight else None,
                                                 name="minimum_weight_full_matching")
    return BackendInterface.minimum_weight_full_matching(converted, top_nodes, weight)


def _weight(G, matching, weight="weight"):
    return sum(G.edges[u, v].get(weight, 1) for u, v in matching.items() if u in matching) / 2


@st.composite
def bipartite_graphs(draw):
    n_top = draw(st.integers(1, 6))
    n_bottom = draw(st.integers(1, 6))
    G = nx.Graph()
    G.add_nodes_from(range(n_top), bipartite=0)
    G.add_nodes_from(range(n_top, n_top + n_bottom), bipartite=1)
    for u in range(n_top):
        for v in range(n_top, n_top + n_bottom):
            if draw(st.integers(0, 3)):
                G.add_edge(u, v, weight=draw(st.sampled_from([-2, 0.5, 1, 1, 3, 7.25])))
    return G, list(range(n_top))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=bipartite_graphs())
def test_equals_networkx_weight_and_raises_where_it_raises(case):
    G, top = case
    try:
        expected = nx.bipartite.minimum_weight_full_matching(G, top_nodes=top,
                                                             backend="networkx")
    except ValueError:
        with pytest.raises(ValueError):
            backend_call(G, top)
        return
    got = backend_call(G, top)
    assert len(got) == len(expected)
    assert all(got[got[u]] == u and G.has_edge(u, got[u]) for u in got)
    assert np.isclose(_weight(G, got), _weight(G, expected))


def test_networkx_cases():
    """Cases of NetworkX's own test module, with the unique answers it asserts."""
    B = nx.Graph()
    B.add_nodes_from([1, 2], bipartite=0)
    B.add_nodes_from([3, 4], bipartite=1)
    B.add_edge(1, 4, weight=100)
    B.add_edge(2, 3, weight=100)
    B.add_edge(2, 4, weight=50)
    assert backend_call(B) == {1: 4, 2: 3, 4: 1, 3: 2}
    G = nx.complete_bipartite_graph(3, 4)
    for (u, v), w in zip([(0, 3), (0, 4), (0, 5), (0, 6), (1, 3), (1, 4), (1, 5), (1, 6),
                          (2, 3), (2, 4), (2, 5), (2, 6)],
                         [400, 150, 400, 1, 400, 450, 600, 2, 300, 225, 290, 3]):
        G.add_edge(u, v, weight=w)
    expected = {0: 4, 1: 6, 2: 5, 4: 0, 5: 2, 6: 1}
    assert backend_call(G) == expected
    assert backend_call(G, top_nodes=[3, 4, 5, 6]) == expected
    H = nx.complete_bipartite_graph(2, 2)
    for (u, v), w in zip([(0, 2), (0, 3), (1, 2), (1, 3)], [2, 0.2, 1, 2]):
        H.add_edge(u, v, mass=w)
    assert backend_call(H, weight="mass") == {0: 3, 1: 2, 2: 1, 3: 0}


def test_node_set_errors_as_networkx():
    with pytest.raises(nx.AmbiguousSolution, match="Disconnected graph"):
        backend_call(nx.Graph([(0, 1), (2, 3)]))
    with pytest.raises(nx.NetworkXError, match="Graph is not bipartite"):
        backend_call(nx.cycle_graph(3))
    with pytest.raises(nx.NetworkXError, match="row_order is empty list"):
        backend_call(nx.empty_graph(1))
    # the colour class of the first node is the top set: both sides the same size
    assert backend_call(nx.path_graph(2)) == {0: 1, 1: 0}
    # edges inside one top_nodes set do not count, as in NetworkX's biadjacency matrix
    G = nx.Graph([(0, 1), (0, 2), (1, 3)])
    assert backend_call(G, top_nodes=[0, 1]) == \
        nx.bipartite.minimum_weight_full_matching(G, top_nodes=[0, 1], backend="networkx")


def test_can_run_declines_what_networkx_defines_otherwise():
    assert BackendInterface.can_run("minimum_weight_full_matching",
                                    (nx.path_graph(3),), {}) is True
    for G in (nx.DiGraph([(0, 1)]), nx.MultiGraph([(0, 1)]), nx.Graph()):
        reason = BackendInterface.can_run("minimum_weight_full_matching", (G,), {})
        assert isinstance(reason, str)
    G = nx.path_graph(2)
    G.add_edge(0, 1, weight=float("nan"))
    with pytest.raises(NotImplementedError, match="NaN or infinite"):
        backend_call(G)


@pytest.mark.skipif(REAL is None, reason="this build has no cm.assignment")
def test_dispatched_by_networkx():
    G = nx.complete_bipartite_graph(3, 3)
    for u, v in G.edges:
        G.edges[u, v]["weight"] = (u + 1) * (v + 2) % 5 + 1
    got = nx.bipartite.minimum_weight_full_matching(G, backend="cugraph_match")
    expected = nx.bipartite.minimum_weight_full_matching(G, backend="networkx")
    assert np.isclose(_weight(G, got), _weight(G, expected))
