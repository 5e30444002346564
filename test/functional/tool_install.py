#!/usr/bin/env python3
"""`cmake --install <builddir> --prefix <dir>` installs bitcoind, bitcoin-cli
and every coinsdb-* tool of the build into <dir>/bin, and nothing else; the
installed files are the built ones, byte for byte, and they run from there:
-version of bitcoind and bitcoin-cli, -help of each tool, and a regtest node
started from the installed bitcoind that the installed bitcoin-cli talks to.
Skipped when cmake is not on the PATH.
"""

import hashlib
import os
import shutil
import subprocess

from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.test_node import TestNode
from test_framework.util import assert_equal


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert_equal((done.returncode, done.stderr), (0, ""))
    return done.stdout


class ToolInstallTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 0

    def setup_nodes(self):
        pass

    def run_test(self):
        cmake = shutil.which("cmake")
        if not cmake:
            raise SkipTest("cmake is not on the PATH")
        builddir = os.path.abspath(self.options.builddir)
        tools_dir = os.path.join(builddir, "src", "tools")
        # Every tool the build made, so that a new one without an install
        # rule fails here.
        tools = sorted(name for name in os.listdir(tools_dir)
                       if name.startswith("coinsdb-") and os.access(os.path.join(tools_dir, name), os.X_OK))
        assert tools, "no coinsdb-* tool in %s" % tools_dir
        built = {"bitcoind": self.bitcoind, "bitcoin-cli": self.bitcoin_cli}
        built.update({name: os.path.join(tools_dir, name) for name in tools})

        prefix = os.path.join(self.options.tmpdir, "prefix")
        self.log.info("cmake --install puts bitcoind, bitcoin-cli and %s in <prefix>/bin, and nothing else", ", ".join(tools))
        run([cmake, "--install", builddir, "--prefix", prefix])
        assert_equal(os.listdir(prefix), ["bin"])
        bin_dir = os.path.join(prefix, "bin")
        assert_equal(sorted(os.listdir(bin_dir)), sorted(built))
        for name, path in built.items():
            assert_equal(sha256(os.path.join(bin_dir, name)), sha256(path))

        self.log.info("The installed binaries run: -version, and each tool's -help")
        for name, what in (("bitcoind", "daemon"), ("bitcoin-cli", "RPC client")):
            version = run([os.path.join(bin_dir, name), "-version"])
            assert version.startswith("coinsdb %s version v" % what), version
            assert_equal(version, run([built[name], "-version"]))
        for name in tools:
            assert run([os.path.join(bin_dir, name), "-help"]).startswith("Usage: %s " % name)

        self.log.info("A node started from the installed bitcoind answers the installed bitcoin-cli")
        node = TestNode(0, os.path.join(self.options.tmpdir, "node0"), bitcoind=os.path.join(bin_dir, "bitcoind"),
                        bitcoin_cli=os.path.join(bin_dir, "bitcoin-cli"), log=self.log, rpc_timeout=self.rpc_timeout,
                        timeout_factor=self.options.timeout_factor)
        self.nodes.append(node)
        node.start()
        assert_equal(node.cli.getblockcount(), 0)
        node.stop_node()


if __name__ == "__main__":
    ToolInstallTest(__file__).main()
