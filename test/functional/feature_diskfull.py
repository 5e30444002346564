#!/usr/bin/env python3
"""Disk full: a chainstate write that runs out of space stops the node.

Each failing node's network directory (regtest/, which holds chainstate/ and
chainstate_snapshot/) is a small tmpfs; blocks/ and debug.log are symlinks to
the normal disk, so only the chainstates can run out of space. A filler file
leaves a set amount of free space at the right moment, and then

(a) loadtxoutset of a 400,000-coin snapshot with -dbcache=4: the first
    mid-load flush fits, the second does not;
(b) -loadblock of a generated chain with -dbcache=4: a replay flush fails;
(c) a replay with a cache big enough to write nothing, then gettxoutsetinfo:
    its sync fails part way, in small write batches.

Each time the node logs which write failed and why, writes nothing more (no
later flush, no shutdown flush) and exits by itself with status 1. With the
filler deleted it restarts, repairs what it must, and ends with the UTXO set
of a reference node that ran the same inputs on the normal disk. After (a)
the snapshot chainstate is gone and the same loadtxoutset succeeds.

Mounting the tmpfs needs root: skipped otherwise.
"""

import json
import os
import re
import subprocess
from decimal import Decimal

from test_framework.authproxy import JSONRPCException
from test_framework.chaingen import generate_chain
from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, assert_greater_than, assert_in, assert_not_in

MIB = 1 << 20
RPC_MISC_ERROR = -1
RPC_INTERNAL_ERROR = -32603
REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"
STATS_KEYS = ("bestblock", "height", "hash_serialized_3", "txouts", "transactions", "total_amount")

TMPFS_SIZE = 128 * MIB
SNAPSHOT_COINS = 400_000
SNAPSHOT_HEIGHT = 300
# With -dbcache=4 a load of this snapshot flushes whenever the cache passes
# its 1.82 MB budget, about every 12,700 coins. 12 MiB free holds a few of
# those flushes and their table files, not all 400,000 coins.
SNAPSHOT_FREE = 12 * MIB
CHAIN_BLOCKS = 500
# With -dbcache=4 the replay flushes at blocks 351 and 448, each a single
# batch of about 1 MB. 1.5 MiB free holds the first; the table file LevelDB
# then makes of it does not fit beside the next one's log.
CHAIN_FREE = 3 * MIB // 2
# The sync writes several MB in 64 KiB batches. 512 KiB free is below
# LevelDB's 2 MiB write buffer at -dbcache=1000, so only the log grows, and
# the write fails after a few batches.
SYNC_FREE = 512 * 1024
SYNC_BATCH = 65536
FILLER = "filler"

# LevelDB names the file it could not write: a log, a table or the manifest;
# a snapshot load's flush writes its own table files first (ingest-N.ldb).
LEVELDB_FILE_RE = r"(?:\d{6}\.log|\d{6}\.ldb|MANIFEST-\d{6}|ingest-\d+\.ldb)"
FAILURE_RE = (r"\[error\] A write to the chainstate in {dir} failed: Fatal LevelDB error in {name}: IO error: "
              r"{dir}/{file}: No space left on device\. coinsdb writes nothing more and shuts down\. "
              r"The chainstate on disk is as a crash at this moment would leave it: free disk space \(or fix the I/O "
              r"error\) and restart, and the node rolls forward to where it stopped\.")
NO_SHUTDOWN_FLUSH = "Not flushing the chainstate at shutdown: an earlier chainstate write failed"


def utxo_stats(node):
    info = node.gettxoutsetinfo()
    return {k: info[k] for k in STATS_KEYS}


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


class DiskFullTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0
        self.mounts = []

    def setup_nodes(self):
        if os.geteuid() != 0:
            raise SkipTest("mounting the tmpfs that runs out of space needs root (CI runs as root)")

    def cleanup(self):
        for path in reversed(self.mounts):
            subprocess.run(["umount", path], check=True, capture_output=True)
        self.mounts = []

    # The small disk ----------------------------------------------------------------

    def add_tmpfs_node(self, extra_args):
        """A node whose regtest/ is a TMPFS_SIZE tmpfs, with blocks/ and
        debug.log on the normal disk."""
        node = self.add_node(extra_args)
        os.makedirs(node.net_dir)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % TMPFS_SIZE, "tmpfs", node.net_dir],
                              capture_output=True, text=True)
        if done.returncode != 0:
            if "permission denied" in done.stderr.lower():
                raise SkipTest("no permission to mount a tmpfs (%s)" % done.stderr.strip())
            raise AssertionError("mount failed: %s" % done.stderr.strip())
        self.mounts.append(node.net_dir)
        on_disk = os.path.join(node.datadir, "on_disk")
        os.makedirs(os.path.join(on_disk, "blocks"))
        open(os.path.join(on_disk, "debug.log"), "wb").close()
        os.symlink(os.path.join(on_disk, "blocks"), os.path.join(node.net_dir, "blocks"))
        os.symlink(os.path.join(on_disk, "debug.log"), node.debug_log_path)
        # blocks/ exists before the first start: mark the directory as
        # coinsdb's own, as that start would, so it is not taken for Core's.
        open(os.path.join(node.net_dir, "coinsdb_datadir"), "wb").close()
        return node

    def fill(self, node, leave):
        """Writes a filler file that leaves exactly leave bytes free."""
        path = os.path.join(node.net_dir, FILLER)
        size = free_bytes(node.net_dir) - leave
        assert_greater_than(size, 0)
        chunk = b"\0" * MIB
        with open(path, "wb") as f:
            for _ in range(size // MIB):
                f.write(chunk)
            f.write(chunk[:size % MIB])
        assert_equal(free_bytes(node.net_dir), leave)

    def remove_filler(self, node):
        os.remove(os.path.join(node.net_dir, FILLER))

    # Checks --------------------------------------------------------------------------

    def assert_failed_write(self, node, offset, chainstate, *, last_writes):
        """The node exits by itself with status 1; debug.log from offset has
        the failure line for chainstate/ once, and after it none of
        last_writes and no shutdown flush. Returns the log before and after
        the failure line."""
        node.wait_until_stopped(expected_ret_code=1, expected_stderr="", timeout=60)
        log = node.read_debug_log(offset)
        failure_re = re.compile(FAILURE_RE.format(dir=re.escape(os.path.join(node.net_dir, chainstate)), name=chainstate,
                                                   file=LEVELDB_FILE_RE))
        matches = list(failure_re.finditer(log))
        assert_equal(len(matches), 1)
        before, after = log[:matches[0].start()], log[matches[0].end():]
        # -debug=coindb logs every batch before writing it.
        for line in ["[coindb] Writing", "[coindb] Committed"] + last_writes:
            assert_not_in(line, after)
        assert_in(NO_SHUTDOWN_FLUSH, after)
        assert_not_in("Flushing large", after)
        assert_in("Shutdown: done", after)
        return before, after

    # (a) A snapshot load ----------------------------------------------------------------

    def test_snapshot_load(self):
        self.log.info("(a) coinsdb-gensnapshot writes %d coins", SNAPSHOT_COINS)
        path = os.path.join(self.options.tmpdir, "snapshot.dat")
        done = subprocess.run([self.gensnapshot, "-output=" + path, "-coins=%d" % SNAPSHOT_COINS,
                               "-height=%d" % SNAPSHOT_HEIGHT, "-seed=13"], capture_output=True, text=True, check=True)
        info = json.loads(done.stdout, parse_float=Decimal)
        base_hex = info["base_blockhash"]
        args = ["-assumeutxo=%s:%d" % (info["assumeutxo"], info["nchaintx"]), "-dbcache=4", "-debug=coindb"]
        loaded = {"coins_loaded": SNAPSHOT_COINS, "tip_hash": base_hex, "base_height": SNAPSHOT_HEIGHT, "path": path}

        self.log.info("(a) Reference node on the normal disk loads the snapshot")
        reference = self.add_node(args)
        reference.start()
        assert_equal(reference.loadtxoutset(path), loaded)
        want = utxo_stats(reference)
        assert_equal((want["hash_serialized_3"], want["txouts"], want["height"], want["bestblock"]),
                     (info["hash_serialized_3"], SNAPSHOT_COINS, SNAPSHOT_HEIGHT, base_hex))
        reference.stop_node()

        self.log.info("(a) loadtxoutset with %d MiB free: a mid-load flush runs out of space", SNAPSHOT_FREE // MIB)
        node = self.add_tmpfs_node(args)
        node.start()
        self.fill(node, SNAPSHOT_FREE)
        offset = node.debug_log_size()
        try:
            node.loadtxoutset(path)
            raise AssertionError("loadtxoutset succeeded on a full disk")
        except JSONRPCException as e:
            error = e.error
        snapshot_dir = node.snapshot_chainstate_dir
        before, after = self.assert_failed_write(node, offset, "chainstate_snapshot",
                                                 last_writes=["FlushSnapshotToDisk", "[snapshot] loaded", "[snapshot] validated"])
        assert_equal(error["code"], RPC_INTERNAL_ERROR)
        assert re.fullmatch(r"Unable to load UTXO snapshot: Fatal LevelDB error in chainstate_snapshot: IO error: %s/%s: "
                            r"No space left on device \(%s\)" % (re.escape(snapshot_dir), LEVELDB_FILE_RE, re.escape(path)),
                            error["message"]), error
        # Some mid-load flushes went through; the last one started failed.
        started = before.count("FlushSnapshotToDisk: flushing coins cache (")
        assert_greater_than(started, 1)
        assert_equal(before.count("FlushSnapshotToDisk: completed"), started - 1)
        assert_in("[snapshot] load of %s failed; removed %s" % (path, snapshot_dir), after)

        self.log.info("(a) With space freed the node starts without the snapshot chainstate")
        self.remove_filler(node)
        with node.assert_debug_log(["Active chainstate: chainstate at height 0, best block %s" % REGTEST_GENESIS],
                                   unexpected_msgs=["chainstate_snapshot", "unfinished flush"]):
            node.start()
        assert not os.path.exists(snapshot_dir)
        chainstates = node.getchainstates()["chainstates"]
        assert_equal([(c["blocks"], c["validated"]) for c in chainstates], [(0, True)])

        self.log.info("(a) The same loadtxoutset succeeds; the UTXO set equals the reference's (%s)", want["hash_serialized_3"])
        assert_equal(node.loadtxoutset(path), loaded)
        assert_equal(utxo_stats(node), want)
        node.stop_node()

    # (b) A replay flush ------------------------------------------------------------------

    def test_replay_flush(self, chain, want):
        args = ["-loadblock=" + chain, "-dbcache=4", "-debug=coindb"]
        self.log.info("(b) -loadblock with -dbcache=4 and %.1f MiB free: a replay flush runs out of space", CHAIN_FREE / MIB)
        node = self.add_tmpfs_node(args)
        self.fill(node, CHAIN_FREE)
        node.start(wait_for_rpc=False)
        before, after = self.assert_failed_write(node, 0, "chainstate", last_writes=["UpdateTip", "Block import finished"])
        directory = os.path.join(node.net_dir, "chainstate")
        assert re.search(r"\[error\] Block import failed: Fatal LevelDB error in chainstate: IO error: %s/%s: No space left on device\n"
                         % (re.escape(directory), LEVELDB_FILE_RE), after), after
        # Each flush is one batch, so a flush is on disk whole or not at all.
        assert_not_in("[coindb] Writing partial batch", before)
        # The genesis state at start-up, then the replay's flushes.
        assert_equal(before.count("[coindb] Committed "), 2)
        written = before[:before.rindex("[coindb] Committed ")]
        tip_hash, tip_height = re.findall(r"UpdateTip: new best=([0-9a-f]{64}) height=(\d+) ", written)[-1]
        self.log.info("(b) The first replay flush, at height %s, was written; the second failed", tip_height)

        self.log.info("(b) With space freed the node starts at the last written flush; the same command replays to the tip")
        self.remove_filler(node)
        offset = node.debug_log_size()
        with node.assert_debug_log(["Loaded best chain: hashBestChain=%s height=%s" % (tip_hash, tip_height)],
                                   unexpected_msgs=["unfinished flush"]):
            node.start()
        node.wait_for_debug_log("Block import finished: tip at height %d" % CHAIN_BLOCKS, offset=offset, timeout=60)
        assert_equal(utxo_stats(node), want)
        node.stop_node()

    # (c) An RPC's sync ---------------------------------------------------------------------

    def test_rpc_sync(self, chain, chain_report, want):
        args = ["-dbcache=1000", "-dbbatchsize=%d" % SYNC_BATCH, "-debug=coindb"]
        self.log.info("(c) Replay with -dbcache=1000: nothing is written")
        node = self.add_tmpfs_node(args)
        node.start(["-loadblock=" + chain])
        node.wait_for_debug_log("Block import finished: tip at height %d" % CHAIN_BLOCKS, timeout=60)
        # The genesis state at start-up only.
        assert_equal(node.read_debug_log().count("[coindb] Committed "), 1)
        cache = node.getcoinscacheinfo()
        assert_equal(cache["dirty_entries"], cache["cache_entries"])

        self.log.info("(c) gettxoutsetinfo with %d KiB free: its sync runs out of space", SYNC_FREE // 1024)
        self.fill(node, SYNC_FREE)
        offset = node.debug_log_size()
        try:
            node.gettxoutsetinfo()
            raise AssertionError("gettxoutsetinfo succeeded on a full disk")
        except JSONRPCException as e:
            error = e.error
        directory = os.path.join(node.net_dir, "chainstate")
        before, after = self.assert_failed_write(node, offset, "chainstate", last_writes=[])
        assert_equal(error["code"], RPC_MISC_ERROR)
        assert re.fullmatch(r"Fatal LevelDB error in chainstate: IO error: %s/\d{6}\.log: No space left on device" % re.escape(directory),
                            error["message"]), error
        # The last batch logged is the one that failed; the first, written,
        # marked the flush unfinished.
        written = before.count("[coindb] Writing partial batch of ") - 1
        self.log.info("(c) %d batches were written before one failed", written)
        assert 0 < written <= SYNC_FREE // SYNC_BATCH, written
        assert_not_in("[coindb] Writing final batch", before)

        self.log.info("(c) With space freed the node rolls the unfinished sync forward to the tip, without -loadblock")
        self.remove_filler(node)
        with node.assert_debug_log(["chainstate/ holds an unfinished flush; it will be replayed",
                                    "Replaying blocks: the last flush from %s to %s did not finish" % (REGTEST_GENESIS, chain_report["tip_hash"]),
                                    "Replay: finished at %s (%d)" % (chain_report["tip_hash"], CHAIN_BLOCKS)]):
            node.start()
        assert_equal(node.getblockcount(), CHAIN_BLOCKS)
        assert_equal(utxo_stats(node), want)
        node.stop_node()

    def run_test(self):
        self.test_snapshot_load()

        chain, report = generate_chain(self, "chain.dat", blocks=CHAIN_BLOCKS, seed=3, txs_per_block=100)
        self.log.info("Reference node on the normal disk replays the %d-block chain", CHAIN_BLOCKS)
        reference = self.add_node(["-loadblock=" + chain])
        reference.start()
        reference.wait_for_debug_log("Block import finished: tip at height %d" % CHAIN_BLOCKS, timeout=60)
        want = utxo_stats(reference)
        reference.stop_node()
        assert_equal((want["bestblock"], want["txouts"]), (report["tip_hash"], report["utxos"]))
        assert_equal(want["total_amount"], Decimal(report["total_amount"]))

        self.test_replay_flush(chain, want)
        self.test_rpc_sync(chain, report, want)


if __name__ == "__main__":
    DiskFullTest(__file__).main()
