#!/usr/bin/env python3
"""coinsdb against Bitcoin Core by snapshot size: runs compare_core.py's
snapshot workload once per size and plots the load wall and the flush
time of both nodes against the number of coins.

  contrib/bench/core_by_size.py [options]
  e.g. contrib/bench/core_by_size.py --sizes 1000000,2000000,5000000,10000000 --runs 3 \\
           --out core_by_size-out --plot doc/img/core_by_size.png

For each size, compare_core.py --coins N --runs R --dbcache D (generated
snapshot, seed 1, alternating coinsdb and Core, both checked to end at the
same hash_serialized_3) writes OUT/core-N.json; its datadirs, logs and
snapshot stay in OUT/N, so a second call reuses the snapshots. A size
whose JSON is already in OUT is not run again; --replot only redraws.

The plot has two panels, one line per node: the loadtxoutset wall, and the
FlushSnapshotToDisk sum (every flush of the load, the final one included),
each the median of the runs with the min and max as error bars. The table
printed at the end gives the same medians and their ratios. Its caption
line names the coinsdb commit and the date: absolute times move with the
machine's load, the ratios of alternated runs much less.
"""

import argparse
import json
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from benchlib import ensure_matplotlib, fail

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# Each figure: (compare_core key, label, divisor to seconds).
FIGURES = [("load_s", "load wall (loadtxoutset)", 1), ("flush_ms_sum", "flush time (FlushSnapshotToDisk sum)", 1000)]
NODES = ("coinsdb", "core")


def parse_sizes(text):
    sizes = sorted({int(v) for v in text.split(",") if v})
    if not sizes or sizes[0] <= 0:
        raise ValueError(f"'{text}' is not a list of positive coin counts")
    return sizes


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def size_points(saved_runs):
    """One point per compare_core.py JSON, sorted by coins: for each node
    and figure the median, min and max in seconds over the runs, and the
    ratio of the two medians. A file whose nodes ended at different
    hashes is refused: its times are not of the same work."""
    points = []
    for saved in saved_runs:
        if saved.get("workload") != "snapshot":
            raise ValueError(f"not a snapshot comparison: {saved.get('workload')}")
        if not saved.get("hashes_match"):
            raise ValueError(f"the nodes ended at different hashes at {saved.get('coins')} coins: "
                             f"{saved.get('hash_serialized_3')}")
        point = {"coins": saved["coins"], "runs": saved["runs"], "dbcache_mib": saved["dbcache_mib"]}
        for key, _, divisor in FIGURES:
            for node in NODES:
                values = [run[key] / divisor for run in saved["results"][node] if run.get(key) is not None]
                if not values:
                    raise ValueError(f"{node} has no {key} at {saved['coins']} coins")
                point[f"{node}_{key}"] = spread(values)
            point[f"ratio_{key}"] = point[f"coinsdb_{key}"]["median"] / point[f"core_{key}"]["median"]
        points.append(point)
    return sorted(points, key=lambda p: p["coins"])


