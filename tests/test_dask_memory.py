"""The memory-limited proof, small: 8 worker processes, each limited to its
idle resident memory (after imports and compilation) plus a third of what
the single-machine call needs above its own, finish ``suitor_matching``
with the exact single-machine result, and no worker pauses, is restarted or
is replaced; each worker's true peak (``VmHWM``, not Dask's 100 ms samples)
stays within its limit.  The run itself (limits, pause and terminate at the
limit, spilling off) is ``benchmarks/dask_limited.py``, which
``bench_dask_limited.py`` runs at R-MAT 20 and 22."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from dask_limited import limited_run, single_machine  # noqa: E402
from rmat import rmat_edges  # noqa: E402
from dask_warmup import warm_dask_kernels  # noqa: E402

WORKERS = 8
SCALE = 16


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("setting, layout", [("auto", "edge"), ("vertex", "vertex")])
def test_eight_workers_limited_to_a_third_of_the_single_machine_memory(setting, layout):
    """Both layouts: ``"auto"`` takes the edge one for R-MAT's scattered ids,
    distinct weights and 16 rows per id."""
    import dask

    cm.suitor_matching(rmat_edges(8, seed=1), backend="cpu")  # compiled before measuring
    warm_dask_kernels(extra=[rmat_edges(8, seed=1)])  # compiled once here, not in 8 workers
    edges, expected, single, _ = single_machine(lambda: rmat_edges(SCALE, seed=3))
    assert np.isfinite(single) and single > 0
    # 12-35 s on the 2-core machine: a stalled (paused) cluster fails at 180 s
    with dask.config.set({"cugraph_match.dask.layout": setting}):
        run = limited_run(edges, single, workers=WORKERS, share=1 / 3,
                          warm=rmat_edges(8, seed=1), timeout=180)
    assert run["layout"] == layout
    assert run["pids_after"] == run["pids"]  # no worker restarted or replaced
    got = run["result"]
    pd.testing.assert_frame_equal(got.astype({"vertex": expected["vertex"].dtype}), expected)
    for address, changes in run["events"].items():
        # the only status change allowed is the start (init -> running)
        assert not changes, (address, changes)
    over = {a: (run["peak"][a] - run["idle"][a]) / (single / 3) for a in run["peak"]}
    assert max(over.values()) <= 1.0, over
