#!/usr/bin/env python3
"""Black-box crash test: kill -9 from outside at random moments of

- a snapshot load (loadtxoutset of a coinsdb-gensnapshot file),
- a block replay (-loadblock of a coinsdb-genchain file),
- a shutdown flush (the stop RPC after a replay that wrote nothing),
- an ingesting snapshot load ('ingest'): the same load with a -dbcache that
  holds the whole snapshot, so that its only flush is the final one and
  every batch of it goes into table files, which the database takes at
  once at the end of the flush (CDBWrapper::CommitIngest: the memtable
  flushed, the database closed, the tables synced and renamed, a new
  MANIFEST, the CURRENT switch, the directory synced, the database
  reopened),

each with -dbcache small enough (or, for the shutdown and the ingest, large
enough) that the moment falls in or between flushes, and -dbbatchsize=50000
so that a flush is dozens of LevelDB batches and a kill can leave it half
written.

After each kill the node must start cleanly and, once the interrupted work
is finished (the snapshot loaded again if it is gone; -loadblock given again
for a replay or a shutdown), hold exactly the UTXO set of a reference node
that was never killed. On the way it must come back

- after a snapshot load: either without the snapshot chainstate (no
  chainstate_snapshot/, one chainstate) and then accept the same load, or
  with it complete (two chainstates, the snapshot one at its base block with
  the snapshot's hash); never complete when the kill came before the end
  of its final flush, never without it when the kill came after the load
  logged "validated"; and, either way, the killed directory's CURRENT
  named a MANIFEST that exists, and no ingest-*.ldb file (a table of an
  uncommitted ingest) is left anywhere once the node has restarted;
- after a replay or a shutdown flush: at the height of the last flush the
  killed node logged as done, or at the height of the flush the kill
  interrupted (rolled forward from 'H'); nothing older, nothing else.

Each kill is planned from a seeded random generator (the seed is logged;
--seed repeats the plan, though not the node's timing): at a uniform moment
of the phase, as long as it took the reference node; or a uniform fraction
into one of the phase's flushes, found by watching debug.log; or, for a
snapshot load, within a millisecond of its final flush's end, when the hash
check, the base files and the activation run. An ingesting load's kills aim
in turn before, during, after and around its commit: before, at a uniform
moment of the table writes (a uniform batch of the reference's, then a
uniform fraction of a batch's time); during, as soon as the first table
file has been renamed or CURRENT has switched, seen by watching the
directory without a pause from the last batch on; after, within a
millisecond of the commit's log line; around, at a uniform moment from the
last batch to a quarter past the reference's commit end. Where each kill
landed is told from the killed node's log (the final batch and the end of
the commit are logged) and, during the commit, from the files it left; a
run with three ingest kills or more must have landed at least one before,
one during and one after.
--kills sets the number of kills (default 12, spread over the four phases
in turn); the long variant in doc/reliability.md runs 120.
"""

import http.client
import json
import os
import random
import re
import shutil
import subprocess
import threading
import time
from datetime import datetime
from decimal import Decimal

from test_framework.authproxy import JSONRPCException
from test_framework.chaingen import generate_chain
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal, assert_greater_than, assert_in, assert_raises_rpc_error

DEFAULT_KILLS = 12
PHASES = ("snapshot", "replay", "shutdown", "ingest")
SNAPSHOT_COINS = 200_000
SNAPSHOT_HEIGHT = 300
CHAIN_BLOCKS = 300
TXS_PER_BLOCK = 300
BATCH_BYTES = 50_000
# -dbcache=4: a snapshot load flushes every ~12,700 coins and a replay every
# ~40 blocks. -dbcache=300 holds the whole replay, so that the shutdown
# flush writes all of it, and the whole snapshot (about 22 MB in the cache),
# so that an ingesting load flushes once.
SMALL_CACHE = ["-dbcache=4"]
LARGE_CACHE = ["-dbcache=300"]
# Kill moments are planned from log timestamps: they need microseconds.
COMMON_ARGS = ["-dbbatchsize=%d" % BATCH_BYTES, "-debug=coindb", "-logtimemicros"]
# A load's hash check, base files and activation take well under a
# millisecond after its final flush: kills planned there ('tail') are the
# ones that find the snapshot chainstate complete, or nearly.
FINAL_FLUSH = "FlushSnapshotToDisk: saving snapshot chainstate"
TAIL_SECONDS = 0.001
# A shutdown may end before a kill planned near the end of the reference's
# shutdown: such a try is not counted, and the phase is tried again.
SHUTDOWN_WINDOW_SHARE = 0.9
MAX_MISSES_PER_KILL = 3
STATS_KEYS = ("bestblock", "height", "hash_serialized_3", "txouts", "transactions", "total_amount", "bogosize")
RPC_INTERNAL_ERROR = -32603

