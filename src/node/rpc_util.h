#ifndef COINSDB_NODE_RPC_UTIL_H
#define COINSDB_NODE_RPC_UTIL_H

// What the node's RPC methods share: reading parameters, paths relative to
// the datadir, and the registration of each file's methods.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

class RPCTable;
struct JSONRPCRequest;

namespace node {
class Chainstate;
struct NodeContext;

// Paths in RPC arguments are relative to the network's data directory.
std::filesystem::path AbsPathForRpc(const NodeContext& node, const std::string& path);

std::string ParamString(const JSONRPCRequest& request, size_t index, const std::string& name);
std::optional<std::string> OptionalParamString(const JSONRPCRequest& request, size_t index, const std::string& name);

// Gets the active chainstate's changes to disk for an RPC that reads the
// database (after the block index, as FlushStateToDisk does).
void SyncForReading(NodeContext& node, Chainstate& active);

// Binds a method implemented as fn(node, request) to node.
using NodeRPCMethod = nlohmann::json (*)(NodeContext&, const JSONRPCRequest&);
inline auto BindNode(NodeContext& node, NodeRPCMethod fn)
{
    return [&node, fn](const JSONRPCRequest& request) { return fn(node, request); };
}

// Each file's methods (rpc_blockchain.cpp, rpc_coins.cpp, rpc_control.cpp).
void RegisterChainRPCCommands(RPCTable& table, NodeContext& node);
void RegisterCoinsRPCCommands(RPCTable& table, NodeContext& node);
void RegisterControlRPCCommands(RPCTable& table, NodeContext& node);

} // namespace node

#endif // COINSDB_NODE_RPC_UTIL_H
