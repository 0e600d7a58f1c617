"""Matchings and what is built on them: Suitor, locally-dominant, b-Suitor,
ROMA local search, handshake maximal matching, coarsening, and the checks of a matching.  Each
algorithm's public function sits beside its CPU (``*_cpu``) and GPU
(``*_gpu``) kernels."""

from .b_suitor import b_suitor_matching
from .coarsen import coarsen, coarsen_hierarchy, project_partition
from .locally_dominant import locally_dominant_matching
from .maximal import maximal_matching
from .properties import is_matching, matching_weight
from .roma import RomaInfo, roma_matching
from .suitor import suitor_matching

__all__ = ["b_suitor_matching", "coarsen", "coarsen_hierarchy", "is_matching",
           "locally_dominant_matching", "matching_weight", "maximal_matching", "project_partition",
           "RomaInfo",
           "roma_matching", "suitor_matching"]
