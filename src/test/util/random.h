#ifndef COINSDB_TEST_UTIL_RANDOM_H
#define COINSDB_TEST_UTIL_RANDOM_H

#include <uint256.h>

#include <array>
#include <cstdint>
#include <random>

// Random data for the randomized tests. Modulo instead of
// std::*_distribution so that a seed gives the same run with every
// standard library.
class TestRand
{
public:
    explicit TestRand(uint64_t seed) : m_rng{seed} {}

    uint64_t Next() { return m_rng(); }
    uint64_t Below(uint64_t n) { return m_rng() % n; }
    bool OneIn(uint64_t n) { return Below(n) == 0; }
    bool Bool() { return m_rng() & 1; }

    uint256 Hash()
    {
        std::array<unsigned char, uint256::SIZE> bytes;
        for (auto& byte : bytes) byte = static_cast<unsigned char>(m_rng());
        return uint256{bytes};
    }

private:
    std::mt19937_64 m_rng;
};

#endif // COINSDB_TEST_UTIL_RANDOM_H
