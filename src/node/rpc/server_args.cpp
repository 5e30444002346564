#include <node/rpc/server_args.h>

#include <kernel/chainparams.h>
#include <node/init/init.h>
#include <node/rpc/rpcauth_credentials.h>
#include <util/args.h>
#include <util/log.h>

#include <algorithm>
#include <utility>

namespace node {

void RegisterRpcServerOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string rpc = "RPC server options";
    args.AddArg("-server", "Accept JSON-RPC commands (always on in coinsdb; default: 1)", F::NONE, rpc);
    args.AddArg("-rpcbind=<addr>[:port]", "Bind to given address to listen for JSON-RPC connections (default: 127.0.0.1 and ::1). Ignored unless -rpcallowip is also given", F::NETWORK_ONLY, rpc);
    args.AddArg("-rpcallowip=<ip>", "Allow JSON-RPC connections from specified source: a single IP or a network/netmask or network/CIDR. Repeatable (default: localhost only)", F::NONE, rpc);
    args.AddPortArg("-rpcport=<port>", "Listen for JSON-RPC connections on <port> (default: 8332, testnet3: 18332, testnet4: 48332, signet: 38332, regtest: 18443)", F::NETWORK_ONLY, rpc);
    args.AddArg("-rpcuser=<user>", "Username for JSON-RPC connections (default: none: the cookie file is used)", F::NONE, rpc);
    args.AddArg("-rpcpassword=<pw>", "Password for JSON-RPC connections (default: none: the cookie file is used)", F::NONE, rpc);
    args.AddArg("-rpcauth=<userpw>", "Username and HMAC-SHA-256 hashed password for JSON-RPC connections. The field <userpw> comes in the format: <USERNAME>:<SALT>$<HASH>, as Bitcoin Core's share/rpcauth/rpcauth.py prints it. The client then connects normally using the rpcuser=<USERNAME>/rpcpassword=<PASSWORD> pair of arguments. Repeatable (default: none)", F::NONE, rpc);
    args.AddArg("-rpccookiefile=<loc>", "Location of the auth cookie. Relative paths are prefixed by a net-specific datadir location (default: " + std::string{DEFAULT_RPC_COOKIE_FILE} + " in the network's data directory)", F::NONE, rpc);
    // Every thread starts at once: a typo must not ask for millions.
    args.AddIntArg("-rpcthreads=<n>", "Number of threads to service RPC calls (default: " + std::to_string(DEFAULT_RPC_THREADS) + ")", F::NONE, rpc,
                   {.min = 1, .max = 1024, .expected = "", .port = false});
    // The queue is a list that grows as requests arrive, so a large value
    // costs nothing until it is used.
    args.AddIntArg("-rpcworkqueue=<n>", "Set the depth of the work queue to service RPC calls (default: " + std::to_string(DEFAULT_HTTP_WORKQUEUE) + ")", F::DEBUG_ONLY, rpc, ArgsManager::IntForm::Positive());
    args.AddIntArg("-rpcservertimeout=<n>", "Timeout during HTTP requests (default: " + std::to_string(DEFAULT_RPC_SERVER_TIMEOUT_SECONDS) + ")", F::DEBUG_ONLY, rpc, ArgsManager::IntForm::Positive());
}

RpcCredentialOptions ReadRpcCredentialArgs(const ArgsManager& args, const std::filesystem::path& net_dir)
{
    RpcCredentialOptions options;
    options.user = args.GetArg("rpcuser", options.user);
    options.password = args.GetArg("rpcpassword", options.password);
    options.cookie_file = AbsPathInDir(net_dir, args.GetArg("rpccookiefile", options.cookie_file.string()));
    return options;
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
    options.worker_threads = static_cast<int>(std::max<int64_t>(1, args.GetIntArg("rpcthreads", DEFAULT_RPC_THREADS)));
    options.work_queue_depth = static_cast<int>(args.GetIntArg("rpcworkqueue", DEFAULT_HTTP_WORKQUEUE));
    options.server_timeout_seconds = static_cast<int>(std::max<int64_t>(1, args.GetIntArg("rpcservertimeout", DEFAULT_RPC_SERVER_TIMEOUT_SECONDS)));
    return options;
}

} // namespace node
