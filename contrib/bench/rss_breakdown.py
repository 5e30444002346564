#!/usr/bin/env python3
"""Runs one command (a bitcoind replay, a load) to its end and says what its
resident memory was made of: the peak of VmRSS with its anonymous and
file-backed parts at that moment (RssAnon, RssFile from /proc/<pid>/status),
and the peak of the anonymous part alone.

  contrib/bench/rss_breakdown.py [--interval S] -- COMMAND [ARG...]
  e.g. contrib/bench/rss_breakdown.py -- build/src/bitcoind -regtest -datadir=/tmp/d -dbcache=100 \\
           -listen=0 -connect=0 -printtoconsole=0 -loadblock=chain.dat -stopatheight=2000

Why: VmHWM (what compare_core.py reports as peak RSS) counts the pages of
LevelDB's table files read through its memory maps. Those are page cache the
kernel can take back, and they grow with the database, not with -dbcache;
RssAnon is the memory the process itself holds. Sampled, so a peak shorter
than the interval can be missed (default 0.5 s).
"""

import argparse
import subprocess
import sys
import time


def status_kib(pid, keys):
    values = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in keys:
                    values[name] = int(rest.split()[0])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return values if len(values) == len(keys) else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--interval", type=float, default=0.5, help="seconds between samples (default: 0.5)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    opts = p.parse_args()
    command = opts.command[1:] if opts.command[:1] == ["--"] else opts.command
    if not command:
        p.error("no command given")
    keys = ("VmRSS", "RssAnon", "RssFile")
    proc = subprocess.Popen(command)
    peak = None
    peak_anon = 0
    samples = 0
    while proc.poll() is None:
        if (values := status_kib(proc.pid, keys)) is not None:
            samples += 1
            if peak is None or values["VmRSS"] > peak["VmRSS"]:
                peak = values
            peak_anon = max(peak_anon, values["RssAnon"])
        time.sleep(opts.interval)
    if peak is None:
        sys.exit(f"no sample taken (the command ended with {proc.returncode})")
    mb = 1000
    print(f"{samples} samples every {opts.interval} s; the command ended with {proc.returncode}")
    print(f"peak VmRSS {peak['VmRSS'] // mb} MB = RssAnon {peak['RssAnon'] // mb} MB + RssFile {peak['RssFile'] // mb} MB")
    print(f"peak RssAnon {peak_anon // mb} MB")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
