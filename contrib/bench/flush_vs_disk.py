#!/usr/bin/env python3
"""The final flush of an all-cached snapshot load against the disk it
writes to: chainstate bytes per second of the flush, over the disk's own
sequential write rate measured right before and right after it.

  contrib/bench/flush_vs_disk.py [options] [BIN_DIR...]
  e.g. contrib/bench/flush_vs_disk.py --coins 60000000 --dbcache 12000 --runs 3 --workdir flush_vs_disk-out
       contrib/bench/flush_vs_disk.py --runs 3 /path/to/base/build/src build/src
       contrib/bench/flush_vs_disk.py --runs 3 --variant= --variant=-ingesttablebuilder build/src

Each run, for each BIN_DIR in turn (A B A B ..., default: build/src of this
checkout), and for each --variant of extra bitcoind arguments within it:
  1. dd if=/dev/zero of=WORKDIR/dd.bin bs=1M count=--dd-mib conv=fsync;
  2. on a fresh datadir, loadtxoutset of one generated snapshot (the
     template chain compare_core.py uses; generated once, kept in WORKDIR)
     at a -dbcache that holds it all, then stop, with compare_core.py's
     bitcoind flags;
  3. the flush: the largest "BatchWrite took=<ms>ms" of the run's
     debug.log (the single final write of the whole cache);
  4. du -sb of regtest/chainstate_snapshot after the stop;
  5. the same dd again.
Ratio = (chainstate bytes / flush seconds) / mean of the two dd rates:
the share of the disk's sequential bandwidth the flush used. The target
the project set is at least 0.5x.

Not measured: the part of FlushSnapshotToDisk outside BatchWrite (the
map's clear), LevelDB's compactions after the stop, or a cold snapshot
file (it is in the page cache after the first run). dd's rate moves from
hour to hour on a shared virtual disk, which is why it is taken beside
every flush. The parsers' unit test is test_flush_vs_disk.py beside this
script.
"""

import argparse
import json
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import MB, Node, fail, fresh_dir

import compare_core

BATCH_TOOK_RE = re.compile(r"BatchWrite took=(\d+)ms")
DD_RE = re.compile(r"^(\d+) bytes .* copied, ([0-9.]+) s,", re.MULTILINE)


def largest_batch_write_ms(lines):
    """The longest BatchWrite of a run; None when the log has none."""
    took = [int(m.group(1)) for line in lines if (m := BATCH_TOOK_RE.search(line))]
    return max(took, default=None)


def dd_rate_mb_s(stderr):
    """dd's summary line, as bytes over seconds in MB/s (10^6 bytes): its
    own rate is rounded and its unit changes with the size."""
    m = DD_RE.search(stderr)
    if not m or float(m.group(2)) <= 0:
        raise ValueError(f"no dd summary line in: {stderr.strip()!r}")
    return int(m.group(1)) / float(m.group(2)) / MB


def du_bytes(stdout):
    return int(stdout.split()[0])


def run_figures(flush_ms, chainstate_bytes, dd_before, dd_after):
    rate = chainstate_bytes / (flush_ms / 1000) / MB
    return {"flush_s": flush_ms / 1000, "chainstate_bytes": chainstate_bytes, "flush_mb_s": rate,
            "dd_before_mb_s": dd_before, "dd_after_mb_s": dd_after, "ratio": rate / ((dd_before + dd_after) / 2)}


def summary(runs):
    """Per build, in first-seen order: the median and range of each run's
    flush time and ratio."""
    builds = {}
    for run in runs:
        builds.setdefault(run["build"], []).append(run)
    return {build: {key: {"median": statistics.median(r[key] for r in rs), "min": min(r[key] for r in rs),
                          "max": max(r[key] for r in rs)} for key in ("flush_s", "ratio")}
            for build, rs in builds.items()}


# --- running -----------------------------------------------------------------

def dd(path, mib):
    result = subprocess.run(["dd", "if=/dev/zero", f"of={path}", "bs=1M", f"count={mib}", "conv=fsync"],
                            capture_output=True, text=True)
    path.unlink(missing_ok=True)
    if result.returncode != 0:
        fail(f"dd: {result.stderr.strip()}")
    return dd_rate_mb_s(result.stderr)


def one_run(workload, node, datadir, dd_path, dd_mib):
    before = dd(dd_path, dd_mib)
    workload.run(node, datadir)
    flush_ms = largest_batch_write_ms(node.log_lines())
    if not flush_ms:
        fail(f"no BatchWrite took= line above 0 ms in {node.log_path()}")
    du = subprocess.run(["du", "-sb", str(datadir / "regtest" / "chainstate_snapshot")], capture_output=True, text=True)
    if du.returncode != 0:
        fail(f"du: {du.stderr.strip()}")
    return run_figures(flush_ms, du_bytes(du.stdout), before, dd(dd_path, dd_mib))


