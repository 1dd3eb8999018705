#!/usr/bin/env bash
# Copies this machine's Google Highway (Debian's libhwy-dev: headers, shared libraries and CMake
# package) into .deps/hwy, laid out as installed, for a machine that has no Highway and no package
# manager, such as the GPU machine: carry .deps there and scripts/gpu-check.sh builds the CPU
# filters' Highway loops with it (found through hwy_DIR; the binaries find libhwy through their
# build-tree RPATH). Nothing is installed here.
#
#   bash scripts/carry-hwy.sh        # then, on the other machine: scripts/gpu-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
libdir=/usr/lib/$multiarch
[ -f "$libdir/cmake/hwy/hwy-config.cmake" ] || { echo "carry-hwy: no Highway here (apt-get install libhwy-dev)" >&2; exit 1; }
dest=.deps/hwy
rm -rf "$dest"
mkdir -p "$dest/usr/include" "$dest$libdir"
cp -a /usr/include/hwy "$dest/usr/include/"
cp -a "$libdir"/cmake "$dest$libdir/" 2>/dev/null || true
find "$dest$libdir/cmake" -mindepth 1 -maxdepth 1 ! -name hwy -exec rm -rf {} +
cp -a "$libdir"/libhwy*.so* "$dest$libdir/"
echo "carry-hwy: $(du -sh "$dest" | cut -f1) in $dest (hwy_DIR=$dest$libdir/cmake/hwy)"
