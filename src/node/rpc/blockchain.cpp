#include <node/rpc/blockchain.h>

#include <kernel/pow.h>
#include <node/chainstate/chain_info.h>
#include <node/init/context.h>
#include <node/replay/block_processor.h>
#include <node/rpc/util.h>
#include <rpc/help.h>
#include <rpc/protocol.h>
#include <rpc/server.h>
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
        {"chainwork", ArithToUint256(index.nChainWork).GetHex()},
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

// A hinted replay's state: until "verified", the chainstate is not the
// UTXO set at its best block's height.
std::optional<json> SwiftSyncInfo(const NodeContext& node)
{
    if (!node.processor) return std::nullopt;
    const auto status = node.processor->GetSwiftSyncStatus();
    if (!status) return std::nullopt;
    json info{
        {"status", ToString(status->state)},
        {"height", status->height},
        {"blockhash", status->block_hash.GetHex()},
    };
    if (status->state == SwiftSyncStatus::State::UNVERIFIED) {
        info["hinted_blocks"] = node.processor->ActiveChain().Height();
    } else {
        info["seconds"] = status->took.count() / 1000.0;
    }
    if (!status->reason.empty()) info["reason"] = status->reason;
    return info;
}

// Whether `chainstate` is the normal one while a hinted replay has not
// checked out yet.
bool SwiftSyncUnverified(const NodeContext& node, const Chainstate& chainstate)
{
    if (!node.processor || chainstate.Snapshot()) return false;
    const auto status = node.processor->GetSwiftSyncStatus();
    return status && status->state == SwiftSyncStatus::State::UNVERIFIED;
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
            {"validated", !chainstate->Snapshot().has_value() && !SwiftSyncUnverified(node, *chainstate)},
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
        result["chainwork"] = ArithToUint256(tip->nChainWork).GetHex();
    }
    const uint64_t prune_target = PruneTarget(node);
    result["pruned"] = prune_target > 0;
    if (prune_target > 0) {
        // The lowest block of the active chain whose data is still stored.
        int prune_height = tip ? tip->nHeight : 0;
        for (const CBlockIndex* index = tip; index && (index->nStatus & BLOCK_HAVE_DATA); index = index->pprev) prune_height = index->nHeight;
        result["pruneheight"] = prune_height;
        // coinsdb prunes only automatically: -prune=1 (manual) is refused.
        result["automatic_pruning"] = true;
        result["prune_target_size"] = prune_target;
    }
    if (node.processor) result["waiting_blocks"] = node.processor->WaitingBlocks();
    if (auto swiftsync = SwiftSyncInfo(node)) result["swiftsync"] = std::move(*swiftsync);
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

using T = RPCResult::Type;
constexpr auto REQUIRED = RPCArg::Need::REQUIRED;
constexpr auto OPTIONAL = RPCArg::Need::OPTIONAL;

// The "swiftsync" object, present once -swiftsynchints started a replay.
RPCResult SwiftSyncResult()
{
    return {T::OBJ, "swiftsync", "A SwiftSync hinted replay (-swiftsynchints); only once one started", {
        {T::STR, "status", "\"unverified\": blocks up to height are being connected with hints, and the chainstate is not the "
                           "UTXO set of any block yet; \"verified\": the check at height passed and the chainstate was written; "
                           "\"fell back\": a check failed and the blocks are replayed without hints"},
        {T::NUM, "height", "H, the height of the hints file"},
        {T::STR_HEX, "blockhash", "The block at H the hints were made for (-swiftsyncblockhash)"},
        {T::NUM, "hinted_blocks", "Blocks connected with hints so far (only while unverified)", {}, true},
        {T::NUM, "seconds", "From the start of the hinted replay to its verification or fall back", {}, true},
        {T::STR, "reason", "Why it fell back (only then)", {}, true},
    }, true};
}

// The target fields of a chain's tip, optional where the tip's header may
// be unknown (a snapshot loaded without its headers).
std::vector<RPCResult> TipTargetResults()
{
    return {
        {T::STR_HEX, "bits", "The tip's nBits, the compact form of its target", {}, true},
        {T::STR_HEX, "target", "The tip's proof-of-work target", {}, true},
        {T::NUM, "difficulty", "How much harder the target is to meet than the easiest main-network one", {}, true},
    };
}

