#!/usr/bin/env bash
# Installs what building, testing and benchmarking gpuvis needs on Debian 12 / Ubuntu 24.04, and
# nothing that is already there. The CUDA toolkit is optional and not installed here: when nvcc is
# on PATH (or in /usr/local/cuda/bin) the CUDA backend is built too.
#
#   bash scripts/deps.sh                # needs root or sudo when something is missing
#   bash scripts/deps.sh --build-only   # what the build itself finds (scripts/quickstart.sh): not the
#                                       # tools only the tests use (a browser, clang, Node, ...)
set -euo pipefail
build_only=false
[ "${1:-}" = "--build-only" ] && build_only=true
packages=(
  build-essential cmake ninja-build pkg-config   # toolchain
  libgtest-dev libopencv-dev                     # tests (OpenCV: comparison tests only)
  libpng-dev libjpeg-dev                         # PNG/JPEG adapter
  liblo-dev liblo-tools libboost-dev             # TUIO: OSC (liblo), transports (Boost.Asio/Beast); oscdump for the tests
  libtinyxml2-dev                                # reacTIVision.xml
  libgif-dev                                     # animated GIF output (gpuvis life)
  libhwy-dev                                     # Google Highway: the CPU filters' vector loops
  libnifti2-dev                                  # NIfTI volumes (gpuvis filter|segment meanshift)
  libopenblas-dev                                # CPU matrix product (gpuvis lab matmul)
  python3 python3-numpy python3-matplotlib python3-pil  # benchmark reports, sample generator
  python3-dev pybind11-dev python3-pytest       # the Python module and its tests
  python3-pip python3-venv                       # pip wheel . / pip install . into a virtual environment (scripts/test-wheel.sh)
  librsvg2-dev poppler-utils                     # PDF sheets (librsvg draws the SVG pages into cairo's PDF); pdftoppm for their test
)
# Tools only the tests and checks use; the build's configuration does not depend on them, so
# scripts/test.sh installs them after scripts/quickstart.sh without changing what was built.
test_tools=(
  python3-dask python3-distributed               # gpuvis.dask: chunked filters on a cluster
  librsvg2-bin                                   # rsvg-convert: the tests print symbol sheets and detect them
  clang libclang-rt-14-dev                       # scripts/fuzz.sh: libFuzzer with ASan and UBSan
  universal-ctags                                # scripts/function_lengths.py: every function fits on a screen
  nodejs                                         # a third-party TUIO 1.1/2.0 client for the tests (tests/node; npm below)
  chromium                                       # the live view's browser test (headless, driven by puppeteer-core)
  ocl-icd-libopencl1 pocl-opencl-icd clinfo      # OpenCL's ICD loader and PoCL's CPU device: the OpenCL backend's tests
)
$build_only || packages+=("${test_tools[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm's packages for the TUIO client and live view tests (tests/node/package-lock.json), when npm is there.
node_packages() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/tests/node"
  [ -d "$dir/node_modules/tuio-client" ] && [ -d "$dir/node_modules/puppeteer-core" ] && return 0
  # Debian's nodejs comes without npm (a separate package); other node builds bring their own.
  command -v npm > /dev/null || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq --no-install-recommends npm > /dev/null 2>&1; } || true
  command -v npm > /dev/null || { echo "deps: no npm: the TUIO client test will be skipped"; return 0; }
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) \
    || echo "deps: npm packages for tests/node not installed: the TUIO client and browser tests will be skipped"
}
if [ ${#missing[@]} -eq 0 ]; then
  $build_only || node_packages
  echo "deps: everything needed is installed"
  exit 0
fi
echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
$build_only || node_packages
