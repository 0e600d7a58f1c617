"""Every kernel launched with a caller-chosen block size (up to 1,024 threads)
is compiled with ``max_registers=64`` (the PTX tests assemble each with
``ptxas`` and check the count: ``tests/registers.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conftest import SIMULATED
from registers import FIXED_BLOCK, LIMIT, WIDE_KERNELS, is_wide, ptxas, registers

pytestmark = pytest.mark.skipif(SIMULATED, reason="the simulator's kernels take no options")


def _kernels():
    # the same walk ci/gpu_registers.py reports from on a GPU: one definition of
    # "every kernel of the package"
    path = Path(__file__).resolve().parents[1] / "ci" / "gpu_registers.py"
    spec = importlib.util.spec_from_file_location("gpu_registers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernels()


def test_wide_kernels_are_capped_and_the_others_are_fixed_blocks():
    kernels = list(_kernels())
    names = {k.py_func.__name__ for k in kernels}
    assert WIDE_KERNELS <= names  # the list names real kernels
    for kernel in kernels:
        where = (kernel.py_func.__module__, kernel.py_func.__name__)
        if is_wide(kernel):
            assert kernel.targetoptions.get("max_registers") == LIMIT, where
        else:
            assert kernel.targetoptions.get("max_registers") is None, where
    assert all(name in names for _, name in FIXED_BLOCK)


def test_ptxas_reads_register_counts():
    """The PTX tests read counts only where ptxas is; say when it is not."""
    if ptxas() is None:
        pytest.skip("ptxas (CUDA toolkit) is not installed: the PTX tests check the "
                    "max_registers cap but cannot read register counts")
    ptx = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u64 [%rd2], %rd1;
    ret;
}
"""
    assert 1 <= registers(ptx) <= 8
