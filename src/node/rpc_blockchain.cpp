#include <node/rpc_blockchain.h>

#include <node/chain_info.h>
#include <node/context.h>
#include <node/rpc_util.h>
#include <rpc/protocol.h>
#include <rpc/server.h>
#include <util/args.h>
#include <streams.h>
#include <util/strencodings.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>

using nlohmann::json;

namespace node {
namespace {

// Upstream's confirmations: the depth of index on the active chain, or -1
// off it; next is set to its successor there.
int Confirmations(const NodeContext& node, const CBlockIndex* tip, const CBlockIndex& index, const CBlockIndex*& next)
{
    next = nullptr;
    if (!tip || index.nHeight > tip->nHeight) return -1;
    if (AncestorOnChain(node, *tip, index.nHeight) != &index) return -1;
    if (index.nHeight < tip->nHeight) next = AncestorOnChain(node, *tip, index.nHeight + 1);
    return tip->nHeight - index.nHeight + 1;
}

json HeaderToJson(const NodeContext& node, const CBlockIndex* tip, const CBlockIndex& index)
{
    const CBlockIndex* next;
    const int confirmations = Confirmations(node, tip, index, next);
    json result{
        {"hash", index.hash.GetHex()},
        {"confirmations", confirmations},
        {"height", index.nHeight},
        {"version", index.nVersion},
        {"versionHex", fmt::format("{:08x}", static_cast<uint32_t>(index.nVersion))},
        {"merkleroot", index.hashMerkleRoot.GetHex()},
        {"time", index.nTime},
        {"mediantime", GetMedianTimePast(index)},
        {"nonce", index.nNonce},
        {"bits", fmt::format("{:08x}", index.nBits)},
        {"target", TargetHex(index.nBits)},
        {"difficulty", GetDifficulty(index.nBits)},
        {"chainwork", index.nChainWork.GetHex()},
        {"nTx", index.nTx},
    };
    if (index.pprev) result["previousblockhash"] = index.pprev->hash.GetHex();
    if (next) result["nextblockhash"] = next->hash.GetHex();
    return result;
}

// Upstream's -maxtipage default: a tip older than this means the node is
// still catching up.
constexpr int64_t MAX_TIP_AGE_SECONDS{24 * 60 * 60};

int64_t NowSeconds()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Upstream's IsInitialBlockDownload without its minimum chain work (coinsdb
// knows no such figure): importing blocks, or a tip that is unknown or a
// day old. Once false, false for good.
bool IsInitialBlockDownload(NodeContext& node, const CBlockIndex* tip)
{
    if (node.left_initial_download) return false;
    if (node.importing || !tip || tip->GetBlockTime() < NowSeconds() - MAX_TIP_AGE_SECONDS) return true;
    node.left_initial_download = true;
    return false;
}

// The fields a block's header gives getblockchaininfo and getchainstates.
void AddTipTarget(json& result, const CBlockIndex& tip)
{
    result["bits"] = fmt::format("{:08x}", tip.nBits);
    result["target"] = TargetHex(tip.nBits);
    result["difficulty"] = GetDifficulty(tip.nBits);
}

json GetChainstates(NodeContext& node, const JSONRPCRequest&)
{
    std::lock_guard lock{node.chainman->Mutex()};
    json chainstates = json::array();
    // The normal chainstate first, the active (snapshot) one last, as upstream orders them by work.
    for (Chainstate* chainstate : node.chainman->All()) {
        json entry{
            {"blocks", chainstate->TipHeight()},
            {"bestblockhash", chainstate->TipHash().GetHex()},
            {"verificationprogress", VerificationProgress(node, *chainstate)},
            {"coins_db_cache_bytes", node.cache_sizes->coins_db},
            {"coins_tip_cache_bytes", chainstate->CoinsCacheBudget()},
            {"validated", !chainstate->Snapshot().has_value()},
        };
        if (const CBlockIndex* tip = TipIndex(node, *chainstate)) AddTipTarget(entry, *tip);
        if (chainstate->Snapshot()) entry["snapshot_blockhash"] = chainstate->Snapshot()->blockhash.GetHex();
        chainstates.push_back(std::move(entry));
    }
    return json{{"headers", HeadersHeight(node)}, {"chainstates", chainstates}};
}

json GetBlockchainInfo(NodeContext& node, const JSONRPCRequest&)
{
    std::lock_guard lock{node.chainman->Mutex()};
    Chainstate& active = node.chainman->Active();
    const CBlockIndex* tip = TipIndex(node, active);
    json result{
        {"chain", node.chainman->Params().GetChainTypeString()},
        {"blocks", active.TipHeight()},
        {"headers", HeadersHeight(node)},
        {"bestblockhash", active.TipHash().GetHex()},
        {"verificationprogress", VerificationProgress(node, active)},
        {"initialblockdownload", IsInitialBlockDownload(node, tip)},
        {"size_on_disk", node.blockman ? node.blockman->CalculateCurrentUsage() : 0},
    };
    // A snapshot loaded without its base block's header has none of these.
    if (tip) {
        AddTipTarget(result, *tip);
        result["time"] = tip->GetBlockTime();
        result["mediantime"] = GetMedianTimePast(*tip);
        result["chainwork"] = tip->nChainWork.GetHex();
    }
    const int64_t prune_mib = node.args->GetIntArg("prune", 0);
    result["pruned"] = prune_mib > 0;
    if (prune_mib > 0) {
        // The lowest block of the active chain whose data is still stored.
        int prune_height = tip ? tip->nHeight : 0;
        for (const CBlockIndex* index = tip; index && (index->nStatus & BLOCK_HAVE_DATA); index = index->pprev) prune_height = index->nHeight;
        result["pruneheight"] = prune_height;
        // coinsdb prunes only automatically: -prune=1 (manual) is refused.
        result["automatic_pruning"] = true;
        result["prune_target_size"] = node.processor ? node.processor->Options().prune_target_bytes : static_cast<uint64_t>(prune_mib) << 20;
    }
    if (node.processor) result["waiting_blocks"] = node.processor->WaitingBlocks();
    result["warnings"] = json::array({"coinsdb does not verify scripts or signatures: blocks are checked and replayed for their "
                                      "UTXO changes only"});
    return result;
}

json GetBlockHash(NodeContext& node, const JSONRPCRequest& request)
{
    const int height = ParamInt<int>(request.params.empty() ? json{} : request.params[0], "height");
    std::lock_guard lock{node.chainman->Mutex()};
    Chainstate& active = node.chainman->Active();
    if (height < 0 || height > active.TipHeight()) throw JSONRPCError(RPC_INVALID_PARAMETER, "Block height out of range");
    if (const CBlockIndex* tip = TipIndex(node, active)) return AncestorOnChain(node, *tip, height)->hash.GetHex();
    // A snapshot chainstate whose base block's header was never submitted:
    // only the base itself is known.
    if (height == active.TipHeight()) return active.TipHash().GetHex();
    throw JSONRPCError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found: the headers below the snapshot's base block are not known "
                                                   "(submit them with submitheader)");
}

json GetBlockHeader(NodeContext& node, const JSONRPCRequest& request)
{
    const uint256 hash = ParseHashParam(request.params.empty() ? json{} : request.params[0], "hash");
    const bool verbose = request.params.size() < 2 || request.params[1].is_null() || request.params[1].get<bool>();
    std::lock_guard lock{node.chainman->Mutex()};
    const CBlockIndex* index = node.blockman ? node.blockman->LookupBlockIndex(hash) : nullptr;
    if (!index) throw JSONRPCError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    if (!verbose) {
        DataStream stream;
        stream << index->GetBlockHeader();
        return HexStr(stream.Unread());
    }
    return HeaderToJson(node, TipIndex(node, node.chainman->Active()), *index);
}

json SubmitHeader(NodeContext& node, const JSONRPCRequest& request)
{
    const std::string hex = ParamString(request, 0, "hexdata");
    // As upstream: hex for at least a header; bytes after it are ignored.
    CBlockHeader header;
    const auto bytes = TryParseHex(hex);
    try {
        if (!bytes) throw std::ios_base::failure("not hex");
        SpanReader{std::span{*bytes}} >> header;
    } catch (const std::ios_base::failure&) {
        throw JSONRPCError(RPC_DESERIALIZATION_ERROR, "Block header decode failed");
    }
    std::lock_guard lock{node.chainman->Mutex()};
    if (!node.blockman) throw JSONRPCError(RPC_IN_WARMUP, "The block index is not open yet");
    if (!node.blockman->LookupBlockIndex(header.hashPrevBlock)) {
        throw JSONRPCError(RPC_VERIFY_ERROR, "Must submit previous header (" + header.hashPrevBlock.GetHex() + ") first");
    }
    kernel::BlockValidationState state;
    if (!BlockProcessor::AcceptHeader(*node.blockman, node.chainman->Params(), header, state)) {
        throw JSONRPCError(RPC_VERIFY_ERROR, state.GetRejectReason());
    }
    return nullptr;
}

} // namespace

