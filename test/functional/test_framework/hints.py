"""SwiftSync hints files (BIP 456 version 0), written independently of the node.

    file    "UTXO" | version 0 | LE32 H | one object per block, heights 1..H
    object  CompactSize N | when N > 0: CompactSize M (the greatest index) |
            N low parts of l bits | padding to a byte | N high parts in unary
            (the gap to the previous high part as zeros, then a one) | padding

l = floor(log2((M + 1) / N)), the division an integer one; an empty list is
the single byte 00. Bits fill each byte from
the most significant bit; a low part's bits go least significant first. The
BIP's vectors are the reference (../shared/vectors/swiftsync).
"""

import io
import struct

from test_framework.snapshot import read_compact_size, ser_compact_size, sha256d

MAGIC = b"UTXO"
VERSION = 0


class BitWriter:
    def __init__(self):
        self.bits = []

    def put(self, bit):
        self.bits.append(bit)

    def pad(self):
        while len(self.bits) % 8:
            self.bits.append(0)

    def bytes(self):
        self.pad()
        return bytes(int("".join(map(str, self.bits[i:i + 8])), 2) for i in range(0, len(self.bits), 8))


def low_bits(n, m):
    bits = 0
    while n << (bits + 1) <= m + 1:
        bits += 1
    return bits


def encode_object(indices):
    if not indices:
        return ser_compact_size(0)
    n, m = len(indices), indices[-1]
    bits = low_bits(n, m)
    low, high = BitWriter(), BitWriter()
    for value in indices:
        for b in range(bits):
            low.put((value >> b) & 1)
    previous = 0
    for value in indices:
        for _ in range((value >> bits) - previous):
            high.put(0)
        high.put(1)
        previous = value >> bits
    return ser_compact_size(n) + ser_compact_size(m) + low.bytes() + high.bytes()


def decode_object(r):
    n = read_compact_size(r)
    if n == 0:
        return []
    m = read_compact_size(r)
    bits = low_bits(n, m)
    low_bytes = r.read((n * bits + 7) // 8)
    low_stream = [(byte >> (7 - i)) & 1 for byte in low_bytes for i in range(8)]
    lows = [sum(low_stream[k * bits + b] << b for b in range(bits)) for k in range(n)]
    values, high = [], 0
    while len(values) < n:
        byte = r.read(1)[0]
        for i in range(8):
            if len(values) == n:
                break
            if (byte >> (7 - i)) & 1:
                values.append((high << bits) | lows[len(values)])
            else:
                high += 1
    return values


def write_hints(height, objects):
    assert len(objects) == height
    return MAGIC + bytes([VERSION]) + struct.pack("<I", height) + b"".join(encode_object(o) for o in objects)


def read_hints(data):
    assert data[:4] == MAGIC and data[4] == VERSION, data[:5]
    height = struct.unpack("<I", data[5:9])[0]
    r = io.BytesIO(data[9:])
    objects = [decode_object(r) for _ in range(height)]
    assert r.read() == b"", "bytes after the last object"
    return height, objects


# Blocks, just enough to find outputs and inputs ---------------------------------

def read_tx(r):
    """(txid, [(prev_txid, prev_n)], [(value, script)]) of the transaction at
    r's position; r is left after it."""
    version = r.read(4)
    witness = r.read(2) == b"\x00\x01"
    if not witness:
        r.seek(r.tell() - 2)
    body_start = r.tell()
    inputs = []
    for _ in range(read_compact_size(r)):
        prev, n = r.read(32), struct.unpack("<I", r.read(4))[0]
        r.read(read_compact_size(r) + 4)
        inputs.append((prev, n))
    outputs = []
    for _ in range(read_compact_size(r)):
        value = struct.unpack("<q", r.read(8))[0]
        outputs.append((value, r.read(read_compact_size(r))))
    body_end = r.tell()
    if witness:
        for _ in inputs:
            for _ in range(read_compact_size(r)):
                r.read(read_compact_size(r))
    locktime = r.read(4)
    after = r.tell()
    r.seek(body_start)
    body = r.read(body_end - body_start)
    r.seek(after)
    return sha256d(version + body + locktime), inputs, outputs


def parse_block(raw):
    """[(txid, inputs, outputs)] of a raw block, in block order."""
    r = io.BytesIO(raw)
    r.seek(80)
    return [read_tx(r) for _ in range(read_compact_size(r))]


def spendable(script):
    return not (script[:1] == b"\x6a" or len(script) > 10_000)


def hints_for_chain(raw_blocks, height):
    """The true hints of blocks 1..height of a regtest chain given in chain
    order from height 1: the UTXO set at `height` is computed here, from the
    blocks alone."""
    utxo = set()
    parsed = [parse_block(raw) for raw in raw_blocks[:height]]
    for txs in parsed:
        for t, (txid, inputs, outputs) in enumerate(txs):
            if t > 0:
                for prevout in inputs:
                    utxo.discard(prevout)
            for n, (_, script) in enumerate(outputs):
                if spendable(script):
                    utxo.add((txid, n))
    objects = []
    for txs in parsed:
        indices, index = [], 0
        for txid, _, outputs in txs:
            for n, (_, script) in enumerate(outputs):
                if not spendable(script):
                    continue
                if (txid, n) in utxo:
                    indices.append(index)
                index += 1
        objects.append(indices)
    return objects
