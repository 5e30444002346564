#!/usr/bin/env python3
"""The disk figures doc/benchmarks.md prints beside every storage-profile
result: what this machine's own disk does, so a reader can tell how far the
-debugstorage profiles are from it.

  contrib/bench/disk_figures.py [--dir DIR] [--mib N]

Measures, on the filesystem holding DIR (default: /tmp):
  - sequential write rate: N MiB (default 1024) in 1 MiB writes, then one
    fsync, in MB/s (10^6 bytes);
  - sync latency: the median fsync of a 4 KiB append, 200 times;
  - random read latency: the median 4 KiB O_DIRECT read at a random
    aligned offset of the file just written, 2000 times (O_DIRECT keeps the
    page cache out; a virtual disk's host cache may still answer).
"""
import argparse
import mmap
import os
import random
import statistics
import time


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", default="/tmp")
    p.add_argument("--mib", type=int, default=1024)
    opts = p.parse_args()
    data = os.path.join(opts.dir, "disk_figures.data")
    log = os.path.join(opts.dir, "disk_figures.sync")
    chunk = os.urandom(1 << 20)
    try:
        fd = os.open(data, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        start = time.monotonic()
        for _ in range(opts.mib):
            os.write(fd, chunk)
        os.fsync(fd)
        seq_mb_s = opts.mib * (1 << 20) / (time.monotonic() - start) / 1e6
        os.close(fd)

        fd = os.open(log, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        syncs = []
        for _ in range(200):
            os.write(fd, chunk[:4096])
            start = time.monotonic()
            os.fsync(fd)
            syncs.append(time.monotonic() - start)
        os.close(fd)

        fd = os.open(data, os.O_RDONLY | os.O_DIRECT)
        page = mmap.mmap(-1, 4096)
        reads = []
        blocks = opts.mib * 256
        for _ in range(2000):
            offset = random.randrange(blocks) * 4096
            start = time.monotonic()
            os.preadv(fd, [page], offset)
            reads.append(time.monotonic() - start)
        os.close(fd)
    finally:
        for path in (data, log):
            if os.path.exists(path):
                os.unlink(path)
    print(f"sequential write: {seq_mb_s:.0f} MB/s; fsync of a 4 KiB append: {statistics.median(syncs) * 1e3:.2f} ms; "
          f"random 4 KiB read: {statistics.median(reads) * 1e3:.3f} ms (medians)")


if __name__ == "__main__":
    main()
