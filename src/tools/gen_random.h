#ifndef COINSDB_TOOLS_GEN_RANDOM_H
#define COINSDB_TOOLS_GEN_RANDOM_H

#include <cstdint>
#include <span>

// Seeded xoshiro256** for the snapshot generator. Not for keys or salts
// (crypto/random.h is): its one job is to give the same numbers for the same
// seed on every host and compiler. That is why nothing here uses
// <random>'s distributions (their algorithms are implementation-defined) or
// floating point: only 64-bit integer arithmetic. Callers never put two
// draws where C++ leaves their order unspecified (`f(rng) + g(rng)`, or two
// arguments of one call): two compilers could then write different files.
// The generator's independent streams, all drawn from one user seed. Each
// part reads only its own stream, so changing how (say) scripts are drawn
// leaves the layout of transactions and their txids as they were.
namespace gen_stream {
constexpr uint64_t TX_SHAPE = 1;
constexpr uint64_t TXID = 2;
constexpr uint64_t CONTENT = 3;
} // namespace gen_stream

class GenRandom
{
public:
    // stream separates independent sequences drawn from one user seed.
    GenRandom(uint64_t seed, uint64_t stream)
    {
        uint64_t mix = seed ^ (stream * 0x9e3779b97f4a7c15ULL);
        for (uint64_t& word : m_state) word = SplitMix64(mix);
    }

    uint64_t Next()
    {
        const uint64_t result = Rotl(m_state[1] * 5, 7) * 9;
        const uint64_t t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = Rotl(m_state[3], 45);
        return result;
    }

    // Uniform in [0, n) by multiply-shift; the bias (at most n / 2^64) is
    // far below anything the generator's shape cares about. n must be > 0.
    uint64_t Below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64); }
    // Uniform in [lo, hi], lo <= hi.
    uint64_t Range(uint64_t lo, uint64_t hi) { return lo + Below(hi - lo + 1); }
    // True with probability per_10000 / 10000.
    bool Chance(uint32_t per_10000) { return Below(10'000) < per_10000; }

    // Index of a weighted choice; weights must not all be zero.
    size_t Pick(std::span<const uint32_t> weights)
    {
        uint64_t total = 0;
        for (uint32_t w : weights) total += w;
        uint64_t draw = Below(total);
        for (size_t i = 0; i < weights.size(); ++i) {
            if (draw < weights[i]) return i;
            draw -= weights[i];
        }
        return weights.size() - 1;
    }

    void Fill(std::span<unsigned char> out)
    {
        for (size_t i = 0; i < out.size(); i += 8) {
            uint64_t word = Next();
            for (size_t j = i; j < out.size() && j < i + 8; ++j, word >>= 8) out[j] = static_cast<unsigned char>(word);
        }
    }

private:
    static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static uint64_t SplitMix64(uint64_t& x)
    {
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

    uint64_t m_state[4];
};

#endif // COINSDB_TOOLS_GEN_RANDOM_H
