#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the main job: the tracker on
# a sample sequence of a table with moving printed symbols (generated from the bundled prints),
# sending TUIO 1.1 to a receiver on localhost whose messages are shown. Also thresholds the bundled
# sample frame (out/table-bernsen.png).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --build-only   # scripts/test.sh adds the tools only the tests use
# The library and the CLI only: scripts/test.sh builds the tests on top of this, with the same flags.
bash scripts/build.sh --target gpuvis_cli
mkdir -p out
./build/bin/gpuvis info
./build/bin/gpuvis threshold data/samples/table.pgm out/table-bernsen.png --method bernsen --overwrite
./build/bin/gpuvis synth out/sequence --count 60 --sequence --speed 4 --spin 1 --symbols 5 --fingers 2 --seed 4 --overwrite
port=3333
./build/bin/gpuvis tuio-dump --port "$port" --seconds 4 > out/tuio-dump.txt &
dump=$!
sleep 0.5
./build/bin/gpuvis track --folder out/sequence --fps 30 --finger-size 18 --tuio "udp:127.0.0.1:$port" --stats
wait "$dump" || true
echo "--- the first TUIO messages that arrived on udp port $port (all in out/tuio-dump.txt):"
head -n 24 out/tuio-dump.txt
cat <<'EOF'
--- how to read them: the first three bundles (2Dcur, 2Dobj, 2Dblb; an empty "alive" and "fseq -1")
    are sent once at start-up, as reacTIVision does, so that a client clears what an earlier run left.
    Then one bundle per profile and frame: "alive" lists the session IDs present, each "set" is
    session ID, symbol ID, x, y (0..1 of the frame), angle (radians), velocity x, y, rotation speed,
    motion and rotation acceleration (2Dcur: session, x, y, velocity, acceleration), and "fseq"
    numbers the frame. Objects move between two frames in 2Dobj; fingers appear in 2Dcur.
EOF
echo "quickstart: tracked out/sequence (60 frames) and thresholded data/samples/table.pgm into out/table-bernsen.png"
