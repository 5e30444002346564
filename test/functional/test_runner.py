#!/usr/bin/env python3
"""Runs the coinsdb functional tests, several at a time.

    test/functional/test_runner.py --builddir build --jobs 2
    test/functional/test_runner.py --builddir build feature_shutdown.py

Each test runs as its own Python process with its own temporary directory.
Prints one line per test as it finishes, the output of every failed test,
and finally `N passed, N failed`. Exits non-zero if any test failed.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TEST_EXIT_PASSED = 0
TEST_EXIT_SKIPPED = 77

# Longest first, so that with --jobs the slow ones do not start last.
ALL_TESTS = [
    "feature_kill.py",
    "feature_swiftsync.py",
    "feature_assumeutxo.py",
    "feature_dbcrash.py",
    "feature_pruning.py",
    "feature_flush.py",
    "feature_loadblock.py",
    "feature_prevoutfetchthreads.py",
    "feature_blocksxor.py",
    "rpc_blockchain.py",
    "feature_core_reads_ingested.py",
    "rpc_help.py",
    "feature_diskfull.py",
    "feature_shutdown.py",
    "feature_foreign_datadir.py",
    "feature_config_args.py",
    "feature_dbbatchsize.py",
    "feature_memory_bound.py",
    "interface_bitcoin_cli.py",
    "interface_rpc.py",
    "tool_install.py",
    "tool_genhints.py",
]

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


class RunningTest:
    def __init__(self, name, builddir, tmproot, extra_args):
        self.name = name
        self.tmpdir = os.path.join(tmproot, name[:-3])
        self.output = tempfile.TemporaryFile(mode="w+", encoding="utf8")
        self.start = time.time()
        command = [sys.executable, os.path.join(TESTS_DIR, name), "--builddir=" + builddir, "--tmpdir=" + self.tmpdir]
        # A session of its own, so that a timeout kills the test's nodes too.
        self.process = subprocess.Popen(command + extra_args, stdout=self.output, stderr=subprocess.STDOUT, cwd=TESTS_DIR,
                                        start_new_session=True)

    def poll(self):
        return self.process.poll()

    def kill(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def read_output(self):
        self.output.seek(0)
        text = self.output.read()
        self.output.close()
        return text


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tests", nargs="*", help="tests to run (default: all); the .py may be left out")
    parser.add_argument("--builddir", default=os.path.join(TESTS_DIR, "..", "..", "build"), help="build directory (default: build/)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="tests to run at once (default: %(default)s)")
    parser.add_argument("--tmpdirprefix", default=tempfile.gettempdir(), help="where the run's directory is created")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a test is killed (default: %(default)s)")
    parser.add_argument("--timeout-factor", type=float, default=1.0, help="passed on to every test")
    parser.add_argument("--nocleanup", action="store_true", help="passed on to every test")
    return parser.parse_args()


def select_tests(names):
    if not names:
        return list(ALL_TESTS)
    selected = []
    for name in names:
        name = os.path.basename(name)
        if not name.endswith(".py"):
            name += ".py"
        if name not in ALL_TESTS:
            sys.exit("test_runner: unknown test %s (known: %s)" % (name, ", ".join(ALL_TESTS)))
        selected.append(name)
    return selected


def main():
    args = parse_args()
    builddir = os.path.abspath(args.builddir)
    for binary in ("src/bitcoind", "src/bitcoin-cli"):
        if not os.access(os.path.join(builddir, binary), os.X_OK):
            sys.exit("test_runner: %s not found; build first or pass --builddir" % os.path.join(builddir, binary))
    tests = select_tests(args.tests)
    jobs = max(1, args.jobs)
    tmproot = tempfile.mkdtemp(prefix="coinsdb_functional_%s_" % time.strftime("%Y%m%d_%H%M%S"), dir=args.tmpdirprefix)
    extra = ["--timeout-factor=%g" % args.timeout_factor] + (["--nocleanup"] if args.nocleanup else [])
    print("Running %d test(s) with %d job(s); temporary files in %s" % (len(tests), jobs, tmproot), flush=True)

    start = time.time()
    pending = list(tests)
    running = []
    results = []  # (name, status, seconds)
    failed_output = []
    while pending or running:
        while pending and len(running) < jobs:
            running.append(RunningTest(pending.pop(0), builddir, tmproot, extra))
        time.sleep(0.05)
        for test in list(running):
            code = test.poll()
            elapsed = time.time() - test.start
            if code is None and elapsed > args.timeout:
                test.kill()
                code = -1
                print("%s: killed after %.0f s" % (test.name, elapsed), flush=True)
            if code is None:
                continue
            running.remove(test)
            output = test.read_output()
            status = "passed" if code == TEST_EXIT_PASSED else "skipped" if code == TEST_EXIT_SKIPPED else "failed"
            results.append((test.name, status, elapsed))
            print("%-28s | %-7s | %5.1f s" % (test.name, status, elapsed), flush=True)
            if status == "failed":
                failed_output.append((test.name, code, output))
            elif status == "skipped":
                reason = [line for line in output.splitlines() if "Test skipped" in line]
                if reason:
                    print("    " + reason[-1], flush=True)

    for name, code, output in failed_output:
        print("\n==== %s failed (exit code %s); its output: ====\n%s" % (name, code, output.rstrip()), flush=True)

    passed = sum(1 for _, status, _ in results if status == "passed")
    skipped = sum(1 for _, status, _ in results if status == "skipped")
    failed = sum(1 for _, status, _ in results if status == "failed")
    print("\nRuntime: %.1f s" % (time.time() - start))
    if skipped:
        print("%d skipped" % skipped)
    if failed or args.nocleanup:
        print("Kept temporary files in %s" % tmproot)
    else:
        shutil.rmtree(tmproot, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
