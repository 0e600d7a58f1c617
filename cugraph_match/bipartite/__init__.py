"""Two-table (bipartite) problems: the two sides are separate id spaces."""

from .assignment import assignment

__all__ = ["assignment"]
