"""The Leiden CUDA kernels compiled to PTX for sm_90 (no GPU needed).

Leiden's refinement runs Louvain's move kernels with float64 community
totals (+inf marks a refined community that is not well connected), a
signature Louvain itself never compiles; the split's hooking must be an
atomic minimum (the simulator models no atomicity)."""

from __future__ import annotations

import pytest

from conftest import SIMULATED
from test_ptx import compile_ptx, monkeypatch_module  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(SIMULATED, reason="compiles real CUDA, not the simulator")

I32, I64, F64 = "int32[::1]", "int64[::1]", "float64[::1]"


@pytest.mark.parametrize("offset", [I32, I64])
@pytest.mark.parametrize("index", [I32, I64])
def test_refinement_move_kernels_compile(compile_ptx, offset, index):  # noqa: F811
    from cugraph_match.community import louvain_gpu as louvain

    shared = compile_ptx(louvain.move_shared_kernel,
                         f"({I64}, int64, int64, int64, {offset}, {index}, {I64}, {I64}, {I64}, "
                         f"{F64}, {I64}, float64, float64, {I64}, {F64})")
    assert ".target sm_90" in shared
    assert "atom.shared.cas.b64" in shared and "atom.shared.add.u64" in shared
    glob = compile_ptx(louvain.move_global_kernel,
                       f"({I64}, int64, {I64}, {I64}, {I64}, {offset}, {index}, {I64}, {I64}, "
                       f"{I64}, {F64}, {I64}, float64, float64, {I64}, {F64})")
    assert "atom.global.cas.b64" in glob and "atom.global.add.u64" in glob


@pytest.mark.parametrize("offset", [I32, I64])
@pytest.mark.parametrize("index", [I32, I64])
def test_split_kernels_compile(compile_ptx, offset, index):  # noqa: F811
    from cugraph_match.community import leiden_gpu

    hook = compile_ptx(leiden_gpu.hook_kernel, f"({offset}, {index}, {I64}, {I64}, int32[::1])")
    assert ".target sm_90" in hook
    assert "atom.global.min.s64" in hook  # hooking is an atomic minimum
    jump = compile_ptx(leiden_gpu.jump_kernel, f"({I64}, int32[::1])")
    assert "atom." not in jump  # plain loads and stores: labels only decrease
