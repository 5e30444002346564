#ifndef COINSDB_UTIL_SORT_PREFIX_H
#define COINSDB_UTIL_SORT_PREFIX_H

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>

// The first 8 bytes of a byte string as one big-endian number, zero-padded
// when the string is shorter. Two such numbers compare as the strings'
// first 8 bytes do byte by byte (a shorter string as if padded with zero
// bytes), so a sort of keys can keep this number beside each key and look
// at the keys themselves only when the numbers tie.
inline uint64_t SortPrefix(std::span<const unsigned char> bytes)
{
    std::array<unsigned char, 8> padded{};
    // An empty span's data() may be null, which memcpy must not get.
    if (!bytes.empty()) std::memcpy(padded.data(), bytes.data(), std::min(bytes.size(), padded.size()));
    uint64_t word;
    std::memcpy(&word, padded.data(), sizeof(word));
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    return word;
}

#endif // COINSDB_UTIL_SORT_PREFIX_H
