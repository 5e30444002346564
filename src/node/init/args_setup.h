#ifndef COINSDB_NODE_INIT_ARGS_SETUP_H
#define COINSDB_NODE_INIT_ARGS_SETUP_H

class ArgsManager;

namespace node {

// Registers every bitcoind option with its help text.
void SetupServerArgs(ArgsManager& args);

} // namespace node

#endif // COINSDB_NODE_INIT_ARGS_SETUP_H
