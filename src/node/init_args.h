#ifndef COINSDB_NODE_INIT_ARGS_H
#define COINSDB_NODE_INIT_ARGS_H

// The options bitcoind's start-up reads itself (node/init.cpp), as plain
// values: logging, -assumeutxo entries, the RPC server and -prune. The
// subsystems' own options have their adapters beside them (caches.h,
// coins_view_args.h, block_processor_args.h). A refused value throws
// InitError with the message the user sees.

#include <rpc/httpserver.h>

#include <cstdint>
#include <filesystem>
#include <string>

class ArgsManager;
class CChainParams;

namespace node {

std::filesystem::path AbsPathInDir(const std::filesystem::path& dir, const std::string& value);

// -debug, -debugexclude and -loglevel as Bitcoin Core reads them, refusing
// what Core refuses (a typo would otherwise silently log nothing). Runs
// before the log file is opened, so a refusal leaves no debug.log behind.
void ApplyLogCategoryArgs(const ArgsManager& args);

void SetupLogging(const ArgsManager& args, const std::filesystem::path& net_dir);

void ApplyAssumeutxoArgs(const ArgsManager& args, CChainParams& params);

// Everything but the credentials, so that a bad option stops start-up before
// a cookie file is written.
HTTPRPCServer::Options RpcServerOptions(const ArgsManager& args, const CChainParams& params);

// -prune in MiB: 0 keeps every block; otherwise at least 550, as upstream.
uint64_t PruneTargetBytes(const ArgsManager& args);

} // namespace node

#endif // COINSDB_NODE_INIT_ARGS_H
