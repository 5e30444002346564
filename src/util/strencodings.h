#ifndef COINSDB_UTIL_STRENCODINGS_H
#define COINSDB_UTIL_STRENCODINGS_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

std::string HexStr(std::span<const unsigned char> bytes);
inline std::string HexStr(std::span<const std::byte> bytes)
{
    return HexStr(std::span{reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
}

// Parses an even-length string of hex digits. Returns nullopt on any other input.
std::optional<std::vector<unsigned char>> TryParseHex(std::string_view hex);

// Parses a decimal integer that fills the whole string. Returns nullopt on
// signs where unsigned, stray characters or overflow.
std::optional<int64_t> ParseInt64(std::string_view text);
std::optional<uint64_t> ParseUInt64(std::string_view text);

#endif // COINSDB_UTIL_STRENCODINGS_H
