#include <node/replay/block_processor_args.h>

#include <node/replay/block_processor.h>
#include <util/args.h>
#include <util/strencodings.h>

#include <algorithm>
#include <chrono>

namespace node {

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

} // namespace node
