"""Small real graphs shipped with the package, and readers for graph files.

Shipped (no download): ``karate`` (Zachary's karate club, unweighted),
``lesmis`` (Les Misérables co-appearances, weighted) and ``netscience``
(network-science co-authorships, weighted).  Larger graphs are read from
files with :func:`read_graph`.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .files import MAX_ISOLATED, read_graph
from .stable_marriage import stable_marriage_instance, stable_marriage_master_lists

__all__ = ["MAX_ISOLATED", "available", "load", "read_graph", "stable_marriage_instance",
           "stable_marriage_master_lists"]

_SHIPPED = {
    "karate": "Zachary's karate club: 34 vertices, 78 edges, unweighted",
    "lesmis": "Les Miserables co-appearances: 77 vertices, 254 edges, weighted",
    "netscience": "network-science co-authorships: 1,461 vertices with edges (1,589 in the original), 2,742 edges, weighted",
}


def available() -> dict[str, str]:
    """Names and one-line descriptions of the shipped graphs."""
    return dict(_SHIPPED)


def load(name: str) -> pd.DataFrame:
    """A shipped graph as a pandas edge list ``src | dst | weight``.

    Examples
    --------
    >>> from cugraph_match import datasets
    >>> datasets.load("karate").shape
    (78, 3)
    """
    if name not in _SHIPPED:
        raise ValueError(f"unknown dataset {name!r}; shipped: {sorted(_SHIPPED)}")
    with resources.files(__name__).joinpath(f"{name}.csv").open("r") as fh:
        return pd.read_csv(fh, dtype={"src": np.int64, "dst": np.int64, "weight": np.float64})
