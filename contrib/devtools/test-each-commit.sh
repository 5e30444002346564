#!/usr/bin/env bash
# Builds and tests every commit of a range in a scratch worktree, so that a
# patch series can be checked commit by commit without touching the work tree.
#   contrib/devtools/test-each-commit.sh BASE..HEAD [--unit-only]
# ccache makes the rebuilds cheap. Stops at the first commit that fails.
set -euo pipefail
range=${1:?usage: test-each-commit.sh BASE..HEAD [--unit-only]}
unit_only=${2:-}
top=$(git rev-parse --show-toplevel)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/coinsdb-each-commit.XXXXXX")
trap 'git -C "$top" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT

git -C "$top" worktree add --detach "$scratch/tree" >/dev/null 2>&1
# The tests look for ../shared beside the tree; point them at this one's.
export COINSDB_VECTORS=${COINSDB_VECTORS:-$(cd "$top/.." && pwd)/shared/vectors}
if [ -z "${COINSDB_CORE_DATADIR:-}" ]; then
  for template in "$top"/../shared/reference/bitcoin-core-*/template/datadir; do
    [ -d "$template" ] && export COINSDB_CORE_DATADIR=$template
  done
fi

if [ -z "${COINSDB_CORE_BIN:-}" ]; then
  for bin in "$top"/../shared/reference/bitcoin-core-*/bin; do
    [ -x "$bin/bitcoind" ] && export COINSDB_CORE_BIN=$bin
  done
fi

# Listed first: a failure inside the for loop's word list would not stop
# the script, which would then pass an empty (or misread) range.
commits=$(git -C "$top" rev-list --reverse "$range")
[ -n "$commits" ] || { echo "no commits in $range" >&2; exit 1; }
for commit in $commits; do
  echo "=== $(git -C "$top" log -1 --format='%h %s' "$commit")"
  git -C "$scratch/tree" checkout -q --detach "$commit"
  # Every step is checked explicitly: errexit does not apply inside a
  # command whose status is tested, so a failed build must not fall
  # through to testing the previous commit's binaries.
  fail() { echo "FAILED at $commit: $1"; exit 1; }
  cd "$scratch/tree"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "cmake"
  cmake --build build -j "$(nproc)" >"$scratch/build.log" 2>&1 || { grep -E "error|FAILED" "$scratch/build.log" | head -20; fail "build"; }
  if [ -f contrib/devtools/check_layers.py ]; then python3 contrib/devtools/check_layers.py src >/dev/null || fail "check_layers"; fi
  ctest --test-dir build --output-on-failure -j "$(nproc)" >"$scratch/ctest.log" 2>&1 || { tail -n 40 "$scratch/ctest.log"; fail "unit tests"; }
  tail -n 3 "$scratch/ctest.log"
  if [ "$unit_only" != "--unit-only" ] && [ -x test/functional/test_runner.py ]; then
    test/functional/test_runner.py --builddir build --jobs "$(nproc)" >"$scratch/functional.log" 2>&1 || { tail -n 40 "$scratch/functional.log"; fail "functional tests"; }
    tail -n 1 "$scratch/functional.log"
  fi
  cd "$top"
done
echo "all commits in $range pass"
