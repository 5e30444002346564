#ifndef COINSDB_KERNEL_SWIFTSYNC_BLOCK_TABLES_H
#define COINSDB_KERNEL_SWIFTSYNC_BLOCK_TABLES_H

// The two sets a hinted connect (hinted_connect.h) needs for one block: the
// block's txids with their positions, and the outpoints its inputs spend.
// Kept from block to block, so that once they have grown to the largest
// block seen, connecting a block allocates nothing: a node-based
// std::unordered_map and std::unordered_set per block (a malloc and a free
// per transaction and per input) were a fifth of a hinted connect's time.
//
// Open addressing with linear probing, at most half full. A slot belongs
// to the current block when its stamp is the block's: starting a block
// clears nothing but bumps the stamp. Hashes are SipHash with a random
// key (SaltedCoinsCacheHasher), so a block's txids cannot be ground into
// one long probe chain.

#include <coins.h>
#include <primitives/transaction.h>
#include <uint256.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace kernel::swiftsync {

class BlockTables
{
public:
    // deterministic: a fixed hash key, for tests.
    explicit BlockTables(bool deterministic = false) : m_hasher{deterministic} {}

    // Empties both sets, with room for `txids` txids and `spent` outpoints.
    void Start(size_t txids, size_t spent);

    // Records txid at position; a txid already recorded keeps its first.
    // Throws std::logic_error beyond the txids Start made room for.
    void AddTxid(const uint256& txid, uint32_t position);
    std::optional<uint32_t> PositionOf(const uint256& txid) const;

    // False when the outpoint was added already since Start. Throws
    // std::logic_error beyond the outpoints Start made room for.
    bool AddSpent(const COutPoint& outpoint);

    // Slots of each table, for tests of the growth.
    size_t TxidSlots() const { return m_txids.size(); }
    size_t SpentSlots() const { return m_spent.size(); }

private:
    struct TxidSlot {
        uint256 txid;
        uint32_t position{0};
        uint32_t stamp{0};
    };
    struct SpentSlot {
        COutPoint outpoint;
        uint32_t stamp{0};
    };

    size_t TxidHash(const uint256& txid) const { return m_hasher(COutPoint{txid, 0}); }

    SaltedCoinsCacheHasher m_hasher;
    std::vector<TxidSlot> m_txids;
    std::vector<SpentSlot> m_spent;
    // Slots stamped with it are the current block's; 0 is never current.
    uint32_t m_stamp{0};
    // What Start made room for, counted down by each insert.
    size_t m_txids_left{0};
    size_t m_spent_left{0};
};

} // namespace kernel::swiftsync

#endif // COINSDB_KERNEL_SWIFTSYNC_BLOCK_TABLES_H
