#ifndef COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_ARGS_H
#define COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_ARGS_H

// Block replay's options in one place: their help texts
// (RegisterBlockReplayOptions) and their readers, for the block processor
// (its defaults are BlockProcessorOptions') and for the import start-up
// runs. A new replay option is added here and, if the processor takes it,
// to BlockProcessorOptions.

#include <uint256.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

class ArgsManager;

namespace node {

struct BlockProcessorOptions;

// -loadblock, -prevoutfetchthreads, -reindex, -reindex-chainstate,
// -stopatheight, -stopafterblockimport, -flushinterval, -swiftsynchints and
// -swiftsyncblockhash.
void RegisterBlockReplayOptions(ArgsManager& args);

// -prevoutfetchthreads, value by value (Core's rules):
//   value                          threads reading a block's inputs ahead
//   (unset)                        DEFAULT_PREVOUTFETCH_THREADS (8)
//   0, -noprevoutfetchthreads      none: each input is read when the
//                                  connecting thread needs it, as before
//   1 .. 16                        that many
//   above 16                       MAX_PREVOUTFETCH_THREADS (16), silently
//   negative                       start-up error, Core's message
//   not an integer                 start-up error; ArgsManager already
//                                  refuses it while parsing (Core reads it
//                                  as 0)
// Returns nullopt with error set for a refused value.
std::optional<int32_t> ParsePrevoutFetchThreads(const std::optional<std::string>& value, std::string& error);

// The table above for the -prevoutfetchthreads in args.
std::optional<int32_t> ReadPrevoutFetchThreadsArg(const ArgsManager& args, std::string& error);

// Fills BlockProcessorOptions from -flushinterval, -stopatheight and
// -prevoutfetchthreads; the prune target is block storage's
// (PruneTargetBytes). False, with error set, for a refused value.
bool ReadBlockProcessorArgs(const ArgsManager& args, BlockProcessorOptions& options, std::string& error);

struct BlockImportOptions {
    // -reindex: rebuild the block index from the block files.
    bool reindex{false};
    // -reindex-chainstate, which -reindex implies: the chainstate's best
    // block would not be in the new index until the scan ends.
    bool reindex_chainstate{false};
    // -loadblock, in the order given.
    std::vector<std::string> loadblock_files;
    // Whether -loadblock appears at all, -noloadblock included: a snapshot
    // chainstate warns that it is ignored.
    bool loadblock_given{false};
    // -stopafterblockimport
    bool stop_after_block_import{false};
    // -swiftsynchints and -swiftsyncblockhash, as given; CheckSwiftSyncArgs
    // refuses one without the other and a hash that does not parse.
    std::string swiftsync_hints;
    std::string swiftsync_block_hash;
    // A hinted replay's marker was found at start-up: the chainstate was
    // discarded (as -reindex-chainstate does) and is rebuilt.
    bool swiftsync_interrupted{false};
    // Where a hinted replay keeps its runs and marker (SwiftSyncDir).
    std::filesystem::path swiftsync_dir;
    // What the start-up check of the -loadblock files' block at H found,
    // for the log once it is open: a line, and whether it is a warning.
    std::string swiftsync_headers_line;
    bool swiftsync_headers_warning{false};
};

// Reads BlockImportOptions.
BlockImportOptions ReadBlockImportArgs(const ArgsManager& args);

// -swiftsynchints needs -swiftsyncblockhash (the hints file does not name
// its block) and a block source (-loadblock or -reindex-chainstate). The
// hash of the block at H, or nullopt without hints. Throws
// std::runtime_error with the message for start-up to print.
std::optional<uint256> CheckSwiftSyncArgs(const BlockImportOptions& options);

} // namespace node

#endif // COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_ARGS_H
