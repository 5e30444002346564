#!/usr/bin/env bash
# Compiles Bitcoin Core's own unit tests for the coins layer against
# coinsdb's built libraries and runs them: coins_tests, coinscachepair_tests,
# dbwrapper_tests, compress_tests, caches_tests and coinsviewoverlay_tests,
# with Core's test utilities, our stand-ins for the fixtures that would drag
# in a whole node, and the adapters in include/ and adapters/ (each says
# what it adapts). Prints per-suite and total case counts: compiled, passed,
# failed, not compiled (with the reason for each).
#
#   contrib/corecheck/run.sh <core-src-dir> [coinsdb-build-dir] [--as-stored] [--explain]
#
# <core-src-dir> holds Core's files as src/test/*.cpp and src/test/util/*
# (doc/design.md says which and where they come from); they are only read.
# The build dir (default build/, built first by contrib/test.sh or
# `cmake --build build`) gets a corecheck/ subdirectory for the work.
#   --as-stored  compile the stored files without the API-version rewrites
#                of manifest.py; the cases that need one count as not compiled
#   --explain    also compile each not-compiled case on its own and print the
#                compiler's first error, to show the reason holds
# CXX, JOBS (default 2) and CORECHECK_CXXFLAGS (default -O2) may be set.
# Exit status: 0 when every compiled case passes, 1 when one fails, 2 when
# the compilation itself fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

core="" build="" as_stored="" explain=""
for arg in "$@"; do
  case "$arg" in
    --as-stored) as_stored=--as-stored ;;
    --explain) explain=1 ;;
    -*) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    *) if [ -z "$core" ]; then core=$arg; elif [ -z "$build" ]; then build=$arg; else echo "run.sh: too many arguments" >&2; exit 2; fi ;;
  esac
done
[ -n "$core" ] || { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2; }
[ -d "$core/src/test" ] || { echo "run.sh: $core/src/test: no such directory (Core's test files go there)" >&2; exit 2; }
core=$(cd "$core" && pwd)
build=$(cd "${build:-$root/build}" && pwd)
for lib in node kernel txdb coins primitives crypto util rpc; do
  [ -f "$build/src/libcoinsdb_$lib.a" ] || { echo "run.sh: $build/src/libcoinsdb_$lib.a missing: build coinsdb first" >&2; exit 2; }
done

CXX=${CXX:-c++}
JOBS=${JOBS:-2}
command -v ccache > /dev/null && CXX="ccache $CXX"
work=$build/corecheck
rm -rf "$work/core"
mkdir -p "$work/obj"

# Core's include names resolve to our adapters first, then to Core's test
# utilities, then to coinsdb.
prepared=$work/core
cxxflags() {
  echo -std=c++20 "${CORECHECK_CXXFLAGS:--O2}" -DBOOST_TEST_DYN_LINK -DBOOST_ALL_NO_LIB -DFMT_SHARED \
    -I"$here/include" -I"$prepared/src" -I"$core/src" -I"$root/src"
}
libs=()
for lib in node kernel txdb coins primitives crypto util rpc; do libs+=("$build/src/libcoinsdb_$lib.a"); done
libs+=(-lleveldb -lsecp256k1 -lcrypto -lfmt -levent -levent_pthreads -lboost_unit_test_framework -pthread)

# Flags for one file: coins_tests reads the cache's internals (include/coins.h).
flags_for() {
  case "$1" in
    coins_tests.cpp | */coins_tests.cpp) echo "-DCORECHECK_CACHE_INTERNALS" ;;
  esac
}

compile() { # source object
  # shellcheck disable=SC2046
  nice -n 10 $CXX $(cxxflags) $(flags_for "$1") -c "$1" -o "$2"
}

python3 "$here/prepare.py" --core "$core" --out "$work/core" $as_stored

