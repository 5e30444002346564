#!/usr/bin/env bash
# Builds coinsdb as a Debug build (Assume() checks on) with AddressSanitizer
# (and LeakSanitizer) plus UndefinedBehaviorSanitizer into build-san/, then
# runs the unit suite and the functional suite on it. Any report fails the
# run: UBSan is built not to recover, and the functional framework fails a
# node that exits non-zero or writes to stderr.
#   contrib/sanitizers.sh                 unit + functional
#   contrib/sanitizers.sh --unit-only     unit suite only
#   BUILD_DIR=... JOBS=N                  as for contrib/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build-san}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
JOBS=${JOBS:-$(nproc)}
UNIT_ONLY=0
if [ "${1:-}" = "--unit-only" ]; then UNIT_ONLY=1; fi

contrib/install_deps.sh

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSANITIZERS=address,undefined >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"

# Stack traces for every report; abort so a report cannot pass unnoticed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

echo "== unit tests (Debug, ASan+UBSan)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"

if [ "$UNIT_ONLY" = 0 ]; then
  echo "== functional tests (Debug, ASan+UBSan)"
  test/functional/test_runner.py --builddir "$BUILD_DIR" --jobs "$JOBS"
fi
