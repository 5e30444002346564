#ifndef COINSDB_NODE_RPC_SERVER_ARGS_H
#define COINSDB_NODE_RPC_SERVER_ARGS_H

// The RPC server's options in one place: their defaults, their help texts
// (RegisterRpcServerOptions) and their readers, which turn them into
// HTTPRPCServer::Options and the credentials start-up gives it. A value
// start-up refuses throws InitError with the message the user sees.

#include <rpc/httpserver.h>

#include <cstdint>
#include <filesystem>
#include <string>

class ArgsManager;
class CChainParams;

namespace node {

// Defaults that the help text states too (-rpcworkqueue's is
// DEFAULT_HTTP_WORKQUEUE, the server's own).
inline constexpr const char* DEFAULT_RPC_COOKIE_FILE{".cookie"};
inline constexpr int64_t DEFAULT_RPC_THREADS{4};
inline constexpr int64_t DEFAULT_RPC_SERVER_TIMEOUT_SECONDS{30};

// -server, -rpcbind, -rpcallowip, -rpcport, -rpcuser, -rpcpassword,
// -rpcauth, -rpccookiefile, -rpcthreads, -rpcworkqueue and
// -rpcservertimeout.
void RegisterRpcServerOptions(ArgsManager& args);

struct RpcCredentialOptions {
    // -rpcuser and -rpcpassword; without a password the credentials are a
    // cookie written to -rpccookiefile.
    std::string user;
    std::string password;
    std::filesystem::path cookie_file{DEFAULT_RPC_COOKIE_FILE};
};

// Reads RpcCredentialOptions; net_dir is the network's data directory.
RpcCredentialOptions ReadRpcCredentialArgs(const ArgsManager& args, const std::filesystem::path& net_dir);

// Everything but the credentials, so that a bad option stops start-up before
// a cookie file is written.
HTTPRPCServer::Options RpcServerOptions(const ArgsManager& args, const CChainParams& params);

} // namespace node

#endif // COINSDB_NODE_RPC_SERVER_ARGS_H
