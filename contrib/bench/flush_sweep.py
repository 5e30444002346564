#!/usr/bin/env python3
"""Flush time and memory of a snapshot load over a grid of -dbbatchsize x
-dbcache x storage profile, with CSV, JSON and PNG plots.

  contrib/bench/flush_sweep.py [options]
  e.g. contrib/bench/flush_sweep.py --quick --out /tmp/sweep-quick
       contrib/bench/flush_sweep.py --coins 20000000 --dbcache 450 4000 --profiles none hdd --runs 3

Each point of the grid is one bitcoind started on a fresh, empty regtest
datadir with -assumeutxo for the snapshot, `loadtxoutset` of one
coinsdb-gensnapshot snapshot, then `stop`. The grid is walked once per
run, every point in turn (run 1 of every point, then run 2, ...), so that
drift on the machine spreads over all points rather than landing on one.

Grid (each option takes several values, separated by spaces or commas):
  --batch-sizes  -dbbatchsize values: bytes, or a number with K, M or G
                 (binary: 8M = 8 MiB); default 8M to 1G, powers of two
  --dbcache      -dbcache values in MiB; default 450 (the load flushes
                 several times) and 4000 (one final flush)
  --profiles     storage profiles, separated by spaces only, since a
                 custom profile holds commas: "none" (no flag), "hdd",
                 "sdcard" or "<write MB/s>,<sync ms>[,<seek ms>]", given
                 to bitcoind as -debugstorage=<profile>

Read from each run's debug.log (kept in OUT/logs): every "BatchWrite
took=<ms>ms, maxMem=<MiB>MiB" line from the start of the load to
shutdown (one per batch write of the coins database; with or without the
"[coindb] " prefix of -debug=coindb), with its time since the
loadtxoutset call, and the "FlushSnapshotToDisk: completed (<ms>ms)"
lines. Timed by the script: the loadtxoutset call (load wall) and the
stop (until the process exits); /usr/bin/time gives the peak RSS.

Writes to OUT (--out), rewritten after every run so that an interrupted
sweep keeps what it measured:
  flush_sweep.csv         one row per run: profile, dbcache_mib,
                          batch_bytes, batch_mib, run, load_s, stop_s,
                          total_s, flush_total_ms (FlushSnapshotToDisk
                          sum), flush_count, batch_count, batch_ms_sum,
                          batch_ms_mean, batch_ms_max, peak_maxmem_mib,
                          peak_rss_mib
  flush_sweep_points.csv  one row per point: min, median and max of
                          flush_total_ms, load_s and total_s
  flush_sweep.json        the settings, every run with its command line
                          and raw per-batch series, and the points
  batch_time.png          ms per BatchWrite over the time since
                          loadtxoutset, one line per batch size, one panel
                          per (profile, dbcache); the run with the median
                          flush total of each point
  batch_memory.png        maxMem of each BatchWrite over the same time
  flush_total.png         flush total against batch size (log2 axis), one
                          line per (profile, dbcache): the median, with
                          the min and max as error bars

Also: --self-test checks the log parser and the option parsers on literal
lines and needs no build; --dry-run prints every command line and runs
nothing; --replot redraws the PNGs from OUT/flush_sweep.json.

Not measured: reading the snapshot from a cold disk (the file is in the
page cache after the first run), script checks (coinsdb has none), Bitcoin
Core (see compare_core.py), LevelDB's background compaction after the
process exits, or the accuracy of a -debugstorage profile against real
hardware. Times below a millisecond round to 0 in the BatchWrite line.
"""

import argparse
import csv
import json
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
import unittest
from datetime import datetime, timezone
from pathlib import Path

from benchlib import (Node, ensure_matplotlib, fail, flush_figures, fresh_dir, log_time, read_snapshot_header,
                      run_tool)

REPO = Path(__file__).resolve().parents[2]
MIB = 1 << 20
FULL = {"coins": 5_000_000, "batch_sizes": [(8 << i) * MIB for i in range(8)], "dbcache": [450, 4000],
        "profiles": ["none"], "runs": 3}
