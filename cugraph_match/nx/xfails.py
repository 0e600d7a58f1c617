"""Tests of NetworkX's own suite expected to fail on this backend, each with its reason.

NetworkX calls the backend's ``on_start_tests`` hook (``networkx/conftest.py``)
when its suite runs with ``NETWORKX_TEST_BACKEND=cugraph_match``; the hook
marks these tests ``xfail`` (not strict: they may pass).

On the CPU the list is empty: every test of NetworkX's suite for a dispatched
function passes (ci/test.sh, step 3).  Four Louvain tests assert the exact
partition NetworkX finds for a seed; the CPU kernels visit vertices in a
different random order yet find the same partitions of the karate club, but
the GPU's move phase decides a whole degree bucket at once (Naim et al.), a
different and equally valid Louvain, so those four are expected to differ
there.  No GPU was available to confirm it.
"""

from __future__ import annotations

_LOUVAIN = "networkx.algorithms.community.tests.test_louvain"
_GPU_LOUVAIN = (
    "asserts the exact partition NetworkX's sequential Louvain finds for a seed; the GPU "
    "kernels move the vertices of a degree bucket at once (Naim et al.), a different, "
    "equally valid Louvain")

# (test module, test name) -> reason, for the device the tests run on
EXPECTED_FAILURES: dict[str, dict[tuple[str, str], str]] = {
    "cpu": {},
    "gpu": {
        (_LOUVAIN, "test_karate_club_partition"): _GPU_LOUVAIN,
        (_LOUVAIN, "test_undirected_selfloops"): _GPU_LOUVAIN,
        (_LOUVAIN, "test_none_weight_param"): _GPU_LOUVAIN,
        (_LOUVAIN, "test_multigraph"): _GPU_LOUVAIN + " (here: that two weightings give "
                                       "equal partitions)",
    },
}


def mark_expected_failures(items, device: str | None = None) -> None:
    """Add an ``xfail`` marker, with its reason, to each listed test.

    ``device`` is where the backend's kernels run (default: where
    ``nx.config.backends.cugraph_match.device`` resolves).
    """
    import pytest

    if device is None:
        from ..structure.backend import resolve_backend
        from .config import device as configured_device

        device = resolve_backend(configured_device()).name
    expected = EXPECTED_FAILURES[device]
    for item in items:
        module = getattr(getattr(item, "module", None), "__name__", "")
        name = getattr(item, "originalname", None) or item.name
        reason = expected.get((module, name))
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=False))
