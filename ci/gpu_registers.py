"""Registers per thread of every CUDA kernel as the device compiled it.

Run by ``ci/gpu.sh registers`` on a GPU: ``ci/gpu_small.py --small`` runs
every kernel once (so Numba compiles each for the signatures the package
really uses), then every kernel of the package reports, per compiled
signature, its registers per thread, the largest block the driver will
launch it with, and its local memory (spills).  A kernel whose block size
the caller picks (compiled with ``max_registers``, see
``structure.device.WIDE_BLOCK``) must take 1,024 threads; if one cannot,
the exit status is 1.  Writes the table as JSON to the path given.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

import cugraph_match
from cugraph_match.structure.device import MAX_REGISTERS_AT_1024

sys.path.insert(0, str(Path(__file__).resolve().parent))


def kernels():
    from numba.cuda.dispatcher import CUDADispatcher

    for info in pkgutil.walk_packages(cugraph_match.__path__, "cugraph_match."):
        if not info.name.endswith("_gpu"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, CUDADispatcher) and not value.targetoptions.get("device") \
                    and value.py_func.__module__ == info.name:
                yield value


def main(argv: list[str]) -> int:
    import gpu_small

    small_status = gpu_small.main(["--small"])
    rows, bad = [], []
    for kernel in kernels():
        name = f"{kernel.py_func.__module__}.{kernel.py_func.__name__}"
        cap = kernel.targetoptions.get("max_registers")
        if not kernel.overloads:
            rows.append({"kernel": name, "max_registers": cap, "compiled": False})
            continue
        for args, overload in list(kernel.overloads.items()):
            row = {"kernel": name, "signature": str(args), "max_registers": cap,
                   "registers": getattr(overload, "regs_per_thread", None),
                   "max_threads_per_block": getattr(overload, "max_threads_per_block", None),
                   "local_bytes_per_thread": getattr(overload, "local_mem_per_thread", None),
                   "shared_bytes_per_block": getattr(overload, "shared_mem_per_block", None)}
            rows.append(row)
            if cap is not None and ((row["max_threads_per_block"] or 0) < 1024
                                    or (row["registers"] or 0) > MAX_REGISTERS_AT_1024):
                bad.append(row)
    for row in rows:
        print(json.dumps(row))
    uncompiled = [r["kernel"] for r in rows if not r.get("compiled", True)]
    if uncompiled:
        print(f"not compiled by the small run (no figures): {uncompiled}")
    for row in bad:
        print(f"FAIL {row['kernel']} {row['signature']}: {row['registers']} registers, at most "
              f"{row['max_threads_per_block']} threads per block (callers may ask 1,024)")
    if argv:
        Path(argv[0]).write_text(json.dumps({"kernels": rows, "too_wide": bad,
                                             "small_run_status": small_status}, indent=2))
    return 1 if bad or small_status else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
