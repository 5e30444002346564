#ifndef COINSDB_NODE_INIT_INIT_ARGS_H
#define COINSDB_NODE_INIT_INIT_ARGS_H

// The options bitcoind's start-up (node/init/init.cpp) acts on itself, read once
// into plain values whose defaults are given here: InitOptions for the
// process, the block files and the RPC credentials, and the readers of
// -assumeutxo, the RPC server's options and -prune. The subsystems' own
// options have their adapters beside them (logging_args.h, caches.h,
// coins_view_args.h, block_processor_args.h). A value start-up refuses
// throws InitError with the message the user sees.

#include <node/replay/block_processor.h>
#include <rpc/httpserver.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

class ArgsManager;
class CChainParams;

namespace node {

// Defaults that the help text (args_setup.cpp) states too.
inline constexpr const char* DEFAULT_PID_FILE{"bitcoind.pid"};
inline constexpr const char* DEFAULT_RPC_COOKIE_FILE{".cookie"};
inline constexpr bool DEFAULT_BLOCKS_XOR{true};
inline constexpr int64_t DEFAULT_RPC_THREADS{4};
inline constexpr int64_t DEFAULT_RPC_SERVER_TIMEOUT_SECONDS{30};

struct RpcCredentialOptions {
    // -rpcuser and -rpcpassword; without a password the credentials are a
    // cookie written to -rpccookiefile.
    std::string user;
    std::string password;
    std::filesystem::path cookie_file{DEFAULT_RPC_COOKIE_FILE};
};

// Reads RpcCredentialOptions; net_dir is the network's data directory.
RpcCredentialOptions ReadRpcCredentialArgs(const ArgsManager& args, const std::filesystem::path& net_dir);

struct InitOptions {
    // -daemon or -daemonwait: detach once the node serves RPC.
    bool daemon{false};
    // -allowforeigndatadir
    bool allow_foreign_datadir{false};
    // -pid; none with -nopid.
    std::optional<std::filesystem::path> pid_file{DEFAULT_PID_FILE};
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
    // -blocksxor
    bool blocks_xor{DEFAULT_BLOCKS_XOR};
    // -fastprune
    bool fast_prune{false};
    // -prune as given (MiB); PruneTargetBytes checks it when block replay
    // is set up.
    std::string prune{"0"};
    // -flushinterval, at least a second.
    std::chrono::seconds flush_interval{DEFAULT_FLUSH_INTERVAL_SECONDS};
    // -stopatheight (0: none).
    int stop_at_height{0};
    // -stopafterblockimport
    bool stop_after_block_import{false};
    // -snapshotbulkload
    bool snapshot_bulk_load{DEFAULT_SNAPSHOT_BULK_LOAD};
    RpcCredentialOptions rpc_credentials;
};

// Reads InitOptions; net_dir is the network's data directory. Refuses
// nothing: the ArgsManager has checked the types and ranges already.
InitOptions ReadInitArgs(const ArgsManager& args, const std::filesystem::path& net_dir);

// Adds each -assumeutxo entry to params (regtest and signet only).
void ApplyAssumeutxoArgs(const ArgsManager& args, CChainParams& params);

// Everything but the credentials, so that a bad option stops start-up before
// a cookie file is written.
HTTPRPCServer::Options RpcServerOptions(const ArgsManager& args, const CChainParams& params);

// InitOptions::prune in bytes: 0 keeps every block; otherwise at least 550
// MiB, as upstream, unless fast_prune.
uint64_t PruneTargetBytes(const std::string& prune, bool fast_prune);

} // namespace node

#endif // COINSDB_NODE_INIT_INIT_ARGS_H
