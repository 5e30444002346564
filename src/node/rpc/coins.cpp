#include <kernel/coinstats.h>
#include <node/init/context.h>
#include <node/rpc/util.h>
#include <node/snapshot/rollback.h>
#include <node/snapshot/utxo_snapshot.h>
#include <rpc/help.h>
#include <rpc/json.h>
#include <rpc/protocol.h>
#include <rpc/server.h>
#include <script/script.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

using nlohmann::json;

namespace node {
namespace {

// Exact BTC text with 8 decimals, as upstream prints amounts.
json AmountToJson(CAmount amount) { return ValueFromAmount(amount); }

std::string ScriptType(const CScript& s)
{
    if (s.size() == 25 && s[0] == OP_DUP && s[1] == OP_HASH160 && s[2] == 20 && s[23] == OP_EQUALVERIFY && s[24] == OP_CHECKSIG) {
        return "pubkeyhash";
    }
    if (s.size() == 23 && s[0] == OP_HASH160 && s[1] == 20 && s[22] == OP_EQUAL) return "scripthash";
    if (s.size() == 22 && s[0] == OP_0 && s[1] == 20) return "witness_v0_keyhash";
    if (s.size() == 34 && s[0] == OP_0 && s[1] == 32) return "witness_v0_scripthash";
    if (s.size() == 34 && s[0] == OP_1 && s[1] == 32) return "witness_v1_taproot";
    if ((s.size() == 35 && s[0] == 33 && s[34] == OP_CHECKSIG) || (s.size() == 67 && s[0] == 65 && s[66] == OP_CHECKSIG)) {
        return "pubkey";
    }
    if (!s.empty() && s.back() == OP_CHECKMULTISIG) return "multisig";
    return "nonstandard";
}

json GetTxOutSetInfo(NodeContext& node, const JSONRPCRequest& request)
{
    const std::string hash_type = OptionalParamString(request, 0, "hash_type").value_or("hash_serialized_3");
    // Statistics of an earlier block need an index coinsdb does not keep.
    if (request.params.size() > 1 && !request.params[1].is_null()) {
        throw JSONRPCError(RPC_INVALID_PARAMETER, "Querying specific block heights requires coinstatsindex");
    }
    kernel::CoinStatsHashType type;
    if (hash_type == "hash_serialized_3") {
        type = kernel::CoinStatsHashType::HASH_SERIALIZED;
    } else if (hash_type == "muhash") {
        type = kernel::CoinStatsHashType::MUHASH;
    } else if (hash_type == "none") {
        type = kernel::CoinStatsHashType::NONE;
    } else {
        throw JSONRPCError(RPC_INVALID_PARAMETER, fmt::format("'{}' is not a valid hash_type", hash_type));
    }
    std::lock_guard lock{node.chainman->Mutex()};
    Chainstate& active = node.chainman->Active();
    // Statistics come from the database, so it must hold the cache's
    // changes; the cache itself is still worth keeping.
    SyncForReading(node, active);
    const auto stats = kernel::ComputeUTXOStats(type, active.CoinsDB(), [&] {
        if (node.shutdown_requested) throw JSONRPCError(RPC_MISC_ERROR, "Shutting down");
    });
    if (!stats) throw JSONRPCError(RPC_INTERNAL_ERROR, "Unable to read UTXO set");
    json result{
        {"height", active.TipHeight()},
        {"bestblock", stats->best_block.GetHex()},
        {"txouts", stats->txouts},
        {"bogosize", stats->bogosize},
    };
    if (type == kernel::CoinStatsHashType::HASH_SERIALIZED) result["hash_serialized_3"] = stats->hash_serialized.GetHex();
    if (type == kernel::CoinStatsHashType::MUHASH) result["muhash"] = stats->hash_serialized.GetHex();
    result["total_amount"] = AmountToJson(stats->total_amount);
    result["transactions"] = stats->transactions;
    result["disk_size"] = active.CoinsDB().EstimateSize();
    return result;
}

json GetTxOut(NodeContext& node, const JSONRPCRequest& request)
{
    const uint256 txid = ParseHashParam(request.params.empty() ? json{} : request.params[0], "txid");
    const uint32_t n = ParamInt<uint32_t>(request.params.size() < 2 ? json{} : request.params[1], "n");
    std::lock_guard lock{node.chainman->Mutex()};
    Chainstate& active = node.chainman->Active();
    const auto coin = active.CoinsTip().GetCoin(COutPoint{txid, n});
    if (!coin) return nullptr;
    const int confirmations = active.TipHeight() < 0 ? 0 : active.TipHeight() - static_cast<int>(coin->nHeight) + 1;
    return json{
        {"bestblock", active.TipHash().GetHex()},
        {"confirmations", confirmations},
        {"value", AmountToJson(coin->out.nValue)},
        {"scriptPubKey", {{"hex", HexStr(coin->out.scriptPubKey)}, {"type", ScriptType(coin->out.scriptPubKey)}}},
        {"coinbase", coin->IsCoinBase()},
    };
}

json LoadTxOutSet(NodeContext& node, const JSONRPCRequest& request)
{
    const auto path = AbsPathForRpc(node, ParamString(request, 0, "path"));
    // Upstream's codes: the caller's file (-8), its header (-22), then
    // everything the load itself finds (-32603).
    AutoFile file{std::fopen(path.c_str(), "rb")};
    if (file.IsNull()) throw JSONRPCError(RPC_INVALID_PARAMETER, "Couldn't open file " + path.string() + " for reading.");
    SnapshotMetadata metadata;
    try {
        metadata = SnapshotMetadata::Read(file, node.chainman->Params().MessageStart());
    } catch (const SnapshotError& e) {
        throw JSONRPCError(RPC_DESERIALIZATION_ERROR, fmt::format("Unable to parse metadata: {}", e.what()));
    }
    try {
        const SnapshotLoadResult result = node.chainman->ActivateSnapshot(file, metadata, path, node.shutdown_requested);
        return json{
            {"coins_loaded", result.coins_loaded},
            {"tip_hash", result.base_blockhash.GetHex()},
            {"base_height", result.base_height},
            {"path", path.string()},
        };
    } catch (const JSONRPCError&) {
        throw;
    } catch (const std::exception& e) {
        throw JSONRPCError(RPC_INTERNAL_ERROR, fmt::format("Unable to load UTXO snapshot: {} ({})", e.what(), path.string()));
    }
}

// Upstream's ParseHashOrHeight for dumptxoutset's rollback option: a
// height on the active chain, or the hash of any block the index knows
// (only those on the active chain can be rolled back to: checked by the
// caller).
const CBlockIndex* ParseHashOrHeight(const NodeContext& node, const json& value)
{
    Chainstate& active = node.chainman->Active();
    const CBlockIndex* tip = TipIndex(node, active);
    if (value.is_number()) {
        const int height = ParamInt<int>(value, "rollback");
        if (height < 0) throw JSONRPCError(RPC_INVALID_PARAMETER, fmt::format("Target block height {} is negative", height));
        if (height > active.TipHeight()) {
            throw JSONRPCError(RPC_INVALID_PARAMETER, fmt::format("Target block height {} after current tip {}", height, active.TipHeight()));
        }
        if (!tip) throw JSONRPCError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found: the snapshot's headers are not known");
        return AncestorOnChain(node, *tip, height);
    }
    if (!value.is_string()) throw JSONRPCError(RPC_TYPE_ERROR, fmt::format("JSON value of type {} is not of expected type string", JSONTypeName(value)));
    const uint256 hash = ParseHashParam(value, "hash_or_height");
    const CBlockIndex* index = node.blockman ? node.blockman->LookupBlockIndex(hash) : nullptr;
    if (!index) throw JSONRPCError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    return index;
}

// The block dumptxoutset is to write the UTXO set of; nullptr for the tip
// as it is ("latest"). Checks in upstream's order and with its errors.
const CBlockIndex* DumpTarget(const NodeContext& node, const std::string& type, const json& options)
{
    if (!options.is_null() && !options.is_object()) {
        throw JSONRPCError(RPC_TYPE_ERROR, fmt::format("JSON value of type {} is not of expected type object", JSONTypeName(options)));
    }
    const bool has_rollback = options.is_object() && options.contains("rollback");
    if (has_rollback && type == "latest") {
        throw JSONRPCError(RPC_INVALID_PARAMETER, "Invalid snapshot type \"latest\" specified with rollback option");
    }
    if (has_rollback) return ParseHashOrHeight(node, options["rollback"]);
    if (type == "rollback") {
        // The most recent block a snapshot can be loaded at.
        const auto& entries = node.chainman->Params().AssumeutxoEntries();
        if (entries.empty()) throw JSONRPCError(RPC_MISC_ERROR, "This chain has no assumeutxo entry to roll back to");
        const int height = std::ranges::max(entries, {}, &AssumeutxoData::height).height;
        return ParseHashOrHeight(node, json(height));
    }
    if (type == "latest") return nullptr;
    throw JSONRPCError(RPC_INVALID_PARAMETER, fmt::format("Invalid snapshot type \"{}\" specified. Please specify \"rollback\" or \"latest\"", type));
}

// What a dump writes: the coins of `db`, which stand at block base_hash.
struct DumpSource {
    const CCoinsViewDB& db;
    uint256 base_hash;
    int base_height;
    uint64_t chain_tx;
};

json WriteDump(NodeContext& node, const DumpSource& source, AutoFile& file, const std::filesystem::path& temp_path,
               const std::filesystem::path& path)
{
    const auto interrupt = [&] {
        if (node.shutdown_requested) throw JSONRPCError(RPC_MISC_ERROR, "Shutting down");
    };
    // Counted first: the header carries the number of coins.
    const auto stats = kernel::ComputeUTXOStats(kernel::CoinStatsHashType::HASH_SERIALIZED, source.db, interrupt);
    if (!stats) throw JSONRPCError(RPC_INTERNAL_ERROR, "Unable to read UTXO set");
    if (stats->best_block != source.base_hash) throw JSONRPCError(RPC_INTERNAL_ERROR, "The UTXO set is not at block " + source.base_hash.GetHex());
    uint64_t written = 0;
    try {
        auto cursor = source.db.Cursor();
        written = WriteSnapshot(file, node.chainman->Params().MessageStart(), stats->best_block, stats->txouts, *cursor);
        if (std::fflush(file.Get()) != 0 || fsync(fileno(file.Get())) != 0 || file.fclose() != 0) {
            throw std::runtime_error("write failed: " + std::string{std::strerror(errno)});
        }
    } catch (const std::exception& e) {
        throw JSONRPCError(RPC_MISC_ERROR, fmt::format("Unable to write snapshot to {}: {}", temp_path.string(), e.what()));
    }
    std::filesystem::rename(temp_path, path);
    return json{
        {"coins_written", written},
        {"base_hash", stats->best_block.GetHex()},
        {"base_height", source.base_height},
        {"path", path.string()},
        {"txoutset_hash", stats->hash_serialized.GetHex()},
        {"nchaintx", source.chain_tx},
    };
}

// Upstream's pruned-node check, then that every block to disconnect has
// its block and undo data (a snapshot chainstate has none below its base).
void CheckRollbackData(const NodeContext& node, const CBlockIndex& tip, const CBlockIndex& target)
{
    if (AncestorOnChain(node, tip, target.nHeight) != &target) {
        throw JSONRPCError(RPC_INVALID_PARAMETER, "Block " + target.GetBlockHash().GetHex() + " is not in the active chain");
    }
    const CBlockIndex* missing = nullptr;
    for (const CBlockIndex* index = &tip; index != &target && !missing; index = index->pprev) {
        if ((index->nStatus & BLOCK_HAVE_MASK) != BLOCK_HAVE_MASK) missing = index;
    }
    if (!missing) return;
    if (PruneTarget(node) > 0) {
        throw JSONRPCError(RPC_MISC_ERROR, "Could not roll back to requested height since necessary block data is already pruned.");
    }
    throw JSONRPCError(RPC_INTERNAL_ERROR, fmt::format("Failed to read block at height {}: its block or undo data is not stored{}", missing->nHeight,
                                                       node.chainman->Active().Snapshot() ? " (a snapshot chainstate has no blocks below its base)" : ""));
}

json DumpTxOutSet(NodeContext& node, const JSONRPCRequest& request)
{
    const auto path = AbsPathForRpc(node, ParamString(request, 0, "path"));
    const std::string type = OptionalParamString(request, 1, "type").value_or("");
    const json options = request.params.size() > 2 ? request.params[2] : json{};
    std::lock_guard lock{node.chainman->Mutex()};
    const CBlockIndex* target = DumpTarget(node, type, options);
    if (std::filesystem::exists(path)) {
        throw JSONRPCError(RPC_INVALID_PARAMETER, path.string() + " already exists. If you are sure this is what you want, move it out of the way first");
    }
    Chainstate& active = node.chainman->Active();
    const CBlockIndex* tip = TipIndex(node, active);
    if (target == tip) target = nullptr;
    if (target) CheckRollbackData(node, *tip, *target);
    const uint64_t chain_tx = target ? target->nChainTx : KnownChainTx(node, active);
    if (chain_tx == 0) {
        throw JSONRPCError(RPC_INTERNAL_ERROR, "The transaction count of the chain up to " +
                                                   (target ? target->GetBlockHash() : active.TipHash()).GetHex() + " is not known");
    }

    // Written under a temporary name so a half-written file never looks finished.
    const auto temp_path = std::filesystem::path{path.string() + ".incomplete"};
    AutoFile file{std::fopen(temp_path.c_str(), "wb")};
    if (file.IsNull()) throw JSONRPCError(RPC_INVALID_PARAMETER, "Couldn't open file " + temp_path.string() + " for writing.");
    // Whatever fails below, neither the unfinished file nor the rolled-back
    // copy may stay behind.
    std::unique_ptr<CCoinsViewDB> rolled_back;
    bool in_memory = false;
    const auto temp_db_path = path.parent_path() / fmt::format("temp_utxo_{}", target ? target->nHeight : 0);
    try {
        // The dump reads the database, which must hold the cache's changes.
        SyncForReading(node, active);
        if (!target) return WriteDump(node, {active.CoinsDB(), active.TipHash(), active.TipHeight(), chain_tx}, file, temp_path, path);
        // Only a rollback reads it, as upstream.
        if (options.contains("in_memory") && !options["in_memory"].is_null()) {
            if (!options["in_memory"].is_boolean()) {
                throw JSONRPCError(RPC_TYPE_ERROR, fmt::format("JSON value of type {} is not of expected type bool", JSONTypeName(options["in_memory"])));
            }
            in_memory = options["in_memory"].get<bool>();
        }
        if (in_memory) LogInfo("Using an in-memory database for the UTXO set rollback: it may need a lot of memory");
        rolled_back = BuildRolledBackCoins({.source = active.CoinsDB(),
                                            .blockman = *node.blockman,
                                            .tip = *tip,
                                            .target = *target,
                                            .temp_db = DBParams{.path = temp_db_path, .cache_bytes = node.cache_sizes->coins_db, .memory_only = in_memory},
                                            .coins_view = active.CoinsDB().GetOptions(),
                                            .interruption_point = [&] {
                                                if (node.shutdown_requested) throw std::runtime_error("Shutting down");
                                            }});
        json result = WriteDump(node, {*rolled_back, target->GetBlockHash(), target->nHeight, chain_tx}, file, temp_path, path);
        rolled_back.reset();
        if (!in_memory) std::filesystem::remove_all(temp_db_path);
        return result;
    } catch (const std::exception& e) {
        file.fclose();
        std::error_code ec;
        std::filesystem::remove(temp_path, ec);
        rolled_back.reset();
        if (target && !in_memory) std::filesystem::remove_all(temp_db_path, ec);
        if (dynamic_cast<const JSONRPCError*>(&e)) throw;
        throw JSONRPCError(RPC_INTERNAL_ERROR, e.what());
    }
}

json GetCoinsCacheInfo(NodeContext& node, const JSONRPCRequest&)
{
    std::lock_guard lock{node.chainman->Mutex()};
    Chainstate& active = node.chainman->Active();
    const auto& sizes = *node.cache_sizes;
    json last_flush = nullptr;
    if (const auto flush = node.chainman->LastFlush()) {
        last_flush = json{{"chainstate", flush->chainstate},
                          {"duration_ms", flush->duration_ms},
                          {"batches", flush->stats.batches},
                          {"changed", flush->stats.changed},
                          {"visited", flush->stats.visited},
                          {"peak_rss_bytes", flush->stats.peak_rss_bytes}};
    }
    return json{
        {"chainstate", active.Dir().filename().string()},
        {"cache_bytes", active.CoinsTip().DynamicMemoryUsage()},
        {"cache_budget_bytes", active.CoinsCacheBudget()},
        {"txid_filter_bytes", active.CoinsDB().TxidFilterBytes()},
        {"cache_entries", active.CoinsTip().GetCacheSize()},
        {"dirty_entries", active.CoinsTip().GetDirtyCount()},
        {"batch_size", active.CoinsDB().GetOptions().batch_write_bytes},
        {"dbcache", {{"total", sizes.Total()},
                     {"block_tree_db", sizes.block_tree_db},
                     {"coins_db", sizes.coins_db},
                     {"coins", sizes.coins}}},
        {"last_flush", last_flush},
    };
}


using T = RPCResult::Type;
constexpr auto REQUIRED = RPCArg::Need::REQUIRED;
constexpr auto OPTIONAL = RPCArg::Need::OPTIONAL;

RPCHelp GetTxOutSetInfoHelp()
{
    return {.name = "gettxoutsetinfo",
            .description = "Returns statistics of the active chainstate's UTXO set, computed from its database (the coins cache\n"
                           "is written to it first). This reads every coin: it can take a while on a large set.",
            .args = {{"hash_type", RPCArgType::STR, OPTIONAL, "\"hash_serialized_3\"", "The hash of the set to compute: hash_serialized_3, muhash (MuHash3072, the same value Core's coinstatsindex keeps) or none"},
                     {"hash_or_height", RPCArgType::STR_OR_NUM, OPTIONAL, "the current best block",
                      "Statistics at an earlier block need coinstatsindex, which coinsdb does not keep: only the current one"},
                     {"use_index", RPCArgType::BOOL, OPTIONAL, "true", "Has no effect: coinsdb keeps no coinstatsindex"}},
            .results = {{"", {T::OBJ, "", "", {
                {T::NUM, "height", "The height of the block the statistics are at"},
                {T::STR_HEX, "bestblock", "The hash of that block"},
                {T::NUM, "txouts", "How many unspent outputs the set holds"},
                {T::NUM, "bogosize", "A size of the set that does not depend on the database: a fixed cost per coin plus its script"},
                {T::STR_HEX, "hash_serialized_3", "The set's hash_serialized_3 (only for that hash_type)", {}, true},
                {T::STR_HEX, "muhash", "The set's MuHash3072 digest (only for that hash_type)", {}, true},
                {T::AMOUNT, "total_amount", "The BTC the set holds"},
                {T::NUM, "transactions", "How many transactions have unspent outputs"},
                {T::NUM, "disk_size", "LevelDB's estimate of the chainstate's size on disk, in bytes"},
            }}}},
            .examples = HelpExampleCli("gettxoutsetinfo", "") + HelpExampleCli("gettxoutsetinfo", "\"none\"") +
                        HelpExampleRpc("gettxoutsetinfo", "") + HelpExampleRpc("gettxoutsetinfo", "\"none\"")};
}

RPCHelp GetTxOutHelp()
{
    const std::string outpoint = fmt::format("\"{}\" 0", "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b");
    return {.name = "gettxout",
            .description = "Returns an unspent output of the active chainstate's UTXO set.",
            .args = {{"txid", RPCArgType::STR_HEX, REQUIRED, "", "The id of the transaction that created it"},
                     {"n", RPCArgType::NUM, REQUIRED, "", "Its index among that transaction's outputs"},
                     {"include_mempool", RPCArgType::BOOL, OPTIONAL, "true", "Has no effect: coinsdb has no mempool"}},
            .results = {{"if the output is not in the set", {T::NONE, "", ""}},
                        {"otherwise", {T::OBJ, "", "", {
                            {T::STR_HEX, "bestblock", "The hash of the active chainstate's tip"},
                            {T::NUM, "confirmations", "How many blocks deep the output is: the tip's height minus its own, plus 1"},
                            {T::AMOUNT, "value", "Its amount in BTC"},
                            {T::OBJ, "scriptPubKey", "", {
                                {T::STR_HEX, "hex", "Its script, in hex"},
                                {T::STR, "type", "The script's kind: pubkeyhash, scripthash, witness_v0_keyhash, "
                                                 "witness_v0_scripthash, witness_v1_taproot, pubkey, multisig or nonstandard"},
                            }},
                            {T::BOOL, "coinbase", "Whether a coinbase transaction created it"},
                        }}}},
            .examples = HelpExampleCli("gettxout", outpoint) +
                        HelpExampleRpc("gettxout", "\"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b\", 0")};
}

RPCHelp LoadTxOutSetHelp()
{
    return {.name = "loadtxoutset",
            .description = "Loads a UTXO snapshot (a file dumptxoutset wrote, here or in Bitcoin Core) into a new chainstate,\n"
                           "chainstate_snapshot, which becomes the active one. The snapshot's base block must have an assumeutxo\n"
                           "entry (built in, or -assumeutxo on test networks), and its coins must hash to the entry's\n"
                           "hash_serialized_3. Unlike Bitcoin Core, coinsdb does not need the base block's header first; send the\n"
                           "headers with submitheader for the chain RPCs to know more than the base's height and hash.\n"
                           "A large snapshot takes minutes: use no RPC timeout (bitcoin-cli -rpcclienttimeout=0).",
            .args = {{"path", RPCArgType::STR, REQUIRED, "", "The snapshot file; a relative path is taken from the network's data directory"}},
            .results = {{"", {T::OBJ, "", "", {
                {T::NUM, "coins_loaded", "How many coins were loaded"},
                {T::STR_HEX, "tip_hash", "The snapshot's base block, now the active tip"},
                {T::NUM, "base_height", "Its height"},
                {T::STR, "path", "The file's absolute path"},
            }}}},
            .examples = HelpExampleCli("-rpcclienttimeout=0 loadtxoutset", "utxo.dat") + HelpExampleRpc("loadtxoutset", "\"utxo.dat\"")};
}

RPCHelp DumpTxOutSetHelp()
{
    return {.name = "dumptxoutset",
            .description = "Writes the active chainstate's UTXO set to a snapshot file that loadtxoutset (coinsdb's or Bitcoin\n"
                           "Core's) can load where the base block has an assumeutxo entry. The file is written as <path>.incomplete\n"
                           "and renamed when complete.\n"
                           "With a rollback, the set is that of an earlier block of the active chain: the coins are copied into a\n"
                           "temporary database beside the file (temp_utxo_<height>, wiped first if it exists, removed afterwards)\n"
                           "and the blocks above the target are undone there with their undo data; the chainstate itself is not\n"
                           "touched. Every block above the target must still be stored. A deep rollback takes a while: use no RPC\n"
                           "timeout (bitcoin-cli -rpcclienttimeout=0).",
            .args = {{"path", RPCArgType::STR, REQUIRED, "", "The file to write, which must not exist; a relative path is taken from the network's data directory"},
                     {"type", RPCArgType::STR, OPTIONAL, "\"\"", "\"latest\" for the set as it is, or \"rollback\" for the set at the block "
                                                                    "options.rollback names or, without it, at the highest assumeutxo height; may "
                                                                    "be left empty when options.rollback is given"},
                     {"options", RPCArgType::OPTIONS, OPTIONAL, "", "The named arguments below, also accepted on their own by named calls",
                      {{"rollback", RPCArgType::STR_OR_NUM, OPTIONAL, "", "The height or hash of the block of the active chain to write the set of"},
                       {"in_memory", RPCArgType::BOOL, OPTIONAL, "false", "Keep the temporary database of a rollback in memory: faster, "
                                                                          "but it needs memory for the whole set"}}}},
            .results = {{"", {T::OBJ, "", "", {
                {T::NUM, "coins_written", "How many coins the file holds"},
                {T::STR_HEX, "base_hash", "The block the set is at"},
                {T::NUM, "base_height", "Its height"},
                {T::STR, "path", "The file's absolute path"},
                {T::STR_HEX, "txoutset_hash", "The set's hash_serialized_3"},
                {T::NUM, "nchaintx", "How many transactions the chain has up to and including the base block"},
            }}}},
            .examples = HelpExampleCli("-rpcclienttimeout=0 dumptxoutset", "utxo.dat latest") +
                        HelpExampleCli("-rpcclienttimeout=0 dumptxoutset", "utxo.dat rollback") +
                        HelpExampleCli("-rpcclienttimeout=0 -named dumptxoutset", "utxo.dat rollback=840000") +
                        HelpExampleCli("-rpcclienttimeout=0 -named dumptxoutset", "utxo.dat rollback=840000 in_memory=true") +
                        HelpExampleRpc("dumptxoutset", "\"utxo.dat\", \"\", {\"rollback\": 840000}")};
}

RPCHelp GetCoinsCacheInfoHelp()
{
    return {.name = "getcoinscacheinfo",
            .description = "Reports the active chainstate's coins cache and how -dbcache was split, and the last write of a coins\n"
                           "cache to disk. coinsdb's own method: Bitcoin Core has no such one.",
            .args = {},
            .results = {{"", {T::OBJ, "", "", {
                {T::STR, "chainstate", "The active chainstate's directory: chainstate, or chainstate_snapshot after loadtxoutset"},
                {T::NUM, "cache_bytes", "Memory the coins cache uses now, in bytes"},
                {T::NUM, "cache_budget_bytes", "Memory it may use before it is written to disk and emptied, the txid filter's included"},
                {T::NUM, "txid_filter_bytes", "Memory of the chainstate database's filter of the txids it holds coins of (0: none; only a chainstate started without coins has one)"},
                {T::NUM, "cache_entries", "Coins (and spent coins not yet written) it holds"},
                {T::NUM, "dirty_entries", "Entries changed since they were last written"},
                {T::NUM, "batch_size", "Bytes after which a write is cut into another LevelDB batch (-dbbatchsize)"},
                {T::OBJ, "dbcache", "How -dbcache is split, in bytes", {
                    {T::NUM, "total", "All of -dbcache"},
                    {T::NUM, "block_tree_db", "LevelDB cache of the block index"},
                    {T::NUM, "coins_db", "LevelDB cache of each chainstate database"},
                    {T::NUM, "coins", "The coins caches: the active chainstate's budget and the other's"},
                }},
                {T::OBJ, "last_flush", "The last write of a coins cache to disk since start-up, by any chainstate (one still\n"
                                       "being loaded too); null before the first", {
                    {T::STR, "chainstate", "The directory of the chainstate written"},
                    {T::NUM, "duration_ms", "How long the write took, in milliseconds, as the log reports it"},
                    {T::NUM, "batches", "LevelDB batches it took"},
                    {T::NUM, "changed", "Entries written: added, changed or erased coins"},
                    {T::NUM, "visited", "Changed entries walked to find them"},
                    {T::NUM, "peak_rss_bytes", "The largest resident memory of the process seen during the write; 0 when unknown"},
                }},
            }}}},
            .examples = HelpExamples("getcoinscacheinfo")};
}

} // namespace

void RegisterCoinsRPCCommands(RPCTable& table, NodeContext& node)
{
    table.Register(MakeRPCCommand("blockchain", GetTxOutSetInfoHelp(), BindNode(node, GetTxOutSetInfo)));
    table.Register(MakeRPCCommand("blockchain", GetTxOutHelp(), BindNode(node, GetTxOut)));
    table.Register(MakeRPCCommand("blockchain", LoadTxOutSetHelp(), BindNode(node, LoadTxOutSet)));
    table.Register(MakeRPCCommand("blockchain", DumpTxOutSetHelp(), BindNode(node, DumpTxOutSet)));
    table.Register(MakeRPCCommand("blockchain", GetCoinsCacheInfoHelp(), BindNode(node, GetCoinsCacheInfo)));
}

} // namespace node
