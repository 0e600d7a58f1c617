#!/usr/bin/env bash
# Everything a lent GPU should run, in parts that each finish well inside ten
# minutes, writing results (JSON + markdown: device, driver, CUDA, versions,
# git commit) under OUT.  See README.md, "GPU".
#
#   bash ci/gpu.sh prepare                 # HERE, before lending: data + wheels into the checkout
#   bash ci/gpu.sh OUT info check          # on the GPU machine: device report, GPU test suite
#   bash ci/gpu.sh OUT sanitize            # compute-sanitizer memcheck + racecheck, small graphs
#   bash ci/gpu.sh OUT bench-20            # every algorithm at R-MAT 20: GPU, CPU (all cores), peers
#   bash ci/gpu.sh OUT bench-22            # matchings and Louvain at R-MAT 22
#   bash ci/gpu.sh OUT bench-24            # the matchings at R-MAT 24
#   bash ci/gpu.sh OUT bench-marriage      # the marriage family at the paper's sizes
#   bash ci/gpu.sh --dry-run OUT           # anywhere: runs what needs no GPU, says what it skipped
#
# With the device tool: name ".gpu-data" and ".whl" in `carry`, pass "$OUT" as OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" ci/gpu_run.py "$@"