# Under 10 minutes on a 2-core machine: about 10 s a run at 2M coins.
QUICK = {"coins": 2_000_000, "batch_sizes": [8 * MIB, 32 * MIB, 128 * MIB, 512 * MIB], "dbcache": [100, 2000],
         "profiles": ["none"], "runs": 1}
PROFILE_RE = re.compile(r"none|hdd|sdcard|\d+(\.\d+)?,\d+(\.\d+)?(,\d+(\.\d+)?)?")
BATCH_RE = re.compile(r"BatchWrite took=(\d+)ms, maxMem=(\d+)MiB")
LOAD_START_RE = re.compile(r"\[snapshot\] loading \d+ coins")

START = time.monotonic()


def progress(message):
    print(f"[{clock(time.monotonic() - START)}] {message}", file=sys.stderr, flush=True)


def clock(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# --- options -----------------------------------------------------------------

def parse_size(text):
    """Bytes from "16777216", "8M", "8MiB", "1G", "512k" (binary units)."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:([kKmMgG])(?:i?B)?)?\s*", text)
    if not m:
        raise ValueError(f"'{text}' is not a size: use bytes or a number with K, M or G")
    value = int(m.group(1)) << {None: 0, "k": 10, "m": 20, "g": 30}[m.group(2) and m.group(2).lower()]
    if value <= 0:
        raise ValueError(f"'{text}' is not a positive size")
    return value


def size_label(size):
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def split_values(values):
    return [v for value in values for v in value.split(",") if v]


def check_profile(profile):
    if not PROFILE_RE.fullmatch(profile):
        raise ValueError(f"'{profile}' is not a storage profile: use none, hdd, sdcard or "
                         f"<write MB/s>,<sync ms>[,<seek ms>]")
    return profile


def profile_args(profile):
    return [] if profile == "none" else [f"-debugstorage={profile}"]


def parse_args(argv=None):
    p = argparse.ArgumentParser(usage="%(prog)s [options]", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    grid = p.add_argument_group("grid (defaults: the full grid; --quick picks a small one)")
    grid.add_argument("--batch-sizes", nargs="+", metavar="SIZE",
                      help="-dbbatchsize values (default: 8M 16M ... 1G; quick: 8M 32M 128M 512M)")
    grid.add_argument("--dbcache", nargs="+", metavar="MIB", help="-dbcache values in MiB (default: 450 4000; quick: 100 2000)")
    grid.add_argument("--profiles", nargs="+", metavar="PROFILE",
                      help="storage profiles, space-separated: none, hdd, sdcard, <write MB/s>,<sync ms>[,<seek ms>] "
                           "(default: none)")
    grid.add_argument("--runs", type=int, help="runs of each point; min/median/max over them (default: 3; quick: 1)")
    grid.add_argument("--quick", action="store_true",
                      help="a small grid (2M coins, 4 batch sizes, 2 dbcache values, 1 run): minutes, not hours; "
                           "options given beside it win")
    snap = p.add_argument_group("snapshot")
    snap.add_argument("--coins", type=int, help="coins in the generated snapshot (default: 5000000; quick: 2000000)")
    snap.add_argument("--seed", type=int, default=1, help="generator seed (default: 1)")
    snap.add_argument("--snapshot", type=Path,
                      help="load this snapshot instead of generating one; its -assumeutxo entry comes from "
                           "--assumeutxo or from the generator's JSON beside it (FILE with .json)")
    snap.add_argument("--assumeutxo", metavar="HEIGHT:BLOCKHASH:HASH",
                      help="the -assumeutxo entry of --snapshot (the generator prints it as \"assumeutxo\")")
    run = p.add_argument_group("running")
    run.add_argument("--bin-dir", type=Path,
                     help="directory with bitcoind, bitcoin-cli and tools/coinsdb-gensnapshot (default: build/src of "
                          "this checkout); a build directory holding src/ works too")
    run.add_argument("--out", type=Path, default=Path("flush_sweep-out"),
                     help="output directory: CSV, JSON, PNGs, logs/, the generated snapshot (reused by a later call "
                          "with the same --coins and --seed) and the datadir while it runs (default: flush_sweep-out)")
    run.add_argument("--port", type=int, default=29470, help="RPC port of the bitcoind (default: 29470)")
    run.add_argument("--no-plot", action="store_true", help="write CSV and JSON only (no matplotlib needed)")
    run.add_argument("--replot", action="store_true", help="only redraw the PNGs from OUT/flush_sweep.json")
    run.add_argument("--dry-run", action="store_true", help="print the commands of every point and run nothing")
    run.add_argument("-v", "--verbose", action="store_true", help="print each bitcoind command line before it runs")
    run.add_argument("--self-test", action="store_true", help="test the log and option parsers, then exit")
    opts = p.parse_args(argv)
    defaults = QUICK if opts.quick else FULL
    try:
        opts.batch_sizes = [parse_size(v) for v in split_values(opts.batch_sizes)] if opts.batch_sizes else defaults["batch_sizes"]
        opts.dbcache = [int(v) for v in split_values(opts.dbcache)] if opts.dbcache else defaults["dbcache"]
        opts.profiles = [check_profile(v) for v in opts.profiles] if opts.profiles else defaults["profiles"]
    except ValueError as e:
        p.error(str(e))
    opts.coins = opts.coins or defaults["coins"]
    opts.runs = opts.runs or defaults["runs"]
    if opts.runs < 1:
        p.error("--runs must be at least 1")
    if any(mib <= 0 for mib in opts.dbcache):
        p.error("--dbcache values must be positive")
    if opts.assumeutxo and not opts.snapshot:
        p.error("--assumeutxo goes with --snapshot")
    return opts


# --- debug.log ---------------------------------------------------------------

def parse_batches(lines, t0):
    """The BatchWrite lines from the start of the load on, as
    {"t_s": seconds since t0 (a Unix time), "took_ms", "maxmem_mib"}.
    Earlier ones (the empty write at start-up) are not the workload's;
    without a "[snapshot] loading" line every line counts."""
    first = next((i for i, line in enumerate(lines) if LOAD_START_RE.search(line)), 0)
    batches = []
    for line in lines[first:]:
        m = BATCH_RE.search(line)
        if not m:
            continue
        try:
            t_s = round(log_time(line) - t0, 6)
        except ValueError:
            t_s = None
        batches.append({"t_s": t_s, "took_ms": int(m.group(1)), "maxmem_mib": int(m.group(2))})
    return batches


def run_figures(lines, t0, coins):
    batches = parse_batches(lines, t0)
    flushes = flush_figures(lines, coins)
    took = [b["took_ms"] for b in batches]
    return {
        "flush_total_ms": flushes["flush_ms_sum"], "flush_count": flushes["flush_count"],
        "batch_count": len(batches), "batch_ms_sum": sum(took),
        "batch_ms_mean": statistics.fmean(took) if took else None, "batch_ms_max": max(took, default=None),
        "peak_maxmem_mib": max((b["maxmem_mib"] for b in batches), default=None),
        "batches": batches,
    }


# --- running -----------------------------------------------------------------

def find_bin(opts):
    bin_dir = (opts.bin_dir or REPO / "build" / "src").resolve()
    if not (bin_dir / "bitcoind").exists() and (bin_dir / "src" / "bitcoind").exists():
        bin_dir = bin_dir / "src"
    tools = bin_dir / "tools" if (bin_dir / "tools").is_dir() else bin_dir
    if not opts.dry_run:
        for path in (bin_dir / "bitcoind", bin_dir / "bitcoin-cli"):
            if not os.access(path, os.X_OK):
                fail(f"no {path}: build coinsdb first (cmake --build build) or pass --bin-dir")
    return bin_dir, tools


def check_flags(bin_dir, opts):
    """A bitcoind without a flag the grid needs would fail at the first
    point; say which flag is missing before anything runs."""
    result = subprocess.run([str(bin_dir / "bitcoind"), "-help", "-help-debug"], capture_output=True, text=True)
    needed = ["-assumeutxo", "-dbbatchsize"] + (["-debugstorage"] if any(p != "none" for p in opts.profiles) else [])
    missing = [flag for flag in needed if f"  {flag}=" not in result.stdout]
    if missing:
        fail(f"{bin_dir / 'bitcoind'} has no {', '.join(missing)} (see its -help -help-debug): build a commit that "
             f"has {'it' if len(missing) == 1 else 'them'}" + (", or use --profiles none" if "-debugstorage" in missing else ""))


def snapshot_input(opts, tools):
    """(path, coins, assumeutxo entry); generates the snapshot unless given
    one or unless OUT holds it from an earlier call."""
    if opts.snapshot:
        path = opts.snapshot.resolve()
        if not path.exists():
            fail(f"no snapshot {path}")
        coins, _ = read_snapshot_header(path)
        entry = opts.assumeutxo
        sidecar = path.with_suffix(".json")
        if entry is None and sidecar.exists():
            entry = json.loads(sidecar.read_text()).get("assumeutxo")
        if entry is None:
            fail(f"no -assumeutxo entry for {path}: pass --assumeutxo HEIGHT:BLOCKHASH:HASH, or keep the "
                 f"generator's JSON output as {sidecar}")
        return path, coins, entry
    path = opts.out / f"snapshot-{opts.coins}-{opts.seed}.dat"
    info_path = path.with_suffix(".json")
    cmd = [tools / "coinsdb-gensnapshot", f"-output={path}", f"-coins={opts.coins}", f"-seed={opts.seed}"]
    if not (path.exists() and info_path.exists()):
        if opts.dry_run:
            print(shlex.join(map(str, cmd)) + f" > {info_path}")
            return path, opts.coins, "HEIGHT:BLOCKHASH:HASH"
        progress(f"generating a {opts.coins}-coin snapshot (seed {opts.seed})")
        path.unlink(missing_ok=True)
        info_path.write_text(json.dumps(run_tool(cmd)) + "\n")
    info = json.loads(info_path.read_text())
    return path, info["coins"], info["assumeutxo"]


def grid(opts):
    return [{"profile": profile, "dbcache_mib": dbcache, "batch_bytes": batch}
            for profile in opts.profiles for dbcache in opts.dbcache for batch in opts.batch_sizes]


def point_name(point):
    profile = point["profile"].replace(",", "_")
    return f"{profile}-dbcache{point['dbcache_mib']}-batch{size_label(point['batch_bytes']).replace(' ', '')}"


def node_args(node, datadir, point, assumeutxo):
    return (node.base_args(datadir, point["dbcache_mib"])
            + [f"-assumeutxo={assumeutxo}", f"-dbbatchsize={point['batch_bytes']}"] + profile_args(point["profile"]))


def run_point(node, datadir, point, snapshot, coins, assumeutxo, verbose):
    args = node_args(node, datadir, point, assumeutxo)
    if verbose:
        progress("  " + shlex.join([str(node.bin_dir / "bitcoind"), *args]))
    node.start(fresh_dir(datadir), args)
    node.wait_ready()
    t0 = time.time()
    before = time.monotonic()
    node.cli("loadtxoutset", str(snapshot))
    loaded = time.monotonic()
    stopped = node.stop()
    figures = {"load_s": loaded - before, "stop_s": stopped - loaded, "total_s": stopped - before}
    figures.update(run_figures(node.log_lines(), t0, coins))
    figures["peak_rss_mib"] = node.peak_rss_mib()
    figures["command"] = [str(node.bin_dir / "bitcoind"), *args]
    return figures


def remaining_estimate(durations, todo):
    """Seconds left: each point's last measured duration, or the mean of
    all runs so far for a point not measured yet."""
    if not durations:
        return None
    mean = statistics.fmean(d for runs in durations.values() for d in runs)
    return sum(durations[key][-1] if key in durations else mean for key in todo)


def sweep(opts, bin_dir, snapshot, coins, assumeutxo):
    points = grid(opts)
    node = Node("coinsdb", bin_dir, opts.port)
    datadir = opts.out / "datadir"
    logs = opts.out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    results = []
    durations = {}
    order = [(run, i) for run in range(1, opts.runs + 1) for i in range(len(points))]
    started = time.monotonic()
    for done, (run, i) in enumerate(order):
        point = points[i]
        elapsed = time.monotonic() - started
        left = remaining_estimate(durations, [key for _, key in order[done:]])
        progress(f"run {run} of {opts.runs}, point {i + 1} of {len(points)} ({done + 1} of {len(order)} in all): "
                 f"profile {point['profile']}, -dbcache={point['dbcache_mib']}, batch {size_label(point['batch_bytes'])}; "
                 f"elapsed {clock(elapsed)}, left ~{clock(left) if left is not None else '?'}")
        began = time.monotonic()
        figures = run_point(node, datadir, point, snapshot, coins, assumeutxo, opts.verbose)
        durations.setdefault(i, []).append(time.monotonic() - began)
        log_copy = logs / f"{point_name(point)}-run{run}.log"
        shutil.copyfile(node.log_path(), log_copy)
        results.append({**point, "run": run, "log": str(log_copy), **figures})
        progress(f"  load {figures['load_s']:.2f} s, stop {figures['stop_s']:.2f} s, flush {figures['flush_total_ms']:.0f} ms "
                 f"in {figures['flush_count']} flushes, {figures['batch_count']} BatchWrite lines (max "
                 f"{fmt(figures['batch_ms_max'], '{:.0f}')} ms), maxMem {fmt(figures['peak_maxmem_mib'], '{:.0f}')} MiB, "
                 f"RSS {fmt(figures['peak_rss_mib'], '{:.0f}')} MiB")
        if figures["batch_count"] == 0:
            progress("  warning: no BatchWrite lines in this run's debug.log: the per-batch columns stay empty")
        write_results(opts, points, results, snapshot, coins, assumeutxo, bin_dir)
    shutil.rmtree(datadir, ignore_errors=True)
    progress(f"{len(order)} runs in {clock(time.monotonic() - started)}")
    return points, results


# --- results -----------------------------------------------------------------

RUN_COLUMNS = ["profile", "dbcache_mib", "batch_bytes", "batch_mib", "run", "load_s", "stop_s", "total_s",
               "flush_total_ms", "flush_count", "batch_count", "batch_ms_sum", "batch_ms_mean", "batch_ms_max",
               "peak_maxmem_mib", "peak_rss_mib"]
SPREAD_KEYS = ["flush_total_ms", "load_s", "total_s"]


def fmt(value, pattern):
    return "-" if value is None else pattern.format(value)


def same_point(a, b):
    return all(a[k] == b[k] for k in ("profile", "dbcache_mib", "batch_bytes"))


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def summarize(points, results):
    summary = []
    for point in points:
        runs = [r for r in results if same_point(r, point)]
        if runs:
            summary.append({**point, "runs": len(runs), **{k: spread([r[k] for r in runs]) for k in SPREAD_KEYS}})
    return summary


def write_results(opts, points, results, snapshot, coins, assumeutxo, bin_dir):
    with open(opts.out / "flush_sweep.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(RUN_COLUMNS)
        for r in results:
            row = {**r, "batch_mib": r["batch_bytes"] / MIB}
            writer.writerow(["" if row[c] is None else round(row[c], 3) if isinstance(row[c], float) else row[c]
                             for c in RUN_COLUMNS])
    summary = summarize(points, results)
    with open(opts.out / "flush_sweep_points.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["profile", "dbcache_mib", "batch_bytes", "runs"]
                        + [f"{k}_{s}" for k in SPREAD_KEYS for s in ("min", "median", "max")])
        for s in summary:
            writer.writerow([s["profile"], s["dbcache_mib"], s["batch_bytes"], s["runs"]]
                            + [round(s[k][part], 3) if s[k] else "" for k in SPREAD_KEYS for part in ("min", "median", "max")])
    (opts.out / "flush_sweep.json").write_text(json.dumps({
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "bin_dir": str(bin_dir), "snapshot": str(snapshot), "coins": coins, "assumeutxo": assumeutxo,
        "grid": {"profiles": opts.profiles, "dbcache_mib": opts.dbcache, "batch_bytes": opts.batch_sizes,
                 "runs": opts.runs},
        "runs": results, "points": summary}, indent=1) + "\n")


def print_summary(summary):
    rows = [("profile", "dbcache", "batch", "runs", "flush total ms (min-max)", "load s", "load+stop s")]
    for s in summary:
        flush = s["flush_total_ms"]
        rows.append((s["profile"], str(s["dbcache_mib"]), size_label(s["batch_bytes"]), str(s["runs"]),
                     f"{flush['median']:.0f} ({flush['min']:.0f}-{flush['max']:.0f})",
                     f"{s['load_s']['median']:.2f}", f"{s['total_s']['median']:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("| " + " | ".join(c.ljust(w) if j < 3 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths))) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


# --- plots -------------------------------------------------------------------

def representative(results, point):
    """The run of a point with the median flush total (the lower one of
    two middles), so that one line stands for the point."""
    runs = sorted((r for r in results if same_point(r, point)), key=lambda r: r["flush_total_ms"])
    return runs[(len(runs) - 1) // 2] if runs else None


def panels(points):
    keys = []
    for p in points:
        if (p["profile"], p["dbcache_mib"]) not in keys:
            keys.append((p["profile"], p["dbcache_mib"]))
    return keys


def plot_series(plt, points, results, path, key, ylabel, title):
    keys = panels(points)
    sizes = sorted({p["batch_bytes"] for p in points})
    cols = min(2, len(keys))
    rows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 4.2 * rows), squeeze=False)
    colors = plt.get_cmap("viridis")
    for ax, (profile, dbcache) in zip(axes.flat, keys):
        for n, size in enumerate(sizes):
            run = representative(results, {"profile": profile, "dbcache_mib": dbcache, "batch_bytes": size})
            series = [b for b in run["batches"] if b["t_s"] is not None] if run else []
            if series:
                ax.plot([b["t_s"] for b in series], [b[key] for b in series], marker=".", linewidth=1,
                        color=colors(0.9 * n / max(1, len(sizes) - 1)), label=size_label(size))
        ax.set_title(f"storage {profile}, -dbcache={dbcache}")
        ax.set_xlabel("seconds since loadtxoutset")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(title="-dbbatchsize", fontsize="small")
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_totals(plt, summary, path):
    fig, ax = plt.subplots(figsize=(8, 5))
    sizes = sorted({s["batch_bytes"] for s in summary})
    for profile, dbcache in panels(summary):
        line = [s for s in summary if s["profile"] == profile and s["dbcache_mib"] == dbcache]
        line.sort(key=lambda s: s["batch_bytes"])
        x = [s["batch_bytes"] / MIB for s in line]
        mid = [s["flush_total_ms"]["median"] / 1000 for s in line]
        low = [m - s["flush_total_ms"]["min"] / 1000 for m, s in zip(mid, line)]
        high = [s["flush_total_ms"]["max"] / 1000 - m for m, s in zip(mid, line)]
        ax.errorbar(x, mid, yerr=[low, high], marker="o", capsize=3, label=f"{profile}, -dbcache={dbcache}")
    ax.set_xscale("log", base=2)
    ax.set_xticks([s / MIB for s in sizes], [size_label(s) for s in sizes], rotation=30)
    ax.set_xlabel("-dbbatchsize")
    ax.set_ylabel("flush total (FlushSnapshotToDisk sum), s")
    runs = max((s["runs"] for s in summary), default=0)
    ax.set_title(f"Flush total by batch size (median of {runs}, bars: min and max)")
    ax.grid(alpha=0.3)
    ax.legend(title="storage, dbcache", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_all(out, data):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    points = [{k: s[k] for k in ("profile", "dbcache_mib", "batch_bytes")} for s in data["points"]]
    coins = f"{data['coins']:,} coins"
    plot_series(plt, points, data["runs"], out / "batch_time.png", "took_ms", "ms per BatchWrite",
                f"Time of each BatchWrite during a {coins} snapshot load")
    plot_series(plt, points, data["runs"], out / "batch_memory.png", "maxmem_mib", "maxMem (peak RSS of the write), MiB",
                f"Memory at each BatchWrite during a {coins} snapshot load")
    plot_totals(plt, data["points"], out / "flush_total.png")
    return [out / name for name in ("batch_time.png", "batch_memory.png", "flush_total.png")]


# --- self-test ---------------------------------------------------------------

class SelfTest(unittest.TestCase):
    T0 = datetime(2026, 11, 24, 20, 0, 0, tzinfo=timezone.utc).timestamp()
    LINES = [
        "2026-11-24T19:59:59.500000Z [coindb] BatchWrite took=0ms, maxMem=9MiB",
        "2026-11-24T20:00:00.000100Z [snapshot] loading 2000000 coins from snapshot a504b747",
        "2026-11-24T20:00:01.250000Z FlushSnapshotToDisk: flushing coins cache (10.38 MB) started",
        "2026-11-24T20:00:01.500000Z [coindb] BatchWrite took=123ms, maxMem=456MiB",
        "2026-11-24T20:00:01.600000Z [coindb] Committed 70731 changed transaction outputs (out of 70731) to coin database...",
        "2026-11-24T20:00:01.700000Z FlushSnapshotToDisk: completed (450.25ms)",
        "2026-11-24T20:00:03Z BatchWrite took=7ms, maxMem=460MiB",
        "2026-11-24T20:00:04.000000Z FlushSnapshotToDisk: completed (12.00ms)",
        "2026-11-24T20:00:05.000000Z BatchWrite took=1000ms,maxMem=1MiB",
    ]

    def test_batches_after_load_start_in_both_formats(self):
        self.assertEqual(parse_batches(self.LINES, self.T0), [
            {"t_s": 1.5, "took_ms": 123, "maxmem_mib": 456},
            {"t_s": 3.0, "took_ms": 7, "maxmem_mib": 460}])

    def test_without_load_line_every_batch_counts(self):
        batches = parse_batches([self.LINES[0], self.LINES[6]], self.T0)
        self.assertEqual([(b["t_s"], b["took_ms"]) for b in batches], [(-0.5, 0), (3.0, 7)])

    def test_run_figures(self):
        f = run_figures(self.LINES, self.T0, coins=2_000_000)
        self.assertEqual((f["flush_total_ms"], f["flush_count"]), (462.25, 2))
        self.assertEqual((f["batch_count"], f["batch_ms_sum"], f["batch_ms_max"], f["peak_maxmem_mib"]), (2, 130, 123, 460))
        self.assertEqual(f["batch_ms_mean"], 65.0)

    def test_no_batch_lines(self):
        f = run_figures(self.LINES[1:3], self.T0, coins=1)
        self.assertEqual((f["batch_count"], f["batch_ms_mean"], f["batch_ms_max"], f["peak_maxmem_mib"]), (0, None, None, None))

    def test_sizes(self):
        self.assertEqual([parse_size(s) for s in ("16777216", "8M", "8MiB", "1G", "512k", "2 GiB")],
                         [16777216, 8 << 20, 8 << 20, 1 << 30, 512 << 10, 2 << 30])
        for bad in ("0", "-1", "8T", "8.5M", ""):
            self.assertRaises(ValueError, parse_size, bad)
        self.assertEqual([size_label(s) for s in (8 << 20, 1 << 30, 1536 << 10, 1000)], ["8 MiB", "1 GiB", "1536 KiB", "1000 B"])
        self.assertEqual(FULL["batch_sizes"][0], 8 << 20)
        self.assertEqual(FULL["batch_sizes"][-1], 1 << 30)

    def test_profiles(self):
        for good in ("none", "hdd", "sdcard", "100,5", "12.5,20,3"):
            self.assertEqual(check_profile(good), good)
        for bad in ("ssd", "100", "100,5,3,1", "hdd,sdcard", ""):
            self.assertRaises(ValueError, check_profile, bad)
        self.assertEqual(profile_args("none"), [])
        self.assertEqual(profile_args("100,5"), ["-debugstorage=100,5"])

    def test_option_lists(self):
        opts = parse_args(["--quick", "--batch-sizes", "8M,16M", "32M", "--profiles", "none", "40,8,2", "--dbcache", "300"])
        self.assertEqual(opts.batch_sizes, [8 << 20, 16 << 20, 32 << 20])
        self.assertEqual(opts.profiles, ["none", "40,8,2"])
        self.assertEqual((opts.dbcache, opts.coins, opts.runs), ([300], QUICK["coins"], 1))
        node = Node("coinsdb", Path("/bin"), 1)
        args = node_args(node, Path("/d"), {"profile": "hdd", "dbcache_mib": 300, "batch_bytes": 8 << 20}, "1:aa:bb")
        self.assertEqual(args[-3:], ["-assumeutxo=1:aa:bb", "-dbbatchsize=8388608", "-debugstorage=hdd"])
        self.assertIn("-dbcache=300", args)


def self_test():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
    ok = unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()
    sys.exit(0 if ok else 1)


# --- main --------------------------------------------------------------------

def dry_run(opts, bin_dir, tools):
    snapshot, _, assumeutxo = snapshot_input(opts, tools)
    node = Node("coinsdb", bin_dir, opts.port)
    datadir = opts.out.resolve() / "datadir"
    points = grid(opts)
    print(f"# {len(points)} points x {opts.runs} runs; each: a fresh {datadir}, then (under /usr/bin/time -v)")
    for i, point in enumerate(points, 1):
        print(f"# point {i} of {len(points)}")
        print(shlex.join([str(bin_dir / "bitcoind"), *node_args(node, datadir, point, assumeutxo)]))
    cli = [str(bin_dir / "bitcoin-cli"), "-regtest", f"-datadir={datadir}", f"-rpcport={opts.port}", "-rpcclienttimeout=0"]
    print(f"# then: {shlex.join(cli + ['loadtxoutset', str(snapshot)])}")
    print(f"# and:  {shlex.join(cli + ['stop'])}")


def main():
    opts = parse_args()
    if opts.self_test:
        self_test()
    if not (opts.no_plot or opts.dry_run):
        ensure_matplotlib()
    opts.out = opts.out.resolve()
    if opts.replot:
        data_path = opts.out / "flush_sweep.json"
        if not data_path.exists():
            fail(f"no {data_path} to replot")
        for path in plot_all(opts.out, json.loads(data_path.read_text())):
            print(f"wrote {path}")
        return
    bin_dir, tools = find_bin(opts)
    if opts.dry_run:
        dry_run(opts, bin_dir, tools)
        return
    if not os.access("/usr/bin/time", os.X_OK):
        fail("no /usr/bin/time: run contrib/install_deps.sh")
    check_flags(bin_dir, opts)
    opts.out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("flush_sweep.py: terminated"))
    try:
        snapshot, coins, assumeutxo = snapshot_input(opts, tools)
        progress(f"snapshot {snapshot}: {coins} coins; {len(grid(opts))} points x {opts.runs} runs")
        points, results = sweep(opts, bin_dir, snapshot, coins, assumeutxo)
    finally:
        Node.kill_all()
    print_summary(summarize(points, results))
    written = [opts.out / name for name in ("flush_sweep.csv", "flush_sweep_points.csv", "flush_sweep.json")]
    if not opts.no_plot:
        written += plot_all(opts.out, json.loads((opts.out / "flush_sweep.json").read_text()))
    for path in written:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
