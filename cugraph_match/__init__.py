"""cugraph_match: matching algorithms for RAPIDS graph workflows, on the GPU and the CPU."""

from . import datasets
from .b_suitor import b_suitor_matching
from .coarsen import coarsen, coarsen_hierarchy
from .core import gpu_available
from .locally_dominant import locally_dominant_matching
from .matching import is_matching, matching_weight
from .maximal_matching import maximal_matching
from .suitor import suitor_matching

__all__ = [
    "b_suitor_matching",
    "coarsen",
    "coarsen_hierarchy",
    "datasets",
    "gpu_available",
    "is_matching",
    "locally_dominant_matching",
    "matching_weight",
    "maximal_matching",
    "suitor_matching",
]
__version__ = "0.1.0"
