"""A NetworkX backend: ``backend="cugraph_match"`` for NetworkX's matching and
community functions.

Install the package and NetworkX finds the backend through its entry points
(``networkx.backends`` → :data:`~cugraph_match.nx.interface.backend_interface`,
``networkx.backend_info`` → ``_cugraph_match_nx.get_info``, a separate tiny
module so that ``import networkx`` does not import this package).  Then::

    nx.maximal_matching(G, backend="cugraph_match")
    nx.community.louvain_communities(G, seed=1, backend="cugraph_match")

or ``NETWORKX_BACKEND_PRIORITY=cugraph_match`` to run every supported call
here, leaving small graphs and unsupported arguments to NetworkX.

Layout: ``graph.py`` (the converted graph and the conversions),
``matching.py`` and ``community.py`` (one function per dispatched NetworkX
function, NetworkX's name and signature), ``interface.py`` (what NetworkX
loads: conversions, ``can_run``/``should_run``, the function table) and
``xfails.py`` (the tests of NetworkX's suite expected to differ, with
reasons).
"""

from .graph import NxGraph, from_networkx, to_networkx
from .interface import BackendInterface, backend_interface

__all__ = ["BackendInterface", "NxGraph", "backend_interface", "from_networkx", "to_networkx"]
