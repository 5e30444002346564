"""Base class for coinsdb functional tests.

A test subclasses BitcoinTestFramework, sets num_nodes (and extra_args) in
set_test_params(), does its work in run_test() and ends with
`if __name__ == "__main__": MyTest(__file__).main()`.

Each run gets a fresh temporary directory holding the nodes' datadirs and
test_framework.log; it is removed when the test passes and kept (its path
printed) when it fails.
"""

import argparse
import glob
import logging
import os
import shutil
import sys
import tempfile
import time

from .test_node import TestNode
from .util import wait_until_helper

TEST_EXIT_PASSED = 0
TEST_EXIT_FAILED = 1
TEST_EXIT_SKIPPED = 77

SRC_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class SkipTest(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message


class BitcoinTestFramework:
    def __init__(self, test_file):
        self.test_file = test_file
        self.nodes = []
        self.num_nodes = 1
        self.extra_args = None
        self.rpc_timeout = 60
        self.options = None
        self.log = logging.getLogger("TestFramework")
        self.set_test_params()

    # Hooks for subclasses -----------------------------------------------

    def set_test_params(self):
        raise NotImplementedError

    def add_options(self, parser):
        pass

    def setup_nodes(self):
        self.add_nodes(self.num_nodes, self.extra_args)
        self.start_nodes()

    def run_test(self):
        raise NotImplementedError

    def cleanup(self):
        """Undoes what the test set up outside its nodes (a mount, say).
        Runs once every node has stopped, pass or fail, before the test
        directory is removed."""

    # Running ------------------------------------------------------------------

    def parse_args(self):
        parser = argparse.ArgumentParser(description=self.__doc__)
        parser.add_argument("--builddir", default=os.path.join(SRC_ROOT, "build"),
                            help="build directory holding src/bitcoind and src/bitcoin-cli (default: %(default)s)")
        parser.add_argument("--tmpdir", help="directory for datadirs and logs (created; default: a new temporary directory)")
        parser.add_argument("--nocleanup", action="store_true", help="keep the temporary directory after a pass")
        parser.add_argument("--loglevel", default="INFO", help="console log level: DEBUG, INFO, WARNING (default: %(default)s)")
        parser.add_argument("--timeout-factor", type=float, default=1.0, help="multiply every timeout by this (slow machines)")
        self.add_options(parser)
        self.options = parser.parse_args()

    def main(self):
        self.parse_args()
        builddir = os.path.abspath(self.options.builddir)
        self.bitcoind = os.path.join(builddir, "src", "bitcoind")
        self.bitcoin_cli = os.path.join(builddir, "src", "bitcoin-cli")
        self.gensnapshot = os.path.join(builddir, "src", "tools", "coinsdb-gensnapshot")
        if self.options.tmpdir:
            self.options.tmpdir = os.path.abspath(self.options.tmpdir)
            os.makedirs(self.options.tmpdir, exist_ok=False)
        else:
            self.options.tmpdir = tempfile.mkdtemp(prefix="coinsdb_test_")
        self.setup_logging()

        status = TEST_EXIT_FAILED
        try:
            for binary in (self.bitcoind, self.bitcoin_cli):
                if not os.access(binary, os.X_OK):
                    raise SkipTest("%s not found: build first or pass --builddir" % binary)
            self.log.info("Initializing test directory %s", self.options.tmpdir)
            self.setup_nodes()
            self.run_test()
            status = TEST_EXIT_PASSED
        except SkipTest as e:
            self.log.warning("Test skipped: %s", e.message)
            status = TEST_EXIT_SKIPPED
        except AssertionError:
            self.log.exception("Assertion failed")
        except KeyboardInterrupt:
            self.log.warning("Exiting after keyboard interrupt")
        except Exception:
            self.log.exception("Unexpected exception caught during testing")
        finally:
            status = self.shutdown(status)
        sys.exit(status)

    def shutdown(self, status):
        for node in self.nodes:
            if node.process is None:
                continue
            try:
                if node.running and status == TEST_EXIT_PASSED:
                    node.stop_node()
                else:
                    node.kill_process()
            except Exception:
                self.log.exception("Could not stop node %d", node.index)
                node.kill_process()
                status = TEST_EXIT_FAILED
        if status == TEST_EXIT_FAILED:
            self.print_debug_log_tails()
        try:
            self.cleanup()
        except Exception:
            self.log.exception("Cleanup failed")
            status = TEST_EXIT_FAILED
        if status == TEST_EXIT_PASSED:
            self.log.info("Tests successful")
        elif status == TEST_EXIT_FAILED:
            self.log.error("Test failed. Test logging and datadirs kept in %s", self.options.tmpdir)
        logging.shutdown()
        if status != TEST_EXIT_FAILED and not self.options.nocleanup:
            shutil.rmtree(self.options.tmpdir, ignore_errors=True)
        return status

    def print_debug_log_tails(self, lines=30):
        for node in self.nodes:
            text = node.read_debug_log()
            if text:
                tail = "\n".join(text.splitlines()[-lines:])
                print("\n--- node%d debug.log (last %d lines) ---\n%s" % (node.index, lines, tail), flush=True)

    def setup_logging(self):
        self.log.setLevel(logging.DEBUG)
        self.log.propagate = False
        formatter = logging.Formatter("%(asctime)s.%(msecs)03dZ %(name)s (%(levelname)s): %(message)s",
                                      datefmt="%Y-%m-%dT%H:%M:%S")
        formatter.converter = time.gmtime
        file_handler = logging.FileHandler(os.path.join(self.options.tmpdir, "test_framework.log"), encoding="utf8")
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(formatter)
        console = logging.StreamHandler(sys.stdout)
        console.setLevel(self.options.loglevel.upper())
        console.setFormatter(formatter)
        self.log.addHandler(file_handler)
        self.log.addHandler(console)

    # Nodes --------------------------------------------------------------------

    def add_node(self, extra_args=None, *, home=None):
        """home: run the node with HOME=home and no -datadir (see TestNode)."""
        index = len(self.nodes)
        node = TestNode(index, os.path.join(self.options.tmpdir, "node%d" % index), bitcoind=self.bitcoind,
                        bitcoin_cli=self.bitcoin_cli, log=self.log, extra_args=extra_args, rpc_timeout=self.rpc_timeout,
                        timeout_factor=self.options.timeout_factor, home=home)
        self.nodes.append(node)
        return node

    def add_core_node(self, extra_args=None):
        """A Bitcoin Core node from the reference build (reference_core_bin()),
        driven like a coinsdb node, with no network: for side-by-side
        comparisons. Raises SkipTest when the build is missing."""
        bin_dir = self.reference_core_bin()
        if not bin_dir:
            raise SkipTest("no Bitcoin Core reference build (../shared/reference/bitcoin-core-*/bin or "
                           "$COINSDB_CORE_BIN): nothing to compare with")
        index = len(self.nodes)
        node = TestNode(index, os.path.join(self.options.tmpdir, "core%d" % index), bitcoind=os.path.join(bin_dir, "bitcoind"),
                        bitcoin_cli=os.path.join(bin_dir, "bitcoin-cli"), log=self.log,
                        extra_args=["-listen=0", "-connect=0", "-dnsseed=0", "-fixedseeds=0"] + list(extra_args or []),
                        rpc_timeout=self.rpc_timeout, timeout_factor=self.options.timeout_factor)
        self.nodes.append(node)
        return node

    def add_nodes(self, count, extra_args=None):
        extra_args = extra_args or [[]] * count
        assert len(extra_args) == count
        for args in extra_args:
            self.add_node(args)

    def start_node(self, i, extra_args=None, **kwargs):
        self.nodes[i].start(extra_args, **kwargs)

    def start_nodes(self):
        for node in self.nodes:
            node.start()

    def stop_node(self, i, **kwargs):
        self.nodes[i].stop_node(**kwargs)

    def stop_nodes(self):
        for node in self.nodes:
            if node.running:
                node.stop_node()

    def restart_node(self, i, extra_args=None):
        self.nodes[i].restart(extra_args)

    def wait_until(self, predicate, *, timeout=60):
        return wait_until_helper(predicate, timeout=timeout * self.options.timeout_factor)

    # Paths outside the test directory --------------------------------------------

    @staticmethod
    def core_datadir_template():
        """A datadir Bitcoin Core left (regtest, 1000 headers): $COINSDB_CORE_DATADIR,
        else the reference build's template/datadir under ../shared/reference.
        None when absent."""
        path = os.environ.get("COINSDB_CORE_DATADIR")
        if not path:
            found = sorted(glob.glob(os.path.join(SRC_ROOT, "..", "shared", "reference", "bitcoin-core-*", "template", "datadir")))
            path = found[-1] if found else ""
        path = os.path.abspath(path) if path else ""
        return path if os.path.isdir(path) else None

    @staticmethod
    def reference_core_bin():
        """The bin/ of a Bitcoin Core build to compare with: $COINSDB_CORE_BIN,
        else the newest ../shared/reference/bitcoin-core-*/bin. None when
        absent or without bitcoind and bitcoin-cli."""
        path = os.environ.get("COINSDB_CORE_BIN")
        if not path:
            found = sorted(glob.glob(os.path.join(SRC_ROOT, "..", "shared", "reference", "bitcoin-core-*", "bin")))
            path = found[-1] if found else ""
        path = os.path.abspath(path) if path else ""
        if not all(os.access(os.path.join(path, name), os.X_OK) for name in ("bitcoind", "bitcoin-cli")):
            return None
        return path

    @staticmethod
    def vectors_dir():
        """The shared Bitcoin Core vectors: $COINSDB_VECTORS, else
        ../shared/vectors beside the source tree. None when absent."""
        path = os.environ.get("COINSDB_VECTORS") or os.path.join(SRC_ROOT, "..", "shared", "vectors")
        path = os.path.abspath(path)
        return path if os.path.isdir(path) else None
