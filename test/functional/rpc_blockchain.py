#!/usr/bin/env python3
"""The chain RPCs answer as Bitcoin Core answers, on the same data.

A coinsdb node and a Bitcoin Core node from the reference build
(../shared/reference/bitcoin-core-*/bin, or $COINSDB_CORE_BIN) run side by
side and are asked the same questions; the test is skipped, saying why,
when the reference build or the shared vectors are missing.

- fresh nodes: the genesis block is the chain's block 0.
- Core's regtest-small chain (160 blocks and a 3-block stale branch,
  blocks.dat) replayed with -loadblock: dumptxoutset writes the same file
  and reports the same figures, nchaintx counting the chain's transactions
  (expected.json's 203, not height + 1).
"""

import json
import os

from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, sha256sum_file

REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"


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
        self.ours = self.add_node()
        self.core = self.add_core_node()
        for node in (self.ours, self.core):
            node.start()

    def run_test(self):
        self.test_fresh_nodes()
        self.replay_vector_chain()
        self.test_dump_latest()

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
        ours, core = self.ours.getblockchaininfo(), self.core.getblockchaininfo()
        for key in ("blocks", "headers", "bestblockhash", "chainwork", "size_on_disk", "pruned"):
            assert_equal((key, ours[key]), (key, core[key]))


if __name__ == "__main__":
    RPCBlockchainTest(__file__).main()
