#!/usr/bin/env bash
# Puts Dask and dask.distributed (pure Python) into .deps/dask/site for a machine that has neither
# and no network, such as the GPU machine, whose Python is 3.12 with NumPy 2: Debian 12's Dask
# (2022.12, Python 3.11) is too old there, so the packages are Debian 13's (trixie: Dask 2024.12),
# downloaded with apt into scratch folders and unpacked here; nothing is installed on this machine.
# Carry .deps there and scripts/gpu-check.sh runs the Dask tests with them (GPUVIS_PYTHON_TEST_PATH);
# the rest of distributed's needs (psutil, msgpack, toolz, cloudpickle, yaml, ...) are already there.
#
#   bash scripts/carry-dask.sh        # then, on the other machine: scripts/gpu-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
packages="python3-dask python3-distributed python3-partd python3-locket python3-zict python3-tblib python3-tornado"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/lists/partial" "$scratch/cache/archives/partial" "$scratch/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" > "$scratch/sources.list"
apt_opts=(-oDir::State::Lists="$scratch/lists" -oDir::Cache="$scratch/cache" -oDir::Etc::SourceList="$scratch/sources.list"
          -oDir::Etc::SourceParts=/nonexistent -oAPT::Sandbox::User=root -qq)
apt-get "${apt_opts[@]}" update || { echo "carry-dask: cannot reach Debian's trixie archive" >&2; exit 1; }
(cd "$scratch/debs" && apt-get "${apt_opts[@]}" download $packages)
dest=.deps/dask
rm -rf "$dest"
mkdir -p "$dest/site"
for deb in "$scratch"/debs/*.deb; do
  dpkg-deb -x "$deb" "$scratch/root"
done
cp -a "$scratch"/root/usr/lib/python3/dist-packages/. "$dest/site/"
# Compiled speedups built for trixie's Python 3.13 would not load elsewhere; the packages fall back
# to their pure-Python code without them.
find "$dest/site" -name '*.so' -delete
# Their own test suites are not needed to run them (and keep what travels small).
find "$dest/site" -type d -name tests -prune -exec rm -rf {} +
echo "carry-dask: $(du -sh "$dest" | cut -f1) in $dest/site ($(ls "$dest/site" | grep -cE "dist-info|egg-info") packages)"
