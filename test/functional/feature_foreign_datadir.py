#!/usr/bin/env python3
"""coinsdb never touches Bitcoin Core's data directory by accident.

With HOME holding a copy of a datadir Bitcoin Core left (~/.bitcoin) and no
-datadir, bitcoind and bitcoin-cli use ~/.coinsdb and every byte under
~/.bitcoin stays the same. Pointed at the Core datadir with -datadir,
bitcoind refuses with a message naming -allowforeigndatadir, and again
nothing changes: no debug.log, no lock file, no new directory. A file only
Core writes (settings.json) makes coinsdb's own datadir foreign too.
-allowforeigndatadir starts on a Core datadir with a warning, but does not
mark it as coinsdb's: the next start without it is refused again.

Empty blocks/ and chainstate/ directories prepared before the first start,
here symlinks to another "disk", hold no one's data: coinsdb starts, marks
the chain directory and writes its data through the links. A link to a
directory that holds something is refused as before, with nothing written.
These cases need no Core datadir and run first; the rest is skipped
without one.
"""

import hashlib
import os
import shutil
import stat
import subprocess

from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, get_free_port


def foreign_datadir_error(datadir, entries):
    return ("Error: The data directory %s holds data that coinsdb did not create (%s); it looks like Bitcoin Core's. "
            "coinsdb does not verify scripts, yet Bitcoin Core would trust the block index and chainstate it writes, so it "
            "leaves this directory alone. Use another -datadir, or start with -allowforeigndatadir to use this one anyway."
            % (datadir, ", ".join(entries)))


def tree_digest(root):
    """Every directory and file under root: its relative path, and for a file
    its size and sha256."""
    digest = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        digest[rel] = "dir"
        for name in filenames:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                digest[os.path.join(rel, name)] = (os.path.getsize(path), hashlib.sha256(f.read()).hexdigest())
    return digest


def copy_writable(src, dst):
    """The reference files are read-only; the copies must not be, or the test
    would only show that writing was impossible, not that it was not tried."""
    shutil.copytree(src, dst)
    for dirpath, dirnames, filenames in os.walk(dst):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)
    os.chmod(dst, os.stat(dst).st_mode | stat.S_IWUSR)


class ForeignDatadirTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def setup_nodes(self):
        self.prepared_node = self.add_node()
        self.prepared_foreign_node = self.add_node()
        self.template = self.core_datadir_template()
        if not self.template:
            return
        self.home = os.path.join(self.options.tmpdir, "home")
        self.core_datadir = os.path.join(self.home, ".bitcoin")
        copy_writable(self.template, self.core_datadir)
        self.core_digest = tree_digest(self.core_datadir)
        assert "regtest/blocks/xor.dat" in self.core_digest
        self.home_node = self.add_node(home=self.home)

    def assert_core_datadir_unchanged(self):
        assert_equal(tree_digest(self.core_datadir), self.core_digest)

    def run_test(self):
        self.test_prepared_empty_dirs()
        if not self.template:
            raise SkipTest("no Bitcoin Core datadir template (../shared/reference or $COINSDB_CORE_DATADIR): "
                           "only the prepared-directory cases ran")
        self.test_default_datadir()
        self.test_refusal()
        self.test_core_only_file()
        self.test_override()

    def prepare_disk(self, name, node, chainstate_files):
        """An empty blocks/ and a chainstate/ holding chainstate_files on the
        "disk" name, linked from node's chain directory before its first
        start, as an operator with another disk would."""
        disk = os.path.join(self.options.tmpdir, name)
        for sub in ("blocks", "chainstate"):
            os.makedirs(os.path.join(disk, sub))
            os.makedirs(node.net_dir, exist_ok=True)
            os.symlink(os.path.join(disk, sub), os.path.join(node.net_dir, sub))
        for file in chainstate_files:
            with open(os.path.join(disk, "chainstate", file), "w", encoding="utf8") as f:
                f.write("not coinsdb's\n")
        return disk

    def test_prepared_empty_dirs(self):
        node = self.prepared_node
        self.log.info("Empty blocks/ and chainstate/ linked to another disk before the first start are accepted")
        disk = self.prepare_disk("disk", node, [])
        node.start()
        assert_equal(node.getblockcount(), 0)
        node.stop_node()
        assert os.path.isfile(os.path.join(node.net_dir, "coinsdb_datadir"))
        for sub in ("blocks", "chainstate"):
            assert os.path.islink(os.path.join(node.net_dir, sub)), sub
        # The data went through the links.
        assert os.path.isfile(os.path.join(disk, "blocks", "xor.dat"))
        assert os.path.isfile(os.path.join(disk, "chainstate", "CURRENT"))
        self.log.info("... and, marked, they are coinsdb's on the next start")
        node.start()
        assert_equal(node.getblockcount(), 0)
        node.stop_node()

        node = self.prepared_foreign_node
        self.log.info("A link to a chainstate/ that holds something is refused as before, with nothing written")
        disk = self.prepare_disk("foreign_disk", node, ["CURRENT"])
        # The chain directory (no debug.log, no marker) and, through the
        # links, the disk: the datadir itself gets the test's stderr file.
        before = tree_digest(node.net_dir), tree_digest(disk)
        node.assert_start_raises_init_error(None, foreign_datadir_error(node.datadir, ["regtest/chainstate"]))
        assert_equal((tree_digest(node.net_dir), tree_digest(disk)), before)

    def test_default_datadir(self):
        node = self.home_node
        coinsdb_dir = os.path.join(self.home, ".coinsdb")
        self.log.info("Without -datadir, bitcoind uses ~/.coinsdb and leaves ~/.bitcoin alone")
        assert not os.path.exists(coinsdb_dir)
        node.start()
        assert_equal(node.getblockcount(), 0)
        self.log.info("bitcoin-cli without -datadir finds the node's cookie in ~/.coinsdb")
        assert_equal(node.cli.getblockcount(), 0)
        node.stop_node()
        net_dir = os.path.join(coinsdb_dir, "regtest")
        assert "Using data directory %s\n" % net_dir in node.read_debug_log()
        for entry in ("coinsdb_datadir", "debug.log", "blocks", "chainstate"):
            assert os.path.exists(os.path.join(net_dir, entry)), entry
        self.assert_core_datadir_unchanged()

        self.log.info("A restart on the marked ~/.coinsdb is not refused")
        node.start()
        node.stop_node()
        self.assert_core_datadir_unchanged()

    def test_refusal(self):
        node = self.home_node
        expected = foreign_datadir_error(self.core_datadir, ["regtest/blocks", "regtest/chainstate"])
        self.log.info("-datadir=<Core's datadir> -regtest is refused, naming -allowforeigndatadir; nothing is written")
        node.assert_start_raises_init_error(["-datadir=" + self.core_datadir], expected)
        self.assert_core_datadir_unchanged()

        self.log.info("... also with -daemon, and also for main, whose chain directory holds no chain data of Core's")
        node.assert_start_raises_init_error(["-datadir=" + self.core_datadir, "-daemon"], expected)
        self.assert_core_datadir_unchanged()
        done = subprocess.run([self.bitcoind, "-datadir=" + self.core_datadir, "-rpcport=%d" % get_free_port()],
                              capture_output=True, text=True, env=node.env, timeout=60)
        assert_equal((done.returncode, done.stderr.strip()), (1, expected))
        self.assert_core_datadir_unchanged()

    def test_core_only_file(self):
        node = self.home_node
        self.log.info("A file only Bitcoin Core writes makes even coinsdb's own datadir foreign")
        settings = os.path.join(node.net_dir, "settings.json")
        with open(settings, "w", encoding="utf8") as f:
            f.write("{}\n")
        log_size = node.debug_log_size()
        node.assert_start_raises_init_error(None, foreign_datadir_error(node.datadir, ["regtest/settings.json"]))
        assert_equal(node.debug_log_size(), log_size)
        os.remove(settings)
        node.start()
        node.stop_node()

    def test_override(self):
        node = self.home_node
        copy = os.path.join(self.options.tmpdir, "core_copy")
        shutil.copytree(self.core_datadir, copy)
        rpc_auth = ["-rpcuser=u", "-rpcpassword=p"]
        self.log.info("-allowforeigndatadir starts on a Core datadir with a warning on stderr")
        node.start(["-datadir=" + copy, "-allowforeigndatadir"] + rpc_auth)
        assert_equal(node.getblockcount(), 0)
        assert_equal(node.getblockchaininfo()["headers"], 1000)
        node.stop_node(expected_stderr="Warning: -allowforeigndatadir: using %s although it holds data coinsdb did not create: "
                                       "regtest/blocks regtest/chainstate" % copy)
        self.log.info("... and does not mark it as coinsdb's: without the flag it is refused again")
        assert not os.path.exists(os.path.join(copy, "regtest", "coinsdb_datadir"))
        node.assert_start_raises_init_error(["-datadir=" + copy] + rpc_auth,
                                            foreign_datadir_error(copy, ["regtest/blocks", "regtest/chainstate"]))
        self.assert_core_datadir_unchanged()


if __name__ == "__main__":
    ForeignDatadirTest(__file__).main()
