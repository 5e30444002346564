"""What the contrib/bench Python scripts share: a bitcoind under
/usr/bin/time, the generator tools, and the debug.log lines they read.

Not a benchmark itself: the scripts beside it import it from their own
directory (a script's directory is on sys.path when it runs).
"""

import json
import os
import re
import importlib.util
import signal
import socket
import shutil
import struct
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

REGTEST_MAGIC = bytes.fromhex("fabfb5da")
MIB = 1 << 20
MB = 1000 * 1000


def fail(message):
    sys.exit(f"{Path(sys.argv[0]).name}: error: {message}")


# --- processes ---------------------------------------------------------------

class Node:
    """One bitcoind under /usr/bin/time, in its own process group so that
    the group, and only it, can be killed if the script stops early."""

    live = []

    def __init__(self, kind, bin_dir, port):
        self.kind = kind
        self.bin_dir = bin_dir
        self.port = port
        self.proc = None
        self.datadir = None
        # Appended to every start's arguments (a variant of one build).
        self.extra_args = []

    def base_args(self, datadir, dbcache):
        args = ["-regtest", f"-datadir={datadir}", f"-dbcache={dbcache}", "-listen=0", "-connect=0",
                "-blocksonly=1", f"-rpcport={self.port}", "-printtoconsole=0", "-debug=coindb", "-daemon=0",
                # Both log whole seconds by default; the timings need more.
                "-logtimemicros"]
        return args

    def start(self, datadir, args, env=None):
        if port_in_use(self.port):
            fail(f"RPC port {self.port} is in use: pick another --port")
        self.datadir = datadir
        self.time_file = datadir / "time.txt"
        self.stderr_file = datadir / "stderr.txt"
        cmd = ["/usr/bin/time", "-v", "-o", str(self.time_file), str(self.bin_dir / "bitcoind"), *args, *self.extra_args]
        with open(self.stderr_file, "w") as stderr:
            self.proc = subprocess.Popen(cmd, env={**os.environ, **(env or {})}, start_new_session=True,
                                         stdout=subprocess.DEVNULL, stderr=stderr)
        self.started = time.monotonic()
        Node.live.append(self)

    def cli(self, *args):
        cmd = [str(self.bin_dir / "bitcoin-cli"), "-regtest", f"-datadir={self.datadir}", f"-rpcport={self.port}",
               "-rpcclienttimeout=0", *args]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{self.kind}: bitcoin-cli {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout

    def wait_ready(self, timeout=300):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                fail(f"{self.kind} bitcoind exited with {self.proc.returncode} before RPC was ready: "
                     f"{self.stderr_file.read_text().strip()} (see {self.log_path()})")
            try:
                self.cli("getblockcount")
                return
            except RuntimeError:
                time.sleep(0.1)
        fail(f"{self.kind} bitcoind did not answer RPC within {timeout} s")

    def wait_exit(self):
        code = self.proc.wait()
        Node.live.remove(self)
        if code != 0:
            fail(f"{self.kind} bitcoind exited with {code}: {self.stderr_file.read_text().strip()} "
                 f"(see {self.log_path()})")
        return time.monotonic()

    def stop(self):
        self.cli("stop")
        return self.wait_exit()

    def log_path(self):
        return self.datadir / "regtest" / "debug.log"

    def log_lines(self):
        return self.log_path().read_text(errors="replace").splitlines()

    def disk_written_mib(self):
        """What the process wrote to the block device (getrusage's output
        blocks of 512 bytes, which /usr/bin/time reports): page-cache
        writes count once they reach the disk, so a file deleted before its
        pages were written back does not count."""
        match = re.search(r"File system outputs: (\d+)", self.time_file.read_text())
        return int(match.group(1)) * 512 / (1 << 20) if match else None

    def peak_rss_mib(self):
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", self.time_file.read_text())
        return int(match.group(1)) / 1024 if match else None

    @classmethod
    def kill_all(cls):
        for node in cls.live:
            try:
                os.killpg(node.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            node.proc.wait()
        cls.live.clear()


# --- plots -------------------------------------------------------------------

SYSTEM_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "BENCH_MATPLOTLIB_REEXEC"


def ensure_matplotlib():
    """The Debian package installs matplotlib for /usr/bin/python3 only; a
    python3 from elsewhere (pyenv, a venv) restarts the script under it."""
    if importlib.util.find_spec("matplotlib"):
        return
    if os.environ.get(REEXEC_ENV) is None and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON):
        probe = subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], capture_output=True) \
            if os.access(SYSTEM_PYTHON, os.X_OK) else None
        if probe is not None and probe.returncode == 0:
            print(f"{Path(sys.argv[0]).name}: no matplotlib for {sys.executable}; running under {SYSTEM_PYTHON}",
                  file=sys.stderr)
            os.execve(SYSTEM_PYTHON, [SYSTEM_PYTHON, *sys.argv], {**os.environ, REEXEC_ENV: "1"})
    fail(f"no matplotlib for {sys.executable}: install python3-matplotlib")


def port_in_use(port):
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def run_tool(cmd):
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{Path(cmd[0]).name}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


# --- debug.log ---------------------------------------------------------------

def log_time(line):
    return datetime.fromisoformat(line.split(" ", 1)[0].replace("Z", "+00:00")).timestamp()


def flush_figures(lines, coins):
    """FlushSnapshotToDisk times, and the cache size per coin at the first
    flush: its coin count is the Committed line's "out of" figure, its size
    the exact "Cache size (<bytes>)" line Core prints before the flush when
    there is one, else the MB (10^6 bytes) of the flush line."""
    times = [float(m.group(1)) for line in lines
             if (m := re.search(r"FlushSnapshotToDisk: completed \(([0-9.]+) ?ms\)", line))]
    figures = {"flush_ms_sum": sum(times), "flush_count": len(times),
               "coins_per_s_batchwrite": coins / (sum(times) / 1000) if times else None}
    for i, line in enumerate(lines):
        m = re.search(r"FlushSnapshotToDisk: (flushing coins cache|saving snapshot chainstate) \(([0-9.]+) MB\) started", line)
        if not m:
            continue
        cache_bytes = float(m.group(2)) * MB
        if i > 0 and (exact := re.search(r"Cache size \((\d+)\) exceeds", lines[i - 1])):
            cache_bytes = int(exact.group(1))
        held = next((int(c.group(1)) for later in lines[i + 1:]
                     if (c := re.search(r"Committed \d+ changed transaction outputs \(out of (\d+)\)", later))), None)
        if held:
            figures.update(first_flush=m.group(1), first_flush_coins=held, first_flush_cache_mb=cache_bytes / MB,
                           bytes_per_coin=cache_bytes / held, coins_per_mib=held / (cache_bytes / MIB))
        break
    return figures


def read_snapshot_header(path):
    with open(path, "rb") as f:
        head = f.read(51)
    if len(head) < 51 or head[:5] != b"utxo\xff":
        fail(f"{path} is not a UTXO snapshot")
    if head[7:11] != REGTEST_MAGIC:
        fail(f"{path} is not a regtest snapshot")
    return struct.unpack_from("<Q", head, 43)[0], head[11:43][::-1].hex()
