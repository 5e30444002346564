#ifndef COINSDB_RPC_PROTOCOL_H
#define COINSDB_RPC_PROTOCOL_H

#include <stdexcept>
#include <string>

// JSON-RPC error codes. The numbers are Bitcoin Core's: clients (bitcoin-cli,
// the functional test framework, third-party wallets) match on them, so
// they must never change.
enum RPCErrorCode {
    // Standard JSON-RPC 2.0 errors.
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    RPC_PARSE_ERROR = -32700,

    // General application errors.
    RPC_MISC_ERROR = -1,
    RPC_TYPE_ERROR = -3,
    RPC_INVALID_ADDRESS_OR_KEY = -5,
    RPC_OUT_OF_MEMORY = -7,
    RPC_INVALID_PARAMETER = -8,
    RPC_DATABASE_ERROR = -20,
    RPC_DESERIALIZATION_ERROR = -22,
    RPC_VERIFY_ERROR = -25,
    RPC_VERIFY_REJECTED = -26,
    RPC_VERIFY_ALREADY_IN_CHAIN = -27,
    RPC_IN_WARMUP = -28,
    RPC_METHOD_DEPRECATED = -32,

    // P2P client errors.
    RPC_CLIENT_NOT_CONNECTED = -9,
    RPC_CLIENT_IN_INITIAL_DOWNLOAD = -10,
    RPC_CLIENT_NODE_ALREADY_ADDED = -23,
    RPC_CLIENT_NODE_NOT_ADDED = -24,
    RPC_CLIENT_NODE_NOT_CONNECTED = -29,
    RPC_CLIENT_INVALID_IP_OR_SUBNET = -30,
    RPC_CLIENT_P2P_DISABLED = -31,
    RPC_CLIENT_NODE_CAPACITY_REACHED = -34,
    RPC_CLIENT_MEMPOOL_DISABLED = -33,

    // Wallet errors (kept so the numbering is complete; no wallet here).
    RPC_WALLET_ERROR = -4,
    RPC_WALLET_NOT_FOUND = -18,
    RPC_WALLET_NOT_SPECIFIED = -19,
};

// HTTP status codes the RPC server and client use.
enum HTTPStatusCode {
    HTTP_OK = 200,
    HTTP_NO_CONTENT = 204,
    HTTP_BAD_REQUEST = 400,
    HTTP_UNAUTHORIZED = 401,
    HTTP_FORBIDDEN = 403,
    HTTP_NOT_FOUND = 404,
    HTTP_BAD_METHOD = 405,
    HTTP_INTERNAL_SERVER_ERROR = 500,
    HTTP_SERVICE_UNAVAILABLE = 503,
};

// What RPC handlers throw to answer with a JSON-RPC error object
// {"code": code, "message": what()}. Any other std::exception a handler
// throws becomes RPC_MISC_ERROR with its what().
struct JSONRPCError : std::runtime_error {
    int code;
    JSONRPCError(int code, std::string message) : std::runtime_error{std::move(message)}, code{code} {}
};

#endif // COINSDB_RPC_PROTOCOL_H
