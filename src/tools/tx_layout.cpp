#include <tools/tx_layout.h>

#include <algorithm>
#include <array>
#include <cassert>

namespace {

// Outputs a transaction was created with, per 10,000 transactions: most pay
// one recipient plus change; exchanges and pools batch tens to thousands.
// With the spend rates below this leaves about 1.7 unspent outputs per
// transaction; three quarters of the transactions keep a single one.
constexpr std::array<uint32_t, 6> OUTPUT_BUCKET_WEIGHTS{2400, 5800, 1000, 698, 100, 2};
constexpr std::array<std::array<uint32_t, 2>, 6> OUTPUT_BUCKETS{{{1, 1}, {2, 2}, {3, 3}, {4, 10}, {11, 100}, {101, 3000}}};

// 1% of transactions are coinbases (the generator may still demote one
// when every block height already has its coinbase).
constexpr uint32_t COINBASE_PER_10000 = 100;

} // namespace

TxShapeSource::TxShapeSource(uint64_t seed) : m_rng{seed, gen_stream::TX_SHAPE} {}

void TxShapeSource::Next(TxShape& shape)
{
    shape.coinbase = m_rng.Chance(COINBASE_PER_10000);
    uint32_t keep_per_10000;
    if (shape.coinbase) {
        // Mostly one payout; early pools (P2Pool, Eligius) paid many miners.
        shape.outputs = m_rng.Chance(8500) ? 1 : static_cast<uint32_t>(m_rng.Range(2, 20));
        keep_per_10000 = 9000;
    } else {
        const auto bucket = OUTPUT_BUCKETS[m_rng.Pick(OUTPUT_BUCKET_WEIGHTS)];
        shape.outputs = static_cast<uint32_t>(m_rng.Range(bucket[0], bucket[1]));
        // Payment plus change: usually one of the two is spent by now. A
        // batch's recipients spend at a rate of their own.
        keep_per_10000 = shape.outputs <= 3 ? 5000 : static_cast<uint32_t>(m_rng.Range(1000, 7000));
    }
    shape.unspent.clear();
    for (uint32_t vout = 0; vout < shape.outputs; ++vout) {
        if (m_rng.Chance(keep_per_10000)) shape.unspent.push_back(vout);
    }
    // A transaction with nothing unspent is not in the set at all; keep one.
    if (shape.unspent.empty()) shape.unspent.push_back(static_cast<uint32_t>(m_rng.Below(shape.outputs)));
}

TxCount CountTransactions(uint64_t seed, uint64_t coins)
{
    TxShapeSource source{seed};
    TxShape shape;
    TxCount count;
    uint64_t made = 0;
    while (made < coins) {
        source.Next(shape);
        count.last_tx_coins = std::min<uint64_t>(shape.unspent.size(), coins - made);
        made += shape.unspent.size();
        ++count.transactions;
    }
    return count;
}

SortedTxids::SortedTxids(uint64_t seed, uint64_t count) : m_rng{seed, gen_stream::TXID}, m_left{count} {}

uint256 SortedTxids::Next()
{
    assert(m_left > 0);
    const uint64_t room = UINT64_MAX - m_prefix;
    // At most 2R/(k+1) <= R: never past the end. While R stays near
    // 2^64 * k / count, it is billions of times k, so every gap is >= 1.
    const auto max_gap = static_cast<uint64_t>(static_cast<unsigned __int128>(room) * 2 / (m_left + 1));
    assert(max_gap >= 1);
    m_prefix += 1 + m_rng.Below(max_gap);
    --m_left;

    std::array<unsigned char, uint256::SIZE> bytes;
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(m_prefix >> (56 - 8 * i));
    m_rng.Fill(std::span{bytes}.subspan(8));
    return uint256{bytes};
}
