#include <node/init/init_args.h>

#include <util/args.h>

#include <string>

namespace node {

void RegisterInitOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string opts = "Options";
    args.AddArg("-?", "Print this help message and exit", F::NONE, opts);
    args.AddArg("-h", "Print this help message and exit", F::DEBUG_ONLY, opts);
    args.AddArg("-help", "Print this help message and exit", F::NONE, opts);
    args.AddArg("-help-debug", "Print help including debugging options and exit", F::NONE, opts);
    args.AddArg("-version", "Print version and exit", F::NONE, opts);
    args.AddArg("-conf=<file>", "Specify path to read-only configuration file. Relative paths are prefixed by the datadir location (default: bitcoin.conf)", F::NONE, opts);
    args.AddArg("-includeconf=<file>", "Specify additional configuration file, relative to the -datadir path (only useable from configuration file, not command line; default: none)", F::NONE, opts);
    args.AddArg("-datadir=<dir>", "Specify data directory, which must exist (default: ~/.coinsdb, created if missing)", F::NONE, opts);
    args.AddArg("-allowforeigndatadir", "Start even when the data directory holds data coinsdb did not create: chain data (blocks/, chainstate/) without coinsdb's marker file, or files only Bitcoin Core writes (wallets, settings.json, peers.dat, indexes, ...). coinsdb may then rewrite Core's block index and chainstate, which Core would trust although coinsdb does not verify scripts (default: 0)", F::NONE, opts);
    args.AddArg("-daemon", "Run in the background as a daemon; returns once the node is ready to serve RPC (default: 0)", F::NONE, opts);
    args.AddArg("-daemonwait", "Same as -daemon: coinsdb always waits for initialization before detaching (default: 0)", F::NONE, opts);
    args.AddArg("-pid=<file>", "Specify pid file. Relative paths are prefixed by a net-specific datadir location (default: " + std::string{DEFAULT_PID_FILE} + ")", F::NONE, opts);
}

InitOptions ReadInitArgs(const ArgsManager& args, const std::filesystem::path& net_dir)
{
    InitOptions options;
    options.daemon = args.GetBoolArg("daemon", options.daemon) || args.GetBoolArg("daemonwait", options.daemon);
    options.allow_foreign_datadir = args.GetBoolArg("allowforeigndatadir", options.allow_foreign_datadir);
    if (args.IsArgNegated("pid")) {
        options.pid_file.reset();
    } else {
        options.pid_file = AbsPathInDir(net_dir, args.GetArg("pid", options.pid_file->string()));
    }
    options.block_import = ReadBlockImportArgs(args);
    options.block_storage = ReadBlockStorageArgs(args);
    options.rpc_credentials = ReadRpcCredentialArgs(args, net_dir);
    return options;
}

} // namespace node
