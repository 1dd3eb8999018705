#!/usr/bin/env bash
# Builds gpuvis with the CUDA backend on a GPU machine, runs the tests (the `gpu` label included)
# and the benchmarks with their CuPy peers, and writes logs and results into OUTDIR (default $OUT,
# else ./gpu-check-out). Needs only the CUDA toolkit, CMake, a C++ compiler and python3 with CuPy
# (for the peer); nothing is installed or downloaded.
#
#   scripts/gpu-check.sh [OUTDIR] [--quick] [--sanitize] [--no-bench] [--no-tests]
#                        [--benches threshold,filters,pipeline,life,lab,meanshift] [--arch 90]
#                        [--sanitize-tools memcheck,racecheck,initcheck,synccheck] [--sanitize-filter GTEST_FILTER]
#
# A full run takes about 2.5 minutes on an H200. --sanitize adds about 12 minutes (compute-sanitizer
# over the CUDA tests; initcheck alone about 7), so with a 10-minute limit per command pick the
# tools per call (--sanitize-tools) and run the benchmarks in another call.
set -uo pipefail
cd "$(dirname "$0")/.."
outdir="${OUT:-$PWD/gpu-check-out}"
quick="" sanitize=0 sanitize_filter="" tools="memcheck racecheck initcheck synccheck" bench=1 tests=1 benches="threshold,filters,pipeline" arch=90
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick="--quick" ;;
    --sanitize) sanitize=1 ;;
    --sanitize-tools) sanitize=1; tools="${2//,/ }"; shift ;;
    --sanitize-filter) sanitize=1; sanitize_filter="$2"; shift ;;
    --no-bench) bench=0 ;;
    --no-tests) tests=0 ;;
    --benches) benches="$2"; shift ;;
    --arch) arch="$2"; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "gpu-check: unknown option $1" >&2; exit 2 ;;
    *) outdir="$1" ;;
  esac
  shift
