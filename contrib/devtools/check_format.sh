#!/usr/bin/env bash
# Shows how .clang-format would lay out the lines a change touches, as
# Bitcoin Core's reviewers ask for: only changed lines, never the whole
# tree (a mass reformat would bury `git blame` and every range-diff).
#   contrib/devtools/check_format.sh [BASE]   (default: HEAD, i.e. the work tree)
# Exits 1 when some changed line is laid out differently.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
command -v clang-format > /dev/null || { echo "check_format: clang-format is not installed (apt install clang-format)" >&2; exit 2; }
base=${1:-HEAD}
out=$(git clang-format --binary "$(command -v clang-format)" --diff --extensions cpp,h "$base" -- src || true)
if [ -z "$out" ] || [[ "$out" == *"no modified files to format"* ]] || [[ "$out" == *"did not modify any files"* ]]; then
  echo "check_format: changed lines match .clang-format"
  exit 0
fi
echo "$out"
exit 1
