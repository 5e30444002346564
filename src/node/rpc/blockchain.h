#ifndef COINSDB_NODE_RPC_BLOCKCHAIN_H
#define COINSDB_NODE_RPC_BLOCKCHAIN_H

class RPCTable;

namespace node {
struct NodeContext;

// Every RPC method of the node: the chain (rpc_blockchain.cpp), the UTXO
// set and snapshots (rpc_coins.cpp), uptime and stop (rpc_control.cpp).
void RegisterBlockchainRPCCommands(RPCTable& table, NodeContext& node);

} // namespace node

#endif // COINSDB_NODE_RPC_BLOCKCHAIN_H
