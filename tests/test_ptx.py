"""Compile every CUDA kernel to PTX for Hopper (sm_90) without a GPU.

The simulator runs kernels as Python and cannot catch typing errors that the
real compiler would (it once let an unsigned warp shuffle through, which
numba-cuda rejects).  NVVM compiles without a driver; only the current
device's compute capability must be supplied.  Skips when NVVM or NVRTC is
not installed.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import SIMULATED
from registers import assert_fits_1024

pytestmark = pytest.mark.skipif(SIMULATED, reason="compiles real CUDA, not the simulator")

I32, I64 = "int32[::1]", "int64[::1]"
U32, U64 = "uint32[::1]", "uint64[::1]"


def _signatures():
    from cugraph_match.matching import b_suitor_gpu as bsuitor
    from cugraph_match.matching import locally_dominant_gpu as ld
    from cugraph_match.community import louvain_gpu as louvain
    from cugraph_match.matching import maximal_gpu as handshake
    from cugraph_match.matching import suitor_gpu as suitor

    for index in (I32, I64):
        for offset in (I32, I64):
            yield (suitor.suitor_kernel,
                   f"({offset}, {index}, {U32}, {U64}, {I64}, int64, int64)")
            yield (ld.candidates_kernel,
                   f"({I64}, int64, {offset}, {index}, {I64}, {I64}, {I64}, {I64}, int64, {I64})")
            yield (ld.next_work_kernel,
                   f"({I64}, {offset}, {index}, {I64}, {I64}, {I64}, {I64})")
            yield (bsuitor.b_suitor_kernel,
                   f"({offset}, {index}, {U32}, {I64}, {U64}, {I64}, {U64}, int32[::1], int64, "
                   f"int64)")
            for weights in ("float32[::1]", F64, I64):
                yield (handshake.propose_kernel,
                       f"({offset}, {index}, {weights}, {I64}, {I64}, uint64, uint64, boolean, "
                       f"boolean, int32[::1])")
                yield (handshake.respond_kernel,
                       f"({offset}, {index}, {weights}, {I64}, {I64}, uint64, uint64, boolean, "
                       f"boolean)")
            yield (louvain.move_shared_kernel, _louvain_shared_sig(offset, index))
            yield (louvain.move_global_kernel, _louvain_global_sig(offset, index))
            yield (louvain.merge_shared_kernel,
                   f"({I64}, int64, int64, int64, {I64}, {I64}, {offset}, {index}, {I64}, {I64}, "
                   f"{I64}, {I64}, {I64}, {I64}, {I64})")
            yield (louvain.merge_global_kernel,
                   f"({I64}, int64, {I64}, {I64}, {I64}, {I64}, {I64}, {offset}, {index}, {I64}, "
                   f"{I64}, {I64}, {I64}, {I64}, {I64}, {I64})")
    from cugraph_match.dask import kernels_gpu as dask_gpu

    for offset in (I32, I64):
        for index in (I32, I64):  # vertex ids, cut edges and their places
            yield (dask_gpu.superstep_kernel,
                   f"({offset}, {index}, {U32}, {I64}, {U64}, {I64}, {U64}, int32[::1], int64, "
                   f"int32[::1], int64, int64, {I64}, {index}, {index}, {U32}, {index}, "
                   f"uint8[::1], {U32}, uint8[::1], uint8[::1], {U32}, {I64}, {U64}, "
                   f"{I64})")
            yield (dask_gpu.closing_kernel,
                   f"({offset}, {index}, {U32}, {I64}, {U64}, int64, int32[::1], {I64}, "
                   f"{index}, {I64}, uint8[::1], boolean[::1], int64, int64, {U64}, {I64})")
    # a Dask worker's Louvain pass (dask/louvain_worker_gpu.py): int64 rows,
    # the slots' totals as float64 (the client's sums)
    yield (louvain.move_shared_kernel,
           f"({I64}, int64, int64, int64, {I64}, {I64}, {I64}, {I64}, {I64}, {F64}, {I64}, "
           f"float64, float64, {I64}, {F64})")
    yield (louvain.move_global_kernel,
           f"({I64}, int64, {I64}, {I64}, {I64}, {I64}, {I64}, {I64}, {I64}, {I64}, {F64}, "
           f"{I64}, float64, float64, {I64}, {F64})")
    yield (ld.match_kernel, f"({I64}, int64, {I64}, {I64}, {I64}, int64, {I64}, {I64})")
    yield (handshake.match_kernel, f"({I64}, {I64}, int32[::1])")


F64 = "float64[::1]"


# Louvain's weights, degrees and community totals are int64 fixed point
def _louvain_shared_sig(offset, index):
    return (f"({I64}, int64, int64, int64, {offset}, {index}, {I64}, {I64}, {I64}, {I64}, {I64}, "
            f"float64, float64, {I64}, {F64})")


def _louvain_global_sig(offset, index):
    return (f"({I64}, int64, {I64}, {I64}, {I64}, {offset}, {index}, {I64}, {I64}, {I64}, "
            f"{I64}, {I64}, float64, float64, {I64}, {F64})")


@pytest.fixture(scope="module")
def compile_ptx(monkeypatch_module):
    numba_cuda = pytest.importorskip("numba.cuda")
    from numba.cuda import dispatcher

    monkeypatch_module.setattr(dispatcher, "get_current_device",
                               lambda: SimpleNamespace(compute_capability=(9, 0)))

    def probe(a):
        a[0] = 1

    try:
        numba_cuda.compile_ptx(probe, f"({I64},)", cc=(9, 0))
    except Exception as err:  # no NVVM / NVRTC on this machine
        pytest.skip(f"cannot compile CUDA here: {type(err).__name__}: {err}")
    return lambda kernel, sig: numba_cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))[0]


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.mark.parametrize("kernel,signature", list(_signatures()),
                         ids=lambda x: getattr(getattr(x, "py_func", None), "__name__", x))
def test_kernel_compiles_for_sm90(compile_ptx, kernel, signature):
    ptx = compile_ptx(kernel, signature)
    assert ".target sm_90" in ptx
    assert_fits_1024(kernel, ptx)  # caller-sized blocks: at most 64 registers (registers.py)


def test_suitor_uses_one_atomic_max_and_l2_loads(compile_ptx):
    from cugraph_match.matching.suitor_gpu import suitor_kernel

    ptx = compile_ptx(suitor_kernel, f"({I32}, {I32}, {U32}, {U64}, {I64}, int64, int64)")
    assert "atom.global.max.u64" in ptx  # the lock-free proposal
    assert "ld.global.cg" in ptx  # offers read past the incoherent L1
    assert "shfl.sync.bfly" in ptx  # butterfly reduction
    assert "vote.sync.ballot" in ptx  # work-list compaction
    assert "shfl.sync.idx" in ptx  # lane 0's row pointer broadcast to the warp
    assert "bar.warp.sync" in ptx  # the barriers around the hand-over and the rewrite
    assert "membar.gl" in ptx or "fence.sc.gpu" in ptx or "fence.acq_rel.gpu" in ptx


def test_b_suitor_uses_cas_and_l2_loads(compile_ptx):
    from cugraph_match.matching.b_suitor_gpu import b_suitor_kernel

    ptx = compile_ptx(b_suitor_kernel, f"({I32}, {I32}, {U32}, {I64}, {U64}, {I64}, {U64}, "
                                       f"int32[::1], int64, int64)")
    assert "atom.global.cas.b64" in ptx  # the lock-free slot replacement
    assert "atom.global.cas.b32" in ptx  # the heap's spin lock
    assert "atom.global.exch.b32" in ptx  # its release
    assert "nanosleep.u32" in ptx  # back-off while the lock is held
    assert "membar.gl" in ptx or "fence.sc.gpu" in ptx or "fence.acq_rel.gpu" in ptx
    assert "atom.global.add.u64" in ptx  # the shared per-proposer pointer
    assert "ld.global.cg" in ptx  # slots read past the incoherent L1


def test_handshake_kernels_use_no_atomics(compile_ptx):
    from cugraph_match.matching import maximal_gpu as handshake

    for kernel, sig in [
        (handshake.propose_kernel,
         f"({I32}, {I32}, {F64}, {I64}, {I64}, uint64, uint64, boolean, boolean, int32[::1])"),
        (handshake.respond_kernel,
         f"({I32}, {I32}, {F64}, {I64}, {I64}, uint64, uint64, boolean, boolean)"),
        (handshake.match_kernel, f"({I64}, {I64}, int32[::1])"),
    ]:
        assert "atom." not in compile_ptx(kernel, sig)  # as in the paper: plain stores only


def test_louvain_hashes_with_cas_and_atomic_adds(compile_ptx):
    from cugraph_match.community import louvain_gpu as louvain

    shared = compile_ptx(louvain.move_shared_kernel, _louvain_shared_sig(I32, I32))
    assert "atom.shared.cas.b64" in shared  # claim a slot of the shared-memory table
    assert "atom.shared.add.u64" in shared  # accumulate the community's weight, exactly
    assert "atom.shared.add.f64" not in shared  # no float atomics: runs agree bit for bit
    assert "shfl.sync.bfly" in shared  # the group's arg-max
    glob = compile_ptx(louvain.move_global_kernel, _louvain_global_sig(I32, I32))
    assert "atom.global.cas.b64" in glob and "atom.global.add.u64" in glob
    assert "atom.global.add.f64" not in glob
