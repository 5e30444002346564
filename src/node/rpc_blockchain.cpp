#include <node/rpc_blockchain.h>

#include <node/context.h>
#include <node/rpc_util.h>
#include <rpc/protocol.h>
#include <rpc/server.h>
#include <util/args.h>
#include <util/strencodings.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace node {
namespace {

json GetChainstates(NodeContext& node, const JSONRPCRequest&)
{
    std::lock_guard lock{node.chainman->Mutex()};
    json chainstates = json::array();
    int headers = 0;
    for (Chainstate* chainstate : node.chainman->All()) {
        json entry{
            {"blocks", chainstate->TipHeight()},
            {"bestblockhash", chainstate->TipHash().GetHex()},
            {"verificationprogress", chainstate->Snapshot() ? 1.0 : 0.0},
            {"coins_db_cache_bytes", node.cache_sizes->coins_db},
            {"coins_tip_cache_bytes", chainstate->CoinsCacheBudget()},
            {"validated", !chainstate->Snapshot().has_value()},
        };
        if (chainstate->Snapshot()) entry["snapshot_blockhash"] = chainstate->Snapshot()->blockhash.GetHex();
        headers = std::max(headers, chainstate->TipHeight());
        chainstates.push_back(std::move(entry));
    }
    return json{{"headers", headers}, {"chainstates", chainstates}};
}

BlockProcessor& RequireBlockReplay(NodeContext& node)
{
    if (!node.processor) throw JSONRPCError(RPC_MISC_ERROR, "Block storage is not open (a snapshot chainstate is active)");
    return *node.processor;
}

json HeaderToJson(const BlockManager& blockman, const CChain& chain, const CBlockIndex& index)
{
    json result{
        {"hash", index.hash.GetHex()},
        {"confirmations", chain.Contains(&index) ? chain.Height() - index.nHeight + 1 : -1},
        {"height", index.nHeight},
        {"version", index.nVersion},
        {"versionHex", fmt::format("{:08x}", static_cast<uint32_t>(index.nVersion))},
        {"merkleroot", index.hashMerkleRoot.GetHex()},
        {"time", index.nTime},
        {"nonce", index.nNonce},
        {"bits", fmt::format("{:08x}", index.nBits)},
        {"chainwork", index.nChainWork.GetHex()},
        {"nTx", index.nTx},
    };
    if (index.pprev) result["previousblockhash"] = index.pprev->hash.GetHex();
    if (const CBlockIndex* next = chain.Next(&index)) result["nextblockhash"] = next->hash.GetHex();
    return result;
}

json GetBlockchainInfo(NodeContext& node, const JSONRPCRequest&)
{
    std::lock_guard lock{node.chainman->Mutex()};
    Chainstate& active = node.chainman->Active();
    json result{
        {"chain", node.chainman->Params().GetChainTypeString()},
        {"blocks", active.TipHeight()},
        {"bestblockhash", active.TipHash().GetHex()},
    };
    if (node.processor && node.blockman) {
        const CBlockIndex* best_header = node.blockman->BestHeader();
        const CBlockIndex* tip = node.processor->ActiveChain().Tip();
        result["headers"] = best_header ? best_header->nHeight : -1;
        result["chainwork"] = tip ? tip->nChainWork.GetHex() : std::string(64, '0');
        result["size_on_disk"] = node.blockman->CalculateCurrentUsage();
        result["pruned"] = node.blockman->IsPruned() || node.args->GetIntArg("prune", 0) > 0;
        result["waiting_blocks"] = node.processor->WaitingBlocks();
        if (node.blockman->IsPruned()) {
            int prune_height = 0;
            for (const CBlockIndex* index = tip; index && (index->nStatus & BLOCK_HAVE_DATA); index = index->pprev) prune_height = index->nHeight;
            result["pruneheight"] = prune_height;
        }
    } else {
        result["headers"] = active.TipHeight();
        result["pruned"] = false;
    }
    result["verification"] = "utxo-only: scripts and signatures are not verified";
    return result;
}

json GetBlockHash(NodeContext& node, const JSONRPCRequest& request)
{
    if (request.params.empty() || !request.params[0].is_number_integer()) throw JSONRPCError(RPC_TYPE_ERROR, "Expected type number for height");
    std::lock_guard lock{node.chainman->Mutex()};
    const CChain& chain = RequireBlockReplay(node).ActiveChain();
    const int64_t height = request.params[0].get<int64_t>();
    if (height < 0 || height > chain.Height()) throw JSONRPCError(RPC_INVALID_PARAMETER, "Block height out of range");
    return chain[static_cast<int>(height)]->hash.GetHex();
}

json GetBlockHeader(NodeContext& node, const JSONRPCRequest& request)
{
    const auto hash = uint256::FromHex(ParamString(request, 0, "blockhash"));
    if (!hash) throw JSONRPCError(RPC_INVALID_PARAMETER, "blockhash must be of length 64 (hexadecimal string)");
    const bool verbose = request.params.size() < 2 || request.params[1].is_null() || request.params[1].get<bool>();
    std::lock_guard lock{node.chainman->Mutex()};
    BlockProcessor& processor = RequireBlockReplay(node);
    const CBlockIndex* index = node.blockman->LookupBlockIndex(*hash);
    if (!index) throw JSONRPCError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    if (!verbose) {
        DataStream stream;
        stream << index->GetBlockHeader();
        return HexStr(stream.Unread());
    }
    return HeaderToJson(*node.blockman, processor.ActiveChain(), *index);
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
    table.Register({"blockchain", "getchainstates", {},
                    "getchainstates\nThe chainstates: the normal one and, after loadtxoutset, the snapshot one.",
                    BindNode(node, GetChainstates)});
    table.Register({"blockchain", "getblockchaininfo", {},
                    "getblockchaininfo\nState of the block chain: tip, headers, chain work, pruning. Scripts and signatures are not verified.",
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
