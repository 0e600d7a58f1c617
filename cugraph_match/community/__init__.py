"""Community detection: Louvain and Leiden (CPU and GPU) and the modularity of a partition."""

from .leiden import leiden
from .louvain import louvain
from .modularity import modularity

__all__ = ["leiden", "louvain", "modularity"]
