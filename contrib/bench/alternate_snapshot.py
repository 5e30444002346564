#!/usr/bin/env python3
"""Loads one generated regtest snapshot (loadtxoutset) with two or more
coinsdb builds, alternating A B A B (not all runs of A, then all of B: this
machine kind drifts by tens of percent within minutes), and prints per run
and as medians: the load's time, the sum and count of its
FlushSnapshotToDisk times (every flush of the load, as compare_core.py's
"FlushSnapshotToDisk sum") and the peak RSS. For comparing a commit with
its parent on a snapshot load's flushes; compare_core.py compares with
Bitcoin Core.

  contrib/bench/alternate_snapshot.py [--coins N] [--seed N] [--dbcache MIB]
      [--runs N] [--workdir DIR] BINDIR [BINDIR ...]
  e.g. contrib/bench/alternate_snapshot.py --coins 20000000 --runs 6 \\
      /tmp/parent/build/src build/src

A BINDIR holds bitcoind and bitcoin-cli (a build's src directory). The
snapshot is made once by the first BINDIR's tools/coinsdb-gensnapshot and
kept in --workdir for the next call. Before each run: dirty pages synced
and the snapshot read into the page cache (compare_core.read_through); each
run gets a fresh datadir, deleted after it.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import compare_core  # noqa: E402

FIGURES = (("load_s", "load s", "{:.2f}"), ("flush_ms_sum", "flushes ms", "{:.0f}"), ("flush_count", "flushes", "{:d}"),
           ("peak_rss_mib", "peak RSS MiB", "{:.0f}"))


def make_snapshot(tools, workdir, coins, seed):
    """The snapshot file and its generator's JSON (coins, assumeutxo)."""
    path = workdir / f"snapshot-{coins}-{seed}.dat"
    info_path = path.with_suffix(".json")
    if not (path.exists() and info_path.exists()):
        compare_core.progress(f"generating a {coins}-coin snapshot (seed {seed})")
        path.unlink(missing_ok=True)
        info = benchlib.run_tool([tools / "coinsdb-gensnapshot", f"-output={path}", f"-coins={coins}", f"-seed={seed}"])
        info_path.write_text(json.dumps(info))
    return path, json.loads(info_path.read_text())


def run_once(bin_dir, snapshot, info, opts, workdir, port):
    node = benchlib.Node("coinsdb", bin_dir, port)
    datadir = Path(tempfile.mkdtemp(dir=workdir))
    try:
        os.sync()
        compare_core.read_through(snapshot)
        node.start(datadir, node.base_args(datadir, opts.dbcache) + [f"-assumeutxo={info['assumeutxo']}"])
        node.wait_ready()
        before = time.monotonic()
        node.cli("loadtxoutset", str(snapshot))
        loaded = time.monotonic()
        node.stop()
        figures = benchlib.flush_figures(node.log_lines(), info["coins"])
        return {"load_s": loaded - before, "flush_ms_sum": figures["flush_ms_sum"], "flush_count": figures["flush_count"],
                "peak_rss_mib": node.peak_rss_mib()}
    finally:
        shutil.rmtree(datadir, ignore_errors=True)


def medians(runs):
    """Each figure's median over a build's runs (flush counts as ints)."""
    out = {}
    for key, _, _ in FIGURES:
        value = statistics.median(r[key] for r in runs)
        out[key] = int(value) if key == "flush_count" else value
    return out


def line(figures):
    return ", ".join(f"{label} {fmt.format(figures[key])}" for key, label, fmt in FIGURES)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--coins", type=int, default=20_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dbcache", type=int, default=450)
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--port", type=int, default=18543)
    parser.add_argument("--workdir", default=None, help="where the snapshot and the datadirs go (default: a temporary directory)")
    parser.add_argument("bin_dir", nargs="+")
    opts = parser.parse_args()
    workdir = Path(opts.workdir or tempfile.mkdtemp(prefix="alternate_snapshot.")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    bin_dirs = [Path(b).resolve() for b in opts.bin_dir]
    for bin_dir in bin_dirs:
        for name in ("bitcoind", "bitcoin-cli"):
            if not (bin_dir / name).is_file():
                benchlib.fail(f"no {name} in {bin_dir}")
    snapshot, info = make_snapshot(bin_dirs[0] / "tools", workdir, opts.coins, opts.seed)
    results = {b: [] for b in bin_dirs}
    try:
        for run in range(opts.runs):
            for bin_dir in bin_dirs:
                figures = run_once(bin_dir, snapshot, info, opts, workdir, opts.port)
                results[bin_dir].append(figures)
                print(f"run {run + 1} {bin_dir}: {line(figures)}", flush=True)
    finally:
        benchlib.Node.kill_all()
    print(f"\nmedians of {opts.runs} runs ({info['coins']} coins, -dbcache={opts.dbcache})")
    for bin_dir, runs in results.items():
        print(f"{bin_dir}: {line(medians(runs))}")


if __name__ == "__main__":
    main()
