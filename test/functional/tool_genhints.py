#!/usr/bin/env python3
"""coinsdb-genhints on a generated chain: the hints written from a
dumptxoutset snapshot and from the stopped node's chainstate (with
-loadblock's file, and with the datadir's own block files) are the same
bytes; the SHA-256 and block hash it prints are the file's and the tip's;
the outputs the file names, decoded against the blocks, are exactly the
snapshot's coins, and the spendable outputs it counts are the blocks'; a
snapshot at another height is refused with -height,
and an existing output file is not overwritten.
"""

import hashlib
import json
import os
import subprocess

from test_framework.blocktools import read_block_records
from test_framework.chaingen import generate_chain
from test_framework.hints import parse_block, spendable
from test_framework.snapshot import Snapshot, hash_to_hex
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal

BLOCKS = 130


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class GenHintsTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def genhints(self, *args, expect_error=None):
        tool = os.path.join(os.path.dirname(self.gensnapshot), "coinsdb-genhints")
        done = subprocess.run([tool, "-chain=regtest"] + list(args), capture_output=True, text=True, timeout=300)
        if expect_error is not None:
            assert_equal((done.returncode, done.stdout, done.stderr), (1, "", "Error: %s\n" % expect_error))
            return None
        assert_equal((done.returncode, done.stderr), (0, ""))
        return done.stdout

    def run_test(self):
        node = self.nodes[0]
        tmp = self.options.tmpdir
        self.log.info("Generate a %d-block chain with coinsdb-genchain and replay it with -loadblock", BLOCKS)
        chain, _ = generate_chain(self, "chain.dat", blocks=BLOCKS, seed=35, txs_per_block=30)
        offset = node.debug_log_size()
        node.start(["-loadblock=" + chain])
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        assert_equal(node.getblockcount(), BLOCKS)
        tip = node.getbestblockhash()

        self.log.info("Dump the UTXO set at the tip with bitcoin-cli dumptxoutset, and one 30 blocks below")
        snapshot = os.path.join(tmp, "tip.dat")
        node.cli.dumptxoutset(snapshot, "latest")
        older = os.path.join(tmp, "older.dat")
        node.dumptxoutset(older, "", {"rollback": BLOCKS - 30})
        with open(snapshot, "rb") as f:
            coins = Snapshot.parse(f.read())
        assert_equal(coins.base_blockhash_hex, tip)

        self.log.info("genhints from the snapshot prints H, the tip's hash, the file's SHA-256 and size")
        from_snapshot = os.path.join(tmp, "snapshot.hints")
        report = json.loads(self.genhints("-output=" + from_snapshot, "-snapshot=" + snapshot, "-loadblock=" + chain))
        assert_equal(report["height"], BLOCKS)
        assert_equal(report["blockhash"], tip)
        assert_equal(report["coins"], len(coins.coins))
        # The spendable outputs of blocks 1..H, counted here from the blocks.
        blocks = read_block_records(chain)
        blocks = blocks[1:] if blocks[0][4:36] == b"\0" * 32 else blocks
        assert_equal(report["outputs"], sum(1 for raw in blocks[:BLOCKS] for _, _, outputs in parse_block(raw)
                                            for _, script in outputs if spendable(script)))
        assert_equal(report["sha256"], sha256_file(from_snapshot))
        assert_equal(report["bytes"], os.path.getsize(from_snapshot))
        with open(from_snapshot, "rb") as f:
            assert_equal(f.read(9), b"UTXO\x00" + BLOCKS.to_bytes(4, "little"))

        self.log.info("The outputs the file names, decoded against the blocks, are exactly the snapshot's coins")
        listing = self.genhints("-print=" + from_snapshot, "-blockhash=" + tip, "-loadblock=" + chain)
        hinted = sorted(line.split()[1] for line in listing.splitlines())
        assert_equal(hinted, sorted("%s:%d" % (hash_to_hex(txid), vout) for txid, vout, _ in coins.coins))

        self.log.info("genhints from the stopped node's chainstate writes the same bytes, with -loadblock and with the datadir's blocks")
        node.stop_node()
        from_chainstate = os.path.join(tmp, "chainstate.hints")
        report_db = json.loads(self.genhints("-output=" + from_chainstate, "-datadir=" + node.datadir, "-loadblock=" + chain))
        from_datadir = os.path.join(tmp, "datadir.hints")
        report_dir = json.loads(self.genhints("-output=" + from_datadir, "-datadir=" + node.datadir, "-height=%d" % BLOCKS))
        for path, rep in ((from_chainstate, report_db), (from_datadir, report_dir)):
            with open(path, "rb") as a, open(from_snapshot, "rb") as b:
                assert a.read() == b.read(), path
            assert_equal((rep["height"], rep["blockhash"], rep["sha256"]), (BLOCKS, tip, report["sha256"]))

        self.log.info("A snapshot at another height is refused when -height names H; an existing output is kept")
        with open(older, "rb") as f:
            older_base = Snapshot.parse(f.read()).base_blockhash_hex
        refused = os.path.join(tmp, "older.hints")
        self.genhints("-output=" + refused, "-snapshot=" + older, "-loadblock=" + chain, "-height=%d" % BLOCKS,
                      expect_error="the UTXO set's base block %s is at height %d, not at -height=%d" % (older_base, BLOCKS - 30, BLOCKS))
        assert not os.path.exists(refused) and not os.path.exists(refused + ".incomplete")
        self.genhints("-output=" + from_snapshot, "-snapshot=" + snapshot, "-loadblock=" + chain,
                      expect_error="%s already exists: remove it or choose another -output" % from_snapshot)

        self.log.info("Without -height, the older snapshot gives the hints for its own height")
        report_old = json.loads(self.genhints("-output=" + refused, "-snapshot=" + older, "-loadblock=" + chain))
        assert_equal((report_old["height"], report_old["blockhash"]), (BLOCKS - 30, older_base))


if __name__ == "__main__":
    GenHintsTest(__file__).main()
