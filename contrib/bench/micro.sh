#!/usr/bin/env bash
# Builds the microbenchmarks (src/bench, Google Benchmark) in Release and
# runs them: the console table on stdout, every figure as JSON in OUT.
#
#   contrib/bench/micro.sh [OUT] [bench_coinsdb options...]
#     OUT       JSON output (default: bench-out/micro.json)
#     options   passed on, e.g. --benchmark_filter=Sync or
#               --benchmark_repetitions=3 (see bench_coinsdb --help)
#   BUILD_DIR=... (default: build, as contrib/test.sh)  JOBS=N (default: nproc)
#
# What each benchmark measures, and what it does not, is at the top of its
# file in src/bench. The largest (Sync with 10 million cached coins) builds
# its cache once, takes about 1.5 GB and most of the run's time.
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT=bench-out/micro.json
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  OUT=$1
  shift
fi
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

contrib/install_deps.sh
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" --target bench_coinsdb -j "$JOBS"

mkdir -p "$(dirname "$OUT")"
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
start=$(date +%s)
"$BUILD_DIR/src/bench/bench_coinsdb" --benchmark_out="$OUT" --benchmark_out_format=json \
  --benchmark_context=coinsdb_commit="$commit" "$@"
echo "micro.sh: $OUT written in $(($(date +%s) - start)) s (commit $commit)"
