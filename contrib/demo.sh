#!/usr/bin/env bash
# The README's first command: installs dependencies, builds, generates a
# regtest snapshot of about a million mainnet-shaped coins, and runs the
# published assumeutxo reproducer against it, unchanged but for the snapshot
# path. Ends by printing the load, flush and BatchWrite figures it measured
# (from debug.log).
#   COINS=N contrib/demo.sh      another snapshot size (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."

COINS=${COINS:-1000000}
SEED=${SEED:-1}
BUILD_DIR=${BUILD_DIR:-build}

contrib/install_deps.sh
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
export PATH="$PWD/$BUILD_DIR/src:$PWD/$BUILD_DIR/src/tools:$PATH"

# A fresh datadir each run, so the figures are from this load alone.
if [ -f demo/regtest/bitcoind.pid ]; then
  bitcoin-cli -datadir=demo stop >/dev/null 2>&1 || true
  sleep 2
fi
rm -rf demo
mkdir -p demo
SNAPSHOT="$PWD/demo/utxo-${COINS}.dat"

echo "== generating a regtest snapshot of $COINS coins (seed $SEED)"
coinsdb-gensnapshot -output="$SNAPSHOT" -coins="$COINS" -seed="$SEED" > demo/snapshot.json
cat demo/snapshot.json
ASSUMEUTXO=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["assumeutxo"])' demo/snapshot.json)
# The reproducer's command lines stay as published; the conf file adds the
# BatchWrite lines (-debug=coindb) and microsecond timestamps for the figures.
printf 'regtest=1\ndebug=coindb\nlogtimemicros=1\n[regtest]\nassumeutxo=%s\n' "$ASSUMEUTXO" > demo/bitcoin.conf

echo "== the reproducer"
set -x
bitcoind -datadir=demo -stopatheight=1
bitcoind -datadir=demo -blocksonly=1 -connect=0 -dbcache=3000 -daemon
bitcoin-cli -datadir=demo -rpcclienttimeout=0 loadtxoutset "$SNAPSHOT"
bitcoin-cli -datadir=demo stop
set +x
# bitcoind flushes and exits after "stop"; wait for it to let go of the datadir.
for _ in $(seq 1 600); do
  [ -f demo/regtest/bitcoind.pid ] || break
  sleep 0.5
done
grep "FlushSnapshotToDisk: completed" demo/regtest/debug.log

echo "== figures"
grep -E "\[snapshot\] (loading|loaded|validated)|FlushSnapshotToDisk" demo/regtest/debug.log | sed 's/^[^ ]* //'
python3 - demo/regtest/debug.log <<'PY'
import re, sys
from datetime import datetime

def when(line):
    return datetime.fromisoformat(line.split(" ", 1)[0].replace("Z", "+00:00")).timestamp()

lines = open(sys.argv[1], encoding="utf8").read().splitlines()
start = next(when(l) for l in lines if "[snapshot] loading" in l)
end = next(when(l) for l in lines if "[snapshot] validated" in l)
flushes = [float(m.group(1)) for l in lines if (m := re.search(r"FlushSnapshotToDisk: completed \(([0-9.]+)ms\)", l))]
writes = [(int(m.group(1)), int(m.group(2))) for l in lines if (m := re.search(r"BatchWrite took=(\d+)ms, maxMem=(\d+)MiB", l))]
coins = sum(int(m.group(1)) for l in lines if (m := re.search(r"Committed (\d+) changed transaction outputs", l)))
write_s = sum(ms for ms, _ in writes) / 1000
print(f"loadtxoutset wall (loading -> validated): {end - start:.2f} s")
print(f"flushes: {len(flushes)}, FlushSnapshotToDisk sum {sum(flushes) / 1000:.2f} s")
print(f"BatchWrite: {len(writes)} writes, {write_s:.2f} s, {coins} coins written, "
      f"{coins / write_s / 1e6:.2f} M coins/s" if write_s else "BatchWrite: none")
print(f"BatchWrite peak RSS (maxMem): {max((mem for _, mem in writes), default=0)} MiB")
PY
