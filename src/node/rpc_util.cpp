#include <node/rpc_util.h>

#include <node/chain_info.h>
#include <node/context.h>
#include <rpc/protocol.h>
#include <rpc/request.h>

#include <algorithm>
#include <chrono>

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

const CBlockIndex* TipIndex(const NodeContext& node, const Chainstate& chainstate)
{
    return node.blockman ? node.blockman->LookupBlockIndex(chainstate.TipHash()) : nullptr;
}

uint64_t KnownChainTx(const NodeContext& node, const Chainstate& chainstate)
{
    if (chainstate.Snapshot() && chainstate.TipHash() == chainstate.Snapshot()->blockhash) return chainstate.Snapshot()->chain_tx_count;
    const CBlockIndex* tip = TipIndex(node, chainstate);
    return tip ? tip->nChainTx : 0;
}

int HeadersHeight(const NodeContext& node)
{
    const CBlockIndex* best = node.blockman ? node.blockman->BestHeader() : nullptr;
    return std::max(best ? best->nHeight : -1, node.chainman->Active().TipHeight());
}

double VerificationProgress(const NodeContext& node, const Chainstate& chainstate)
{
    const CBlockIndex* tip = TipIndex(node, chainstate);
    if (!tip) return 0.0;
    const CBlockIndex* best = node.blockman->BestHeader();
    const ProgressInput input{.chain_tx = KnownChainTx(node, chainstate), .tip_time = tip->GetBlockTime(), .tip_height = tip->nHeight,
                              .best_header_height = best ? best->nHeight : -1};
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    return GuessVerificationProgress(node.chainman->Params(), input, now);
}

} // namespace node
