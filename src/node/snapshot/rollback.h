#ifndef COINSDB_NODE_SNAPSHOT_ROLLBACK_H
#define COINSDB_NODE_SNAPSHOT_ROLLBACK_H

// dumptxoutset rollback: the UTXO set as it was at an earlier block of the
// active chain, built beside the chainstate, which stays as it is (as
// Bitcoin Core master does it, rather than rewinding the chainstate itself
// and rolling it forward again afterwards):
//
//   1. every coin of the chainstate's database (synced first by the caller)
//      is copied into a temporary coins database;
//   2. the blocks above the target are disconnected from the copy, tip
//      first, with their undo data from the rev files;
//   3. the copy, whose best block is then the target, is dumped and removed.
//
// The copy is written through a coins cache of ROLLBACK_CACHE_BYTES, so
// memory stays bounded however deep the rollback; with memory_only the
// database itself lives in memory instead of on disk.

#include <dbwrapper.h>
#include <txdb.h>

#include <cstddef>
#include <functional>
#include <memory>

struct CBlockIndex;

namespace node {
class BlockManager;

constexpr size_t ROLLBACK_CACHE_BYTES{32 << 20};

struct RollbackRequest {
    // The synced database of the chainstate whose tip is `tip`.
    const CCoinsView& source;
    const BlockManager& blockman;
    const CBlockIndex& tip;
    // An ancestor of tip; every block above it, up to tip, must have its
    // block and undo data stored.
    const CBlockIndex& target;
    // Where the copy goes: wiped first; a path beside the output file.
    DBParams temp_db;
    CoinsViewOptions coins_view;
    // Called every few thousand coins and after every block; throws to stop.
    std::function<void()> interruption_point{};
};

// Steps 1 and 2. Throws std::runtime_error when a block or its undo data
// cannot be read or does not disconnect cleanly; the caller removes the
// temporary database either way.
std::unique_ptr<CCoinsViewDB> BuildRolledBackCoins(const RollbackRequest& request);

} // namespace node

#endif // COINSDB_NODE_SNAPSHOT_ROLLBACK_H
