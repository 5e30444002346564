#!/usr/bin/env python3
"""Runs one workload on coinsdb's bitcoind and on a Bitcoin Core bitcoind,
alternating A B A B, and prints the medians and their ratios.

  contrib/bench/compare_core.py [options]
  e.g. contrib/bench/compare_core.py --coins 20000000 --runs 3 --json core.json

Workloads (--workload):
  snapshot  loadtxoutset of one generated snapshot on the reference's
            template chain (height 1000), then stop: load wall (the RPC),
            stop wall (shutdown flush), the FlushSnapshotToDisk times,
            BatchWrite throughput, peak RSS and memory per cached coin.
  replay    -loadblock of one coinsdb-genchain chain with -stopatheight
            (and --prune, for the pruned regime): process wall, import
            time, the coins cache writes (count and summed time, from
            upstream's -debug=bench BatchWrite lines), coins database
            writes, LevelDB's tables and compactions (its -debug=leveldb
            lines), the process's disk writes and peak RSS.
            Bitcoin Core replays it under -assumevalid: the chain's headers
            are submitted first, buried under --bury generated empty-block
            headers so that its scripts are old enough to be skipped.
            --hints adds a third node, coinsdb with SwiftSync hints for the
            tip (-swiftsynchints, made once by coinsdb-genhints from the first
            coinsdb run's datadir), alternated with the two others; its
            tables against Core and against coinsdb follow the first. Core
            then runs last in each run and the two coinsdb nodes swap places
            from run to run (run_order), so each follows Core's replay
            equally often: whatever ran right after Core's was slower (round
            19: the hinted replay, always there, took 9.9-12.7 s against
            8.8 s alternated with itself).

--chainstate-device (replay, root only): each node's chainstate directory
is a file system of its own on a loop device, so that every byte that
reaches the disk under it is counted (/sys/block/loopN/stat, after a sync
of that file system): LevelDB's log, its tables from memtables and from
compactions, its MANIFEST, and coinsdb's bulk-loaded tables, which LevelDB
does not log. A file deleted before its pages were written back (a log)
counts only what was written back. The same for the restart after run 1.

Both nodes must end at the same hash_serialized_3: after the first run of
each node, the node is restarted (untimed) and asked for gettxoutsetinfo.

With more than one run, the table's last column gives each pair's ratio
(run n of coinsdb against run n of Core, run back to back), so a ratio
whose median passes a target but one of its pairs does not shows as such.
--from-json reprints the table of a file --json wrote.

Not measured: script or signature checks (coinsdb has none; Core skips them
under assumeutxo and assumevalid), network download, cold-cache disk reads
(the snapshot or chain file is in the page cache after the first run), and
Core's template headers or coinsdb's chainstate creation (both happen before
the timed RPC). Memory per cached coin is read from the first intermediate
flush, so it needs a -dbcache small enough that the load overflows it.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import (MIB, REGTEST_MAGIC, Node, fail, flush_figures, fresh_dir, log_time, read_snapshot_header,
                      run_tool)

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CORE_BIN = REPO.parent / "shared" / "reference" / "bitcoin-core-b88bffe5" / "bin"
# nBits 0x207fffff: regtest's fixed proof-of-work target.
REGTEST_BITS = 0x207FFFFF
REGTEST_TARGET = 0x7FFFFF << (8 * (0x20 - 3))
BLOCK_VERSION = 0x20000000
# Core skips scripts only in blocks buried under two weeks of work: 2016
# regtest blocks, plus a margin.
DEFAULT_BURY = 2100

START = time.monotonic()


def progress(message):
    print(f"[{time.monotonic() - START:7.1f}s] {message}", flush=True)


def sha256d(data):
    return hashlib.sha256(hashlib.sha256(data).digest()).digest()


def read_through(path, chunk=8 << 20):
    """Reads a file once, so that a run starts with it in the page cache."""
    with open(path, "rb") as f:
        while f.read(chunk):
            pass


def copy_datadir(src, dst):
    # The reference is read-only; LevelDB needs to write its LOCK and logs.
    # The log starts empty so that it holds this run's lines only.
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, copy_function=shutil.copyfile, ignore=shutil.ignore_patterns("debug.log"))
    for root, dirs, _ in os.walk(dst):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
    os.chmod(dst, 0o755)
    return dst


# --- debug.log ---------------------------------------------------------------

def replay_figures(lines, blocks):
    first = next((i for i, line in enumerate(lines) if "Importing blocks file" in line), None)
    tips = [i for i, line in enumerate(lines) if "UpdateTip: new best=" in line and f" height={blocks} " in line]
    if first is None or not tips:
        return None
    during = lines[first:tips[-1] + 1]
    start, end = log_time(lines[first]), log_time(lines[tips[-1]])
    written = [int(m.group(1)) for line in during
               if (m := re.search(r"Committed (\d+) changed transaction outputs", line)) and m.group(1) != "0"]
    flushes = [float(m.group(1)) for line in during
               if (m := re.search(r"BatchWrite: write coins cache to disk \(.*\) completed \(([0-9.]+) ?ms\)", line))]
    return {"import_s": end - start, "coin_writes": len(written), "coins_written": sum(written),
            "flush_count": len(flushes), "flush_ms_sum": sum(flushes), **leveldb_writes(during)}


def leveldb_writes(lines):
    """LevelDB's own log lines (-debug=leveldb), of every database the node
    has (the chainstate and the small block index): tables made from a
    memtable, tables a compaction wrote (in all, and by the level the
    compaction moved data from: one from a level under its size limit is
    a seek-triggered compaction, which reads start), and the
    compactions."""
    level0 = [int(m.group(1)) for line in lines if (m := re.search(r"Level-0 table #\d+: (\d+) bytes", line))]
    generated = [(int(m.group(1)), int(m.group(2))) for line in lines
                 if (m := re.search(r"Generated table #\d+@(\d+): \d+ keys, (\d+) bytes", line))]
    by_level = {}
    for level, size in generated:
        by_level[level] = by_level.get(level, 0) + size / MIB
    compactions = sum(1 for line in lines if re.search(r"Compacting \d+@\d+ \+ \d+@\d+ files", line))
    return {"memtable_tables_mib": sum(level0) / MIB, "compacted_mib": sum(size for _, size in generated) / MIB,
            "compacted_mib_by_level": dict(sorted(by_level.items())), "compactions": compactions}


def after_import_figures(lines):
    """What LevelDB wrote over a restart after the import (`lines`, the
    restart's part of debug.log): a compaction storm after an import shows
    here, in tables written by a node with nothing to import."""
    writes = leveldb_writes(lines)
    return {"after_import_mib": writes["memtable_tables_mib"] + writes["compacted_mib"],
            "after_import_compactions": writes["compactions"]}


LEVELDB_LINE = re.compile(r"Level-0 table #|Compacting \d+@|Generated table #|compacted to:|Moved #\d+ to level")


def wait_leveldb_idle(node, first_line, quiet_s=15, limit_s=300):
    """Waits until the node's debug.log has had no LevelDB table or
    compaction line, from line first_line on, for quiet_s seconds (LevelDB
    logs each table a compaction writes, so a running compaction is not
    quiet that long), or limit_s in all."""
    started = last_seen = time.monotonic()
    seen = 0
    while time.monotonic() - last_seen < quiet_s and time.monotonic() - started < limit_s:
        time.sleep(1)
        count = sum(1 for line in node.log_lines()[first_line:] if LEVELDB_LINE.search(line))
        if count != seen:
            seen, last_seen = count, time.monotonic()


# --- workloads ---------------------------------------------------------------

class Snapshot:
    name = "snapshot"

    def __init__(self, opts, work, coinsdb_tools, template):
        self.opts = opts
        self.template = template
        chain = json.loads((template / "chain.json").read_text())
        self.height, self.blockhash = chain["height"], chain["blockhash"]
        if opts.snapshot:
            self.path = Path(opts.snapshot).resolve()
            self.coins, base = read_snapshot_header(self.path)
            if base != self.blockhash:
                fail(f"{self.path} is based on block {base}, not on the template's tip {self.blockhash}")
            self.hash = None
        else:
            self.path = work / f"snapshot-{opts.coins}-{opts.seed}.dat"
            info_path = self.path.with_suffix(".json")
            if not (self.path.exists() and info_path.exists()):
                progress(f"generating a {opts.coins}-coin snapshot (seed {opts.seed})")
                self.path.unlink(missing_ok=True)
                info = run_tool([coinsdb_tools / "coinsdb-gensnapshot", f"-output={self.path}", f"-coins={opts.coins}",
                                 f"-height={self.height}", f"-blockhash={self.blockhash}", f"-seed={opts.seed}"])
                info_path.write_text(json.dumps(info))
            info = json.loads(info_path.read_text())
            self.coins, self.hash = info["coins"], info["hash_serialized_3"]

    def coinsdb_args(self, node, datadir, expected_hash):
        return node.base_args(datadir, self.opts.dbcache) + [f"-assumeutxo={self.height}:{self.blockhash}:{expected_hash}"]

    def core_env(self):
        return {"AU_HEIGHT": str(self.height), "AU_HASH": self.hash, "AU_BLOCKHASH": self.blockhash}

    def discover_hash(self, node, datadir):
        """A given snapshot file comes without its hash: coinsdb's load
        computes it and names it when it differs from the entry's."""
        progress(f"computing hash_serialized_3 of {self.path} with a coinsdb load")
        node.start(fresh_dir(datadir), self.coinsdb_args(node, datadir, "01" * 32))
        node.wait_ready()
        try:
            node.cli("loadtxoutset", str(self.path))
            fail("coinsdb loaded the snapshot against a placeholder hash")
        except RuntimeError as e:
            m = re.search(r"Bad snapshot content hash: expected [0-9a-f]{64}, got ([0-9a-f]{64})", str(e))
            if not m:
                fail(f"could not read the snapshot's hash from coinsdb: {e}")
            self.hash = m.group(1)
        node.stop()

    def start(self, node, datadir):
        if node.kind == "core":
            copy_datadir(self.template / "datadir", datadir)
            node.start(datadir, node.base_args(datadir, self.opts.dbcache), self.core_env())
        else:
            node.start(fresh_dir(datadir), self.coinsdb_args(node, datadir, self.hash))

    def run(self, node, datadir):
        self.start(node, datadir)
        node.wait_ready()
        before = time.monotonic()
        node.cli("loadtxoutset", str(self.path))
        loaded = time.monotonic()
        stopped = node.stop()
        figures = {"load_s": loaded - before, "stop_s": stopped - loaded, "total_s": stopped - before,
                   "peak_rss_mib": node.peak_rss_mib()}
        figures.update(flush_figures(node.log_lines(), self.coins))
        return figures

    def restart(self, node, datadir):
        if node.kind == "core":
            node.start(datadir, node.base_args(datadir, self.opts.dbcache), self.core_env())
        else:
            node.start(datadir, self.coinsdb_args(node, datadir, self.hash))


class ChainstateDevice:
    """A node's chainstate directory as an ext4 file system on a loop
    device (--chainstate-device): what reaches the disk under it, counted
    in the device's sectors written. No journal, inode tables written by
    mkfs (not lazily during a run), so the count is the files' data and
    their metadata."""

    SIZE = 64 << 30

    def __init__(self, image, directory):
        self.image, self.directory, self.device = image, directory, None

    def attach(self):
        """Mounts an empty file system on the directory; what the directory
        held is copied onto it first (Core's template chainstate)."""
        held = self.directory.with_name(self.directory.name + ".held")
        if self.directory.exists():
            self.directory.rename(held)
        self.directory.mkdir(parents=True)
        with open(self.image, "wb") as f:
            f.truncate(self.SIZE)
        run_command(["mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-T", "largefile4",
                     "-E", "lazy_itable_init=0,lazy_journal_init=0", str(self.image)])
        self.device = run_command(["losetup", "--find", "--show", str(self.image)]).strip()
        run_command(["mount", self.device, str(self.directory)])
        (self.directory / "lost+found").rmdir()
        if held.exists():
            for item in held.iterdir():
                shutil.copyfile(item, self.directory / item.name)
            shutil.rmtree(held)
        self.mark()

    def sectors_written(self):
        run_command(["sync", "-f", str(self.directory)])
        fields = Path(f"/sys/block/{Path(self.device).name}/stat").read_text().split()
        return int(fields[6])

    def mark(self):
        self.start = self.sectors_written()

    def written_mib(self):
        return (self.sectors_written() - self.start) * 512 / MIB

    def detach(self):
        """Unmounts and frees the device, and deletes its image. Also on the
        way out of a failed or interrupted run, where a killed node's files
        may still be closing: a few tries, then a lazy unmount."""
        if self.device:
            for attempt in range(10):
                if run_command(["umount", str(self.directory)], check=False) == "":
                    break
                time.sleep(0.5)
            else:
                run_command(["umount", "--lazy", str(self.directory)], check=False)
            run_command(["losetup", "-d", self.device], check=False)
            self.device = None
        self.image.unlink(missing_ok=True)


def run_command(argv, check=True):
    """argv's output; with check=False, None when it failed."""
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        if not check:
            return None
        fail(f"{' '.join(argv)}: {done.stderr.strip() or done.returncode}")
    return done.stdout


class Replay:
    name = "replay"

    def __init__(self, opts, work, coinsdb_tools):
        self.opts = opts
        self.work = work
        if opts.chain:
            self.path = Path(opts.chain).resolve()
        else:
            self.path = work / f"chain-{opts.blocks}-{opts.target_utxos}-{opts.seed}.dat"
            if not self.path.exists():
                progress(f"generating a {opts.blocks}-block chain (target {opts.target_utxos} UTXOs, seed {opts.seed})")
                tmp = self.path.with_suffix(".tmp")
                tmp.unlink(missing_ok=True)
                run_tool([coinsdb_tools / "coinsdb-genchain", f"-output={tmp}", f"-blocks={opts.blocks}",
                          f"-target-utxos={opts.target_utxos}", f"-seed={opts.seed}"])
                tmp.rename(self.path)
        self.headers = read_chain_headers(self.path)
        self.blocks = len(self.headers)
        self.core_template = None
        self.hints_path = self.path.with_suffix(".hints") if opts.chain is None else work / (self.path.stem + ".hints")
        self.hints_info = None
        self.devices = {}

    def make_hints(self, tools, datadir):
        """--hints: coinsdb-genhints for the chain's tip, from a stopped
        coinsdb node's datadir at the tip (made once, then kept)."""
        info_path = self.hints_path.with_name(self.hints_path.name + ".json")
        if not (self.hints_path.exists() and info_path.exists()):
            progress(f"genhints for height {self.blocks} from {datadir}")
            self.hints_path.unlink(missing_ok=True)
            info = run_tool([tools / "coinsdb-genhints", f"-output={self.hints_path}", f"-datadir={datadir}",
                             f"-loadblock={self.path}"])
            info_path.write_text(json.dumps(info))
        self.hints_info = json.loads(info_path.read_text())
        progress(f"hints {self.hints_path}: {self.hints_info}")

    def prepare_core(self, node):
        """Core's replay template: a datadir holding the chain's headers and
        --bury empty-block headers above them, made once."""
        bury = make_burying_headers(self.headers[-1], self.blocks, self.opts.bury)
        self.assumevalid = sha256d(bury[-1])[::-1].hex()
        datadir = fresh_dir(self.work / "core-headers")
        progress(f"core: submitting {self.blocks} + {len(bury)} headers (assumevalid {self.assumevalid})")
        node.start(datadir, node.base_args(datadir, self.opts.dbcache))
        node.wait_ready()
        submit_headers(node, self.headers + bury)
        info = json.loads(node.cli("getblockchaininfo"))
        if info["headers"] != self.blocks + len(bury):
            fail(f"core holds {info['headers']} headers, expected {self.blocks + len(bury)}")
        node.stop()
        self.core_template = datadir

    def args(self, node, datadir):
        # -debug=bench: the flush lines; -debug=leveldb: LevelDB's tables
        # and compactions. Both nodes log the same lines.
        args = node.base_args(datadir, self.opts.dbcache) + [f"-loadblock={self.path}", f"-stopatheight={self.blocks}",
                                                             "-debug=bench", "-debug=leveldb"]
        if node.kind == "hinted":
            args += [f"-swiftsynchints={self.hints_path}", f"-swiftsyncblockhash={self.hints_info['blockhash']}"]
        if self.opts.prune:
            args.append(f"-prune={self.opts.prune}")
        if node.kind == "core":
            args.append(f"-assumevalid={self.assumevalid}")
        return args

    def run(self, node, datadir):
        # The last run's chainstate device first: its datadir is replaced.
        self.detach(node)
        if node.kind == "core":
            if self.core_template is None:
                self.prepare_core(node)
            copy_datadir(self.core_template, datadir)
        else:
            fresh_dir(datadir)
        device = None
        if self.opts.chainstate_device:
            device = ChainstateDevice(self.work / f"chainstate-{node.kind}.img", datadir / "regtest" / "chainstate")
            self.devices[node.kind] = device
            device.attach()
        node.start(datadir, self.args(node, datadir))
        stopped = node.wait_exit()
        figures = replay_figures(node.log_lines(), self.blocks)
        if figures is None:
            fail(f"{node.kind} did not replay to height {self.blocks} (see {node.log_path()})")
        figures.update(wall_s=stopped - node.started, peak_rss_mib=node.peak_rss_mib(),
                       disk_written_mib=node.disk_written_mib())
        if device:
            figures["chainstate_written_mib"] = device.written_mib()
            device.mark()
        return figures

    def detach(self, node):
        """Unmounts the chainstate device of node's last run, if any."""
        device = self.devices.pop(node.kind, None)
        if device:
            device.detach()

    def chainstate_written_since_run(self, node):
        device = self.devices.get(node.kind)
        return device.written_mib() if device else None

    def restart(self, node, datadir):
        # A pruned node refuses to start unpruned.
        prune = [f"-prune={self.opts.prune}"] if self.opts.prune else []
        node.start(datadir, node.base_args(datadir, self.opts.dbcache) + prune + ["-debug=leveldb"])


def read_chain_headers(path):
    """The 80-byte headers of a block file, genesis left out, checked to form
    one chain in file order."""
    headers = []
    with open(path, "rb") as f:
        while record := f.read(8):
            if len(record) < 8 or record[:4] != REGTEST_MAGIC:
                fail(f"{path}: not a regtest block file at offset {f.tell() - len(record)}")
            size = struct.unpack_from("<I", record, 4)[0]
            header = f.read(80)
            f.seek(size - 80, os.SEEK_CUR)
            if header[4:36] == bytes(32):
                continue
            if headers and header[4:36] != sha256d(headers[-1]):
                fail(f"{path}: block {len(headers) + 1} does not build on the block before it")
            headers.append(header)
    if not headers:
        fail(f"{path} holds no blocks above genesis")
    return headers


def height_push(height):
    number = height.to_bytes((height.bit_length() + 8) // 8, "little")
    return bytes([len(number)]) + number


def make_burying_headers(tip, tip_height, count):
    """Headers of empty blocks (a coinbase paying 0 to OP_TRUE) on top of
    tip, mined at regtest's target; their bodies are never needed."""
    headers = []
    prev, prev_time = sha256d(tip), struct.unpack_from("<I", tip, 68)[0]
    for height in range(tip_height + 1, tip_height + count + 1):
        script_sig = height_push(height) + b"\x00"
        coinbase = (struct.pack("<iB", 1, 1) + bytes(32) + b"\xff" * 4 + bytes([len(script_sig)]) + script_sig
                    + b"\xff" * 4 + b"\x01" + struct.pack("<q", 0) + b"\x01\x51" + struct.pack("<I", 0))
        prev_time += 600
        for nonce in range(1 << 32):
            header = struct.pack("<i32s32sIII", BLOCK_VERSION, prev, sha256d(coinbase), prev_time, REGTEST_BITS, nonce)
            if int.from_bytes(sha256d(header), "little") <= REGTEST_TARGET:
                break
        headers.append(header)
        prev = sha256d(header)
    return headers


def submit_headers(node, headers):
    """submitheader in batches straight over HTTP: thousands of bitcoin-cli
    processes would take longer than the replay."""
    cookie = (node.datadir / "regtest" / ".cookie").read_text().strip()
    auth = base64.b64encode(cookie.encode()).decode()
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=600)
    for start in range(0, len(headers), 500):
        batch = [{"jsonrpc": "1.0", "id": start + i, "method": "submitheader", "params": [h.hex()]}
                 for i, h in enumerate(headers[start:start + 500])]
        conn.request("POST", "/", json.dumps(batch), {"Authorization": f"Basic {auth}",
                                                     "Content-Type": "application/json"})
        for reply in json.loads(conn.getresponse().read()):
            if reply.get("error"):
                fail(f"core: submitheader of header {reply['id'] + 1}: {reply['error']}")
    conn.close()


# --- summary -----------------------------------------------------------------

# (key, label, format, unit); the ratio column is coinsdb / core.
METRICS = {
    "snapshot": [("load_s", "load wall (loadtxoutset)", "{:.2f}", "s"),
                 ("stop_s", "stop wall (shutdown flush)", "{:.2f}", "s"),
                 ("total_s", "load + stop", "{:.2f}", "s"),
                 ("flush_ms_sum", "FlushSnapshotToDisk sum", "{:.0f}", "ms"),
                 ("flush_count", "FlushSnapshotToDisk count", "{:.0f}", ""),
                 ("coins_per_s_batchwrite", "coins / s of flush", "{:,.0f}", "/s"),
                 ("peak_rss_mib", "peak RSS", "{:.0f}", "MiB"),
                 ("first_flush_coins", "coins at first flush", "{:,.0f}", ""),
                 ("first_flush_cache_mb", "cache at first flush", "{:.2f}", "MB"),
                 ("coins_per_mib", "coins per MiB of cache", "{:,.0f}", ""),
                 ("bytes_per_coin", "memory per cached coin", "{:.1f}", "B")],
    "replay": [("wall_s", "process wall", "{:.2f}", "s"),
               ("import_s", "import (log lines)", "{:.2f}", "s"),
               ("flush_count", "coins cache writes (BatchWrite)", "{:.0f}", ""),
               ("flush_ms_sum", "their time, summed", "{:.0f}", "ms"),
               ("coin_writes", "coins db writes", "{:.0f}", ""),
               ("coins_written", "coins written", "{:,.0f}", ""),
               ("memtable_tables_mib", "LevelDB tables from memtables", "{:.0f}", "MiB"),
               ("compacted_mib", "LevelDB tables from compactions", "{:.0f}", "MiB"),
               ("compactions", "LevelDB compactions", "{:.0f}", ""),
               ("disk_written_mib", "process disk writes (all files)", "{:.0f}", "MiB"),
               ("peak_rss_mib", "peak RSS", "{:.0f}", "MiB"),
               ("chainstate_written_mib", "chainstate disk writes (--chainstate-device)", "{:.0f}", "MiB"),
               ("after_import_mib", "LevelDB writes at a restart after (run 1)", "{:.0f}", "MiB"),
               ("after_import_compactions", "their compactions (run 1)", "{:.0f}", ""),
               ("after_import_chainstate_mib", "chainstate disk writes at that restart", "{:.0f}", "MiB")],
}


def median_of(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


# Run n of coinsdb against run n of Core: the two ran back to back, so a
# pair shares the machine's state of the moment, which the medians of
# separate runs do not. A target met by the median but missed by a pair is
# on the line.
def pair_ratios(results, key, a="coinsdb", b="core"):
    return [ratio(x.get(key), y.get(key)) for x, y in zip(results[a], results[b])]


def summarize(workload, results, a="coinsdb", b="core"):
    """The medians of kinds a and b (coinsdb and core, or with --hints the
    hinted coinsdb against either), stored under the keys coinsdb and core
    whatever a and b are."""
    summary = {}
    for key, *_ in METRICS[workload]:
        x, y = median_of(results[a], key), median_of(results[b], key)
        summary[key] = {"coinsdb": x, "core": y, "ratio": ratio(x, y), "pairs": pair_ratios(results, key, a, b)}
    return summary


def print_table(workload, summary, runs, a="coinsdb", b="core"):
    rows = [("metric", f"{a} (median of {runs})", f"{b} (median of {runs})", f"{a}/{b}", "per pair")]
    share = lambda r: "-" if r is None else f"{r:.2f}"
    for key, label, fmt, unit in METRICS[workload]:
        s = summary[key]
        cell = lambda v: "-" if v is None else (fmt.format(v) + (f" {unit}" if unit else ""))
        pairs = ", ".join(share(r) for r in s["pairs"])
        rows.append((label, cell(s["coinsdb"]), cell(s["core"]), share(s["ratio"]), pairs))
    if runs == 1:
        rows = [row[:4] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print(f"| {row[0]:<{widths[0]}} | " + " | ".join(f"{c:>{w}}" for c, w in zip(row[1:], widths[1:])) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


# --- main --------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", choices=["snapshot", "replay"], default="snapshot")
    p.add_argument("--coinsdb-bin", type=Path, help="directory with coinsdb's bitcoind (default: build/src)")
    p.add_argument("--core-bin", type=Path, default=DEFAULT_CORE_BIN, help="directory with Core's bitcoind and bitcoin-cli")
    p.add_argument("--template", type=Path, help="Core header-chain template (default: <core-bin>/../template)")
    p.add_argument("--coins", type=int, default=20_000_000, help="snapshot: coins to generate (default: 20000000)")
    p.add_argument("--snapshot", help="snapshot: use this file (based on the template's tip) instead of generating one")
    p.add_argument("--blocks", type=int, default=2000, help="replay: blocks to generate (default: 2000)")
    p.add_argument("--target-utxos", type=int, default=5_000_000, help="replay: UTXO set size (default: 5000000)")
    p.add_argument("--chain", help="replay: use this coinsdb-genchain block file instead of generating one")
    p.add_argument("--bury", type=int, default=DEFAULT_BURY, help=f"replay: headers above the chain for Core (default: {DEFAULT_BURY})")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default: 1)")
    p.add_argument("--dbcache", type=int, default=450, help="-dbcache in MiB for both nodes (default: 450)")
    p.add_argument("--prune", type=int, default=0, help="replay: -prune target in MiB for both nodes, 0 for none (default: 0)")
    p.add_argument("--hints", action="store_true",
                   help="replay: also run coinsdb with SwiftSync hints for the tip (coinsdb-genhints, from the first coinsdb "
                        "run's datadir), alternated with the other two, and print its tables against Core and coinsdb")
    p.add_argument("--chainstate-device", action="store_true",
                   help="replay: each node's chainstate on a loop device of its own, its disk writes counted (root only)")
    p.add_argument("--runs", type=int, default=3, help="runs per node (default: 3)")
    p.add_argument("--workdir", type=Path, help="datadirs, logs and generated files (default: a new temporary directory)")
    p.add_argument("--keep", action="store_true", help="keep the work directory (a given --workdir is always kept)")
    p.add_argument("--port", type=int, default=29450, help="RPC port of coinsdb; Core uses the next one (default: 29450)")
    p.add_argument("--json", type=Path, help="write every run and the medians to this file")
    p.add_argument("--from-json", type=Path, help="print the table of a file --json wrote, without running anything")
    opts = p.parse_args()
    if opts.runs < 1:
        p.error("--runs must be at least 1")
    if opts.chainstate_device and (opts.workload != "replay" or os.geteuid() != 0):
        p.error("--chainstate-device is for the replay workload, run as root (losetup, mount)")
    return opts


def find_coinsdb(opts):
    bin_dir = opts.coinsdb_bin or REPO / "build" / "src"
    bin_dir = bin_dir.resolve()
    tools = bin_dir / "tools" if (bin_dir / "tools").is_dir() else bin_dir
    for path in (bin_dir / "bitcoind", bin_dir / "bitcoin-cli"):
        if not os.access(path, os.X_OK):
            fail(f"no {path}: build coinsdb first (cmake --build build) or pass --coinsdb-bin")
    return bin_dir, tools


def reprint(path):
    saved = json.loads(path.read_text())
    print_table(saved["workload"], summarize(saved["workload"], saved["results"]), saved["runs"])
    hashes = saved["hash_serialized_3"]
    print(f"hash_serialized_3: coinsdb {hashes.get('coinsdb')}, core {hashes.get('core')}")


def run_order(nodes, run):
    """The nodes of run `run` (from 1), in the order they replay. Without
    --hints as given. With it, Core last, coinsdb and the hinted coinsdb
    swapping places from run to run: the first place follows the previous
    run's Core. Run 1 starts with coinsdb, whose datadir the hints come from."""
    kinds = [node.kind for node in nodes]
    if "hinted" not in kinds:
        return list(nodes)
    by_kind = {node.kind: node for node in nodes}
    ours = ["coinsdb", "hinted"] if run % 2 == 1 else ["hinted", "coinsdb"]
    return [by_kind[kind] for kind in ours + [k for k in kinds if k not in ours]]


def main():
    opts = parse_args()
    if opts.from_json:
        reprint(opts.from_json)
        return
    coinsdb_bin, coinsdb_tools = find_coinsdb(opts)
    core_bin = opts.core_bin.resolve()
    template = (opts.template or core_bin.parent / "template").resolve()
    if not os.access(core_bin / "bitcoind", os.X_OK):
        fail(f"no {core_bin / 'bitcoind'}: pass --core-bin")
    if not os.access("/usr/bin/time", os.X_OK):
        fail("no /usr/bin/time: run contrib/install_deps.sh")
    made_workdir = opts.workdir is None
    work = Path(tempfile.mkdtemp(prefix="compare_core.")) if made_workdir else opts.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    (work / "logs").mkdir(exist_ok=True)
    nodes = [Node("coinsdb", coinsdb_bin, opts.port), Node("core", core_bin, opts.port + 1)]
    if opts.hints:
        if opts.workload != "replay":
            fail("--hints is for the replay workload")
        nodes.append(Node("hinted", coinsdb_bin, opts.port + 2))
    datadirs = {node.kind: work / f"datadir-{node.kind}" for node in nodes}
    results = {node.kind: [] for node in nodes}
    hashes = {}
    # A SIGTERM unwinds like Ctrl-C, through the finally that kills the nodes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("compare_core.py: terminated"))
    try:
        if opts.workload == "snapshot":
            workload = Snapshot(opts, work, coinsdb_tools, template)
            if workload.hash is None:
                workload.discover_hash(nodes[0], datadirs["coinsdb"])
            progress(f"snapshot {workload.path}: {workload.coins} coins, hash_serialized_3 {workload.hash}")
        else:
            workload = Replay(opts, work, coinsdb_tools)
            progress(f"chain {workload.path}: {workload.blocks} blocks")
        for run in range(1, opts.runs + 1):
            for node in run_order(nodes, run):
                progress(f"run {run} of {opts.runs}: {node.kind} {workload.name} ...")
                # The run before may have left hundreds of MiB of dirty
                # pages (Core's replay writes ~930 MiB); written back
                # during this run, they would slow it and not the other.
                os.sync()
                # And it may have pushed part of the input out of the page
                # cache (this machine kind keeps ~6 GB of it, whatever is
                # free): the next node would read that part from the disk.
                read_through(workload.path)
                figures = workload.run(node, datadirs[node.kind])
                results[node.kind].append(figures)
                shutil.copyfile(node.log_path(), work / "logs" / f"{node.kind}-run{run}.log")
                shown = ", ".join(f"{k}={v:.2f}" for k, v in figures.items() if isinstance(v, float) and k.endswith("_s"))
                progress(f"run {run} of {opts.runs}: {node.kind} done: {shown}")
                if run == 1:
                    first_line = len(node.log_lines())
                    workload.restart(node, datadirs[node.kind])
                    node.wait_ready()
                    hashes[node.kind] = json.loads(node.cli("gettxoutsetinfo"))["hash_serialized_3"]
                    if opts.workload == "replay":
                        # Whatever LevelDB goes on to do after the import:
                        # its restart, a walk of every coin, then idling.
                        wait_leveldb_idle(node, first_line)
                        figures.update(after_import_figures(node.log_lines()[first_line:]))
                    node.stop()
                    if opts.workload == "replay" and opts.chainstate_device:
                        figures["after_import_chainstate_mib"] = workload.chainstate_written_since_run(node)
                    progress(f"{node.kind}: hash_serialized_3 {hashes[node.kind]}")
                    if opts.hints and node.kind == "coinsdb":
                        workload.make_hints(coinsdb_tools, datadirs["coinsdb"])
    finally:
        Node.kill_all()
        if opts.workload == "replay" and "workload" in locals():
            for node in nodes:
                workload.detach(node)
        if not opts.keep and made_workdir:
            shutil.rmtree(work, ignore_errors=True)
        else:
            progress(f"kept {work}")

    summary = summarize(opts.workload, results)
    print()
    print_table(opts.workload, summary, opts.runs)
    hinted = {}
    if opts.hints:
        for other in ("core", "coinsdb"):
            hinted[other] = summarize(opts.workload, results, "hinted", other)
            print()
            print_table(opts.workload, hinted[other], opts.runs, "hinted", other)
    same = len(set(hashes.values())) == 1
    if opts.json:
        opts.json.write_text(json.dumps({
            "workload": opts.workload, "dbcache_mib": opts.dbcache, "runs": opts.runs,
            "input": str(workload.path), "coins": getattr(workload, "coins", None),
            "blocks": getattr(workload, "blocks", None), "hash_serialized_3": hashes, "hashes_match": same,
            "coinsdb_bin": str(coinsdb_bin), "core_bin": str(core_bin),
            "results": results, "medians": summary, "hinted_medians": hinted,
            "hints": getattr(workload, "hints_info", None)}, indent=2) + "\n")
        print(f"wrote {opts.json}")
    if not same:
        print("\n" + "!" * 72 + "\n!!! hash_serialized_3 DIFFERS: " +
              "\n!!!                              ".join(f"{kind} {h}" for kind, h in hashes.items()) + "\n" + "!" * 72, file=sys.stderr)
        sys.exit(1)
    print(f"{' and '.join(hashes)} end at hash_serialized_3 {hashes['coinsdb']}")


if __name__ == "__main__":
    main()
