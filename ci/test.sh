#!/usr/bin/env bash
# The project's test command (RAPIDS-style ci/ script):
#   1. unit tests and doctests on the CPU backend (plus the PTX compile check;
#      real-GPU tests skip themselves without a GPU);
#   2. the simulator pass: the CUDA kernels run in Numba's CUDA simulator
#      (NUMBA_ENABLE_CUDASIM=1) on small graphs.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== unit tests (CPU backend)"
python -m pytest -q --doctest-modules cugraph_match tests "$@"

echo "== CUDA kernels in the Numba simulator"
NUMBA_ENABLE_CUDASIM=1 python -m pytest -q -m cudasim tests "$@"
