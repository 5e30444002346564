#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (src/test/fuzz/) from Bitcoin
Core's test vectors, one directory per target, into OUT_DIR.

Usage: contrib/fuzz_seeds.py VECTORS_DIR OUT_DIR

  snapshot_reader     runs of 4 coin groups from all over Core's snapshot.dat,
                      each behind the file's header with the coin count set to
                      match, so that every seed is a valid snapshot small
                      enough to mutate quickly; and the bare header.
  coin_decompression  every distinct chainstate 'C' value (one Coin each).
  rpc_request         request bodies of each shape the server handles, and
                      expected.json as a JSON text that is not a request.
  coins_cache_model   chainstate keys and values taken as operation bytes: any
                      bytes are a valid run, these only give the fuzzer a start.
Only stdlib; reads the vectors, never writes next to them.
"""
import hashlib
import pathlib
import struct
import sys

HEADER_SIZE = 51  # magic 5, version 2, network 4, base hash 32, coin count 8
MAX_SNAPSHOT_SEED = 16 << 10


def read_compact_size(data, pos):
    first = data[pos]
    if first < 253:
        return first, pos + 1
    width = {253: 2, 254: 4, 255: 8}[first]
    return int.from_bytes(data[pos + 1:pos + 1 + width], "little"), pos + 1 + width


def read_varint(data, pos):
    # Bitcoin's VARINT: base 128, most significant first, +1 per continuation.
    n = 0
    while True:
        byte = data[pos]
        pos += 1
        n = (n << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return n, pos
        n += 1


def skip_coin(data, pos):
    _, pos = read_varint(data, pos)  # height * 2 + coinbase
    _, pos = read_varint(data, pos)  # compressed amount
    n_size, pos = read_varint(data, pos)
    if n_size < 6:
        return pos + (20 if n_size < 2 else 32)
    return pos + n_size - 6


def group_ends(snapshot):
    """Offsets where each coin group ends, with the coins read so far."""
    total = struct.unpack_from("<Q", snapshot, HEADER_SIZE - 8)[0]
    pos, coins = HEADER_SIZE, 0
    while coins < total:
        pos += 32  # txid
        count, pos = read_compact_size(snapshot, pos)
        for _ in range(count):
            _, pos = read_compact_size(snapshot, pos)  # vout
            pos = skip_coin(snapshot, pos)
        coins += count
        yield pos, coins


def snapshot_seeds(snapshot):
    header = snapshot[:HEADER_SIZE - 8]
    yield header + struct.pack("<Q", 0)
    # Runs of a few consecutive groups from all over the file, so that the
    # seeds hold every script shape Core's file has; each is a valid
    # snapshot of its own. Runs over 16 KiB (Core's file has 10,000-byte
    # scripts) are left out: libFuzzer mutates small inputs much faster.
    bounds = [(HEADER_SIZE, 0)] + list(group_ends(snapshot))
    for first in range(0, len(bounds) - 1, 8):
        last = min(first + 4, len(bounds) - 1)
        (start, coins_before), (end, coins_after) = bounds[first], bounds[last]
        if end - start <= MAX_SNAPSHOT_SEED:
            yield header + struct.pack("<Q", coins_after - coins_before) + snapshot[start:end]


def chainstate_lines(vectors):
    with open(vectors / "regtest-small" / "chainstate.txt") as lines:
        for line in lines:
            key, value = line.split()
            yield bytes.fromhex(key), bytes.fromhex(value)


RPC_SEEDS = [
    b'{"method":"echo","params":[1,"two",3.5],"id":1}',
    b'{"jsonrpc":"2.0","method":"echo","params":{"a":1,"c":[true,null]},"id":"x"}',
    b'{"jsonrpc":"2.0","method":"echo","params":{"args":[1,2],"c":3}}',
    b'{"method":"echoargs","params":{"x":0.00010000,"args":{"k":"v"}},"id":[]}',
    b'{"jsonrpc":"1.0","method":"fail","id":-7}',
    b'{"method":"amount","params":[-2100000000000000],"id":1e400}',
    b'{"method":"amount","params":["1"],"id":2}',
    b'{"method":"help","params":["echo"],"id":3}',
    b'[{"method":"help","id":1},{"jsonrpc":"2.0","method":"echo"},7,{"method":"nope","id":2}]',
    b'[]',
    b'{"id":1,"id":2,"method":"echo"}',
    b'{"method":"echo","params":["\\u0000\\ud83d\\ude00\\n\\u007f"],"id":"\\"q\\""}',
    b'[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
]


def write(directory, blob):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha256(blob).hexdigest()[:16]).write_bytes(blob)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    vectors, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    snapshot = (vectors / "regtest-small" / "snapshot.dat").read_bytes()
    for seed in snapshot_seeds(snapshot):
        write(out / "snapshot_reader", seed)

    lines = list(chainstate_lines(vectors))
    for key, value in lines:
        if key[:1] == b"C":
            write(out / "coin_decompression", value)
    # About 1 KiB each: a run stops after 300 operations anyway.
    for i in range(0, 128, 2):
        write(out / "coins_cache_model", b"".join(k + v for k, v in lines[i:i + 2]))

    for body in RPC_SEEDS:
        write(out / "rpc_request", body)
    write(out / "rpc_request", (vectors / "regtest-small" / "expected.json").read_bytes())


if __name__ == "__main__":
    main()
