#ifndef COINSDB_NODE_CHAINSTATE_CHAIN_INFO_H
#define COINSDB_NODE_CHAINSTATE_CHAIN_INFO_H

// What the RPCs report about a block besides its header's own fields:
// difficulty, target, median time past, and how far along the network's
// history the chain up to it is. The formulas are upstream's, so that the
// figures agree with Bitcoin Core's for the same block.

#include <kernel/chainparams.h>

#include <cstdint>
#include <string>

struct CBlockIndex;

namespace node {

// How many times harder nBits's target is to meet than difficulty 1's
// (nBits 0x1d00ffff, target 0xffff * 256^26): 0xffff / mantissa *
// 256^(29 - exponent), with the mantissa's sign bit read as a digit, as
// upstream does. Regtest's 0x207fffff gives 4.656542373906925e-10.
double GetDifficulty(uint32_t n_bits);

// The target nBits encodes, as 64 hex digits (kernel/pow.h); all zeros
// for a negative or overflowing encoding.
std::string TargetHex(uint32_t n_bits);

// The median of the times of the block and its up to ten predecessors: the
// time a block's own time must exceed, immune to one miner's clock.
int64_t GetMedianTimePast(const CBlockIndex& index);

// A chain's tip, as the progress estimate needs it.
struct ProgressInput {
    // Transactions up to and including the tip; 0 when unknown.
    uint64_t chain_tx;
    int64_t tip_time;
    int tip_height;
    // The best header's height, or -1 when none is known.
    int best_header_height;
};

// Where a chain is along the network's history, in [0, 1], as upstream's
// GuessVerificationProgress: its transactions over those expected by now,
// chain_tx plus the parameters' tx_rate per second since its tip. The
// tip's time is replaced, when it is within two hours of now and the best
// header is at least as high, by now minus the target spacing for each
// header above the tip, so that a synced node shows a steady 1. 0 when
// chain_tx is 0, as upstream answers when it cannot tell.
double GuessVerificationProgress(const CChainParams& params, const ProgressInput& input, int64_t now);

} // namespace node

#endif // COINSDB_NODE_CHAINSTATE_CHAIN_INFO_H
