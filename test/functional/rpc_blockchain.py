#!/usr/bin/env python3
"""The chain RPCs answer as Bitcoin Core answers, on the same data.

A coinsdb node and a Bitcoin Core node from the reference build
(../shared/reference/bitcoin-core-*/bin, or $COINSDB_CORE_BIN) run side by
side and are asked the same questions; the test is skipped, saying why,
when the reference build or the shared vectors are missing.

- fresh nodes: the genesis block is the chain's block 0.
"""

import os

from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal

REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"


class RPCBlockchainTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0

    def setup_nodes(self):
        vectors = self.vectors_dir()
        if not vectors:
            raise SkipTest("no shared vectors (../shared/vectors or $COINSDB_VECTORS)")
        self.vector = os.path.join(vectors, "regtest-small")
        self.ours = self.add_node()
        self.core = self.add_core_node()
        for node in (self.ours, self.core):
            node.start()

    def run_test(self):
        self.test_fresh_nodes()

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
