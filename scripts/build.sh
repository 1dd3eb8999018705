#!/usr/bin/env bash
# Configures and builds gpuvis into build/ (Release); ccache is used when installed.
#
#   bash scripts/build.sh [--target NAME]... [CMAKE ARGUMENTS]
#   bash scripts/build.sh -DGPUVIS_CUDA=OFF                 # without the CUDA backend
#   bash scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90     # CUDA for one GPU generation
#   bash scripts/build.sh --target gpuvis_cli               # the library and the CLI only
#
# Without --target everything is built (tests, benchmarks, the Python module).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
targets=() cmake_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=(--target "$2"); shift ;;
    *) cmake_args+=("$1") ;;
  esac
  shift
done
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# Warnings are errors when GPUVIS_WERROR=ON is in the environment (CI sets it). The flag is passed
# either way, so quickstart.sh and test.sh configure alike and the second reuses the first's build.
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUVIS_WERROR="${GPUVIS_WERROR:-OFF}" "${cmake_args[@]}"
cmake --build build -j "$(nproc)" "${targets[@]}"
