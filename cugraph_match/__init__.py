"""cugraph_match: matching algorithms for RAPIDS graph workflows, on the GPU and the CPU.

The package is laid out in wings, as cuGraph's is: ``structure`` (shared
plumbing), ``matching``, ``community`` and ``marriage`` (one folder per
family, each algorithm beside its kernels) and ``datasets``.
"""

from . import dask, datasets
from .bipartite import assignment
from .community import leiden, louvain, modularity
from .marriage import (b_marriage, blocking_pairs, popular_matching, stable_marriage,
                       stable_marriage_master_lists)
from .matching import (b_suitor_matching, coarsen, coarsen_hierarchy, is_matching,
                       locally_dominant_matching, matching_weight, maximal_matching,
                       project_partition, roma_matching, suitor_matching)
from .structure.device import gpu_available
from .structure.graph import Graph
from .structure.progress import show_progress

__all__ = [
    "Graph",
    "assignment",
    "b_marriage",
    "b_suitor_matching",
    "blocking_pairs",
    "coarsen",
    "coarsen_hierarchy",
    "dask",
    "datasets",
    "gpu_available",
    "is_matching",
    "leiden",
    "locally_dominant_matching",
    "louvain",
    "matching_weight",
    "maximal_matching",
    "modularity",
    "popular_matching",
    "project_partition",
    "roma_matching",
    "show_progress",
    "stable_marriage",
    "stable_marriage_master_lists",
    "suitor_matching",
]
__version__ = "0.1.0"
