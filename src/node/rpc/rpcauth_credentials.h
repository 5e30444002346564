#ifndef COINSDB_NODE_RPC_RPCAUTH_CREDENTIALS_H
#define COINSDB_NODE_RPC_RPCAUTH_CREDENTIALS_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace node {

// One -rpcauth=<user>:<salt>$<hash> value, as Bitcoin Core's
// share/rpcauth/rpcauth.py prints it: <hash> is the lowercase hex of
// HMAC-SHA-256 with the salt's characters as the key and the password as
// the message. The fields are what splitting on ':' and '$' gives (either
// one anywhere, as upstream), so a user name holds neither.
struct RpcAuthEntry {
    std::string user;
    std::string salt;
    std::string hash;
};

// nullopt when any value does not split into exactly three fields.
std::optional<std::vector<RpcAuthEntry>> ParseRpcAuth(const std::vector<std::string>& values);

// Whether "user:password" matches an entry. Every entry is hashed and
// compared in full, so the time taken does not say which user exists.
bool RpcAuthMatches(const std::vector<RpcAuthEntry>& entries, std::string_view user_pass);

} // namespace node

#endif // COINSDB_NODE_RPC_RPCAUTH_CREDENTIALS_H
