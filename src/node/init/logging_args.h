#ifndef COINSDB_NODE_INIT_LOGGING_ARGS_H
#define COINSDB_NODE_INIT_LOGGING_ARGS_H

// The logging options in one place, as every subsystem keeps its own: their
// defaults, their help texts (RegisterLoggingOptions) and their reader
// (ReadLogArgs), which throws InitError for a value start-up refuses.

#include <util/log.h>

#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

class ArgsManager;

namespace node {

// Defaults that the help text states too.
inline constexpr const char* DEFAULT_DEBUG_LOG_FILE{"debug.log"};
inline constexpr bool DEFAULT_LOG_TIMESTAMPS{true};

// -debug, -debugexclude, -loglevel, -logtimemicros, -printtoconsole,
// -debuglogfile and -logtimestamps.
void RegisterLoggingOptions(ArgsManager& args);

struct LogOptions {
    // -debug categories, then -debugexclude ones, each in the order given.
    std::vector<logging::Category> enabled;
    std::vector<logging::Category> excluded;
    // -loglevel in the order given: for every category (none named) or one.
    std::vector<std::pair<std::optional<logging::Category>, logging::Level>> levels;
    // -logtimestamps, -logtimemicros
    bool timestamps{DEFAULT_LOG_TIMESTAMPS};
    bool time_micros{false};
    // -debuglogfile; none with -nodebuglogfile.
    std::optional<std::filesystem::path> debug_log_file{DEFAULT_DEBUG_LOG_FILE};
    // -printtoconsole; by default only when not a daemon.
    bool print_to_console{true};
};

// -debug, -debugexclude and -loglevel as Bitcoin Core reads them, refusing
// what Core refuses (a typo would otherwise silently log nothing), and the
// rest of LogOptions. daemon is InitOptions::daemon.
LogOptions ReadLogArgs(const ArgsManager& args, const std::filesystem::path& net_dir, bool daemon);

// Applies options to the logger and opens the debug log file (InitError
// when it cannot).
void StartLogging(const LogOptions& options);

} // namespace node

#endif // COINSDB_NODE_INIT_LOGGING_ARGS_H
