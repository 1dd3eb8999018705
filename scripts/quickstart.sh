#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the main job on the bundled
# sample (a table with printed amoeba symbols): threshold it with full per-pixel Bernsen and write
# out/table-bernsen.png (and the tiled reacTIVision method next to it for comparison).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
mkdir -p out
./build/bin/gpuvis info
./build/bin/gpuvis threshold data/samples/table.pgm out/table-bernsen.png --method bernsen --overwrite --time
./build/bin/gpuvis threshold data/samples/table.pgm out/table-tiled.png --method tiled --overwrite --time
echo "quickstart: wrote out/table-bernsen.png and out/table-tiled.png from data/samples/table.pgm"