void RegisterChainRPCCommands(RPCTable& table, NodeContext& node)
{
    table.Register({"blockchain", "getbestblockhash", {},
                    "getbestblockhash\nReturns the hash of the active chainstate's tip.",
                    [&node](const JSONRPCRequest&) -> json {
                        std::lock_guard lock{node.chainman->Mutex()};
                        return node.chainman->Active().TipHash().GetHex();
                    }});
    table.Register({"blockchain", "getblockcount", {},
                    "getblockcount\nReturns the height of the active chainstate's tip.",
                    [&node](const JSONRPCRequest&) -> json {
                        std::lock_guard lock{node.chainman->Mutex()};
                        return node.chainman->Active().TipHeight();
                    }});
    table.Register({"blockchain", "submitheader", {"hexdata"},
                    "submitheader \"hexdata\"\nAdds a block header (hex) to the block index.", BindNode(node, SubmitHeader)});
    table.Register({"blockchain", "getchainstates", {},
                    "getchainstates\nThe chainstates: the normal one and, after loadtxoutset, the snapshot one.",
                    BindNode(node, GetChainstates)});
    table.Register({"blockchain", "getblockchaininfo", {},
                    "getblockchaininfo\nState of the block chain: tip, headers, chain work, pruning.",
                    BindNode(node, GetBlockchainInfo)});
    table.Register({"blockchain", "getblockhash", {"height"},
                    "getblockhash height\nHash of the active chain's block at height.", BindNode(node, GetBlockHash)});
    table.Register({"blockchain", "getblockheader", {"blockhash", "verbose"},
                    "getblockheader \"blockhash\" ( verbose )\nThe header of a stored block: JSON, or hex with verbose=false.",
                    BindNode(node, GetBlockHeader)});
}

void RegisterBlockchainRPCCommands(RPCTable& table, NodeContext& node)
{
    RegisterChainRPCCommands(table, node);
    RegisterCoinsRPCCommands(table, node);
    RegisterControlRPCCommands(table, node);
}

} // namespace node
