#!/usr/bin/env bash
# Everything a lent GPU should run, one device command per part, each
# finishing inside ten minutes with Numba's compilation, writing results
# (JSON + markdown: device, driver, CUDA, versions, git commit) under OUT.
# See README.md, "GPU", and ci/gpu_run.py for the parts.
#
#   bash ci/gpu.sh prepare                 # HERE, before lending: data + the wheels the device lacks
#   bash ci/gpu.sh OUT info                # on the GPU machine: device report, requirements, probe
#   bash ci/gpu.sh OUT registers           # registers per thread of every compiled kernel
#   bash ci/gpu.sh OUT check               # tests/test_gpu.py
#   bash ci/gpu.sh OUT check-roma-marriage # tests/test_roma_gpu.py, tests/test_marriage_gpu.py
#   bash ci/gpu.sh OUT check-dask          # tests/test_dask_gpu.py: a one-GPU Dask cluster
#   bash ci/gpu.sh OUT sanitize-memcheck   # compute-sanitizer over ci/gpu_small.py
#   bash ci/gpu.sh OUT sanitize-racecheck
#   bash ci/gpu.sh OUT bench-20            # every algorithm at R-MAT 20: GPU, CPU (all cores), peers
#   bash ci/gpu.sh OUT bench-22            # matchings and Louvain at R-MAT 22
#   bash ci/gpu.sh OUT bench-24            # the matchings at R-MAT 24
#   bash ci/gpu.sh OUT bench-marriage      # the marriage family at the paper's sizes
#   bash ci/gpu.sh OUT bench-dask          # the Dask matching's GPU supersteps at R-MAT 20
#   bash ci/gpu.sh OUT bench-dask-cpu      # the Dask matching's CPU on 2 and 4 workers (16 cores)
#   bash ci/gpu.sh --dry-run OUT           # anywhere: the carry, and what needs no GPU
#
# Any failure exits non-zero with the reason: a wheel that does not install,
# a requirement not met, a package that does not import, a GPU part without
# a usable GPU.  With the device tool: name ".gpu-data" and ".whl" in
# `carry`, pass "$OUT" as OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" ci/gpu_run.py "$@"
