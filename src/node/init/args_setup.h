#ifndef COINSDB_NODE_INIT_ARGS_SETUP_H
#define COINSDB_NODE_INIT_ARGS_SETUP_H

class ArgsManager;

namespace node {

// Registers every bitcoind option with its help text. Each subsystem
// registers its own options beside the code that reads them (its
// Register*Options), so a new option touches that file alone; the list here
// names the subsystems, and the options bitcoind accepts only to ignore
// them. -help prints the options by category and name whatever the order
// of the calls.
void SetupServerArgs(ArgsManager& args);

} // namespace node

#endif // COINSDB_NODE_INIT_ARGS_SETUP_H
