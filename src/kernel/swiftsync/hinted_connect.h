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
class CoinbaseHistory
{
public:
    // Height of the coinbase with this txid, or -1.
    int HeightOf(const uint256& txid) const;
    void Add(const uint256& txid, int height) { m_heights[txid] = height; }
    size_t Size() const { return m_heights.size(); }

private:
    std::unordered_map<uint256, int, SaltedCoinsCacheHasher> m_heights;
};

// `unspent`: the block's hints, strictly rising. On success `out` holds
// the block's contribution and the coinbase is in `coinbases`; on failure
// `state` says why and `coinbases` is unchanged. `tables`: scratch space,
// kept by the caller from one block to the next.
bool ConnectBlockHinted(const CBlock& block, int height, const CChainParams& params, std::span<const uint32_t> unspent,
                        CoinbaseHistory& coinbases, BlockTables& tables, HintedBlock& out, BlockValidationState& state);

} // namespace kernel::swiftsync

#endif // COINSDB_KERNEL_SWIFTSYNC_HINTED_CONNECT_H
