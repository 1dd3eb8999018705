#!/usr/bin/env bash
# The CPU test suite again under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs it after
# scripts/test.sh): a build in build-asan/ without the CUDA backend, the Python module and the
# benchmarks, then every `cpu`-labelled test but the Python and install tests (they test packaging,
# not memory safety, and a sanitized library cannot be loaded into an unsanitized Python), and one
# video test (below). Any
# ASan or UBSan report fails the test that caused it. Leaks are reported too; libraries outside
# gpuvis that keep memory until exit are suppressed in tests/sanitizers/lsan.supp.
#
#   bash scripts/test-sanitized.sh [ctest arguments, e.g. -R Decode]
set -euo pipefail
cd "$(dirname "$0")/.."
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B build-asan "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUVIS_SANITIZE=ON -DGPUVIS_WERROR=OFF \
  -DGPUVIS_CUDA=OFF -DGPUVIS_PYTHON=OFF -DGPUVIS_BUILD_BENCHMARKS=OFF
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
# Video.BadVideosAndCamerasAreOneLineErrors counts the lines a failing `gpuvis track --video`
# prints; OpenCV's video stack leaks ~2.5 KB from a library it has unloaded again by exit, which
# LeakSanitizer reports without a module to suppress it by.
ctest --test-dir build-asan --output-on-failure --timeout 1800 -j "$(nproc)" -L cpu \
  -E "^(Python|Install)\.|^Video\.BadVideosAndCamerasAreOneLineErrors$" "$@"