done
mkdir -p "$outdir"
log="$outdir/gpu-check.log"
: > "$log"
say() { echo "== [$(date +%H:%M:%S)] $*" | tee -a "$log"; }
run() { echo "\$ $*" >> "$log"; "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }
status=0

say "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
say "tools: $(cmake --version | head -1); $(nvcc --version | tail -1)"
gen=""; command -v ninja >/dev/null && gen="-G Ninja"
# The Python module is built when this machine's python3 has pybind11 (pip's package carries its
# CMake files); its tests then run on the GPU too.
pyargs=()
if pbdir=$(python3 -c "import pybind11; print(pybind11.get_cmake_dir())" 2>/dev/null); then
  pyargs=(-Dpybind11_DIR="$pbdir" -DPython3_EXECUTABLE="$(command -v python3)")
  say "python: $(python3 --version 2>&1), pybind11 $(python3 -c 'import pybind11; print(pybind11.__version__)')"
else
  say "python: no pybind11 for $(command -v python3): the Python module is not built"
fi
# Highway for the CPU filters' vector loops: that machine has none, so scripts/carry-hwy.sh copies
# the dev machine's into .deps/hwy (carried with the tree); without it the portable loops are built.
hwyargs=()
hwydir=$(ls -d "$PWD"/.deps/hwy/usr/lib/*/cmake/hwy 2>/dev/null | head -1)
if [ -n "$hwydir" ]; then
  hwyargs=(-Dhwy_DIR="$hwydir")
  # Installed programs get no RPATH into the source tree (CMake leaves the project's own folders
  # out of the install RPATH), so the install test finds the carried library this way.
  export LD_LIBRARY_PATH="$(dirname "$(dirname "$hwydir")")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "highway: carried copy in .deps/hwy"
fi
# liblo and the Boost headers for the TUIO adapter (the GPU soak checks its stream): that machine has
# neither, so scripts/carry-tuio.sh copies the dev machine's into .deps/tuio.
tuioargs=()
if [ -f "$PWD/.deps/tuio/usr/include/lo/lo.h" ]; then
  tuioargs=(-DCMAKE_PREFIX_PATH="$PWD/.deps/tuio/usr")
  say "tuio: carried liblo and Boost headers in .deps/tuio"
fi
# Dask and dask.distributed for the Python module's Dask tests: that machine has neither, so
# scripts/carry-dask.sh unpacks Debian's into .deps/dask/site.
daskargs=()
if [ -d "$PWD/.deps/dask/site/distributed" ]; then
  daskargs=(-DGPUVIS_PYTHON_TEST_PATH="$PWD/.deps/dask/site")
  say "dask: carried copy in .deps/dask/site"
fi
run cmake -S . -B build-gpu $gen -DCMAKE_BUILD_TYPE=Release -DGPUVIS_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DGPUVIS_BUILD_TESTS=ON -DGPUVIS_BUILD_BENCHMARKS=ON "${pyargs[@]}" "${hwyargs[@]}" "${tuioargs[@]}" "${daskargs[@]}" || { say "configure FAILED"; exit 1; }
run cmake --build build-gpu -j "$(nproc)" || { say "build FAILED"; exit 1; }
run ./build-gpu/bin/gpuvis info --self-test || status=1

# The real printed symbols are PNGs; without libpng on this machine the tests read PGM copies.
symdir="$PWD/build-gpu/symbols-pgm"
mkdir -p "$symdir"
python3 - "$symdir" <<'PY' >> "$log" 2>&1 || say "could not convert symbol PNGs (tests use what they can read)"
import sys, pathlib
from PIL import Image
out = pathlib.Path(sys.argv[1])
for p in sorted(pathlib.Path("data/amoeba/symbols").glob("*.png")):
    Image.open(p).convert("L").save(out / (p.stem + ".pgm"))
print("converted symbols to", out)
PY
export GPUVIS_SYMBOL_PGM_DIR="$symdir"

if [ "$tests" = 1 ]; then
  say "tests"
  run ctest --test-dir build-gpu --output-on-failure --timeout 600 -j 4 || status=1
  # The tracker end to end on the device, as the quick start runs it on the CPU: a generated
  # sequence of a table with moving symbols, tracked with --backend cuda (no TUIO receiver here).
  say "gpuvis track --backend cuda on a generated sequence"
  seq="$PWD/build-gpu/sample-sequence"
  run ./build-gpu/bin/gpuvis synth "$seq" --count 60 --sequence --speed 4 --spin 1 --symbols 5 --fingers 2 --seed 4 \
    --symbols-dir "$symdir" --overwrite > /dev/null || status=1
  run ./build-gpu/bin/gpuvis track --folder "$seq" --backend cuda --finger-size 18 --no-tuio --stats --json > "$outdir/track.jsonl" || status=1
  say "track: $(wc -l < "$outdir/track.jsonl") JSON lines in track.jsonl; the last: $(tail -c 400 "$outdir/track.jsonl")"
fi

if [ "$sanitize" = 1 ]; then
  # Every stage's kernels on small inputs: threshold, segmentation, decoding (symbols, yamaarashi,
  # fingers and blobs), the detector with frames in flight and graphs, filters, Life, mean shift.
  # The tests that sweep sizes up to 4K are left out: under the sanitizer they take hours.
  filter='*RealSymbol*:*SubView*:*Equalizer*:CudaRuntime.*:*DeviceLevel*:BilateralCuda.*:*Strips*:SegmentCuda.EqualsTheReference*:SegmentCuda.*Symbol*:SegmentCuda.Buffers*'
  filter="$filter:DecodeCuda.EveryBuiltInTreeSetOnGeneratedScenes:PipelineCuda.MaxFidEqualsTheCpu:PipelineCuda.FingersAndBlobsOfEveryShapeEqualTheCpu:PipelineCuda.YamaarashiEqualsTheCpu"
  filter="$filter:PipelineCuda.GraphReplaysFollowSizeCapacityAndRegionCountChanges:LifeCuda.*:MeanShiftCuda.*:-*ErrorsBecomeExceptions*"
  [ -n "$sanitize_filter" ] && filter="$sanitize_filter"
  summary="$outdir/sanitize-summary.txt"
  : > "$summary"
  say "compute-sanitizer ($tools) on the CUDA tests"
  for tool in $tools; do
    t0=$(date +%s)
    run compute-sanitizer --tool "$tool" --error-exitcode 3 ./build-gpu/tests/test_cuda --gtest_filter="$filter" \
      > "$outdir/sanitize-$tool.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "$tool: exit $rc, $(($(date +%s) - t0)) s, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$outdir/sanitize-$tool.log" | tail -1 | sed 's/=* *//'), $(grep -cE '^\[       OK \]' "$outdir/sanitize-$tool.log") tests passed" | tee -a "$summary"
  done
fi

wants() { case ",$benches," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
# One results file per benchmark, gpuvis's rows then the peers' (docs/benchmarks/NAME.jsonl).
combine() { cat "$outdir/bench_$1.jsonl" $(ls "$outdir"/peer*_"$1".jsonl 2>/dev/null) > "$outdir/$1.jsonl" 2>/dev/null; }
have_cupy=0; python3 -c "import cupy" 2>/dev/null && have_cupy=1
if [ "$bench" = 1 ] && wants threshold; then
  say "benchmarks: threshold"
  run ./build-gpu/bin/bench_threshold $quick --out "$outdir/bench_threshold.jsonl" || status=1
  if [ "$have_cupy" = 1 ]; then
    run python3 scripts/peers/cupy_threshold.py $quick --out "$outdir/peer_cupy_threshold.jsonl" || status=1
  else
    say "CuPy not available: no peer results"
  fi
  # OpenCV's dilate/erode Bernsen on all cores (this machine's OpenCV is the Python one), checked
  # against gpuvis's CPU output pixel for pixel.
  if python3 -c "import cv2" 2>/dev/null; then
    PYTHONPATH=build-gpu/python run python3 scripts/peers/opencv_threshold.py $quick --out "$outdir/peer_opencv_threshold.jsonl" || status=1
  fi
  run python3 scripts/bench_report.py "$outdir"/bench_threshold.jsonl $(ls "$outdir"/peer_cupy_threshold.jsonl "$outdir"/peer_opencv_threshold.jsonl 2>/dev/null) \
    --suite threshold --md "$outdir/threshold.md" --png "$outdir/threshold.png" \
    --title "Threshold stage: CPU, CUDA and CuPy" --command "scripts/gpu-check.sh $quick" || status=1
  combine threshold
fi
if [ "$bench" = 1 ] && wants filters; then
  say "benchmarks: filters"
  run ./build-gpu/bin/bench_filters $quick --out "$outdir/bench_filters.jsonl" || status=1
  # OpenCV's OpenCL rows: OpenCV's own ICD loader search found no GPU there; the CUDA toolkit's does.
  ocl_runtime=$(ls /usr/local/cuda/targets/*/lib/libOpenCL.so.1 2>/dev/null | head -1)
  OPENCV_OPENCL_RUNTIME="${OPENCV_OPENCL_RUNTIME:-$ocl_runtime}" run python3 scripts/peers/filters_peers.py $quick --out "$outdir/peer_filters.jsonl" || status=1
  run python3 scripts/bench_report.py "$outdir"/bench_filters.jsonl $(ls "$outdir"/peer_filters.jsonl 2>/dev/null) \
    --suite filters --md "$outdir/filters.md" --title "Filters: CPU, CUDA and peers" --command "scripts/gpu-check.sh $quick" || status=1
  combine filters
fi
if [ "$bench" = 1 ] && wants pipeline; then
  say "benchmarks: detection pipeline"
  run ./build-gpu/bin/bench_pipeline $quick --out "$outdir/bench_pipeline.jsonl" --save-frames build-gpu/pipeline-frames || status=1
  if [ "$have_cupy" = 1 ]; then
    run python3 scripts/peers/cupy_pipeline.py $quick --frames build-gpu/pipeline-frames --out "$outdir/peer_cupy_pipeline.jsonl" || status=1
  fi
  run python3 scripts/bench_report.py "$outdir"/bench_pipeline.jsonl $(ls "$outdir"/peer_cupy_pipeline.jsonl 2>/dev/null) \
    --suite pipeline --md "$outdir/pipeline.md" --title "Detection pipeline: CUDA, CPU and CuPy" --command "scripts/gpu-check.sh $quick --benches pipeline" || status=1
  combine pipeline
fi
if [ "$bench" = 1 ] && wants life; then
  say "benchmarks: Game of Life"
  run ./build-gpu/bin/bench_life $quick --out "$outdir/bench_life.jsonl" || status=1
  run python3 scripts/peers/life_peers.py --out "$outdir/peer_life.jsonl" || status=1
  run python3 scripts/life_report.py "$outdir"/bench_life.jsonl $(ls "$outdir"/peer_life.jsonl 2>/dev/null) \
    --md "$outdir/life.md" --command "scripts/gpu-check.sh --no-tests --benches life" || status=1
  combine life
fi
if [ "$bench" = 1 ] && wants lab; then
  say "benchmarks: gpuvis lab"
  lab="$outdir/lab.jsonl"
  : > "$lab"
  g=./build-gpu/bin/gpuvis
  run $g lab matmul --size 4096 --json "$lab" || status=1
  run $g lab matmul --size 4096 --type bf16 --impl naive,tiled,regblock,tensor,cublas,cpu --json "$lab" || status=1
  run $g lab matmul --size 2048 --type f64 --json "$lab" || status=1
  for lesson in dot memory atomics streams; do run $g lab $lesson --json "$lab" || status=1; done
  run python3 scripts/lab_report.py "$lab" --md "$outdir/lab.md" --command "scripts/gpu-check.sh --no-tests --benches lab" || status=1
fi
if [ "$bench" = 1 ] && wants meanshift; then
  say "benchmarks: mean shift (filter, volume, OpenCV peer) and the segmentation accuracy study"
  run ./build-gpu/bin/bench_meanshift $quick --out "$outdir/bench_meanshift.jsonl" --save-frames build-gpu/meanshift-frames || status=1
  run python3 scripts/peers/meanshift_peers.py --frames build-gpu/meanshift-frames --out "$outdir/peer_meanshift.jsonl" --runs 5 || status=1
  combine meanshift
  PYTHONPATH=build-gpu/python run python3 scripts/meanshift_accuracy.py --backend cuda --out "$outdir/meanshift_accuracy.jsonl" || status=1
fi
say "gpu-check finished with status $status"
exit "$status"
