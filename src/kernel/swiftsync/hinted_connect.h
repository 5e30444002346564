#ifndef COINSDB_KERNEL_SWIFTSYNC_HINTED_CONNECT_H
#define COINSDB_KERNEL_SWIFTSYNC_HINTED_CONNECT_H

// A block below the hints' height H, connected without the UTXO set
// (SwiftSync, BIP 457's assume-valid variant). The hints name the block's
// outputs still unspent at H; those are kept, to be written once at H. Every
// other spendable output is added to the aggregate and every input
// subtracted from it (aggregate.h): nothing is looked up or erased.
//
// Checked here, per block: each hint names one of the block's spendable
// outputs ("swiftsync-hint-out-of-range"); no coin is spent twice in the
// block and none before the transaction creating it
// ("bad-txns-inputs-missingorspent"); no coinbase repeats an earlier
// coinbase's txid, except at the two mainnet blocks BIP30 exempts
// ("bad-txns-BIP30"); no coinbase output is spent before it matures
// ("bad-txns-premature-spend-of-coinbase", for coinbases of this replay,
// which are all of them below H). CheckBlock (merkle root, coinbase
// position, amounts in range) ran when the block was accepted.
//
// Not checkable without the coins, so proved at H instead: that every
// input spends a coin that existed (the aggregate is zero) and that no
// block created money (the kept coins plus the burnt outputs are at most
// the subsidies of blocks 1..H). Fees per block are not known: a coinbase
// may claim more than subsidy plus fees of its own block and still pass
// here; the supply check then fails at H if the excess was not burnt.
//
// Which outputs have a hint index: spendable.h.

#include <kernel/chainparams.h>
#include <kernel/connect.h>
#include <kernel/swiftsync/block_tables.h>
#include <primitives/amount.h>
#include <primitives/block.h>

#include <coins.h>
#include <txdb/txid_filter.h>

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kernel::swiftsync {

// What one block gives a hinted replay.
struct HintedBlock {
    // Outputs unspent at H, with their coins.
    std::vector<std::pair<COutPoint, Coin>> kept;
    // Spendable outputs not kept: added to the aggregate.
    std::vector<COutPoint> created;
    // Inputs: subtracted from the aggregate.
    std::vector<COutPoint> spent;
    CAmount kept_value{0};
    // Outputs no one can spend: their value left the supply.
    CAmount unspendable_value{0};
};

// The coinbases of the blocks connected so far, for the duplicate and
// maturity checks: about 40 bytes per block (37 MB at mainnet's height).
//
// Every input of a hinted block asks whether it spends an immature
// coinbase, and almost none does: the lookup in the map of every coinbase
// (a SipHash and a probe) was 4% of a hinted replay's samples, on the
// connecting thread. Only the coinbases of the last COINBASE_MATURITY
// heights can be immature for the next block, so a filter of their txids
// (1 KiB, rebuilt as the window moves) turns most inputs away first.
class CoinbaseHistory
{
public:
    CoinbaseHistory();

    // Height of the coinbase with this txid, or -1.
    int HeightOf(const uint256& txid) const;
    // For the maturity check of an input of the block at `height`: the
    // height of the coinbase with this txid whenever that coinbase is
    // immature there (otherwise -1, or its height). Exact for any order of
    // heights; fast for a block above every coinbase added, as in a replay.
    int MaybeImmatureHeightOf(const uint256& txid, int height) const;
    void Add(const uint256& txid, int height);
    size_t Size() const { return m_heights.size(); }

private:
    std::unordered_map<uint256, int, SaltedCoinsCacheHasher> m_heights;
    // The coinbases of heights above m_highest - COINBASE_MATURITY, and a
    // filter of their txids.
    std::vector<std::pair<uint256, int>> m_recent;
    uint64_t m_recent_salt;
    TxidFilter m_recent_filter;
    int m_highest{-1};
};

// `unspent`: the block's hints, strictly rising. On success `out` holds
// the block's contribution and the coinbase is in `coinbases`; on failure
// `state` says why and `coinbases` is unchanged. `tables`: scratch space,
// kept by the caller from one block to the next.
bool ConnectBlockHinted(const CBlock& block, int height, const CChainParams& params, std::span<const uint32_t> unspent,
                        CoinbaseHistory& coinbases, BlockTables& tables, HintedBlock& out, BlockValidationState& state);

} // namespace kernel::swiftsync

#endif // COINSDB_KERNEL_SWIFTSYNC_HINTED_CONNECT_H
