"""The stable-marriage family: stable marriage (McVitie-Wilson, Gale-Shapley),
b-marriage, popular matching and blocking pairs, on shared preference plumbing."""

from .b_marriage import b_marriage
from .popular import popular_matching
from .stable_marriage import blocking_pairs, stable_marriage, stable_marriage_master_lists

__all__ = ["b_marriage", "blocking_pairs", "popular_matching", "stable_marriage",
           "stable_marriage_master_lists"]