sources=("$work"/core/src/test/*.cpp "$work"/core/src/test/util/*.cpp "$here"/adapters/*.cpp)
objects=()
: > "$work/compile.log"
status=0
pids=()
for src in "${sources[@]}"; do
  obj=$work/obj/$(basename "$(dirname "$src")")_$(basename "$src" .cpp).o
  objects+=("$obj")
  ( compile "$src" "$obj" > "$work/obj/$(basename "$obj").log" 2>&1 || echo "$src" > "$work/obj/$(basename "$obj").failed" ) &
  pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait
for obj in "${objects[@]}"; do
  cat "$work/obj/$(basename "$obj").log" >> "$work/compile.log"
  if [ -f "$work/obj/$(basename "$obj").failed" ]; then
    echo "run.sh: compiling $(cat "$work/obj/$(basename "$obj").failed") failed:" >&2
    grep -m 20 "error" "$work/obj/$(basename "$obj").log" >&2 || true
    rm -f "$work/obj/$(basename "$obj").failed"
    status=2
  fi
done
[ "$status" = 0 ] || { echo "run.sh: full compiler output in $work/compile.log" >&2; exit 2; }
$CXX -o "$work/core_tests" "${objects[@]}" "${libs[@]}"

# One process per case, so that a case that aborts cannot hide the others.
python3 - "$work" <<'EOF'
import json, subprocess, sys
from collections import OrderedDict
work = sys.argv[1]
records = json.load(open(f"{work}/core/cases.json"))
results = {}
for r in records:
    if r["status"] != "run":
        continue
    proc = subprocess.run([f"{work}/core_tests", f"--run_test={r['suite']}/{r['case']}", "--log_level=error", "--report_level=no"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok = proc.returncode == 0
    results[(r["file"], r["case"])] = ok
    print(f"{'PASS' if ok else 'FAIL'}  {r['suite']}/{r['case']}", flush=True)
    if not ok:
        for line in proc.stdout.strip().splitlines()[-15:]:
            print(f"        {line}")
json.dump([{**r, "passed": results.get((r["file"], r["case"]))} for r in records], open(f"{work}/results.json", "w"), indent=1)
EOF

result=0
python3 - "$work" <<'EOF' || result=$?
import json, sys
from collections import OrderedDict
records = [r for r in json.load(open(f"{sys.argv[1]}/results.json")) if r["status"] != "fork"]
rows = OrderedDict()
for r in records:
    row = rows.setdefault(f"{r['file']} {r['suite']}", [0, 0, 0, 0, 0])
    row[0] += 1
    if r["status"] == "run":
        row[1] += 1
        row[2 if r["passed"] else 3] += 1
    else:
        row[4] += 1
total = [sum(col) for col in zip(*rows.values())]
print()
print(f"{'file suite':58} {'cases':>5} {'compiled':>8} {'passed':>6} {'failed':>6} {'not compiled':>12}")
for name, row in rows.items():
    print(f"{name:58} {row[0]:5} {row[1]:8} {row[2]:6} {row[3]:6} {row[4]:12}")
print(f"{'total':58} {total[0]:5} {total[1]:8} {total[2]:6} {total[3]:6} {total[4]:12}")
skipped = [r for r in records if r["status"] == "skipped"]
if skipped:
    print("\nnot compiled:")
    for r in skipped:
        print(f"  {r['file']} {r['case']}: {r['reason']}")
failed = [r for r in records if r["status"] == "run" and not r["passed"]]
if failed:
    print("\nfailed:")
    for r in failed:
        print(f"  {r['file']} {r['suite']}/{r['case']}")
sys.exit(1 if failed else 0)
EOF

if [ -n "$explain" ]; then
  echo
  echo "why each not-compiled case does not compile (first compiler error, the case kept on its own):"
  python3 -c "import json,sys; [print(r['file'], r['case']) for r in json.load(open(sys.argv[1])) if r['status']=='skipped']" "$work/results.json" |
  while read -r file case; do
    prepared=$work/explain
    rm -rf "$prepared"
    python3 "$here/prepare.py" --core "$core" --out "$prepared" $as_stored --keep "$file:$case"
    # shellcheck disable=SC2046
    output=$(nice -n 10 $CXX $(cxxflags) $(flags_for "$file") -fsyntax-only "$prepared/src/test/$file" 2>&1) || true
    first=$(grep -m 1 "error:" <<< "$output" || echo "(compiles on its own)")
    echo "  $file $case: ${first#"$prepared/src/test/"}"
  done
fi
exit "$result"
