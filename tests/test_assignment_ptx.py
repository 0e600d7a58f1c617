"""Compile the assignment's CUDA kernels to PTX for Hopper (sm_90) without a
GPU (as ``tests/test_ptx.py`` does for the other kernels): the simulator runs
them as Python and cannot catch what the real compiler rejects.  Skips when
NVVM is not installed."""

from __future__ import annotations

import pytest

from conftest import SIMULATED
from test_ptx import compile_ptx, monkeypatch_module  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(SIMULATED, reason="compiles real CUDA, not the simulator")

I64, F64, F32 = "int64[::1]", "float64[::1]", "float32[::1]"


def _signatures():
    from cugraph_match.bipartite import assignment_gpu as G

    # cost dtype, potential dtype: the auction (int64 or float64 costs, float64
    # potentials) and the ε = 0 rounds (potentials in the cost dtype)
    for cost, pot in ((F64, F64), (I64, F64), (I64, I64), (F32, F32)):
        scalar = pot.split("[")[0]
        yield G.bid_kernel, (f"({I64}, int64, {I64}, {I64}, {cost}, {pot}, {scalar}, {scalar}, "
                             f"int64, boolean, {I64}, {scalar}, {I64}, {pot}, {pot}, {scalar})")
        yield G.claim_kernel, f"({I64}, int64, {I64}, {pot}, {pot}, {I64})"
        yield G.install_kernel, (f"({I64}, int64, {I64}, {pot}, {pot}, {I64}, {pot}, {I64}, "
                                 f"{I64}, {scalar})")
        yield G.slack_kernel, (f"({I64}, {I64}, {cost}, {pot}, {I64}, {I64}, {scalar}, int64, "
                               f"{scalar})")


@pytest.mark.parametrize("kernel,signature", list(_signatures()),
                         ids=lambda x: getattr(getattr(x, "py_func", None), "__name__", x))
def test_assignment_kernels_compile_for_sm90(compile_ptx, kernel, signature):
    ptx = compile_ptx(kernel, signature)
    assert ".target sm_90" in ptx


def test_bids_use_atomic_minima_and_shuffles(compile_ptx):
    from cugraph_match.bipartite import assignment_gpu as G

    ptx = compile_ptx(G.bid_kernel, f"({I64}, int64, {I64}, {I64}, {F64}, {F64}, float64, "
                                    f"float64, int64, boolean, {I64}, float64, {I64}, {F64}, "
                                    f"{F64}, float64)")
    assert "shfl.sync.bfly" in ptx  # the warp's butterfly reduction
    assert "atom" in ptx  # the column's best bid
    ptx = compile_ptx(G.claim_kernel, f"({I64}, int64, {I64}, {F64}, {F64}, {I64})")
    assert "atom.global.min.s64" in ptx  # the smallest row among equal bids
