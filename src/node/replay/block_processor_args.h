#ifndef COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_ARGS_H
#define COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_ARGS_H

#include <cstdint>
#include <optional>
#include <string>

class ArgsManager;

namespace node {

struct BlockProcessorOptions;

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

} // namespace node

#endif // COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_ARGS_H
