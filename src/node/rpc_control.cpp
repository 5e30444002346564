#include <node/context.h>
#include <node/rpc_util.h>
#include <rpc/server.h>

#include <nlohmann/json.hpp>

#include <chrono>

using nlohmann::json;

namespace node {

void RegisterControlRPCCommands(RPCTable& table, NodeContext& node)
{
    table.Register({"control", "uptime", {}, "uptime\nSeconds since the node started.",
                    [&node](const JSONRPCRequest&) -> json {
                        return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - node.start_time).count();
                    }});
    table.Register({"control", "stop", {"wait"}, "stop\nRequests a clean shutdown.",
                    [&node](const JSONRPCRequest&) -> json {
                        node.RequestShutdown();
                        return "coinsdb stopping";
                    }});
}

} // namespace node
