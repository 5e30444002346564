#include <kernel/swiftsync/block_tables.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace kernel::swiftsync {
namespace {

// A power of two at least twice `entries`: the table stays at most half
// full, so probe chains stay short.
size_t SlotsFor(size_t entries) { return std::bit_ceil(std::max<size_t>(2 * entries, 16)); }

template <typename Slot>
void Fit(std::vector<Slot>& slots, size_t entries)
{
    // Never shrinks: the next large block would only grow it again.
    if (const size_t wanted = SlotsFor(entries); slots.size() < wanted) slots.assign(wanted, Slot{});
}

} // namespace

void BlockTables::Start(size_t txids, size_t spent)
{
    if (++m_stamp == 0) {
        // After 2^32 - 1 blocks, stamps go round: forget them all once.
        std::ranges::fill(m_txids, TxidSlot{});
        std::ranges::fill(m_spent, SpentSlot{});
        m_stamp = 1;
    }
    Fit(m_txids, txids);
    Fit(m_spent, spent);
    m_txids_left = txids;
    m_spent_left = spent;
}

void BlockTables::AddTxid(const uint256& txid, uint32_t position)
{
    const size_t mask = m_txids.size() - 1;
    for (size_t i = TxidHash(txid) & mask;; i = (i + 1) & mask) {
        TxidSlot& slot = m_txids[i];
        if (slot.stamp != m_stamp) {
            // A full table would make this loop forever.
            if (m_txids_left == 0) throw std::logic_error("BlockTables: more txids than Start made room for");
            --m_txids_left;
            slot = {txid, position, m_stamp};
            return;
        }
        if (slot.txid == txid) return;
    }
}

std::optional<uint32_t> BlockTables::PositionOf(const uint256& txid) const
{
    const size_t mask = m_txids.size() - 1;
    for (size_t i = TxidHash(txid) & mask;; i = (i + 1) & mask) {
        const TxidSlot& slot = m_txids[i];
        if (slot.stamp != m_stamp) return std::nullopt;
        if (slot.txid == txid) return slot.position;
    }
}

bool BlockTables::AddSpent(const COutPoint& outpoint)
{
    const size_t mask = m_spent.size() - 1;
    for (size_t i = m_hasher(outpoint) & mask;; i = (i + 1) & mask) {
        SpentSlot& slot = m_spent[i];
        if (slot.stamp != m_stamp) {
            if (m_spent_left == 0) throw std::logic_error("BlockTables: more outpoints than Start made room for");
            --m_spent_left;
            slot = {outpoint, m_stamp};
            return true;
        }
        if (slot.outpoint == outpoint) return false;
    }
}

} // namespace kernel::swiftsync
