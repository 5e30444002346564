#!/usr/bin/env python3
"""Writes of the coins cache that keep it (a Sync) rather than empty it (a
Flush), while replaying a generated chain with a -dbcache far above what the
chain needs, so the cache is never over budget:

- prune-triggered writes (-prune with -fastprune): blocks are pruned and the
  coins written, yet every unspent coin stays cached, with nothing dirty;
- the periodic write (-flushinterval): a block connected after the interval
  is written, and the cache keeps every unspent coin; without the option the
  same replay writes nothing;
- gettxoutsetinfo and dumptxoutset write the dirty coins, drop the spent
  ones and keep the unspent ones cached, then change nothing on a repeat;
- a node killed with -9 after a prune or periodic write restarts at the
  written tip with the same UTXO set.

"Every unspent coin stays cached" is checked exactly: getcoinscacheinfo's
cache_entries equals the chain's UTXO count. A Flush anywhere in the replay
would have dropped the coins that no later block touched.
"""

import errno
import os
import time
from decimal import Decimal

from test_framework.blocktools import read_block_records, write_block_records
from test_framework.chaingen import generate_chain
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal, assert_greater_than, assert_in, assert_not_in

BLOCKS = 400
TXS_PER_BLOCK = 40
PRUNE_TARGET_MIB = 1
FLUSH_INTERVAL = 1
# Far above the few MiB the chain's coins take: the cache is never full.
DBCACHE_MIB = 1000
COMMITTED = "[coindb] Committed "
STATS_KEYS = ("bestblock", "height", "hash_serialized_3", "txouts", "transactions", "total_amount", "bogosize")


def utxo_stats(node):
    info = node.gettxoutsetinfo()
    return {k: info[k] for k in STATS_KEYS}


def cache_state(node):
    """The parts of getcoinscacheinfo a write may change."""
    info = node.getcoinscacheinfo()
    return {"entries": info["cache_entries"], "dirty": info["dirty_entries"], "bytes": info["cache_bytes"],
            "last_flush": info["last_flush"]}


class FlushTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 3

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def run_test(self):
        self.chain, self.report = generate_chain(self, "chain.dat", blocks=BLOCKS, seed=5, txs_per_block=TXS_PER_BLOCK)
        self.utxos = self.report["utxos"]
        self.test_rpc_sync()
        self.test_prune_sync()
        self.test_periodic_sync()

    def replay(self, node, files, extra_args):
        offset = node.debug_log_size()
        node.start(["-loadblock=" + f for f in files] + ["-dbcache=%d" % DBCACHE_MIB, "-debug=coindb"] + extra_args)
        node.wait_for_debug_log("Block import finished: tip at height %d" % BLOCKS, offset=offset, timeout=120)
        log = node.read_debug_log(offset)
        # Only the replay: start-up writes the genesis state first.
        return log[log.index("Importing blocks file "):]

    def assert_tip(self, node):
        assert_equal(node.getblockcount(), BLOCKS)
        assert_equal(node.getbestblockhash(), self.report["tip_hash"])

    def assert_all_unspent_cached(self, node):
        """Nothing dirty and every unspent coin of the chain in the cache."""
        state = cache_state(node)
        assert_equal(state["dirty"], 0)
        assert_equal(state["entries"], self.utxos)
        return state

    def assert_sync_keeps_cache(self, node, state):
        """gettxoutsetinfo and dumptxoutset on a clean cache write nothing
        and leave the cache as it is."""
        stats = utxo_stats(node)
        assert_equal(stats["txouts"], self.utxos)
        after = cache_state(node)
        assert_equal((after["entries"], after["dirty"], after["bytes"]), (state["entries"], 0, state["bytes"]))
        assert_equal((after["last_flush"]["changed"], after["last_flush"]["visited"]), (0, 0))
        path = os.path.join(self.options.tmpdir, "dump%d.dat" % node.index)
        dump = node.dumptxoutset(path, "latest")
        assert_equal((dump["coins_written"], dump["txoutset_hash"]), (self.utxos, stats["hash_serialized_3"]))
        after = cache_state(node)
        assert_equal((after["entries"], after["dirty"], after["bytes"]), (state["entries"], 0, state["bytes"]))
        assert_equal((after["last_flush"]["changed"], after["last_flush"]["visited"]), (0, 0))
        return stats

    def assert_survives_kill(self, node, stats, restart_args):
        self.log.info("kill -9 with nothing unwritten, restart without -loadblock: the written tip and UTXO set")
        info = node.getcoinscacheinfo()
        assert_equal(info["dirty_entries"], 0)
        # Started without coins, the chainstate has a txid filter, a
        # sixteenth of the budget up to 32 MiB; restarted with coins, it has
        # none.
        assert_equal(info["txid_filter_bytes"], min(info["cache_budget_bytes"] // 16 // 8 * 8, 32 << 20))
        node.kill_process()
        node.start(restart_args)
        self.assert_tip(node)
        info = node.getcoinscacheinfo()
        assert_equal((info["cache_entries"], info["txid_filter_bytes"]), (0, 0))
        assert_equal(utxo_stats(node), stats)
        node.stop_node()

    def test_rpc_sync(self):
        node = self.nodes[2]
        self.log.info("Replay of %d blocks with -dbcache=%d and no -flushinterval: nothing is written", BLOCKS, DBCACHE_MIB)
        log = self.replay(node, [self.chain], [])
        assert_not_in(COMMITTED, log)
        self.assert_tip(node)
        before = cache_state(node)
        # Every entry is dirty; spent coins that were not created fresh (the
        # coinbase outputs) are still there, so there are more than the
        # unspent ones.
        assert_equal(before["dirty"], before["entries"])
        assert_greater_than(before["entries"], self.utxos)

        self.log.info("gettxoutsetinfo writes the %d dirty entries, drops the spent ones and keeps the %d unspent coins",
                      before["dirty"], self.utxos)
        stats = utxo_stats(node)
        assert_equal(stats["txouts"], self.utxos)
        assert_equal(stats["total_amount"], Decimal(self.report["total_amount"]))
        after = self.assert_all_unspent_cached(node)
        assert_equal(after["last_flush"]["changed"], before["dirty"])
        assert_equal(after["last_flush"]["visited"], before["dirty"])

        self.log.info("gettxoutsetinfo and dumptxoutset again: nothing to write, the cache unchanged")
        stats = self.assert_sync_keeps_cache(node, after)
        # The RPC's write puts the block index on disk first, so the
        # chainstate's best block is known after a crash.
        self.assert_survives_kill(node, stats, [])

    def test_prune_sync(self):
        node = self.nodes[0]
        prune_args = ["-fastprune", "-prune=%d" % PRUNE_TARGET_MIB]
        self.log.info("Replay with -prune=%d -fastprune -dbcache=%d: prune-triggered writes", PRUNE_TARGET_MIB, DBCACHE_MIB)
        log = self.replay(node, [self.chain], prune_args + ["-debug=prune"])
        self.assert_tip(node)
        prunes = log.count("[prune] Pruning ")
        writes = log.count(COMMITTED)
        self.log.info("%d prunes, %d coins writes during the replay", prunes, writes)
        assert_greater_than(prunes, 0)
        # Storage is over the target from early on, so each block from
        # then on is written, and the writes outnumber the prunes.
        assert_greater_than(writes, prunes)
        assert_not_in("blk00000.dat", os.listdir(os.path.join(node.net_dir, "blocks")))
        assert_equal(node.getblockchaininfo()["pruned"], True)

        self.log.info("After the prune writes every unspent coin is still cached and nothing is dirty")
        # The last block was written too: storage stays over the 1 MiB
        # target, as the last 288 blocks alone take more.
        state = self.assert_all_unspent_cached(node)

        self.log.info("gettxoutsetinfo and dumptxoutset leave the cache as it is")
        stats = self.assert_sync_keeps_cache(node, state)
        self.assert_survives_kill(node, stats, prune_args)

    def test_periodic_sync(self):
        node = self.nodes[1]
        self.log.info("-flushinterval=%d: the block connected after the interval is written", FLUSH_INTERVAL)
        # The last block comes in a file of its own, read after a named
        # pipe: the import waits on the pipe until the test opens it, which
        # it does once the interval has passed since the last write, at the
        # latest the last block before the pipe.
        records = read_block_records(self.chain)
        assert_equal(len(records), BLOCKS + 1)
        head = os.path.join(self.options.tmpdir, "head.dat")
        last = os.path.join(self.options.tmpdir, "last.dat")
        pipe = os.path.join(self.options.tmpdir, "pipe.dat")
        write_block_records(head, records[:-1])
        write_block_records(last, records[-1:])
        os.mkfifo(pipe)

        offset = node.debug_log_size()
        node.start(["-loadblock=" + head, "-loadblock=" + pipe, "-loadblock=" + last, "-dbcache=%d" % DBCACHE_MIB,
                    "-debug=coindb", "-flushinterval=%d" % FLUSH_INTERVAL])
        node.wait_for_debug_log("Importing blocks file %s..." % pipe, offset=offset, timeout=120)
        assert_equal(node.getblockcount(), BLOCKS - 1)
        time.sleep(FLUSH_INTERVAL + 0.2)
        released = node.debug_log_size()
        fd = self.wait_until(lambda: self.open_pipe_for_writing(pipe))
        os.close(fd)
        node.wait_for_debug_log("Block import finished: tip at height %d" % BLOCKS, offset=released, timeout=60)
        log = node.read_debug_log(released)
        assert_in("Could not open blocks file %s" % pipe, log)
        self.assert_tip(node)

        self.log.info("Exactly one write, made when block %d was connected", BLOCKS)
        assert_equal(log.count(COMMITTED), 1)
        tip_line = log.index("UpdateTip: new best=%s height=%d " % (self.report["tip_hash"], BLOCKS))
        assert tip_line < log.index(COMMITTED) < log.index("Block import finished")
        state = self.assert_all_unspent_cached(node)
        assert_greater_than(state["last_flush"]["changed"], 0)

        self.log.info("gettxoutsetinfo and dumptxoutset leave the cache as it is")
        stats = self.assert_sync_keeps_cache(node, state)
        self.assert_survives_kill(node, stats, [])

    @staticmethod
    def open_pipe_for_writing(path):
        """A write end of the pipe once the node has opened its read end,
        else None."""
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            return None


if __name__ == "__main__":
    FlushTest(__file__).main()
