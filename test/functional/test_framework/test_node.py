"""A bitcoind process under test, and bitcoin-cli run against it."""

import contextlib
import decimal
import enum
import errno
import http.client
import json
import os
import re
import subprocess
import time

from .authproxy import AuthServiceProxy, JSONRPCException
from .util import get_free_port, wait_until_helper

RPC_IN_WARMUP = -28
# How many times start() picks a new port when the one it chose was taken
# between get_free_port() and the node's bind.
PORT_RETRIES = 5
BIND_FAILURE = "Unable to start HTTP server"


class FailedToStartError(Exception):
    """bitcoind exited during start-up."""


class ErrorMatch(enum.Enum):
    FULL_TEXT = 1
    FULL_REGEX = 2
    PARTIAL_REGEX = 3


class TestNode:
    """With home set, bitcoind and bitcoin-cli run with HOME=home and no
    -datadir, so the datadir is the default home/.coinsdb; the node does not
    create it (bitcoind must) and -regtest goes on the command line."""

    def __init__(self, index, datadir, *, bitcoind, bitcoin_cli, log, extra_args=None, rpc_timeout=60, timeout_factor=1.0,
                 home=None):
        self.index = index
        self.home = home
        self.env = dict(os.environ, HOME=home) if home else None
        if home:
            datadir = os.path.join(home, ".coinsdb")
        self.datadir = datadir
        self.chain = "regtest"
        self.net_dir = os.path.join(datadir, self.chain)
        self.bitcoind = bitcoind
        self.bitcoin_cli = bitcoin_cli
        self.log = log
        self.extra_args = list(extra_args or [])
        self.rpc_timeout = rpc_timeout
        self.timeout_factor = timeout_factor
        self.rpc_port = get_free_port()
        self.process = None
        self.running = False
        # Set from -rpcuser/-rpcpassword on the command line; the cookie is
        # used otherwise.
        self.rpc_user = None
        self.rpc_password = None
        self.starts = 0
        self.stdout_path = None
        self.stderr_path = None
        self.conf_path = os.path.join(datadir, "bitcoin.conf")
        if not home:
            os.makedirs(datadir, exist_ok=True)
            # Only the chain lives in the conf file, so bitcoin-cli pointed at
            # the datadir finds regtest too; everything else is on the command line.
            self.write_conf("regtest=1\n")
        self.cli = TestNodeCLI(self)

    # Paths -------------------------------------------------------------

    @property
    def debug_log_path(self):
        return os.path.join(self.net_dir, "debug.log")

    @property
    def cookie_path(self):
        return os.path.join(self.net_dir, ".cookie")

    @property
    def snapshot_chainstate_dir(self):
        return os.path.join(self.net_dir, "chainstate_snapshot")

    def write_conf(self, text):
        with open(self.conf_path, "w", encoding="utf8") as f:
            f.write(text)

    def append_conf(self, text):
        with open(self.conf_path, "a", encoding="utf8") as f:
            f.write(text)

    # RPC ---------------------------------------------------------------

    def rpc_proxy(self, *, port=None, user=None, password=None, timeout=None):
        if password is None and self.rpc_password is not None:
            user, password = self.rpc_user, self.rpc_password
        if password is not None:
            return AuthServiceProxy("127.0.0.1", port or self.rpc_port, user=user, password=password,
                                    timeout=timeout or self.rpc_timeout)
        return AuthServiceProxy("127.0.0.1", port or self.rpc_port, cookie_file=self.cookie_path,
                                timeout=timeout or self.rpc_timeout)

    @property
    def rpc(self):
        return self.rpc_proxy()

    def __getattr__(self, name):
        # node.getblockcount() is node.rpc.getblockcount(); only while running,
        # so a typo in an attribute name is not mistaken for an RPC.
        if name.startswith("_"):
            raise AttributeError(name)
        if not self.__dict__.get("running"):
            raise AttributeError("%s: node %d is not running" % (name, self.__dict__.get("index", -1)))
        return getattr(self.rpc, name)

    # Start and stop ------------------------------------------------------

    def datadir_args(self):
        return ["-regtest"] if self.home else ["-datadir=" + self.datadir]

    def _command(self, extra_args, use_rpcport):
        args = [self.bitcoind] + self.datadir_args() + ["-printtoconsole=0"]
        if use_rpcport:
            args.append("-rpcport=%d" % self.rpc_port)
        return args + self.extra_args + list(extra_args or [])

    def _open_output_files(self):
        self.starts += 1
        # Beside the datadir when it is the default one, which must stay
        # bitcoind's to create.
        output_dir = self.home or self.datadir
        self.stdout_path = os.path.join(output_dir, "stdout.%d.txt" % self.starts)
        self.stderr_path = os.path.join(output_dir, "stderr.%d.txt" % self.starts)
        return open(self.stdout_path, "w+b"), open(self.stderr_path, "w+b")

    def start(self, extra_args=None, *, use_rpcport=True, wait_for_rpc=True, env=None):
        """Starts bitcoind and (by default) waits until it answers RPC."""
        assert self.process is None, "node %d already started" % self.index
        for attempt in range(PORT_RETRIES):
            command = self._command(extra_args, use_rpcport)
            self.rpc_user = self.rpc_password = None
            for arg in command[1:]:
                if arg.startswith("-rpcuser="):
                    self.rpc_user = arg.split("=", 1)[1]
                elif arg.startswith("-rpcpassword="):
                    self.rpc_password = arg.split("=", 1)[1] or None
            stdout, stderr = self._open_output_files()
            with stdout, stderr:
                self.log.debug("node%d: %s", self.index, " ".join(command))
                self.process = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env or self.env)
            if not wait_for_rpc:
                return
            try:
                self.wait_for_rpc_connection()
                return
            except FailedToStartError as e:
                if not (use_rpcport and BIND_FAILURE in str(e)) or attempt + 1 == PORT_RETRIES:
                    raise
                self.log.debug("node%d: port %d taken, retrying with another", self.index, self.rpc_port)
                self.rpc_port = get_free_port()

    def read_stderr(self):
        with open(self.stderr_path, "r", encoding="utf8", errors="replace") as f:
            return f.read()

    def read_stdout(self):
        with open(self.stdout_path, "r", encoding="utf8", errors="replace") as f:
            return f.read()

    def wait_for_rpc_connection(self):
        deadline = time.time() + self.rpc_timeout * self.timeout_factor
        while time.time() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise FailedToStartError("bitcoind (node %d) exited with status %d during initialization: %s"
                                         % (self.index, code, self.read_stderr().strip()))
            try:
                self.rpc_proxy(timeout=5).getblockcount()
                self.running = True
                self.log.debug("node%d: RPC ready on port %d", self.index, self.rpc_port)
                return
            except JSONRPCException as e:
                # 401: the cookie read was a killed node's, left behind
                # until the new node writes its own.
                stale_cookie = e.error.get("message") == "HTTP 401 Unauthorized" and not self.rpc_user
                if e.error.get("code") != RPC_IN_WARMUP and not stale_cookie:
                    raise
            except FileNotFoundError:
                pass  # the cookie is not written yet
            except http.client.HTTPException:
                pass  # the server closed the connection while starting
            except OSError as e:
                if e.errno not in (None, errno.ECONNREFUSED, errno.ECONNRESET, errno.EPIPE):
                    raise
            time.sleep(0.05)
        self.kill_process()
        raise AssertionError("node %d did not answer RPC within %g seconds" % (self.index, self.rpc_timeout))

    def stop_node(self, *, expected_stderr="", expected_ret_code=0, timeout=60):
        """Stops the node with the stop RPC and waits for it to exit."""
        self.log.debug("node%d: stopping", self.index)
        try:
            self.rpc.stop()
        except (ConnectionError, http.client.HTTPException) as e:
            self.log.debug("node%d: stop RPC failed (%s); waiting for exit anyway", self.index, e)
        self.wait_until_stopped(expected_ret_code=expected_ret_code, expected_stderr=expected_stderr, timeout=timeout)

    def wait_until_stopped(self, *, expected_ret_code=0, expected_stderr="", timeout=60):
        try:
            code = self.process.wait(timeout=timeout * self.timeout_factor)
        except subprocess.TimeoutExpired:
            raise AssertionError("node %d did not exit within %g seconds" % (self.index, timeout))
        self.process = None
        self.running = False
        stderr = self.read_stderr().strip()
        if code != expected_ret_code:
            raise AssertionError("node %d exited with %d, expected %d; stderr: %s" % (self.index, code, expected_ret_code, stderr))
        if expected_stderr is not None and stderr != expected_stderr:
            raise AssertionError("node %d: unexpected stderr %r (expected %r)" % (self.index, stderr, expected_stderr))
        return code

    def send_signal(self, sig):
        self.process.send_signal(sig)

    def kill_process(self):
        """kill -9, then reap. Returns the exit status: -9 when the kill
        ended the process, its own status when it had exited before (None
        when no process was running)."""
        if self.process is None:
            return None
        self.process.kill()
        code = self.process.wait(timeout=30)
        self.process = None
        self.running = False
        return code

    def restart(self, extra_args=None, **kwargs):
        self.stop_node()
        self.start(extra_args, **kwargs)

    def assert_start_raises_init_error(self, extra_args=None, expected_msg=None, *, match=ErrorMatch.FULL_TEXT,
                                       use_rpcport=True, timeout=30):
        """Starts bitcoind expecting it to fail during start-up; checks the
        exit code (1) and, when expected_msg is given, its stderr."""
        self.start(extra_args, use_rpcport=use_rpcport, wait_for_rpc=False)
        try:
            code = self.process.wait(timeout=timeout * self.timeout_factor)
        except subprocess.TimeoutExpired:
            self.kill_process()
            raise AssertionError("bitcoind should have exited with an error (args %r)" % (extra_args,))
        self.process = None
        stderr = self.read_stderr().strip()
        if code != 1:
            raise AssertionError("bitcoind exited with %d, expected 1; stderr: %r" % (code, stderr))
        if expected_msg is None:
            if not stderr:
                raise AssertionError("bitcoind failed without an error message")
            return stderr
        if match == ErrorMatch.FULL_TEXT:
            ok = stderr == expected_msg
        elif match == ErrorMatch.FULL_REGEX:
            ok = re.fullmatch(expected_msg, stderr, flags=re.DOTALL) is not None
        else:
            ok = re.search(expected_msg, stderr, flags=re.DOTALL) is not None
        if not ok:
            raise AssertionError("Expected message %r (%s) does not match stderr %r" % (expected_msg, match.name, stderr))
        return stderr

    # debug.log -------------------------------------------------------------

    def debug_log_size(self):
        try:
            return os.path.getsize(self.debug_log_path)
        except FileNotFoundError:
            return 0

    def read_debug_log(self, offset=0):
        try:
            with open(self.debug_log_path, "rb") as f:
                f.seek(offset)
                return f.read().decode("utf8", errors="replace")
        except FileNotFoundError:
            return ""

    @contextlib.contextmanager
    def assert_debug_log(self, expected_msgs, unexpected_msgs=None, *, timeout=5):
        """Checks that every expected message (a plain substring) appears in
        debug.log while the block runs (waiting up to timeout seconds after
        it), and that no unexpected one does."""
        unexpected_msgs = unexpected_msgs or []
        offset = self.debug_log_size()
        yield
        deadline = time.time() + timeout * self.timeout_factor
        while True:
            log = self.read_debug_log(offset)
            for msg in unexpected_msgs:
                if msg in log:
                    raise AssertionError("Unexpected message %r found in debug.log:\n%s" % (msg, log))
            missing = [msg for msg in expected_msgs if msg not in log]
            if not missing:
                return
            if time.time() > deadline:
                raise AssertionError("Expected messages %r not found in debug.log:\n%s" % (missing, log))
            time.sleep(0.05)

    def wait_for_debug_log(self, msg, *, offset=0, timeout=30):
        wait_until_helper(lambda: msg in self.read_debug_log(offset), timeout=timeout * self.timeout_factor,
                          description="%r in node%d's debug.log" % (msg, self.index))


