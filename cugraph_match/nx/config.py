"""The backend's settings in NetworkX's configuration,
``nx.config.backends.cugraph_match`` (``device``, ``threads``), read at each call."""

from __future__ import annotations

from .graph import BACKEND_NAME


def config_value(key: str, default):
    """``nx.config.backends.cugraph_match.<key>``, or ``default`` when unset."""
    import networkx as nx

    config = getattr(nx.config.backends, BACKEND_NAME, None)
    return getattr(config, key, default) if config is not None else default


def device() -> str:
    """``nx.config.backends.cugraph_match.device``: "auto", "cpu" or "gpu"."""
    value = config_value("device", "auto")
    if value not in ("auto", "cpu", "gpu"):
        raise ValueError(f"nx.config.backends.{BACKEND_NAME}.device must be 'auto', 'cpu' or "
                         f"'gpu', got {value!r}")
    return value
