#ifndef COINSDB_NODE_RPC_BLOCKCHAIN_H
#define COINSDB_NODE_RPC_BLOCKCHAIN_H

class RPCTable;

namespace node {
struct NodeContext;

// Every RPC method of the node: the chain (node/rpc/blockchain.cpp), the UTXO
// set and snapshots (coins.cpp), uptime and stop (control.cpp).
void RegisterBlockchainRPCCommands(RPCTable& table, NodeContext& node);

} // namespace node

#endif // COINSDB_NODE_RPC_BLOCKCHAIN_H
