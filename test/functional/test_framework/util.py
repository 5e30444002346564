"""Assertion helpers and small utilities shared by the functional tests."""

import decimal
import errno
import hashlib
import random
import socket
import time

from .authproxy import JSONRPCException


def assert_equal(thing1, thing2, *args):
    if thing1 != thing2 or any(thing1 != arg for arg in args):
        raise AssertionError("not(%s)" % " == ".join(repr(x) for x in (thing1, thing2) + args))


def assert_not_equal(thing1, thing2):
    if thing1 == thing2:
        raise AssertionError("%r == %r" % (thing1, thing2))


def assert_greater_than(thing1, thing2):
    if not thing1 > thing2:
        raise AssertionError("%r <= %r" % (thing1, thing2))


def assert_greater_than_or_equal(thing1, thing2):
    if not thing1 >= thing2:
        raise AssertionError("%r < %r" % (thing1, thing2))


def assert_in(needle, haystack):
    if needle not in haystack:
        raise AssertionError("%r not found in %r" % (needle, haystack))


def assert_not_in(needle, haystack):
    if needle in haystack:
        raise AssertionError("%r unexpectedly found in %r" % (needle, haystack))


def assert_amount(value, satoshis):
    """value (parsed with Decimal) is satoshis in BTC, written with exactly
    eight decimals as upstream's ValueFromAmount does (0.00000001, not 1e-08)."""
    if not isinstance(value, decimal.Decimal) or value.as_tuple().exponent != -8:
        raise AssertionError("amount %r is not written with eight decimals" % (value,))
    assert_equal(value, decimal.Decimal(satoshis) / 100_000_000)


def assert_raises_message(exc, message, fun, *args, **kwds):
    """Calls fun and checks that it raises exc with message in its text."""
    try:
        fun(*args, **kwds)
    except exc as e:
        if message is not None and message not in str(e):
            raise AssertionError("Expected substring not found in exception:\n"
                                 "  substring: %r\n  message:   %r" % (message, str(e)))
        return e
    except Exception as e:
        raise AssertionError("Unexpected exception raised: %s: %s" % (type(e).__name__, e))
    raise AssertionError("No exception raised")


def try_rpc(code, message, fun, *args, **kwds):
    """Returns True if fun raised a JSONRPCException with this code and a
    message containing message (None: any). Raises AssertionError if it
    raised something else; returns False if it raised nothing."""
    try:
        fun(*args, **kwds)
    except JSONRPCException as e:
        if code is not None and code != e.error["code"]:
            raise AssertionError("Unexpected JSONRPC error code %r (expected %r), message %r" % (e.error["code"], code, e.error["message"]))
        if message is not None and message not in e.error["message"]:
            raise AssertionError("Expected substring not found in error message:\n"
                                 "  substring: %r\n  message:   %r" % (message, e.error["message"]))
        return True
    except Exception as e:
        raise AssertionError("Unexpected exception raised: %s: %s" % (type(e).__name__, e))
    return False


def assert_raises_rpc_error(code, message, fun, *args, **kwds):
    """Calls fun (an RPC through the proxy or the cli) and checks that it
    fails with JSON-RPC error code and a message containing message."""
    if not try_rpc(code, message, fun, *args, **kwds):
        raise AssertionError("No exception raised")


def wait_until_helper(predicate, *, timeout=60, check_interval=0.05, description=None):
    """Polls predicate until it returns a true value; raises AssertionError
    after timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(check_interval)
    raise AssertionError("Predicate %s not true after %g seconds" % (description or predicate, timeout))


# Below Linux's ephemeral range (32768-60999), where every outgoing
# connection, the tests' own RPC calls included, takes its local port.
PORT_MIN = 11000
PORT_MAX = 30000


def _can_bind(family, host, port):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.bind((host, port))
        return True
    except OSError as e:
        # No IPv6 on this host: only IPv4 matters.
        return family == socket.AF_INET6 and e.errno == errno.EADDRNOTAVAIL


def get_free_port():
    """A loopback TCP port nobody listens on right now, on 127.0.0.1 and ::1
    (the node binds both). Another process may still take it before the node
    binds; TestNode retries with a new port when the node says its RPC server
    could not bind."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(PORT_MIN, PORT_MAX)
        if _can_bind(socket.AF_INET, "127.0.0.1", port) and _can_bind(socket.AF_INET6, "::1", port):
            return port
    raise AssertionError("no free port found in %d-%d" % (PORT_MIN, PORT_MAX))


def sha256sum_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_file(path, data, mode="w"):
    with open(path, mode) as f:
        f.write(data)
