#include <txdb/txid_filter.h>

#include <algorithm>
#include <cstring>

namespace {

// A bijective 64-bit finalizer (murmur3's): every input bit reaches every
// output bit. Not a keyed hash: the salt goes in before it. SipHash would
// also do; this costs a few cycles and the worst a collision can do here
// is one LevelDB read.
uint64_t Mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

uint64_t Load64(const unsigned char* bytes)
{
    uint64_t value;
    std::memcpy(&value, bytes, sizeof(value));
    return value;
}

} // namespace

TxidFilter::TxidFilter(size_t bytes, uint64_t salt)
    : m_word_count{std::max<size_t>(bytes / sizeof(uint64_t), 1)},
      m_words{std::make_unique<std::atomic<uint64_t>[]>(m_word_count)},
      m_salt{salt}
{
}

TxidFilter::Slot TxidFilter::SlotOf(const uint256& txid) const
{
    const uint64_t pick = Mix(Load64(txid.data()) ^ m_salt);
    const uint64_t bits = Mix(Load64(txid.data() + 8) ^ (m_salt * 0x9e3779b97f4a7c15ULL));
    // The high half of a 128-bit product: a word in [0, count) without a
    // division and without favouring low words.
    const size_t word = static_cast<size_t>((static_cast<unsigned __int128>(pick) * m_word_count) >> 64);
    uint64_t mask = 0;
    for (int i = 0; i < K; ++i) mask |= uint64_t{1} << ((bits >> (6 * i)) & 63);
    return {word, mask};
}

void TxidFilter::Add(const uint256& txid)
{
    const Slot slot = SlotOf(txid);
    m_words[slot.word].fetch_or(slot.mask, std::memory_order_relaxed);
}

bool TxidFilter::MayContain(const uint256& txid) const
{
    const Slot slot = SlotOf(txid);
    return (m_words[slot.word].load(std::memory_order_relaxed) & slot.mask) == slot.mask;
}
