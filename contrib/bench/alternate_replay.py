#!/usr/bin/env python3
"""Replays one coinsdb-genchain chain with two or more coinsdb bitcoind
builds, alternating A B A B (not all runs of A, then all of B: this machine
kind drifts by tens of percent within minutes), and prints per run and as
medians: import time, process CPU and peak RSS, and LevelDB's compaction
bytes. For comparing a commit with its parent; compare_core.py compares
with Bitcoin Core.

  contrib/bench/alternate_replay.py --chain CHAIN --blocks N [--dbcache MIB]
      [--prune MIB] [--runs N] [--arg ARG ...] BITCOIND [BITCOIND ...]
  e.g. contrib/bench/alternate_replay.py --chain chain.dat --blocks 2000 \\
      --dbcache 100 --runs 3 /tmp/parent/bitcoind build/src/bitcoind

Each run's compaction bytes are also given by the level the compactions
moved data from (compare_core.leveldb_writes).

A BITCOIND written as PATH@LIBDIR runs PATH with LIBDIR first on
LD_LIBRARY_PATH: the same build against another libleveldb, such as the one
`contrib/bench/leveldb_symbols.sh --no-seek-compactions` builds.

Before each run: dirty pages synced and the chain file read into the page
cache (compare_core.read_through). Each run gets a fresh datadir.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

import compare_core

FIGURES = (("import_s", "import s", "{:.2f}"), ("cpu_s", "cpu s", "{:.1f}"), ("peak_rss_mib", "peak RSS MiB", "{:.0f}"),
           ("compacted_mib", "compacted MiB", "{:.0f}"))


def run_once(bitcoind, opts, workdir):
    datadir = Path(tempfile.mkdtemp(dir=workdir))
    try:
        os.sync()
        compare_core.read_through(opts.chain)
        args = [bitcoind, "-regtest", f"-datadir={datadir}", f"-dbcache={opts.dbcache}", "-listen=0", "-connect=0",
                "-blocksonly=1", "-printtoconsole=0", "-daemon=0", "-logtimemicros", "-debug=bench", "-debug=leveldb",
                f"-loadblock={opts.chain}", f"-stopatheight={opts.blocks}"]
        if opts.prune:
            args.append(f"-prune={opts.prune}")
        args += opts.arg
        # wait4: this child's own CPU and peak RSS, not the largest of all.
        path, _, libdir = bitcoind.partition("@")
        args[0] = path
        env = dict(os.environ)
        if libdir:
            env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        _, status, usage = os.wait4(subprocess.Popen(args, env=env).pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{bitcoind} failed: exit status {os.waitstatus_to_exitcode(status)}, datadir {datadir}")
        lines = (datadir / "regtest" / "debug.log").read_text().splitlines()
        figures = compare_core.replay_figures(lines, opts.blocks)
        return {"import_s": figures["import_s"], "compacted_mib": figures["compacted_mib"],
                "by_level": figures["compacted_mib_by_level"], "cpu_s": usage.ru_utime + usage.ru_stime,
                "peak_rss_mib": usage.ru_maxrss / 1024}
    finally:
        shutil.rmtree(datadir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chain", required=True)
    parser.add_argument("--blocks", type=int, required=True)
    parser.add_argument("--dbcache", type=int, default=100)
    parser.add_argument("--prune", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--arg", action="append", default=[], help="one more bitcoind argument (repeatable)")
    parser.add_argument("--workdir", default=None, help="where the datadirs go (default: a temporary directory)")
    parser.add_argument("bitcoind", nargs="+")
    opts = parser.parse_args()
    workdir = opts.workdir or tempfile.mkdtemp(prefix="alternate_replay.")
    results = {b: [] for b in opts.bitcoind}
    for run in range(opts.runs):
        for bitcoind in opts.bitcoind:
            figures = run_once(bitcoind, opts, workdir)
            results[bitcoind].append(figures)
            by_level = " ".join(f"{level}:{mib:.0f}" for level, mib in figures["by_level"].items()) or "none"
            print(f"run {run + 1} {bitcoind}: " + ", ".join(f"{label} {fmt.format(figures[key])}" for key, label, fmt in FIGURES) +
                  f" (from level:MiB {by_level})", flush=True)
    print("\nmedians of %d runs" % opts.runs)
    for bitcoind, runs in results.items():
        print(f"{bitcoind}: " + ", ".join(f"{label} {fmt.format(statistics.median(r[key] for r in runs))}" for key, label, fmt in FIGURES))


if __name__ == "__main__":
    main()
