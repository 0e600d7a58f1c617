"""Compile the stable-marriage family's CUDA kernels to PTX for Hopper (sm_90)
without a GPU, and check the PTX carries the design: one atomic minimum per
proposal, no compare-and-swap loop and no lock, loads of the shared state
past L1, warp ballots and shuffles for the cooperative scan, and no 64-bit
division on the scan path.  Skips where NVVM/NVRTC are missing (fixtures
from test_ptx.py).
"""

from __future__ import annotations

import re

import pytest

import test_ptx
from conftest import SIMULATED
from registers import assert_fits_1024

# test_ptx.py's module-scoped fixtures (NVVM without a driver), shared by name
compile_ptx = test_ptx.compile_ptx
monkeypatch_module = test_ptx.monkeypatch_module

pytestmark = pytest.mark.skipif(SIMULATED, reason="compiles real CUDA, not the simulator")

I32, I64 = "int32[::1]", "int64[::1]"


def layouts():
    """Kernel layout arguments: CSR with 32- and 64-bit arrays, and master lists."""
    for off, idx in ((I32, I32), (I64, I32), (I64, I64)):
        yield f"{off}, int64, {idx}, {idx}, int64, int64, {off}, int64, {idx}"


def _signatures():
    from cugraph_match.marriage import b_marriage_gpu as B
    from cugraph_match.marriage import stable_marriage_gpu as S

    for lay in layouts():
        yield S.mcvitie_wilson_kernel, f"({lay}, {I64}, {I64}, {I64}, int64, int64, int64)"
        yield (S.gale_shapley_round_kernel,
               f"({lay}, {I64}, {I64}, {I64}, int64, {I64}, {I64}, int64, int64)")
        yield (B.b_marriage_kernel,
               f"({lay}, {I64}, {I64}, {I64}, {I64}, {I64}, {I64}, int64, int64)")


def _id(x):
    return getattr(getattr(x, "py_func", None), "__name__", None) or re.sub(r"\W+", "", x)[:40]


@pytest.mark.parametrize("kernel,signature", list(_signatures()), ids=_id)
def test_kernel_compiles_for_sm90(compile_ptx, kernel, signature):
    ptx = compile_ptx(kernel, signature)
    assert ".target sm_90" in ptx
    assert_fits_1024(kernel, ptx)  # caller-sized blocks: at most 64 registers (registers.py)
    assert "atom.global.min.s64" in ptx  # the lock-free proposal
    assert "atom.global.cas" not in ptx and "atom.global.exch" not in ptx  # no CAS loop, no lock
    assert not re.search(r"\b(div|rem)\.[su]64", ptx), "64-bit division in a kernel"


def test_mcvitie_wilson_design_in_ptx(compile_ptx):
    from cugraph_match.marriage.stable_marriage_gpu import mcvitie_wilson_kernel

    lay = next(layouts())
    ptx = compile_ptx(mcvitie_wilson_kernel, f"({lay}, {I64}, {I64}, {I64}, int64, int64, int64)")
    assert "atom.global.min.s64" in ptx  # held[a] = min(held[a], position)
    assert "atom.global.add.u64" in ptx  # persistent warps take proposers from a counter
    assert "ld.global.cg" in ptx  # held/nxt read from L2, coherent across SMs
    assert "membar.gl" in ptx or "fence.sc.gpu" in ptx  # the pointer published before the offer
    assert "vote.sync.ballot" in ptx  # cooperative scan: first acceptable entry of 32
    assert "shfl.sync.idx" in ptx  # the warp learns whose list it scans
    assert "call" not in ptx.split(".entry", 1)[1]  # device functions inlined


def test_b_marriage_design_in_ptx(compile_ptx):
    from cugraph_match.marriage.b_marriage_gpu import b_marriage_kernel

    lay = next(layouts())
    ptx = compile_ptx(b_marriage_kernel, f"({lay}, {I64}, {I64}, {I64}, {I64}, {I64}, {I64}, "
                                         "int64, int64)")
    assert "atom.global.min.s64" in ptx  # the insertion cascade
    assert "atom.global.add.u64" in ptx  # copies share one pointer; the work counter
    assert "ld.global.cg" in ptx  # slots read past L1 for the skip test