class CliResult:
    def __init__(self, returncode, stdout, stderr):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self):
        return "CliResult(returncode=%r, stdout=%r, stderr=%r)" % (self.returncode, self.stdout, self.stderr)


def _cli_arg(value):
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, default=float)


class TestNodeCLI:
    """bitcoin-cli bound to a node's datadir and port.

        node.cli.getblockcount()                 -> parsed result
        node.cli("-rpcwait").getblockcount()     -> with extra options
        node.cli.dumptxoutset(path=p, type="latest")  -> uses -named
        node.cli.run("help", input=...)          -> CliResult, never raises
    """

    def __init__(self, node, options=(), input=None):
        self.node = node
        self.options = list(options)
        self.input = input

    def __call__(self, *options, input=None):
        return TestNodeCLI(self.node, self.options + list(options), input)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.send_cli(name, *args, **kwargs)

    def base_command(self, *, with_port=True):
        command = [self.node.bitcoin_cli] + self.node.datadir_args()
        if with_port:
            command.append("-rpcport=%d" % self.node.rpc_port)
        return command + self.options

    def run(self, *args, input=None, with_port=True, timeout=60):
        command = self.base_command(with_port=with_port) + [_cli_arg(a) for a in args]
        self.node.log.debug("cli: %s", " ".join(command))
        done = subprocess.run(command, input=input if input is not None else self.input, capture_output=True, text=True,
                              timeout=timeout * self.node.timeout_factor, env=self.node.env)
        return CliResult(done.returncode, done.stdout, done.stderr)

    def send_cli(self, command, *args, **kwargs):
        if args and kwargs:
            raise ValueError("use either positional or named parameters, not both")
        cli_args = [_cli_arg(a) for a in args]
        prefix = []
        if kwargs:
            prefix = ["-named"]
            cli_args = ["%s=%s" % (k, _cli_arg(v)) for k, v in kwargs.items()]
        result = self(*prefix).run(command, *cli_args)
        if result.returncode != 0:
            match = re.fullmatch(r"error code: (-?\d+)\nerror message:\n(.*)", result.stderr.rstrip("\n"), flags=re.DOTALL)
            if match:
                raise JSONRPCException({"code": int(match.group(1)), "message": match.group(2)})
            raise subprocess.CalledProcessError(result.returncode, command, result.stdout, result.stderr)
        text = result.stdout.rstrip("\n")
        try:
            return json.loads(text, parse_float=decimal.Decimal)
        except ValueError:
            return text
