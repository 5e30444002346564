#!/usr/bin/env python3
"""Command-line and bitcoin.conf handling: network sections, the
NETWORK_ONLY rule for rpcport, -conf, unknown and ignored options, integer
options out of range (-rpcport and the others), -dbcache, the datadir lock,
a missing or read-only -datadir, the pid file, -rpcallowip without -rpcbind,
-help, -daemon and -stopatheight."""

import os
import re
import signal
import subprocess
import time

from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import (
    assert_equal,
    assert_in,
    assert_not_in,
    get_free_port,
)

MIB = 1 << 20


def cache_sizes_mib(dbcache_mib):
    """The three -dbcache shares (block index db, coins db, coins cache) in
    bytes, as kernel/caches.h splits them."""
    total = max(dbcache_mib * MIB, 4 * MIB)
    block_tree = min(total // 8, 2 * MIB)
    coins_db = min((total - block_tree) // 2, 8 * MIB)
    return block_tree, coins_db, total - block_tree - coins_db


def cache_configuration_lines(dbcache_mib):
    """The 'Cache configuration' lines a node logs for -dbcache=<n>."""
    block_tree, coins_db, coins = cache_sizes_mib(dbcache_mib)
    return [
        "Cache configuration:",
        "* Using %.1f MiB for block index database" % (block_tree / MIB),
        "* Using %.1f MiB for chain state database" % (coins_db / MIB),
        "* Using %.1f MiB for in-memory UTXO set" % (coins / MIB),
    ]


def process_alive(pid):
    """True while pid runs; a zombie counts as gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class ConfigArgsTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 2

    def setup_nodes(self):
        self.add_nodes(self.num_nodes)

    def run_test(self):
        self.test_conf_sections()
        self.test_conf_errors()
        self.test_command_line_errors()
        self.test_unknown_and_ignored()
        self.test_includeconf()
        self.test_logging_options()
        self.test_dbcache()
        self.test_debugstorage()
        self.test_datadir_lock()
        self.test_datadir_errors()
        self.test_pid_file()
        self.test_rpcallowip_without_rpcbind()
        self.test_help()
        self.test_daemon()
        self.test_stopatheight()

    def test_conf_sections(self):
        node = self.nodes[0]
        real_port, bogus_port = get_free_port(), get_free_port()
        self.log.info("bitcoin.conf: [regtest] values apply on regtest; a top-level rpcport is ignored there")
        node.write_conf("\n".join([
            "regtest=1",
            "rpcport=%d" % bogus_port,        # NETWORK_ONLY: main only when top-level
            "dbbatchsize=1048576",            # not NETWORK_ONLY: applies everywhere
            "[main]",
            "dbcache=100",
            "[regtest]",
            "rpcport=%d" % real_port,
            "dbcache=7",
            "",
        ]))
        node.rpc_port = real_port
        offset = node.debug_log_size()
        with node.assert_debug_log(["Chain: regtest", "HTTP RPC server started on port(s) %d" % real_port]
                                   + cache_configuration_lines(7)
                                   + ["* Using 1048576 bytes (1.0 MiB) database write batch size (fixed by -dbbatchsize)"]):
            node.start(use_rpcport=False)
        # Bound on 127.0.0.1 and ::1, the port is named once.
        assert re.search(r"HTTP RPC server started on port\(s\) %d\n" % real_port, node.read_debug_log(offset))
        info = node.getcoinscacheinfo()
        assert_equal(info["dbcache"]["total"], 7 * MIB)
        assert_equal(info["batch_size"], 1048576)
        assert_not_in("HTTP RPC server started on port(s) %d" % bogus_port, node.read_debug_log())

        self.log.info("bitcoin.conf: the command line overrides both the section and the top level")
        with node.assert_debug_log(cache_configuration_lines(5)
                                   + ["* Using 2097152 bytes (2.0 MiB) database write batch size (fixed by -dbbatchsize)"]):
            node.restart(["-dbcache=5", "-dbbatchsize=2097152"], use_rpcport=False)
        assert_equal(node.getcoinscacheinfo()["dbcache"]["total"], 5 * MIB)

        self.log.info("bitcoin.conf: 'regtest.dbcache' at the top level is a [regtest] value")
        node.write_conf("regtest=1\nregtest.dbcache=9\n")
        with node.assert_debug_log(cache_configuration_lines(9)):
            node.restart()
        node.stop_node()

        self.log.info("bitcoin.conf: -regtest on the command line selects regtest without a conf file")
        node.write_conf("")
        with node.assert_debug_log(["Chain: regtest"]):
            node.start(["-regtest"])
        node.stop_node()
        node.write_conf("regtest=1\n")

    def test_conf_errors(self):
        node = self.nodes[1]
        self.log.info("-conf naming a missing file fails")
        missing = os.path.join(node.datadir, "missing.conf")
        node.assert_start_raises_init_error(
            ["-regtest", "-conf=missing.conf"],
            'Error: Error reading configuration file: specified config file "%s" could not be opened.' % missing)

        self.log.info("A conf line without '=' fails with its line number")
        bad_conf = os.path.join(node.datadir, "bad.conf")
        with open(bad_conf, "w", encoding="utf8") as f:
            f.write("regtest=1\nnodebug\n")
        node.assert_start_raises_init_error(
            ["-conf=bad.conf"],
            "Error: Error reading configuration file: parse error on line 2 of %s: nodebug, "
            "if you intended to specify a negated option, use nodebug=1 instead" % bad_conf)

        self.log.info("-includeconf is refused on the command line, and a missing included file names itself")
        node.assert_start_raises_init_error(
            ["-includeconf=x.conf"],
            'Error: Error parsing command line arguments: -includeconf cannot be used from commandline; -includeconf="x.conf"')
        with open(os.path.join(node.datadir, "inc.conf"), "w", encoding="utf8") as f:
            f.write("regtest=1\n[regtest]\nincludeconf=absent.conf\n")
        node.assert_start_raises_init_error(
            ["-conf=inc.conf"],
            "Error: Error reading configuration file: Failed to include configuration file %s" % os.path.join(node.datadir, "absent.conf"))

    def test_includeconf(self):
        node = self.nodes[0]
        self.log.info("includeconf: the included file's values apply, the main file wins a conflict, nesting is ignored with a warning")
        with open(node.conf_path, encoding="utf8") as f:
            conf = f.read()
        node.write_conf(conf + "\ndbcache=100\n[regtest]\nincludeconf=extra.conf\n")
        with open(os.path.join(node.datadir, "extra.conf"), "w", encoding="utf8") as f:
            f.write("dbcache=200\ndbbatchsize=20000000\nincludeconf=nested.conf\n")
        with node.assert_debug_log(["-includeconf cannot be used from included files; ignoring -includeconf=nested.conf",
                                    "Using 20000000 bytes (19.1 MiB) database write batch size (fixed by -dbbatchsize)"]):
            node.start()
        assert_equal(node.getcoinscacheinfo()["dbcache"]["total"], 100 * MIB)
        node.stop_node()
        node.write_conf(conf)

    def test_command_line_errors(self):
        node = self.nodes[1]
        self.log.info("An unknown command-line option fails")
        node.assert_start_raises_init_error(["-foo"], "Error: Error parsing command line arguments: Invalid parameter -foo")
        node.assert_start_raises_init_error(["--foo=1"], "Error: Error parsing command line arguments: Invalid parameter -foo")
        node.assert_start_raises_init_error(["-nofoo"], "Error: Error parsing command line arguments: Invalid parameter -nofoo")
        self.log.info("A stray positional argument fails")
        node.assert_start_raises_init_error(
            ["foo"], "Error: Command line contains unexpected token 'foo', see bitcoind -h for a list of options.")
        self.log.info("Two chains at once fail")
        node.assert_start_raises_init_error(
            ["-testnet"], "Error: Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.")
        self.log.info("A -dbcache that is not a number fails")
        node.assert_start_raises_init_error(["-dbcache=abc"], "Error: Invalid -dbcache value 'abc': expected a size in MiB")
        for value in ("abc", "0", "70000", "-1", "65536", "80.5", ""):
            self.log.info("-rpcport=%s fails instead of picking a port", value)
            node.assert_start_raises_init_error(["-rpcport=" + value], "Error: Invalid port specified in -rpcport: '%s'" % value)
        self.log.info("A bad -rpcport in the [regtest] section fails the same way")
        with open(node.conf_path, encoding="utf8") as f:
            conf = f.read()
        node.write_conf(conf + "\n[regtest]\nrpcport=abc\n")
        node.assert_start_raises_init_error([], "Error: Invalid port specified in -rpcport: 'abc'", use_rpcport=False)
        node.write_conf(conf)
        self.log.info("Other integer options refuse non-numbers and values out of their range")
        for arg, message in (
                ("-rpcthreads=0", "Invalid -rpcthreads value '0': expected an integer from 1 to 1024"),
                ("-rpcthreads=many", "Invalid -rpcthreads value 'many': expected an integer from 1 to 1024"),
                ("-rpcservertimeout=0", "Invalid -rpcservertimeout value '0': expected an integer from 1 to 2147483647"),
                ("-stopatheight=abc", "Invalid -stopatheight value 'abc': expected an integer from 0 to 2147483647"),
                ("-stopatheight=4294967297", "Invalid -stopatheight value '4294967297': expected an integer from 0 to 2147483647"),
                ("-flushinterval=1h", "Invalid -flushinterval value '1h': expected an integer from 1 to 2147483647"),
                ("-dbcrashratio=-1", "Invalid -dbcrashratio value '-1': expected an integer from 0 to 2147483647"),
                ("-prune=-1", "Invalid -prune value '-1': expected a size in MiB"),
                ("-prune=8796093022208", "Invalid -prune value '8796093022208': expected a size in MiB")):
            node.assert_start_raises_init_error([arg], "Error: " + message)

        self.log.info("-debugstorage takes hdd, sdcard or <MB/s>,<sync ms>[,<seek ms>] and nothing else")
        for value in ("ssd", "150", "0,10", "150,10,8,1", "150,x"):
            node.assert_start_raises_init_error(
                ["-debugstorage=" + value],
                "Error: Invalid -debugstorage value '%s': expected hdd, sdcard or <write MB/s>,<sync ms>[,<seek ms>] "
                "with a positive rate and delays from 0 to 3600000 ms" % value)

        self.log.info("Logging categories and levels Core does not know are refused with Core's messages")
        categories = ("addrman, bench, blockstorage, cmpctblock, coindb, estimatefee, http, i2p, ipc, kernel, leveldb, "
                      "mempool, mempoolrej, net, privatebroadcast, proxy, prune, qt, rand, reindex, rpc, scan, "
                      "selectcoins, tor, txpackages, txreconciliation, validation, walletdb, zmq")
        for arg, message in (
                ("-debug=foo", "Unsupported logging category -debug=foo."),
                ("-debug=coinsdb", "Unsupported logging category -debug=coinsdb."),
                ("-debugexclude=foo", "Unsupported logging category -debugexclude=foo."),
                ("-loglevel=foo", "Unsupported global logging level -loglevel=foo. Valid values: info, debug, trace."),
                ("-loglevel=warning", "Unsupported global logging level -loglevel=warning. Valid values: info, debug, trace."),
                ("-loglevel=foo:debug", "Unsupported category-specific logging level -loglevel=foo:debug. Expected "
                 "-loglevel=<category>:<loglevel>. Valid categories: %s. Valid loglevels: info, debug, trace." % categories),
                ("-loglevel=coindb:foo", "Unsupported category-specific logging level -loglevel=coindb:foo. Expected "
                 "-loglevel=<category>:<loglevel>. Valid categories: %s. Valid loglevels: info, debug, trace." % categories)):
            node.assert_start_raises_init_error([arg], "Error: " + message)

    def test_logging_options(self):
        node = self.nodes[0]
        self.log.info("Core's categories without coinsdb lines are accepted; -debug=0 and none enable nothing")
        offset = node.debug_log_size()
        node.start(["-debug=validation", "-debug=net", "-debug=0", "-debugexclude=zmq"])
        node.getblockcount()
        node.stop_node()
        assert_not_in("[rpc]", node.read_debug_log(offset))

        self.log.info("-debug=rpc writes [rpc] lines; -loglevel=info or -loglevel=rpc:info hides them")
        for extra, shown in (([], True), (["-loglevel=info"], False), (["-loglevel=rpc:info"], False),
                             (["-loglevel=info", "-loglevel=rpc:debug"], True), (["-debugexclude=rpc"], False)):
            offset = node.debug_log_size()
            node.start(["-debug=rpc"] + extra)
            node.getblockcount()
            node.stop_node()
            log = node.read_debug_log(offset)
            assert_equal("[rpc] ThreadRPCServer method=getblockcount" in log, shown)

        self.log.info("Timestamps: whole seconds by default (Core's format), microseconds with -logtimemicros, none with -nologtimestamps")
        for extra, pattern in (([], r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ Shutdown: done"),
                               (["-logtimemicros"], r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z Shutdown: done"),
                               (["-nologtimestamps"], r"Shutdown: done")):
            offset = node.debug_log_size()
            node.start(extra)
            node.stop_node()
            last = node.read_debug_log(offset).rstrip().splitlines()[-1]
            assert re.fullmatch(pattern, last), (extra, last)

    def test_debugstorage(self):
        node = self.nodes[0]
        self.log.info("-debugstorage=hdd: the chainstate's database says which device it behaves as")
        with node.assert_debug_log(["chainstate: files behave as on hdd ("]):
            node.start(["-debugstorage=hdd"])
        node.stop_node()
        with node.assert_debug_log(["chainstate: files behave as on 250,3 (250 MB/s, sync 3 ms, seek 0 ms)"]):
            node.start(["-debugstorage=250,3"])
        node.stop_node()
        offset = node.debug_log_size()
        node.start()
        node.stop_node()
        assert_not_in("files behave as on", node.read_debug_log(offset))

    def test_unknown_and_ignored(self):
        node = self.nodes[0]
        self.log.info("Unknown conf keys and sections are logged and ignored")
        node.write_conf("regtest=1\nfoo=bar\n[bogus]\nbaz=1\n")
        with node.assert_debug_log(["Ignoring unknown configuration value foo",
                                    "Ignoring unknown configuration value [bogus] (section)",
                                    "Ignoring unknown configuration value baz"]):
            node.start()
        node.stop_node()
        node.write_conf("regtest=1\n")

        self.log.info("Options of subsystems coinsdb lacks are accepted and logged as having no effect")
        with node.assert_debug_log(["Option -blocksonly has no effect in coinsdb (no peer-to-peer network)",
                                    "Option -connect has no effect in coinsdb (no peer-to-peer network)",
                                    "Option -txindex has no effect in coinsdb (no indexes)",
                                    "Prune configured to target 550 MiB on disk"],
                                   unexpected_msgs=["Option -listen has no effect"]):
            node.start(["-blocksonly=1", "-connect=0", "-txindex", "-prune=550"])
        assert_equal(node.getblockcount(), 0)
        node.stop_node()

    def test_dbcache(self):
        node = self.nodes[0]
        for requested, effective in ((4, 4), (1, 4), (-5, 4), (100, 100), (1000, 1000)):
            self.log.info("-dbcache=%d: Cache configuration shows the %d MiB split", requested, effective)
            with node.assert_debug_log(cache_configuration_lines(effective)):
                node.start(["-dbcache=%d" % requested])
            block_tree, coins_db, coins = cache_sizes_mib(effective)
            assert_equal(node.getcoinscacheinfo()["dbcache"], {"total": effective * MIB, "block_tree_db": block_tree,
                                                               "coins_db": coins_db, "coins": coins})
            node.stop_node()

        # Bitcoin Core's default: 1 GiB on a 64-bit machine with >= 4 GiB.
        ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        default = 1024 if ram >= 4 << 30 else 450
        self.log.info("No -dbcache: %d MiB on a machine with %d MiB of RAM", default, ram >> 20)
        with node.assert_debug_log(cache_configuration_lines(default)):
            node.start()
        node.stop_node()

        # Quiet up to 3/4 of the RAM beyond 2 GiB, a warning (not a refusal)
        # above it, on stderr and in the log, as Core words it.
        largest_quiet = max(450, ((ram - (2 << 30)) // 4 * 3) >> 20)
        self.log.info("-dbcache=%d starts quietly, -dbcache=%d warns", largest_quiet, largest_quiet + 1)
        node.start(["-dbcache=%d" % largest_quiet])
        node.stop_node()
        warning = "A %d MiB dbcache may be too large for a system memory of only %d MiB." % (largest_quiet + 1, ram >> 20)
        with node.assert_debug_log(["[warning] " + warning]):
            node.start(["-dbcache=%d" % (largest_quiet + 1)])
        assert_equal(node.getcoinscacheinfo()["dbcache"]["total"], (largest_quiet + 1) * MIB)
        node.stop_node(expected_stderr="Warning: " + warning)

    def test_datadir_lock(self):
        node = self.nodes[0]
        self.log.info("A second bitcoind on the same datadir fails on the lock and leaves the first running")
        node.start()
        second = subprocess.run([self.bitcoind, "-datadir=" + node.datadir, "-rpcport=%d" % get_free_port(), "-printtoconsole=0"],
                                capture_output=True, text=True, timeout=60)
        assert_equal(second.returncode, 1)
        assert_equal(second.stderr.strip(), "Error: Cannot obtain a lock on directory %s. coinsdb is probably already running."
                     % node.net_dir)
        assert os.path.exists(node.cookie_path)
        assert_equal(node.getblockcount(), 0)

        self.log.info("-daemon on a locked datadir: the parent reports the child's error and exits 1")
        second = subprocess.run([self.bitcoind, "-datadir=" + node.datadir, "-rpcport=%d" % get_free_port(), "-daemon"],
                                capture_output=True, text=True, timeout=60)
        assert_equal(second.returncode, 1)
        assert_equal(second.stdout, "coinsdb starting\n")
        assert_equal(second.stderr.strip(), "Error: Cannot obtain a lock on directory %s. coinsdb is probably already running."
                     % node.net_dir)
        assert_equal(node.getblockcount(), 0)
        node.stop_node()

    def run_bitcoind(self, args, prefix=()):
        """Runs bitcoind to completion, expecting it to fail at start-up."""
        return subprocess.run(list(prefix) + [self.bitcoind, "-rpcport=%d" % get_free_port(), "-printtoconsole=0"] + args,
                              capture_output=True, text=True, timeout=60)

    def test_datadir_errors(self):
        """A missing or read-only datadir is named for what it is."""
        self.log.info("A -datadir that does not exist is refused and not created")
        missing = os.path.join(self.options.tmpdir, "nonexistent")
        result = self.run_bitcoind(["-datadir=" + missing, "-regtest"])
        assert_equal((result.returncode, result.stderr), (1, 'Error: Specified data directory "%s" does not exist.\n' % missing))
        assert not os.path.exists(missing)

        node = self.nodes[0]
        # Root writes anywhere unless it gives up CAP_DAC_OVERRIDE.
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
        datadir_args = ["-datadir=" + node.datadir, "-regtest"]
        self.log.info("A read-only chain directory is reported as such, not as a lock held elsewhere")
        assert os.path.isdir(node.net_dir)
        lock_file = os.path.join(node.net_dir, ".lock")
        if os.path.exists(lock_file):
            os.remove(lock_file)
        os.chmod(node.net_dir, 0o555)
        try:
            result = self.run_bitcoind(datadir_args, prefix)
            assert_equal((result.returncode, result.stderr),
                         (1, "Error: Cannot write to data directory '%s'; check permissions.\n" % node.net_dir))
            self.log.info("... also when a .lock is left from an earlier run")
            os.chmod(node.net_dir, 0o755)
            open(lock_file, "w").close()
            os.chmod(node.net_dir, 0o555)
            result = self.run_bitcoind(datadir_args, prefix)
            assert_equal((result.returncode, result.stderr),
                         (1, "Error: Cannot write to data directory '%s'; check permissions.\n" % node.net_dir))
        finally:
            os.chmod(node.net_dir, 0o755)

        self.log.info("A read-only datadir without the chain directory yet: the same message, for the datadir")
        readonly = os.path.join(self.options.tmpdir, "readonly")
        os.mkdir(readonly, 0o555)
        try:
            result = self.run_bitcoind(["-datadir=" + readonly, "-regtest"], prefix)
            assert_equal((result.returncode, result.stderr),
                         (1, "Error: Cannot write to data directory '%s'; check permissions.\n" % readonly))
            assert_equal(os.listdir(readonly), [])
        finally:
            os.chmod(readonly, 0o755)

    def test_pid_file(self):
        node = self.nodes[0]
        pid_file = os.path.join(node.net_dir, "bitcoind.pid")
        self.log.info("Without -daemon the node writes bitcoind.pid too, and removes it at shutdown")
        node.start()
        with open(pid_file, encoding="utf8") as f:
            assert_equal(int(f.read()), node.process.pid)
        node.stop_node()
        assert not os.path.exists(pid_file)

        self.log.info("-pid=<file> relative to the chain directory; -nopid writes none")
        node.start(["-pid=other.pid"])
        assert os.path.exists(os.path.join(node.net_dir, "other.pid"))
        assert not os.path.exists(pid_file)
        node.stop_node()
        assert not os.path.exists(os.path.join(node.net_dir, "other.pid"))
        node.start(["-nopid"])
        assert_equal([f for f in os.listdir(node.net_dir) if f.endswith(".pid")], [])
        node.stop_node()

        self.log.info("A -pid that cannot be written fails start-up with the reason")
        bad = os.path.join(self.options.tmpdir, "nonexistent", "bitcoind.pid")
        node.assert_start_raises_init_error(
            ["-pid=" + bad], "Error: Unable to create the PID file '%s': No such file or directory (2)" % bad)

        self.log.info("A start-up that fails after writing the pid file removes it")
        node.assert_start_raises_init_error(["-prune=100"], "Error: Prune configured below the minimum of 550 MiB. Please use a higher number.")
        assert not os.path.exists(pid_file)

    def test_rpcallowip_without_rpcbind(self):
        node = self.nodes[0]
        self.log.info("-rpcallowip without -rpcbind: a warning, since the RPC port stays on loopback")
        with node.assert_debug_log(["Option -rpcallowip was specified without -rpcbind; this doesn't usually make sense"]):
            node.start(["-rpcallowip=10.0.0.0/8"])
        node.stop_node()
        self.log.info("-rpcbind without -rpcallowip: ignored, with a warning; both together: no warning")
        with node.assert_debug_log(["Option -rpcbind was ignored because -rpcallowip was not specified"]):
            node.start(["-rpcbind=127.0.0.1"])
        node.stop_node()
        offset = node.debug_log_size()
        node.start(["-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1"])
        assert_not_in("[warning]", node.read_debug_log(offset))
        node.stop_node()

    def test_help(self):
        self.log.info("-help lists -dbcache but not debug options; -help-debug lists -dbbatchsize")
        help_text = subprocess.run([self.bitcoind, "-help"], capture_output=True, text=True, check=True).stdout
        assert help_text.startswith("coinsdb daemon version v"), help_text[:100]
        assert_in("\n  -dbcache=<n>\n", help_text)
        assert_in("\n  -datadir=<dir>\n", help_text)
        assert_not_in("-dbbatchsize", help_text)
        assert_not_in("-assumeutxo", help_text)
        debug_text = subprocess.run([self.bitcoind, "-help-debug"], capture_output=True, text=True, check=True).stdout
        assert_in("\n  -dbbatchsize=<n|auto>\n", debug_text)
        assert_in("(default: 33554432)", debug_text)
        assert_in("\n  -assumeutxo=<height>:<blockhash>:<hash_serialized_3>[:<nchaintx>]\n", debug_text)
        assert_in("\n  -dbcache=<n>\n", debug_text)
        version = subprocess.run([self.bitcoind, "-version"], capture_output=True, text=True, check=True).stdout
        assert version.startswith("coinsdb daemon version v"), version
        assert_in("Follows Bitcoin Core master b88bffe5 (v31.99).", version)

        self.log.info("-h is -help, as the 'see bitcoind -h' hint promises; bitcoin-cli -version names its version")
        short = subprocess.run([self.bitcoind, "-h"], capture_output=True, text=True, check=True).stdout
        assert_equal(short, help_text)
        cli_version = subprocess.run([self.bitcoin_cli, "-version"], capture_output=True, text=True, check=True).stdout
        assert_equal(cli_version, "coinsdb RPC client version v%s\nFollows Bitcoin Core master b88bffe5 (v31.99).\n"
                     % version.split(" version v")[1].split("\n")[0])

    def test_daemon(self):
        node = self.nodes[1]
        self.log.info("-daemon returns once the node serves RPC and writes bitcoind.pid")
        node.rpc_port = get_free_port()
        pid_file = os.path.join(node.net_dir, "bitcoind.pid")
        started = subprocess.run([self.bitcoind, "-datadir=" + node.datadir, "-rpcport=%d" % node.rpc_port, "-daemon"],
                                 capture_output=True, text=True, timeout=60)
        assert_equal(started.returncode, 0)
        assert_equal(started.stdout, "coinsdb starting\n")
        assert_equal(started.stderr, "")
        with open(pid_file, encoding="utf8") as f:
            pid = int(f.read().strip())
        try:
            assert process_alive(pid)
            # No retry: -daemon promises the RPC server is up when it returns.
            assert_equal(node.rpc.getblockcount(), 0)
            self.log.info("-daemon: the stop RPC ends the daemon and removes the pid file")
            assert_equal(node.rpc.stop(), "coinsdb stopping")
            self.wait_until(lambda: not process_alive(pid))
            assert not os.path.exists(pid_file)
            assert node.read_debug_log().rstrip().endswith("Shutdown: done")
        finally:
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)

    def test_stopatheight(self):
        node = self.nodes[1]
        self.log.info("-stopatheight=1 on a chain at height 0 shuts down cleanly right after start-up")
        offset = node.debug_log_size()
        start = time.time()
        node.start(["-stopatheight=1"], wait_for_rpc=False)
        node.wait_until_stopped(expected_ret_code=0, timeout=30)
        log = node.read_debug_log(offset)
        assert_in("-stopatheight=1: the tip is at height 0 and coinsdb has no block source to reach it; shutting down", log)
        assert log.rstrip().endswith("Shutdown: done"), log
        self.log.info("-stopatheight=1 exited after %.2f s", time.time() - start)
        node.start(["-stopatheight=0"])
        node.stop_node()


if __name__ == "__main__":
    ConfigArgsTest(__file__).main()
