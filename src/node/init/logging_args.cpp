#include <node/init/logging_args.h>

#include <node/init/init.h>
#include <util/args.h>
#include <util/log.h>

#include <optional>
#include <string>

namespace node {

void RegisterLoggingOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string debug = "Debugging/Testing options";
    args.AddArg("-debug=<category>", "Output debug and trace logging (default: -nodebug). <category> can be 1 or all (every category), 0 or none (no effect), or a category: coinsdb writes lines under " + logging::CategoryNames() + ". Every name Bitcoin Core takes (" + logging::KnownCategoryNames() + ") is accepted, so Core's command lines run; the others show nothing. Any other name is refused", F::NONE, debug);
    args.AddArg("-debugexclude=<category>", "Exclude debug and trace logging for a category (the names -debug takes; default: none)", F::NONE, debug);
    args.AddArg("-loglevel=<level>|<category>:<level>", "Set the global or per-category severity level for logging categories enabled with -debug: trace, debug or info (default: debug). Repeatable", F::DEBUG_ONLY, debug);
    args.AddArg("-logtimemicros", "Add microsecond precision to debug timestamps (default: 0)", F::DEBUG_ONLY, debug);
    args.AddArg("-printtoconsole", "Send trace/debug info to console (default: 1 when no -daemon)", F::NONE, debug);
    args.AddArg("-debuglogfile=<file>", "Specify location of debug log file (default: " + std::string{DEFAULT_DEBUG_LOG_FILE} + "); -nodebuglogfile disables it", F::NONE, debug);
    args.AddArg("-logtimestamps", "Prepend debug output with a timestamp (default: " + std::to_string(DEFAULT_LOG_TIMESTAMPS) + ")", F::NONE, debug);
}

LogOptions ReadLogArgs(const ArgsManager& args, const std::filesystem::path& net_dir, bool daemon)
{
    LogOptions options;
    for (const std::string& name : args.GetArgs("debug")) {
        if (name == "0" || name == "none") continue;
        const auto category = logging::CategoryFromName(name.empty() ? "1" : name);
        if (!category) throw InitError("Unsupported logging category -debug=" + name + ".");
        options.enabled.push_back(*category);
    }
    for (const std::string& name : args.GetArgs("debugexclude")) {
        const auto category = logging::CategoryFromName(name);
        if (!category) throw InitError("Unsupported logging category -debugexclude=" + name + ".");
        options.excluded.push_back(*category);
    }
    for (const std::string& value : args.GetArgs("loglevel")) {
        const size_t colon = value.find(':');
        if (colon == std::string::npos) {
            const auto level = logging::LevelFromName(value);
            if (!level) throw InitError("Unsupported global logging level -loglevel=" + value + ". Valid values: info, debug, trace.");
            options.levels.emplace_back(std::nullopt, *level);
            continue;
        }
        const auto category = logging::CategoryFromName(value.substr(0, colon));
        const auto level = logging::LevelFromName(value.substr(colon + 1));
        if (!category || !level || *category == logging::Category::ALL) {
            throw InitError("Unsupported category-specific logging level -loglevel=" + value +
                            ". Expected -loglevel=<category>:<loglevel>. Valid categories: " + logging::KnownCategoryNames() +
                            ". Valid loglevels: info, debug, trace.");
        }
        options.levels.emplace_back(*category, *level);
    }
    options.timestamps = args.GetBoolArg("logtimestamps", options.timestamps);
    options.time_micros = args.GetBoolArg("logtimemicros", options.time_micros);
    if (args.IsArgNegated("debuglogfile")) {
        options.debug_log_file.reset();
    } else {
        options.debug_log_file = AbsPathInDir(net_dir, args.GetArg("debuglogfile", options.debug_log_file->string()));
    }
    options.print_to_console = args.GetBoolArg("printtoconsole", !daemon);
    return options;
}

void StartLogging(const LogOptions& options)
{
    for (const logging::Category category : options.enabled) logging::EnableCategory(category);
    for (const logging::Category category : options.excluded) logging::DisableCategory(category);
    for (const auto& [category, level] : options.levels) {
        if (category) {
            logging::SetCategoryLogLevel(*category, level);
        } else {
            logging::SetLogLevel(level);
        }
    }
    logging::SetTimestamps(options.timestamps, options.time_micros);
    if (options.debug_log_file && !logging::OpenDebugLog(options.debug_log_file->string())) {
        throw InitError("Could not open debug log file " + options.debug_log_file->string());
    }
    logging::SetPrintToConsole(options.print_to_console);
}

} // namespace node
