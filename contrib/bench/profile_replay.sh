#!/usr/bin/env bash
# Profiles one block replay of coinsdb's bitcoind with perf, LevelDB's
# symbols included, and says where the time went (perf_leveldb.py).
#
#   contrib/bench/profile_replay.sh [options]
#     -b DIR     directory with bitcoind and tools/coinsdb-genchain (default: build/src)
#     -c FILE    a coinsdb-genchain block file (default: generate one from -n, -u, -s)
#     -n N       blocks to generate (default: 2000)
#     -u N       UTXO set size to aim for (default: 6000000)
#     -s SEED    generator seed (default: 7)
#     -d MIB     -dbcache (default: 100)
#     -p MIB     -prune target, 0 for none (default: 0)
#     -o DIR     output: perf.data, the datadir's debug.log, report.txt (default: profile-out)
#     -x ARG     one more bitcoind argument (repeatable)
#   e.g. contrib/bench/profile_replay.sh -d 100            (a small cache over a large set)
#        contrib/bench/profile_replay.sh -d 2000 -p 550    (pruned, the set in the cache)
#        contrib/bench/profile_replay.sh -d 100 -c chain.dat -x -swiftsynchints=chain.hints -x -swiftsyncblockhash=<tip>
#
# perf samples cpu-clock at 250 Hz with DWARF call graphs (this machine
# kind has no hardware counters; frame pointers are not kept by Debian's
# LevelDB), which writes about 4 MB of perf.data per second of replay.
# The profiled run is slower than an unprofiled one; its shares, not its
# times, are the result.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/src chain= blocks=2000 utxos=6000000 seed=7 dbcache=100 prune=0 out=profile-out extra=()
while getopts "b:c:n:u:s:d:p:o:x:" opt; do
  case $opt in
    b) bin=$OPTARG ;; c) chain=$OPTARG ;; n) blocks=$OPTARG ;; u) utxos=$OPTARG ;; s) seed=$OPTARG ;;
    d) dbcache=$OPTARG ;; p) prune=$OPTARG ;; o) out=$OPTARG ;; x) extra+=("$OPTARG") ;;
    *) exit 2 ;;
  esac
done
command -v perf > /dev/null || { echo "perf is missing (Debian: linux-perf)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "$chain" ]; then
  chain=$out/chain-$blocks-$utxos-$seed.dat
  if [ ! -e "$chain" ]; then
    "$bin/tools/coinsdb-genchain" "-output=$chain.tmp" "-blocks=$blocks" "-target-utxos=$utxos" "-seed=$seed" > /dev/null
    mv "$chain.tmp" "$chain"
  fi
fi
height=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import compare_core; print(len(compare_core.read_chain_headers(sys.argv[2])))' "$top/contrib/bench" "$chain")
lib=$("$top/contrib/bench/leveldb_symbols.sh")

datadir=$out/datadir
rm -rf "$datadir" && mkdir -p "$datadir"
flags=(-regtest "-datadir=$datadir" "-dbcache=$dbcache" -listen=0 -connect=0 -blocksonly=1 -rpcport=29470
       -printtoconsole=0 -daemon=0 -logtimemicros -debug=coindb -debug=bench
       "-loadblock=$chain" "-stopatheight=$height")
[ "$prune" = 0 ] || flags+=("-prune=$prune")
flags+=("${extra[@]}")
echo "profiling: bitcoind ${flags[*]}" >&2
LD_LIBRARY_PATH=$lib perf record -F 250 --call-graph dwarf,16384 -o "$out/perf.data" -- "$bin/bitcoind" "${flags[@]}" >&2
cp "$datadir/regtest/debug.log" "$out/debug.log"
python3 "$top/contrib/bench/perf_leveldb.py" "$out/perf.data" | tee "$out/report.txt"
