#!/usr/bin/env python3
"""-prevoutfetchthreads: block replay with a block's inputs read ahead on
worker threads gives the UTXO set replay without them gives.

A chain from coinsdb-genchain is replayed with -loadblock under a 4 MiB
-dbcache (so the coins cache is written out several times on the way) with
0, 1 and 2 fetch threads and with 40 (capped at 16): every run ends at the
same tip and the same gettxoutsetinfo, hash_serialized_3 included, which
is the generator's own count of coins and amount. The runs with workers
write the coins cache at the same blocks, with the same number of writes,
and their workers really read inputs and look up the outputs the BIP30
check asks for: the summary logged after the import says how many of
each they read (the same answers come out when the connecting thread
reads everything itself, so only these counts show that the workers ran). -reindex-chainstate with 2 threads rebuilds
that set again, its workers reading too. A negative or
non-numeric value stops start-up with its error, before anything is
written.
"""

import os
import re
import shutil
from decimal import Decimal

from test_framework.chaingen import generate_chain
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal

STATS_KEYS = ("bestblock", "height", "hash_serialized_3", "txouts", "transactions", "total_amount", "bogosize")
CHAIN_BLOCKS = 160


def flush_heights(log):
    """The heights after which replay wrote the coins cache: the BatchWrite
    line follows the UpdateTip of the block it was written after."""
    lines = log.splitlines()
    return [line.split(" height=")[1].split(" ")[0] for line, following in zip(lines, lines[1:])
            if "UpdateTip" in line and "BatchWrite took=" in following]


def fetch_summary(log):
    """(inputs the workers read, inputs queued, outputs they looked up,
    outputs queued) from the line logged after the import; None when there
    is none (no fetch threads)."""
    found = re.findall(r"Block input prevout fetching: the workers read (\d+) of the (\d+) inputs queued, "
                       r"and looked up (\d+) of the (\d+) outputs the BIP30 check queued", log)
    assert len(found) <= 1, found
    return tuple(int(n) for n in found[0]) if found else None


def assert_workers_read(summary):
    assert summary is not None
    read, queued, looked_up, outputs = summary
    assert 0 < read <= queued, summary
    assert 0 < looked_up <= outputs, summary


def utxo_stats(node):
    info = node.gettxoutsetinfo()
    return {key: info[key] for key in STATS_KEYS}


class PrevoutFetchThreadsTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def fresh_datadir(self, node):
        for sub in ("chainstate", "blocks"):
            shutil.rmtree(os.path.join(node.net_dir, sub), ignore_errors=True)

    def replay(self, node, threads):
        """Replays the chain into an empty datadir; returns the UTXO stats
        and the import's log."""
        self.fresh_datadir(node)
        offset = node.debug_log_size()
        node.start(["-loadblock=" + self.chain_path, "-dbcache=4", "-prevoutfetchthreads=%s" % threads])
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        stats = utxo_stats(node)
        node.stop_node()
        return stats, node.read_debug_log(offset)

    def run_test(self):
        node = self.nodes[0]
        self.chain_path, report = generate_chain(self, "chain.dat", blocks=CHAIN_BLOCKS, seed=23, txs_per_block=400,
                                                 target_utxos=60000)

        self.log.info("A negative or non-numeric -prevoutfetchthreads stops start-up with its error")
        node.assert_start_raises_init_error(
            ["-prevoutfetchthreads=-1"],
            "Error: -prevoutfetchthreads must be non-negative (got -1). Use 0 to disable parallel input fetching.")
        node.assert_start_raises_init_error(
            ["-prevoutfetchthreads=two"],
            "Error: Invalid -prevoutfetchthreads value 'two': expected an integer")
        # Refused before the chainstate was created or wiped.
        assert not os.path.exists(os.path.join(node.net_dir, "chainstate"))

        self.log.info("Replay with 0, 1, 2 and 40 fetch threads ends at the same UTXO set")
        runs = {}
        for threads in ("0", "1", "2", "40"):
            stats, log = self.replay(node, threads)
            self.log.info("  -prevoutfetchthreads=%s: hash_serialized_3 %s, %d coins, %d cache writes", threads,
                          stats["hash_serialized_3"], stats["txouts"], log.count("BatchWrite took="))
            runs[threads] = (stats, log)
            shown = {"0": None, "1": 1, "2": 2, "40": 16}[threads]
            summary = fetch_summary(log)
            if shown is None:
                assert "Block input prevout fetching uses" not in log, log[-2000:]
                assert_equal(summary, None)
            else:
                assert "Block input prevout fetching uses %d additional threads" % shown in log, log[-2000:]
                self.log.info("  the workers read %d of the %d inputs queued and looked up %d of the %d outputs", *summary)
                assert_workers_read(summary)
        want = runs["0"][0]
        for threads, (stats, _) in runs.items():
            assert_equal(stats, want)
        assert_equal(want["height"], CHAIN_BLOCKS)
        assert_equal(want["bestblock"], report["tip_hash"])
        assert_equal(want["txouts"], report["utxos"])
        assert_equal(want["total_amount"], Decimal(report["total_amount"]))
        # The same blocks queue the same inputs, however many read them.
        queued = {threads: fetch_summary(log)[1] for threads, (_, log) in runs.items() if threads != "0"}
        assert_equal(queued["2"], queued["1"])
        assert_equal(queued["40"], queued["1"])

        self.log.info("With workers, the coins cache is written at the same blocks whatever their number")
        writes = {threads: log.count("BatchWrite took=") for threads, (_, log) in runs.items()}
        assert writes["1"] > 2, writes
        assert_equal(writes["2"], writes["1"])
        assert_equal(writes["40"], writes["1"])
        flushed_at = {threads: flush_heights(log) for threads, (_, log) in runs.items()}
        self.log.info("  written after heights %s (1 thread), %s (0 threads)", flushed_at["1"], flushed_at["0"])
        assert_equal(flushed_at["2"], flushed_at["1"])
        assert_equal(flushed_at["40"], flushed_at["1"])

        self.log.info("-reindex-chainstate with 2 fetch threads rebuilds the same set")
        offset = node.debug_log_size()
        node.start(["-reindex-chainstate", "-prevoutfetchthreads=2"])
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        assert_equal(utxo_stats(node), want)
        node.stop_node()
        summary = fetch_summary(node.read_debug_log(offset))
        assert_workers_read(summary)
        assert_equal(summary[1], queued["1"])


if __name__ == "__main__":
    PrevoutFetchThreadsTest(__file__).main()
