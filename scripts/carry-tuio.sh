#!/usr/bin/env bash
# Copies what the TUIO adapter builds with from this machine into .deps/tuio, laid out as
# installed, for a machine that has neither and no package manager, such as the GPU machine: liblo
# (Debian's liblo-dev: header and shared library) and the Boost libraries whose headers the
# transports include (Asio, Beast and what they include, whole, with Boost's CMake package).
# Carry .deps there and scripts/gpu-check.sh builds the TUIO adapter with it (found through
# CMAKE_PREFIX_PATH; the binaries find liblo through their build-tree RPATH), so that the GPU soak
# (scripts/soak.py) can check the TUIO stream. Nothing is installed here.
#
#   bash scripts/carry-tuio.sh        # then, on the other machine: scripts/gpu-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
libdir=/usr/lib/$multiarch
[ -f /usr/include/lo/lo.h ] || { echo "carry-tuio: no liblo here (apt-get install liblo-dev)" >&2; exit 1; }
[ -f /usr/include/boost/version.hpp ] || { echo "carry-tuio: no Boost headers here (apt-get install libboost-dev)" >&2; exit 1; }
dest=.deps/tuio
rm -rf "$dest"
mkdir -p "$dest/usr/include/boost" "$dest$libdir/cmake"
cp -a /usr/include/lo "$dest/usr/include/"
cp -a "$libdir"/liblo.so* "$dest$libdir/"
# The Boost headers the project's sources include, and the top-level libraries those reach.
list=$(mktemp)
trap 'rm -f "$list"' EXIT
grep -rh "#include <boost/" src apps tests --include='*.cpp' --include='*.hpp' | sed 's/.*<\(boost\/[^>]*\)>.*/#include <\1>/' | sort -u |
  g++ -std=c++20 -x c++ -M - | tr ' \\' '\n\n' | sed -n 's|^/usr/include/boost/||p' | cut -d/ -f1 | sed 's/\.hpp$//' | sort -u > "$list"
while read -r part; do
  [ -d "/usr/include/boost/$part" ] && cp -a "/usr/include/boost/$part" "$dest/usr/include/boost/"
  [ -f "/usr/include/boost/$part.hpp" ] && cp -a "/usr/include/boost/$part.hpp" "$dest/usr/include/boost/"
done < "$list"
cp -a "$libdir"/cmake/Boost-* "$libdir"/cmake/BoostDetectToolset-* "$libdir"/cmake/boost_headers-* "$dest$libdir/cmake/" 2>/dev/null || true
echo "carry-tuio: $(du -sh "$dest" | cut -f1) in $dest ($(wc -l < "$list") Boost libraries; CMAKE_PREFIX_PATH=$dest/usr)"
