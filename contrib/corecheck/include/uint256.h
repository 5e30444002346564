#ifndef CORECHECK_UINT256_H
#define CORECHECK_UINT256_H

// Adapts: Core's uint256.h also defines uint160 (key and script hashes),
// which coinsdb, holding no keys or addresses, does not need.

#include_next <uint256.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <compare>
#include <cstddef>
#include <span>
#include <string>

class uint160
{
public:
    static constexpr size_t SIZE = 20;

    constexpr uint160() = default;
    explicit uint160(std::span<const unsigned char> bytes)
    {
        assert(bytes.size() == SIZE);
        std::ranges::copy(bytes, m_data.begin());
    }

    unsigned char* data() { return m_data.data(); }
    const unsigned char* data() const { return m_data.data(); }
    unsigned char* begin() { return m_data.data(); }
    unsigned char* end() { return m_data.data() + SIZE; }
    const unsigned char* begin() const { return m_data.data(); }
    const unsigned char* end() const { return m_data.data() + SIZE; }
    static constexpr size_t size() { return SIZE; }

    friend auto operator<=>(const uint160&, const uint160&) = default;

private:
    std::array<unsigned char, SIZE> m_data{};
};

#endif // CORECHECK_UINT256_H
