#!/usr/bin/env bash
# Builds the libFuzzer binary (clang, ASan + UBSan) into build-fuzz/ and runs
# every fuzz target of src/test/fuzz/ for SECONDS each, one after the other,
# starting from seed corpora made from ../shared/vectors (contrib/fuzz_seeds.py)
# plus the inputs kept in src/test/data/fuzz_regressions/.
#
#   contrib/fuzz.sh SECONDS [TARGET...]
#
#   BUILD_DIR=build-fuzz   where to build (kept apart from the normal build/)
#   JOBS=2                 build jobs
#   CORPUS_DIR=...         corpora to start from and grow (default: a new
#                          temporary directory, kept and printed at the end)
#   VECTORS=../shared/vectors
#
# Prints one line per target: seconds, executions, executions per second and
# the corpus size, which is what doc/reliability.md records. Exits non-zero
# if any target crashed or failed a check; the input is kept as
# $CORPUS_DIR/crashes/<target>-crash-<sha1>, to be added to
# src/test/data/fuzz_regressions/<target>/ with its fix.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
SECONDS_PER_TARGET=$1
shift

BUILD_DIR=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-2}
VECTORS=${VECTORS:-../shared/vectors}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

contrib/install_deps.sh

# clang, and libFuzzer itself, which Debian ships in compiler-rt's package
# for the clang version installed (libclang-rt-<major>-dev).
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "fuzz.sh: installing $*"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if ! command -v clang++ >/dev/null || ! command -v clang >/dev/null; then
  apt_install clang
fi
if [ ! -f "$(clang++ -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]; then
  apt_install "libclang-rt-$(clang++ -dumpversion | cut -d. -f1)-dev"
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$BUILD_DIR" --target fuzz -j "$JOBS"
FUZZ_BIN=$BUILD_DIR/src/test/fuzz/fuzz

ALL_TARGETS=(snapshot_reader coin_decompression rpc_request coins_cache_model hints_decoder)
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=("${ALL_TARGETS[@]}"); fi

CORPUS_DIR=${CORPUS_DIR:-$(mktemp -d /tmp/coinsdb-fuzz.XXXXXX)}
mkdir -p "$CORPUS_DIR/crashes" "$CORPUS_DIR/logs"
if [ -d "$VECTORS" ]; then
  python3 contrib/fuzz_seeds.py "$VECTORS" "$CORPUS_DIR"
else
  echo "fuzz.sh: $VECTORS not found; starting from the regression inputs only" >&2
fi

# Without a crash, leak or UB report the run is clean; ASan's leak check
# stays on.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
printf '%-20s %8s %12s %10s %8s  %s\n' target seconds executions exec/s corpus result
for target in "${TARGETS[@]}"; do
  corpus=$CORPUS_DIR/$target
  mkdir -p "$corpus"
  cp -n src/test/data/fuzz_regressions/"$target"/* "$corpus"/ 2>/dev/null || true
  dict=()
  if [ -f "src/test/fuzz/$target.dict" ]; then dict=(-dict="src/test/fuzz/$target.dict"); fi
  log=$CORPUS_DIR/logs/$target.log
  start=$(date +%s)
  result=ok
  if ! FUZZ=$target "$FUZZ_BIN" "$corpus" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" \
      -print_final_stats=1 -artifact_prefix="$CORPUS_DIR/crashes/$target-" >"$log" 2>&1; then
    result="FAILED, see $log"
    failed=1
  fi
  took=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  printf '%-20s %8s %12s %10s %8s  %s\n' "$target" "$took" "${runs:-?}" "${rate:-?}" "$(ls "$corpus" | wc -l)" "$result"
done
echo "corpora, logs and crashes: $CORPUS_DIR"
exit $failed
