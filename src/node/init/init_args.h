#ifndef COINSDB_NODE_INIT_INIT_ARGS_H
#define COINSDB_NODE_INIT_INIT_ARGS_H

// The options bitcoind's start-up (node/init/init.cpp) acts on itself, read once
// into plain values whose defaults are given here: InitOptions for the
// process, which also gathers the subsystems' options start-up needs
// before it runs them. The subsystems' own options have their adapters
// beside them (logging_args.h, rpc/server_args.h, blockstorage_args.h,
// caches.h, coins_view_args.h, block_processor_args.h, snapshot_args.h).

#include <node/blockstorage/blockstorage_args.h>
#include <node/replay/block_processor_args.h>
#include <node/rpc/server_args.h>

#include <filesystem>
#include <optional>

class ArgsManager;

namespace node {

// Defaults that the help text states too.
inline constexpr const char* DEFAULT_PID_FILE{"bitcoind.pid"};

// The actions (-?, -h, -help, -help-debug, -version), where the
// configuration is (-conf, -includeconf, -datadir) and the process's own
// options (-allowforeigndatadir, -daemon, -daemonwait, -pid).
void RegisterInitOptions(ArgsManager& args);

struct InitOptions {
    // -daemon or -daemonwait: detach once the node serves RPC.
    bool daemon{false};
    // -allowforeigndatadir
    bool allow_foreign_datadir{false};
    // -pid; none with -nopid.
    std::optional<std::filesystem::path> pid_file{DEFAULT_PID_FILE};
    BlockImportOptions block_import;
    BlockStorageOptions block_storage;
    RpcCredentialOptions rpc_credentials;
};

// Reads InitOptions; net_dir is the network's data directory. Refuses
// nothing: the ArgsManager has checked the types and ranges already.
InitOptions ReadInitArgs(const ArgsManager& args, const std::filesystem::path& net_dir);

} // namespace node

#endif // COINSDB_NODE_INIT_INIT_ARGS_H
