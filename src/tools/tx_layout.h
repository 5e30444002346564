#ifndef COINSDB_TOOLS_TX_LAYOUT_H
#define COINSDB_TOOLS_TX_LAYOUT_H

// Which outpoints a generated snapshot holds, produced directly in
// chainstate key order so that nothing has to be sorted or kept in memory.
//
// A transaction's layout (TxShapeSource) is how many outputs it was created
// with and which of them are still unspent: most have 1-3 outputs, a few are
// batch payouts of up to 3,000, and spent outputs leave holes in the vouts.
// The layout comes from its own random stream so that a first, cheap pass
// can count the transactions a given number of coins needs
// (CountTransactions) before the second pass generates them.
//
// Txids (SortedTxids) come out strictly increasing: the first 8 bytes (the
// ones key order compares first) are a big-endian counter advanced by random
// gaps, the other 24 bytes are random. Knowing the count, each gap is drawn
// uniformly in [1, 2R/(k+1)] with R the space left and k the txids left, so
// the expected position of each txid is that of the matching order
// statistic of uniform draws: the txids spread over the whole key space like
// hashes do, yet no gap can run past the end.

#include <tools/gen_random.h>
#include <uint256.h>

#include <cstdint>
#include <vector>

struct TxShape {
    bool coinbase{false};
    // Outputs the transaction was created with.
    uint32_t outputs{0};
    // Its unspent output indexes, ascending; never empty.
    std::vector<uint32_t> unspent;
};

class TxShapeSource
{
public:
    explicit TxShapeSource(uint64_t seed);
    void Next(TxShape& shape);

private:
    GenRandom m_rng;
};

// How many transactions TxShapeSource{seed} takes to reach `coins` unspent
// outputs, and how many of the last one's are needed to stop exactly there.
struct TxCount {
    uint64_t transactions{0};
    uint64_t last_tx_coins{0};
};
TxCount CountTransactions(uint64_t seed, uint64_t coins);

class SortedTxids
{
public:
    SortedTxids(uint64_t seed, uint64_t count);
    // The next txid, greater than every earlier one. At most `count` calls.
    uint256 Next();

private:
    GenRandom m_rng;
    uint64_t m_left;
    uint64_t m_prefix{0};
};

#endif // COINSDB_TOOLS_TX_LAYOUT_H
