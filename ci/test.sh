#!/usr/bin/env bash
# The project's test command (RAPIDS-style ci/ script):
#   1. unit tests and doctests on the CPU backend (plus the PTX compile check;
#      real-GPU tests skip themselves without a GPU);
#   2. the simulator pass: the CUDA kernels run in Numba's CUDA simulator
#      (NUMBA_ENABLE_CUDASIM=1) on small graphs, and every algorithm's GPU host
#      code on a strict CuPy stand-in (tests/cupy_standin.py) that refuses what
#      CuPy refuses (tests/test_cupy_standin.py);
#   3. NetworkX's own tests of the functions the NetworkX backend implements
#      (and of NetworkX algorithms that call them), run against the backend
#      with fallback to NetworkX on, as nx-cugraph runs them
#      (ci/nx_suite_report.py sorts the tests by whether they reached the backend).
#
# The first two passes run on every core (pytest-xdist, CUGRAPH_MATCH_TEST_WORKERS,
# default: one worker per core, one more for the simulator); the simulator is
# plain Python threads, so more processes are the only way it uses more cores.  Numba's on-disk cache
# (cache=True) lets later processes and passes load what the first compiled.
# Each pass prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."

# worksteal: an idle worker takes queued tests from a busy one, so the pass
# does not wait at its end on one worker's queue of Dask tests (10-100 s each)
WORKERS=(-n "${CUGRAPH_MATCH_TEST_WORKERS:-auto}" --dist worksteal)
# The simulator's threads take turns on one GIL per process and leave the cores
# ~20 % idle, so that pass gets one worker more than there are cores (measured
# on the 2-core machine, warm cache: 115.6 s with 2 workers, 104.8 s with 3).
CORES=$(python -c "import os; print(len(os.sched_getaffinity(0)))")
SIM_WORKERS=(-n "${CUGRAPH_MATCH_TEST_WORKERS:-$((CORES + 1))}" --dist worksteal)
stage_start=$SECONDS
stage_done() { echo "== $1: $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }

echo "== unit tests (CPU backend)"
python -m pytest -q "${WORKERS[@]}" --doctest-modules cugraph_match _cugraph_match_nx tests "$@"
stage_done "unit tests"

echo "== CUDA kernels in the Numba simulator"
NUMBA_ENABLE_CUDASIM=1 python -m pytest -q "${SIM_WORKERS[@]}" -m cudasim tests "$@"
stage_done "simulator pass"

echo "== NetworkX's test suite on the cugraph_match backend"
NETWORKX_SUITE=(
    networkx.algorithms.tests.test_matching
    networkx.algorithms.approximation.tests.test_matching
    networkx.algorithms.community.tests.test_louvain
    networkx.algorithms.community.tests.test_leiden
    networkx.algorithms.community.tests.test_quality
    networkx.algorithms.community.tests.test_utils
    networkx.algorithms.bipartite.tests.test_matching
    # NetworkX algorithms that call the dispatched functions
    networkx.algorithms.approximation.tests.test_dominating_set
    networkx.algorithms.bipartite.tests.test_extendability
    networkx.algorithms.community.tests.test_bipartitions
    networkx.algorithms.community.tests.test_modularity_max
    networkx.algorithms.minors.tests.test_contraction
    networkx.algorithms.tests.test_regular
)
NETWORKX_TEST_BACKEND=cugraph_match NETWORKX_FALLBACK_TO_NX=True PYTHONPATH=ci \
    python -m pytest -q -p nx_suite_report -p no:cacheprovider --pyargs "${NETWORKX_SUITE[@]}" "$@"
stage_done "NetworkX suite"
