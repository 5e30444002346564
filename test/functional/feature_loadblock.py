#!/usr/bin/env python3
"""Block replay from blk-format files (-loadblock, -reindex-chainstate).

Bitcoin Core's own blk00000.dat of every shared vector, with its 3-block
stale branch, replays to the tip and UTXO set Core reported; the same blocks
in a random order replay to the same result; a block spending a coin that
does not exist is rejected with upstream's reason and the tip stays put;
-reindex-chainstate rebuilds the same set from the stored blocks, and with
-stopafterblockimport the node then stops by itself.
"""

import json
import os
import random
import shutil
from decimal import Decimal

from test_framework.blocktools import block_hash, make_block, read_block_records, ser_tx, write_block_records
from test_framework.snapshot import hash_to_hex
from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal


def utxo_summary(node):
    info = node.gettxoutsetinfo()
    return {k: info[k] for k in ("bestblock", "height", "hash_serialized_3", "txouts", "transactions", "total_amount")}


class LoadBlockTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def replay(self, node, blk_file, extra=()):
        """Starts the node on blk_file and waits until the import is done."""
        offset = node.debug_log_size()
        node.start(["-loadblock=" + blk_file] + list(extra))
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        return node.read_debug_log(offset)

    def run_test(self):
        vectors = self.vectors_dir()
        if not vectors:
            raise SkipTest("no shared vectors (set COINSDB_VECTORS)")
        node = self.nodes[0]
        for name in sorted(os.listdir(vectors)):
            directory = os.path.join(vectors, name)
            if not os.path.isfile(os.path.join(directory, "blocks.dat")):
                continue
            with open(os.path.join(directory, "expected.json"), encoding="utf8") as f:
                expected = json.load(f)
            self.check_vector(node, directory, expected)

    def expected_summary(self, expected):
        return {
            "bestblock": expected["base_blockhash"],
            "height": expected["height"],
            "hash_serialized_3": expected["hash_serialized_3"],
            "txouts": expected["txouts"],
            "transactions": expected["transactions"],
            "total_amount": Decimal(expected["total_amount"]),
        }

    def fresh_datadir(self, node):
        for sub in ("chainstate", "blocks"):
            path = os.path.join(node.net_dir, sub)
            if os.path.exists(path):
                shutil.rmtree(path)

    def check_vector(self, node, directory, expected):
        blocks_dat = os.path.join(directory, "blocks.dat")
        want = self.expected_summary(expected)

        self.log.info("%s: -loadblock of Bitcoin Core's blk00000.dat reaches the expected tip and UTXO set", os.path.basename(directory))
        log = self.replay(node, blocks_dat)
        assert "Loaded %d blocks from external file" % expected["blocks_in_file"] in log, log[-2000:]
        assert_equal(log.count("DisconnectTip: disconnected"), expected["stale_blocks"])
        assert_equal(utxo_summary(node), want)
        assert_equal(node.getblockcount(), expected["height"])
        assert_equal(node.getbestblockhash(), expected["base_blockhash"])
        assert_equal(node.getblockhash(expected["height"]), expected["base_blockhash"])
        header = node.getblockheader(expected["base_blockhash"])
        assert_equal(header["height"], expected["height"])
        assert_equal(header["confirmations"], 1)
        info = node.getblockchaininfo()
        assert_equal((info["blocks"], info["headers"]), (expected["height"], expected["height"]))
        node.stop_node()

        self.log.info("-reindex-chainstate rebuilds the same UTXO set from the stored blocks")
        offset = node.debug_log_size()
        node.start(["-reindex-chainstate"])
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        assert "wiping chainstate/" in node.read_debug_log(offset)
        assert_equal(utxo_summary(node), want)
        node.stop_node()

        self.log.info("-stopafterblockimport: the node stops by itself, cleanly, once -reindex-chainstate is done")
        offset = node.debug_log_size()
        node.start(["-reindex-chainstate", "-stopafterblockimport"], wait_for_rpc=False)
        node.wait_until_stopped(timeout=120)
        log = node.read_debug_log(offset)
        assert log.index("Block import finished") < log.index("Stopping after block import") < log.index("Shutdown: done"), log[-2000:]
        node.start()
        assert_equal(utxo_summary(node), want)
        node.stop_node()

        self.log.info("The same blocks in a random order replay to the same result")
        records = read_block_records(blocks_dat)
        shuffled = list(records)
        random.Random(7).shuffle(shuffled)
        assert shuffled != records
        shuffled_path = os.path.join(self.options.tmpdir, "shuffled.dat")
        write_block_records(shuffled_path, shuffled)
        self.fresh_datadir(node)
        self.replay(node, shuffled_path)
        assert_equal(utxo_summary(node), want)
        node.stop_node()

        self.log.info("A block spending a missing coin is rejected with its reason; the tip stays put")
        tip = bytes.fromhex(expected["base_blockhash"])[::-1]
        missing = ser_tx([(b"\x42" * 32, 0, b"")], [(1000, b"\x51")])
        bad = make_block(tip, expected["height"] + 1, 2_000_000_000, [missing])
        bad_path = os.path.join(self.options.tmpdir, "bad.dat")
        write_block_records(bad_path, [bad])
        log = self.replay(node, bad_path)
        assert "bad-txns-inputs-missingorspent" in log, log[-2000:]
        assert hash_to_hex(block_hash(bad)) in log
        assert_equal(utxo_summary(node), want)
        node.stop_node()


if __name__ == "__main__":
    LoadBlockTest(__file__).main()
