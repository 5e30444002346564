#!/usr/bin/env bash
# Replays one generated chain with the bitcoind of two commits, the way
# reviewers compare a change: both builds, the same chain file, the same
# flags, one hyperfine run (all runs of BASE, then all of HEAD).
#
#   contrib/bench/compare_replay.sh [options] BASE HEAD
#     -n N      blocks in the generated chain (default: 2000)
#     -u N      UTXO set size the generator aims for (default: 5000000)
#     -s SEED   generator seed (default: 1)
#     -d MIB    -dbcache (default: 4000)
#     -p MIB    -prune target, 0 for none (default: 550)
#     -r N      hyperfine runs per commit (default: 1)
#     -o DIR    output directory, reused between calls (default: bench-out)
#   e.g. contrib/bench/compare_replay.sh ff3311f HEAD
#
# Writes DIR/replay.json and DIR/replay.md (hyperfine) and, per commit,
# DIR/<commit>.log: the coins-related lines of the last run's debug.log
# (prunes, cache flushes and syncs, the final UpdateTip).
#
# Not measured: script or signature checks (coinsdb has none), network
# download, or a chain shaped like mainnet's history; the chain is built
# once and read from the page cache after the first run.
set -euo pipefail

blocks=2000 utxos=5000000 seed=1 dbcache=4000 prune=550 runs=1 out=bench-out
while getopts "n:u:s:d:p:r:o:" opt; do
  case $opt in
    n) blocks=$OPTARG ;; u) utxos=$OPTARG ;; s) seed=$OPTARG ;; d) dbcache=$OPTARG ;;
    p) prune=$OPTARG ;; r) runs=$OPTARG ;; o) out=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [options] BASE HEAD" >&2; exit 2; }
top=$(git rev-parse --show-toplevel)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# One Release build per commit, in worktrees beside the output; ccache
# makes rebuilding a commit that was built before cheap.
commits=()
for rev in "$1" "$2"; do
  commit=$(git -C "$top" rev-parse --short "$rev")
  commits+=("$commit")
  tree="$out/tree-$commit"
  [ -d "$tree" ] || git -C "$top" worktree add --detach "$tree" "$commit" > /dev/null
  cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
  CCACHE_BASEDIR="$tree" cmake --build "$tree/build" --target bitcoind coinsdb-genchain -j "$(nproc)" > /dev/null
done

chain="$out/chain-$blocks-$utxos-$seed.dat"
if [ ! -f "$chain" ]; then
  "$out/tree-${commits[1]}/build/src/tools/coinsdb-genchain" -output="$chain" -blocks="$blocks" \
    -target-utxos="$utxos" -seed="$seed" > "$chain.json"
fi

flags="-regtest -printtoconsole=0 -loadblock=$chain -stopatheight=$blocks -dbcache=$dbcache -debug=coindb -debug=prune"
[ "$prune" = 0 ] || flags="$flags -prune=$prune"
# Each run starts from an empty datadir; the last run's log is kept.
hyperfine --runs "$runs" --export-json "$out/replay.json" --export-markdown "$out/replay.md" \
  --prepare "rm -rf '$out/datadir' && mkdir '$out/datadir'" \
  -L commit "$(IFS=,; echo "${commits[*]}")" \
  "$out/tree-{commit}/build/src/bitcoind -datadir='$out/datadir' $flags && grep -E 'Pruning|Committed|FlushSnapshotToDisk|UpdateTip: .*height=$blocks |Flushing large' '$out/datadir/regtest/debug.log' > '$out/{commit}.log'"
cat "$out/replay.md"
for commit in "${commits[@]}"; do
  echo "$commit: $(grep -c Pruning "$out/$commit.log") prune writes, $(grep -c Committed "$out/$commit.log") coins writes"
done
