#!/usr/bin/env python3
"""The chain RPCs answer as Bitcoin Core answers, on the same data.

A coinsdb node and a Bitcoin Core node from the reference build
(../shared/reference/bitcoin-core-*/bin, or $COINSDB_CORE_BIN) run side by
side and are asked the same questions; the test is skipped, saying why,
when the reference build or the shared vectors are missing.

- fresh nodes: the genesis block is the chain's block 0.
- Core's regtest-small chain (160 blocks and a 3-block stale branch,
  blocks.dat) replayed with -loadblock: getblockchaininfo and
  getchainstates have Core's fields and values; getblockhash and
  getblockheader answer alike for every block, the stale ones too, and
  fail alike on bad input; dumptxoutset writes the same file
  and reports the same figures, nchaintx counting the chain's transactions
  (expected.json's 203, not height + 1); dumptxoutset rollback, by height,
  by hash, to the genesis block, in memory, writes the same files as Core,
  leaves the chainstate and the directory as they were, and fails alike on
  bad targets.
- the same chain's snapshot (snapshot.dat) loaded into fresh nodes after
  submitheader of the chain's headers (headers.txt), as Core requires:
  loadtxoutset, getblockchaininfo, getchainstates, getblockheader of the
  tip and dumptxoutset agree, also after a restart. submitheader fails
  alike on bad headers, and loadtxoutset with Core's codes: -8 for a file
  that does not open, -22 for a bad header, -32603 for an unknown base. Loaded without the headers (coinsdb allows it,
  Core does not), the RPCs report the snapshot's height, before and after a
  restart, and say what they do not know.
- getcoinscacheinfo (coinsdb's own): last_flush is the snapshot flush the
  log reports, with the same duration; null after a restart until the next
  write.
"""

import json
import os
import re
from decimal import Decimal

from test_framework.authproxy import JSONRPCException
from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, sha256sum_file

REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"
# Fields coinsdb adds to Core's: blocks waiting for their parent during an import.
OUR_BLOCKCHAININFO_EXTRAS = {"waiting_blocks"}
# An undo record for a block with only its coinbase: magic and size (8),
# an empty CompactSize list (1) and the checksum (32).
EMPTY_UNDO_RECORD = 41


def assert_close(ours, core, what):
    """Figures that depend on the time they were asked at (verification
    progress grows by 0.001 tx/s on regtest): equal to a millionth."""
    assert abs(Decimal(ours) - Decimal(core)) <= Decimal("1e-6") * max(abs(Decimal(core)), 1), (what, ours, core)


def assert_same_fields(ours, core, *, extras=frozenset(), close=frozenset(), skip=frozenset()):
    """ours has exactly core's keys (plus extras), with equal values except
    for close (time-dependent) and skip (compared by the caller)."""
    assert_equal(sorted(set(ours) - set(extras)), sorted(core))
    for key in core:
        if key in skip:
            continue
        if key in close:
            assert_close(ours[key], core[key], key)
        else:
            assert_equal((key, ours[key]), (key, core[key]))


def rpc_error(node, method, *args):
    """(code, message) of a call that must fail."""
    try:
        getattr(node, method)(*args)
    except JSONRPCException as e:
        return e.error["code"], e.error["message"]
    raise AssertionError("%s%r did not fail" % (method, args))


class RPCBlockchainTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0

    def setup_nodes(self):
        vectors = self.vectors_dir()
        if not vectors:
            raise SkipTest("no shared vectors (../shared/vectors or $COINSDB_VECTORS)")
        self.vector = os.path.join(vectors, "regtest-small")
        with open(os.path.join(self.vector, "expected.json"), encoding="utf8") as f:
            self.expected = json.load(f)
        # Both size the default -dbcache by the machine's memory; a fixed
        # figure keeps the cache sizes equal on any machine.
        self.ours = self.add_node(["-dbcache=450"])
        self.core = self.add_core_node(["-dbcache=450"])
        for node in (self.ours, self.core):
            node.start()

    def run_test(self):
        self.test_fresh_nodes()
        self.replay_vector_chain()
        self.test_replayed_chain_info()
        self.test_block_lookups()
        self.test_txoutset_hashes()
        self.test_logging_and_memory()
        self.test_cli_getinfo()
        self.test_dump_latest()
        self.test_dump_rollback()
        self.test_snapshot_without_headers()
        self.test_snapshot_with_headers()

    def both(self):
        return (self.ours, self.core)

    def path(self, name):
        return os.path.join(self.options.tmpdir, name)

    def replay_vector_chain(self):
        self.log.info("Both nodes replay Core's regtest-small chain with -loadblock")
        height = self.expected["height"]
        for node in self.both():
            node.stop_node()
            node.start(["-loadblock=" + os.path.join(self.vector, "blocks.dat")])
            self.wait_until(lambda: node.getblockcount() == height, timeout=120)
        self.ours.wait_for_debug_log("Block import finished")
        assert_equal(self.ours.getbestblockhash(), self.expected["base_blockhash"])
        assert_equal(self.core.getbestblockhash(), self.expected["base_blockhash"])

    def compare_chainstates(self):
        ours, core = self.ours.getchainstates(), self.core.getchainstates()
        assert_equal(ours["headers"], core["headers"])
        assert_equal(len(ours["chainstates"]), len(core["chainstates"]))
        for mine, theirs in zip(ours["chainstates"], core["chainstates"]):
            assert_same_fields(mine, theirs, close={"verificationprogress"})
        return ours

    def test_replayed_chain_info(self):
        self.log.info("Replayed chain: getblockchaininfo has Core's fields and values")
        # coinsdb connects blocks as they arrive, so the stale branch, which
        # comes first in the file, was connected and then reorganised away:
        # its blocks have undo data. Core connects the best chain once the
        # file is read and never connects them.
        info = self.compare_blockchaininfo(extra_undo_bytes=self.expected["stale_blocks"] * EMPTY_UNDO_RECORD)
        assert_equal(info["blocks"], self.expected["height"])
        assert_equal(info["bits"], "207fffff")
        self.log.info("Replayed chain: getchainstates has Core's fields and values")
        chainstate = self.compare_chainstates()["chainstates"][0]
        assert_equal(chainstate["blocks"], self.expected["height"])
        assert 0 < chainstate["verificationprogress"] < 1

    def same_answer(self, method, *args):
        ours, core = getattr(self.ours, method)(*args), getattr(self.core, method)(*args)
        assert_equal((method, args, ours), (method, args, core))
        return ours

    def same_error(self, method, *args, code=None):
        ours, core = rpc_error(self.ours, method, *args), rpc_error(self.core, method, *args)
        assert_equal((method, args, ours), (method, args, core))
        if code is not None:
            assert_equal(ours[0], code)

    def same_error_code(self, method, *args, code, prefix):
        """Failures whose detail coinsdb words its own way: the same code,
        and messages that start alike."""
        for node in self.both():
            got_code, message = rpc_error(node, method, *args)
            assert_equal((method, got_code), (method, code))
            assert message.startswith(prefix), (message, prefix)

    def test_txoutset_hashes(self):
        self.log.info("gettxoutsetinfo: each hash_type answers as Core does; muhash is the vector's")
        for hash_type in ("hash_serialized_3", "muhash", "none"):
            ours, core = (node.gettxoutsetinfo(hash_type) for node in self.both())
            # LevelDB's size estimate depends on compaction timing.
            for info in (ours, core):
                info.pop("disk_size")
            assert_equal((hash_type, ours), (hash_type, core))
            if hash_type != "none":
                assert_equal(ours[hash_type], self.expected[hash_type])
        self.same_error("gettxoutsetinfo", "bogus", code=-8)

    def test_cli_getinfo(self):
        self.log.info("bitcoin-cli -getinfo: the chain part as Core's client prints it for Core's node")
        ours, core = (node.cli.run("-getinfo") for node in self.both())
        assert_equal((ours.returncode, core.returncode), (0, 0))
        # Core's network part follows the difficulty; coinsdb has none. The
        # verification progress is an estimate against the clock, and the two
        # nodes are asked a moment apart: its last printed digit may differ
        # (34.3207% against 34.3206% in one CI run), so it is compared to
        # within 0.01 point and every other line exactly.
        ours_chain, ours_progress = self.split_progress(ours.stdout.split("\n\n")[0])
        core_chain, core_progress = self.split_progress(core.stdout.split("\n\n")[0])
        assert_equal(ours_chain, core_chain)
        assert abs(ours_progress - core_progress) < 0.01, (ours_progress, core_progress)
        assert_equal(ours.stdout.split("\n")[0:2], ["Chain: regtest", "Blocks: %d" % self.expected["height"]])
        warnings = self.ours.getblockchaininfo()["warnings"]
        assert_equal(ours.stdout.split("\n\n")[-1], "Warnings: " + "\n".join(warnings) + "\n")
        refused = self.ours.cli.run("-getinfo", "extra")
        assert_equal((refused.returncode, refused.stderr), (1, "error: -getinfo takes no arguments\n"))

    @staticmethod
    def split_progress(chain_part):
        """The chain part of -getinfo with its progress line's figure taken
        out (the bar drawn from it stays, so its format is still compared),
        and that figure in percent."""
        match = re.search(r"^(Verification progress: \S+ )(\d+\.\d{4})%$", chain_part, re.MULTILINE)
        assert match, chain_part
        return chain_part.replace(match.group(0), match.group(1) + "<percent>"), float(match.group(2))

    def test_logging_and_memory(self):
        self.log.info("logging and getmemoryinfo: Core's names, fields and errors")
        ours, core = (node.logging() for node in self.both())
        assert_equal(sorted(ours), sorted(core))
        self.same_error("logging", ["coindb", "bogus"], code=-8)
        self.same_error("logging", "coindb", code=-3)
        assert_equal(self.ours.logging(), ours)
        on = self.ours.logging(["all"], ["leveldb", "rpc"])
        assert_equal({name for name, active in on.items() if active}, {"coindb", "bench", "prune"})
        self.ours.logging([], ["all"])
        assert_equal(self.ours.logging(["coindb", "net"]), dict(on, bench=False, prune=False))
        self.ours.logging([], ["all"])
        self.ours.logging([name for name, active in ours.items() if active])
        assert_equal(self.ours.logging(), ours)
        ours, core = (node.getmemoryinfo() for node in self.both())
        assert_equal(sorted(ours["locked"]), sorted(core["locked"]))
        assert_equal(set(ours["locked"].values()), {0})
        for node in self.both():
            assert node.getmemoryinfo("mallocinfo").startswith('<malloc version="1">')
        self.same_error("getmemoryinfo", "bogus", code=-8)

    def test_block_lookups(self):
        self.log.info("getblockhash: the same hash at every height")
        hashes = [self.same_answer("getblockhash", height) for height in range(self.expected["height"] + 1)]
        self.log.info("getblockheader: the same header, as JSON and hex, for every block of the chain")
        for block_hash in hashes:
            header = self.same_answer("getblockheader", block_hash)
            self.same_answer("getblockheader", block_hash, False)
        assert_equal(header["confirmations"], 1)
        assert "nextblockhash" not in header
        genesis = self.same_answer("getblockheader", hashes[0])
        assert_equal((genesis["confirmations"], genesis["nextblockhash"]), (self.expected["height"] + 1, hashes[1]))
        self.log.info("getblockheader: the stale branch is off the chain (confirmations -1) on both")
        tips = self.core.getchaintips()
        stale = [tip for tip in tips if tip["status"] != "active"]
        assert_equal(len(stale), 1)
        walk = stale[0]["hash"]
        for _ in range(stale[0]["branchlen"]):
            header = self.same_answer("getblockheader", walk)
            assert_equal(header["confirmations"], -1)
            walk = header["previousblockhash"]
        assert_equal(self.ours.getblockheader(walk)["confirmations"], self.expected["height"] - header["height"] + 2)

        self.log.info("Bad heights and hashes fail with Core's codes and messages")
        self.same_error("getblockhash", -1, code=-8)
        self.same_error("getblockhash", self.expected["height"] + 1, code=-8)
        self.same_error("getblockhash", 1.5, code=-1)
        self.same_error("getblockheader", "xyz", code=-8)
        self.same_error("getblockheader", "z" + hashes[1][1:], code=-8)
        self.same_error("getblockheader", "00" * 32, code=-5)
        self.same_error("gettxout", "xyz", 0, code=-8)
        self.same_error("gettxout", hashes[1], -1, code=-1)

    def test_dump_latest(self):
        self.log.info("dumptxoutset latest: same figures and bytes; nchaintx is the chain's transaction count")
        results = []
        for node, name in zip(self.both(), ("ours", "core")):
            dump = node.dumptxoutset(self.path("latest_%s.dat" % name), "latest")
            assert_equal(dump.pop("path"), self.path("latest_%s.dat" % name))
            assert_equal(sha256sum_file(self.path("latest_%s.dat" % name)), self.expected["snapshot_sha256"])
            results.append(dump)
        assert_equal(results[0], results[1])
        assert_equal(results[0]["nchaintx"], self.expected["nchaintx"])
        assert_equal(results[0]["coins_written"], self.expected["coins_written"])

    def test_fresh_nodes(self):
        self.log.info("Fresh nodes: getblockhash 0 is the genesis block on both")
        for node in (self.ours, self.core):
            assert_equal(node.getblockhash(0), REGTEST_GENESIS)
        self.log.info("Fresh nodes: getblockchaininfo counts the genesis block's header, work and bytes")
        self.compare_blockchaininfo()
        self.compare_chainstates()

    def compare_blockchaininfo(self, *, extra_undo_bytes=0):
        ours, core = self.ours.getblockchaininfo(), self.core.getblockchaininfo()
        assert_same_fields(ours, core, extras=OUR_BLOCKCHAININFO_EXTRAS, close={"verificationprogress"},
                           skip={"warnings", "size_on_disk"})
        assert_equal(ours["size_on_disk"], core["size_on_disk"] + extra_undo_bytes)
        assert_equal(len(ours["warnings"]), 1)
        assert "does not verify scripts or signatures" in ours["warnings"][0]
        return ours


    def assumeutxo_arg(self):
        # Core's reference build trusts its environment's entry with a
        # transaction count of height + 1; the same figure here.
        expected = self.expected
        return "-assumeutxo=%d:%s:%s:%d" % (expected["height"], expected["base_blockhash"], expected["hash_serialized_3"],
                                            expected["height"] + 1)

    def same_dump(self, name, *args, **kwargs):
        """dumptxoutset on both nodes into name_ours.dat and name_core.dat:
        the same result (but the path) and the same bytes."""
        results = []
        for node, who in zip(self.both(), ("ours", "core")):
            path = self.path("%s_%s.dat" % (name, who))
            if kwargs:
                result = node.dumptxoutset(path=path, **kwargs)
            else:
                result = node.dumptxoutset(path, *args)
            assert_equal(result.pop("path"), path)
            results.append((result, sha256sum_file(path)))
        assert_equal(results[0], results[1])
        return results[0][0]

    def test_dump_rollback(self):
        expected = self.expected
        before = self.ours.gettxoutsetinfo()
        hash_100 = self.ours.getblockhash(100)
        self.log.info("dumptxoutset rollback: to height 100, by height and by hash, the same file as Core's")
        at_100 = self.same_dump("rollback_100", "", {"rollback": 100})
        assert_equal((at_100["base_height"], at_100["base_hash"], at_100["nchaintx"]), (100, hash_100, 101))
        assert_equal(self.same_dump("rollback_hash", "rollback", {"rollback": hash_100}), at_100)
        self.log.info("dumptxoutset rollback: named-only rollback=, in memory, and to the genesis block")
        at_150 = self.same_dump("rollback_150", rollback=150, in_memory=True)
        assert_equal(at_150["base_height"], 150)
        at_0 = self.same_dump("rollback_0", rollback=0)
        assert_equal((at_0["coins_written"], at_0["nchaintx"]), (0, 1))
        self.log.info("dumptxoutset rollback to the tip is the latest set")
        at_tip = self.same_dump("rollback_tip", "", {"rollback": expected["height"]})
        assert_equal(sha256sum_file(self.path("rollback_tip_ours.dat")), expected["snapshot_sha256"])
        assert_equal(at_tip["nchaintx"], expected["nchaintx"])
        self.log.info("dumptxoutset rollback: the chainstate is untouched and no temporary database is left")
        assert_equal(self.ours.gettxoutsetinfo(), before)
        assert_equal(self.ours.getblockcount(), expected["height"])
        assert not [name for name in os.listdir(self.options.tmpdir) if name.startswith("temp_utxo")]

        self.log.info("dumptxoutset: bad types and targets fail with Core's codes and messages")
        new = self.path("never_written.dat")
        # "rollback" alone rolls back to the highest assumeutxo height: 299 on regtest.
        self.same_error("dumptxoutset", new, "rollback", code=-8)
        self.same_error("dumptxoutset", new, "", {"rollback": -1}, code=-8)
        self.same_error("dumptxoutset", new, "", {"rollback": expected["height"] + 1}, code=-8)
        self.same_error("dumptxoutset", new, "", {"rollback": 1.5}, code=-1)
        self.same_error("dumptxoutset", new, "", {"rollback": True}, code=-3)
        self.same_error("dumptxoutset", new, "", {"rollback": "xyz"}, code=-8)
        self.same_error("dumptxoutset", new, "", {"rollback": "00" * 32}, code=-5)
        self.same_error("dumptxoutset", new, "latest", {"rollback": 5}, code=-8)
        self.same_error("dumptxoutset", new, "", code=-8)
        self.same_error("dumptxoutset", new, "", {}, code=-8)
        self.same_error("dumptxoutset", new, "foo", code=-8)
        self.same_error("dumptxoutset", new, "", {"rollback": 5, "in_memory": 5}, code=-3)
        self.same_error("dumptxoutset", self.path("rollback_100_ours.dat"), "", {"rollback": 5}, code=-8)
        self.same_error("dumptxoutset", self.path("no_such_dir/x.dat"), "", {"rollback": 5}, code=-8)
        assert not os.path.exists(new)
        # Core fails with an internal bug report on a block off its chain.
        stale = [tip["hash"] for tip in self.core.getchaintips() if tip["status"] != "active"][0]
        assert_equal(rpc_error(self.ours, "dumptxoutset", new, "", {"rollback": stale}),
                     (-8, "Block %s is not in the active chain" % stale))

    def test_snapshot_without_headers(self):
        expected = self.expected
        arg = self.assumeutxo_arg()
        node = self.add_node([arg])
        node.start()
        self.log.info("Snapshot node: loadtxoutset of Core's snapshot of the chain, without its headers")
        node.loadtxoutset(os.path.join(self.vector, "snapshot.dat"))
        before = node.getblockchaininfo()
        assert_equal((before["blocks"], before["headers"]), (expected["height"], expected["height"]))
        assert_equal(before["bestblockhash"], expected["base_blockhash"])
        # No header, so no target, time or work to report.
        for key in ("bits", "target", "difficulty", "time", "mediantime", "chainwork"):
            assert key not in before, key
        assert_equal(before["verificationprogress"], 0)
        # Of the chain, only the base block's hash is known.
        assert_equal(node.getblockhash(expected["height"]), expected["base_blockhash"])
        assert_equal(rpc_error(node, "getblockhash", expected["height"] - 1),
                     (-5, "Block not found: the headers below the snapshot's base block are not known "
                          "(submit them with submitheader)"))
        assert_equal(rpc_error(node, "getblockheader", expected["base_blockhash"]), (-5, "Block not found"))
        self.log.info("Snapshot node: after a restart the block index is still read: the same answers")
        node.stop_node()
        node.start([arg])
        after = node.getblockchaininfo()
        before.pop("waiting_blocks")
        assert_equal(after, before)
        node.stop_node()

    def test_snapshot_with_headers(self):
        expected = self.expected
        self.log.info("Snapshot nodes: fresh nodes take the chain's headers with submitheader")
        self.ours = self.add_node([self.assumeutxo_arg(), "-dbcache=450"])
        self.core = self.add_core_node(["-dbcache=450"])
        self.ours.start()
        self.core.start(env=dict(os.environ, AU_HEIGHT=str(expected["height"]), AU_HASH=expected["hash_serialized_3"],
                                 AU_BLOCKHASH=expected["base_blockhash"]))
        with open(os.path.join(self.vector, "headers.txt"), encoding="utf8") as f:
            headers = f.read().split()
        assert_equal(len(headers), expected["height"])
        self.log.info("submitheader: bad headers fail alike")
        first = bytes.fromhex(headers[0])
        self.same_error("submitheader", "zz", code=-22)
        self.same_error("submitheader", headers[0][:158], code=-22)
        self.same_error("submitheader", (first[:4] + bytes(32) + first[36:]).hex(), code=-25)
        self.same_error("submitheader", (first[:76] + bytes([first[76] ^ 1]) + first[77:]).hex(), code=-25)
        self.same_error("submitheader", (first[:4] + bytes([first[4] ^ 1]) + first[5:]).hex(), code=-25)
        self.same_error("getblockheader", expected["base_blockhash"], code=-5)
        for header in headers:
            self.same_answer("submitheader", header)
        # Bytes after the header are ignored, and a known header is no error.
        self.same_answer("submitheader", headers[0] + "00")
        self.same_answer("getblockheader", expected["base_blockhash"])

        self.log.info("loadtxoutset: a missing file, a bad header and an unknown base fail with Core's codes")
        path = os.path.join(self.vector, "snapshot.dat")
        with open(path, "rb") as f:
            data = f.read()
        self.same_error("loadtxoutset", self.path("missing.dat"), code=-8)
        with open(self.path("truncated.dat"), "wb") as f:
            f.write(data[:20])
        self.same_error_code("loadtxoutset", self.path("truncated.dat"), code=-22, prefix="Unable to parse metadata: ")
        with open(self.path("bad_magic.dat"), "wb") as f:
            f.write(b"utxo\xfe" + data[5:])
        self.same_error_code("loadtxoutset", self.path("bad_magic.dat"), code=-22, prefix="Unable to parse metadata: ")
        with open(self.path("unknown_base.dat"), "wb") as f:
            f.write(data[:11] + bytes(32) + data[43:])
        self.same_error_code("loadtxoutset", self.path("unknown_base.dat"), code=-32603, prefix="Unable to load UTXO snapshot: ")

        self.log.info("Snapshot nodes: loadtxoutset, then the chain RPCs agree")
        offset = self.ours.debug_log_size()
        self.same_answer("loadtxoutset", path)
        self.test_last_flush(self.ours.read_debug_log(offset))
        self.compare_snapshot_state()
        self.log.info("Snapshot nodes: dumptxoutset latest writes the same file, nchaintx from the assumeutxo entry")
        results = []
        for node, name in zip(self.both(), ("ours", "core")):
            dump = node.dumptxoutset(self.path("snapshot_%s.dat" % name), "latest")
            dump.pop("path")
            assert_equal(sha256sum_file(self.path("snapshot_%s.dat" % name)), self.expected["snapshot_sha256"])
            results.append(dump)
        assert_equal(results[0], results[1])
        assert_equal(results[0]["nchaintx"], expected["height"] + 1)
        self.log.info("Snapshot nodes: nothing below the snapshot's base can be rolled back to, on either node")
        self.same_error_code("dumptxoutset", self.path("below_base.dat"), "", {"rollback": 100}, code=-32603,
                             prefix="Failed to read block at height %d" % expected["height"])
        self.log.info("Snapshot nodes: the same answers after a restart of ours")
        self.ours.stop_node()
        self.ours.start()
        self.compare_snapshot_state()

    def test_last_flush(self, log):
        self.log.info("getcoinscacheinfo: last_flush is the snapshot's flush, as long as the log says it took")
        logged = re.findall(r"FlushSnapshotToDisk: completed \(([0-9.]+)ms\)", log)
        assert_equal(len(logged), 1)
        last = self.ours.getcoinscacheinfo()["last_flush"]
        assert_equal(last["chainstate"], "chainstate_snapshot")
        assert_equal("%.2f" % last["duration_ms"], logged[0])
        assert_equal((last["changed"], last["visited"]), (self.expected["coins_written"], self.expected["coins_written"]))
        self.log.info("getcoinscacheinfo: after a restart no write has happened yet: last_flush is null")
        self.ours.stop_node()
        self.ours.start()
        assert_equal(self.ours.getcoinscacheinfo()["last_flush"], None)
        self.ours.gettxoutsetinfo()
        last = self.ours.getcoinscacheinfo()["last_flush"]
        assert_equal((last["chainstate"], last["changed"]), ("chainstate_snapshot", 0))

    def compare_snapshot_state(self):
        expected = self.expected
        ours, core = self.ours.getblockchaininfo(), self.core.getblockchaininfo()
        # Core validates the chain below a snapshot in the background;
        # coinsdb does not, and has no such field to report.
        core.pop("backgroundvalidation")
        assert_same_fields(ours, core, extras=OUR_BLOCKCHAININFO_EXTRAS, close={"verificationprogress"}, skip={"warnings"})
        assert_equal(ours["chainwork"], self.ours.getblockheader(expected["base_blockhash"])["chainwork"])
        ours, core = self.ours.getchainstates(), self.core.getchainstates()
        assert_equal(ours["headers"], core["headers"])
        assert_equal(len(ours["chainstates"]), 2)
        for mine, theirs in zip(ours["chainstates"], core["chainstates"]):
            # How the coins caches are split between the two chainstates is
            # each node's own policy (see README): compared by the caller.
            assert_same_fields(mine, theirs, close={"verificationprogress"}, skip={"coins_db_cache_bytes", "coins_tip_cache_bytes"})
        # coinsdb gives the snapshot chainstate 99% of the coins cache and
        # leaves each LevelDB cache whole; Core splits both 95/5 during IBD.
        coins_cache = 440 << 20
        assert_equal([c["coins_tip_cache_bytes"] for c in ours["chainstates"]],
                     [coins_cache - int(coins_cache * 0.99), int(coins_cache * 0.99)])
        assert_equal([c["coins_db_cache_bytes"] for c in ours["chainstates"]], [8 << 20, 8 << 20])
        assert_equal(ours["chainstates"][1]["snapshot_blockhash"], expected["base_blockhash"])
        assert_equal(ours["chainstates"][1]["validated"], False)
        self.same_answer("getblockheader", expected["base_blockhash"])
        for height in (0, 100, expected["height"]):
            self.same_answer("getblockhash", height)
        self.same_error("getblockhash", expected["height"] + 1, code=-8)


if __name__ == "__main__":
    RPCBlockchainTest(__file__).main()
