#include <node/rpc_util.h>

#include <node/context.h>
#include <rpc/protocol.h>
#include <rpc/request.h>

namespace node {

std::filesystem::path AbsPathForRpc(const NodeContext& node, const std::string& path)
{
    std::filesystem::path p{path};
    return p.is_absolute() ? p : node.chainman->Options().datadir / p;
}

std::string ParamString(const JSONRPCRequest& request, size_t index, const std::string& name)
{
    if (request.params.size() <= index || request.params[index].is_null()) {
        throw JSONRPCError(RPC_INVALID_PARAMETER, "Missing required parameter " + name);
    }
    if (!request.params[index].is_string()) throw JSONRPCError(RPC_TYPE_ERROR, "Expected type string for " + name);
    return request.params[index].get<std::string>();
}

std::optional<std::string> OptionalParamString(const JSONRPCRequest& request, size_t index, const std::string& name)
{
    if (request.params.size() <= index || request.params[index].is_null()) return std::nullopt;
    return ParamString(request, index, name);
}

// The block index goes first, as in FlushStateToDisk: otherwise a crash
// right after could leave coins whose best block the index on disk does
// not know, and the node would refuse to start.
void SyncForReading(NodeContext& node, Chainstate& active)
{
    if (node.blockman && !node.blockman->WriteIndex()) throw JSONRPCError(RPC_INTERNAL_ERROR, "Failed to write the block index");
    active.Sync();
}

} // namespace node
