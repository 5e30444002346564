#!/usr/bin/env python3
"""SwiftSync hinted replay (-swiftsynchints): ends at the UTXO set a normal
replay ends at, or falls back to a normal replay and still does.

A chain from coinsdb-genchain is replayed once without hints (the
reference). Its hints are computed here, from the blocks alone
(test_framework/hints.py, independent of coinsdb-genhints), for a height H
below the tip, so the blocks above H replay normally after the check.
- True hints: the check at H passes ("verified"), the UTXO set equals the
  reference's, and getblockchaininfo reports the hinted replay.
- A spent output hinted, a hint missing, an index moved by one, an index
  past the block's outputs: each falls back, logs which check failed, and
  ends at the reference's set.
- The wrong block hash at H: start-up refuses it from the -loadblock
  file's headers, before anything is replayed. A -loadblock file that
  ends below H: the replay starts with a warning, falls back at the end
  of the file, and ends at a normal replay's set.
- A malformed file (bad magic, wrong version, a height that does not match
  the objects, a truncated object, bytes after the last object) and
  missing or malformed arguments: start-up refuses, nothing is replayed.
- Blocks tampered at H (a spend of a coin that never existed; an inflated
  coinbase; a changed transaction, refused on arrival): the hinted replay
  falls back, the normal replay rejects the block, as a normal replay of
  the same blocks does, and both end at the same set.
- kill -9 at random moments of a hinted replay: the restart discards the
  unverified chainstate, replays again and ends at the reference's set.
"""

import io
import os
import random
import re
import shutil
import struct

from test_framework.blocktools import REGTEST_TARGET, block_hash, merkle_root, read_block_records, ser_tx, write_block_records
from test_framework.chaingen import generate_chain
from test_framework.hints import encode_object, hints_for_chain, parse_block, read_tx, write_hints
from test_framework.snapshot import hash_to_hex, read_compact_size, ser_compact_size, sha256d
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal

STATS_KEYS = ("bestblock", "height", "hash_serialized_3", "txouts", "transactions", "total_amount")
REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"
CHAIN_BLOCKS = 220
HINTS_HEIGHT = 200


def utxo_stats(node):
    info = node.gettxoutsetinfo()
    return {key: info[key] for key in STATS_KEYS}


class SwiftSyncTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def wipe(self, node):
        for sub in ("blocks", "chainstate", "swiftsync"):
            path = os.path.join(node.datadir, "regtest", sub)
            if os.path.exists(path):
                shutil.rmtree(path)

    def replay(self, blk_file, extra=(), wipe=True):
        """A fresh replay of blk_file; returns its log and UTXO stats, and
        the node's getblockchaininfo, then stops the node."""
        node = self.nodes[0]
        if wipe:
            self.wipe(node)
        offset = node.debug_log_size()
        node.start(["-loadblock=" + blk_file, "-dbcache=4"] + list(extra))
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        stats, info = utxo_stats(node), node.getblockchaininfo()
        node.stop_node()
        return node.read_debug_log(offset), stats, info

    def hints_file(self, name, objects, height=None):
        path = os.path.join(self.options.tmpdir, name)
        data = write_hints(len(objects), objects)
        if height is not None:
            data = data[:5] + struct.pack("<I", height) + data[9:]
        with open(path, "wb") as f:
            f.write(data)
        return path

    def hinted(self, blk_file, hints_path, block_hash_at_h, extra=()):
        return self.replay(blk_file, ["-swiftsynchints=" + hints_path, "-swiftsyncblockhash=" + block_hash_at_h] + list(extra))

    def run_test(self):
        self.log.info("Generate a chain and replay it without hints (the reference)")
        blk_file, report = generate_chain(self, "chain.dat", blocks=CHAIN_BLOCKS, seed=11, txs_per_block=25)
        raw = read_block_records(blk_file)
        genesis = bytes.fromhex(REGTEST_GENESIS)[::-1]
        # Blocks 1..tip in chain order (the generator leaves genesis out).
        chain = raw[1:] if block_hash(raw[0]) == genesis else raw
        assert_equal(chain[0][4:36], genesis)
        assert_equal(len(chain), CHAIN_BLOCKS)
        _, self.reference, _ = self.replay(blk_file)
        assert_equal(self.reference["height"], CHAIN_BLOCKS)
        hash_at_h = hash_to_hex(block_hash(chain[HINTS_HEIGHT - 1]))
        truth = hints_for_chain(chain, HINTS_HEIGHT)
        assert sum(len(o) for o in truth) > 0

        self.log.info("True hints: verified at H, then normal replay to the tip, the reference's set")
        log, stats, info = self.hinted(blk_file, self.hints_file("true.hints", truth), hash_at_h)
        assert_equal(stats, self.reference)
        assert "SwiftSync: the -loadblock files hold block %s at height %d" % (hash_at_h, HINTS_HEIGHT) in log
        assert "SwiftSync: verified at height %d (%s)" % (HINTS_HEIGHT, hash_at_h) in log, log[-3000:]
        # The coins at H went into table files LevelDB took as they were.
        assert re.search(r"Wrote \d+ coins in key order in \d+ batches", log)
        assert "writing a run of table files through LevelDB's log instead" not in log
        assert_equal(info["swiftsync"]["status"], "verified")
        assert_equal(info["swiftsync"]["height"], HINTS_HEIGHT)
        assert_equal(info["swiftsync"]["blockhash"], hash_at_h)

        self.check_wrong_hints(blk_file, chain, truth, hash_at_h)
        self.check_refused_files(blk_file, truth, hash_at_h)
        self.check_tampered_blocks(chain, truth)
        self.check_kills(blk_file, truth, hash_at_h)

    def fell_back(self, blk_file, hints, hash_at_h, reason, expected_stats=None):
        log, stats, info = self.hinted(blk_file, hints, hash_at_h)
        assert_equal(stats, expected_stats or self.reference)
        assert_equal(info["swiftsync"]["status"], "fell back")
        reasons = (reason,) if isinstance(reason, str) else reason
        assert any(r in info["swiftsync"]["reason"] for r in reasons), (reasons, info["swiftsync"]["reason"])
        assert "SwiftSync: " + info["swiftsync"]["reason"] + "; discarding the unverified chainstate" in log
        assert "SwiftSync: verified" not in log
        return log

    def check_wrong_hints(self, blk_file, chain, truth, hash_at_h):
        # A block with a gap in its hints: an output below its last hint
        # that is spent by H.
        at = next(i for i, o in enumerate(truth) if o and o[-1] + 1 > len(o))
        gap = next(i for i in range(truth[at][-1]) if i not in truth[at])
        cases = [
            # A spent coin kept counts its value twice: the supply check at H
            # may see it before the aggregate does.
            ("a spent output hinted", {at: sorted(truth[at] + [gap])}, ("the aggregate is not zero", "bad supply at height")),
            ("a hint missing", {at: truth[at][:-1]}, "the aggregate is not zero"),
            ("an index moved by one", {at: truth[at][:-1] + [truth[at][-1] + 1]}, ""),
            ("an index past the outputs", {at: truth[at] + [100000]}, "swiftsync-hint-out-of-range"),
        ]
        for name, change, reason in cases:
            self.log.info("Wrong hints, %s: falls back and ends at the reference's set", name)
            objects = [change.get(i, o) for i, o in enumerate(truth)]
            self.fell_back(blk_file, self.hints_file("wrong.hints", objects), hash_at_h, reason)

        self.log.info("The wrong block hash at H: refused at start-up from the -loadblock file's headers, nothing replayed")
        node = self.nodes[0]
        other = "11" * 32
        self.wipe(node)
        node.assert_start_raises_init_error(
            ["-loadblock=" + blk_file, "-swiftsynchints=" + self.hints_file("true.hints", truth), "-swiftsyncblockhash=" + other],
            "Error: -swiftsyncblockhash: the block at height %d in the -loadblock files is %s, not %s" % (HINTS_HEIGHT, hash_at_h, other))
        assert not os.path.exists(os.path.join(node.datadir, "regtest", "swiftsync"))
        assert not os.path.exists(os.path.join(node.datadir, "regtest", "chainstate"))

        self.log.info("A -loadblock file that stops below H: started anyway (its blocks may be stored already), falls back at its end")
        short_file = os.path.join(self.options.tmpdir, "short.dat")
        write_block_records(short_file, chain[:HINTS_HEIGHT - 1])
        _, short_reference, _ = self.replay(short_file)
        assert_equal(short_reference["height"], HINTS_HEIGHT - 1)
        log = self.fell_back(short_file, self.hints_file("true.hints", truth), hash_at_h, "below the hints' height %d" % HINTS_HEIGHT,
                             expected_stats=short_reference)
        assert "block headers reach height %d from genesis, below the hints' height %d" % (HINTS_HEIGHT - 1, HINTS_HEIGHT) in log

    def check_refused_files(self, blk_file, truth, hash_at_h):
        node = self.nodes[0]
        good = write_hints(len(truth), truth)
        one_object = encode_object(truth[-1])
        bad_files = [
            ("bad magic", b"UTXP" + good[4:], ("not a SwiftSync hints file: it starts with 55545850",)),
            ("wrong version", good[:4] + b"\x01" + good[5:], ("hints file version 1, but coinsdb reads version 0 only",)),
            ("height above the objects", good[:5] + struct.pack("<I", HINTS_HEIGHT + 1) + good[9:],
             ("the file ends after block %d's hints, but its header says H=%d" % (HINTS_HEIGHT, HINTS_HEIGHT + 1),)),
            ("height below the objects", good[:5] + struct.pack("<I", HINTS_HEIGHT - 1) + good[9:],
             ("bytes follow block %d's hints" % (HINTS_HEIGHT - 1),)),
            ("truncated", good[:-1], ("block %d's hints" % HINTS_HEIGHT, "the file ends after block %d's hints" % (HINTS_HEIGHT - 1))),
            ("bytes after the last object", good + one_object, ("bytes follow block %d's hints" % HINTS_HEIGHT,)),
        ]
        for name, data, fragment in bad_files:
            self.log.info("A malformed hints file (%s) is refused at start-up", name)
            path = os.path.join(self.options.tmpdir, "bad.hints")
            with open(path, "wb") as f:
                f.write(data)
            self.wipe(node)
            message = node.assert_start_raises_init_error(
                ["-loadblock=" + blk_file, "-swiftsynchints=" + path, "-swiftsyncblockhash=" + hash_at_h])
            assert message.startswith("Error: -swiftsynchints: " + path + ": "), message
            assert any(f in message for f in fragment), (fragment, message)
            assert not os.path.exists(os.path.join(node.datadir, "regtest", "swiftsync")), name

        hints = self.hints_file("true.hints", truth)
        for args, expected in [
            (["-swiftsynchints=" + hints], "Error: -swiftsynchints needs -swiftsyncblockhash=<hash of the block at the hints' height>"),
            (["-swiftsyncblockhash=" + hash_at_h], "Error: -swiftsyncblockhash needs -swiftsynchints"),
            (["-swiftsynchints=" + hints, "-swiftsyncblockhash=xyz"],
             "Error: -swiftsyncblockhash: 'xyz' is not a block hash (64 hex digits)"),
            (["-swiftsynchints=" + os.path.join(self.options.tmpdir, "missing.hints"), "-swiftsyncblockhash=" + hash_at_h],
             "Error: -swiftsynchints: " + os.path.join(self.options.tmpdir, "missing.hints") + ": cannot open it"),
        ]:
            self.log.info("Refused arguments: %s", " ".join(a.split("=")[0] for a in args))
            node.assert_start_raises_init_error(["-loadblock=" + blk_file] + args, expected)
        self.log.info("Hints without blocks to replay are refused")
        node.assert_start_raises_init_error(["-swiftsynchints=" + hints, "-swiftsyncblockhash=" + hash_at_h],
                                            "Error: -swiftsynchints needs blocks to replay: -loadblock or -reindex-chainstate")

    def check_tampered_blocks(self, chain, truth):
        chain_h = chain[:HINTS_HEIGHT]
        txs_h = parse_block(chain_h[-1])
        # The tip at H re-mined with one more transaction that spends a coin
        # that never existed: its only output is unspendable, so the hints
        # stay right and only the aggregate can tell.
        fake = ser_tx([(b"\x42" * 32, 7, b"\x51")], [(0, b"\x6a\x01\x01")])
        raw_txs = self.raw_transactions(chain_h[-1])
        bad_spend = self.remined(chain_h, raw_txs + [fake])
        # The tip at H re-mined with its coinbase paying 1000 BTC more.
        inflated = self.remined(chain_h, [self.inflate_coinbase(raw_txs[0], 1000 * 100_000_000)] + raw_txs[1:])
        for name, blocks, reason, reject in [
            ("a spend of a coin that never existed", bad_spend, "the aggregate is not zero", "bad-txns-inputs-missingorspent"),
            ("an inflated coinbase", inflated, "bad supply at height %d" % HINTS_HEIGHT, "bad-cb-amount"),
        ]:
            self.log.info("Tampered block at H, %s: the fall back rejects it as a normal replay does", name)
            path = os.path.join(self.options.tmpdir, "tampered.dat")
            write_block_records(path, blocks)
            log, expected, _ = self.replay(path)
            assert reject in log, reject
            assert_equal(expected["height"], HINTS_HEIGHT - 1)
            hash_at_h = hash_to_hex(block_hash(blocks[-1]))
            self.fell_back(path, self.hints_file("tampered.hints", truth), hash_at_h, reason, expected)
        assert len(txs_h) > 1

        self.log.info("Tampered block at H, a changed transaction: refused on arrival, the blocks end below H, fall back")
        # One byte of the last transaction's locktime changed: the merkle
        # root no longer matches, and the block is never connected.
        changed = chain_h[-1][:-1] + bytes([chain_h[-1][-1] ^ 1])
        path = os.path.join(self.options.tmpdir, "tampered.dat")
        write_block_records(path, chain_h[:-1] + [changed])
        log, expected, _ = self.replay(path)
        assert "bad-txnmrklroot" in log
        assert_equal(expected["height"], HINTS_HEIGHT - 1)
        self.fell_back(path, self.hints_file("tampered.hints", truth), hash_to_hex(block_hash(changed)),
                       "the blocks ended at height %d, below the hints' height %d" % (HINTS_HEIGHT - 1, HINTS_HEIGHT), expected)

    @staticmethod
    def raw_transactions(block):
        """The serialized transactions of a block (as in the block)."""
        r = io.BytesIO(block)
        r.seek(80)
        out = []
        for _ in range(read_compact_size(r)):
            start = r.tell()
            read_tx(r)
            end = r.tell()
            r.seek(start)
            out.append(r.read(end - start))
        return out

    @staticmethod
    def inflate_coinbase(coinbase, extra):
        """The coinbase (legacy serialization) with `extra` satoshis added to
        its first output."""
        r = io.BytesIO(coinbase)
        r.seek(4)
        assert coinbase[4:6] != b"\x00\x01", "a segwit coinbase"
        for _ in range(read_compact_size(r)):
            r.read(36)
            r.read(read_compact_size(r) + 4)
        read_compact_size(r)
        at = r.tell()
        value = struct.unpack("<q", coinbase[at:at + 8])[0]
        return coinbase[:at] + struct.pack("<q", value + extra) + coinbase[at + 8:]

    @staticmethod
    def remined(blocks, txs):
        """blocks with the last one replaced by a block of the same parent
        and time holding txs (the first a coinbase), with a new nonce."""
        last = blocks[-1]
        root = merkle_root([sha256d(tx) for tx in txs])
        nonce = 0
        while True:
            header = last[:36] + root + last[68:76] + struct.pack("<I", nonce)
            if int.from_bytes(sha256d(header), "little") <= REGTEST_TARGET:
                break
            nonce += 1
        return blocks[:-1] + [header + ser_compact_size(len(txs)) + b"".join(txs)]

    def check_kills(self, blk_file, truth, hash_at_h):
        node = self.nodes[0]
        hints = self.hints_file("true.hints", truth)
        args = ["-loadblock=" + blk_file, "-dbcache=4", "-swiftsynchints=" + hints, "-swiftsyncblockhash=" + hash_at_h]
        marker = os.path.join(node.datadir, "regtest", "swiftsync", "unverified")

        self.log.info("A stop below H leaves the marker; the restart discards the chainstate and replays again")
        self.wipe(node)
        offset = node.debug_log_size()
        node.start(args + ["-stopatheight=120"])
        node.wait_until_stopped()
        assert os.path.exists(marker)
        assert "SwiftSync: verified" not in node.read_debug_log(offset)
        offset = node.debug_log_size()
        node.start(args[:2])
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        log = node.read_debug_log(offset)
        assert "SwiftSync: the last hinted replay stopped before its check at H" in log
        assert_equal(utxo_stats(node), self.reference)
        assert not os.path.exists(marker)
        node.stop_node()

        rng = random.Random(5)
        wrong = self.hints_file("wrong.hints", [truth[0] + [100000]] + truth[1:])
        for round in range(6):
            # Half the rounds fall back at block 1 and are killed during the
            # normal replay that follows; half the restarts give the hints
            # again, half replay without.
            hints_file = wrong if round % 2 else hints
            run_args = args[:2] + ["-swiftsynchints=" + hints_file, "-swiftsyncblockhash=" + hash_at_h]
            target = rng.randint(1, CHAIN_BLOCKS)
            self.wipe(node)
            offset = node.debug_log_size()
            node.start(run_args, wait_for_rpc=False)
            reached = 0
            while reached < target:
                log = node.read_debug_log(offset)
                heights = re.findall(r"UpdateTip: new best=\w+ height=(\d+)", log)
                reached = int(heights[-1]) if heights else 0
                if "Block import finished" in log:
                    break
            node.kill_process()
            self.log.info("kill -9 at height %d (%s hints), restart %s hints", reached, "wrong" if round % 2 else "true",
                          "with" if round < 3 else "without")
            offset = node.debug_log_size()
            node.start(run_args if round < 3 else args[:2])
            node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
            assert_equal(utxo_stats(node), self.reference)
            node.stop_node()


if __name__ == "__main__":
    SwiftSyncTest(__file__).main()
