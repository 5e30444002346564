#!/usr/bin/env python3
"""Pruning while replaying: with -prune (and -fastprune's 64 KiB block files,
so a small generated chain is enough) old block and undo files are deleted,
storage stays near the target, the last 288 blocks stay readable, and the
UTXO set equals an unpruned replay of the same chain. A prune target below
550 MiB without -fastprune is refused.
"""

import os

from test_framework.chaingen import generate_chain
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal, assert_greater_than, assert_raises_rpc_error

BLOCKS = 800
TARGET_MIB = 5


class PruningTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 2

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def blk_files(self, node):
        return sorted(f for f in os.listdir(os.path.join(node.net_dir, "blocks")) if f.startswith("blk"))

    def run_test(self):
        chain, _ = generate_chain(self, "chain.dat", blocks=BLOCKS, seed=9, txs_per_block=40)
        unpruned, pruned = self.nodes

        self.log.info("A -prune target below 550 MiB needs -fastprune")
        pruned.assert_start_raises_init_error(["-prune=100"], "Error: Prune configured below the minimum of 550 MiB. Please use a higher number.")
        self.log.info("-prune=1, Core's manual pruning, is refused with the reason")
        pruned.assert_start_raises_init_error(["-prune=1"], "Error: -prune=1 (manual pruning with the pruneblockchain RPC) is not "
                                              "supported: coinsdb has no pruneblockchain RPC. Use -prune=<n> with n >= 550 to prune "
                                              "automatically, or -prune=0.")

        self.log.info("Unpruned replay of %d blocks", BLOCKS)
        offset = unpruned.debug_log_size()
        unpruned.start(["-loadblock=" + chain, "-fastprune"])
        unpruned.wait_for_debug_log("Block import finished", offset=offset, timeout=300)
        want = unpruned.gettxoutsetinfo()
        unpruned_size = unpruned.getblockchaininfo()["size_on_disk"]
        unpruned_files = self.blk_files(unpruned)
        assert_equal(unpruned.getblockchaininfo()["pruned"], False)
        unpruned.stop_node()

        self.log.info("Pruned replay: -prune=%d -fastprune", TARGET_MIB)
        offset = pruned.debug_log_size()
        pruned.start(["-loadblock=" + chain, "-fastprune", "-prune=%d" % TARGET_MIB, "-debug=prune"])
        pruned.wait_for_debug_log("Block import finished", offset=offset, timeout=300)
        log = pruned.read_debug_log(offset)
        assert "Pruning" in log, log[-2000:]

        self.log.info("Old files are gone, storage is near the target, the last 288 blocks are kept")
        files = self.blk_files(pruned)
        assert_greater_than(len(unpruned_files), len(files))
        assert "blk00000.dat" not in files
        info = pruned.getblockchaininfo()
        assert_equal(info["pruned"], True)
        # The target is above what the last 288 blocks need, so pruning can
        # keep usage under it; each block is checked, so the overshoot is at
        # most the block (and undo) written since the last check.
        assert_greater_than(unpruned_size, TARGET_MIB * 1024 * 1024)
        assert_greater_than(TARGET_MIB * 1024 * 1024 + 256 * 1024, info["size_on_disk"])
        # The last 288 blocks (heights BLOCKS-287 .. BLOCKS) always keep their data.
        assert_greater_than(BLOCKS - 287 + 1, info["pruneheight"])
        assert_greater_than(info["pruneheight"], 0)
        for height in (BLOCKS - 288, BLOCKS):
            pruned.getblockheader(pruned.getblockhash(height))
        assert_equal((info["automatic_pruning"], info["prune_target_size"]), (True, TARGET_MIB * 1024 * 1024))

        self.log.info("dumptxoutset rollback: refused with Core's error when a block to undo is pruned")
        # Undoing down to a height needs every block above it; the block at
        # pruneheight - 1 is gone, so pruneheight - 2 cannot be reached.
        assert_raises_rpc_error(-1, "Could not roll back to requested height since necessary block data is already pruned.",
                                pruned.dumptxoutset, "below.dat", "", {"rollback": info["pruneheight"] - 2})
        assert not os.path.exists(os.path.join(pruned.net_dir, "below.dat"))
        kept = pruned.dumptxoutset("kept.dat", "", {"rollback": info["pruneheight"] - 1})
        assert_equal((kept["base_height"], kept["base_hash"]), (info["pruneheight"] - 1, pruned.getblockhash(info["pruneheight"] - 1)))

        self.log.info("The pruned node's UTXO set equals the unpruned one")
        got = pruned.gettxoutsetinfo()
        for key in ("bestblock", "height", "hash_serialized_3", "txouts", "total_amount"):
            assert_equal(got[key], want[key])

        self.log.info("Restart: still pruned, same UTXO set")
        pruned.stop_node()
        pruned.start(["-fastprune", "-prune=%d" % TARGET_MIB])
        assert_equal(pruned.gettxoutsetinfo()["hash_serialized_3"], want["hash_serialized_3"])
        assert_equal(pruned.getblockchaininfo()["pruned"], True)
        pruned.stop_node()


if __name__ == "__main__":
    PruningTest(__file__).main()
