#!/usr/bin/env bash
# Installs the build into a scratch prefix and checks what a user of the installed tree gets: a C++
# project built with find_package(gpuvis), the CLI with its data, and the Python module.
#   tests/install/check_install.sh BUILD_DIR [PYTHON]
set -euo pipefail
build="$1" python="${2:-}"
here="$(cd "$(dirname "$0")" && pwd)"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > "$prefix/install.log"
gen=""; command -v ninja > /dev/null && gen="-G Ninja"
cmake -S "$here/consumer" -B "$prefix/consumer-build" $gen -DCMAKE_PREFIX_PATH="$prefix" > "$prefix/configure.log" ||
  { cat "$prefix/configure.log"; exit 1; }
cmake --build "$prefix/consumer-build" > "$prefix/build.log" || { cat "$prefix/build.log"; exit 1; }
"$prefix/consumer-build/consumer"
# The C++ example of examples/cpp, built against the installed package as its README says, finds the
# 8 symbols of the bundled sample frame.
cmake -S "$here/../../examples/cpp" -B "$prefix/example-build" $gen -DCMAKE_PREFIX_PATH="$prefix" > "$prefix/example.log" ||
  { cat "$prefix/example.log"; exit 1; }
cmake --build "$prefix/example-build" >> "$prefix/example.log" || { cat "$prefix/example.log"; exit 1; }
"$prefix/example-build/detect_symbols" "$here/../../data/samples/table.pgm" cpu | tee "$prefix/example.out"
grep -q "^8 symbols in " "$prefix/example.out" || { echo "examples/cpp: expected the sample's 8 symbols"; exit 1; }
"$prefix/bin/gpuvis" --version
# synth reads the printed symbols from share/gpuvis beside the installed program.
"$prefix/bin/gpuvis" synth "$prefix/frames" --count 2 --seed 1 > /dev/null
test -f "$prefix/frames/frame_0001.pgm"
if [ -n "$python" ] && [ -d "$prefix/lib/python3/dist-packages/gpuvis" ]; then
  PYTHONPATH="$prefix/lib/python3/dist-packages" "$python" -c "import gpuvis, numpy; print('python: gpuvis', gpuvis.__version__, gpuvis.threshold(numpy.zeros((4, 4), numpy.uint8), backend='cpu').shape)"
fi
echo "install: ok"