FLUSH_START = "[coindb] BatchWrite started"
FLUSH_END = " BatchWrite took="
PARTIAL_BATCH = "[coindb] Writing partial batch"
# Logged before the final batch is ingested, and the commit follows at once.
FINAL_BATCH = "[coindb] Writing final batch"
INGEST_DONE_RE = re.compile(r"\[coindb\] (\d+) of (\d+) batches went into table files; (\d+) table files ingested so far; "
                            r"the commit took (\d+)ms")
# Where the kills of an ingesting load aim, in turn. The first three are
# sure to land where they aim; 'around' lands in the last batch, the commit
# (mostly its table syncs) or just after, as the commit's time (its syncs)
# varies from run to run by a factor of four on a loaded machine.
INGEST_TARGETS = ("before", "during", "after", "around")
AROUND_SHARE = 1.25
INGEST_FILE_RE = re.compile(r"^ingest-\d+\.ldb$")
UPDATE_TIP_RE = re.compile(r"UpdateTip: new best=[0-9a-f]{64} height=(\d+) ")


def utxo_stats(node):
    info = node.gettxoutsetinfo()
    return {key: info[key] for key in STATS_KEYS}


def log_time(line):
    return datetime.strptime(line[:26], "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def flush_durations(log):
    """Seconds each completed flush in log took, from its log lines."""
    durations = []
    start = None
    for line in log.splitlines():
        if FLUSH_START in line:
            start = log_time(line)
        elif FLUSH_END in line and start is not None:
            durations.append(log_time(line) - start)
            start = None
    return durations


def interrupted_flush(log):
    """The batches an unfinished flush had logged (each is logged before it
    is written), or None when no flush was under way."""
    start = log.rfind(FLUSH_START)
    if start < 0 or FLUSH_END in log[start:]:
        return None
    return log[start:].count("[coindb] Writing ")


def flush_heights(log):
    """(height of the last completed flush, height of the unfinished one or
    None, last tip height) for a replay's debug.log. A flush writes the
    state after the last block logged before it; a new chainstate's first
    flush is at genesis."""
    tip = 0
    started = committed = None
    for line in log.splitlines():
        match = UPDATE_TIP_RE.search(line)
        if match:
            tip = int(match.group(1))
        elif FLUSH_START in line:
            started = tip
        elif FLUSH_END in line:
            committed, started = started, None
    return committed, started, tip


class LogWatcher:
    """Reads a node's debug.log as it grows, whole lines only."""

    def __init__(self, node, offset):
        self.node = node
        self.path = node.debug_log_path
        self.offset = offset
        self.text = ""

    def wait_for(self, msg, timeout):
        """Polls every half millisecond, so that the time a phase starts or
        ends is known to about a millisecond."""
        deadline = time.monotonic() + timeout
        while msg not in self.poll():
            assert self.node.process.poll() is None, "node %d exited while waiting for %r" % (self.node.index, msg)
            assert time.monotonic() < deadline, "%r not logged within %g seconds" % (msg, timeout)
            time.sleep(0.0005)

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return self.text
        end = data.rfind(b"\n") + 1
        self.offset += end
        self.text += data[:end].decode("utf8", errors="replace")
        return self.text


def line_time(log, marker, last=False):
    """The time of the first (or last) line of log holding marker."""
    start = log.rindex(marker) if last else log.index(marker)
    return log_time(log[log.rfind("\n", 0, start) + 1:])


def ingest_files(directory):
    try:
        return {name for name in os.listdir(directory) if INGEST_FILE_RE.match(name)}
    except FileNotFoundError:
        return set()


def read_current(directory):
    try:
        with open(os.path.join(directory, "CURRENT"), encoding="utf8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def leveldb_files(directory):
    """What a killed node left of a LevelDB directory: the run files not yet
    renamed, the numbers of the numbered tables, and the MANIFEST CURRENT
    names (None without CURRENT)."""
    names = os.listdir(directory) if os.path.isdir(directory) else []
    tables = [int(name[:-4]) for name in names if re.fullmatch(r"\d+\.ldb", name)]
    current = read_current(directory)
    return len(ingest_files(directory)), tables, current.strip() if current is not None else None


def final_flush_done(log):
    final = log.find(FINAL_FLUSH)
    return final >= 0 and "FlushSnapshotToDisk: completed" in log[final:]


class KillPlan:
    """When to kill: 'anytime', a uniform moment of the phase as long as it
    took the reference node; 'flush', a uniform fraction into one of the
    phase's flushes (as long as it took the reference); 'tail', for a
    snapshot load only, within TAIL_SECONDS of its final flush's end (of
    its commit for an ingesting load, whose other modes are below)."""

    def __init__(self, rng, phase, flushes, ref=None, target=None):
        self.phase = phase
        self.target = target
        self.fraction = rng.random()
        if phase == "ingest":
            # 'batch': a uniform moment of the table writes; 'rename',
            # 'switch': in the commit, at its files; 'tail': just after it;
            # 'commit': a uniform moment from the last batch to a quarter
            # past the reference's commit end.
            self.mode = {"before": "batch", "during": rng.choice(["rename", "switch"]), "after": "tail", "around": "commit"}[target]
            # Not the last of the partial batches: a fraction of a batch
            # after it may be the commit ('commit' covers it).
            self.batch = rng.randrange(1, ref["batches"] - 1)
            self.batches = ref["batches"]
            self.batch_seconds = ref["batch_seconds"]
            self.around_seconds = ref["around_seconds"]
            self.flush = None
            return
        if phase == "snapshot":
            self.mode = rng.choices(["anytime", "flush", "tail"], weights=[2, 2, 1])[0]
        else:
            self.mode = rng.choice(["anytime", "flush"])
        self.flush = rng.randrange(len(flushes)) if self.mode == "flush" else None
        self.flush_seconds = flushes[self.flush] if self.mode == "flush" else None

    def describe(self, window):
        if self.mode == "batch":
            return "%.0f%% into batch %d of the table writes" % (self.fraction * 100, self.batch)
        if self.mode == "commit":
            return "%.1f ms after the last batch (on the reference, the commit ended %.1f ms after it)" % (
                self.fraction * AROUND_SHARE * self.around_seconds * 1e3, self.around_seconds * 1e3)
        if self.mode == "rename":
            return "at the first table file renamed"
        if self.mode == "switch":
            return "at the CURRENT switch"
        if self.phase == "ingest":
            return "%.2f ms after the commit" % (self.fraction * TAIL_SECONDS * 1e3)
        if self.mode == "flush":
            return "%.0f%% into flush %d (%.1f ms on the reference)" % (self.fraction * 100, self.flush + 1, self.flush_seconds * 1e3)
        if self.mode == "tail":
            return "%.2f ms after the final flush" % (self.fraction * TAIL_SECONDS * 1e3)
        return "at %.0f%% of the phase (%.1f ms after its start)" % (self.fraction * 100, self.fraction * window * 1e3)


class KillTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0

    def add_options(self, parser):
        parser.add_argument("--kills", type=int, default=DEFAULT_KILLS,
                            help="kills to make, spread over the four phases in turn (default: %(default)s)")
        parser.add_argument("--seed", type=int, help="seed of the kill plan (default: a random one, logged)")

    def setup_nodes(self):
        self.reference = self.add_node(COMMON_ARGS)
        self.victim = self.add_node(COMMON_ARGS)

    # Inputs and reference runs ---------------------------------------------------

    def make_inputs(self):
        self.snapshot_path = os.path.join(self.options.tmpdir, "snapshot.dat")
        done = subprocess.run([self.gensnapshot, "-output=" + self.snapshot_path, "-coins=%d" % SNAPSHOT_COINS,
                               "-height=%d" % SNAPSHOT_HEIGHT, "-seed=17"], capture_output=True, text=True, check=True)
        self.snapshot_info = json.loads(done.stdout, parse_float=Decimal)
        self.snapshot_args = ["-assumeutxo=%s:%d" % (self.snapshot_info["assumeutxo"], self.snapshot_info["nchaintx"])]
        self.chain_path, self.chain_report = generate_chain(self, "chain.dat", blocks=CHAIN_BLOCKS, seed=19,
                                                            txs_per_block=TXS_PER_BLOCK)
        self.loaded = {"coins_loaded": SNAPSHOT_COINS, "tip_hash": self.snapshot_info["base_blockhash"],
                       "base_height": SNAPSHOT_HEIGHT, "path": self.snapshot_path}

    def wipe(self, node):
        shutil.rmtree(node.net_dir)

    def reference_load(self, cache_args):
        """Starts the reference node and loads the snapshot: how long the
        load took, and what it logged."""
        node = self.reference
        node.start(self.snapshot_args + cache_args)
        offset = node.debug_log_size()
        start = time.monotonic()
        assert_equal(node.rpc_proxy(timeout=300).loadtxoutset(self.snapshot_path), self.loaded)
        return time.monotonic() - start, node.read_debug_log(offset)

    def reference_snapshot(self):
        node = self.reference
        window, log = self.reference_load(SMALL_CACHE)
        flushes = flush_durations(log)
        want = utxo_stats(node)
        assert_equal((want["hash_serialized_3"], want["txouts"], want["height"], want["bestblock"]),
                     (self.snapshot_info["hash_serialized_3"], SNAPSHOT_COINS, SNAPSHOT_HEIGHT, self.snapshot_info["base_blockhash"]))
        node.stop_node()
        self.wipe(node)
        return want, window, flushes

    def reference_ingest(self):
        node = self.reference
        window, log = self.reference_load(LARGE_CACHE)
        flushes = flush_durations(log)
        assert_equal(len(flushes), 1)
        done = INGEST_DONE_RE.search(log)
        assert done, "the load ingested nothing"
        ingested, batches, files = (int(done.group(i)) for i in (1, 2, 3))
        # Every batch of the only flush went into table files, and there are
        # enough of them for kills to fall between.
        assert_equal(ingested, batches)
        assert_greater_than(batches, 10)
        assert_equal(log.count(PARTIAL_BATCH), batches - 1)
        final = line_time(log, FINAL_BATCH)
        ref = {"window": window, "flushes": flushes, "batches": batches, "files": files,
               "commit_seconds": line_time(log, done.group(0)) - final,
               "around_seconds": line_time(log, done.group(0)) - line_time(log, PARTIAL_BATCH, last=True),
               "batch_seconds": (final - line_time(log, FLUSH_START)) / (batches - 1), "want": utxo_stats(node)}
        node.stop_node()
        self.wipe(node)
        return ref

    def reference_replay(self):
        node = self.reference
        node.start(["-loadblock=" + self.chain_path] + SMALL_CACHE, wait_for_rpc=False)
        watcher = LogWatcher(node, 0)
        watcher.wait_for("Importing blocks file", timeout=60 * self.options.timeout_factor)
        start = time.monotonic()
        watcher.wait_for("Block import finished", timeout=300 * self.options.timeout_factor)
        window = time.monotonic() - start
        node.wait_for_rpc_connection()
        log = node.read_debug_log()
        flushes = flush_durations(log[log.index("Importing blocks file"):])
        want = utxo_stats(node)
        assert_equal((want["height"], want["bestblock"], want["txouts"]),
                     (CHAIN_BLOCKS, self.chain_report["tip_hash"], self.chain_report["utxos"]))
        assert_equal(want["total_amount"], Decimal(self.chain_report["total_amount"]))
        node.stop_node()
        self.wipe(node)
        return want, window, flushes

    def reference_shutdown(self, want):
        node = self.reference
        self.replay_without_flushing(node)
        offset = node.debug_log_size()
        start = time.monotonic()
        node.stop()
        node.wait_until_stopped()
        window = time.monotonic() - start
        flushes = flush_durations(node.read_debug_log(offset))
        assert_equal(len(flushes), 1)
        node.start()
        assert_equal(utxo_stats(node), want)
        node.stop_node()
        self.wipe(node)
        return window, flushes

    def replay_without_flushing(self, node):
        node.start(["-loadblock=" + self.chain_path] + LARGE_CACHE)
        node.wait_for_debug_log("Block import finished: tip at height %d" % CHAIN_BLOCKS, timeout=300)
        # Only the new chainstate's genesis state was written: the shutdown
        # flush has the whole replay to write.
        assert_equal(node.read_debug_log().count(FLUSH_END), 1)

    # Killing -----------------------------------------------------------------------

    def kill_at(self, node, plan, watcher, start, window, done_marker):
        """Kills node at plan's moment, or right away once done_marker is
        logged. Returns the exit status (-9 when the kill ended it)."""
        deadline = time.monotonic() + (window * 10 + 60) * self.options.timeout_factor

        def wait_for(predicate, what):
            """False when the phase ended first."""
            while not predicate(watcher.poll()):
                if done_marker in watcher.text or node.process.poll() is not None:
                    return False
                assert time.monotonic() < deadline, "%s never came" % what
                time.sleep(0.0005)
            return True

        if plan.mode == "flush":
            # Flushes logged before the phase began are not the phase's.
            earlier = watcher.poll().count(FLUSH_START)
            if wait_for(lambda log: log.count(FLUSH_START) - earlier > plan.flush, "flush %d" % (plan.flush + 1)):
                time.sleep(plan.fraction * plan.flush_seconds)
        elif plan.mode == "tail" and plan.phase == "ingest":
            if wait_for(INGEST_DONE_RE.search, "the end of the commit"):
                time.sleep(plan.fraction * TAIL_SECONDS)
        elif plan.mode == "tail":
            if wait_for(final_flush_done, "the end of the final flush"):
                time.sleep(plan.fraction * TAIL_SECONDS)
        elif plan.mode == "batch":
            if wait_for(lambda log: log.count(PARTIAL_BATCH) >= plan.batch, "batch %d" % plan.batch):
                time.sleep(plan.fraction * plan.batch_seconds)
        elif plan.mode == "commit":
            if wait_for(lambda log: log.count(PARTIAL_BATCH) >= plan.batches - 1, "the last batch"):
                time.sleep(plan.fraction * AROUND_SHARE * plan.around_seconds)
        elif plan.mode in ("rename", "switch"):
            # From the last batch on: a loaded machine may not run this
            # process soon enough to see the final batch logged in time.
            if wait_for(lambda log: log.count(PARTIAL_BATCH) >= plan.batches - 1, "the last batch"):
                directory = node.snapshot_chainstate_dir
                if plan.mode == "rename":
                    # The run's files are renamed in the run's order, here
                    # (a file a batch) the order they were written in.
                    run = sorted(ingest_files(directory), key=lambda name: int(name[7:-4]))
                    first = os.path.join(directory, run[0]) if run else None
                    changed = lambda: first is None or not os.path.exists(first)
                else:
                    # CURRENT is replaced by a rename: a new inode.
                    current = os.path.join(directory, "CURRENT")
                    inode = os.stat(current).st_ino
                    changed = lambda: os.stat(current).st_ino != inode
                # Without a pause: what follows the CURRENT switch in the
                # commit (a directory sync and the reopen) can take less
                # than a millisecond.
                spins = 0
                while not changed():
                    spins += 1
                    if spins % 1000 == 0:
                        if done_marker in watcher.poll() or node.process.poll() is not None:
                            break
                        assert time.monotonic() < deadline, "%s never came" % plan.mode
        else:
            delay = start + plan.fraction * window - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        return node.kill_process()

    def start_load(self, node):
        outcome = []

        def load():
            try:
                outcome.append(node.rpc_proxy(timeout=300).loadtxoutset(self.snapshot_path))
            except (OSError, http.client.HTTPException, JSONRPCException) as e:
                outcome.append(e)

        loader = threading.Thread(target=load)
        loader.start()
        return loader, outcome

    # The three phases ------------------------------------------------------------------

    def kill_snapshot_load(self, plan, ref):
        node = self.victim
        cache = LARGE_CACHE if plan.phase == "ingest" else SMALL_CACHE
        node.start(self.snapshot_args + cache)
        watcher = LogWatcher(node, node.debug_log_size())
        start = time.monotonic()
        loader, outcome = self.start_load(node)
        code = self.kill_at(node, plan, watcher, start, ref["window"], "[snapshot] successfully activated")
        loader.join()
        killed = watcher.poll()
        left = leveldb_files(node.snapshot_chainstate_dir)
        landed = self.ingest_stage(killed, left, ref) if plan.phase == "ingest" else self.snapshot_stage(killed)
        had_dir = os.path.isdir(node.snapshot_chainstate_dir)
        # CURRENT is replaced whole (a temporary file renamed over it), and
        # only once the MANIFEST it names is written.
        if left[2] is not None:
            assert os.path.isfile(os.path.join(node.snapshot_chainstate_dir, left[2])), "CURRENT names %s, which is missing" % left[2]

        offset = node.debug_log_size()
        node.start(self.snapshot_args + cache)
        restart = node.read_debug_log(offset)
        # A run the kill interrupted is deleted, whether its directory is
        # kept or not; nothing else names such files.
        for root, _, names in os.walk(node.net_dir):
            leftover = [name for name in names if INGEST_FILE_RE.match(name)]
            assert not leftover, "%s left in %s after the restart" % (leftover, root)
        chainstates = node.getchainstates()["chainstates"]
        if len(chainstates) == 1:
            outcome_text = "absent"
            # A load that read every coin, wrote them and checked their hash
            # was reported as validated: it must not be lost.
            assert "[snapshot] validated snapshot" not in killed, "a validated snapshot chainstate was lost"
            assert not os.path.exists(node.snapshot_chainstate_dir), "%s left behind" % node.snapshot_chainstate_dir
            assert_equal([(c["blocks"], c["validated"]) for c in chainstates], [(0, True)])
            assert_equal("Removing incomplete snapshot chainstate in %s" % node.snapshot_chainstate_dir in restart, had_dir)
            assert_equal(node.rpc_proxy(timeout=300).loadtxoutset(self.snapshot_path), self.loaded)
        else:
            outcome_text = "complete"
            # The base files are written only after the final flush and the
            # hash check, so the kill came after both.
            assert final_flush_done(killed), "a partial snapshot chainstate survived"
            assert_in("[snapshot] detected active snapshot chainstate", restart)
            base = self.snapshot_info["base_blockhash"]
            assert_equal(len(chainstates), 2)
            snapshot = chainstates[1]
            assert_equal((snapshot["snapshot_blockhash"], snapshot["bestblockhash"], snapshot["blocks"]), (base, base, SNAPSHOT_HEIGHT))
            assert_raises_rpc_error(RPC_INTERNAL_ERROR, "Unable to load UTXO snapshot: Can't activate a snapshot-based "
                                    "chainstate more than once (%s)" % self.snapshot_path, node.loadtxoutset, self.snapshot_path)
        assert_equal(utxo_stats(node), ref["want"])
        node.stop_node()
        self.wipe(node)
        return code, landed, outcome_text

    @staticmethod
    def snapshot_stage(log):
        flush = interrupted_flush(log)
        if "[snapshot] loading " not in log:
            return "before the load began"
        if "[snapshot] validated snapshot" in log:
            return "after the load"
        if "[snapshot] loaded " not in log:
            return "reading coins" if flush is None else "in a mid-load flush (%d batches logged)" % flush
        if flush is not None:
            return "in the final flush (%d batches logged)" % flush
        return "hash check or base files"

    @staticmethod
    def ingest_stage(log, left, ref):
        """Where a kill landed relative to an ingesting load's commit."""
        if FINAL_BATCH not in log:
            if FLUSH_START not in log:
                return "before the commit (reading coins)"
            return "before the commit (in the table writes, %d of %d batches logged)" % (log.count(PARTIAL_BATCH), ref["batches"])
        if not INGEST_DONE_RE.search(log):
            unrenamed, tables, current = left
            # The new MANIFEST takes a number above every renamed table; the
            # one in force before the commit is below them all.
            switched = bool(tables) and current is not None and int(current.split("-")[1]) > max(tables)
            return "during the commit (%d of %d table files not renamed yet, CURRENT %s)" % (
                unrenamed, ref["files"], "switched" if switched else "not switched")
        if "[snapshot] validated snapshot" in log:
            return "after the commit (after the load)"
        return "after the commit (hash check or base files)"

    def kill_replay(self, plan, ref):
        node = self.victim
        node.start(["-loadblock=" + self.chain_path] + SMALL_CACHE, wait_for_rpc=False)
        watcher = LogWatcher(node, 0)
        watcher.wait_for("Importing blocks file", timeout=60 * self.options.timeout_factor)
        start = time.monotonic()
        code = self.kill_at(node, plan, watcher, start, ref["window"], "Block import finished")
        return code, self.finish_replay(node, watcher.poll(), ref)

    def kill_shutdown(self, plan, ref):
        node = self.victim
        self.replay_without_flushing(node)
        watcher = LogWatcher(node, node.debug_log_size())
        start = time.monotonic()
        node.stop()
        code = self.kill_at(node, plan, watcher, start, ref["window"] * SHUTDOWN_WINDOW_SHARE, "Shutdown: done")
        if code != -9:
            assert_equal(code, 0)
            self.wipe(node)
            return code, None
        return code, self.finish_replay(node, node.read_debug_log(), ref)

    def finish_replay(self, node, killed, ref):
        """Restarts a killed replay or shutdown with -loadblock; checks where
        it starts from and where it ends."""
        committed, started, tip = flush_heights(killed)
        flush = interrupted_flush(killed)
        shutting_down = "Shutdown: In progress" in killed
        if flush is not None:
            what = "the shutdown flush" if shutting_down else "a flush"
            landed = "in %s to height %d (%d batches logged)" % (what, started, flush)
        elif shutting_down:
            flushed = FLUSH_END in killed[killed.index("Shutdown: In progress"):]
            landed = "after the shutdown flush" if flushed else "before the shutdown flush"
        elif "Block import finished" in killed:
            landed = "after the import"
        else:
            landed = "between flushes at height %d" % tip
        if committed is None:
            committed = 0  # killed before the new chainstate's genesis flush

        offset = node.debug_log_size()
        node.start(["-loadblock=" + self.chain_path] + SMALL_CACHE)
        node.wait_for_debug_log("Block import finished: tip at height %d" % CHAIN_BLOCKS, offset=offset, timeout=300)
        restart = node.read_debug_log(offset)
        loaded = re.search(r"Loaded best chain: hashBestChain=[0-9a-f]{64} height=(\d+)\n", restart)
        height = int(loaded.group(1)) if loaded else 0
        rolled = "Replaying blocks: the last flush from" in restart
        # Nothing a completed flush wrote is lost, and nothing is made up: the
        # node is where the last completed flush left it or, when one was
        # under way, where that one was going.
        assert height in (committed, started), (height, committed, started, landed)
        if rolled:
            assert flush is not None, "rolled forward although no flush was under way"
            assert_equal(height, started)
        outcome = "rolled forward to %d" % height if rolled else "restarted at %d" % height
        assert_equal(utxo_stats(node), ref["want"])
        node.stop_node()
        self.wipe(node)
        return landed, outcome

    # Run -----------------------------------------------------------------------------

    def run_test(self):
        seed = self.options.seed if self.options.seed is not None else random.randrange(1 << 32)
        self.log.info("Kill plan seed: %d (repeat with --seed=%d)", seed, seed)
        rng = random.Random(seed)
        assert_greater_than(self.options.kills, 0)

        self.make_inputs()
        self.log.info("Reference: load the %d-coin snapshot with -dbcache=4", SNAPSHOT_COINS)
        snap_want, snap_window, snap_flushes = self.reference_snapshot()
        self.log.info("Reference: replay the %d-block chain with -dbcache=4", CHAIN_BLOCKS)
        chain_want, replay_window, replay_flushes = self.reference_replay()
        self.log.info("Reference: replay it with -dbcache=300, then stop")
        shutdown_window, shutdown_flushes = self.reference_shutdown(chain_want)
        self.log.info("Reference: load the snapshot with -dbcache=300, every batch ingested")
        ingest_ref = self.reference_ingest()
        assert_equal(ingest_ref["want"], snap_want)
        self.log.info("Reference ingest: %d batches into %d table files, %.1f ms a batch, the commit %.1f ms",
                      ingest_ref["batches"], ingest_ref["files"], ingest_ref["batch_seconds"] * 1e3, ingest_ref["commit_seconds"] * 1e3)
        refs = {
            "ingest": ingest_ref,
            "snapshot": {"want": snap_want, "window": snap_window, "flushes": snap_flushes},
            "replay": {"want": chain_want, "window": replay_window, "flushes": replay_flushes},
            "shutdown": {"want": chain_want, "window": shutdown_window, "flushes": shutdown_flushes},
        }
        for phase in PHASES:
            ref = refs[phase]
            self.log.info("Reference %s: %.0f ms, %d flushes of %.1f-%.1f ms", phase, ref["window"] * 1e3, len(ref["flushes"]),
                          min(ref["flushes"]) * 1e3, max(ref["flushes"]) * 1e3)

        results = {phase: [] for phase in PHASES}
        misses = 0
        kills = 0
        while kills < self.options.kills:
            phase = PHASES[kills % len(PHASES)]
            ref = refs[phase]
            target = INGEST_TARGETS[len(results[phase]) % len(INGEST_TARGETS)] if phase == "ingest" else None
            plan = KillPlan(rng, phase, ref["flushes"], ref, target)
            label = "Kill %d/%d (%s, %s)" % (kills + 1, self.options.kills, phase, plan.describe(ref["window"]))
            if phase in ("snapshot", "ingest"):
                code, landed, outcome = self.kill_snapshot_load(plan, ref)
            elif phase == "replay":
                code, (landed, outcome) = self.kill_replay(plan, ref)
            else:
                code, finished = self.kill_shutdown(plan, ref)
                landed, outcome = finished or (None, None)
            if code != -9:
                # Only a shutdown ends by itself, and then cleanly.
                assert_equal((phase, code), ("shutdown", 0))
                misses += 1
                self.log.info("%s: the node had exited (status %s) before the kill; not counted", label, code)
                assert misses <= MAX_MISSES_PER_KILL * self.options.kills, "too many kills came after the node exited"
                continue
            kills += 1
            results[phase].append((landed, outcome))
            self.log.info("%s: landed %s; %s; UTXO set equals the reference's", label, landed, outcome)

        self.log_figures(results, misses)
        if len(results["ingest"]) >= 3:
            hit = {landed.split(" (")[0] for landed, _ in results["ingest"]}
            for target in INGEST_TARGETS[:3]:
                assert "%s the commit" % target in hit, "no ingest kill landed %s the commit" % target

    def log_figures(self, results, misses):
        for phase in PHASES:
            entries = results[phase]
            if not entries:
                continue
            in_flush = sum(1 for landed, _ in entries if landed.startswith("in "))
            where = {}
            outcomes = {}
            for landed, outcome in entries:
                key = re.sub(r" \(.*\)| to height \d+| at height \d+", "", landed)
                where[key] = where.get(key, 0) + 1
                key = re.sub(r" \d+$", "", outcome) if phase == "replay" else outcome
                outcomes[key] = outcomes.get(key, 0) + 1
            # An ingesting load's kills are all in or around its only flush.
            flushed = "" if phase == "ingest" else ", %d in a flush" % in_flush
            self.log.info("Figures %s: %d kills, all survived%s; landed %s; came back %s", phase, len(entries),
                          flushed, ", ".join("%s: %d" % item for item in sorted(where.items())),
                          ", ".join("%s: %d" % item for item in sorted(outcomes.items())))
        self.log.info("Figures: %d kills survived with nothing lost; %d tries ended before the kill and were not counted",
                      sum(len(e) for e in results.values()), misses)


if __name__ == "__main__":
    KillTest(__file__).main()
