"""Distributed matching on Dask: an edge list split across workers, matched
there, the same exact result as one machine.

Runs on pandas-backed Dask with a LocalCluster (CPU workers); where a GPU and
RAPIDS are installed it uses ``dask_cudf`` partitions on a ``LocalCUDACluster``
instead (the workers read cuDF partitions and run the superstep kernels on
their host copy of them).

Run: python examples/dask_matching.py
"""

import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

import cugraph_match as cm


def cluster_and_frame(edges: pd.DataFrame):
    try:
        import dask_cudf  # noqa: F401
        from dask_cuda import LocalCUDACluster

        if cm.gpu_available():
            import cudf

            return LocalCUDACluster(), dd.from_pandas(cudf.from_pandas(edges), npartitions=4)
    except ImportError:
        pass
    return (LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=None),
            dd.from_pandas(edges, npartitions=4))


def main() -> None:
    rng = np.random.default_rng(0)
    edges = pd.DataFrame({"src": rng.integers(0, 5000, 40000),
                          "dst": rng.integers(0, 5000, 40000),
                          "weight": rng.integers(1, 10, 40000)})  # integer weights: many ties
    cluster, frame = cluster_and_frame(edges)
    with cluster, Client(cluster):
        graph = cm.dask.DistributedGraph(frame)  # built once, kept on the workers
        print(graph)
        matching, stats = cm.suitor_matching(graph, return_stats=True)
        print(matching.npartitions, "partitions by vertex;", stats["rounds"], "supersteps,",
              stats["bytes_moved"], "bytes moved between workers")
        result = matching.compute()
        single = cm.suitor_matching(edges, backend="cpu")
        print("same as one machine:", result["mate"].equals(single["mate"]))
        print("weight:", cm.matching_weight(result))

        pairs = cm.b_suitor_matching(graph, b=3).compute()
        print("b = 3:", len(pairs), "edges, same as one machine:",
              pairs.equals(cm.b_suitor_matching(edges, b=3, backend="cpu")))

        parts = pd.DataFrame({"vertex": result["vertex"], "community": result["vertex"] % 7})
        print("modularity:", round(cm.modularity(graph, parts), 6),
              "one machine:", round(cm.modularity(edges, parts), 6))


if __name__ == "__main__":
    main()
