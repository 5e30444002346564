#ifndef COINSDB_NODE_COINS_VIEW_ARGS_H
#define COINSDB_NODE_COINS_VIEW_ARGS_H

#include <string>

class ArgsManager;
struct CoinsViewOptions;

namespace node {

// Fills CoinsViewOptions from -dbbatchsize (default DEFAULT_DB_CACHE_BATCH)
// and -dbcrashratio. Returns false
// with error set for a value that is not a positive integer.
bool ReadCoinsViewArgs(const ArgsManager& args, CoinsViewOptions& options, std::string& error);

} // namespace node

#endif // COINSDB_NODE_COINS_VIEW_ARGS_H
