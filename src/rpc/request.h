#ifndef COINSDB_RPC_REQUEST_H
#define COINSDB_RPC_REQUEST_H

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

// One JSON-RPC call as a handler sees it.
struct JSONRPCRequest {
    nlohmann::json id;
    std::string method;
    // Always an array: named parameters are mapped to positions before a
    // handler runs; trailing parameters the caller left out are absent,
    // left-out ones before a given one are null.
    nlohmann::json params{nlohmann::json::array()};
    // 1 for JSON-RPC 1.0 (no "jsonrpc" member, or "1.0"), 2 for "2.0".
    int json_version{1};
};

// A request object as it arrived, before named parameters are mapped.
struct ParsedRequest {
    JSONRPCRequest request;
    bool has_id{false};
    // JSON-RPC 2.0: a request without "id" is a notification; it is run but
    // gets no reply. In 1.0 a missing id is just a null id.
    bool IsNotification() const { return request.json_version == 2 && !has_id; }
};

// Reads a request object: {"jsonrpc"?, "id"?, "method", "params"?}.
// Throws JSONRPCError(RPC_INVALID_REQUEST) on a malformed one, after filling
// in whatever of id and version it had read, so the error reply can carry
// them.
void ParseRequestObject(const nlohmann::json& value, ParsedRequest& out);

// An object parameter whose members may also be given as named parameters
// of their own (upstream's named-only options, e.g. dumptxoutset's
// rollback=n for options={"rollback":n}).
struct NamedOptions {
    std::string arg_name;
    std::vector<std::string> member_names;
};

// Maps {"name": value} params onto the positions of arg_names. A member
// "args" (unless a parameter is called that) holds leading positional values,
// which is how bitcoin-cli -named passes arguments given without a name.
// Names of options.member_names are gathered into an object at
// options.arg_name's position. Throws JSONRPCError(RPC_INVALID_PARAMETER)
// for an unknown name, a parameter given both ways, or an options member
// given beside the whole options object.
nlohmann::json NamedParamsToPositional(const nlohmann::json& params, const std::vector<std::string>& arg_names,
                                       const NamedOptions& options = {});

// Reply texts in upstream's member order. Version 1 always has "result",
// "error" and "id" (null when absent); version 2 has "jsonrpc":"2.0" and
// only one of "result"/"error", and "id" only if the request had one.
// result_json is the result already written (WriteJSON), so that a result
// that cannot be written fails before any reply text exists.
std::string WriteResultReply(std::string_view result_json, const ParsedRequest& request);
std::string WriteErrorReply(int code, const std::string& message, const ParsedRequest& request);

// The HTTP status of a JSON-RPC 1.0 error reply, as upstream: 400 for an
// invalid request, 404 for an unknown method, 500 for everything else.
int HTTPStatusForRPCError(int code);

#endif // COINSDB_RPC_REQUEST_H
