#!/usr/bin/env python3
"""Says where a bitcoind profile's time goes, LevelDB's share by what
LevelDB was doing.

  contrib/bench/perf_leveldb.py PERF_DATA [--top N]

PERF_DATA is a `perf record --call-graph dwarf` profile of bitcoind run
with LevelDB's symbols (contrib/bench/leveldb_symbols.sh; profile_replay.sh
records one). Prints three tables:

  threads   each thread's share of all samples, named by what it runs
            (the block-connecting thread is the critical path of a replay)
  leveldb   every sample with a LevelDB frame on its stack, by the
            outermost LevelDB operation (a read's table lookup, a write's
            memtable insert, a background compaction...), with the part
            that ran in LevelDB's own code and the part in libc or the
            kernel under it (memcpy, pread, page faults)
  symbols   LevelDB's hottest functions by self time
  critical  the connecting thread's hottest functions by self time, of
            every library (where the critical path's own time goes)

Shares are of all samples of the process (cpu-clock samples: this machine
kind has no hardware counters), so they add up with the dso shares perf
report prints.
"""

import argparse
import collections
import re
import subprocess
import sys

LEVELDB_DSO = "libleveldb"

# A thread is named by the first of these frames found on its stacks.
CRITICAL = "connect blocks (critical path)"
THREAD_ROLES = [
    ("ActivateBestChain", CRITICAL),
    ("BlockProcessor::ImportFile", CRITICAL),
    ("DBImpl::BackgroundCall", "leveldb background compaction"),
    ("ThreadPool::WorkerLoop", "prevout fetch workers"),
    # ReadBlockFile's prepare thread (BlockProcessor::CheckAhead, whose
    # frame perf names by a template that the parse below cuts short).
    ("kernel::CheckBlock", "block checker (CheckBlock ahead)"),
    ("ReadBlockFile", "block file reader (parse, hash)"),
    ("BatchWriter", "flush batch writer"),
    ("CDBBatchWriter", "flush batch writer"),
    ("ReadAhead", "snapshot read-ahead"),
    ("HTTP", "rpc"),
    ("AppMain", "main thread (start-up, shutdown flush)"),
]

# The outermost LevelDB frame decides what LevelDB was asked to do; inside
# it, the first matching frame (from the outside in) gives the detail.
OPERATIONS = [
    ("DBImpl::Get", "read (Get)"),
    ("DBImpl::Write", "write (Write)"),
    ("DBImpl::BackgroundCall", "background compaction"),
    ("DBImpl::CompactRange", "manual compaction"),
    ("DBIter", "iteration"),
    ("DBImpl::NewIterator", "iteration"),
    ("DB::Open", "open / recovery"),
    ("DBImpl::Recover", "open / recovery"),
]
DETAILS = {
    "read (Get)": [
        ("MemTable::Get", "memtable lookup"),
        ("FilterBlockReader::KeyMayMatch", "bloom filter"),
        ("BloomFilterPolicy::KeyMayMatch", "bloom filter"),
        ("Table::BlockReader", "data block fetch (cache or disk, crc, decode)"),
        ("TableCache::FindTable", "table open / table cache"),
        ("Block::Iter", "block search"),
        ("Version::Get", "version walk (levels, files)"),
    ],
    "write (Write)": [
        ("MakeRoomForWrite", "stall / memtable switch"),
        ("log::Writer::AddRecord", "log append"),
        ("PosixWritableFile::Sync", "log sync"),
        ("WriteBatchInternal::InsertInto", "memtable insert"),
        ("BuildBatchGroup", "batch grouping"),
    ],
    "background compaction": [
        ("CompactMemTable", "memtable flush to level 0"),
        ("DoCompactionWork", "level compaction (merge)"),
    ],
}

CRC = "crc32c::"


def leaf_of(stack):
    """The innermost frame with a real dso: perf names a function inlined
    into another by its own symbol but the dso 'inlined'; the code ran in
    the dso of the frame it was inlined into."""
    sym = stack[0][0]
    for _, dso in stack:
        if dso != "inlined":
            return sym, dso
    return stack[0]


def role_of(frames):
    for needle, role in THREAD_ROLES:
        if any(needle in f for f in frames):
            return role
    return None


