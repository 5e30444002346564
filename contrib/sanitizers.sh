#!/usr/bin/env bash
# Builds coinsdb as a Debug build (Assume() checks on) with sanitizers, then
# runs the unit suite and the functional suite on it. Any report fails the
# run: UBSan is built not to recover, TSan is told to halt, and the
# functional framework fails a node that exits non-zero or writes to stderr.
#   contrib/sanitizers.sh                 AddressSanitizer (and LeakSanitizer)
#                                         plus UndefinedBehaviorSanitizer, into
#                                         build-san/: unit + functional
#   contrib/sanitizers.sh thread          ThreadSanitizer, into build-tsan/:
#                                         unit + functional
#   ... --unit-only                       unit suite only (either mode)
#   SUITES="a b" contrib/sanitizers.sh thread --unit-only
#                                         only those unit suites
#   BUILD_DIR=... JOBS=N                  as for contrib/test.sh
# ThreadSanitizer sees the races of code it instrumented: ours. LevelDB,
# libevent and OpenSSL come from the system, uninstrumented; their own
# locks still order our accesses (TSan intercepts pthread calls), but a
# race inside them would go unseen.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=address
if [ "${1:-}" = "thread" ]; then
  MODE=thread
  shift
fi
UNIT_ONLY=0
if [ "${1:-}" = "--unit-only" ]; then UNIT_ONLY=1; fi

if [ "$MODE" = thread ]; then
  BUILD_DIR=${BUILD_DIR:-build-tsan}
  SANITIZERS=thread
else
  BUILD_DIR=${BUILD_DIR:-build-san}
  SANITIZERS=address,undefined
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
JOBS=${JOBS:-$(nproc)}

contrib/install_deps.sh

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSANITIZERS="$SANITIZERS" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"

# Stack traces for every report; abort so a report cannot pass unnoticed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:history_size=4}

LABEL="Debug, ASan+UBSan"
if [ "$MODE" = thread ]; then LABEL="Debug, TSan"; fi

echo "== unit tests ($LABEL)"
if [ -n "${SUITES:-}" ]; then
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -R "^($(echo "$SUITES" | tr ' ' '|'))\$"
else
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
fi

if [ "$UNIT_ONLY" = 0 ]; then
  echo "== functional tests ($LABEL)"
  test/functional/test_runner.py --builddir "$BUILD_DIR" --jobs "$JOBS"
fi
