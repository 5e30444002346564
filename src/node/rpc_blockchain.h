#ifndef COINSDB_NODE_RPC_BLOCKCHAIN_H
#define COINSDB_NODE_RPC_BLOCKCHAIN_H

class RPCTable;

namespace node {
struct NodeContext;

// The chainstate RPCs: getbestblockhash, getblockcount, gettxoutsetinfo,
// gettxout, getchainstates, loadtxoutset, dumptxoutset, getcoinscacheinfo,
// uptime and stop.
void RegisterBlockchainRPCCommands(RPCTable& table, NodeContext& node);

} // namespace node

#endif // COINSDB_NODE_RPC_BLOCKCHAIN_H
