#!/usr/bin/env bash
# Configures and builds gpuvis into build/ (Release); ccache is used when installed. Extra arguments
# go to CMake, e.g.
#   bash scripts/build.sh -DGPUVIS_CUDA=OFF
#   bash scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# Warnings are errors when GPUVIS_WERROR=ON is in the environment (CI sets it). The flag is passed
# either way, so quickstart.sh and test.sh configure alike and the second reuses the first's build.
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUVIS_WERROR="${GPUVIS_WERROR:-OFF}" "$@"
cmake --build build -j "$(nproc)"
