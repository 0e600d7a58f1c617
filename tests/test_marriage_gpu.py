"""The stable-marriage family on a real GPU (skipped without one).

Run on a GPU machine with ``pytest tests/test_marriage_gpu.py``; the
simulator pass (test_marriage_simulator.py) covers the same kernels on small
instances everywhere else.
"""

from __future__ import annotations

import numpy as np
import pytest

import cugraph_match as cm
from cugraph_match.structure.backend import gpu_available
from cugraph_match.datasets import stable_marriage_instance, stable_marriage_master_lists

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_available(), reason="no usable CUDA GPU (CuPy + numba-cuda)")]

LAUNCHES = [(32, 0), (128, 4), (256, 16), (1024, 1)]


@pytest.mark.parametrize("kind,n", [("easy", 200_000), ("hard", 1500)])
def test_stable_marriage_equals_cpu(kind, n):
    pp, ap = stable_marriage_instance(n, kind, seed=1)
    expected = cm.stable_marriage(pp, ap, backend="cpu")
    for algorithm in ("mcvitie_wilson", "gale_shapley"):
        for tpb, solo in LAUNCHES:
            got = cm.stable_marriage(pp, ap, algorithm=algorithm, backend="gpu",
                                     threads_per_block=tpb, solo_entries=solo)
            assert got.equals(expected), (algorithm, tpb, solo)


def test_master_lists_closed_form():
    n = 50_000
    p_order, a_order = stable_marriage_master_lists(n, seed=2)
    expected = np.empty(n, dtype=np.int64)
    expected[a_order] = p_order
    for solo in (0, 4):
        mate = cm.stable_marriage_master_lists(p_order, a_order, backend="gpu", solo_entries=solo)
        assert np.array_equal(mate.get(), expected)


def test_popular_and_b_marriage_equal_cpu():
    pp, ap = stable_marriage_instance(100_000, "easy", seed=3)
    assert cm.popular_matching(pp, ap, backend="gpu").equals(
        cm.popular_matching(pp, ap, backend="cpu"))
    for b in (2, 3, 5):
        assert cm.b_marriage(pp, ap, b, b, backend="gpu").equals(
            cm.b_marriage(pp, ap, b, b, backend="cpu"))


def test_cudf_in_cudf_out():
    cudf = pytest.importorskip("cudf")
    pp, ap = stable_marriage_instance(5000, "easy", seed=4)
    expected = cm.stable_marriage(pp, ap, backend="cpu")
    got = cm.stable_marriage(cudf.from_pandas(pp), cudf.from_pandas(ap), backend="gpu")
    assert type(got).__module__.startswith("cudf")
    assert got.to_pandas().equals(expected)
    pairs = cm.b_marriage(cudf.from_pandas(pp), cudf.from_pandas(ap), 2, 3, backend="gpu")
    assert pairs.to_pandas().equals(cm.b_marriage(pp, ap, 2, 3, backend="cpu"))
    assert cm.blocking_pairs(cudf.from_pandas(pp), cudf.from_pandas(ap), got,
                             backend="gpu").empty
