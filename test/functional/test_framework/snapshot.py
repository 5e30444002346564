"""UTXO snapshot files and hash_serialized_3, written independently of the node.

Snapshot file, version 2 (the format dumptxoutset writes and loadtxoutset
reads; see src/node/snapshot/utxo_snapshot.h):

    offset  size  field
    0       5     magic 75 74 78 6f ff ("utxo" + 0xff)
    5       2     version, LE16 = 2
    7       4     network magic (regtest fa bf b5 da)
    11      32    base block hash, internal byte order
    43      8     coin count, LE64
    51      ...   groups in chainstate key order (txid, then vout):
                  txid (32) | CompactSize(n) | n x (CompactSize(vout) | Coin)

Coin: VARINT(height * 2 + coinbase) | VARINT(CompressAmount(amount)) |
compressed script (VARINT nSize, then 20 or 32 bytes for the special shapes
0..5, or the raw script of length nSize - 6).

hash_serialized_3: SHA256d over, for every coin in key order, txid (32) |
LE32 vout | LE32 (height * 2 + coinbase) | LE64 amount | CompactSize(script
length) | script. Shown byte-reversed, like block hashes.
"""

import decimal
import hashlib
import random
import struct

MAGIC = b"utxo\xff"
VERSION = 2
NETWORK_MAGIC = {
    "main": bytes.fromhex("f9beb4d9"),
    "test": bytes.fromhex("0b110907"),
    "testnet4": bytes.fromhex("1c163f28"),
    "signet": bytes.fromhex("0a03cf40"),
    "regtest": bytes.fromhex("fabfb5da"),
}
HEADER_SIZE = 51
# Byte ranges of the header fields, to change one at a time.
FIELD_MAGIC = slice(0, 5)
FIELD_VERSION = slice(5, 7)
FIELD_NETWORK = slice(7, 11)
FIELD_BASE_HASH = slice(11, 43)
FIELD_COINS_COUNT = slice(43, 51)

COIN = 100_000_000
MAX_MONEY = 21_000_000 * COIN
MAX_SCRIPT_SIZE = 10_000
SPECIAL_SCRIPTS = 6

# secp256k1: y^2 = x^3 + 7 over GF(P).
SECP256K1_P = 2**256 - 2**32 - 977


class SnapshotFormatError(Exception):
    pass


def sha256d(data):
    return hashlib.sha256(hashlib.sha256(data).digest()).digest()


def hash_to_hex(h):
    """Internal byte order -> display hex (reversed)."""
    return h[::-1].hex()


def hex_to_hash(text):
    return bytes.fromhex(text)[::-1]


def outpoint_string(txid, vout):
    """COutPoint::ToString() as the node prints it in errors."""
    return "%s:%d" % (hash_to_hex(txid)[:10], vout)


# Integers ---------------------------------------------------------------------


class ByteReader:
    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def read(self, n):
        if self.pos + n > len(self.data):
            raise SnapshotFormatError("end of data at offset %d (wanted %d bytes)" % (self.pos, n))
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def at_end(self):
        return self.pos == len(self.data)


def ser_compact_size(n):
    if n < 0xfd:
        return bytes([n])
    if n <= 0xffff:
        return b"\xfd" + struct.pack("<H", n)
    if n <= 0xffffffff:
        return b"\xfe" + struct.pack("<I", n)
    return b"\xff" + struct.pack("<Q", n)


def read_compact_size(r):
    first = r.read(1)[0]
    if first < 0xfd:
        return first
    size, minimum = {0xfd: (2, 0xfd), 0xfe: (4, 0x10000), 0xff: (8, 0x100000000)}[first]
    n = int.from_bytes(r.read(size), "little")
    if n < minimum:
        raise SnapshotFormatError("non-canonical CompactSize")
    return n


def ser_varint(n):
    """Bitcoin's VARINT: base-128, most significant group first, with the
    "minus one per continuation" trick so every number has one encoding."""
    out = [n & 0x7f]
    while n > 0x7f:
        n = (n >> 7) - 1
        out.append((n & 0x7f) | 0x80)
    return bytes(reversed(out))