RPCHelp GetBlockchainInfoHelp()
{
    std::vector<RPCResult> fields{
        {T::STR, "chain", "The network: main, test, testnet4, signet or regtest"},
        {T::NUM, "blocks", "The active chainstate's height (0: the genesis block)"},
        {T::NUM, "headers", "The height of the best header known, at least the active chainstate's"},
        {T::STR_HEX, "bestblockhash", "The hash of the active chainstate's tip"},
    };
    for (auto& field : TipTargetResults()) fields.push_back(std::move(field));
    for (RPCResult field : std::vector<RPCResult>{
             {T::NUM_TIME, "time", "The tip's block time, in seconds since the UNIX epoch", {}, true},
             {T::NUM_TIME, "mediantime", "The median time of the tip and the ten blocks before it", {}, true},
             {T::NUM, "verificationprogress", "An estimate of how far the chain is along the network's history, from 0 to 1; 0 "
                                              "when the tip's header or transaction count is unknown"},
             {T::BOOL, "initialblockdownload", "Whether the node is still catching up: importing blocks, or a tip older than a day"},
             {T::STR_HEX, "chainwork", "The total work of the active chain up to its tip", {}, true},
             {T::NUM, "size_on_disk", "Bytes of the block and undo files"},
             {T::BOOL, "pruned", "Whether old block files are deleted (-prune)"},
             {T::NUM, "pruneheight", "The lowest block of the active chain whose data is still stored (only when pruning)", {}, true},
             {T::BOOL, "automatic_pruning", "Always true when pruning: coinsdb only prunes by itself (only when pruning)", {}, true},
             {T::NUM, "prune_target_size", "The -prune target in bytes (only when pruning)", {}, true},
             {T::NUM, "waiting_blocks", "Blocks read by an import that wait for their parent (coinsdb's own; only while blocks "
                                        "are replayed)", {}, true},
             SwiftSyncResult(),
             {T::ARR, "warnings", "Warnings about the node and its chain", {{T::STR, "", "A warning"}}},
         }) {
        fields.push_back(std::move(field));
    }
    return {.name = "getblockchaininfo",
            .description = "Reports the state of the block chain: the active tip, the best header, the tip's target, time and\n"
                           "chain work, progress, and pruning.",
            .args = {},
            .results = {{"", {T::OBJ, "", "", fields}}},
            .examples = HelpExamples("getblockchaininfo", "", "")};
}

RPCHelp GetChainstatesHelp()
{
    std::vector<RPCResult> fields{
        {T::NUM, "blocks", "The chainstate's height"},
        {T::STR_HEX, "bestblockhash", "The hash of its tip"},
    };
    for (auto& field : TipTargetResults()) fields.push_back(std::move(field));
    for (RPCResult field : std::vector<RPCResult>{
             {T::NUM, "verificationprogress", "How far its chain is along the network's history, from 0 to 1"},
             {T::STR_HEX, "snapshot_blockhash", "The block its snapshot was taken at (only for a snapshot chainstate)", {}, true},
             {T::NUM, "coins_db_cache_bytes", "Bytes of LevelDB cache for its chainstate database"},
             {T::NUM, "coins_tip_cache_bytes", "Bytes its in-memory coins cache may use"},
             {T::BOOL, "validated", "False for a snapshot chainstate, whose coins were trusted rather than replayed from blocks, "
                                    "and for a chainstate a SwiftSync hinted replay has not checked yet"},
         }) {
        fields.push_back(std::move(field));
    }
    return {.name = "getchainstates",
            .description = "Lists the chainstates: the normal one and, once a snapshot was loaded with loadtxoutset, the snapshot\n"
                           "one, which is then the active one.",
            .args = {},
            .results = {{"", {T::OBJ, "", "", {
                {T::NUM, "headers", "The height of the best header known, at least the active chainstate's"},
                {T::ARR, "chainstates", "The normal chainstate first; the active one last", {{T::OBJ, "", "", fields}}},
            }}}},
            .examples = HelpExamples("getchainstates", "", "")};
}