def table(points):
    header = ["coins"]
    for _, label, _ in FIGURES:
        header += [f"{label}: coinsdb", "Core", "ratio"]
    rows = [header]
    for p in points:
        row = [f"{p['coins']:,}"]
        for key, _, _ in FIGURES:
            row += [f"{p[f'coinsdb_{key}']['median']:.2f} s", f"{p[f'core_{key}']['median']:.2f} s",
                    f"{p[f'ratio_{key}']:.2f}x"]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("| " + " | ".join(c.rjust(w) for c, w in zip(row, widths)) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def caption(commit, date):
    return f"coinsdb {commit}, Bitcoin Core b88bffe5, {date}"


def plot(points, path, note):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(FIGURES), figsize=(6.5 * len(FIGURES), 4.6))
    x = [p["coins"] / 1e6 for p in points]
    for ax, (key, label, _) in zip(axes, FIGURES):
        for node, style in zip(NODES, ("o-", "s--")):
            s = [p[f"{node}_{key}"] for p in points]
            mid = [v["median"] for v in s]
            ax.errorbar(x, mid, yerr=[[m - v["min"] for m, v in zip(mid, s)], [v["max"] - m for m, v in zip(mid, s)]],
                        fmt=style, capsize=3, label="coinsdb" if node == "coinsdb" else "Bitcoin Core")
        for xi, p in zip(x, points):
            ax.annotate(f"{p[f'ratio_{key}']:.2f}x", (xi, p[f"coinsdb_{key}"]["median"]), textcoords="offset points",
                        xytext=(6, -6), ha="left", va="top", fontsize="small")
        ax.set_title(label)
        ax.set_xlabel("coins in the snapshot (millions)")
        ax.set_ylabel("seconds")
        ax.set_xticks(x)
        ax.grid(alpha=0.3)
        ax.legend()
    runs = max(p["runs"] for p in points)
    dbcache = points[0]["dbcache_mib"]
    fig.suptitle(f"Snapshot load at -dbcache={dbcache}: median of {runs}, bars min-max, labels coinsdb/Core\n{note}",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def git_commit():
    """This checkout's commit, "-dirty" when its code (not its docs or
    scripts) has changes: what the default build/src was built from."""
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "unknown"
    changed = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "CMakeLists.txt"],
                             capture_output=True, text=True).stdout.strip()
    return head.stdout.strip() + ("-dirty" if changed else "")


def run_size(opts, coins, path):
    cmd = [sys.executable, str(HERE / "compare_core.py"), "--coins", str(coins), "--runs", str(opts.runs),
           "--dbcache", str(opts.dbcache), "--workdir", str(opts.out / str(coins)), "--json", str(path)]
    if opts.coinsdb_bin:
        cmd += ["--coinsdb-bin", str(opts.coinsdb_bin)]
    if opts.core_bin:
        cmd += ["--core-bin", str(opts.core_bin)]
    print("+ " + " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode != 0:
        fail(f"compare_core.py failed at {coins} coins")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1000000,2000000,5000000,10000000",
                   help="snapshot sizes in coins, comma-separated (default: 1M, 2M, 5M, 10M)")
    p.add_argument("--runs", type=int, default=3, help="runs per node and size (default: 3)")
    p.add_argument("--dbcache", type=int, default=450, help="-dbcache in MiB for both nodes (default: 450)")
    p.add_argument("--out", type=Path, default=Path("core_by_size-out"), help="JSON, datadirs and snapshots")
    p.add_argument("--plot", type=Path, help="PNG to write (default: OUT/core_by_size.png)")
    p.add_argument("--coinsdb-bin", type=Path, help="passed to compare_core.py")
    p.add_argument("--core-bin", type=Path, help="passed to compare_core.py")
    p.add_argument("--note", help="appended to the plot's caption, e.g. what else ran on the machine")
    p.add_argument("--replot", action="store_true", help="run nothing: plot the JSON files already in OUT")
    opts = p.parse_args(argv)
    try:
        opts.sizes = parse_sizes(opts.sizes)
    except ValueError as e:
        p.error(str(e))
    opts.plot = opts.plot or opts.out / "core_by_size.png"
    return opts


def main():
    opts = parse_args()
    ensure_matplotlib()
    opts.out.mkdir(parents=True, exist_ok=True)
    meta_path = opts.out / "core_by_size.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    paths = [opts.out / f"core-{coins}.json" for coins in opts.sizes]
    todo = [] if opts.replot else [(coins, path) for coins, path in zip(opts.sizes, paths) if not path.exists()]
    for coins, path in todo:
        run_size(opts, coins, path)
    if todo:
        # The caption names the commit of the last call that ran something.
        meta = {"commit": git_commit(), "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")}
        meta_path.write_text(json.dumps(meta) + "\n")
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fail(f"no results for {', '.join(missing)}")
    try:
        points = size_points([json.loads(p.read_text()) for p in paths])
    except ValueError as e:
        fail(str(e))
    print(table(points))
    note = caption(meta.get("commit", "unknown"), meta.get("date", "unknown date"))
    plot(points, opts.plot, f"{note}; {opts.note}" if opts.note else note)
    print(f"wrote {opts.plot}")


if __name__ == "__main__":
    main()
