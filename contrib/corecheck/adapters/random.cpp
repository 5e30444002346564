// Our implementation of the <random.h> adapter (include/random.h):
// xoshiro256** with SplitMix64 seeding, and the global seed Core's
// test/util/random.cpp sets through MakeRandDeterministicDANGEROUS.

#include <random.h>

#include <crypto/random.h>

#include <array>
#include <bit>
#include <cstring>
#include <mutex>
#include <optional>

std::atomic<bool> g_used_g_prng{false};

namespace {

std::mutex g_mutex;
// Set by MakeRandDeterministicDANGEROUS: GetRandHash then draws from it.
std::optional<FastRandomContext> g_deterministic;

uint64_t SplitMix64(uint64_t& x)
{
    uint64_t z{x += 0x9e3779b97f4a7c15};
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
}

} // namespace

FastRandomContext::FastRandomContext(bool deterministic) noexcept
{
    Reseed(deterministic ? uint256{} : GetRandHash());
}

void FastRandomContext::Reseed(const uint256& seed) noexcept
{
    // Each state word mixes the seed's four words, so any seed (zero
    // included) gives a non-zero, well-spread state.
    uint64_t x{seed.GetUint64(0) ^ seed.GetUint64(1) * 3 ^ seed.GetUint64(2) * 5 ^ seed.GetUint64(3) * 7};
    for (int i = 0; i < 4; ++i) m_state[i] = SplitMix64(x) ^ seed.GetUint64(i);
    if ((m_state[0] | m_state[1] | m_state[2] | m_state[3]) == 0) m_state[0] = 1;
}

uint64_t FastRandomContext::rand64() noexcept
{
    const uint64_t result{std::rotl(m_state[1] * 5, 7) * 9};
    const uint64_t t{m_state[1] << 17};
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = std::rotl(m_state[3], 45);
    return result;
}

uint256 FastRandomContext::rand256() noexcept
{
    std::array<unsigned char, uint256::SIZE> bytes;
    for (size_t i = 0; i < bytes.size(); i += 8) {
        const uint64_t word{rand64()};
        std::memcpy(bytes.data() + i, &word, 8);
    }
    return uint256{bytes};
}

uint256 GetRandHash() noexcept
{
    g_used_g_prng = true;
    {
        std::lock_guard lock{g_mutex};
        if (g_deterministic) return g_deterministic->rand256();
    }
    std::array<unsigned char, uint256::SIZE> bytes;
    GetRandBytes(bytes);
    return uint256{bytes};
}

void MakeRandDeterministicDANGEROUS(const uint256& seed) noexcept
{
    std::lock_guard lock{g_mutex};
    g_deterministic.emplace(seed);
}
