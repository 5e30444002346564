#ifndef COINSDB_KERNEL_CONNECT_H
#define COINSDB_KERNEL_CONNECT_H

// Applying a block's UTXO changes to a coins view, and taking them back.
//
// Only what the UTXO set needs is checked: structure, amounts, proof of work,
// merkle root, coin existence and maturity, BIP30. Scripts, signatures,
// sigop counts, witness commitments, lock times and header context
// (timestamps, difficulty retargeting) are NOT verified, so a block these
// functions accept may still be invalid to Bitcoin Core.
//
// Reject reasons are Bitcoin Core's, so logs and tests can be compared.

#include <coins.h>
#include <kernel/chainparams.h>
#include <kernel/undo.h>
#include <primitives/amount.h>
#include <primitives/block.h>

#include <string>

namespace kernel {

// A coinbase output may be spent only this many blocks after its own.
constexpr int COINBASE_MATURITY = 100;
// Upstream's limits, from which the block size check derives.
constexpr uint64_t MAX_BLOCK_WEIGHT = 4'000'000;
constexpr uint64_t WITNESS_SCALE_FACTOR = 4;

enum class BlockValidationResult {
    UNSET,          // no failure recorded
    CONSENSUS,      // the block breaks a consensus rule
    MUTATED,        // the transactions don't match the header's merkle root: the
                    // header's hash may still belong to a valid block, so it must
                    // not be marked invalid
    INVALID_HEADER, // the header alone is invalid (proof of work)
};

// Why a block was refused: the first failure found.
class BlockValidationState
{
public:
    // Records a failure and returns false, so checks can `return state.Invalid(...)`.
    bool Invalid(BlockValidationResult result, std::string reason, std::string debug = "");
    bool Invalid(std::string reason, std::string debug = "")
    {
        return Invalid(BlockValidationResult::CONSENSUS, std::move(reason), std::move(debug));
    }

