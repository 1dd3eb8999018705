#!/usr/bin/env bash
# The README's test command (and what CI runs): install what is missing, build everything (as
# scripts/quickstart.sh does, so its build is reused; GPUVIS_WERROR=ON makes warnings errors, as in
# CI), and run the whole test suite. GPU tests run when a CUDA device is present and
# are reported as skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh "$@"
ctest --test-dir build --output-on-failure --timeout 900 -j "$(nproc)"
