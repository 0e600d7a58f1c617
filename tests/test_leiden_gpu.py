"""GPU Leiden on a real GPU (skipped without one): connected communities, Q,
the same result on every run, quality beside the CPU's.  No GPU was lent when
these were written: the bands are the simulator's, not measured on hardware."""

from __future__ import annotations

import networkx as nx
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.datasets import read_graph
from cugraph_match.structure.backend import gpu_available
from oracle import SHARED_DATA

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_available(),
                                 reason="no usable CUDA GPU (CuPy + numba-cuda)")]

GRAPHS = sorted((SHARED_DATA / "graphs").glob("*.mtx"))


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.stem)
def test_leiden_real_graphs(path):
    edges, _ = read_graph(path)
    parts, q = cm.leiden(edges, backend="gpu")
    assert q == pytest.approx(cm.modularity(edges, parts), abs=1e-9)
    graph = nx.from_pandas_edgelist(edges, "src", "dst")
    for _, members in parts.groupby("community")["vertex"]:
        assert nx.is_connected(graph.subgraph(members.tolist()))
    again = cm.leiden(edges, backend="gpu")
    pd.testing.assert_frame_equal(again[0], parts)
    assert again[1] == q
    assert q >= 0.95 * cm.leiden(edges, backend="cpu")[1]
