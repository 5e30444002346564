"""A JSON-RPC client over http.client with cookie or password auth.

    proxy = AuthServiceProxy("127.0.0.1", port, cookie_file=path)
    proxy.getblockcount()
    proxy.dumptxoutset(path="x", type="latest")   # named parameters

Errors come back as JSONRPCException with .error = {"code", "message"} and
the HTTP status of the reply.
"""

import base64
import decimal
import http.client
import itertools
import json

USER_AGENT = "coinsdb-functional-test"


class JSONRPCException(Exception):
    def __init__(self, rpc_error, http_status=None):
        try:
            text = "%(message)s (%(code)i)" % rpc_error
        except (KeyError, TypeError):
            text = repr(rpc_error)
        super().__init__(text)
        self.error = rpc_error
        self.http_status = http_status

    @property
    def code(self):
        return self.error.get("code")

    @property
    def message(self):
        return self.error.get("message")


def _json_default(value):
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError("%r is not JSON serializable" % value)


def read_cookie(path):
    with open(path, "r", encoding="utf8") as f:
        user, password = f.read().strip().split(":", 1)
    return user, password


class AuthServiceProxy:
    _ids = itertools.count(1)

    def __init__(self, host, port, *, user=None, password=None, cookie_file=None, timeout=60, method=None):
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.cookie_file = cookie_file
        self.timeout = timeout
        self._method = method

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return AuthServiceProxy(self.host, self.port, user=self.user, password=self.password,
                                cookie_file=self.cookie_file, timeout=self.timeout, method=name)

    def credentials(self):
        if self.password is not None:
            return self.user or "", self.password
        # Read on every call: a restarted node writes a new cookie.
        return read_cookie(self.cookie_file)

    def auth_header(self):
        user, password = self.credentials()
        return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()

    def post(self, body, *, headers=None, auth=True, method="POST", path="/"):
        """Sends one raw HTTP request; returns (status, headers, body bytes).
        Connection errors (refused, reset) propagate as OSError."""
        all_headers = {"Host": self.host, "User-Agent": USER_AGENT, "Content-Type": "application/json"}
        if auth:
            all_headers["Authorization"] = self.auth_header()
        all_headers.update(headers or {})
        if isinstance(body, str):
            body = body.encode()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body, all_headers)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def __call__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("use either positional or named parameters, not both")
        request = {"jsonrpc": "2.0", "method": self._method, "params": kwargs if kwargs else list(args), "id": next(self._ids)}
        status, _, body = self.post(json.dumps(request, default=_json_default))
        if status == http.client.UNAUTHORIZED:
            raise JSONRPCException({"code": -342, "message": "HTTP 401 Unauthorized"}, status)
        if not body:
            raise JSONRPCException({"code": -342, "message": "empty reply (HTTP %d)" % status}, status)
        try:
            reply = json.loads(body, parse_float=decimal.Decimal)
        except ValueError:
            raise JSONRPCException({"code": -342, "message": "non-JSON reply (HTTP %d): %r" % (status, body[:200])}, status)
        if reply.get("error") is not None:
            raise JSONRPCException(reply["error"], status)
        if "result" not in reply:
            raise JSONRPCException({"code": -343, "message": "missing JSON-RPC result"}, status)
        if status != http.client.OK:
            raise JSONRPCException({"code": -342, "message": "HTTP %d with a result" % status}, status)
        return reply["result"]
