#!/usr/bin/env python3
"""Clean shutdown: SIGTERM, SIGINT and the stop RPC each end with exit code 0,
"Shutdown: done" in debug.log and the auth cookie removed; the final flush
writes every chainstate, so a restart sees the same UTXO set; a SIGTERM in
the middle of loadtxoutset abandons the load and leaves no partial
chainstate behind.
"""

import json
import os
import signal
import subprocess
import threading
from decimal import Decimal

from test_framework.authproxy import JSONRPCException
from test_framework.snapshot import NETWORK_MAGIC, Snapshot, hash_to_hex, make_coins, sha256d, utxo_stats
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal, write_file

RPC_INTERNAL_ERROR = -32603
BASE_HEIGHT = 40
LARGE_COINS = 400_000


def utxo_set_info(node):
    """gettxoutsetinfo without disk_size, LevelDB's estimate of its files,
    which compaction changes without the set changing."""
    info = node.gettxoutsetinfo()
    del info["disk_size"]
    return info


class ShutdownTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 2

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)
        self.nodes[0].start()

    def assert_clean_exit(self, node, offset):
        log = node.read_debug_log(offset)
        assert "Shutdown: In progress..." in log, log
        assert log.rstrip().endswith("Shutdown: done"), log[-500:]
        assert not os.path.exists(node.cookie_path), "the cookie outlived the node"
        assert not os.path.exists(os.path.join(node.net_dir, "bitcoind.pid"))

    def run_test(self):
        node = self.nodes[0]

        for sig in (signal.SIGTERM, signal.SIGINT):
            self.log.info("%s while idle: exit code 0, 'Shutdown: done', cookie removed", sig.name)
            assert os.path.exists(node.cookie_path)
            offset = node.debug_log_size()
            node.send_signal(sig)
            node.wait_until_stopped(expected_ret_code=0)
            self.assert_clean_exit(node, offset)
            node.start()

        self.log.info("stop RPC: answers 'coinsdb stopping', then exits cleanly")
        offset = node.debug_log_size()
        assert_equal(node.stop(), "coinsdb stopping")
        node.wait_until_stopped(expected_ret_code=0)
        self.assert_clean_exit(node, offset)

        self.test_final_flush(node)
        self.test_sigterm_during_load(self.nodes[1])

    def test_final_flush(self, node):
        coins = make_coins(seed=3, base_height=BASE_HEIGHT, groups=30)
        base = sha256d(b"feature_shutdown base")
        data = Snapshot(NETWORK_MAGIC["regtest"], base, coins).serialize()
        stats = utxo_stats(coins)
        path = os.path.join(self.options.tmpdir, "small.dat")
        write_file(path, data, "wb")
        assumeutxo = "-assumeutxo=%d:%s:%s:%d" % (BASE_HEIGHT, hash_to_hex(base), stats["hash_serialized_3"], BASE_HEIGHT + 5)
        node.extra_args = [assumeutxo, "-debug=coindb"]

        self.log.info("Final flush: load a snapshot, stop, restart: the same UTXO set")
        node.start()
        node.loadtxoutset(path)
        before = utxo_set_info(node)
        assert_equal(before["hash_serialized_3"], stats["hash_serialized_3"])
        offset = node.debug_log_size()
        node.stop_node()
        shutdown_log = node.read_debug_log(offset)
        flushes = shutdown_log[shutdown_log.index("Shutdown: In progress..."):].count("Committed ")
        # One flush per chainstate: the normal one and the snapshot one.
        assert_equal(flushes, 2)
        self.assert_clean_exit(node, offset)
        node.start()
        assert_equal(utxo_set_info(node), before)
        assert_equal(len(node.getchainstates()["chainstates"]), 2)

        self.log.info("Final flush: SIGTERM, restart: the same UTXO set")
        offset = node.debug_log_size()
        node.send_signal(signal.SIGTERM)
        node.wait_until_stopped()
        self.assert_clean_exit(node, offset)
        node.start()
        assert_equal(utxo_set_info(node), before)

        self.log.info("kill -9 after a completed load, restart: the same UTXO set")
        node.kill_process()
        node.start()
        assert_equal(utxo_set_info(node), before)
        assert_equal(node.getbestblockhash(), hash_to_hex(base))
        node.stop_node()

    def test_sigterm_during_load(self, node):
        self.log.info("SIGTERM during loadtxoutset: the load is abandoned and the node exits cleanly")
        path = os.path.join(self.options.tmpdir, "large.dat")
        done = subprocess.run([self.gensnapshot, "-output=" + path, "-coins=%d" % LARGE_COINS, "-height=300", "-seed=5"],
                              capture_output=True, text=True, check=True)
        info = json.loads(done.stdout, parse_float=Decimal)
        node.extra_args = ["-assumeutxo=%s:%d" % (info["assumeutxo"], info["nchaintx"]), "-dbcache=4"]
        node.start()
        offset = node.debug_log_size()
        outcome = []

        def load():
            try:
                outcome.append(node.rpc_proxy(timeout=120).loadtxoutset(path))
            except (OSError, JSONRPCException) as e:
                outcome.append(e)

        loader = threading.Thread(target=load)
        loader.start()
        self.wait_until(lambda: outcome or "FlushSnapshotToDisk: flushing coins cache" in node.read_debug_log(offset))
        assert not outcome, "loadtxoutset ended before the first mid-load flush: %r" % (outcome,)
        node.send_signal(signal.SIGTERM)
        loader.join()
        node.wait_until_stopped(expected_ret_code=0)
        self.assert_clean_exit(node, offset)
        error = outcome[0]
        assert isinstance(error, JSONRPCException), "loadtxoutset finished: %r" % (error,)
        assert_equal(error.error["code"], RPC_INTERNAL_ERROR)
        # The flag is checked every 120,000 coins while reading and during
        # validation; which check sees it depends on the machine's speed.
        assert error.error["message"] in [
            "Unable to load UTXO snapshot: Snapshot load interrupted by shutdown (%s)" % path,
            "Unable to load UTXO snapshot: Snapshot validation interrupted by shutdown (%s)" % path,
        ], error.error["message"]
        log = node.read_debug_log(offset)
        assert "[snapshot] load of %s failed; removed %s" % (path, node.snapshot_chainstate_dir) in log
        assert not os.path.exists(node.snapshot_chainstate_dir)

        self.log.info("SIGTERM during loadtxoutset: after a restart only the normal chainstate exists")
        node.start()
        chainstates = node.getchainstates()["chainstates"]
        assert_equal(len(chainstates), 1)
        assert_equal(chainstates[0]["blocks"], 0)
        self.log.info("SIGTERM during loadtxoutset: the same file loads afterwards")
        node.rpc_proxy(timeout=300).loadtxoutset(path)
        assert_equal(node.gettxoutsetinfo()["hash_serialized_3"], info["hash_serialized_3"])


if __name__ == "__main__":
    ShutdownTest(__file__).main()
