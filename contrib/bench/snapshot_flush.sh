#!/usr/bin/env bash
# Flush time and memory by write batch size: loads one generated regtest
# snapshot with loadtxoutset once per (run, batch size), interleaving the
# sizes so that drift on the machine spreads evenly, and reads from
# debug.log the FlushSnapshotToDisk time and the BatchWrite start/peak
# resident set of that flush.
#
#   contrib/bench/snapshot_flush.sh [options] SIZE...
#     -b DIR    build directory with src/bitcoind (default: build)
#     -c N      coins in the generated snapshot (default: 5000000)
#     -s SEED   generator seed (default: 1)
#     -d MIB    -dbcache (default: 3000; must hold the whole snapshot)
#     -r N      runs per size (default: 3)
#     -o FILE   CSV output (default: snapshot_flush.csv)
#   e.g. contrib/bench/snapshot_flush.sh 16777216 33554432 67108864
#
# Columns: batch_bytes, run, flush_ms (FlushSnapshotToDisk), batchwrite_ms
# (the BatchWrite took= figure), start_rss_mib and max_mem_mib (the
# BatchWrite started / maxMem figures: their difference is what the write
# added on top of the cache), process_max_rss_kb (/usr/bin/time, whole run).
#
# Not measured: reading the snapshot or hashing it (only the flush is
# timed), cold-cache disk reads (the snapshot file is in the page cache
# after the first run), and anything but the snapshot chainstate's flush.
set -euo pipefail

build=build coins=5000000 seed=1 dbcache=3000 runs=3 out=snapshot_flush.csv
while getopts "b:c:s:d:r:o:" opt; do
  case $opt in
    b) build=$OPTARG ;; c) coins=$OPTARG ;; s) seed=$OPTARG ;;
    d) dbcache=$OPTARG ;; r) runs=$OPTARG ;; o) out=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [options] SIZE..." >&2; exit 2; }
bin=$(cd "$build/src" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/snapshot_flush.XXXXXX")
trap 'rm -rf "$work"' EXIT
snapshot="$work/snapshot.dat"
"$bin/tools/coinsdb-gensnapshot" -output="$snapshot" -coins="$coins" -seed="$seed" > "$work/snapshot.json"
assumeutxo=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["assumeutxo"])' "$work/snapshot.json")

echo "batch_bytes,run,flush_ms,batchwrite_ms,start_rss_mib,max_mem_mib,process_max_rss_kb" > "$out"
for run in $(seq 1 "$runs"); do
  for size in "$@"; do
    datadir="$work/datadir"
    rm -rf "$datadir" && mkdir -p "$datadir"
    printf 'regtest=1\n[regtest]\nassumeutxo=%s\n' "$assumeutxo" > "$datadir/bitcoin.conf"
    "$bin/bitcoind" -datadir="$datadir" -stopatheight=1 -printtoconsole=0 > /dev/null
    /usr/bin/time -f %M -o "$work/rss" "$bin/bitcoind" -datadir="$datadir" -printtoconsole=0 \
      -dbcache="$dbcache" -dbbatchsize="$size" -debug=coindb &
    pid=$!
    "$bin/bitcoin-cli" -datadir="$datadir" -rpcwait -rpcwaittimeout=120 getblockcount > /dev/null
    offset=$(wc -l < "$datadir/regtest/debug.log")
    "$bin/bitcoin-cli" -datadir="$datadir" -rpcclienttimeout=0 loadtxoutset "$snapshot" > /dev/null
    "$bin/bitcoin-cli" -datadir="$datadir" stop > /dev/null
    wait "$pid"
    python3 - "$datadir/regtest/debug.log" "$offset" "$size" "$run" "$(cat "$work/rss")" >> "$out" <<'EOF'
import re, sys
path, offset, size, run, rss = sys.argv[1:]
lines = open(path).read().splitlines()[int(offset):]
# The final flush of the load; earlier writes (if the cache overflowed) are
# not what this measures.
start_at = max(i for i, line in enumerate(lines) if "FlushSnapshotToDisk: saving snapshot chainstate" in line)
lines = lines[start_at:]
def first(pattern, groups):
    for line in lines:
        m = re.search(pattern, line)
        if m:
            return m.groups()
    # Builds from before the BatchWrite log lines leave these columns empty.
    return ("",) * groups
(flush_ms,) = first(r"FlushSnapshotToDisk: completed \(([0-9.]+)ms\)", 1)
if not flush_ms:
    sys.exit(f"no FlushSnapshotToDisk line in {path}")
(start,) = first(r"BatchWrite started, rss=(\d+)MiB", 1)
took, peak = first(r"BatchWrite took=(\d+)ms, maxMem=(\d+)MiB", 2)
print(",".join([size, run, flush_ms, took, start, peak, rss]))
EOF
    tail -n 1 "$out"
  done
done
echo "wrote $out"
