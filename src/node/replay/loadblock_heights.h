#ifndef COINSDB_NODE_REPLAY_LOADBLOCK_HEIGHTS_H
#define COINSDB_NODE_REPLAY_LOADBLOCK_HEIGHTS_H

// Which blocks of some -loadblock files stand at a given height, from their
// headers alone (BlockManager::ReadBlockFileHeaders): so that a hinted
// replay can refuse a -swiftsyncblockhash that is not the files' block at
// H before anything is wiped or replayed, where otherwise it would replay
// every block below H first and fall back at H. Heights count from the
// network's genesis block, through the files' headers only: a file whose
// chain starts above genesis (its first blocks stored already) reaches no
// height here.

#include <kernel/chainparams.h>
#include <uint256.h>

#include <cstddef>
#include <filesystem>
#include <vector>

namespace node {

struct LoadBlockHeights {
    // Every block at the height asked for, on the chains from genesis the
    // files hold (forks can put several there), in no particular order.
    std::vector<uint256> at_height;
    // The greatest height those chains reach; 0 when none leaves genesis.
    int max_height{0};
    // Headers read, repeats included.
    size_t headers{0};
};

// Files that cannot be opened are skipped (the import says so when it
// reaches them).
LoadBlockHeights FindLoadBlockHeights(const std::vector<std::filesystem::path>& files, const CChainParams& params, int height);

} // namespace node

#endif // COINSDB_NODE_REPLAY_LOADBLOCK_HEIGHTS_H
