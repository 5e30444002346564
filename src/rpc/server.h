#ifndef COINSDB_RPC_SERVER_H
#define COINSDB_RPC_SERVER_H

#include <rpc/help.h>
#include <rpc/protocol.h>
#include <rpc/request.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// Returns the call's result or throws JSONRPCError. Any other exception
// becomes RPC_MISC_ERROR with its what(). Handlers run on the HTTP worker
// threads, several at once.
using RPCHandler = std::function<nlohmann::json(const JSONRPCRequest&)>;

struct RPCCommand {
    // Groups the "help" listing; "hidden" commands are callable but not listed.
    std::string category;
    std::string name;
    // Every parameter, in order: named calls are mapped with these, and a
    // call with more positional parameters than this fails with the help text
    // (RPC_MISC_ERROR), as upstream.
    std::vector<std::string> arg_names;
    // Full help; its first line (the usage line, e.g. "getblockhash height")
    // is what "help" without arguments lists.
    std::string help;
    RPCHandler handler;
    // Members of an object parameter that named calls may also give alone.
    NamedOptions named_options{};
    // Runs before the handler on the positional parameters; throws to
    // refuse the call. Unset: only too many parameters are refused.
    std::function<void(const nlohmann::json& params)> check_params{};
};

// A command whose name, argument names, options, help text and parameter
// checks all come from its description (rpc/help.h).
RPCCommand MakeRPCCommand(std::string category, const RPCHelp& help, RPCHandler handler);

// The methods of one server and the JSON-RPC framing around them. All
// members may be called from any thread; handlers run without the table's
// lock held, so a slow handler does not block the others.
class RPCTable
{
public:
    // Registers the built-in "help".
    RPCTable();
    RPCTable(const RPCTable&) = delete;
    RPCTable& operator=(const RPCTable&) = delete;

    // Throws std::logic_error for a name registered twice.
    void Register(RPCCommand cmd);

    // While active, every method not exempt answers RPC_IN_WARMUP with the
    // status as its message (the node sets it to "Loading block index…" and
    // the like). Exempt by default: help and stop.
    void SetWarmup(bool active, std::string status);
    void SetWarmupExempt(std::set<std::string> methods);
    bool IsInWarmup(std::string* status = nullptr) const;

    // "" lists every command by category; otherwise that command's help, or
    // "help: unknown command: <name>".
    std::string HelpText(const std::string& command) const;

    // Runs one call: warmup check, lookup, named->positional mapping,
    // parameter count, handler. Throws JSONRPCError.
    nlohmann::json Execute(const JSONRPCRequest& request) const;

    // Answers one HTTP body: a request object or a batch (array), JSON-RPC
    // 1.0 or 2.0. http_status is set as upstream:
    //   single 1.0 request: 200, or on error 400 (invalid request),
    //     404 (method not found), 500 (anything else, parse errors too);
    //   single 2.0 request: 200 even when the call failed (the error is in
    //     the body); 204 and an empty body for a notification (no "id");
    //     a request object too malformed to run gets the 1.0 statuses;
    //   batch: 200; 204 when every member was a notification.
    // A body nested deeper than MAX_JSON_DEPTH is a parse error (-32700,
    // 500). A body with a name twice in one object, at any depth, is
    // refused whole with -32600 and 400: nothing in it runs.
    // Non-empty replies end with "\n".
    std::string HandleHTTPBody(const std::string& body, int& http_status) const;

private:
    struct Outcome {
        bool ok{false};
        std::string result_json;
        int code{0};
        std::string message;
    };
    Outcome Run(const JSONRPCRequest& request) const;
    std::string HandleSingle(const nlohmann::json& value, int& http_status) const;
    std::string HandleBatch(const nlohmann::json& value, int& http_status) const;
    nlohmann::json Help(const JSONRPCRequest& request) const;

    mutable std::mutex m_mutex;
    std::map<std::string, RPCCommand> m_commands;
    bool m_warmup{false};
    std::string m_warmup_status;
    std::set<std::string> m_warmup_exempt{"help", "stop"};
};

#endif // COINSDB_RPC_SERVER_H