RPCHelp GetBlockHeaderHelp()
{
    return {.name = "getblockheader",
            .description = "Returns the header of a block the block index knows, stored or submitted with submitheader: as a\n"
                           "JSON object, or as hex with verbose=false.",
            .args = {{"blockhash", RPCArgType::STR_HEX, REQUIRED, "", "The block's hash"},
                     {"verbose", RPCArgType::BOOL, OPTIONAL, "true", "A JSON object when true, the 80 header bytes in hex when false"}},
            .results = {{"for verbose = true", {T::OBJ, "", "", {
                             {T::STR_HEX, "hash", "The block's hash"},
                             {T::NUM, "confirmations", "How many blocks of the active chain it is under, itself included; -1 "
                                                       "when it is not on the active chain"},
                             {T::NUM, "height", "Its height"},
                             {T::NUM, "version", "Its version field"},
                             {T::STR_HEX, "versionHex", "The version as 8 hex digits"},
                             {T::STR_HEX, "merkleroot", "The merkle root of its transactions"},
                             {T::NUM_TIME, "time", "Its block time, in seconds since the UNIX epoch"},
                             {T::NUM_TIME, "mediantime", "The median time of the block and the ten before it"},
                             {T::NUM, "nonce", "Its nonce"},
                             {T::STR_HEX, "bits", "Its nBits, the compact form of its target"},
                             {T::STR_HEX, "target", "Its proof-of-work target"},
                             {T::NUM, "difficulty", "How much harder its target is to meet than the easiest main-network one"},
                             {T::STR_HEX, "chainwork", "The total work of the chain up to and including it"},
                             {T::NUM, "nTx", "How many transactions it has; 0 when only its header is known"},
                             {T::STR_HEX, "previousblockhash", "The hash of its parent (not for a genesis block)", {}, true},
                             {T::STR_HEX, "nextblockhash", "The hash of its child on the active chain, if there is one", {}, true},
                         }}},
                        {"for verbose = false", {T::STR_HEX, "", "The serialized header, in hex"}}},
            .examples = HelpExamples("getblockheader", fmt::format("\"{}\"", EXAMPLE_BLOCK_HASH), fmt::format("\"{}\"", EXAMPLE_BLOCK_HASH)) +
                        HelpExampleCliNamed("getblockheader", fmt::format("blockhash={} verbose=false", EXAMPLE_BLOCK_HASH))};
}

} // namespace

void RegisterChainRPCCommands(RPCTable& table, NodeContext& node)
{
    const RPCHelp best_block_hash{
        .name = "getbestblockhash",
        .description = "Returns the hash of the active chainstate's tip.",
        .args = {},
        .results = {{"", {T::STR_HEX, "", "The tip's block hash"}}},
        .examples = HelpExamples("getbestblockhash", "", "")};
    table.Register(MakeRPCCommand("blockchain", best_block_hash, [&node](const JSONRPCRequest&) -> json {
        std::lock_guard lock{node.chainman->Mutex()};
        return node.chainman->Active().TipHash().GetHex();
    }));
    const RPCHelp block_count{
        .name = "getblockcount",
        .description = "Returns the height of the active chainstate's tip; the genesis block is at height 0.",
        .args = {},
        .results = {{"", {T::NUM, "", "The tip's height"}}},
        .examples = HelpExamples("getblockcount", "", "")};
    table.Register(MakeRPCCommand("blockchain", block_count, [&node](const JSONRPCRequest&) -> json {
        std::lock_guard lock{node.chainman->Mutex()};
        return node.chainman->Active().TipHeight();
    }));
    const RPCHelp submit_header{
        .name = "submitheader",
        .description = "Adds a block header to the block index, without its block: a snapshot's chain of headers, for example,\n"
                       "which Bitcoin Core wants before loadtxoutset. Its parent must be known; only its proof of work is checked.",
        .args = {{"hexdata", RPCArgType::STR_HEX, REQUIRED, "", "The 80-byte header in hex"}},
        .results = {{"", {T::NONE, "", "When the header was added, or was known already"}}},
        .examples = HelpExamples("submitheader", "\"<80 bytes in hex>\"", "\"<80 bytes in hex>\"")};
    table.Register(MakeRPCCommand("blockchain", submit_header, BindNode(node, SubmitHeader)));
    table.Register(MakeRPCCommand("blockchain", GetChainstatesHelp(), BindNode(node, GetChainstates)));
    table.Register(MakeRPCCommand("blockchain", GetBlockchainInfoHelp(), BindNode(node, GetBlockchainInfo)));
    const RPCHelp block_hash{
        .name = "getblockhash",
        .description = "Returns the hash of the active chain's block at a height.",
        .args = {{"height", RPCArgType::NUM, REQUIRED, "", "The height, 0 for the genesis block"}},
        .results = {{"", {T::STR_HEX, "", "The block's hash"}}},
        .examples = HelpExamples("getblockhash", "840000", "840000")};
    table.Register(MakeRPCCommand("blockchain", block_hash, BindNode(node, GetBlockHash)));
    table.Register(MakeRPCCommand("blockchain", GetBlockHeaderHelp(), BindNode(node, GetBlockHeader)));
}

void RegisterBlockchainRPCCommands(RPCTable& table, NodeContext& node)
{
    RegisterChainRPCCommands(table, node);
    RegisterCoinsRPCCommands(table, node);
    RegisterControlRPCCommands(table, node);
}

} // namespace node
