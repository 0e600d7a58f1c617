"""pytest plugin for NetworkX's own suite run against the backend (ci/test.sh, step 3).

A test of NetworkX's suite "passes" whether its calls ran on the backend or
fell back to NetworkX, so the counts alone overstate what was checked.  This
plugin listens to NetworkX's dispatch log (logger ``networkx.utils.backends``,
DEBUG) and sorts every test by what its calls did:

- *backend*: at least one call ran on ``cugraph_match``;
- *fallback only*: calls to functions the backend has, all refused by
  ``can_run`` (or raising NotImplementedError) and run by NetworkX;
- *NetworkX only*: no call to a function the backend has.

and prints the outcome counts of each group at the end.  Load it with
``PYTHONPATH=ci python -m pytest -p nx_suite_report ...``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter, defaultdict

import pytest

BACKEND = "cugraph_match"


@functools.cache
def _implemented() -> frozenset[str]:
    import networkx as nx

    return frozenset(nx.utils.backends.backend_info[BACKEND]["functions"])


class _DispatchLog(logging.Handler):
    """Counts, for the running test, calls that ran on the backend and calls
    that fell back to NetworkX (NetworkX's test-mode log lines)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.ran = self.fell_back = 0

    def emit(self, record):
        message = record.getMessage()
        if message.startswith(f"Using backend '{BACKEND}' for call"):
            self.ran += 1
        elif message.startswith(f"Backend '{BACKEND}' raised when calling"):
            self.ran -= 1  # it started on the backend, then NetworkX took it
            self.fell_back += 1
        elif f"instead of '{BACKEND}' backend" in message:  # can_run refused, or conversion
            called = re.search(r"for call to '(\w+)'", message)
            if called is None or called.group(1) in _implemented():
                self.fell_back += 1  # (a function the backend lacks is not a fallback)


_handler = _DispatchLog()
_groups: dict[str, str] = {}
_outcomes: dict[str, str] = {}


def pytest_configure(config):
    logger = logging.getLogger("networkx.utils.backends")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _handler.ran = _handler.fell_back = 0
    yield
    # under --pyargs node ids lose their module ("::test_quality"): keyed by file too,
    # or same-named tests of two modules (test_louvain, test_leiden) count once
    key = f"{item.location[0]}{item.nodeid}"
    if _handler.ran > 0:
        _groups[key] = "backend"
    elif _handler.fell_back > 0:
        _groups[key] = "fallback only"
    else:
        _groups[key] = "NetworkX only"


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.outcome == "skipped" else "xpassed"
        _outcomes[f"{report.location[0]}{report.nodeid}"] = outcome


def pytest_terminal_summary(terminalreporter):
    table = defaultdict(Counter)
    for nodeid, group in _groups.items():
        table[group][_outcomes.get(nodeid, "passed")] += 1
    terminalreporter.section(f"NetworkX suite on the {BACKEND} backend")
    for group in ("backend", "fallback only", "NetworkX only"):
        counts = ", ".join(f"{count} {outcome}" for outcome, count in sorted(table[group].items()))
        terminalreporter.write_line(f"{group:>14}: {sum(table[group].values())} tests ({counts})")
    if terminalreporter.config.getoption("verbose") > 0:
        for nodeid, group in sorted(_groups.items()):
            terminalreporter.write_line(f"  {group:>14}  {_outcomes.get(nodeid, '?'):>8}  {nodeid}")
