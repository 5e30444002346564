#include <rpc/request.h>

#include <rpc/json.h>
#include <rpc/protocol.h>

#include <algorithm>
#include <map>
#include <optional>

using json = nlohmann::json;

void ParseRequestObject(const json& value, ParsedRequest& out)
{
    out = ParsedRequest{};
    if (!value.is_object()) throw JSONRPCError{RPC_INVALID_REQUEST, "Invalid Request object"};

    // The id first, so every later error reply can echo it.
    if (auto it = value.find("id"); it != value.end()) {
        out.request.id = *it;
        out.has_id = true;
    }
    if (auto it = value.find("jsonrpc"); it != value.end() && !it->is_null()) {
        if (!it->is_string()) throw JSONRPCError{RPC_INVALID_REQUEST, "jsonrpc field must be a string"};
        // "1.0" never existed in the 1.0 spec but some old documentation
        // sent it, so it keeps meaning the legacy protocol.
        if (*it == "1.0") {
            out.request.json_version = 1;
        } else if (*it == "2.0") {
            out.request.json_version = 2;
        } else {
            throw JSONRPCError{RPC_INVALID_REQUEST, "JSON-RPC version not supported"};
        }
    }

    const auto method = value.find("method");
    if (method == value.end() || method->is_null()) throw JSONRPCError{RPC_INVALID_REQUEST, "Missing method"};
    if (!method->is_string()) throw JSONRPCError{RPC_INVALID_REQUEST, "Method must be a string"};
    out.request.method = method->get<std::string>();

    const auto params = value.find("params");
    if (params == value.end() || params->is_null()) {
        out.request.params = json::array();
    } else if (params->is_array() || params->is_object()) {
        out.request.params = *params;
    } else {
        throw JSONRPCError{RPC_INVALID_REQUEST, "Params must be an array or object"};
    }
}

json NamedParamsToPositional(const json& params, const std::vector<std::string>& arg_names, const NamedOptions& options)
{
    std::map<std::string, const json*> unused;
    for (auto it = params.begin(); it != params.end(); ++it) unused.emplace(it.key(), &*it);
    json gathered = json::object();
    for (const std::string& name : options.member_names) {
        if (auto it = unused.find(name); it != unused.end()) {
            gathered[name] = *it->second;
            unused.erase(it);
        }
    }
    if (!gathered.empty()) {
        if (unused.contains(options.arg_name)) {
            throw JSONRPCError{RPC_INVALID_PARAMETER, "Parameter " + options.arg_name + " conflicts with parameter " + gathered.begin().key()};
        }
        // Placed as if the whole object had been named.
        unused.emplace(options.arg_name, &gathered);
    }

    json positional = json::array();
    const bool args_is_a_name = std::find(arg_names.begin(), arg_names.end(), "args") != arg_names.end();
    if (auto it = unused.find("args"); it != unused.end() && !args_is_a_name) {
        if (!it->second->is_array()) throw JSONRPCError{RPC_INVALID_PARAMETER, "Parameter args must be an array"};
        positional = *it->second;
        unused.erase(it);
    }
    for (size_t i = 0; i < arg_names.size(); ++i) {
        const auto it = unused.find(arg_names[i]);
        if (it == unused.end()) continue;
        if (i < positional.size()) {
            throw JSONRPCError{RPC_INVALID_PARAMETER, "Parameter " + arg_names[i] + " specified twice both as positional and named argument"};
        }
        // Parameters skipped before this one become null; trailing skipped
        // ones stay absent so handlers see their defaults.
        while (positional.size() < i) positional.push_back(nullptr);
        positional.push_back(*it->second);
        unused.erase(it);
    }
    if (!unused.empty()) throw JSONRPCError{RPC_INVALID_PARAMETER, "Unknown named parameter " + unused.begin()->first};
    return positional;
}

namespace {

// Exactly one of result_json and error_json is set.
std::string WriteReply(std::optional<std::string_view> result_json, std::string_view error_json, const ParsedRequest& request)
{
    const bool v2 = request.request.json_version == 2;
    std::string out = v2 ? R"({"jsonrpc":"2.0",)" : "{";
    if (result_json) {
        out += "\"result\":";
        out += *result_json;
        if (!v2) out += ",\"error\":null";
    } else {
        if (!v2) out += "\"result\":null,";
        out += "\"error\":";
        out += error_json;
    }
    if (request.has_id) {
        out += ",\"id\":" + WriteJSON(request.request.id);
    } else if (!v2) {
        out += ",\"id\":null";
    }
    return out + "}";
}

} // namespace

std::string WriteResultReply(std::string_view result_json, const ParsedRequest& request)
{
    return WriteReply(result_json, "", request);
}

std::string WriteErrorReply(int code, const std::string& message, const ParsedRequest& request)
{
    return WriteReply(std::nullopt, "{\"code\":" + std::to_string(code) + ",\"message\":" + WriteJSON(message) + "}", request);
}

int HTTPStatusForRPCError(int code)
{
    if (code == RPC_INVALID_REQUEST) return HTTP_BAD_REQUEST;
    if (code == RPC_METHOD_NOT_FOUND) return HTTP_NOT_FOUND;
    return HTTP_INTERNAL_SERVER_ERROR;
}
