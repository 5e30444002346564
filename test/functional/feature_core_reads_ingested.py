#!/usr/bin/env python3
"""Bitcoin Core reads a snapshot chainstate coinsdb wrote by ingesting table files.

A snapshot loaded at a -dbcache that holds all of it is flushed by handing
LevelDB table files coinsdb built itself and naming them in LevelDB's
MANIFEST. This test shows the reference Bitcoin Core (with its own vendored
LevelDB, ../shared/reference/bitcoin-core-*, or $COINSDB_CORE_BIN and
$COINSDB_CORE_DATADIR) accepts such a database as its own:

- coinsdb-gensnapshot writes a snapshot on the reference template's base
  block (template/chain.json);
- coinsdb loads it with -debug=coindb, and its log must say every batch of
  the flush went into table files (more than zero ingested), so the files
  handed over really are ingested ones;
- Core, on a copy of the template datadir, loads the same file so that its
  block index carries the snapshot, and stops; its chainstate_snapshot
  LevelDB files are deleted and coinsdb's put in their place (Core's
  base_blockhash kept);
- restarted, Core reads another obfuscation key there than the one it
  wrote (so it opened coinsdb's database), reports coinsdb's
  hash_serialized_3, txouts and total_amount, and its debug.log (with
  LevelDB's messages) mentions no corruption.

Skipped, saying why, when the reference build is missing; in CI (CI=true),
where ../shared/reference is present, a missing build fails the test.
"""

import json
import os
import re
import shutil
import stat
import subprocess
from decimal import Decimal

from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, assert_greater_than, assert_not_equal

SNAPSHOT_COINS = 300_000
SNAPSHOT_SEED = 34
# A cache that holds the whole snapshot until the load's one flush: only
# then does the bulk load ingest its batches. Batches smaller than the
# default, so that the run of ingested files spans several of them.
COINSDB_CACHE = ["-dbcache=300", "-dbbatchsize=4000000"]
# -debug=leveldb: Core's LevelDB writes its messages (a corruption among
# them) to debug.log; Core keeps no LOG file of its own.
CORE_ARGS = ["-dbcache=300", "-debug=leveldb"]
STATS_KEYS = ("hash_serialized_3", "txouts", "total_amount")
INGEST_LINE = re.compile(r"(\d+) of (\d+) batches went into table files; (\d+) table files ingested so far")
# What Core and LevelDB print when a database does not read back.
CORRUPTION = re.compile(r"corrupt|checksum mismatch|bad magic|fatal leveldb|error opening", re.IGNORECASE)


def copy_writable(src, dst):
    """The reference template is read-only; Core must be able to write to
    its copy."""
    shutil.copytree(src, dst)
    for dirpath, dirnames, filenames in os.walk(dst):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)


class CoreReadsIngestedTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0

    def setup_nodes(self):
        template = self.core_datadir_template()
        chain_json = os.path.join(os.path.dirname(template), "chain.json") if template else None
        missing = None
        if not self.reference_core_bin():
            missing = "no Bitcoin Core reference build (../shared/reference/bitcoin-core-*/bin or $COINSDB_CORE_BIN)"
        elif not chain_json or not os.path.isfile(chain_json):
            missing = ("no reference template datadir with chain.json beside it "
                       "(../shared/reference/bitcoin-core-*/template or $COINSDB_CORE_DATADIR)")
        if missing:
            if os.environ.get("CI") == "true":
                raise AssertionError("CI run without the reference Core: " + missing)
            raise SkipTest(missing + ": nothing to check the ingested chainstate with")
        self.template = template
        with open(chain_json, encoding="utf8") as f:
            self.chain = json.load(f)

    def run_test(self):
        self.generate_snapshot()
        ours = self.load_in_coinsdb()
        self.load_in_core()
        self.swap_chainstate()
        self.check_core_reads(ours)

    def generate_snapshot(self):
        self.log.info("coinsdb-gensnapshot writes %d coins on the template's base block %s (height %d)",
                      SNAPSHOT_COINS, self.chain["blockhash"], self.chain["height"])
        self.snapshot_path = os.path.join(self.options.tmpdir, "snapshot.dat")
        done = subprocess.run([self.gensnapshot, "-output=" + self.snapshot_path, "-coins=%d" % SNAPSHOT_COINS,
                               "-height=%d" % self.chain["height"], "-blockhash=" + self.chain["blockhash"],
                               "-seed=%d" % SNAPSHOT_SEED], capture_output=True, text=True, check=True)
        self.info = json.loads(done.stdout, parse_float=Decimal)
        assert_equal((self.info["coins"], self.info["base_blockhash"]), (SNAPSHOT_COINS, self.chain["blockhash"]))

    def load_in_coinsdb(self):
        node = self.add_node(["-assumeutxo=%s:%d" % (self.info["assumeutxo"], self.info["nchaintx"]),
                              "-debug=coindb"] + COINSDB_CACHE)
        self.ours = node
        node.start()
        self.log.info("coinsdb: loadtxoutset with a cache that holds the snapshot")
        offset = node.debug_log_size()
        result = node.rpc_proxy(timeout=120).loadtxoutset(self.snapshot_path)
        assert_equal(result["coins_loaded"], SNAPSHOT_COINS)
        lines = INGEST_LINE.findall(node.read_debug_log(offset))
        # Without this line the flush went through LevelDB's own write path
        # and Core would only be reading what LevelDB wrote.
        assert_equal(len(lines), 1)
        ingested, batches, files = (int(x) for x in lines[0])
        self.log.info("coinsdb: %d of %d batches ingested, %d table files", ingested, batches, files)
        assert_greater_than(files, 0)
        assert_equal(ingested, batches)
        stats = node.gettxoutsetinfo()
        assert_equal((stats["hash_serialized_3"], stats["txouts"], stats["total_amount"]),
                     (self.info["hash_serialized_3"], SNAPSHOT_COINS, self.info["total_amount"]))
        node.stop_node()
        return {key: stats[key] for key in STATS_KEYS}

    def core_env(self):
        return dict(os.environ, AU_HEIGHT=str(self.chain["height"]), AU_HASH=self.info["hash_serialized_3"],
                    AU_BLOCKHASH=self.chain["blockhash"])

    def load_in_core(self):
        node = self.add_core_node(CORE_ARGS)
        self.core = node
        copy_writable(os.path.join(self.template, "regtest"), node.net_dir)
        offset = node.debug_log_size()
        node.start(env=self.core_env())
        self.log.info("Core: loadtxoutset of the same file, so that its block index knows the snapshot")
        result = node.rpc_proxy(timeout=120).loadtxoutset(self.snapshot_path)
        assert_equal((result["coins_loaded"], result["tip_hash"]), (SNAPSHOT_COINS, self.chain["blockhash"]))
        node.stop_node()
        keys = set(self.obfuscation_keys(node.read_debug_log(offset)))
        assert_equal(len(keys), 1)
        self.core_key = keys.pop()

    def obfuscation_keys(self, log):
        """The obfuscation keys Core logged for its snapshot chainstate."""
        prefix = re.escape(self.core.snapshot_chainstate_dir)
        return re.findall(r"obfuscation key for %s: ([0-9a-f]{16})" % prefix, log)

    def swap_chainstate(self):
        ours_dir, core_dir = self.ours.snapshot_chainstate_dir, self.core.snapshot_chainstate_dir
        self.log.info("Core's chainstate_snapshot: its LevelDB files deleted, coinsdb's copied in")
        with open(os.path.join(core_dir, "base_blockhash"), "rb") as f:
            base = f.read()
        for name in os.listdir(core_dir):
            if name != "base_blockhash":
                os.remove(os.path.join(core_dir, name))
        copied = []
        for name in sorted(os.listdir(ours_dir)):
            if name != "base_blockhash":
                shutil.copy2(os.path.join(ours_dir, name), os.path.join(core_dir, name))
                copied.append(name)
        tables = [name for name in copied if name.endswith(".ldb")]
        self.log.info("Copied %d files, %d of them table files", len(copied), len(tables))
        assert_greater_than(len(tables), 0)
        with open(os.path.join(core_dir, "base_blockhash"), "rb") as f:
            assert_equal(f.read(), base)

    def check_core_reads(self, ours):
        node = self.core
        offset = node.debug_log_size()
        node.start(env=self.core_env())
        self.log.info("Core on coinsdb's chainstate: gettxoutsetinfo as coinsdb reported it")
        chainstates = node.getchainstates()["chainstates"]
        assert_equal(chainstates[-1]["snapshot_blockhash"], self.chain["blockhash"])
        stats = node.rpc_proxy(timeout=120).gettxoutsetinfo()
        assert_equal({key: stats[key] for key in STATS_KEYS}, ours)
        assert_equal((stats["height"], stats["bestblock"]), (self.chain["height"], self.chain["blockhash"]))
        node.stop_node()
        log = node.read_debug_log(offset)
        # Core opened the database it was given, not one of its own: the
        # obfuscation key it now reads there is not the one it wrote.
        keys = set(self.obfuscation_keys(log))
        self.log.info("Core's snapshot chainstate key: %s before the swap, %s after", self.core_key, sorted(keys))
        assert_equal(len(keys), 1)
        assert_not_equal(keys.pop(), self.core_key)
        found = CORRUPTION.findall(log)
        assert not found, "Core's debug.log reports %s" % found


if __name__ == "__main__":
    CoreReadsIngestedTest(__file__).main()
