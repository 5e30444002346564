#include <node/init_args.h>

#include <kernel/caches.h>
#include <kernel/chainparams.h>
#include <node/init.h>
#include <node/rpcauth.h>
#include <rpc/httpserver.h>
#include <util/args.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace node {

std::filesystem::path AbsPathInDir(const std::filesystem::path& dir, const std::string& value)
{
    std::filesystem::path path{value};
    return path.is_absolute() ? path : dir / path;
}

// -debug, -debugexclude and -loglevel as Bitcoin Core reads them, refusing
// what Core refuses (a typo would otherwise silently log nothing). Runs
// before the log file is opened, so a refusal leaves no debug.log behind.
void ApplyLogCategoryArgs(const ArgsManager& args)
{
    for (const std::string& name : args.GetArgs("debug")) {
        if (name == "0" || name == "none") continue;
        const auto category = logging::CategoryFromName(name.empty() ? "1" : name);
        if (!category) throw InitError("Unsupported logging category -debug=" + name + ".");
        logging::EnableCategory(*category);
    }
    for (const std::string& name : args.GetArgs("debugexclude")) {
        const auto category = logging::CategoryFromName(name);
        if (!category) throw InitError("Unsupported logging category -debugexclude=" + name + ".");
        logging::DisableCategory(*category);
    }
    for (const std::string& value : args.GetArgs("loglevel")) {
        const size_t colon = value.find(':');
        if (colon == std::string::npos) {
            const auto level = logging::LevelFromName(value);
            if (!level) throw InitError("Unsupported global logging level -loglevel=" + value + ". Valid values: info, debug, trace.");
            logging::SetLogLevel(*level);
            continue;
        }
        const auto category = logging::CategoryFromName(value.substr(0, colon));
        const auto level = logging::LevelFromName(value.substr(colon + 1));
        if (!category || !level || *category == logging::Category::ALL) {
            throw InitError("Unsupported category-specific logging level -loglevel=" + value +
                            ". Expected -loglevel=<category>:<loglevel>. Valid categories: " + logging::KnownCategoryNames() +
                            ". Valid loglevels: info, debug, trace.");
        }
        logging::SetCategoryLogLevel(*category, *level);
    }
}

void SetupLogging(const ArgsManager& args, const std::filesystem::path& net_dir)
{
    ApplyLogCategoryArgs(args);
    logging::SetTimestamps(args.GetBoolArg("logtimestamps", true), args.GetBoolArg("logtimemicros", false));
    if (!args.IsArgNegated("debuglogfile")) {
        const auto log_path = AbsPathInDir(net_dir, args.GetArg("debuglogfile", "debug.log"));
        if (!logging::OpenDebugLog(log_path.string())) throw InitError("Could not open debug log file " + log_path.string());
    }
    logging::SetPrintToConsole(args.GetBoolArg("printtoconsole", !args.GetBoolArg("daemon", false) && !args.GetBoolArg("daemonwait", false)));
}

