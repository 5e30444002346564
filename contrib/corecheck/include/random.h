#ifndef CORECHECK_RANDOM_H
#define CORECHECK_RANDOM_H

// Adapts: Bitcoin Core's <random.h>, for Core's test files and for
// test/util/random.cpp, which Core's test utilities need. The subset they
// use: FastRandomContext (rand32/rand64/randbits/randrange/randbool/
// rand256/randbytes, Reseed), the RandomNumberGenerator concept,
// GetRandHash and the deterministic-seeding hook. Our own generator
// (xoshiro256**, seeded through SplitMix64): Core's is ChaCha20, but the
// tests need a good, seedable stream, not Core's exact one.

#include <uint256.h>

#include <atomic>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

template <typename T>
concept RandomNumberGenerator = requires(std::remove_reference_t<T>& rng) {
    { rng.rand64() } -> std::same_as<uint64_t>;
};

class FastRandomContext
{
public:
    // Not deterministic: seeded from GetRandHash(), which is itself
    // deterministic once MakeRandDeterministicDANGEROUS was called (tests).
    explicit FastRandomContext(bool deterministic = false) noexcept;
    explicit FastRandomContext(const uint256& seed) noexcept { Reseed(seed); }

    void Reseed(const uint256& seed) noexcept;

    uint64_t rand64() noexcept;
    uint32_t rand32() noexcept { return static_cast<uint32_t>(rand64() >> 32); }
    bool randbool() noexcept { return rand64() >> 63; }
    uint64_t randbits(int bits) noexcept { return bits == 0 ? 0 : rand64() >> (64 - bits); }
    template <std::integral I>
    I randrange(I range) noexcept
    {
        // Rejection sampling over the smallest power of two covering range.
        const uint64_t max{static_cast<uint64_t>(range) - 1};
        const int bits{max == 0 ? 0 : 64 - std::countl_zero(max)};
        while (true) {
            const uint64_t value{randbits(bits)};
            if (value <= max) return static_cast<I>(value);
        }
    }
    uint256 rand256() noexcept;
    template <typename B = unsigned char>
    std::vector<B> randbytes(size_t len) noexcept
    {
        std::vector<B> out(len);
        for (auto& b : out) b = static_cast<B>(rand64());
        return out;
    }

    // For std::shuffle and the like.
    using result_type = uint64_t;
    static constexpr uint64_t min() { return 0; }
    static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
    uint64_t operator()() noexcept { return rand64(); }

private:
    uint64_t m_state[4];
};

// 32 random bytes: from the operating system, or from the test seed after
// MakeRandDeterministicDANGEROUS.
uint256 GetRandHash() noexcept;
// Makes GetRandHash (and so every FastRandomContext not given a seed)
// deterministic from `seed`. Declared again by Core's test/util/random.cpp.
void MakeRandDeterministicDANGEROUS(const uint256& seed) noexcept;
// Set once anything drew from the global generator (Core's name).
extern std::atomic<bool> g_used_g_prng;

#endif // CORECHECK_RANDOM_H
