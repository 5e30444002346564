#!/usr/bin/env python3
"""The JSON-RPC server over raw HTTP: authentication, JSON-RPC 1.0 and 2.0
reply shapes and HTTP statuses, batches, notifications, parse and request
errors, named parameters, help and -rpcworkqueue."""

import base64
import hashlib
import hmac
import concurrent.futures
import json
import os
import re
import stat

from test_framework.test_framework import BitcoinTestFramework
from test_framework.util import (
    assert_equal,
    assert_greater_than_or_equal,
    assert_in,
    assert_not_in,
    assert_raises_rpc_error,
)

RPC_INVALID_REQUEST = -32600
RPC_METHOD_NOT_FOUND = -32601
RPC_PARSE_ERROR = -32700
RPC_MISC_ERROR = -1
RPC_INVALID_PARAMETER = -8
RPC_TYPE_ERROR = -3


class RPCInterfaceTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def post(self, body, **kwargs):
        """(HTTP status, parsed JSON reply or None for an empty body)."""
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        status, headers, data = self.nodes[0].rpc.post(body, **kwargs)
        return status, (json.loads(data) if data else None), headers

    def run_test(self):
        self.test_auth()
        self.test_versions()
        self.test_batch()
        self.test_errors()
        self.test_nesting()
        self.test_duplicate_keys()
        self.test_params_and_help()
        self.test_work_queue()

    def test_auth(self):
        self.log.info("No Authorization header: 401 with a WWW-Authenticate challenge")
        status, reply, headers = self.post({"method": "getblockcount", "id": 1}, auth=False)
        assert_equal(status, 401)
        assert_equal(reply, None)
        assert_equal(headers.get("WWW-Authenticate"), 'Basic realm="jsonrpc"')

        self.log.info("A wrong password, a wrong user and a malformed header: 401")
        user, _ = self.nodes[0].rpc.credentials()
        for credentials in ("%s:wrong" % user, "nobody:wrong", ""):
            header = "Basic " + base64.b64encode(credentials.encode()).decode()
            status, reply, _ = self.post({"method": "getblockcount", "id": 1}, auth=False, headers={"Authorization": header})
            assert_equal((status, reply), (401, None))
        status, _, _ = self.post({"method": "getblockcount", "id": 1}, auth=False, headers={"Authorization": "Bearer x"})
        assert_equal(status, 401)

        self.log.info("The cookie: __cookie__ and 32 random bytes in hex, readable by the owner only")
        node = self.nodes[0]
        user, password = node.rpc.credentials()
        assert_equal(user, "__cookie__")
        assert re.fullmatch("[0-9a-f]{64}", password), password
        assert_equal(stat.S_IMODE(os.stat(node.cookie_path).st_mode), 0o600)

        self.log.info("The cookie's credentials: 200")
        status, reply, _ = self.post({"method": "getblockcount", "id": 1})
        assert_equal((status, reply), (200, {"result": 0, "error": None, "id": 1}))

        self.log.info("-rpcauth: a user with Core's salted HMAC-SHA-256 gets in with the password; the cookie still works")
        salt = "8c5e0a2f3b7d4c6e9f1a2b3c4d5e6f70"
        password = "correct horse battery staple"
        entry = "carol:%s$%s" % (salt, hmac.new(salt.encode(), password.encode(), hashlib.sha256).hexdigest())
        # A decoy whose hash belongs to another password.
        decoy = "dave:%s$%s" % (salt, hmac.new(salt.encode(), b"other", hashlib.sha256).hexdigest())
        with node.assert_debug_log(["Using rpcauth authentication."]):
            node.restart(["-rpcauth=" + entry, "-rpcauth=" + decoy])
        for credentials, want in (("carol:" + password, 200), ("carol:other", 401), ("dave:" + password, 401),
                                  ("dave:other", 200), ("carol:" + password + "x", 401)):
            header = "Basic " + base64.b64encode(credentials.encode()).decode()
            status, _, _ = self.post({"method": "getblockcount", "id": 1}, auth=False, headers={"Authorization": header})
            assert_equal((credentials, status), (credentials, want))
        status, _, _ = self.post({"method": "getblockcount", "id": 1})
        assert_equal(status, 200)
        node.stop_node()

        self.log.info("A malformed -rpcauth stops start-up with Core's messages, and leaves no cookie")
        with node.assert_debug_log(["[warning] Invalid -rpcauth argument."]):
            node.assert_start_raises_init_error(["-rpcauth=carol:nohash"], "Error: Unable to start HTTP server. See debug log for details.")
        assert not os.path.exists(node.cookie_path)
        node.start()

    def test_versions(self):
        self.log.info("JSON-RPC 1.0 (no jsonrpc member): result, error and id, always")
        status, reply, headers = self.post({"method": "getbestblockhash", "params": [], "id": "a"})
        assert_equal(status, 200)
        assert_equal(headers.get("Content-Type"), "application/json")
        assert_equal(reply, {"result": self.nodes[0].getbestblockhash(), "error": None, "id": "a"})
        status, reply, _ = self.post({"jsonrpc": "1.0", "method": "getblockcount", "id": 7})
        assert_equal((status, reply), (200, {"result": 0, "error": None, "id": 7}))

        self.log.info("JSON-RPC 2.0: jsonrpc, result and id, no error member")
        status, reply, _ = self.post({"jsonrpc": "2.0", "method": "getblockcount", "id": 3})
        assert_equal((status, reply), (200, {"jsonrpc": "2.0", "result": 0, "id": 3}))

        self.log.info("Unknown method: HTTP 404 under 1.0, HTTP 200 with an error object under 2.0")
        status, reply, _ = self.post({"method": "nosuchmethod", "id": 4})
        assert_equal((status, reply), (404, {"result": None, "error": {"code": RPC_METHOD_NOT_FOUND, "message": "Method not found"},
                                             "id": 4}))
        status, reply, _ = self.post({"jsonrpc": "2.0", "method": "nosuchmethod", "id": 5})
        assert_equal((status, reply), (200, {"jsonrpc": "2.0", "error": {"code": RPC_METHOD_NOT_FOUND,
                                                                         "message": "Method not found"}, "id": 5}))
        self.log.info("An application error: HTTP 500 under 1.0, 200 under 2.0")
        status, reply, _ = self.post({"method": "dumptxoutset", "params": ["x", "bogus"], "id": 6})
        assert_equal(status, 500)
        assert_equal(reply["error"]["code"], RPC_INVALID_PARAMETER)
        status, reply, _ = self.post({"jsonrpc": "2.0", "method": "dumptxoutset", "params": ["x", "bogus"], "id": 6})
        assert_equal(status, 200)
        assert_equal(reply["error"]["code"], RPC_INVALID_PARAMETER)

        self.log.info("A 2.0 notification (no id) gets HTTP 204 and no body")
        status, reply, _ = self.post({"jsonrpc": "2.0", "method": "getblockcount"})
        assert_equal((status, reply), (204, None))
        self.log.info("A 1.0 request without id still gets a reply, with id null")
        status, reply, _ = self.post({"method": "getblockcount"})
        assert_equal((status, reply), (200, {"result": 0, "error": None, "id": None}))

    def test_batch(self):
        self.log.info("A batch mixing good and unknown methods and both versions: one reply each, in order, HTTP 200")
        status, reply, _ = self.post([
            {"jsonrpc": "2.0", "method": "getblockcount", "id": 1},
            {"jsonrpc": "2.0", "method": "nosuchmethod", "id": 2},
            {"method": "getbestblockhash", "id": 3},
            {"method": "nosuchmethod", "id": 4},
            {"jsonrpc": "2.0", "method": "getblockcount"},  # a notification: no reply
            {"jsonrpc": "2.0", "method": "getblockcount", "params": ["extra"], "id": 5},
        ])
        assert_equal(status, 200)
        assert_equal(len(reply), 5)
        assert_equal(reply[0], {"jsonrpc": "2.0", "result": 0, "id": 1})
        assert_equal(reply[1], {"jsonrpc": "2.0", "error": {"code": RPC_METHOD_NOT_FOUND, "message": "Method not found"}, "id": 2})
        assert_equal(reply[2], {"result": self.nodes[0].getbestblockhash(), "error": None, "id": 3})
        assert_equal(reply[3], {"result": None, "error": {"code": RPC_METHOD_NOT_FOUND, "message": "Method not found"}, "id": 4})
        assert_equal(reply[4]["id"], 5)
        assert_equal(reply[4]["error"]["code"], RPC_MISC_ERROR)

        self.log.info("A batch member that is not an object gets an Invalid Request reply")
        status, reply, _ = self.post([42, {"jsonrpc": "2.0", "method": "getblockcount", "id": 9}])
        assert_equal(status, 200)
        assert_equal(reply[0], {"result": None, "error": {"code": RPC_INVALID_REQUEST, "message": "Invalid Request object"},
                                "id": None})
        assert_equal(reply[1], {"jsonrpc": "2.0", "result": 0, "id": 9})

        self.log.info("An empty batch gets [], a batch of notifications gets 204")
        assert_equal(self.post([])[:2], (200, []))
        status, reply, _ = self.post([{"jsonrpc": "2.0", "method": "getblockcount"}] * 2)
        assert_equal((status, reply), (204, None))

    def test_errors(self):
        self.log.info("Unparseable JSON: -32700 Parse error, HTTP 500")
        status, reply, _ = self.post("{")
        assert_equal((status, reply), (500, {"result": None, "error": {"code": RPC_PARSE_ERROR, "message": "Parse error"},
                                             "id": None}))
        status, reply, _ = self.post("42")
        assert_equal((status, reply), (500, {"result": None, "error": {"code": RPC_PARSE_ERROR,
                                                                       "message": "Top-level object parse error"}, "id": None}))

        self.log.info("Malformed requests: -32600, HTTP 400, with the id echoed")
        cases = [
            ({"id": 1}, "Missing method"),
            ({"method": 1, "id": 1}, "Method must be a string"),
            ({"method": "getblockcount", "params": 1, "id": 1}, "Params must be an array or object"),
        ]
        for request, message in cases:
            status, reply, _ = self.post(request)
            assert_equal((status, reply), (400, {"result": None, "error": {"code": RPC_INVALID_REQUEST, "message": message},
                                                 "id": 1}))
        status, reply, _ = self.post({"jsonrpc": "3.0", "method": "getblockcount", "id": 1})
        assert_equal(status, 400)
        assert_equal(reply["error"], {"code": RPC_INVALID_REQUEST, "message": "JSON-RPC version not supported"})

        self.log.info("Only POST to / is served")
        status, _, _ = self.nodes[0].rpc.post("", method="GET")
        assert_equal(status, 405)
        status, _, _ = self.nodes[0].rpc.post(json.dumps({"method": "getblockcount", "id": 1}), path="/wallet/x")
        assert_equal(status, 404)

    def test_nesting(self):
        node = self.nodes[0]
        self.log.info("Nesting: 512 levels in all (the request object is one) are served, the id echoed as sent")
        id_511 = "[" * 511 + "1" + "]" * 511
        status, reply, _ = self.post('{"method":"getblockcount","id":%s}' % id_511)
        assert_equal((status, reply), (200, {"result": 0, "error": None, "id": json.loads(id_511)}))

        parse_error = (500, {"result": None, "error": {"code": RPC_PARSE_ERROR, "message": "Parse error"}, "id": None})
        for depth in (513, 20000, 131000):
            nested = "[" * depth + "]" * depth
            for member, body in (("id", '{"method":"getblockcount","id":%s}' % nested),
                                 ("params", '{"method":"getblockcount","params":%s,"id":1}' % nested)):
                self.log.info("Nesting: %s %d levels deep is a parse error and the node keeps serving", member, depth)
                assert_equal(self.post(body)[:2], parse_error)
                assert_equal(node.getblockcount(), 0)

    def test_duplicate_keys(self):
        node = self.nodes[0]
        # test_auth restarts the node: only this test's part of the log counts.
        offset = node.debug_log_size()
        cases = [
            ("method", '{"method":"getblockcount","method":"stop","id":1}'),
            ("method", '{"method":"stop","method":"getblockcount","id":1}'),
            ("method", '{"jsonrpc":"2.0","method":"getblockcount","method":"stop"}'),
            ("id", '{"method":"getblockcount","id":1,"id":2}'),
            ("jsonrpc", '{"jsonrpc":"2.0","method":"getblockcount","jsonrpc":"1.0","id":1}'),
            ("params", '{"method":"gettxoutsetinfo","params":["none"],"params":["bogus"],"id":1}'),
            ("hash_type", '{"method":"gettxoutsetinfo","params":{"hash_type":"none","hash_type":"bogus"},"id":1}'),
            ("method", '[{"method":"getblockcount","id":1},{"method":"getblockcount","method":"stop","id":2}]'),
        ]
        for key, body in cases:
            self.log.info("Duplicate key %s: the whole body is refused with -32600, HTTP 400: %s", key, body)
            status, reply, _ = self.post(body)
            assert_equal((status, reply), (400, {"result": None, "error": {"code": RPC_INVALID_REQUEST,
                                                                           "message": 'Duplicate key in JSON object: "%s"' % key},
                                                 "id": None}))
            assert_equal(node.getblockcount(), 0)
        self.log.info("Duplicate key: the smuggled stop did not run; the node is still up")
        assert node.process.poll() is None
        assert_not_in("Shutdown: In progress", node.read_debug_log(offset))

    def test_params_and_help(self):
        node = self.nodes[0]
        self.log.info("Named parameters; unknown names and extra positional parameters are refused")
        info = node.rpc.gettxoutsetinfo(hash_type="none")
        assert "hash_serialized_3" not in info
        assert_raises_rpc_error(RPC_INVALID_PARAMETER, "Unknown named parameter bogus", node.rpc.gettxoutsetinfo, bogus=1)
        assert_raises_rpc_error(RPC_INVALID_PARAMETER, "'bogus' is not a valid hash_type", node.gettxoutsetinfo, "bogus")
        self.log.info("Too many or too few parameters: -1 with the method's help, as Core")
        assert_raises_rpc_error(RPC_MISC_ERROR, node.help("getblockcount"), node.getblockcount, 1)
        assert_raises_rpc_error(RPC_MISC_ERROR, node.help("loadtxoutset"), node.loadtxoutset)
        self.log.info("A parameter of the wrong type: -3 and Core's wording, naming each position")
        assert_raises_rpc_error(RPC_TYPE_ERROR, 'Wrong type passed:\n{\n    "Position 1 (path)": "JSON value of type number is '
                                'not of expected type string"\n}', node.loadtxoutset, 1)
        assert_raises_rpc_error(RPC_TYPE_ERROR, 'Wrong type passed:\n{\n    "Position 2 (verbose)": "JSON value of type string '
                                'is not of expected type bool"\n}', node.getblockheader, node.getbestblockhash(), "yes")
        assert_raises_rpc_error(RPC_TYPE_ERROR, '"Position 1 (path)": "JSON value of type null is not of expected type string"',
                                node.loadtxoutset, None)

        self.log.info("help lists every command by category; help <command> and help <unknown>")
        text = node.help()
        for line in ("== Blockchain ==", "== Control ==", "getbestblockhash", "getblockcount", "gettxoutsetinfo",
                     "gettxout", "getchainstates", "loadtxoutset", "dumptxoutset", "getcoinscacheinfo", "uptime", "stop"):
            assert_in(line, text)
        assert node.help("getblockcount").startswith("getblockcount\n"), node.help("getblockcount")
        assert_equal(node.help("nosuchmethod"), "help: unknown command: nosuchmethod")
        assert_greater_than_or_equal(node.uptime(), 0)

    def test_work_queue(self):
        node = self.nodes[0]
        self.log.info("-rpcworkqueue=1 with one thread: requests beyond the queue get 503 and a log line naming the option")
        node.restart(["-rpcthreads=1", "-rpcworkqueue=1"])
        # A wrong password holds the only worker for 250 ms, so requests sent
        # together pile up behind it.
        header = "Basic " + base64.b64encode(b"nobody:wrong").decode()
        request = json.dumps({"method": "getblockcount", "id": 1})
        with node.assert_debug_log(["Request rejected because http work queue depth exceeded, it can be increased with the "
                                    "-rpcworkqueue= setting"]):
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                replies = list(pool.map(lambda _: node.rpc.post(request, auth=False, headers={"Authorization": header}),
                                        range(8)))
        statuses = sorted(status for status, _, _ in replies)
        assert_greater_than_or_equal(statuses.count(503), 1)
        assert_greater_than_or_equal(statuses.count(401), 1)
        assert_equal(set(statuses), {401, 503})
        assert_in(b"Work queue depth exceeded", [body for status, _, body in replies if status == 503][0])

        self.log.info("The default queue (64) takes the same burst without a 503")
        node.restart(["-rpcthreads=1"])
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda _: node.rpc.post(request, auth=False, headers={"Authorization": header}), range(8)))
        assert_equal([status for status, _, _ in replies], [401] * 8)
        node.stop_node()
        node.assert_start_raises_init_error(["-rpcworkqueue=0"],
                                            "Error: Invalid -rpcworkqueue value '0': expected an integer from 1 to 2147483647")
        node.start()


if __name__ == "__main__":
    RPCInterfaceTest(__file__).main()
