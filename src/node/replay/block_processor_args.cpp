#include <node/replay/block_processor_args.h>

#include <node/replay/block_processor.h>
#include <util/args.h>
#include <util/strencodings.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace node {

void RegisterBlockReplayOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string opts = "Options";
    args.AddIntArg("-stopatheight=<n>", "Stop running after reaching the given height in the main chain. Without -loadblock or -reindex-chainstate coinsdb has no block source: with the tip below <n> it shuts down right after start-up (default: 0)", F::DEBUG_ONLY, "Debugging/Testing options", ArgsManager::IntForm::NonNegative());
    args.AddArg("-loadblock=<file>", "Imports blocks from an external blk-format file on startup (repeatable; Bitcoin Core's blk?????.dat written with -blocksxor=0 works). Blocks are checked and replayed for their UTXO changes only: scripts and signatures are NOT verified (default: none)", F::NONE, opts);
    // Any integer parses; ParsePrevoutFetchThreads refuses a negative one with
    // Core's message and caps a large one at the maximum, as Core does.
    args.AddIntArg("-prevoutfetchthreads=<n>", "Set the number of threads used to prefetch block input prevouts from the chainstate database while replaying blocks (0 disables, up to " + std::to_string(MAX_PREVOUTFETCH_THREADS) + ", default: " + std::to_string(DEFAULT_PREVOUTFETCH_THREADS) + "). Negative values are rejected.", F::NONE, opts,
                   {.min = INT64_MIN, .max = INT64_MAX, .expected = "an integer", .port = false});
    args.AddArg("-reindex", "Wipe the block index and the chainstate and rebuild both from the blk*.dat files in blocks/ (obfuscated with blocks/xor.dat or not, as Bitcoin Core leaves them), which are indexed where they are, not copied. Implies -reindex-chainstate (default: 0)", F::NONE, opts);
    args.AddArg("-reindex-chainstate", "Wipe the chainstate and rebuild it from the stored blocks (default: 0)", F::NONE, opts);
    const std::string debug = "Debugging/Testing options";
    args.AddArg("-stopafterblockimport", "Stop running after importing blocks from disk: -reindex, -reindex-chainstate and every -loadblock file (default: 0)", F::DEBUG_ONLY, debug);
    args.AddArg("-swiftsynchints=<file>", "Replay blocks 1 to H with a SwiftSync hints file for height H (BIP 456 version 0, as coinsdb-genhints writes it): the outputs it names as unspent at H are written once at H, every other output and every input only update a salted aggregate that must be zero at H. Needs -swiftsyncblockhash and -loadblock or -reindex-chainstate, and a chainstate at genesis. Until block H checks out the chainstate is unverified; if a check fails, the blocks are replayed again without hints. Blocks below H get no undo data: no reorganisation below H is possible afterwards (-reindex-chainstate rebuilds). With -prune, nothing is pruned until H checks out (default: none)", F::NONE, opts);
    args.AddArg("-swiftsyncblockhash=<hash>", "The hash of the block at the height of -swiftsynchints' file: the file does not name its block (default: none)", F::NONE, opts);
    args.AddIntArg("-flushinterval=<n>", "Write the coins cache to disk at least every <n> seconds while replaying blocks (default: " + std::to_string(DEFAULT_FLUSH_INTERVAL_SECONDS) + ")", F::DEBUG_ONLY, debug, ArgsManager::IntForm::Positive());
}

std::optional<int32_t> ParsePrevoutFetchThreads(const std::optional<std::string>& value, std::string& error)
{
    if (!value) return DEFAULT_PREVOUTFETCH_THREADS;
    const auto threads = ParseInt64(*value);
    if (!threads) {
        error = "Invalid -prevoutfetchthreads value '" + *value + "': expected an integer";
        return std::nullopt;
    }
    if (*threads < 0) {
        error = "-prevoutfetchthreads must be non-negative (got " + std::to_string(*threads) + "). Use 0 to disable parallel input fetching.";
        return std::nullopt;
    }
    return static_cast<int32_t>(std::min<int64_t>(*threads, MAX_PREVOUTFETCH_THREADS));
}

std::optional<int32_t> ReadPrevoutFetchThreadsArg(const ArgsManager& args, std::string& error)
{
    return ParsePrevoutFetchThreads(args.GetArg("prevoutfetchthreads"), error);
}

bool ReadBlockProcessorArgs(const ArgsManager& args, BlockProcessorOptions& options, std::string& error)
{
    options.flush_interval = std::chrono::seconds{std::max<int64_t>(1, args.GetIntArg("flushinterval", options.flush_interval.count()))};
    options.stop_at_height = static_cast<int>(args.GetIntArg("stopatheight", options.stop_at_height));
    const auto threads = ReadPrevoutFetchThreadsArg(args, error);
    if (!threads) return false;
    options.prevout_fetch_threads = *threads;
    return true;
}

BlockImportOptions ReadBlockImportArgs(const ArgsManager& args)
{
    BlockImportOptions options;
    options.reindex = args.GetBoolArg("reindex", options.reindex);
    options.reindex_chainstate = options.reindex || args.GetBoolArg("reindex-chainstate", options.reindex_chainstate);
    options.loadblock_files = args.GetArgs("loadblock");
    options.loadblock_given = args.IsArgSet("loadblock");
    options.stop_after_block_import = args.GetBoolArg("stopafterblockimport", options.stop_after_block_import);
    options.swiftsync_hints = args.GetArg("swiftsynchints").value_or("");
    options.swiftsync_block_hash = args.GetArg("swiftsyncblockhash").value_or("");
    return options;
}

std::optional<uint256> CheckSwiftSyncArgs(const BlockImportOptions& options)
{
    if (options.swiftsync_hints.empty()) {
        if (!options.swiftsync_block_hash.empty()) throw std::runtime_error("-swiftsyncblockhash needs -swiftsynchints");
        return std::nullopt;
    }
    if (options.swiftsync_block_hash.empty()) {
        throw std::runtime_error("-swiftsynchints needs -swiftsyncblockhash=<hash of the block at the hints' height>");
    }
    const auto hash = uint256::FromHex(options.swiftsync_block_hash);
    if (!hash) throw std::runtime_error("-swiftsyncblockhash: '" + options.swiftsync_block_hash + "' is not a block hash (64 hex digits)");
    if (!options.reindex_chainstate && options.loadblock_files.empty()) {
        throw std::runtime_error("-swiftsynchints needs blocks to replay: -loadblock or -reindex-chainstate");
    }
    return hash;
}

} // namespace node
