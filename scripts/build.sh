#!/usr/bin/env bash
# Configures and builds gpuvis into build/ (Release). Extra arguments go to CMake, e.g.
#   bash scripts/build.sh -DGPUVIS_CUDA=OFF
#   bash scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"
