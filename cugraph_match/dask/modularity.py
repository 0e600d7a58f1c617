"""Modularity of a partition over a distributed graph: a map over the workers'
parts and a reduce on the client.

Each worker sums the weight of the edges whose smaller end it owns (and of
its self-loops), the part of it inside communities, and its vertices'
degrees per community; the only exchange is the community of each cut
edge's far end (one code per cut edge, worker to worker).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..structure.checks import check_partition_values, check_resolution
from ..structure.inputs import DEFAULT_WEIGHT, computed
from . import worker as w
from .matching import _distribute, _raise_lookup_errors, as_distributed_graph


def modularity_dask(graph: Any, partition, resolution: float = 1.0, source: str = "src",
                    destination: str = "dst", weight: str | None = DEFAULT_WEIGHT) -> float:
    """:func:`cugraph_match.modularity` of a Dask edge list (or DistributedGraph).

    ``partition`` is a ``vertex | community`` (or cuGraph's ``vertex |
    partition``) frame (pandas, cuDF, or Dask, which is computed: it has one
    row per vertex)."""
    resolution = check_resolution(resolution)
    g = as_distributed_graph(graph, source, destination, weight)
    partition = computed(partition)
    if hasattr(partition, "to_pandas"):
        partition = partition.to_pandas()
    column = check_partition_values(partition)
    with g.exclusive():
        return _modularity(g, partition, column, resolution)


def _modularity(g, partition, column: str, resolution: float) -> float:
    codes, _ = pd.factorize(partition[column])
    vertices = partition["vertex"].reset_index(drop=True)
    shares = _distribute(g, vertices, {"code": codes}, "partition column 'vertex'")
    p = len(g.workers)
    reports = g.gather([g.submit(k, w.assign_communities, share)
                        for k, share in enumerate(shares)])
    try:
        _raise_lookup_errors(reports, vertices, "partition column 'vertex'", "community")
    except ValueError:
        g.on_all(w.drop_results, "community")
        raise
    # each worker gets the codes of its ghosts, cut edge by cut edge
    outgoing = [[g.submit(i, w.cut_codes, k) if k != i else None for k in range(p)]
                for i in range(p)]
    exponent = g.weight_exponent()  # weights near 1e308 or 1e-308, as one machine's sum_safe
    sums = g.gather([g.submit(k, w.modularity_sums, exponent,
                              [outgoing[i][k] for i in range(p)], outgoing[k])
                     for k in range(p)])
    m = float(sum(s["total"] for s in sums))
    if m == 0.0:
        raise ValueError("modularity is undefined for a graph whose total edge weight is 0")
    inside = float(sum(s["inside"] for s in sums))
    total = np.bincount(np.concatenate([s["codes"] for s in sums]),
                        weights=np.concatenate([s["degree"] for s in sums]),
                        minlength=len(_) if len(_) else 0)
    return float(inside / m - resolution * ((total / (2.0 * m)) ** 2).sum())
