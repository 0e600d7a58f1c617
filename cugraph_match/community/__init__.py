"""Community detection: Louvain (CPU and GPU) and the modularity of a partition."""

from .louvain import louvain
from .modularity import modularity

__all__ = ["louvain", "modularity"]
