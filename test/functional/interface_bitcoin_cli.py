#!/usr/bin/env python3
"""bitcoin-cli against a running node: results as RPC returns them, output
formats, -named, -stdin, -stdinrpcpass, RPC and connection errors with
their exit codes, authentication failures and -rpcwait."""

import json
import os
import socket
import re
import subprocess
import time

from test_framework.authproxy import JSONRPCException
from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import assert_equal, assert_greater_than_or_equal, assert_in, assert_raises_rpc_error

CONNECT_HINT = ("\n\nMake sure the bitcoind server is running and that you are connecting to the correct RPC port."
                "\nUse \"bitcoin-cli -help\" for more info.")
INVALID_TYPE = 'Invalid snapshot type "bogus" specified. Please specify "rollback" or "latest"'


def cli_exit_code(rpc_code):
    """bitcoin-cli exits 1 on every RPC error. (Upstream exits with |code|,
    which the shell sees modulo 256: -32601 exits 89; coinsdb chose 1.)"""
    return 1


def reindent(text):
    """text parsed and written again as JSON with two-space indentation,
    non-integer numbers kept exactly as written."""
    marker = "\u0000"
    parsed = json.loads(text, parse_float=lambda number: marker + number)
    return re.sub(r'"\\u0000([^"]*)"', r"\1", json.dumps(parsed, indent=2)) + "\n"


class BitcoinCliTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        self.test_results(node)
        self.test_named_and_stdin(node)
        self.test_rpc_errors(node)
        self.test_usage_errors(node)
        self.test_auth(node)
        self.test_not_running(node)
        self.test_rpcwait(node)

    def test_results(self, node):
        self.log.info("getblockcount and getbestblockhash agree with RPC")
        assert_equal(node.cli.getblockcount(), node.getblockcount())
        assert_equal(node.cli.getbestblockhash(), node.getbestblockhash())

        self.log.info("A string result is printed bare, a number as is")
        result = node.cli.run("getbestblockhash")
        assert_equal((result.returncode, result.stdout, result.stderr), (0, node.getbestblockhash() + "\n", ""))
        result = node.cli.run("getblockcount")
        assert_equal((result.returncode, result.stdout, result.stderr), (0, "0\n", ""))

        self.log.info("Objects are printed as JSON indented by two spaces per level")
        for method in ("gettxoutsetinfo", "getchainstates", "getcoinscacheinfo"):
            result = node.cli.run(method)
            assert_equal(result.returncode, 0)
            assert_equal(result.stdout, reindent(result.stdout))
        assert_in('\n  "total_amount": 0.00000000,\n', node.cli.run("gettxoutsetinfo").stdout)
        chainstates = node.cli.run("getchainstates").stdout
        assert_in('\n  "chainstates": [\n    {\n      "bestblockhash": ', chainstates)
        rpc_info = node.gettxoutsetinfo()
        cli_info = node.cli.gettxoutsetinfo()
        assert_equal(cli_info, rpc_info)

        self.log.info("help lists the commands; help <command> matches RPC")
        help_text = node.cli.run("help").stdout
        assert_in("== Blockchain ==\n", help_text)
        assert_in('loadtxoutset "path"\n', help_text)
        # The text ends with a newline, and bitcoin-cli adds one, as Core's
        # does; the cli wrapper strips them.
        assert node.help("getblockcount").endswith("/\n")
        assert_equal(node.cli.help("getblockcount"), node.help("getblockcount").rstrip("\n"))
        assert node.cli.run("help", "getblockcount").stdout.endswith("/\n\n")

    def test_named_and_stdin(self, node):
        self.log.info("-named passes name=value parameters")
        info = node.cli("-named").gettxoutsetinfo("hash_type=none")
        assert "hash_serialized_3" not in info
        assert_equal(info["txouts"], 0)
        path = os.path.join(self.options.tmpdir, "named.dat")
        result = node.cli.dumptxoutset(path=path, type="latest")
        assert_equal(result["path"], path)
        assert_equal(result["coins_written"], 0)
        assert os.path.isfile(path)
        assert_raises_rpc_error(-8, "Unknown named parameter bogus", node.cli("-named").gettxoutsetinfo, "bogus=1")

        self.log.info("-stdin reads one extra argument per line")
        path = os.path.join(self.options.tmpdir, "stdin.dat")
        result = node.cli.run("-stdin", "dumptxoutset", input="%s\nlatest\n" % path)
        assert_equal(result.returncode, 0)
        assert_equal(json.loads(result.stdout)["path"], path)
        result = node.cli.run("-stdin", "help", input="getblockcount\n")
        assert_equal(result.stdout, node.help("getblockcount") + "\n")

    def test_rpc_errors(self, node):
        self.log.info("An RPC error: exit code 1, 'error code:' and 'error message:' on stderr")
        path = os.path.join(self.options.tmpdir, "bogus.dat")
        result = node.cli.run("dumptxoutset", path, "bogus")
        assert_equal(result.returncode, cli_exit_code(-8))
        assert_equal(result.stdout, "")
        assert_equal(result.stderr, "error code: -8\nerror message:\n%s\n" % INVALID_TYPE)
        assert_raises_rpc_error(-8, INVALID_TYPE, node.cli.dumptxoutset, path, "bogus")

        self.log.info("An unknown method: error code -32601")
        result = node.cli.run("nosuchmethod")
        assert_equal(result.returncode, cli_exit_code(-32601))
        assert_equal(result.stderr, "error code: -32601\nerror message:\nMethod not found\n")

        self.log.info("loadtxoutset of a missing file: error code -8")
        missing = os.path.join(self.options.tmpdir, "missing.dat")
        result = node.cli.run("loadtxoutset", missing)
        assert_equal(result.returncode, cli_exit_code(-8))
        assert_equal(result.stderr, "error code: -8\nerror message:\nCouldn't open file %s for reading.\n" % missing)
        self.log.info("A loadtxoutset failure: error code -32603 with the loader's message")
        unknown = os.path.join(self.options.tmpdir, "unknown_base.dat")
        with open(unknown, "wb") as f:
            f.write(b"utxo\xff" + (2).to_bytes(2, "little") + bytes.fromhex("fabfb5da") + bytes(32) + bytes(8))
        result = node.cli.run("loadtxoutset", unknown)
        assert_equal(result.returncode, cli_exit_code(-32603))
        assert_equal(result.stderr, "error code: -32603\nerror message:\nUnable to load UTXO snapshot: Assumeutxo height in snapshot "
                     "metadata not recognized for base block %s: this chain has no assumeutxo entry for it (%s)\n" % ("00" * 32, unknown))

    def test_usage_errors(self, node):
        self.log.info("No command: usage and 'too few parameters', exit 1")
        result = subprocess.run([self.bitcoin_cli], capture_output=True, text=True)
        assert_equal(result.returncode, 1)
        assert result.stderr.endswith("Error: too few parameters\n"), result.stderr[-200:]
        result = node.cli.run()
        assert_equal((result.returncode, result.stderr), (1, "error: too few parameters (need at least command)\n"))

        self.log.info("A missing -datadir, a bad -rpcport and an unknown option fail with exit 1")
        missing_dir = os.path.join(self.options.tmpdir, "nonexistent")
        result = subprocess.run([self.bitcoin_cli, "-datadir=" + missing_dir, "getblockcount"], capture_output=True, text=True)
        assert_equal((result.returncode, result.stderr), (1, 'Error: Specified data directory "%s" does not exist.\n' % missing_dir))
        result = node.cli("-rpcport=0").run("getblockcount", with_port=False)
        assert_equal((result.returncode, result.stderr), (1, "error: Invalid port provided in -rpcport: 0\n"))
        result = node.cli.run("-foo", "getblockcount")
        assert_equal((result.returncode, result.stderr), (1, "Error parsing command line arguments: Invalid parameter -foo\n"))

        self.log.info("-rpcconnect with a port and -rpcport: -rpcport wins, with a warning")
        result = node.cli("-rpcconnect=127.0.0.1:1").run("getblockcount")
        assert_equal(result.returncode, 0)
        assert_equal(result.stdout, "0\n")
        assert_equal(result.stderr, "Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport %d\n" % node.rpc_port)

    def test_auth(self, node):
        self.log.info("A wrong -rpcpassword: authorization failure, exit 1")
        result = node.cli("-rpcuser=alice", "-rpcpassword=wrong").run("getblockcount")
        assert_equal((result.returncode, result.stdout), (1, ""))
        assert_equal(result.stderr, "error: Authorization failed: Incorrect rpcuser or rpcpassword\n")

        self.log.info("A node with -rpcuser/-rpcpassword: the right password works, also through -stdinrpcpass")
        node.restart(["-rpcuser=alice", "-rpcpassword=secret"])
        assert not os.path.exists(node.cookie_path)
        assert_equal(node.cli("-rpcuser=alice", "-rpcpassword=secret").getblockcount(), 0)
        result = node.cli("-rpcuser=alice", "-stdinrpcpass").run("getblockcount", input="secret\n")
        assert_equal((result.returncode, result.stdout), (0, "0\n"))
        result = node.cli("-rpcuser=alice", "-stdinrpcpass", "-stdin").run("help", input="secret\ngetblockcount\n")
        assert_equal(result.stdout, node.rpc_proxy(user="alice", password="secret").help("getblockcount") + "\n")
        result = node.cli("-rpcuser=alice", "-rpcpassword=wrong").run("getblockcount")
        assert_equal((result.returncode, result.stderr), (1, "error: Authorization failed: Incorrect rpcuser or rpcpassword\n"))
        self.log.info("Without a cookie and a password the cli says where it looked")
        result = node.cli.run("getblockcount")
        assert_equal(result.returncode, 1)
        assert_equal(result.stderr, "error: Could not locate RPC credentials. No authentication cookie could be found, and RPC "
                     "password is not set.  See -rpcpassword and -stdinrpcpass.  Configuration file: (%s)\n" % node.conf_path)
        node.rpc_proxy(user="alice", password="secret").stop()
        node.wait_until_stopped()
        node.start()

    def test_not_running(self, node):
        self.log.info("Server not running: exit 1 and the 'Could not connect to the server' hint")
        node.stop_node()
        result = node.cli("-rpcpassword=x").run("getblockcount")
        assert_equal(result.returncode, 1)
        assert result.stderr.startswith("error: Error while attempting to communicate with server 127.0.0.1:%d "
                                        "(Could not connect to the server)" % node.rpc_port), result.stderr
        assert result.stderr.endswith(CONNECT_HINT + "\n"), result.stderr

        self.log.info("Server not running and no cookie: the same, not a complaint about credentials")
        assert not os.path.exists(node.cookie_path)
        assert_equal(node.cli().run("getblockcount").stderr, result.stderr)

        self.log.info("A server that accepts but does not reply: '(timeout)', and that the call may still be running")
        with socket.socket() as silent:
            # The node's connections may leave the port in TIME_WAIT.
            silent.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            silent.bind(("127.0.0.1", node.rpc_port))
            silent.listen(1)
            result = node.cli("-rpcpassword=x", "-rpcclienttimeout=1").run("getblockcount")
        assert_equal(result.returncode, 1)
        assert_equal(result.stderr, "error: Error while attempting to communicate with server 127.0.0.1:%d (timeout)\n\n"
                     "No reply within -rpcclienttimeout=1 seconds: the server may be unreachable, or still running the call; "
                     "-rpcclienttimeout=0 waits without limit.\nUse \"bitcoin-cli -help\" for more info.\n" % node.rpc_port)

        self.log.info("-rpcwait -rpcwaittimeout=1 gives up after about a second")
        start = time.time()
        result = node.cli("-rpcpassword=x", "-rpcwait", "-rpcwaittimeout=1").run("getblockcount")
        assert_greater_than_or_equal(time.time() - start, 1)
        assert_equal(result.returncode, 1)
        assert result.stderr.startswith("error: timeout on transient error: Error while attempting to communicate with server "
                                        "127.0.0.1:%d (Could not connect to the server)" % node.rpc_port), result.stderr

    def test_rpcwait(self, node):
        self.log.info("-rpcwait: a cli started before the node waits for it and succeeds")
        waiting = subprocess.Popen(node.cli("-rpcwait").base_command() + ["getblockcount"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        assert waiting.poll() is None, "bitcoin-cli -rpcwait returned before the node started"
        node.start()
        stdout, stderr = waiting.communicate(timeout=60)
        assert_equal((waiting.returncode, stdout, stderr), (0, "0\n", ""))
        try:
            node.cli("-rpcwait").getblockcount()
        except JSONRPCException as e:
            raise AssertionError("-rpcwait on a running node failed: %s" % e)


if __name__ == "__main__":
    BitcoinCliTest(__file__).main()
