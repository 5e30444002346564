#include <node/context.h>
#include <node/rpc_util.h>
#include <rpc/help.h>
#include <rpc/server.h>

#include <nlohmann/json.hpp>

#include <chrono>

using nlohmann::json;

namespace node {

void RegisterControlRPCCommands(RPCTable& table, NodeContext& node)
{
    const RPCHelp uptime{.name = "uptime",
                         .description = "Returns how long the node has been running.",
                         .args = {},
                         .results = {{"", {RPCResult::Type::NUM, "", "Seconds since the node started"}}},
                         .examples = HelpExamples("uptime")};
    table.Register(MakeRPCCommand("control", uptime, [&node](const JSONRPCRequest&) -> json {
        return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - node.start_time).count();
    }));
    // "wait" is upstream's hidden test argument; accepted and ignored.
    const RPCHelp stop{.name = "stop",
                       .description = "Asks the node to shut down cleanly: it stops taking calls, writes its coins caches and block\n"
                                      "index to disk and exits.",
                       .args = {{"wait", RPCArgType::NUM, RPCArg::Need::OPTIONAL, "", "Ignored", {}, /*hidden=*/true}},
                       .results = {{"", {RPCResult::Type::STR, "", "\"coinsdb stopping\""}}},
                       .examples = HelpExamples("stop")};
    table.Register(MakeRPCCommand("control", stop, [&node](const JSONRPCRequest&) -> json {
        node.RequestShutdown();
        return "coinsdb stopping";
    }));
}

} // namespace node
