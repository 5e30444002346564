#ifndef COINSDB_RPC_CLIENT_H
#define COINSDB_RPC_CLIENT_H

#include <cstdint>
#include <optional>
#include <string>

// One HTTP POST, as bitcoin-cli makes it: a fresh connection ("Connection:
// close"), Basic credentials, a JSON body.
struct HTTPPostRequest {
    std::string host{"127.0.0.1"};
    uint16_t port{8332};
    std::string path{"/"};
    // "user:password"; no Authorization header when empty.
    std::string credentials;
    std::string body;
    // Whole-request timeout in seconds; 0 or less waits (practically) forever.
    int timeout_seconds{900};
};

struct HTTPPostResponse {
    // 0 when no HTTP reply arrived (connection refused, timeout, hang-up).
    int status{0};
    std::string body;
    // With status 0: libevent's reason (EVREQ_HTTP_TIMEOUT = 0,
    // EVREQ_HTTP_EOF = 1, ...) when it gave one.
    std::optional<int> transport_error;
};

HTTPPostResponse HTTPPost(const HTTPPostRequest& request);

// Words for a transport_error, e.g. "timeout reached", "EOF reached".
std::string HTTPTransportErrorString(int code);

#endif // COINSDB_RPC_CLIENT_H