    bool IsValid() const { return m_result == BlockValidationResult::UNSET; }
    bool IsInvalid() const { return !IsValid(); }
    BlockValidationResult GetResult() const { return m_result; }
    const std::string& GetRejectReason() const { return m_reject_reason; }
    const std::string& GetDebugMessage() const { return m_debug_message; }
    // "Valid", "reason" or "reason, debug message".
    std::string ToString() const;

private:
    BlockValidationResult m_result{BlockValidationResult::UNSET};
    std::string m_reject_reason;
    std::string m_debug_message;
};

// The two mainnet blocks whose coinbase repeats the txid of an earlier,
// still unspent coinbase (allowed before BIP30), and the two blocks whose
// coinbase coins they overwrote. Matched by hash, so no other chain has any.
bool IsBip30OverwritingBlock(int height, const uint256& hash);
bool IsBip30OverwrittenBlock(const uint256& hash);

// The new coins a coinbase may create at this height besides the fees:
// 50 BTC halved every SubsidyHalvingInterval() blocks, 0 after 64 halvings
// (a shift by 64 or more would be undefined, and the amount is 0 long before).
CAmount GetBlockSubsidy(int height, const CChainParams& params);

// The only check of a header alone that coinsdb makes: its hash meets the
// target its nBits claims, which is within the chain's pow limit
// ("high-hash"). Upstream's contextual checks (difficulty adjustment,
// timestamps, version) are not made.
bool CheckBlockHeader(const CBlockHeader& header, const CChainParams& params, BlockValidationState& state);

// Context-free checks, in upstream's order: proof of work ("high-hash"),
// merkle root ("bad-txnmrklroot") and its mutation ("bad-txns-duplicate"),
// size limits, also failed by a block without transactions
// ("bad-blk-length"), coinbase first ("bad-cb-missing") and only first
// ("bad-cb-multiple"), then each transaction: inputs and outputs present
// ("bad-txns-vin-empty", "bad-txns-vout-empty"), output amounts
// ("bad-txns-vout-negative", "bad-txns-vout-toolarge",
// "bad-txns-txouttotal-toolarge"), no input twice
// ("bad-txns-inputs-duplicate"), coinbase scriptSig of 2..100 bytes
// ("bad-cb-length"), no null prevout outside the coinbase
// ("bad-txns-prevout-null").
// A block that passed is marked (CBlock::m_checked) and passes again at once.
bool CheckBlock(const CBlock& block, const CChainParams& params, BlockValidationState& state);

// Connects a block at `height` on top of `view`, whose best block must be
// block.hashPrevBlock (std::logic_error otherwise: a caller bug). Runs
// CheckBlock first, then, in upstream's order: BIP30 (no output may replace
// an unspent coin: "bad-txns-BIP30", except the two mainnet blocks that did
// so before the rule existed), then per transaction its inputs
// ("bad-txns-inputs-missingorspent", also for the second spend of a coin
// within the block; "bad-txns-premature-spend-of-coinbase";
// "bad-txns-inputvalues-outofrange"; "bad-txns-in-belowout"), and finally
// the coinbase amount against subsidy + fees ("bad-cb-amount").
//
// All or nothing: the changes are made in a child CCoinsViewCache on top of
// `view` and flushed into it only when every check passed, so after a
// failure `view` holds the same coins and best block as before (it may have
// cached clean copies of coins it read). On success `view`'s best block is
// the block's hash and `undo` holds the spent coins; on failure `undo` is
// left untouched.
//
// The genesis block is accepted without touching the coins: its outputs
// were never in the UTXO set, as upstream.
bool ConnectBlockCoins(const CBlock& block, int height, const CChainParams& params, CCoinsViewCache& view,
                       CBlockUndo& undo, BlockValidationState& state);

// The same, connected in `overlay` instead of a fresh child cache: the view
// to connect onto is the overlay's base, and the overlay's workers read the
// block's inputs while this thread connects it (CoinsViewOverlay in
// coins.h; Core's ConnectTip connects in its overlay the same way). The
// overlay must be empty (std::logic_error otherwise), as a new one is and
// as every call leaves it: flushed into its base on success, reset on any
// failure. The results, the reject reasons, the undo data and the base's
// coins afterwards are those of the call above with the base as `view`;
// only, the base keeps no clean copies of coins a rejected block read.
// While it runs, nothing else may write to the base or below (coins.h).
bool ConnectBlockCoins(const CBlock& block, int height, const CChainParams& params, CoinsViewOverlay& overlay,
                       CBlockUndo& undo, BlockValidationState& state);

enum class DisconnectResult {
    OK,       // the view is exactly as before the block
    UNCLEAN,  // applied, but the view did not hold what the block created or
              // already held a coin being restored: it was not the state
              // after this block (expected while replaying after a crash)
    FAILED,   // undo data unusable for this block; nothing changed
};

// Takes a block's changes back out of `view`, transactions in reverse order:
// removes each output it created (each must be there and equal to the
// block's, else UNCLEAN; the coinbase of the two mainnet blocks whose coins
// BIP30's exceptions overwrote may be missing), then puts back the coins
// `undo` records (one already present makes it UNCLEAN). Undo data whose
// shape doesn't match the block, or holding a coin that can't be restored,
// is FAILED and leaves `view` unchanged. Otherwise `view`'s best block
// becomes block.hashPrevBlock.
//
// The view's best block is not required to be the block: replaying after a
// crash rolls blocks back from a state that is a mix of two. Without the
// block's height, the coins it created are checked to share one height
// rather than a given one.
DisconnectResult DisconnectBlockCoins(const CBlock& block, const CBlockUndo& undo, CCoinsViewCache& view);

// Re-applies a block that may already be partly in `view` (crash replay):
// spends whatever inputs are still there and writes every output,
// overwriting any copy. Checks nothing and leaves the best block alone.
void RollforwardBlockCoins(const CBlock& block, int height, CCoinsViewCache& view);

} // namespace kernel

// The per-transaction steps the block functions above are built from, under
// Core's names and signatures (validation.h there) and, as there, outside
// any namespace, so that code and tests ported from Core call them as is.

// Spends every input of `tx` (a coinbase has none), appending each spent
// coin to txundo in input order, then adds its outputs (AddCoins). Every
// input must be an unspent coin of `inputs`, which the caller has checked
// (CheckTxInputs): a missing one aborts, since undo data without that coin
// could never restore it.
void UpdateCoins(const CTransaction& tx, CCoinsViewCache& inputs, CTxUndo& txundo, int height);

// Core's ints for ApplyTxInUndo's result (validation.h there): the values of
// kernel::DisconnectResult.
inline constexpr int DISCONNECT_OK{static_cast<int>(kernel::DisconnectResult::OK)};
inline constexpr int DISCONNECT_UNCLEAN{static_cast<int>(kernel::DisconnectResult::UNCLEAN)};
inline constexpr int DISCONNECT_FAILED{static_cast<int>(kernel::DisconnectResult::FAILED)};

// Puts the undo coin back at `out`, for one input of a transaction being
// disconnected. Returns an int, as Core's does: DISCONNECT_OK when `view`
// had no unspent coin there, DISCONNECT_UNCLEAN when it had one (now
// overwritten). DISCONNECT_FAILED, leaving `view` unchanged, for a coin that
// cannot be restored: a spent one (corrupt undo data), or one in the
// pre-0.15 format with height 0, whose metadata Core looks up in another
// output of the same transaction and coinsdb, which never writes that
// format, refuses.
int ApplyTxInUndo(Coin&& undo, CCoinsViewCache& view, const COutPoint& out);

#endif // COINSDB_KERNEL_CONNECT_H
