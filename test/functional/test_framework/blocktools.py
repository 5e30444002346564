"""Just enough block building for block-replay tests: read blk-format files,
serialize transactions and headers (legacy form), compute merkle roots and
grind a regtest nonce."""

import struct

from test_framework.snapshot import ser_compact_size, sha256d

REGTEST_MAGIC = bytes.fromhex("fabfb5da")
REGTEST_TARGET = 0x7FFFFF << (8 * (0x20 - 3))


def read_block_records(path, magic=REGTEST_MAGIC):
    """The raw blocks of a blk-format file, in file order."""
    with open(path, "rb") as f:
        data = f.read()
    blocks, pos = [], 0
    while pos + 8 <= len(data):
        assert data[pos:pos + 4] == magic, "bad magic at offset %d" % pos
        size = struct.unpack_from("<I", data, pos + 4)[0]
        blocks.append(data[pos + 8:pos + 8 + size])
        pos += 8 + size
    return blocks


def write_block_records(path, blocks, magic=REGTEST_MAGIC):
    with open(path, "wb") as f:
        for block in blocks:
            f.write(magic + struct.pack("<I", len(block)) + block)


def block_hash(block):
    """Internal-order hash of a raw block (its first 80 bytes)."""
    return sha256d(block[:80])


def ser_tx(inputs, outputs, version=2, locktime=0):
    """inputs: [(txid_internal, vout, script_sig)], outputs: [(sats, script)]."""
    out = struct.pack("<i", version) + ser_compact_size(len(inputs))
    for txid, vout, script_sig in inputs:
        out += txid + struct.pack("<I", vout) + ser_compact_size(len(script_sig)) + script_sig + b"\xff\xff\xff\xff"
    out += ser_compact_size(len(outputs))
    for value, script in outputs:
        out += struct.pack("<q", value) + ser_compact_size(len(script)) + script
    return out + struct.pack("<I", locktime)


def merkle_root(txids):
    level = list(txids)
    while len(level) > 1:
        if len(level) % 2:
            level.append(level[-1])
        level = [sha256d(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def make_block(prev_hash, height, time, txs):
    """A regtest block on prev_hash whose first transaction is a coinbase
    paying nothing; txs are further raw transactions."""
    height_push = bytes([1, height]) if height < 0x80 else bytes([2]) + struct.pack("<H", height)
    coinbase = ser_tx([(b"\0" * 32, 0xFFFFFFFF, height_push + b"\x51")], [(0, b"\x51")])
    all_txs = [coinbase] + list(txs)
    root = merkle_root([sha256d(tx) for tx in all_txs])
    nonce = 0
    while True:
        header = struct.pack("<i", 0x20000000) + prev_hash + root + struct.pack("<III", time, 0x207FFFFF, nonce)
        if int.from_bytes(sha256d(header), "little") <= REGTEST_TARGET:
            break
        nonce += 1
    return header + ser_compact_size(len(all_txs)) + b"".join(all_txs)
