#!/usr/bin/env python3
"""The memory bound of a snapshot load (doc/reliability.md, "Memory of a
snapshot load"): loading 20,000 coins whose scripts are 10,000 bytes (the
largest a coin stores, of no compressible shape) at -dbcache=4 and 64, the
node's peak resident set (VmHWM) minus its resident set once started and
idle stays within -dbcache, plus one write batch (the 32 MiB default, or the
coins cache's share of -dbcache when that is smaller: a flush writes no more
than the cache holds), plus the stated fixed overhead. Before the bound
held, such a load peaked about 240 MiB over the idle node at any -dbcache,
for the snapshot reader's chunks of 4096 coins.
"""

import os

from test_framework.snapshot import NETWORK_MAGIC, Coin, Snapshot, hash_serialized_3, hash_to_hex, sha256d
from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, write_file

MIB = 1 << 20
COINS = 20_000
SCRIPT_BYTES = 10_000
BASE_HEIGHT = 110
BASE_NCHAINTX = 111
DEFAULT_BATCH = 32 * MIB
# doc/reliability.md names what this covers, item by item: 16 MiB
# measured with glibc's malloc, and 4 MiB that mimalloc's delay in
# returning freed pages adds (21.7-21.9 MiB over the idle node at
# -dbcache=4, 17.7 with glibc).
FIXED_OVERHEAD = 20 * MIB


def coins_cache_share(dbcache):
    """kernel::CacheSizes: what of -dbcache the coins cache gets."""
    block_tree = min(dbcache // 8, 2 * MIB)
    coins_db = min((dbcache - block_tree) // 2, 8 * MIB)
    return dbcache - block_tree - coins_db


def status_kib(pid, field):
    with open("/proc/%d/status" % pid, encoding="utf8") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


class MemoryBoundTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0

    def run_test(self):
        # A sanitizer build's allocator holds freed memory in quarantine and
        # maps shadow memory: its resident set says nothing about coinsdb's
        # bound (an ASan build measured 124 MiB over idle at -dbcache=4).
        with open(self.bitcoind, "rb") as binary:
            image = binary.read()
        if b"__asan_init" in image or b"__tsan_init" in image:
            raise SkipTest("%s is a sanitizer build: its memory is not coinsdb's" % self.bitcoind)
        self.log.info("Build %d coins with %d-byte scripts", COINS, SCRIPT_BYTES)
        coins = []
        for i in range(COINS):
            txid = sha256d(b"memory bound tx" + (i // 2).to_bytes(4, "little"))
            # Distinct per coin, and not one of the compressed shapes.
            script = (sha256d(i.to_bytes(4, "little")) * (SCRIPT_BYTES // 32 + 1))[:SCRIPT_BYTES]
            coins.append((txid, i % 2, Coin(BASE_HEIGHT - 1, False, 1000 + i, script)))
        base = sha256d(b"coinsdb memory bound base block")
        snapshot = Snapshot(NETWORK_MAGIC["regtest"], base, coins)
        path = os.path.join(self.options.tmpdir, "big_scripts.dat")
        write_file(path, snapshot.serialize(), "wb")
        expected = hash_serialized_3(snapshot.coins)
        assumeutxo = "-assumeutxo=%d:%s:%s:%d" % (BASE_HEIGHT, hash_to_hex(base), expected, BASE_NCHAINTX)

        for dbcache_mib in (4, 64):
            dbcache = dbcache_mib * MIB
            node = self.add_node([assumeutxo, "-dbcache=%d" % dbcache_mib, "-debug=coindb"])
            node.start()
            pid = node.process.pid
            idle = status_kib(pid, "VmRSS") * 1024
            result = node.loadtxoutset(path)
            assert_equal(result["coins_loaded"], COINS)
            peak = status_kib(pid, "VmHWM") * 1024
            node.stop_node()
            batch = min(DEFAULT_BATCH, coins_cache_share(dbcache))
            bound = dbcache + batch + FIXED_OVERHEAD
            added = peak - idle
            self.log.info("-dbcache=%d: idle %.1f MiB, peak %.1f MiB, added %.1f MiB, bound %.1f MiB (%d + %.2f batch + %d fixed)",
                          dbcache_mib, idle / MIB, peak / MIB, added / MIB, bound / MIB, dbcache_mib, batch / MIB,
                          FIXED_OVERHEAD // MIB)
            assert added <= bound, "-dbcache=%d: the load added %.1f MiB over the idle node, past the %.1f MiB bound" % (
                dbcache_mib, added / MIB, bound / MIB)


if __name__ == "__main__":
    MemoryBoundTest(__file__).main()
