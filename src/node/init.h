#ifndef COINSDB_NODE_INIT_H
#define COINSDB_NODE_INIT_H

// bitcoind's life cycle: options, datadir and lock, logging, RPC server,
// chainstates, waiting for a shutdown request, and the final flush.
namespace node {

// Runs the node; returns the process exit code.
int AppMain(int argc, char* argv[]);

} // namespace node

#endif // COINSDB_NODE_INIT_H