def read_varint(r):
    n = 0
    while True:
        byte = r.read(1)[0]
        if n > (2**64 - 1) >> 7:
            raise SnapshotFormatError("VARINT too large")
        n = (n << 7) | (byte & 0x7f)
        if not byte & 0x80:
            return n
        n += 1


# Amounts and scripts -----------------------------------------------------------


def compress_amount(n):
    if n == 0:
        return 0
    e = 0
    while n % 10 == 0 and e < 9:
        n //= 10
        e += 1
    if e < 9:
        d = n % 10
        n //= 10
        return 1 + (n * 9 + d - 1) * 10 + e
    return 1 + (n - 1) * 10 + 9


def decompress_amount(x):
    if x == 0:
        return 0
    x -= 1
    e = x % 10
    x //= 10
    if e < 9:
        d = x % 9 + 1
        x //= 9
        n = x * 10 + d
    else:
        n = x + 1
    return n * 10**e


def curve_y(x, odd):
    """The y with the given parity on secp256k1 for x, or None."""
    if x >= SECP256K1_P:
        return None
    rhs = (pow(x, 3, SECP256K1_P) + 7) % SECP256K1_P
    y = pow(rhs, (SECP256K1_P + 1) // 4, SECP256K1_P)
    if y * y % SECP256K1_P != rhs:
        return None
    return y if (y & 1) == int(odd) else SECP256K1_P - y


def is_on_curve(x, y):
    return x < SECP256K1_P and y < SECP256K1_P and (y * y - pow(x, 3, SECP256K1_P) - 7) % SECP256K1_P == 0


def compress_script(script):
    """VARINT(nSize) and body of a script, as the chainstate stores it."""
    s = script
    if len(s) == 25 and s[:3] == b"\x76\xa9\x14" and s[23:] == b"\x88\xac":
        return ser_varint(0) + s[3:23]
    if len(s) == 23 and s[:2] == b"\xa9\x14" and s[22] == 0x87:
        return ser_varint(1) + s[2:22]
    if len(s) == 35 and s[0] == 33 and s[34] == 0xac and s[1] in (2, 3):
        return ser_varint(s[1]) + s[2:34]
    if len(s) == 67 and s[0] == 65 and s[66] == 0xac and s[1] == 4:
        x, y = int.from_bytes(s[2:34], "big"), int.from_bytes(s[34:66], "big")
        if is_on_curve(x, y):
            return ser_varint(4 | (y & 1)) + s[2:34]
    return ser_varint(len(s) + SPECIAL_SCRIPTS) + s


def read_compressed_script(r):
    n_size = read_varint(r)
    if n_size == 0:
        return b"\x76\xa9\x14" + r.read(20) + b"\x88\xac"
    if n_size == 1:
        return b"\xa9\x14" + r.read(20) + b"\x87"
    if n_size in (2, 3):
        return bytes([33, n_size]) + r.read(32) + b"\xac"
    if n_size in (4, 5):
        x_bytes = r.read(32)
        y = curve_y(int.from_bytes(x_bytes, "big"), odd=n_size == 5)
        if y is None:
            raise SnapshotFormatError("compressed uncompressed-key script whose x is not on the curve")
        return b"\x41\x04" + x_bytes + y.to_bytes(32, "big") + b"\xac"
    length = n_size - SPECIAL_SCRIPTS
    if length > MAX_SCRIPT_SIZE:
        r.read(length)
        return b"\x6a"
    return r.read(length)


class Coin:
    def __init__(self, height, coinbase, amount, script):
        self.height = height
        self.coinbase = bool(coinbase)
        self.amount = amount
        self.script = bytes(script)

    def serialize(self):
        return (ser_varint(self.height * 2 + int(self.coinbase)) + ser_varint(compress_amount(self.amount))
                + compress_script(self.script))

    @classmethod
    def deserialize(cls, r):
        code = read_varint(r)
        amount = decompress_amount(read_varint(r))
        return cls(code >> 1, code & 1, amount, read_compressed_script(r))

    def __repr__(self):
        return "Coin(height=%d, coinbase=%s, amount=%d, script=%s)" % (self.height, self.coinbase, self.amount, self.script.hex())


class SnapshotEntry:
    """One coin of a parsed file, with where its parts lie in the file."""

    def __init__(self, txid, vout, coin, *, index, group_size_offset, vout_offset, coin_offset, coin_end):
        self.txid = txid
        self.vout = vout
        self.coin = coin
        self.index = index
        self.group_size_offset = group_size_offset  # None unless first coin of its group
        self.vout_offset = vout_offset
        self.coin_offset = coin_offset
        self.coin_end = coin_end


class Snapshot:
    def __init__(self, network_magic, base_blockhash, coins, *, magic=MAGIC, version=VERSION, coins_count=None):
        """coins: (txid bytes, vout, Coin) in any order; written sorted."""
        self.magic = magic
        self.version = version
        self.network_magic = network_magic
        self.base_blockhash = base_blockhash
        self.coins = sorted(coins, key=lambda c: (c[0], c[1]))
        self.coins_count = len(self.coins) if coins_count is None else coins_count
        self.entries = []

    def header(self):
        return (self.magic + struct.pack("<H", self.version) + self.network_magic + self.base_blockhash
                + struct.pack("<Q", self.coins_count))

    def serialize(self):
        out = [self.header()]
        i = 0
        while i < len(self.coins):
            txid = self.coins[i][0]
            j = i
            while j < len(self.coins) and self.coins[j][0] == txid:
                j += 1
            out.append(txid + ser_compact_size(j - i))
            for _, vout, coin in self.coins[i:j]:
                out.append(ser_compact_size(vout) + coin.serialize())
            i = j
        return b"".join(out)

    @classmethod
    def parse(cls, data):
        """Reads a whole, valid file; records each coin's byte offsets."""
        r = ByteReader(data)
        magic = r.read(5)
        version = struct.unpack("<H", r.read(2))[0]
        network = r.read(4)
        base = r.read(32)
        count = struct.unpack("<Q", r.read(8))[0]
        entries = []
        while len(entries) < count:
            txid = r.read(32)
            group_size_offset = r.pos
            size = read_compact_size(r)
            if size == 0 or size > count - len(entries):
                raise SnapshotFormatError("bad group size %d at offset %d" % (size, group_size_offset))
            for k in range(size):
                vout_offset = r.pos
                vout = read_compact_size(r)
                coin_offset = r.pos
                coin = Coin.deserialize(r)
                entries.append(SnapshotEntry(txid, vout, coin, index=len(entries),
                                             group_size_offset=group_size_offset if k == 0 else None,
                                             vout_offset=vout_offset, coin_offset=coin_offset, coin_end=r.pos))
        if not r.at_end():
            raise SnapshotFormatError("%d bytes left over after %d coins" % (len(data) - r.pos, count))
        snapshot = cls(network, base, [(e.txid, e.vout, e.coin) for e in entries], magic=magic, version=version,
                       coins_count=count)
        snapshot.entries = entries
        return snapshot

    @property
    def base_blockhash_hex(self):
        return hash_to_hex(self.base_blockhash)


def replace_bytes(data, start, end, new):
    return data[:start] + new + data[end:]


def with_header_field(data, field, new):
    assert len(new) == field.stop - field.start
    return replace_bytes(data, field.start, field.stop, new)


# Statistics ----------------------------------------------------------------------


def hash_serialized_3(coins):
    """coins: (txid, vout, Coin) in chainstate key order."""
    h = hashlib.sha256()
    for txid, vout, coin in coins:
        h.update(txid + struct.pack("<IIq", vout, coin.height * 2 + int(coin.coinbase), coin.amount)
                 + ser_compact_size(len(coin.script)) + coin.script)
    return hash_to_hex(hashlib.sha256(h.digest()).digest())


def utxo_stats(coins):
    """The figures gettxoutsetinfo reports for this set of coins."""
    coins = sorted(coins, key=lambda c: (c[0], c[1]))
    return {
        "txouts": len(coins),
        "transactions": len({txid for txid, _, _ in coins}),
        "bogosize": sum(32 + 4 + 4 + 8 + 2 + len(coin.script) for _, _, coin in coins),
        "total_amount": decimal.Decimal(sum(coin.amount for _, _, coin in coins)) / COIN,
        "hash_serialized_3": hash_serialized_3(coins),
    }


# A small synthetic UTXO set -----------------------------------------------------


def _curve_point(rng):
    while True:
        x = rng.getrandbits(256)
        y = curve_y(x, odd=rng.getrandbits(1))
        if y is not None:
            return x, y


def script_shapes(rng):
    """One script of every shape the compressor treats specially, and a few
    it does not."""
    x, y = _curve_point(rng)
    x_bytes, y_bytes = x.to_bytes(32, "big"), y.to_bytes(32, "big")
    off_curve_y = ((y + 1) % SECP256K1_P).to_bytes(32, "big")
    b = rng.randbytes
    return [
        b"\x76\xa9\x14" + b(20) + b"\x88\xac",                      # P2PKH
        b"\xa9\x14" + b(20) + b"\x87",                              # P2SH
        b"\x00\x14" + b(20),                                        # P2WPKH
        b"\x00\x20" + b(32),                                        # P2WSH
        b"\x51\x20" + b(32),                                        # P2TR
        b"\x21\x02" + b(32) + b"\xac",                              # P2PK, compressed key, even
        b"\x21\x03" + b(32) + b"\xac",                              # P2PK, compressed key, odd
        b"\x41\x04" + x_bytes + y_bytes + b"\xac",                  # P2PK, valid uncompressed key
        b"\x41\x04" + x_bytes + off_curve_y + b"\xac",              # P2PK, off-curve key: generic form
        b"\x41" + bytes([6 | (y & 1)]) + x_bytes + y_bytes + b"\xac",  # hybrid key: generic form
        b"\x51\x21\x02" + b(32) + b"\x21\x03" + b(32) + b"\x52\xae",  # bare 1-of-2 multisig
        b"",                                                        # empty
        b"\x51",                                                    # OP_TRUE
        b(rng.randrange(1, 120)),                                   # random bytes
        b(MAX_SCRIPT_SIZE),                                         # largest script kept
    ]


# Amounts cycled through; with at most one MAX_MONEY coin the total stays a
# real-world figure (below 21 million BTC plus change).
AMOUNTS = [0, 1, 546, 1000, 9999, COIN, 50 * COIN, 123456789, 99999999]
VOUTS = [0, 1, 2, 127, 128, 252, 253, 0xffff, 0x10000, 4294967294]


def make_coins(seed, base_height, groups=60):
    """A deterministic UTXO set: every script shape, awkward amounts and
    vouts (CompactSize and VARINT boundaries), coinbase and not. The first
    coin sits at the base height and the second holds MAX_MONEY, the largest
    values a loader must accept."""
    rng = random.Random(seed)
    shapes = script_shapes(rng)
    coins = []
    counter = 0
    for _ in range(groups):
        txid = rng.randbytes(32)
        vouts = sorted(rng.sample(VOUTS, rng.randrange(1, 5)))
        for vout in vouts:
            script = shapes[counter % len(shapes)]
            amount = AMOUNTS[counter % len(AMOUNTS)] if counter % 3 else rng.randrange(0, 100 * COIN)
            if counter == 1:
                amount = MAX_MONEY
            height = base_height if counter == 0 else rng.randrange(1, base_height + 1)
            coins.append((txid, vout, Coin(height, rng.random() < 0.3, amount, script)))
            counter += 1
    return coins
