"""The ROMA CUDA kernels compiled to PTX for sm_90 (no GPU needed), and the
instructions the locking relies on actually emitted.

The simulator models no memory ordering: these checks make sure the
compare-and-swap locks, the atomic exchange that releases them, the fences
around the critical section and the atomic re-reads of the mates are in the
code the hardware would run.
"""

from __future__ import annotations

import pytest

from conftest import SIMULATED
from registers import assert_fits_1024
from test_ptx import compile_ptx, monkeypatch_module  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(SIMULATED, reason="compiles real CUDA, not the simulator")

I32, I64, F64 = "int32[::1]", "int64[::1]", "float64[::1]"


def _dense_signature(matrix="float32[:, ::1]", points="float64[:, ::1]"):
    return f"({matrix}, {points}, int64, {I64}, {F64}, {I64}, float64, {I64})"


def _sparse_signature(offsets=I64, indices=I32):
    return f"({offsets}, {indices}, {F64}, {I64}, {F64}, {I64}, float64, {I64})"


def _fenced(ptx: str) -> bool:
    return "membar.gl" in ptx or "fence.sc.gpu" in ptx or "fence.acq_rel.gpu" in ptx


# a float32 matrix (the thesis'), and points (float32 here) beside an empty matrix
@pytest.mark.parametrize("matrix,points", [("float32[:, ::1]", "float64[:, ::1]"),
                                           ("float64[:, ::1]", "float32[:, ::1]")])
def test_dense_kernels_compile(compile_ptx, matrix, points):  # noqa: F811
    from cugraph_match.matching import roma_gpu

    ptx = compile_ptx(roma_gpu.dense_phase_kernel, _dense_signature(matrix, points))
    assert ".target sm_90" in ptx
    assert_fits_1024(roma_gpu.dense_phase_kernel, ptx)  # 1,024 threads by default
    assert "atom.global.cas.b64" in ptx  # try-lock
    assert "atom.global.exch.b64" in ptx  # release
    assert "atom.global.add.u64" in ptx  # coherent re-read of the mates, flip counter
    assert "ld.global.cg" in ptx  # scan reads past the incoherent L1
    assert "bar.sync" in ptx  # the block's reduction
    assert _fenced(ptx)
    ptx = compile_ptx(roma_gpu.dense_candidates_kernel,
                      f"({matrix}, {points}, int64, {I64}, {I64})")
    assert_fits_1024(roma_gpu.dense_candidates_kernel, ptx)
    assert "bar.sync" in ptx and "atom." not in ptx
    compile_ptx(roma_gpu.dense_match_kernel, f"({I64}, {I64}, {I64})")


@pytest.mark.parametrize("offsets,indices", [(I32, I32), (I64, I32)])
def test_sparse_kernel_compiles(compile_ptx, offsets, indices):  # noqa: F811
    from cugraph_match.matching import roma_gpu

    ptx = compile_ptx(roma_gpu.sparse_phase_kernel, _sparse_signature(offsets, indices))
    assert_fits_1024(roma_gpu.sparse_phase_kernel, ptx)  # 72 registers uncapped
    assert "atom.global.cas.b64" in ptx and "atom.global.exch.b64" in ptx
    assert "atom.global.add.u64" in ptx  # mates re-read under the locks
    assert "atom.global.add.f64" in ptx  # matched weights re-read under the locks
    assert "shfl.sync.bfly" in ptx and "shfl.sync.idx" in ptx  # reductions, lane-0 broadcast
    assert _fenced(ptx)
