#!/usr/bin/env python3
"""How much of a loaded chainstate LevelDB rewrites over restart-and-read
cycles (issue 34, item 6).

Loads a coinsdb-gensnapshot file once with a -dbcache that holds it, then
runs --cycles times: start the node, --lookups gettxout calls (half of them
coins from the start of the snapshot, half random outpoints that do not
exist, spread over the key range), one gettxoutsetinfo, a wait until LevelDB
is idle, stop. For each cycle it reports what LevelDB wrote (the bytes of
its memtable flushes and compaction outputs, from -debug=leveldb) against
the chainstate's size. LevelDB's seek-triggered compactions are what this
measures; it does not time anything.

    contrib/bench/restart_rewrites.py --coins 2000000 [--bulkload 0] [--json out.json]

Exits 1 when --max-share is given and any cycle wrote more than that share
of the chainstate.
"""

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "functional"))
from test_framework.snapshot import ByteReader, Coin, read_compact_size  # noqa: E402

# LevelDB 1.23's log lines for the bytes it writes into tables.
FLUSHED = re.compile(r"Level-0 table #\d+: (\d+) bytes OK")
COMPACTED = re.compile(r"Compacted \d+@\d+ \+ \d+@\d+ files => (\d+) bytes")
MOVED = re.compile(r"Moved #\d+ to level-\d+")


def leveldb_writes(lines):
    """Bytes LevelDB wrote into tables in `lines`, and how many compactions
    and trivial moves it made."""
    flushed = sum(int(m.group(1)) for line in lines if (m := FLUSHED.search(line)))
    compacted = [int(m.group(1)) for line in lines if (m := COMPACTED.search(line))]
    moves = sum(1 for line in lines if MOVED.search(line))
    return {"flushed_bytes": flushed, "compacted_bytes": sum(compacted), "compactions": len(compacted), "moves": moves}


def first_outpoints(snapshot, count):
    """The first `count` outpoints of the snapshot, as (txid hex, vout)."""
    with open(snapshot, "rb") as f:
        data = f.read(51 + count * 200)
    reader = ByteReader(data, 51)
    found = []
    while len(found) < count:
        txid = reader.read(32)
        for _ in range(read_compact_size(reader)):
            vout = read_compact_size(reader)
            Coin.deserialize(reader)
            found.append((txid[::-1].hex(), vout))
    return found[:count]


def dir_bytes(path):
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def wait_idle(node, quiet_s=3.0, timeout_s=600):
    """Until the debug.log has not grown for quiet_s: LevelDB logs every
    compaction it starts and ends."""
    deadline = time.monotonic() + timeout_s
    size = -1
    while time.monotonic() < deadline:
        now = node.log_path().stat().st_size
        if now == size:
            return
        size = now
        time.sleep(quiet_s)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--coins", type=int, default=2_000_000)
    parser.add_argument("--dbcache", type=int, default=0, help="MiB; 0: enough to hold the snapshot")
    parser.add_argument("--bulkload", type=int, default=1, help="-snapshotbulkload")
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--bin-dir", type=Path, default=ROOT / "build" / "src")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/coinsdb-restart-rewrites"))
    parser.add_argument("--port", type=int, default=18763)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--max-share", type=float, help="fail when a cycle writes more than this share of the chainstate")
    args = parser.parse_args()

    args.workdir.mkdir(parents=True, exist_ok=True)
    snapshot = args.workdir / f"snapshot-{args.coins}.dat"
    info_path = snapshot.with_suffix(".json")
    if not (snapshot.exists() and info_path.exists()):
        snapshot.unlink(missing_ok=True)
        info = benchlib.run_tool([args.bin_dir / "tools" / "coinsdb-gensnapshot", f"-output={snapshot}",
                                  f"-coins={args.coins}", "-height=300", "-seed=1"])
        info_path.write_text(json.dumps(info))
    info = json.loads(info_path.read_text())
    _, blockhash = benchlib.read_snapshot_header(snapshot)
    dbcache = args.dbcache or max(64, args.coins * 200 // (1 << 20))
    existing = first_outpoints(snapshot, args.lookups // 2)
    rng = random.Random(7)
    missing = [(rng.randbytes(32).hex(), rng.randrange(4)) for _ in range(args.lookups - len(existing))]

    datadir = benchlib.fresh_dir(args.workdir / "datadir")
    node = benchlib.Node("coinsdb", args.bin_dir, args.port)
    extra = [f"-snapshotbulkload={args.bulkload}", "-debug=leveldb",
             f"-assumeutxo=300:{blockhash}:{info['hash_serialized_3']}"]
    node.start(datadir, node.base_args(datadir, dbcache) + extra)
    node.wait_ready()
    node.cli("loadtxoutset", str(snapshot))
    wait_idle(node)
    node.stop()
    chainstate = datadir / "regtest" / "chainstate_snapshot"
    size = dir_bytes(chainstate)
    print(f"loaded {args.coins} coins, -dbcache={dbcache}, -snapshotbulkload={args.bulkload}: chainstate {size} bytes")

    results = {"coins": args.coins, "dbcache": dbcache, "bulkload": args.bulkload, "chainstate_bytes": size, "cycles": []}
    for cycle in range(1, args.cycles + 1):
        log_start = len(node.log_lines()) if node.log_path().exists() else 0
        node.start(datadir, node.base_args(datadir, dbcache) + extra)
        node.wait_ready()
        for txid, vout in existing + missing:
            node.cli("gettxout", txid, str(vout))
        node.cli("gettxoutsetinfo")
        wait_idle(node)
        node.stop()
        writes = leveldb_writes(node.log_lines()[log_start:])
        written = writes["flushed_bytes"] + writes["compacted_bytes"]
        writes.update(cycle=cycle, written_bytes=written, share=written / size)
        results["cycles"].append(writes)
        print(f"cycle {cycle}: LevelDB wrote {written} bytes ({100 * written / size:.2f}% of the chainstate): "
              f"{writes['compactions']} compactions, {writes['moves']} trivial moves")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    if args.max_share is not None and any(c["share"] > args.max_share for c in results["cycles"]):
        print(f"a cycle wrote more than {100 * args.max_share:.1f}% of the chainstate", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        benchlib.Node.kill_all()
