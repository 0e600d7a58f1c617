"""cugraph_match: matching algorithms for RAPIDS graph workflows, on the GPU and the CPU."""

from . import datasets
from .b_suitor import b_suitor_matching
from .core import gpu_available
from .locally_dominant import locally_dominant_matching
from .matching import is_matching, matching_weight
from .suitor import suitor_matching

__all__ = [
    "b_suitor_matching",
    "datasets",
    "gpu_available",
    "is_matching",
    "locally_dominant_matching",
    "matching_weight",
    "suitor_matching",
]
__version__ = "0.1.0"
