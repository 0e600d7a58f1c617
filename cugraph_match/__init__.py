"""cugraph_match: matching algorithms for RAPIDS graph workflows, on the GPU and the CPU."""

from . import datasets
from .b_marriage import b_marriage
from .b_suitor import b_suitor_matching
from .coarsen import coarsen, coarsen_hierarchy
from .core import gpu_available
from .locally_dominant import locally_dominant_matching
from .louvain import louvain
from .matching import is_matching, matching_weight
from .maximal_matching import maximal_matching
from .modularity import modularity
from .popular_matching import popular_matching
from .stable_marriage import blocking_pairs, stable_marriage, stable_marriage_master_lists
from .suitor import suitor_matching

__all__ = [
    "b_marriage",
    "b_suitor_matching",
    "blocking_pairs",
    "coarsen",
    "coarsen_hierarchy",
    "datasets",
    "gpu_available",
    "is_matching",
    "locally_dominant_matching",
    "louvain",
    "matching_weight",
    "maximal_matching",
    "modularity",
    "popular_matching",
    "stable_marriage",
    "stable_marriage_master_lists",
    "suitor_matching",
]
__version__ = "0.1.0"