def read_samples(perf_data):
    """Yields (tid, period, [(symbol, dso)] leaf first)."""
    cmd = ["perf", "script", "-i", perf_data, "-F", "tid,period,ip,sym,dso"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace")
    head = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
    frame = re.compile(r"^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$")
    tid = period = None
    stack = []
    for line in proc.stdout:
        if m := head.match(line):
            tid, period, stack = int(m.group(1)), int(m.group(2)), []
        elif m := frame.match(line):
            stack.append((m.group(1), m.group(2)))
        elif not line.strip() and tid is not None:
            yield tid, period, stack
            tid = None
    if tid is not None:
        yield tid, period, stack
    if proc.wait() != 0:
        sys.exit(f"perf script failed on {perf_data}")


def classify_leveldb(stack):
    """(operation, detail, where) of a sample with a LevelDB frame, or None.
    where: 'leveldb' when the leaf is LevelDB's own code, else the leaf's dso."""
    level = [sym for sym, dso in stack if LEVELDB_DSO in dso]
    if not level:
        return None
    outside_in = list(reversed(level))
    operation = "other"
    for sym in outside_in:
        found = next((op for needle, op in OPERATIONS if needle in sym), None)
        if found:
            operation = found
            break
    detail = "-"
    for needle, name in DETAILS.get(operation, []):
        if any(needle in sym for sym in outside_in):
            detail = name
            break
    leaf_sym, leaf_dso = leaf_of(stack)
    if LEVELDB_DSO in leaf_dso:
        where = "crc32c" if CRC in leaf_sym else "leveldb"
    elif "kernel" in leaf_dso:
        where = "kernel"
    else:
        where = leaf_dso.rsplit("/", 1)[-1].split(".so")[0]
    return operation, detail, where


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("perf_data")
    p.add_argument("--top", type=int, default=15, help="LevelDB functions to list (default: 15)")
    opts = p.parse_args()

    total = 0
    by_tid = collections.Counter()
    roles = collections.defaultdict(collections.Counter)
    dso_by_tid = collections.defaultdict(collections.Counter)
    ops = collections.Counter()
    op_where = collections.defaultdict(collections.Counter)
    op_tid = collections.defaultdict(collections.Counter)
    self_syms = collections.Counter()
    self_by_tid = collections.defaultdict(collections.Counter)
    for tid, period, stack in read_samples(opts.perf_data):
        if not stack:
            continue
        total += period
        by_tid[tid] += period
        if role := role_of([sym for sym, _ in stack]):
            roles[tid][role] += period
        elif own := [sym for sym, dso in stack if dso.endswith("/bitcoind")]:
            roles[tid]["runs " + re.sub(r"\(.*", "", own[-1])[:60]] += period
        leaf_sym, leaf_dso = leaf_of(stack)
        dso_by_tid[tid][leaf_dso.rsplit("/", 1)[-1]] += period
        if LEVELDB_DSO in leaf_dso:
            self_syms[leaf_sym] += period
        self_by_tid[tid][(leaf_sym, leaf_dso.rsplit("/", 1)[-1].split(".so")[0])] += period
        if c := classify_leveldb(stack):
            operation, detail, where = c
            ops[(operation, detail)] += period
            op_where[(operation, detail)][where] += period
            op_tid[(operation, detail)][tid] += period
    if not total:
        sys.exit("no samples")

    def pct(x):
        return f"{100 * x / total:5.1f}%"

    print(f"{total // 1000000 if total > 10**6 else total} {'ms' if total > 10**6 else 'samples'} sampled in all")
    print("\n## threads (share of all samples; top dsos by self time)")
    by_role = collections.Counter()
    role_dsos = collections.defaultdict(collections.Counter)
    role_of_tid = {}
    for tid, n in by_tid.items():
        role = roles[tid].most_common(1)[0][0] if roles[tid] else "other threads"
        role_of_tid[tid] = role
        by_role[role] += n
        role_dsos[role].update(dso_by_tid[tid])
    for role, n in by_role.most_common():
        dsos = ", ".join(f"{d.split('.so')[0]} {100 * m / n:.0f}%" for d, m in role_dsos[role].most_common(4))
        print(f"{pct(n)}  {role:42s} {dsos}")

    level_total = sum(ops.values())
    print(f"\n## leveldb: samples with a LevelDB frame, {pct(level_total)} of all; then the share on the critical"
          " path and where the samples ran (LevelDB itself, its crc32c, libc, kernel)")
    for (operation, detail), n in sorted(ops.items(), key=lambda kv: (-sum(v for (o, _), v in ops.items() if o == kv[0][0]), kv[0][0], -kv[1])):
        where = op_where[(operation, detail)]
        parts = " ".join(f"{w} {100 * m / n:.0f}%" for w, m in where.most_common(4))
        critical = sum(m for tid, m in op_tid[(operation, detail)].items() if role_of_tid[tid] == CRITICAL)
        print(f"{pct(n)}  {operation:22s} {detail:46s} {pct(critical)}  {parts}")

    print(f"\n## leveldb functions by self time (top {opts.top})")
    for sym, n in self_syms.most_common(opts.top):
        print(f"{pct(n)}  {sym[:110]}")

    critical_syms = collections.Counter()
    for tid, syms in self_by_tid.items():
        if role_of_tid[tid] == CRITICAL:
            critical_syms.update(syms)
    print(f"\n## the connecting thread's functions by self time (top {opts.top}; share of all samples, library)")
    for (sym, dso), n in critical_syms.most_common(opts.top):
        print(f"{pct(n)}  {sym[:100]}  ({dso})")


if __name__ == "__main__":
    main()