def print_runs(runs):
    print("| build | final flush | bytes per second | dd before | dd after | ratio |")
    print("|---|---|---|---|---|---|")
    for r in runs:
        print(f"| {r['build']} | {r['flush_s']:.2f} s | {r['flush_mb_s']:.1f} MB/s | {r['dd_before_mb_s']:.0f} MB/s "
              f"| {r['dd_after_mb_s']:.0f} MB/s | {r['ratio']:.2f}x |")
    for build, s in summary(runs).items():
        f, q = s["flush_s"], s["ratio"]
        print(f"{build}: flush median {f['median']:.2f} s ({f['min']:.2f}-{f['max']:.2f}), "
              f"ratio median {q['median']:.2f}x ({q['min']:.2f}-{q['max']:.2f}x)")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bin_dirs", nargs="*", type=Path, metavar="BIN_DIR",
                   help="directories with bitcoind and bitcoin-cli, alternated in the order given (default: build/src)")
    p.add_argument("--coins", type=int, default=60_000_000, help="coins in the generated snapshot (default: 60000000)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default: 1)")
    p.add_argument("--dbcache", type=int, default=12000, help="-dbcache in MiB; must hold the whole snapshot (default: 12000)")
    p.add_argument("--runs", type=int, default=3, help="runs per build (default: 3)")
    p.add_argument("--dd-mib", type=int, default=4096, help="MiB dd writes before and after each flush (default: 4096)")
    p.add_argument("--core-bin", type=Path, default=compare_core.DEFAULT_CORE_BIN,
                   help="Bitcoin Core's bin/ of the reference, for its template chain (default: compare_core.py's)")
    p.add_argument("--workdir", type=Path, default=Path("flush_vs_disk-out"), help="snapshot, datadirs, logs")
    p.add_argument("--port", type=int, default=29460, help="RPC port (default: 29460)")
    p.add_argument("--json", type=Path, help="write every run and the summary to this file")
    p.add_argument("--variant", action="append", metavar="ARGS",
                   help="extra bitcoind arguments, space-separated; repeat to alternate variants of each build "
                        "(--variant= is the build as it is; default: one variant without extra arguments)")
    opts = p.parse_args(argv)
    opts.variant = [v.split() for v in (opts.variant or [""])]
    if opts.runs < 1:
        p.error("--runs must be at least 1")
    opts.snapshot = None
    return opts


def main():
    opts = parse_args()
    bin_dirs = [compare_core.find_coinsdb(argparse.Namespace(coinsdb_bin=b))[0] for b in opts.bin_dirs or [None]]
    tools = compare_core.find_coinsdb(argparse.Namespace(coinsdb_bin=bin_dirs[0]))[1]
    work = opts.workdir.resolve()
    (work / "logs").mkdir(parents=True, exist_ok=True)
    workload = compare_core.Snapshot(opts, work, tools, opts.core_bin.resolve().parent / "template")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("flush_vs_disk.py: terminated"))
    runs = []
    try:
        builds = [(bin_dir, extra) for bin_dir in bin_dirs for extra in opts.variant]
        for run in range(1, opts.runs + 1):
            for n, (bin_dir, extra) in enumerate(builds):
                node = Node("coinsdb", bin_dir, opts.port)
                node.extra_args = extra
                label = " ".join([str(bin_dir), *extra])
                datadir = fresh_dir(work / "datadir")
                print(f"run {run} of {opts.runs}: {label} ...", flush=True)
                figures = one_run(workload, node, datadir, work / "dd.bin", opts.dd_mib)
                figures.update(build=label, run=run)
                runs.append(figures)
                shutil.copyfile(node.log_path(), work / "logs" / f"build{n}-run{run}.log")
                print(f"  flush {figures['flush_s']:.2f} s, ratio {figures['ratio']:.2f}x", flush=True)
    finally:
        Node.kill_all()
        shutil.rmtree(work / "datadir", ignore_errors=True)
    print_runs(runs)
    if opts.json:
        opts.json.write_text(json.dumps({"coins": workload.coins, "dbcache_mib": opts.dbcache, "dd_mib": opts.dd_mib,
                                         "date": time.strftime("%Y-%m-%d", time.gmtime()), "runs": runs,
                                         "summary": summary(runs)}, indent=2) + "\n")
        print(f"wrote {opts.json}")


if __name__ == "__main__":
    main()
