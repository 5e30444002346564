#!/usr/bin/env python3
"""What a crash late in a replay costs an operator, and what the periodic
chainstate write that bounds it costs (issue 37, item 4).

  contrib/bench/crash_cost.py [--chain FILE | --blocks N --target-utxos N --seed N]
                              [--dbcache 2000] [--prune 550] [--kill-after 15]
                              [--intervals 3600 5] [--runs 3] [--json out.json]

1. Loss: for each -flushinterval in --intervals, a replay (-loadblock of
   the chain at --dbcache, without pruning: a prune writes the chainstate
   before it deletes blocks, which would hide what the interval does) is killed with SIGKILL --kill-after
   seconds after its import began; the node restarts without a block
   source. Lost = the last height the killed run's log reached minus the
   height the restart's chainstate holds; its worth in seconds = the time
   the killed run had spent since the log first reached that height.
2. Cost: complete replays at each interval (with --prune), alternated, --runs each: the
   import time (compare_core.py's replay figures) and how many coins cache
   writes each made. The periodic write is a Sync: it keeps the coins
   cached, so what it costs is its own write, not re-reads afterwards.

Not measured: a kill during the write itself (feature_dbcrash.py and
feature_kill.py test that a restart then repairs the chainstate), or the
replay of the lost blocks after the restart (the same blocks at the same
speed, so the lost seconds are its estimate).
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import Node, fresh_dir, log_time, port_in_use  # noqa: E402

import compare_core  # noqa: E402

TIP_RE = re.compile(r"UpdateTip: new best=\w+ height=(\d+) ")


def first_time_at(lines, height):
    """The log time of the first UpdateTip at or above `height`."""
    for line in lines:
        if (m := TIP_RE.search(line)) and int(m.group(1)) >= height:
            return log_time(line)
    return None


def killed_run(workload, bin_dir, port, datadir, interval, kill_after):
    node = Node("coinsdb", bin_dir, port)
    fresh_dir(datadir)
    node.start(datadir, workload.args(node, datadir) + [f"-flushinterval={interval}"])
    deadline = time.monotonic() + 600
    while not any("Importing blocks file" in line for line in (node.log_lines() if node.log_path().exists() else [])):
        if time.monotonic() > deadline or node.proc.poll() is not None:
            raise SystemExit("crash_cost.py: the replay did not start")
        time.sleep(0.05)
    time.sleep(kill_after)
    os.killpg(node.proc.pid, signal.SIGKILL)
    node.proc.wait()
    Node.live.remove(node)
    # A killed process with gigabytes mapped takes a moment to go, and its
    # RPC port with it.
    for _ in range(600):
        if not port_in_use(port):
            break
        time.sleep(0.1)
    lines = node.log_lines()
    tips = [(int(m.group(1)), log_time(line)) for line in lines if (m := TIP_RE.search(line))]
    reached, killed_at = tips[-1]
    node = Node("coinsdb", bin_dir, port)
    workload.restart(node, datadir)
    node.wait_ready()
    held = json.loads(node.cli("getblockchaininfo"))["blocks"]
    node.stop()
    since = first_time_at(lines, held)
    return {"interval_s": interval, "reached": reached, "restart_height": held, "lost_blocks": reached - held,
            "lost_s": round(killed_at - since, 2) if since is not None else None}


def full_run(workload, bin_dir, port, datadir, interval):
    node = Node("coinsdb", bin_dir, port)
    fresh_dir(datadir)
    node.start(datadir, workload.args(node, datadir) + [f"-flushinterval={interval}"])
    node.wait_exit()
    figures = compare_core.replay_figures(node.log_lines(), workload.blocks)
    if figures is None:
        raise SystemExit(f"crash_cost.py: the replay did not reach height {workload.blocks}")
    return {"interval_s": interval, "import_s": round(figures["import_s"], 2), "writes": figures["flush_count"]}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chain", help="a coinsdb-genchain block file (default: generate one)")
    p.add_argument("--blocks", type=int, default=2000)
    p.add_argument("--target-utxos", type=int, default=6_000_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--dbcache", type=int, default=2000, help="MiB (default: 2000, a cache that holds the set)")
    p.add_argument("--prune", type=int, default=550, help="-prune in MiB, 0 for none (default: 550)")
    p.add_argument("--kill-after", type=float, default=15.0, help="seconds of import before the kill (default: 15)")
    p.add_argument("--intervals", type=int, nargs="+", default=[3600, 5], help="-flushinterval values (default: 3600 5)")
    p.add_argument("--runs", type=int, default=3, help="complete replays per interval (default: 3; 0 skips them)")
    p.add_argument("--coinsdb-bin", type=Path, help="bitcoind's directory (default: build/src)")
    p.add_argument("--workdir", type=Path, default=Path("crash_cost-out"))
    p.add_argument("--port", type=int, default=29470)
    p.add_argument("--json", type=Path)
    return p.parse_args(argv)


def main():
    opts = parse_args()
    bin_dir, tools = compare_core.find_coinsdb(argparse.Namespace(coinsdb_bin=opts.coinsdb_bin))
    work = opts.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    def replay(prune):
        return compare_core.Replay(argparse.Namespace(chain=opts.chain, blocks=opts.blocks, target_utxos=opts.target_utxos,
                                                      seed=opts.seed, dbcache=opts.dbcache, prune=prune, bury=0), work, tools)
    unpruned, workload = replay(0), replay(opts.prune)
    datadir = work / "datadir"
    result = {"dbcache_mib": opts.dbcache, "prune_mib": opts.prune, "kill_after_s": opts.kill_after, "chain": str(workload.path),
              "losses": [], "runs": []}
    try:
        for interval in opts.intervals:
            loss = killed_run(unpruned, bin_dir, opts.port, datadir, interval, opts.kill_after)
            print(json.dumps(loss), flush=True)
            result["losses"].append(loss)
        for run in range(opts.runs):
            for interval in opts.intervals:
                figures = full_run(workload, bin_dir, opts.port, datadir, interval)
                figures["run"] = run + 1
                print(json.dumps(figures), flush=True)
                result["runs"].append(figures)
    finally:
        Node.kill_all()
        shutil.rmtree(datadir, ignore_errors=True)
    for interval in opts.intervals:
        times = [r["import_s"] for r in result["runs"] if r["interval_s"] == interval]
        writes = [r["writes"] for r in result["runs"] if r["interval_s"] == interval]
        if times:
            print(f"-flushinterval={interval}: import median {statistics.median(times):.2f} s "
                  f"({min(times):.2f}-{max(times):.2f}), coins cache writes {statistics.median(writes)}")
    if opts.json:
        opts.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
