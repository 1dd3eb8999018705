#!/usr/bin/env bash
# Fuzzes every input parser: builds the harnesses of tests/fuzz with clang's libFuzzer and
# ASan+UBSan into build-fuzz/, then runs each until it has made RUNS executions or SECONDS have
# passed, a few at a time. Each harness's corpus grows in build-fuzz/corpus/NAME (seeded from
# tests/fuzz/seeds/NAME, its regression inputs and the repository's data); an input that crashes,
# leaks, hangs or throws anything but gpuvis::Error lands in build-fuzz/findings/NAME/. Once the
# bug is fixed, copy that input to tests/fuzz/regressions/NAME/: the test suite replays it.
#
#   scripts/fuzz.sh [SECONDS] [--runs N] [--only NAME,NAME] [--jobs J]
#
# Defaults: 600 s, 1 000 000 executions, every harness, one job per core. The summary (executions,
# corpus size and findings per harness) goes to build-fuzz/fuzz-summary.md and stdout. Needs clang
# and libclang-rt (scripts/deps.sh installs them).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=600 runs=1000000 only="" jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift ;;
    --only) only="$2"; shift ;;
    --jobs) jobs="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *) seconds="$1" ;;
  esac
  shift
done
command -v clang++ >/dev/null || { echo "fuzz: clang++ is not installed (bash scripts/deps.sh)" >&2; exit 1; }
harnesses=$(sed -n 's/^set(gpuvis_fuzz_harnesses \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)
[ -n "$only" ] && harnesses=$(echo "$only" | tr ',' ' ')
gen=""; command -v ninja >/dev/null && gen="-G Ninja"
mkdir -p build-fuzz
log=build-fuzz/build.log
CC=clang CXX=clang++ cmake -S . -B build-fuzz $gen -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUVIS_FUZZ=ON -DGPUVIS_SANITIZE=ON \
  -DGPUVIS_CUDA=OFF -DGPUVIS_PYTHON=OFF -DGPUVIS_BUILD_APP=OFF -DGPUVIS_BUILD_BENCHMARKS=OFF > $log 2>&1 \
  || { echo "fuzz: configure failed ($log)" >&2; exit 1; }
targets=""
for h in $harnesses; do targets="$targets fuzz_$h"; done
cmake --build build-fuzz -j "$(nproc)" --target $targets >> $log 2>&1 || { echo "fuzz: build failed ($log)" >&2; exit 1; }

# Extra seeds from the repository's data.
seed_data() {
  case "$1" in
    trees) ls data/trees/*.trees ;;
    png) ls data/amoeba/symbols/amoeba_small_00[0-2].png 2>/dev/null ;;
  esac
}
run_one() {
  local h=$1 dir=build-fuzz
  mkdir -p "$dir/corpus/$h" "$dir/findings/$h" "$dir/logs"
  for f in $(seed_data "$h"); do cp -n "$f" "$dir/corpus/$h/" 2>/dev/null; done
  local extra=()
  [ -d "tests/fuzz/regressions/$h" ] && extra+=("tests/fuzz/regressions/$h")
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$dir/tests/fuzz/fuzz_$h" -runs="$runs" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$dir/findings/$h/" \
    "$dir/corpus/$h" "tests/fuzz/seeds/$h" "${extra[@]}" > "$dir/logs/$h.log" 2>&1
  echo $? > "$dir/logs/$h.rc"
}
export -f run_one seed_data
export runs seconds
echo "fuzz: $(echo $harnesses | wc -w) harnesses, up to $runs executions or $seconds s each, $jobs at a time"
printf '%s\n' $harnesses | xargs -P "$jobs" -I{} bash -c 'run_one {}'

summary=build-fuzz/fuzz-summary.md
status=0
{
  echo "| harness | executions | seconds | corpus | findings |"
  echo "|---|---:|---:|---:|---:|"
  for h in $harnesses; do
    log=build-fuzz/logs/$h.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    corpus=$(ls "build-fuzz/corpus/$h" | wc -l)
    findings=$(ls "build-fuzz/findings/$h" | wc -l)
    rc=$(cat "build-fuzz/logs/$h.rc")
    [ "$findings" -gt 0 ] || [ "$rc" -ne 0 ] && status=1
    echo "| $h | ${execs:-?} | ${secs:-?} | $corpus | $findings |"
  done
} > "$summary"
cat "$summary"
[ $status -eq 0 ] || echo "fuzz: findings in build-fuzz/findings/ (logs in build-fuzz/logs/)"
exit $status
