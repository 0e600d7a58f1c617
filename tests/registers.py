"""Registers per thread of a compiled kernel, read with ``ptxas`` (no GPU).

An SM has 65,536 registers; a block of 1,024 threads can use 64 per thread,
so a kernel compiled to more cannot be launched that wide at all (ROMA's
sparse kernel used 72 before it was capped).  Every kernel whose block size
the caller picks (``threads_per_block`` goes up to 1,024) is compiled with
``max_registers=64`` (``structure.device.WIDE_BLOCK``).  The PTX tests
(``test_ptx.py``, ``test_marriage_ptx.py``, ``test_roma_ptx.py``) hand each
such kernel's sm_90 PTX to :func:`assert_fits_1024`, which assembles it with
the cap Numba passes to the linker and reads the count; it skips where
``ptxas`` is missing (``test_registers.py`` says so).  The device's own figures come from
``ci/gpu.sh registers`` (``kernel.get_regs_per_thread``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

# the kernels launched with a block size taken from a caller's argument
WIDE_KERNELS = frozenset({
    "suitor_kernel", "candidates_kernel", "match_kernel", "next_work_kernel", "b_suitor_kernel",
    "propose_kernel", "respond_kernel", "mcvitie_wilson_kernel", "gale_shapley_round_kernel",
    "b_marriage_kernel", "dense_phase_kernel", "dense_candidates_kernel", "sparse_phase_kernel",
})
# kernels of these names launched with a fixed block size instead
FIXED_BLOCK = frozenset({("cugraph_match.matching.roma_gpu", "dense_match_kernel")})
LIMIT = 64  # 65,536 registers per SM / 1,024 threads


def ptxas() -> str | None:
    found = shutil.which("ptxas")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "bin" / "ptxas").exists():
            return str(Path(root) / "bin" / "ptxas")
    return None


def registers(ptx: str, max_registers: int | None = None) -> int:
    """Registers per thread ``ptxas -v`` reports for sm_90 (under the cap, if any)."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "kernel.ptx"
        source.write_text(ptx)
        cmd = [ptxas(), "-arch=sm_90", "-v", str(source), "-o", str(Path(folder) / "k.cubin")]
        if max_registers:
            cmd.append(f"-maxrregcount={max_registers}")
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    used = [int(x) for x in re.findall(r"Used (\d+) registers", result.stderr)]
    assert used, result.stderr
    return max(used)


def is_wide(kernel) -> bool:
    func = kernel.py_func
    return func.__name__ in WIDE_KERNELS and (func.__module__, func.__name__) not in FIXED_BLOCK


def assert_fits_1024(kernel, ptx: str) -> None:
    """A wide kernel carries the cap and assembles to at most 64 registers
    (nothing for the others; without ptxas only the cap is checked, and
    ``test_registers.py`` reports the skip)."""
    if not is_wide(kernel):
        return
    cap = kernel.targetoptions.get("max_registers")
    assert cap == LIMIT, (f"{kernel.py_func.__name__} is launched up to 1,024 threads wide but "
                          f"compiled without max_registers={LIMIT}")
    if ptxas() is None:
        return
    used = registers(ptx, cap)
    assert used <= LIMIT, f"{kernel.py_func.__name__} uses {used} registers per thread"
