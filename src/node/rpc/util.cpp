#include <node/rpc/util.h>

#include <node/replay/block_processor.h>
#include <node/chainstate/chain_info.h>
#include <node/init/context.h>
#include <rpc/help.h>
#include <rpc/protocol.h>
#include <rpc/request.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>

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

uint256 ParseHashParam(const nlohmann::json& value, std::string_view name)
{
    if (!value.is_string()) throw JSONRPCError(RPC_TYPE_ERROR, fmt::format("Expected type string for {}", name));
    const std::string& hex = value.get_ref<const std::string&>();
    if (hex.size() != 64) throw JSONRPCError(RPC_INVALID_PARAMETER, fmt::format("{} must be of length 64 (not {}, for '{}')", name, hex.size(), hex));
    const auto hash = uint256::FromHex(hex);
    if (!hash) throw JSONRPCError(RPC_INVALID_PARAMETER, fmt::format("{} must be hexadecimal string (not '{}')", name, hex));
    return *hash;
}

template <typename T>
T ParamInt(const nlohmann::json& value, std::string_view name)
{
    if (!value.is_number()) throw JSONRPCError(RPC_TYPE_ERROR, fmt::format("Expected type number for {}", name));
    if (value.is_number_float() || (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())) ||
        (value.is_number_integer() && !value.is_number_unsigned() &&
         (value.get<int64_t>() < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          value.get<int64_t>() > static_cast<int64_t>(std::numeric_limits<T>::max())))) {
        throw JSONRPCError(RPC_MISC_ERROR, "JSON integer out of range");
    }
    return value.is_number_unsigned() ? static_cast<T>(value.get<uint64_t>()) : static_cast<T>(value.get<int64_t>());
}
template int ParamInt<int>(const nlohmann::json&, std::string_view);
template int64_t ParamInt<int64_t>(const nlohmann::json&, std::string_view);
template uint32_t ParamInt<uint32_t>(const nlohmann::json&, std::string_view);

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

const CBlockIndex* AncestorOnChain(const NodeContext& node, const CBlockIndex& tip, int height)
{
    if (node.processor && node.processor->ActiveChain().Tip() == &tip) return node.processor->ActiveChain()[height];
    return tip.GetAncestor(height);
}

int HeadersHeight(const NodeContext& node)
{
    const CBlockIndex* best = node.blockman ? node.blockman->BestHeader() : nullptr;
    return std::max(best ? best->nHeight : -1, node.chainman->Active().TipHeight());
}

uint64_t PruneTarget(const NodeContext& node)
{
    return node.processor ? node.processor->Options().prune_target_bytes : 0;
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

std::string HelpExamples(const std::string& method, const std::string& cli_args, const std::string& rpc_args)
{
    return HelpExampleCli(method, cli_args) + HelpExampleRpc(method, rpc_args);
}

} // namespace node
