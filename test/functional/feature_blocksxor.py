#!/usr/bin/env python3
"""Bitcoin Core's obfuscated block files, -reindex and -blocksxor.

Core's XOR-obfuscated blk00000.dat and its xor.dat (the vector
regtest-small-xor), put into the blocks/ of a fresh coinsdb datadir as Core
leaves them, rebuild with -reindex to the UTXO set Core reported
(regtest-small/expected.json), indexed in place: the file keeps every byte.
A block added later is appended with Core's key and survives another
-reindex. Without the key, -reindex and -reindex-chainstate refuse before
wiping anything. A new datadir gets a random key, with which its genesis
block is stored; -blocksxor=0 gives plain files and cannot disable a stored
key.
"""

import hashlib
import json
import os
import shutil
import stat
from decimal import Decimal

from test_framework.blocktools import REGTEST_MAGIC, block_hash, make_block
from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, assert_not_equal


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tree_digest(root):
    digest = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            digest[os.path.relpath(path, root)] = sha256_file(path)
    return digest


def utxo_summary(node):
    info = node.gettxoutsetinfo()
    return {k: info[k] for k in ("bestblock", "height", "hash_serialized_3", "txouts", "total_amount")}


class BlocksXorTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 2

    def setup_nodes(self):
        vectors = self.vectors_dir()
        if not vectors:
            raise SkipTest("no shared vectors (set COINSDB_VECTORS)")
        self.xor_vector = os.path.join(vectors, "regtest-small-xor")
        self.plain_vector = os.path.join(vectors, "regtest-small")
        with open(os.path.join(self.plain_vector, "expected.json"), encoding="utf8") as f:
            self.expected = json.load(f)
        self.add_nodes(self.num_nodes)

    def blocks_dir(self, node):
        return os.path.join(node.net_dir, "blocks")

    def start_and_wait_import(self, node, extra_args):
        offset = node.debug_log_size()
        node.start(extra_args)
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        return node.read_debug_log(offset)

    def run_test(self):
        self.test_reindex_core_files()
        self.test_refusals()
        self.test_blocksxor()

    def test_reindex_core_files(self):
        node = self.nodes[0]
        blocks = self.blocks_dir(node)
        self.log.info("A fresh datadir gets a random key and its genesis block, stored with that key")
        node.start()
        genesis_hex = node.getblockhash(0)
        node.stop_node()
        with open(os.path.join(blocks, "xor.dat"), "rb") as f:
            own_key = f.read()
        assert_equal(len(own_key), 8)
        assert_not_equal(own_key, bytes(8))
        assert_equal(sorted(f for f in os.listdir(blocks) if f.startswith(("blk", "rev"))), ["blk00000.dat"])
        with open(os.path.join(blocks, "blk00000.dat"), "rb") as f:
            plain = bytes(b ^ own_key[i % 8] for i, b in enumerate(f.read()))
        assert_equal(plain[:4], REGTEST_MAGIC)
        assert_equal(len(plain), 8 + int.from_bytes(plain[4:8], "little"))
        assert_equal(block_hash(plain[8:])[::-1].hex(), genesis_hex)

        self.log.info("Core's obfuscated blk00000.dat and xor.dat rebuild with -reindex to Core's UTXO set")
        for name in ("blk00000.dat", "xor.dat"):
            shutil.copyfile(os.path.join(self.xor_vector, name), os.path.join(blocks, name))
            os.chmod(os.path.join(blocks, name), stat.S_IRUSR | stat.S_IWUSR)
        core_blk = sha256_file(os.path.join(blocks, "blk00000.dat"))
        log = self.start_and_wait_import(node, ["-reindex"])
        assert "Reindexing block file blk00000.dat..." in log
        assert "Loaded %d blocks from blk00000.dat (0 bytes skipped)" % self.expected["blocks_in_file"] in log
        assert "Using obfuscation key for blocksdir *.dat files (%s): '%s'" % (blocks, self.read_key(node).hex()) in log
        want = {
            "bestblock": self.expected["base_blockhash"],
            "height": self.expected["height"],
            "hash_serialized_3": self.expected["hash_serialized_3"],
            "txouts": self.expected["txouts"],
            "total_amount": Decimal(self.expected["total_amount"]),
        }
        assert_equal(utxo_summary(node), want)
        node.stop_node()
        assert_equal(sha256_file(os.path.join(blocks, "blk00000.dat")), core_blk)

        self.log.info("The rebuilt index is kept: a plain restart has the same set")
        node.start()
        assert_equal(utxo_summary(node), want)
        node.stop_node()

        self.log.info("A new block is appended to Core's file with Core's key and survives another -reindex")
        tip = bytes.fromhex(self.expected["base_blockhash"])[::-1]
        extra = os.path.join(self.options.tmpdir, "extra.dat")
        block = make_block(tip, self.expected["height"] + 1, 2_000_000_000, [])
        with open(extra, "wb") as f:
            f.write(REGTEST_MAGIC + len(block).to_bytes(4, "little") + block)
        self.start_and_wait_import(node, ["-loadblock=" + extra])
        after_extra = utxo_summary(node)
        assert_equal(after_extra["height"], self.expected["height"] + 1)
        node.stop_node()
        with open(os.path.join(self.xor_vector, "blk00000.dat"), "rb") as f:
            core_bytes = f.read()
        with open(os.path.join(blocks, "blk00000.dat"), "rb") as f:
            stored = f.read()
        assert_equal(stored[:len(core_bytes)], core_bytes)
        key = self.read_key(node)
        appended = bytes(b ^ key[(len(core_bytes) + i) % 8] for i, b in enumerate(stored[len(core_bytes):]))
        assert_equal(appended, REGTEST_MAGIC + len(block).to_bytes(4, "little") + block)
        log = self.start_and_wait_import(node, ["-reindex"])
        assert "Loaded %d blocks from blk00000.dat" % (self.expected["blocks_in_file"] + 1) in log
        assert_equal(utxo_summary(node), after_extra)
        node.stop_node()
        self.after_extra = after_extra

    def read_key(self, node):
        with open(os.path.join(self.blocks_dir(node), "xor.dat"), "rb") as f:
            return f.read()

    def test_refusals(self):
        node = self.nodes[0]
        blocks = self.blocks_dir(node)
        xor_dat = os.path.join(blocks, "xor.dat")
        saved = os.path.join(self.options.tmpdir, "xor.dat.saved")
        shutil.move(xor_dat, saved)
        before = tree_digest(node.net_dir)
        reason = ("%s:0: wrong network magic (read as plain bytes: no key in xor.dat)"
                  % os.path.join(blocks, "blk00000.dat"))
        for option in ("-reindex-chainstate", "-reindex"):
            self.log.info("Without xor.dat, %s refuses before wiping anything", option)
            node.assert_start_raises_init_error(
                [option], "Error: %s: cannot read the block files to rebuild from (%s); nothing was wiped" % (option, reason))
            assert_equal(tree_digest(node.net_dir), before)
        shutil.move(saved, xor_dat)
        node.start()
        assert_equal(utxo_summary(node), self.after_extra)
        node.stop_node()

        self.log.info("-blocksxor=0 cannot disable a stored key")
        node.assert_start_raises_init_error(
            ["-blocksxor=0"],
            "Error: The blocksdir XOR-key can not be disabled when a random key was already stored! Stored key: '%s', "
            "stored path: '%s'." % (self.read_key(node).hex(), xor_dat))

    def test_blocksxor(self):
        node = self.nodes[1]
        self.log.info("-blocksxor=0 on a new datadir: an all-zero key and plain block files")
        offset = node.debug_log_size()
        node.start(["-blocksxor=0", "-loadblock=" + os.path.join(self.plain_vector, "blocks.dat")])
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        assert_equal(node.gettxoutsetinfo()["hash_serialized_3"], self.expected["hash_serialized_3"])
        node.stop_node()
        assert_equal(self.read_key(node), bytes(8))
        with open(os.path.join(self.blocks_dir(node), "blk00000.dat"), "rb") as f:
            assert_equal(f.read(4), REGTEST_MAGIC)
        self.log.info("... which a later start with the default -blocksxor=1 keeps")
        node.start()
        node.stop_node()
        assert_equal(self.read_key(node), bytes(8))


if __name__ == "__main__":
    BlocksXorTest(__file__).main()
