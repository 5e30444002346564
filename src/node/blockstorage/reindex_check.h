#ifndef COINSDB_NODE_BLOCKSTORAGE_REINDEX_CHECK_H
#define COINSDB_NODE_BLOCKSTORAGE_REINDEX_CHECK_H

// Before -reindex or -reindex-chainstate wipes anything: can the blocks
// they rebuild from be read at all?

#include <kernel/chainparams.h>

#include <filesystem>
#include <optional>
#include <string>

namespace node {

// Checks that blocks_dir/xor.dat, if there is one, holds a key, and that
// blk00000.dat starts with a record that has the chain's network magic once
// de-obfuscated with it and holds the chain's genesis block (the first block
// coinsdb and Core store). Only reads. The reason it cannot, or nullopt.
// It does not read further: a later file can still be damaged.
std::optional<std::string> CheckFirstBlockFile(const std::filesystem::path& blocks_dir, const CChainParams& params);

} // namespace node

#endif // COINSDB_NODE_BLOCKSTORAGE_REINDEX_CHECK_H
