"""Small real graphs shipped with the package, and readers for graph files.

Shipped (no download): ``karate`` (Zachary's karate club, unweighted),
``lesmis`` (Les Misérables co-appearances, weighted) and ``netscience``
(network-science co-authorships, weighted).  Larger graphs are read from
files with :func:`read_graph`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .stable_marriage import stable_marriage_instance, stable_marriage_master_lists

__all__ = ["available", "load", "read_graph", "stable_marriage_instance",
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


def read_graph(path: str | Path) -> tuple[pd.DataFrame, pd.Series]:
    """Read a MatrixMarket file or a whitespace-separated edge list.

    Handles the forms in cuGraph's test data: a MatrixMarket coordinate file
    (pattern or real; its size line declares vertices ``1..n``), a bare
    ``src dst [weight]`` list (ids may be strings), and lines holding a
    single id, which declare an isolated vertex.

    Returns
    -------
    edges : pandas.DataFrame
        ``src | dst`` and, when the file has weights, ``weight``.
    vertices : pandas.Series
        Every vertex the file declares, isolated ones included.
    """
    path = Path(path)
    declared = None
    rows = []
    with path.open() as fh:
        banner = False
        for line in fh:
            if line.startswith("%%MatrixMarket"):
                banner = True
                continue
            if line.startswith("%") or not line.strip():
                continue
            if banner and declared is None:
                n_rows, n_cols, _ = line.split()[:3]
                declared = max(int(n_rows), int(n_cols))
                continue
            rows.append(line.split())
    width = max((len(r) for r in rows), default=2)
    isolated = [r[0] for r in rows if len(r) == 1]
    pairs = [r for r in rows if len(r) >= 2]
    frame = pd.DataFrame({"src": [r[0] for r in pairs], "dst": [r[1] for r in pairs]})
    if width >= 3:
        frame["weight"] = pd.to_numeric(pd.Series([r[2] if len(r) > 2 else "1" for r in pairs]))
    ids = pd.concat([frame["src"], frame["dst"], pd.Series(isolated, dtype=object)],
                    ignore_index=True)
    if ids.map(_is_int).all():
        frame["src"] = frame["src"].astype(np.int64)
        frame["dst"] = frame["dst"].astype(np.int64)
        ids = ids.astype(np.int64)
    if declared is not None:
        ids = pd.concat([ids, pd.Series(np.arange(1, declared + 1, dtype=np.int64))],
                        ignore_index=True)
    vertices = ids.drop_duplicates().sort_values().reset_index(drop=True)
    return frame, vertices


def _is_int(text) -> bool:
    try:
        int(text)
        return True
    except (TypeError, ValueError):
        return False
