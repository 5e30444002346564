#ifndef COINSDB_KERNEL_SWIFTSYNC_SPENDABLE_H
#define COINSDB_KERNEL_SWIFTSYNC_SPENDABLE_H

// Which outputs of a block a SwiftSync hints file counts (BIP 456): its
// spendable outputs, in block order (the coinbase's first, each
// transaction's in output order). An output's hint index is its position
// among them. Not counted, because they can never be in a UTXO set:
//   - an output whose script CScript::IsUnspendable() (OP_RETURN first, or
//     more than MAX_SCRIPT_SIZE = 10,000 bytes; exactly 10,000 is spendable);
//   - on mainnet only, the coinbase outputs of blocks 91722 and 91812, whose
//     coins the duplicate coinbases of blocks 91842 and 91880 overwrote
//     before BIP30 (their outpoint is in the UTXO set, as the later block's).
// An output spent within its own block is counted like any other: the
// index does not depend on what later transactions do.
//
// The mainnet blocks are named by height, as the BIP names them: a caller
// walks a chain from genesis and knows each block's height, and mainnet's
// proof of work fixes which block sits there. kernel/connect.h matches the
// same blocks by hash (IsBip30OverwrittenBlock) where no height is at hand;
// on mainnet both name the same two blocks.

#include <kernel/chainparams.h>
#include <primitives/block.h>
#include <primitives/transaction.h>

#include <vector>

namespace kernel::swiftsync {

// Whether a script can ever be spent (its output then has an index).
bool IsSpendableScript(const CScript& script);

// Whether the coinbase of the block at `height` on `params`' chain is one of
// the two that BIP30's exceptions overwrote.
bool IsOverwrittenCoinbase(int height, const CChainParams& params);

// The block's spendable outputs, indexed by hint index.
std::vector<COutPoint> SpendableOutputs(const CBlock& block, int height, const CChainParams& params);

} // namespace kernel::swiftsync

#endif // COINSDB_KERNEL_SWIFTSYNC_SPENDABLE_H
