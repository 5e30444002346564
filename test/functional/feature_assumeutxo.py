#!/usr/bin/env python3
"""loadtxoutset / dumptxoutset / gettxoutsetinfo against snapshots from three
sources, each checked against figures computed outside the node:

- the Bitcoin Core vectors in ../shared/vectors (or $COINSDB_VECTORS): the
  figures Core reported, and byte-identical re-dumps;
- a small UTXO set built here in Python with every script shape, whose
  hash_serialized_3 and statistics test_framework/snapshot.py computes;
- a 400,000-coin coinsdb-gensnapshot file loaded with -dbcache=4, so that the
  cache is flushed several times mid-load.

Every bad snapshot changes one field of a valid file, must fail with its
exact error, must leave no chainstate_snapshot/ behind, and must not stop the
same node from loading the good file afterwards. A node killed with -9 during
a load must come back with only its normal chainstate. A normal chainstate
that connected blocks before the load reports the same getchainstates after
a restart, when its blocks are no longer replayed.
"""

import json
import os
import re
import struct
import subprocess
import threading
from decimal import Decimal

from test_framework.authproxy import JSONRPCException
from test_framework.chaingen import generate_chain
from test_framework.snapshot import (
    COIN,
    FIELD_BASE_HASH,
    FIELD_COINS_COUNT,
    FIELD_MAGIC,
    FIELD_NETWORK,
    FIELD_VERSION,
    MAX_MONEY,
    NETWORK_MAGIC,
    Coin,
    Snapshot,
    hash_to_hex,
    make_coins,
    outpoint_string,
    replace_bytes,
    sha256d,
    ser_compact_size,
    utxo_stats,
    with_header_field,
)
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import (
    assert_amount,
    assert_equal,
    assert_greater_than,
    assert_in,
    assert_raises_rpc_error,
    sha256sum_file,
    write_file,
)

RPC_INTERNAL_ERROR = -32603
RPC_INVALID_PARAMETER = -8
RPC_DESERIALIZATION_ERROR = -22
# The bad-snapshot cases whose error is in the file's header.
METADATA_ERRORS = {"bad_magic", "version_1", "version_3", "network_main", "network_signet", "network_unknown", "truncated_header"}
# Upstream's PopulateAndValidateSnapshot checks the cache size every 120,000
# coins; coinsdb keeps that interval.
# The snapshot chainstate's share of -dbcache=4: 99% of 1.75 MiB, in MB.
SNAPSHOT_CACHE_BUDGET_MB = 0.99 * 1.75 * 1024 * 1024 / 1e6
LARGE_COINS = 400_000
GENERATED_HEIGHT = 50
GENERATED_NCHAINTX = 77
# Blocks the normal chainstate connects before a snapshot is loaded.
BACKGROUND_BLOCKS = 20


def assumeutxo_arg(height, blockhash_hex, hash_hex, nchaintx):
    return "-assumeutxo=%d:%s:%s:%d" % (height, blockhash_hex, hash_hex, nchaintx)


class AssumeutxoTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0

    def run_test(self):
        self.test_generated_snapshot()
        self.test_vectors()
        self.test_large_snapshot()

    # Helpers -----------------------------------------------------------------

    def write(self, name, data):
        path = os.path.join(self.options.tmpdir, name)
        write_file(path, data, "wb")
        return path

    def assert_no_snapshot_chainstate(self, node):
        assert not os.path.exists(node.snapshot_chainstate_dir), "%s left behind" % node.snapshot_chainstate_dir
        chainstates = node.getchainstates()["chainstates"]
        assert_equal(len(chainstates), 1)
        assert_equal(chainstates[0]["validated"], True)
        assert_equal(node.getblockcount(), 0)

    def assert_load_error(self, node, name, data, what):
        """Loads data written to name; expects the loader's error what: as
        Core, RPC_DESERIALIZATION_ERROR for a bad header (metadata),
        RPC_INTERNAL_ERROR naming the file for the rest."""
        path = self.write(name, data)
        if any(name.endswith("_%s.dat" % case) for case in METADATA_ERRORS):
            code, message = RPC_DESERIALIZATION_ERROR, "Unable to parse metadata: %s" % what
        else:
            code, message = RPC_INTERNAL_ERROR, "Unable to load UTXO snapshot: %s (%s)" % (what, path)
        assert_raises_rpc_error(code, message, node.loadtxoutset, path)
        self.assert_no_snapshot_chainstate(node)

    def check_snapshot_chainstate(self, node, *, base_hex, height, stats):
        """The snapshot chainstate is active, at base_hex, holding stats."""
        info = node.getchainstates()
        assert_equal(info["headers"], height)
        chainstates = info["chainstates"]
        assert_equal(len(chainstates), 2)
        assert_equal(chainstates[0]["validated"], True)
        assert_equal(chainstates[0]["blocks"], 0)
        assert "snapshot_blockhash" not in chainstates[0]
        assert_equal(chainstates[1]["snapshot_blockhash"], base_hex)
        assert_equal(chainstates[1]["bestblockhash"], base_hex)
        assert_equal(chainstates[1]["blocks"], height)
        assert_equal(chainstates[1]["validated"], False)
        assert_equal(node.getbestblockhash(), base_hex)
        assert_equal(node.getblockcount(), height)
        txoutset = node.gettxoutsetinfo()
        assert_equal(txoutset["bestblock"], base_hex)
        assert_equal(txoutset["height"], height)
        for key in ("hash_serialized_3", "txouts", "transactions", "bogosize"):
            assert_equal(txoutset[key], stats[key])
        assert_amount(txoutset["total_amount"], int(Decimal(stats["total_amount"]) * COIN))

    def check_gettxout(self, node, snapshot_coins, height, indexes):
        for i in indexes:
            txid, vout, coin = snapshot_coins[i]
            out = node.gettxout(hash_to_hex(txid), vout)
            assert_amount(out["value"], coin.amount)
            assert_equal(out["scriptPubKey"]["hex"], coin.script.hex())
            assert_equal(out["coinbase"], coin.coinbase)
            assert_equal(out["confirmations"], height - coin.height + 1)

    def bad_snapshot_cases(self, data, snapshot, *, base_height, expected_hash):
        """(name, bytes, expected error) for one-field changes of a valid
        file. Offsets in the messages are where the node's reader stands."""
        entries = snapshot.entries
        count = len(entries)
        cases = [
            ("bad_magic", with_header_field(data, FIELD_MAGIC, b"utxo\xfe"),
             "Invalid UTXO set snapshot magic bytes: this is not a snapshot file, or one in an outdated format"),
            ("version_1", with_header_field(data, FIELD_VERSION, struct.pack("<H", 1)),
             "Unsupported snapshot version 1: this node reads version 2"),
            ("version_3", with_header_field(data, FIELD_VERSION, struct.pack("<H", 3)),
             "Unsupported snapshot version 3: this node reads version 2"),
            ("network_main", with_header_field(data, FIELD_NETWORK, NETWORK_MAGIC["main"]),
             "The snapshot is for main but this node runs on regtest"),
            ("network_signet", with_header_field(data, FIELD_NETWORK, NETWORK_MAGIC["signet"]),
             "The snapshot is for signet but this node runs on regtest"),
            ("network_unknown", with_header_field(data, FIELD_NETWORK, bytes(4)),
             "The snapshot is for unknown network magic 00000000 but this node runs on regtest"),
        ]
        unknown_base = sha256d(b"no assumeutxo entry for this block")
        cases.append(("unknown_base", with_header_field(data, FIELD_BASE_HASH, unknown_base),
                      "Assumeutxo height in snapshot metadata not recognized for base block %s: "
                      "this chain has no assumeutxo entry for it" % hash_to_hex(unknown_base)))
        cases.append(("truncated_header", data[:FIELD_BASE_HASH.start + 10],
                      "Truncated snapshot header: AutoFile::read: end of file: iostream error"))

        # One coin more than the file holds: the reader runs off the end.
        cases.append(("count_plus_one", with_header_field(data, FIELD_COINS_COUNT, struct.pack("<Q", count + 1)),
                      "Bad snapshot data after deserializing %d coins (file offset %d): bad format or truncated snapshot: "
                      "AutoFile::read: end of file: iostream error" % (count, len(data))))
        # One coin fewer: the last group is too big for what is left, or, for
        # a one-coin group, its coin is left over.
        last = entries[-1]
        first_of_last_group = next(e for e in reversed(entries) if e.group_size_offset is not None)
        last_group_size = count - first_of_last_group.index
        minus_one = with_header_field(data, FIELD_COINS_COUNT, struct.pack("<Q", count - 1))
        if last_group_size > 1:
            cases.append(("count_minus_one", minus_one,
                          "Bad snapshot data after deserializing %d coins (file offset %d): group of %d coins for txid %s "
                          "exceeds the %d coins the metadata has left"
                          % (first_of_last_group.index, first_of_last_group.group_size_offset + 1, last_group_size,
                             hash_to_hex(last.txid), last_group_size - 1)))
        else:
            cases.append(("count_minus_one", minus_one, "Bad snapshot data after deserializing %d coins (file offset %d): "
                          "coins left over after the last coin the metadata announced" % (count - 1, entries[-2].coin_end)))
        cases.append(("truncated_body", data[:-1],
                      "Bad snapshot data after deserializing %d coins (file offset %d): bad format or truncated snapshot: "
                      "AutoFile::read: end of file: iostream error" % (count - 1, len(data) - 1)))
        cases.append(("trailing_byte", data + b"\x00",
                      "Bad snapshot data after deserializing %d coins (file offset %d): "
                      "coins left over after the last coin the metadata announced" % (count, len(data))))

        # Per-coin fields, on a coin in the middle of the file.
        victim = entries[count // 2]
        point = outpoint_string(victim.txid, victim.vout)
        rich = Coin(victim.coin.height, victim.coin.coinbase, MAX_MONEY + 1, victim.coin.script)
        rich_bytes = rich.serialize()
        cases.append(("amount_above_max_money", replace_bytes(data, victim.coin_offset, victim.coin_end, rich_bytes),
                      "Bad snapshot data after deserializing %d coins (file offset %d): coin %s has amount %d outside "
                      "the valid money range" % (victim.index, victim.coin_offset + len(rich_bytes), point, MAX_MONEY + 1)))
        young = Coin(base_height + 1, victim.coin.coinbase, victim.coin.amount, victim.coin.script)
        young_bytes = young.serialize()
        cases.append(("height_above_base", replace_bytes(data, victim.coin_offset, victim.coin_end, young_bytes),
                      "Bad snapshot data after deserializing %d coins (file offset %d): coin %s has height %d above the "
                      "snapshot base height %d" % (victim.index, victim.coin_offset + len(young_bytes), point,
                                                   base_height + 1, base_height)))
        bad_vout = ser_compact_size(0xffffffff)
        cases.append(("vout_out_of_range", replace_bytes(data, victim.vout_offset, victim.coin_offset, bad_vout),
                      "Bad snapshot data after deserializing %d coins (file offset %d): output index 4294967295 out of range"
                      % (victim.index, victim.vout_offset + len(bad_vout))))
        # Two coins for one outpoint: the second vout of a group made equal
        # to the first. Refused, naming it, instead of one replacing the other.
        second = next(e for e in entries[1:] if e.txid == entries[e.index - 1].txid and entries[e.index - 1].vout < 253 and e.vout < 253)
        twin = entries[second.index - 1]
        duplicate = replace_bytes(data, second.vout_offset, second.vout_offset + 1, bytes([twin.vout]))
        cases.append(("duplicate_coin", duplicate,
                      "Bad snapshot data after deserializing %d coins: coin %s:%d appears twice"
                      % (second.index + 1, hash_to_hex(twin.txid), twin.vout)))
        first = entries[0]
        cases.append(("empty_group", replace_bytes(data, first.group_size_offset, first.group_size_offset + 1, b"\x00"),
                      "Bad snapshot data after deserializing 0 coins (file offset %d): empty coin group for txid %s"
                      % (first.group_size_offset + 1, hash_to_hex(first.txid))))

        # A flipped byte inside a P2PKH key hash keeps the file well formed;
        # only the content hash can tell. The expected "got" hash is computed
        # here from the tampered file.
        p2pkh = next(e for e in entries[count // 3:] if e.coin.script[:3] == b"\x76\xa9\x14")
        pos = p2pkh.coin_end - 1
        tampered = replace_bytes(data, pos, pos + 1, bytes([data[pos] ^ 0x01]))
        got = utxo_stats(Snapshot.parse(tampered).coins)["hash_serialized_3"]
        cases.append(("tampered_coin", tampered, "Bad snapshot content hash: expected %s, got %s" % (expected_hash, got)))
        return cases

    def test_bad_snapshots(self, node, label, data, *, base_height, expected_hash):
        snapshot = Snapshot.parse(data)
        for name, bad, what in self.bad_snapshot_cases(data, snapshot, base_height=base_height, expected_hash=expected_hash):
            self.log.info("%s: bad snapshot '%s' is refused: %s", label, name, what[:90])
            self.assert_load_error(node, "%s_%s.dat" % (label, name), bad, what)

    # Snapshot built in Python ---------------------------------------------------

    def test_generated_snapshot(self):
        self.log.info("Generated snapshot: build a UTXO set with every script shape in Python")
        coins = make_coins(seed=7, base_height=GENERATED_HEIGHT)
        base = sha256d(b"coinsdb functional test base block")
        snapshot = Snapshot(NETWORK_MAGIC["regtest"], base, coins)
        data = snapshot.serialize()
        stats = utxo_stats(snapshot.coins)
        reparsed = Snapshot.parse(data)
        assert_equal(reparsed.serialize(), data)
        assert_equal([c.script for _, _, c in reparsed.coins], [c.script for _, _, c in snapshot.coins])
        path = self.write("generated.dat", data)
        base_hex = hash_to_hex(base)

        node = self.add_node([assumeutxo_arg(GENERATED_HEIGHT, base_hex, stats["hash_serialized_3"], GENERATED_NCHAINTX)])
        node.start()
        self.log.info("Generated snapshot: a fresh node has one chainstate at genesis")
        self.assert_no_snapshot_chainstate(node)

        self.test_bad_snapshots(node, "generated", data, base_height=GENERATED_HEIGHT,
                                expected_hash=stats["hash_serialized_3"])
        self.log.info("Generated snapshot: a file that cannot be opened is the caller's mistake (-8)")
        missing = os.path.join(self.options.tmpdir, "missing.dat")
        assert_raises_rpc_error(RPC_INVALID_PARAMETER, "Couldn't open file %s for reading." % missing, node.loadtxoutset, missing)

        self.log.info("Generated snapshot: the same node loads the good file")
        with node.assert_debug_log(["[snapshot] loading %d coins from snapshot %s" % (len(coins), base_hex),
                                    "[snapshot] validated snapshot", "[snapshot] successfully activated snapshot %s" % base_hex]):
            result = node.loadtxoutset(path)
        assert_equal(result, {"coins_loaded": len(coins), "tip_hash": base_hex, "base_height": GENERATED_HEIGHT, "path": path})

        self.log.info("Generated snapshot: gettxoutsetinfo matches the Python figures (hash %s)", stats["hash_serialized_3"])
        self.check_snapshot_chainstate(node, base_hex=base_hex, height=GENERATED_HEIGHT, stats=stats)

        self.log.info("Generated snapshot: gettxout returns every coin with its decompressed script")
        self.check_gettxout(node, snapshot.coins, GENERATED_HEIGHT, range(len(snapshot.coins)))
        assert_equal(node.gettxout(hash_to_hex(sha256d(b"absent")), 0), None)

        self.log.info("Generated snapshot: dumptxoutset writes the same bytes as the Python writer")
        dump_path = os.path.join(self.options.tmpdir, "generated_dump.dat")
        dump = node.dumptxoutset(dump_path, "latest")
        assert_equal(dump, {"coins_written": len(coins), "base_hash": base_hex, "base_height": GENERATED_HEIGHT,
                            "path": dump_path, "txoutset_hash": stats["hash_serialized_3"], "nchaintx": GENERATED_NCHAINTX})
        with open(dump_path, "rb") as f:
            assert f.read() == data, "dumptxoutset output differs from the loaded file"
        self.log.info("Generated snapshot: a relative dumptxoutset path is relative to the network datadir")
        dump = node.dumptxoutset("relative_dump.dat", "latest")
        assert_equal(dump["path"], os.path.join(node.net_dir, "relative_dump.dat"))
        with open(dump["path"], "rb") as f:
            assert f.read() == data, "dumptxoutset output differs from the loaded file"
        node.stop_node()

        self.test_out_of_order_snapshot(snapshot, data, stats)
        self.test_restart_with_background_blocks(snapshot, path, stats)

    def test_out_of_order_snapshot(self, snapshot, data, stats):
        """Coins out of chainstate key order still load: the node then
        hashes the loaded set from disk instead of while reading."""
        self.log.info("Out-of-order snapshot: the first coin group moved to the end loads, hashed from disk")
        entries = Snapshot.parse(data).entries
        first_group_end = next(e.index for e in entries if e.txid != entries[0].txid)
        body_start = entries[0].group_size_offset - 32
        first_group = data[body_start:entries[first_group_end].group_size_offset - 32]
        reordered = data[:body_start] + data[body_start + len(first_group):] + first_group
        assert_equal(len(reordered), len(data))
        path = self.write("generated_reordered.dat", reordered)
        base_hex = snapshot.base_blockhash_hex
        node = self.add_node([assumeutxo_arg(GENERATED_HEIGHT, base_hex, stats["hash_serialized_3"], GENERATED_NCHAINTX)])
        node.start()
        with node.assert_debug_log(["is out of chainstate key order; the loaded set will be hashed from disk",
                                    "[snapshot] validated snapshot"]):
            node.loadtxoutset(path)
        self.check_snapshot_chainstate(node, base_hex=base_hex, height=GENERATED_HEIGHT, stats=stats)
        node.stop_node()

        self.log.info("Out-of-order snapshot with a coin group repeated at the end: refused naming the coin, nothing kept")
        group_coins = first_group_end
        repeated = with_header_field(reordered + first_group, FIELD_COINS_COUNT,
                                     struct.pack("<Q", len(entries) + group_coins))
        node = self.add_node([assumeutxo_arg(GENERATED_HEIGHT, base_hex, stats["hash_serialized_3"], GENERATED_NCHAINTX),
                              "-dbcache=4"])
        node.start()
        first = entries[0]
        self.assert_load_error(node, "generated_reordered_repeat.dat", repeated,
                               "Bad snapshot data after deserializing %d coins: coin %s:%d appears twice"
                               % (len(entries) + 1, hash_to_hex(first.txid), first.vout))
        node.stop_node()

    # Bitcoin Core vectors ---------------------------------------------------------

    def test_restart_with_background_blocks(self, snapshot, path, stats):
        """The normal chainstate's height survives a restart with a snapshot
        chainstate active, when no block replay sets it up (issue 13)."""
        self.log.info("Background blocks: replay %d blocks, then load the snapshot", BACKGROUND_BLOCKS)
        chain, report = generate_chain(self, "background_chain.dat", blocks=BACKGROUND_BLOCKS, seed=13, txs_per_block=5)
        base_hex = snapshot.base_blockhash_hex
        node = self.add_node([assumeutxo_arg(GENERATED_HEIGHT, base_hex, stats["hash_serialized_3"], GENERATED_NCHAINTX)])
        offset = node.debug_log_size()
        node.start(["-loadblock=" + chain])
        node.wait_for_debug_log("Block import finished", offset=offset, timeout=120)
        tip_hex = node.getbestblockhash()
        assert_equal(node.getblockcount(), BACKGROUND_BLOCKS)
        node.loadtxoutset(path)
        before = node.getchainstates()
        assert_equal(before["headers"], GENERATED_HEIGHT)
        background, active = before["chainstates"]
        assert_equal((background["blocks"], background["bestblockhash"], background["validated"]),
                     (BACKGROUND_BLOCKS, tip_hex, True))
        assert "snapshot_blockhash" not in background
        assert_equal((active["blocks"], active["bestblockhash"], active["validated"], active["snapshot_blockhash"]),
                     (GENERATED_HEIGHT, base_hex, False, base_hex))

        self.log.info("Background blocks: getchainstates is the same after a restart")
        node.stop_node()
        node.start()
        after = node.getchainstates()
        # The estimate grows with the time it is asked at.
        for entry in before["chainstates"] + after["chainstates"]:
            entry["verificationprogress"] = round(entry["verificationprogress"], 6)
        assert_equal(after, before)
        node.stop_node()

    def test_vectors(self):
        root = self.vectors_dir()
        if root is None:
            self.log.warning("Vectors: no ../shared/vectors and no $COINSDB_VECTORS; skipping the Bitcoin Core vector part")
            return
        names = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "expected.json")))
        if not names:
            self.log.warning("Vectors: %s holds no vector directories; skipping the Bitcoin Core vector part", root)
        for name in names:
            self.test_vector(name, os.path.join(root, name))

    def test_vector(self, name, vector_dir):
        with open(os.path.join(vector_dir, "expected.json"), encoding="utf8") as f:
            expected = json.load(f)
        if expected["chain"] != "regtest":
            self.log.warning("Vector %s: chain %s; only regtest vectors can be loaded here, skipping", name, expected["chain"])
            return
        snapshot_path = os.path.join(vector_dir, "snapshot.dat")
        with open(snapshot_path, "rb") as f:
            data = f.read()
        height = expected["height"]
        base_hex = expected["base_blockhash"]

        self.log.info("Vector %s: the Python reader agrees with Bitcoin Core's figures", name)
        assert_equal(sha256sum_file(snapshot_path), expected["snapshot_sha256"])
        snapshot = Snapshot.parse(data)
        assert_equal(snapshot.serialize(), data)
        assert_equal(snapshot.base_blockhash_hex, base_hex)
        stats = utxo_stats(snapshot.coins)
        for key in ("hash_serialized_3", "txouts", "transactions", "bogosize"):
            assert_equal(stats[key], expected[key])
        assert_equal(stats["total_amount"], Decimal(expected["total_amount"]))

        node = self.add_node([assumeutxo_arg(height, base_hex, expected["hash_serialized_3"], expected["nchaintx"])])
        node.start()
        self.assert_no_snapshot_chainstate(node)
        self.test_bad_snapshots(node, "vector_" + name, data, base_height=height, expected_hash=expected["hash_serialized_3"])

        self.log.info("Vector %s: loadtxoutset", name)
        result = node.loadtxoutset(snapshot_path)
        assert_equal(result, {"coins_loaded": expected["coins_written"], "tip_hash": base_hex, "base_height": height,
                              "path": snapshot_path})
        self.log.info("Vector %s: getchainstates and gettxoutsetinfo (hash %s)", name, expected["hash_serialized_3"])
        self.check_snapshot_chainstate(node, base_hex=base_hex, height=height, stats=expected)
        self.check_gettxout(node, snapshot.coins, height, range(0, len(snapshot.coins), 37))

        self.log.info("Vector %s: after a restart the snapshot chainstate is still active", name)
        with node.assert_debug_log(["[snapshot] detected active snapshot chainstate"]):
            node.restart()
        self.check_snapshot_chainstate(node, base_hex=base_hex, height=height, stats=expected)

        self.log.info("Vector %s: dumptxoutset latest is byte-identical to Bitcoin Core's file", name)
        dump_path = os.path.join(self.options.tmpdir, "vector_%s_dump.dat" % name)
        dump = node.dumptxoutset(dump_path, "latest")
        assert_equal(dump, {"coins_written": expected["coins_written"], "base_hash": base_hex, "base_height": height,
                            "path": dump_path, "txoutset_hash": expected["txoutset_hash_dump"],
                            "nchaintx": expected["nchaintx"]})
        assert_equal(sha256sum_file(dump_path), expected["snapshot_sha256"])
        assert not os.path.exists(dump_path + ".incomplete")

        self.log.info("Vector %s: dumptxoutset refuses an existing file and an unknown type", name)
        assert_raises_rpc_error(RPC_INVALID_PARAMETER, "%s already exists" % dump_path, node.dumptxoutset, dump_path, "latest")
        assert_raises_rpc_error(RPC_INVALID_PARAMETER, 'Invalid snapshot type "bogus" specified. Please specify "rollback" or "latest"',
                                node.dumptxoutset, dump_path + ".2", "bogus")

        self.log.info("Vector %s: loading a second snapshot is refused", name)
        assert_raises_rpc_error(RPC_INTERNAL_ERROR, "Unable to load UTXO snapshot: Can't activate a snapshot-based chainstate "
                                "more than once (%s)" % snapshot_path, node.loadtxoutset, snapshot_path)
        self.check_snapshot_chainstate(node, base_hex=base_hex, height=height, stats=expected)
        node.stop_node()

    # A large generated snapshot -------------------------------------------------------

    def generate_large(self, name, coins, seed):
        path = os.path.join(self.options.tmpdir, name)
        done = subprocess.run([self.gensnapshot, "-output=" + path, "-coins=%d" % coins, "-height=300", "-seed=%d" % seed],
                              capture_output=True, text=True, check=True)
        info = json.loads(done.stdout, parse_float=Decimal)
        assert_equal(info["coins"], coins)
        return path, info

    def test_large_snapshot(self):
        self.log.info("Large snapshot: coinsdb-gensnapshot writes %d coins", LARGE_COINS)
        path, info = self.generate_large("large.dat", LARGE_COINS, seed=11)
        base_hex = info["base_blockhash"]
        arg = "-assumeutxo=%s:%d" % (info["assumeutxo"], info["nchaintx"])

        self.log.info("Large snapshot: killed with -9 mid-load, a node restarts without the partial chainstate")
        node = self.add_node([arg, "-dbcache=4"])
        node.start()
        offset = node.debug_log_size()
        errors = []

        def load():
            try:
                node.rpc_proxy(timeout=120).loadtxoutset(path)
                errors.append("loadtxoutset finished before the kill")
            except (OSError, JSONRPCException) as e:
                errors.append(e)

        loader = threading.Thread(target=load)
        loader.start()
        self.wait_until(lambda: errors or "FlushSnapshotToDisk: flushing coins cache" in node.read_debug_log(offset))
        assert not errors, "loadtxoutset ended before the first mid-load flush: %r" % (errors,)
        node.kill_process()
        loader.join()
        assert not isinstance(errors[0], str), errors[0]
        assert os.path.isdir(node.snapshot_chainstate_dir)
        with node.assert_debug_log(["Removing incomplete snapshot chainstate in %s" % node.snapshot_chainstate_dir]):
            node.start()
        self.assert_no_snapshot_chainstate(node)

        self.log.info("Large snapshot: with -dbcache=4 the load flushes the coins cache mid-load")
        offset = node.debug_log_size()
        outcome = []
        loader = threading.Thread(target=lambda: outcome.append(node.rpc_proxy(timeout=300).loadtxoutset(path)))
        loader.start()
        self.wait_until(lambda: outcome or "[snapshot] loading %d coins" % LARGE_COINS in node.read_debug_log(offset))
        if not outcome:
            self.log.info("Large snapshot: a second loadtxoutset while the first runs is refused")
            assert_raises_rpc_error(RPC_INTERNAL_ERROR, "Unable to load UTXO snapshot: Another snapshot load is already in "
                                    "progress (%s)" % path, node.loadtxoutset, path)
        self.wait_until(lambda: "FlushSnapshotToDisk: completed" in node.read_debug_log(offset))
        self.log.info("Large snapshot: getcoinscacheinfo's last_flush is the loading chainstate's flush the log reports")
        last = node.getcoinscacheinfo()["last_flush"]
        assert_equal(last["chainstate"], "chainstate_snapshot")
        logged = re.findall(r"FlushSnapshotToDisk: completed \(([0-9.]+)ms\)", node.read_debug_log(offset))
        assert_in("%.2f" % last["duration_ms"], logged)
        assert_greater_than(last["changed"], 0)
        loader.join()
        assert_equal(outcome, [{"coins_loaded": LARGE_COINS, "tip_hash": base_hex, "base_height": 300, "path": path}])
        log = node.read_debug_log(offset)
        loaded_line = "[snapshot] loaded %d (" % LARGE_COINS
        assert loaded_line in log, log
        during_load = log[:log.index(loaded_line)]
        flushed_mb = [float(mb) for mb in re.findall(r"FlushSnapshotToDisk: flushing coins cache \(([0-9.]+) MB\)", during_load)]
        self.log.info("Large snapshot: %d mid-load flushes of %.2f-%.2f MB", len(flushed_mb), min(flushed_mb), max(flushed_mb))
        # The cache's size is checked after every coin, so no flush starts
        # more than one coin above the budget (99% of 1.75 MiB of coins
        # cache at -dbcache=4: 1.82 MB), and the 400,000 coins need many.
        assert max(flushed_mb) <= SNAPSHOT_CACHE_BUDGET_MB + 0.02, flushed_mb
        assert len(flushed_mb) >= LARGE_COINS // 20_000, len(flushed_mb)
        assert_equal(during_load.count("FlushSnapshotToDisk: completed"), len(flushed_mb))
        assert "FlushSnapshotToDisk: saving snapshot chainstate (" in log[log.index(loaded_line):]

        self.log.info("Large snapshot: the loaded set has the generator's hash %s", info["hash_serialized_3"])
        txoutset = node.gettxoutsetinfo()
        assert_equal(txoutset["hash_serialized_3"], info["hash_serialized_3"])
        assert_equal(txoutset["txouts"], LARGE_COINS)
        assert_equal(txoutset["transactions"], info["transactions"])
        assert_amount(txoutset["total_amount"], int(info["total_amount"] * COIN))
        assert_equal(txoutset["bestblock"], base_hex)
        cache = node.getcoinscacheinfo()
        assert_equal(cache["chainstate"], "chainstate_snapshot")
        assert_equal(cache["dbcache"]["total"], 4 << 20)
        assert_greater_than(cache["cache_budget_bytes"], 0)
        # A loaded snapshot chainstate gave its txid filter up.
        assert_equal(cache["txid_filter_bytes"], 0)
        node.stop_node()


if __name__ == "__main__":
    AssumeutxoTest(__file__).main()