void ApplyAssumeutxoArgs(const ArgsManager& args, CChainParams& params)
{
    for (const std::string& value : args.GetArgs("assumeutxo")) {
        if (params.GetChainType() != ChainType::REGTEST && params.GetChainType() != ChainType::SIGNET) {
            throw InitError("-assumeutxo is only available on regtest and signet, not on " + params.GetChainTypeString());
        }
        std::vector<std::string> parts;
        for (size_t start = 0;;) {
            const size_t colon = value.find(':', start);
            parts.push_back(value.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
        const auto height = parts.size() >= 3 ? ParseInt64(parts[0]) : std::nullopt;
        const auto blockhash = parts.size() >= 3 ? uint256::FromHex(parts[1]) : std::nullopt;
        const auto hash = parts.size() >= 3 ? uint256::FromHex(parts[2]) : std::nullopt;
        const auto tx_count = parts.size() == 4 ? ParseUInt64(parts[3]) : std::optional<uint64_t>{};
        if (parts.size() < 3 || parts.size() > 4 || !height || *height < 0 || *height > INT32_MAX || !blockhash || !hash ||
            (parts.size() == 4 && !tx_count)) {
            throw InitError("Invalid -assumeutxo value '" + value + "': expected <height>:<blockhash>:<hash_serialized_3>[:<nchaintx>]");
        }
        // Without a block index the chain's transaction count is unknown;
        // height + 1 (one transaction a block) is the smallest it can be.
        params.AddAssumeutxo({static_cast<int>(*height), *blockhash, *hash, tx_count.value_or(static_cast<uint64_t>(*height) + 1)});
        LogInfo("Added assumeutxo entry at height {} for block {}", *height, blockhash->GetHex());
    }
}

// Everything but the credentials, so that a bad option stops start-up before
// a cookie file is written.
HTTPRPCServer::Options RpcServerOptions(const ArgsManager& args, const CChainParams& params)
{
    HTTPRPCServer::Options options;
    if (args.IsArgSet("rpcauth")) {
        auto entries = ParseRpcAuth(args.GetArgs("rpcauth"));
        if (!entries) {
            // Core's words, in the log and on the terminal.
            LogWarning("Invalid -rpcauth argument.");
            throw InitError("Unable to start HTTP server. See debug log for details.");
        }
        LogInfo("Using rpcauth authentication.");
        options.check_credentials = [entries = std::move(*entries)](std::string_view user_pass) {
            return RpcAuthMatches(entries, user_pass);
        };
    }
    options.port = static_cast<uint16_t>(args.GetIntArg("rpcport", params.DefaultRPCPort()));
    options.allow_ips = args.GetArgs("rpcallowip");
    // -rpcbind widens the listener only together with -rpcallowip, so that
    // a typo cannot expose the RPC port to the world.
    if (args.IsArgSet("rpcbind") && !options.allow_ips.empty()) {
        options.bind_addresses = args.GetArgs("rpcbind");
    } else if (args.IsArgSet("rpcbind")) {
        LogWarning("Option -rpcbind was ignored because -rpcallowip was not specified, refusing to allow everyone to connect");
    } else if (!options.allow_ips.empty()) {
        // The default binds are loopback only, so the allowed peers elsewhere
        // still cannot connect.
        LogWarning("Option -rpcallowip was specified without -rpcbind; this doesn't usually make sense");
    }
    options.worker_threads = static_cast<int>(std::max<int64_t>(1, args.GetIntArg("rpcthreads", 4)));
    options.work_queue_depth = static_cast<int>(args.GetIntArg("rpcworkqueue", DEFAULT_HTTP_WORKQUEUE));
    options.server_timeout_seconds = static_cast<int>(std::max<int64_t>(1, args.GetIntArg("rpcservertimeout", 30)));
    return options;
}

// -prune in MiB: 0 keeps every block; otherwise at least 550, as upstream.
uint64_t PruneTargetBytes(const ArgsManager& args)
{
    const std::string value = args.GetArg("prune", "0");
    const auto mib = ParseInt64(value);
    if (!mib || *mib < 0) throw InitError("Invalid -prune value '" + value + "': expected a size in MiB");
    if (*mib == 0) return 0;
    // In Bitcoin Core 1 means manual pruning, driven by the pruneblockchain
    // RPC; coinsdb has no such RPC, so the mode would never prune. With the
    // test-only -fastprune it stays what it was here: a 1 MiB target.
    if (*mib == 1 && !args.GetBoolArg("fastprune", false)) {
        throw InitError("-prune=1 (manual pruning with the pruneblockchain RPC) is not supported: coinsdb has no "
                        "pruneblockchain RPC. Use -prune=<n> with n >= 550 to prune automatically, or -prune=0.");
    }
    // -fastprune (tests) lifts the minimum so pruning shows on small chains.
    if (*mib < 550 && !args.GetBoolArg("fastprune", false)) {
        throw InitError("Prune configured below the minimum of 550 MiB. Please use a higher number.");
    }
    return static_cast<uint64_t>(*mib) * MiB;
}

} // namespace node
