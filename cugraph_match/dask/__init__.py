"""Distributed matching on Dask: Dask and Dask-cuDF edge lists in, the same
exact results out, computed across the workers of a ``dask.distributed``
cluster.

:func:`cugraph_match.suitor_matching`, :func:`~cugraph_match.locally_dominant_matching`,
:func:`~cugraph_match.b_suitor_matching` and :func:`~cugraph_match.modularity`
take a Dask DataFrame (or a :class:`DistributedGraph` built from one) and
return a Dask DataFrame partitioned by vertex (modularity: a float).  Dask is
imported only when such an input arrives.

Layout: ``graph`` (the distributed graph and its build), ``worker`` (what
runs on the workers, and the parts they keep), ``kernels`` (the numba
superstep), ``matching`` and ``modularity`` (the drivers); ``edge_split`` and
``edge_split_worker``: the matchings' edge-split layout (rows kept where they
lie), taken when the Dask setting ``cugraph_match.dask.layout`` is ``"edge"``,
or under ``"auto"`` (the default) where a sample of rows says it pays.
"""

from .graph import DistributedGraph, is_dask_input

__all__ = ["DistributedGraph", "is_dask_input"]
