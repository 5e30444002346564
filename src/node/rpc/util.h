#ifndef COINSDB_NODE_RPC_UTIL_H
#define COINSDB_NODE_RPC_UTIL_H

// What the node's RPC methods share: reading parameters, paths relative to
// the datadir, and the registration of each file's methods.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

class RPCTable;
class uint256;
struct CBlockIndex;
struct JSONRPCRequest;

namespace node {
class Chainstate;
struct NodeContext;

// Paths in RPC arguments are relative to the network's data directory.
std::filesystem::path AbsPathForRpc(const NodeContext& node, const std::string& path);

std::string ParamString(const JSONRPCRequest& request, size_t index, const std::string& name);
std::optional<std::string> OptionalParamString(const JSONRPCRequest& request, size_t index, const std::string& name);

// A hash parameter as upstream's ParseHashV reads it: 64 hex digits, else
// RPC_INVALID_PARAMETER naming the parameter (name) and what is wrong.
uint256 ParseHashParam(const nlohmann::json& value, std::string_view name);

// An integer parameter: RPC_TYPE_ERROR for a value that is no number, and
// upstream's RPC_MISC_ERROR "JSON integer out of range" for one that is
// not an integer T can hold.
template <typename T>
T ParamInt(const nlohmann::json& value, std::string_view name);

// Gets the active chainstate's changes to disk for an RPC that reads the
// database (after the block index, as FlushStateToDisk does).
void SyncForReading(NodeContext& node, Chainstate& active);

// The block index entry of the chainstate's tip; nullptr when the index
// does not hold it (a snapshot chainstate loaded without its base block's
// header, which coinsdb allows and Core does not) or is not open.
const CBlockIndex* TipIndex(const NodeContext& node, const Chainstate& chainstate);

// Transactions in the chain up to and including the chainstate's tip,
// genesis included (upstream's m_chain_tx_count): the assumeutxo entry's
// figure for a snapshot chainstate at its base, else the block index's.
// 0 when unknown.
uint64_t KnownChainTx(const NodeContext& node, const Chainstate& chainstate);

// getblockchaininfo's and getchainstates' "headers": the best header's
// height, and at least the active tip's, whose header a snapshot
// chainstate may lack.
int HeadersHeight(const NodeContext& node);

// GuessVerificationProgress (node/chainstate/chain_info.h) for the chainstate's tip;
// 0 when its header or transaction count is unknown.
double VerificationProgress(const NodeContext& node, const Chainstate& chainstate);

// The block at height on the chain ending at tip, in constant time when
// tip is the replayed chain's tip, else walking back from it.
const CBlockIndex* AncestorOnChain(const NodeContext& node, const CBlockIndex& tip, int height);

// The -prune target in bytes as the node applies it (read once at start-up
// into the block processor's options); 0 when the node does not prune.
uint64_t PruneTarget(const NodeContext& node);

// A block hash for the examples in the help: mainnet's block 840000.
inline constexpr const char* EXAMPLE_BLOCK_HASH{"0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5"};

// The usual examples: the call with bitcoin-cli, then with curl.
std::string HelpExamples(const std::string& method, const std::string& cli_args = "", const std::string& rpc_args = "");

// Binds a method implemented as fn(node, request) to node.
using NodeRPCMethod = nlohmann::json (*)(NodeContext&, const JSONRPCRequest&);
inline auto BindNode(NodeContext& node, NodeRPCMethod fn)
{
    return [&node, fn](const JSONRPCRequest& request) { return fn(node, request); };
}

// Each file's methods (node/rpc/blockchain.cpp, coins.cpp, control.cpp).
void RegisterChainRPCCommands(RPCTable& table, NodeContext& node);
void RegisterCoinsRPCCommands(RPCTable& table, NodeContext& node);
void RegisterControlRPCCommands(RPCTable& table, NodeContext& node);

} // namespace node

#endif // COINSDB_NODE_RPC_UTIL_H
