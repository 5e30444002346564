#!/usr/bin/env python3
"""Peak memory of a snapshot load against -dbcache (issue 34, item 5).

Builds a regtest snapshot of --coins coins whose scripts are --script-bytes
long and of no compressible shape (10,000 bytes, the most a coin stores, by
default), then for each --dbcache starts a fresh node under /usr/bin/time,
notes its resident set once RPC answers (idle, nothing loaded), loads the
snapshot with loadtxoutset, stops it and reports the load's peak resident
set, what the load added over the idle node, and the BatchWrite lines'
batch sizes. --small also loads a snapshot of as many 40-byte-script coins.

    contrib/bench/snapshot_memory.py --coins 30000 --dbcache 4 16 64 [--small] [--json out.json]
"""

import argparse
import json
import re
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "functional"))
from test_framework.snapshot import NETWORK_MAGIC, Coin, Snapshot, hash_serialized_3, hash_to_hex, sha256d  # noqa: E402

BASE_HEIGHT = 110
BASE_NCHAINTX = 111
BATCH_LINE = re.compile(r"Writing (partial|final) batch of ([0-9.]+) MiB")
MAXMEM_LINE = re.compile(r"BatchWrite took=\d+ms, maxMem=(\d+)MiB")


def make_snapshot(path, coins, script_bytes):
    """A snapshot of `coins` coins, two per txid, each script distinct and
    starting with OP_RETURN-free filler so no special shape matches."""
    base = sha256d(b"coinsdb snapshot_memory base block")
    made = []
    for i in range(coins):
        txid = sha256d(b"memtx" + (i // 2).to_bytes(4, "little"))
        seed = sha256d(i.to_bytes(4, "little"))
        script = (seed * (script_bytes // 32 + 1))[:script_bytes]
        made.append((txid, i % 2, Coin(BASE_HEIGHT - 1, False, 1000 + i, script)))
    snapshot = Snapshot(NETWORK_MAGIC["regtest"], base, made)
    path.write_bytes(snapshot.serialize())
    return hash_to_hex(base), hash_serialized_3(snapshot.coins)


def status_mib(node, field):
    """A field of /proc/<pid>/status of the bitcoind under /usr/bin/time."""
    children = Path(f"/proc/{node.proc.pid}/task/{node.proc.pid}/children").read_text().split()
    status = Path(f"/proc/{children[0]}/status").read_text()
    return int(re.search(field + r":\s+(\d+) kB", status).group(1)) / 1024


class PeakSampler:
    """Samples RssAnon and RssFile every 10 ms while the load runs: the
    peak resident set mixes heap (anonymous) with LevelDB's mmap'ed table
    files (file-backed, the page cache's), and only the first is memory the
    node holds on to."""

    def __init__(self, node):
        self.node = node
        self.peak = {"RssAnon": 0.0, "RssFile": 0.0}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.stop.wait(0.01):
            try:
                for field in self.peak:
                    self.peak[field] = max(self.peak[field], status_mib(self.node, field))
            except (OSError, AttributeError, IndexError):
                return

    def finish(self):
        self.stop.set()
        self.thread.join()
        return {"peak_anon_mib": round(self.peak["RssAnon"], 1), "peak_file_mib": round(self.peak["RssFile"], 1)}


def measure(bin_dir, port, workdir, snapshot, base_hex, expected, dbcache, extra):
    node = benchlib.Node("coinsdb", bin_dir, port)
    datadir = benchlib.fresh_dir(workdir / f"node-{dbcache}")
    node.start(datadir, node.base_args(datadir, dbcache) + [f"-assumeutxo={BASE_HEIGHT}:{base_hex}:{expected}:{BASE_NCHAINTX}", *extra])
    node.wait_ready()
    idle = status_mib(node, "VmRSS")
    idle_anon = status_mib(node, "RssAnon")
    sampler = PeakSampler(node)
    node.cli("loadtxoutset", str(snapshot))
    sampled = sampler.finish()
    sampled["anon_added_mib"] = round(sampled["peak_anon_mib"] - idle_anon, 1)
    # Anonymous (heap) against file-backed (LevelDB's mmap'ed tables) pages
    # once the load is done.
    after = {"anon_after_mib": status_mib(node, "RssAnon"), "file_after_mib": status_mib(node, "RssFile")}
    node.stop()
    lines = node.log_lines()
    batches = [float(m.group(2)) for line in lines if (m := BATCH_LINE.search(line))]
    maxmem = [int(m.group(1)) for line in lines if (m := MAXMEM_LINE.search(line))]
    peak = node.peak_rss_mib()
    return {"dbcache": dbcache, "idle_mib": round(idle, 1), "peak_mib": round(peak, 1), "added_mib": round(peak - idle, 1),
            "largest_batch_mib": max(batches, default=0), "batches": len(batches), "max_maxmem_mib": max(maxmem, default=0), **after,
            **sampled}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--builddir", type=Path, default=ROOT / "build")
    parser.add_argument("--coins", type=int, default=30000)
    parser.add_argument("--script-bytes", type=int, default=10000)
    parser.add_argument("--dbcache", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--small", action="store_true", help="also load as many coins with 40-byte scripts")
    parser.add_argument("--arg", action="append", default=[], help="an extra bitcoind argument, e.g. --arg=-dbbatchsize=1000000")
    parser.add_argument("--port", type=int, default=18765)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", type=Path, help="work in this directory and keep the nodes' datadirs")
    opts = parser.parse_args()
    bin_dir = opts.builddir / "src"
    results = []
    with tempfile.TemporaryDirectory(prefix="snapshot_memory.") as tmp:
        workdir = benchlib.fresh_dir(opts.keep) if opts.keep else Path(tmp)
        kinds = [("large", opts.script_bytes)] + ([("small", 40)] if opts.small else [])
        try:
            for kind, script_bytes in kinds:
                snapshot = workdir / f"{kind}.dat"
                base_hex, expected = make_snapshot(snapshot, opts.coins, script_bytes)
                for dbcache in opts.dbcache:
                    row = {"kind": kind, "script_bytes": script_bytes, **measure(bin_dir, opts.port, workdir, snapshot, base_hex, expected, dbcache, opts.arg)}
                    print(json.dumps(row), flush=True)
                    results.append(row)
        finally:
            benchlib.Node.kill_all()
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
