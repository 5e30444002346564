#include <dbwrapper/bloom.h>

#include <dbwrapper/slices.h>

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace dbwrapper_ingest {
namespace {

constexpr uint32_t HASH_SEED = 0xbc9f1d34;
constexpr uint32_t HASH_MULTIPLIER = 0xc6a4a793;
constexpr size_t MIN_BITS = 64;
constexpr const char* BUILTIN_NAME = "leveldb.BuiltinBloomFilter2";

// x % d for a 32-bit x and a divisor d fixed for many x, without a
// division: Lemire, Kaser and Kurz, "Faster remainder by direct
// computation" (2019), exact for every 32-bit x and d > 0.
class Remainder
{
public:
    explicit Remainder(uint32_t divisor) : m_inverse{std::numeric_limits<uint64_t>::max() / divisor + 1}, m_divisor{divisor} {}
    uint32_t Of(uint32_t x) const
    {
        const uint64_t fraction = m_inverse * x;
        return static_cast<uint32_t>((static_cast<unsigned __int128>(fraction) * m_divisor) >> 64);
    }

private:
    uint64_t m_inverse;
    uint32_t m_divisor;
};

int ProbesFor(int bits_per_key)
{
    // LevelDB rounds bits_per_key * ln 2 down, computing it in double.
    const int probes = static_cast<int>(bits_per_key * 0.69);
    return std::clamp(probes, 1, 30);
}

} // namespace

uint32_t BloomHash(std::string_view key)
{
    uint32_t h = HASH_SEED ^ (static_cast<uint32_t>(key.size()) * HASH_MULTIPLIER);
    size_t done = 0;
    for (; done + 4 <= key.size(); done += 4) {
        uint32_t word;
        std::memcpy(&word, key.data() + done, sizeof(word));
        if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap32(word);
        h += word;
        h *= HASH_MULTIPLIER;
        h ^= h >> 16;
    }
    const size_t left = key.size() - done;
    if (left == 0) return h;
    for (size_t i = 0; i < left; ++i) h += uint32_t{static_cast<unsigned char>(key[done + i])} << (8 * i);
    h *= HASH_MULTIPLIER;
    return h ^ (h >> 24);
}

void AppendBloomFilter(std::span<const uint32_t> hashes, int bits_per_key, std::string& dst)
{
    const size_t bytes = (std::max(hashes.size() * bits_per_key, MIN_BITS) + 7) / 8;
    const size_t bits = bytes * 8;
    // A bit count past 32 bits would need a filter of 512 MiB.
    if (bits > std::numeric_limits<uint32_t>::max()) throw std::length_error("AppendBloomFilter: too many keys for one filter");
    const int probes = ProbesFor(bits_per_key);
    const size_t start = dst.size();
    dst.resize(start + bytes, 0);
    dst.push_back(static_cast<char>(probes));
    unsigned char* const array = reinterpret_cast<unsigned char*>(dst.data() + start);
    const Remainder modulo{static_cast<uint32_t>(bits)};
    for (uint32_t h : hashes) {
        const uint32_t step = (h >> 17) | (h << 15);
        for (int probe = 0; probe < probes; ++probe) {
            const uint32_t bit = modulo.Of(h);
            array[bit / 8] |= static_cast<unsigned char>(1U << (bit % 8));
            h += step;
        }
    }
}

int BuiltinBloomBitsPerKey(const leveldb::FilterPolicy& policy)
{
    if (std::string_view{policy.Name()} != BUILTIN_NAME) return 0;
    // Keys of every length up to 44, so every tail length is hashed, with
    // bytes above 0x7f among them.
    constexpr size_t SAMPLE_KEYS = 200;
    std::vector<std::string> keys;
    std::vector<leveldb::Slice> slices;
    std::vector<uint32_t> hashes;
    uint32_t state = 0x9e3779b9;
    for (size_t i = 0; i < SAMPLE_KEYS; ++i) {
        std::string& key = keys.emplace_back(i % 45, '\0');
        for (char& c : key) {
            state = state * 1664525 + 1013904223;
            c = static_cast<char>(state >> 24);
        }
    }
    for (const std::string& key : keys) {
        slices.push_back(ToSlice(key));
        hashes.push_back(BloomHash(key));
    }
    std::string theirs;
    policy.CreateFilter(slices.data(), static_cast<int>(slices.size()), &theirs);
    // SAMPLE_KEYS * b bits are 25 * b bytes, and one byte of probe count.
    if (theirs.size() < 1 || (theirs.size() - 1) % (SAMPLE_KEYS / 8) != 0) return 0;
    const int bits_per_key = static_cast<int>((theirs.size() - 1) / (SAMPLE_KEYS / 8));
    if (bits_per_key < 1) return 0;
    std::string ours;
    AppendBloomFilter(hashes, bits_per_key, ours);
    return ours == theirs ? bits_per_key : 0;
}

} // namespace dbwrapper_ingest
