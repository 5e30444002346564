#!/usr/bin/env bash
# Builds coinsdb into build/ and runs every test suite. Works on a fresh
# Debian machine: missing packages are installed first.
#   contrib/test.sh            all suites
#   BUILD_DIR=... JOBS=N       to build elsewhere or with another job count
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
# ccache hits across clones and worktrees (paths are hashed relative to here).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
JOBS=${JOBS:-$(nproc)}

contrib/install_deps.sh

# CI fails on any compiler warning; locally a warning is only shown.
WERROR=OFF
if [ "${CI:-}" = "true" ]; then WERROR=ON; fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWERROR="$WERROR" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"

# Fail instead of skipping when the vectors are missing in CI.
if [ "${CI:-}" = "true" ] && [ -z "${COINSDB_VECTORS:-}" ] && [ ! -d ../shared/vectors ]; then
  echo "test.sh: CI run without ../shared/vectors; vector_tests would be skipped" >&2
  exit 1
fi

echo "== layering (doc/design.md)"
python3 contrib/devtools/check_layers.py src

echo "== functional test list (test/functional/README.md)"
python3 contrib/devtools/check_functional_list.py

echo "== benchmark scripts' own tests (contrib/bench/test_*.py)"
python3 -m unittest discover -s contrib/bench -p 'test_*.py'

echo "== unit tests (ctest: one test per Boost suite)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"

if [ -x test/functional/test_runner.py ]; then
  echo "== functional tests"
  test/functional/test_runner.py --builddir "$BUILD_DIR" --jobs "$JOBS"
fi
