"""A NetworkX call the backend declines says why in the exception it raises,
and automatic dispatch still leaves such calls to NetworkX without converting."""

from __future__ import annotations

import math

import networkx as nx
import pytest

from cugraph_match.nx import interface
from cugraph_match.nx.interface import BackendInterface, backend_interface

BACKEND = "cugraph_match"


@pytest.fixture(autouse=True)
def cpu_device():
    with nx.config.backends.cugraph_match(device="cpu"):
        yield


# (NetworkX function, its name, positional args, keyword args, words of the reason)
DECLINED = {
    "exact matching": (nx.max_weight_matching, "max_weight_matching", (nx.complete_graph(4),),
                       {}, "max_weight_matching is exact"),
    "exact min matching": (nx.min_weight_matching, "min_weight_matching",
                           (nx.complete_graph(4),), {}, "min_weight_matching is exact"),
    "directed Louvain": (nx.community.louvain_communities, "louvain_communities",
                         (nx.DiGraph([(0, 1), (1, 2)]),), {}, "directed modularity"),
    "callable weight": (nx.community.louvain_communities, "louvain_communities",
                        (nx.path_graph(3),), {"weight": len}, "weight=<built-in function len>"),
    "infinite resolution": (nx.community.louvain_communities, "louvain_communities",
                            (nx.path_graph(3),), {"resolution": math.inf}, "resolution=inf"),
    "NaN node": (nx.maximal_matching, "maximal_matching",
                 (nx.Graph([(math.nan, math.nan), (1, 2)]),), {}, "not equal to itself (NaN)"),
    "multigraph maximality": (nx.is_maximal_matching, "is_maximal_matching",
                              (nx.MultiGraph([(0, 1)]), {(0, 1)}), {}, "multigraph"),
}


@pytest.mark.parametrize("case", DECLINED)
def test_a_declined_call_says_why(case):
    function, name, args, kwargs, words = DECLINED[case]
    with pytest.raises(NotImplementedError) as info:
        function(*args, backend=BACKEND, **kwargs)
    message = str(info.value)
    assert words in message and "backend='networkx'" in message, message
    # word for word the reason BackendInterface.can_run gives
    reason = BackendInterface.can_run(name, args, kwargs)
    assert isinstance(reason, str) and f"because: {reason}." in message


def test_automatic_dispatch_still_falls_back_without_converting():
    G = nx.complete_graph(5)
    with nx.config(fallback_to_nx=True, backend_priority=[BACKEND], cache_converted_graphs=True):
        assert nx.max_weight_matching(G) == nx.max_weight_matching(G, backend="networkx")
        D = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
        assert nx.community.louvain_communities(D, seed=1) == \
            nx.community.louvain_communities(D, seed=1, backend="networkx")
    # declined before any conversion: nothing cached for the backend
    assert not G.__networkx_cache__.get("backends", {}).get(BACKEND)


def test_can_run_itself_returns_the_reason_and_the_suite_gets_it_returned(monkeypatch):
    G = nx.complete_graph(3)
    reason = BackendInterface.can_run("max_weight_matching", (G,), {})
    assert isinstance(reason, str) and reason.startswith("max_weight_matching is exact")
    with pytest.raises(NotImplementedError, match="max_weight_matching is exact"):
        backend_interface.can_run("max_weight_matching", (G,), {})
    assert backend_interface.can_run("maximal_matching", (G,), {}) is True
    # NetworkX's test harness falls back to NetworkX on a returned reason and
    # would fail on a raised one: while its suite runs, the reason is returned
    monkeypatch.setattr(interface, "_NETWORKX_SUITE", [False])
    backend_interface.on_start_tests([])
    assert backend_interface.can_run("max_weight_matching", (G,), {}) == reason


@pytest.mark.parametrize("bad", [[3], (1, 2), 10**400])
def test_weights_that_are_not_real_numbers_are_left_to_networkx(bad):
    """A list, tuple or ragged array as one edge's weight made the conversion
    raise NumPy's 'inhomogeneous shape' ValueError (and an int past float64
    its OverflowError) under automatic dispatch, where declining leaves the
    call to NetworkX, which raises its own error or answers."""
    import numpy as np

    def outcome(call):
        try:
            return "ok", call()
        except Exception as error:  # noqa: BLE001 - compared with NetworkX's own
            return type(error).__name__, str(error)

    G = nx.karate_club_graph()
    G[0][1]["weight"] = bad
    calls = [lambda: nx.community.louvain_communities(G, seed=1),
             lambda: nx.community.modularity(G, [set(G)])]
    expected = [outcome(call) for call in calls]
    with nx.config(fallback_to_nx=True, backend_priority=[BACKEND], cache_converted_graphs=False):
        assert [outcome(call) for call in calls] == expected
    G[0][1]["weight"] = np.array([2.0])  # NetworkX answers with a one-element array
    with nx.config(fallback_to_nx=True, backend_priority=[BACKEND], cache_converted_graphs=False):
        assert nx.community.modularity(G, [set(G)]) == \
            pytest.approx(nx.community.modularity(G, [set(G)], backend="networkx"))
