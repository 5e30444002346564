// rpc_request: arbitrary bytes as the body of a JSON-RPC POST, answered by
// the server's own framing (RPCTable::HandleHTTPBody: parsing, request
// objects, batches, named parameters, error replies) with a few handlers
// that reach the parameter-handling paths. Every body must get a reply that
// is itself valid JSON of the documented shape, with a documented status.
// The same bytes also go through the JSON reader and writer on their own.

#include <test/fuzz/fuzz.h>

#include <rpc/json.h>
#include <rpc/protocol.h>
#include <rpc/server.h>

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

using json = nlohmann::json;

namespace {

// Handlers that reach the parameter paths: named parameters map onto
// arg_names ("args" is an ordinary name for echoargs and a positional
// prefix for echo), "amount" reads its parameter as an integer so that
// wrong types reach the type-error translation and a missing one
// std::out_of_range. Like the node's handlers (getblockhash, gettxout) it
// refuses a float before get<int64_t>(): nlohmann converts a float outside
// int64's range with undefined behaviour (UBSan found that in this
// harness's first version; see fuzz_regressions/rpc_request/float-amount).
struct FuzzRPCTable : RPCTable {
    FuzzRPCTable()
    {
        Register({"test", "echo", {"a", "b", "c"}, "echo ( a b c )", [](const JSONRPCRequest& r) { return r.params; }});
        Register({"test", "echoargs", {"x", "args"}, "echoargs ( x args )", [](const JSONRPCRequest& r) { return r.params; }});
        Register({"test", "fail", {}, "fail", [](const JSONRPCRequest&) -> json {
                      throw JSONRPCError{RPC_INVALID_PARAMETER, "fail always fails"};
                  }});
        Register({"test", "amount", {"satoshis"}, "amount satoshis", [](const JSONRPCRequest& r) {
                      const json& satoshis = r.params.at(0);
                      if (satoshis.is_number_float()) throw JSONRPCError{RPC_TYPE_ERROR, "Expected type number for satoshis"};
                      return ValueFromAmount(satoshis.get<int64_t>());
                  }});
    }
};

const RPCTable& FuzzTable()
{
    static const FuzzRPCTable table;
    return table;
}

bool IsErrorObject(const json& error)
{
    return error.is_object() && error.size() == 2 && error.contains("code") && error["code"].is_number_integer() &&
           error.contains("message") && error["message"].is_string();
}

// One reply object, in the shapes request.h documents.
void CheckReplyObject(const json& reply)
{
    FUZZ_CHECK(reply.is_object());
    const bool v2 = reply.contains("jsonrpc");
    if (v2) {
        FUZZ_CHECK(reply["jsonrpc"] == "2.0");
        FUZZ_CHECK(reply.contains("result") != reply.contains("error"));
        if (reply.contains("error")) FUZZ_CHECK(IsErrorObject(reply["error"]));
    } else {
        FUZZ_CHECK(reply.size() == 3 && reply.contains("result") && reply.contains("error") && reply.contains("id"));
        FUZZ_CHECK(reply["result"].is_null() || reply["error"].is_null());
        if (!reply["error"].is_null()) FUZZ_CHECK(IsErrorObject(reply["error"]));
    }
}

// Parsing keeps every number's text, so writing a parsed value and parsing
// that again must reach a fixed point at once, in both layouts.
void CheckJSONRoundTrip(std::string_view text)
{
    const auto value = ParseJSON(text, JSONNumbers::KEEP_TEXT);
    if (!value) return;
    const std::string compact = WriteJSON(*value);
    const auto reread = ParseJSON(compact, JSONNumbers::KEEP_TEXT);
    FUZZ_CHECK(reread.has_value());
    FUZZ_CHECK(WriteJSON(*reread) == compact);
    const auto pretty = ParseJSON(WriteJSON(*value, /*indent=*/2), JSONNumbers::KEEP_TEXT);
    FUZZ_CHECK(pretty.has_value());
    FUZZ_CHECK(WriteJSON(*pretty) == compact);
}

} // namespace

RPCFuzzReply HandleRPCBodyForFuzz(std::string_view body)
{
    RPCFuzzReply out;
    out.body = FuzzTable().HandleHTTPBody(std::string{body}, out.http_status);
    const int status = out.http_status;
    FUZZ_CHECK(status == HTTP_OK || status == HTTP_NO_CONTENT || status == HTTP_BAD_REQUEST ||
               status == HTTP_NOT_FOUND || status == HTTP_INTERNAL_SERVER_ERROR);
    if (status == HTTP_NO_CONTENT) {
        FUZZ_CHECK(out.body.empty());
        return out;
    }
    // One line: replies are compact, and newlines inside strings are escaped.
    FUZZ_CHECK(!out.body.empty() && out.body.find('\n') == out.body.size() - 1);
    const auto reply = ParseJSON(std::string_view{out.body}.substr(0, out.body.size() - 1), JSONNumbers::KEEP_TEXT);
    FUZZ_CHECK(reply.has_value());

    if (reply->is_array()) {
        FUZZ_CHECK(status == HTTP_OK);
        for (const json& member : *reply) CheckReplyObject(member);
        return out;
    }
    CheckReplyObject(*reply);
    const bool has_error = reply->contains("error") && !(*reply)["error"].is_null();
    // Only an error sets an HTTP error status, and only a 2.0 reply carries
    // an error with 200.
    if (status != HTTP_OK) FUZZ_CHECK(has_error);
    if (status == HTTP_OK && has_error) FUZZ_CHECK(reply->contains("jsonrpc"));

    // A request object's id comes back whatever went wrong after it was read.
    const auto request = ParseJSON(body, JSONNumbers::DOUBLE);
    if (request && request->is_object() && request->contains("id")) {
        FUZZ_CHECK(reply->contains("id"));
        FUZZ_CHECK(WriteJSON((*reply)["id"]) == WriteJSON((*request)["id"]));
    }
    return out;
}

void FuzzRPCRequest(std::span<const uint8_t> input)
{
    const std::string_view text{reinterpret_cast<const char*>(input.data()), input.size()};
    CheckJSONRoundTrip(text);
    HandleRPCBodyForFuzz(text);
}
