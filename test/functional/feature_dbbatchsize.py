#!/usr/bin/env python3
"""-dbbatchsize, the cap on one LevelDB write batch of a coins flush:

- -dbbatchsize=200000 with -debug=coindb: the flush of a loaded snapshot's
  coins is written in many partial batches, none past the cap by more than
  the one coin record that took it over, then a final batch, the Committed
  line and the BatchWrite timing line; getcoinscacheinfo reports the size
  and the same batch count and peak memory; the load's flush is a bulk one
  (no crash markers), the shutdown flush after it is not, and with
  -snapshotbulkload=0 neither is;
- unset: the 32 MiB default; auto: derived from -dbcache;
- 0, -1, abc, 4294967297 and -nodbbatchsize stop start-up with their exact
  error before any database is opened, leaving the chainstates untouched;
- -help-debug documents the option.
"""

import datetime
import json
import os
import re
import shutil
import subprocess
from decimal import Decimal

from test_framework.snapshot import Snapshot
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import (
    assert_equal,
    assert_greater_than,
    assert_greater_than_or_equal,
    assert_in,
    assert_not_in,
)

MIB = 1 << 20
BULK_LOAD_LINE = "[coindb] Bulk load: this flush writes no crash markers"
SMALL_BATCH = 200_000
SNAPSHOT_COINS = 30_000
SNAPSHOT_HEIGHT = 300
# A LevelDB write-batch record: a tag byte and two varint32 lengths (at most
# five bytes each) besides the key and the value.
RECORD_FRAMING = 1 + 5 + 5
# A coin's key: 'C', the txid and VARINT(vout) (at most five bytes here).
COIN_KEY_MAX = 1 + 32 + 5
# The log prints MiB with two decimals: a size is known to +-0.005 MiB.
LOG_ROUNDING = 0.005 * MIB
# The pattern the published batch-size plotting script searches debug.log
# lines with: a whole-second UTC timestamp, then the message, no category.
PUBLISHED_BATCHWRITE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) BatchWrite took=(\d+)ms, maxMem=(\d+)MiB")
INVALID_VALUE = "Error: Invalid -dbbatchsize value '%s': expected a number of bytes from 1 to 4294967296, or auto"

PARTIAL_RE = re.compile(r"\[coindb\] Writing partial batch of (\d+\.\d\d) MiB$")
FINAL_RE = re.compile(r"\[coindb\] Writing final batch of (\d+\.\d\d) MiB$")
COMMITTED_RE = re.compile(r"\[coindb\] Committed (\d+) changed transaction outputs \(out of (\d+)\) to coin database\.\.\.$")
BATCHWRITE_RE = re.compile(r"BatchWrite took=(\d+)ms, maxMem=(\d+)MiB$")


def batch_size_line(size, source):
    return "* Using %d bytes (%.1f MiB) database write batch size (%s)" % (size, size / MIB, source)


def coindb_writes(log):
    """The coins-database writes in a debug.log excerpt, each as a dict of
    its partial batch sizes (MiB), final batch size, changed and visited
    counts, and the BatchWrite line's figures (None when it is missing)."""
    writes = []
    current = {"partial": [], "final": None}
    for line in log.splitlines():
        message = line.split(" ", 1)[1] if " " in line else line
        if m := PARTIAL_RE.fullmatch(message):
            current["partial"].append(Decimal(m.group(1)))
        elif m := FINAL_RE.fullmatch(message):
            current["final"] = Decimal(m.group(1))
        elif m := COMMITTED_RE.fullmatch(message):
            current.update(changed=int(m.group(1)), visited=int(m.group(2)), took_ms=None, max_mem_mib=None)
            writes.append(current)
            current = {"partial": [], "final": None}
        elif (m := BATCHWRITE_RE.fullmatch(message)) and writes and writes[-1]["took_ms"] is None:
            writes[-1].update(took_ms=int(m.group(1)), max_mem_mib=int(m.group(2)))
    return writes


def chainstate_files(node):
    """Every file under the node's chainstate directories with its size and
    modification time: a database opened even briefly changes this."""
    files = {}
    for sub in ("chainstate", "chainstate_snapshot"):
        root = os.path.join(node.net_dir, sub)
        for dirpath, _, names in os.walk(root):
            for name in names:
                path = os.path.join(dirpath, name)
                st = os.stat(path)
                files[os.path.relpath(path, node.net_dir)] = (st.st_size, st.st_mtime_ns)
    return files


class DbBatchSizeTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def run_test(self):
        self.generate_snapshot()
        self.test_small_batches()
        self.test_published_log_format()
        self.test_without_bulk_load()
        self.test_default_and_auto()
        self.test_invalid_values()
        self.test_help()

    def generate_snapshot(self):
        self.log.info("coinsdb-gensnapshot writes %d coins", SNAPSHOT_COINS)
        self.snapshot_path = os.path.join(self.options.tmpdir, "snapshot.dat")
        done = subprocess.run([self.gensnapshot, "-output=" + self.snapshot_path, "-coins=%d" % SNAPSHOT_COINS,
                               "-height=%d" % SNAPSHOT_HEIGHT, "-seed=21"], capture_output=True, text=True, check=True)
        self.snapshot_info = json.loads(done.stdout, parse_float=Decimal)
        assert_equal(self.snapshot_info["coins"], SNAPSHOT_COINS)
        # The largest record one coin adds to a batch: what a partial batch
        # may carry past the cap.
        with open(self.snapshot_path, "rb") as f:
            entries = Snapshot.parse(f.read()).entries
        self.record_allowance = max(e.coin_end - e.coin_offset for e in entries) + COIN_KEY_MAX + RECORD_FRAMING
        self.log.info("One coin record adds at most %d bytes to a batch", self.record_allowance)
        self.nodes[0].extra_args = ["-assumeutxo=%s:%d" % (self.snapshot_info["assumeutxo"], self.snapshot_info["nchaintx"])]

    def test_small_batches(self):
        node = self.nodes[0]
        self.log.info("-dbbatchsize=%d: the startup log shows the fixed size", SMALL_BATCH)
        with node.assert_debug_log([batch_size_line(SMALL_BATCH, "fixed by -dbbatchsize")]):
            node.start(["-dbbatchsize=%d" % SMALL_BATCH, "-debug=coindb"])
        assert_equal(node.getcoinscacheinfo()["batch_size"], SMALL_BATCH)

        self.log.info("loadtxoutset: the snapshot's %d coins are flushed in batches of about %d bytes", SNAPSHOT_COINS, SMALL_BATCH)
        offset = node.debug_log_size()
        result = node.loadtxoutset(self.snapshot_path)
        assert_equal(result["coins_loaded"], SNAPSHOT_COINS)
        writes = [w for w in coindb_writes(node.read_debug_log(offset)) if w["changed"] == SNAPSHOT_COINS]
        assert_equal(len(writes), 1)
        write = writes[0]
        assert_equal(write["visited"], SNAPSHOT_COINS)
        partial = write["partial"]
        self.log.info("The snapshot flush wrote %d partial batches of %s MiB, then a final one of %s MiB",
                      len(partial), ", ".join(sorted(set(str(p) for p in partial))), write["final"])
        assert_greater_than_or_equal(len(partial), 3)
        for mib in partial:
            # Written once the batch is past the cap, with one coin record
            # at most beyond it.
            assert_greater_than(float(mib) * MIB + LOG_ROUNDING, SMALL_BATCH)
            assert_greater_than_or_equal(SMALL_BATCH + self.record_allowance + LOG_ROUNDING, float(mib) * MIB)
        assert write["final"] is not None, "no 'Writing final batch' line before the Committed line"
        assert_greater_than_or_equal(SMALL_BATCH + self.record_allowance + LOG_ROUNDING, float(write["final"]) * MIB)
        # Together the batches hold every coin: at least their serialized size.
        assert_greater_than(float(sum(partial) + write["final"]) * MIB + (len(partial) + 1) * LOG_ROUNDING,
                            os.path.getsize(self.snapshot_path) - 51)
        assert write["took_ms"] is not None, "no BatchWrite line after the Committed line"
        assert_greater_than(write["max_mem_mib"], 0)
        # A snapshot's chainstate is thrown away unless its load completes,
        # so its flushes are bulk ones (no crash markers); later ones are not.
        load_log = node.read_debug_log(offset)
        assert_greater_than(load_log.count(BULK_LOAD_LINE), 0)
        assert_equal(load_log.count(BULK_LOAD_LINE), load_log.count("[coindb] BatchWrite started"))

        self.log.info("getcoinscacheinfo: batch_size %d; last_flush counts %d batches", SMALL_BATCH, len(partial) + 1)
        info = node.getcoinscacheinfo()
        assert_equal(info["chainstate"], "chainstate_snapshot")
        assert_equal(info["batch_size"], SMALL_BATCH)
        last = info["last_flush"]
        assert_equal(last["batches"], len(partial) + 1)
        assert_equal(last["changed"], SNAPSHOT_COINS)
        assert_equal(last["visited"], SNAPSHOT_COINS)
        assert_greater_than(last["peak_rss_bytes"], 0)
        assert_equal(last["peak_rss_bytes"] >> 20, write["max_mem_mib"])
        assert_equal(node.gettxoutsetinfo()["hash_serialized_3"], self.snapshot_info["hash_serialized_3"])
        offset = node.debug_log_size()
        node.stop_node()
        shutdown_log = node.read_debug_log(offset)
        assert_in("[coindb] BatchWrite started", shutdown_log)
        assert_not_in(BULK_LOAD_LINE, shutdown_log)

    def test_without_bulk_load(self):
        node = self.nodes[0]
        self.log.info("-snapshotbulkload=0: the load's flush is written as any other, to the same set")
        shutil.rmtree(node.net_dir)
        node.start(["-snapshotbulkload=0", "-debug=coindb"])
        offset = node.debug_log_size()
        node.loadtxoutset(self.snapshot_path)
        load_log = node.read_debug_log(offset)
        assert_in("[coindb] BatchWrite started", load_log)
        assert_not_in(BULK_LOAD_LINE, load_log)
        assert_equal(node.gettxoutsetinfo()["hash_serialized_3"], self.snapshot_info["hash_serialized_3"])
        node.stop_node()

    def test_published_log_format(self):
        node = self.nodes[0]
        self.log.info("No -debug: every flush writes one BatchWrite line the published plotting regex matches")
        # A fresh datadir, so the snapshot can be loaded again.
        shutil.rmtree(node.net_dir)
        node.start()
        offset = node.debug_log_size()
        node.loadtxoutset(self.snapshot_path)
        node.stop_node()
        log = node.read_debug_log(offset)
        matches = [m for m in map(PUBLISHED_BATCHWRITE_RE.search, log.splitlines(keepends=True)) if m]
        # The snapshot's flush and the one at shutdown (nothing left to
        # write, but Core logs that write too).
        assert_greater_than_or_equal(len(matches), 2)
        assert_equal(len(matches), log.count("BatchWrite took="))
        # The published script reads each timestamp with this format.
        for m in matches:
            datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%SZ")
        # The snapshot flush wrote every coin: the largest peak is real.
        assert_greater_than(max(int(m.group(3)) for m in matches), 0)
        # Nothing categorised reaches the default log.
        assert_not_in("[coindb]", log)

    def test_default_and_auto(self):
        node = self.nodes[0]
        self.log.info("Unset: the default of 33554432 bytes")
        with node.assert_debug_log([batch_size_line(33554432, "default")]):
            node.start()
        assert_equal(node.getcoinscacheinfo()["batch_size"], 33554432)
        node.stop_node()

        for dbcache, size in ((1000, 67108864), (450, 33554432), (449, 16777216)):
            self.log.info("-dbbatchsize=auto -dbcache=%d: %d bytes", dbcache, size)
            with node.assert_debug_log([batch_size_line(size, "derived from -dbcache=%d" % dbcache)]):
                node.start(["-dbbatchsize=auto", "-dbcache=%d" % dbcache])
            info = node.getcoinscacheinfo()
            assert_equal(info["batch_size"], size)
            assert_equal(info["dbcache"]["total"], dbcache * MIB)
            node.stop_node()

    def test_invalid_values(self):
        node = self.nodes[0]
        node.start()
        before = node.gettxoutsetinfo()
        node.stop_node()
        files = chainstate_files(node)
        assert_in(os.path.join("chainstate_snapshot", "CURRENT"), files)
        offset = node.debug_log_size()
        for arg, shown in (("-dbbatchsize=0", "0"), ("-dbbatchsize=-1", "-1"), ("-dbbatchsize=abc", "abc"),
                           ("-dbbatchsize=4294967297", "4294967297"), ("-nodbbatchsize", "0")):
            self.log.info("%s fails start-up: %s", arg, INVALID_VALUE % shown)
            node.assert_start_raises_init_error([arg], INVALID_VALUE % shown)

        self.log.info("The failed starts opened no database: the chainstates' files are as they were")
        assert_not_in("Opening LevelDB", node.read_debug_log(offset))
        assert_equal(chainstate_files(node), files)
        node.start()
        after = node.gettxoutsetinfo()
        for key in ("bestblock", "height", "hash_serialized_3", "txouts", "total_amount"):
            assert_equal(after[key], before[key])
        node.stop_node()

    def test_help(self):
        self.log.info("-help-debug documents -dbbatchsize=<n|auto>, its default and auto")
        text = subprocess.run([self.bitcoind, "-help-debug"], capture_output=True, text=True, check=True).stdout
        assert_in("\n  -dbbatchsize=<n|auto>\n", text)
        description = text.split("\n  -dbbatchsize=<n|auto>\n", 1)[1].split("\n\n", 1)[0]
        assert_in("(default: 33554432)", description)
        assert_in("auto", description)


if __name__ == "__main__":
    DbBatchSizeTest(__file__).main()
