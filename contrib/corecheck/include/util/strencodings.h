#ifndef CORECHECK_UTIL_STRENCODINGS_H
#define CORECHECK_UTIL_STRENCODINGS_H

// Adapts: Core's util/strencodings.h also has the compile-time hex literals
// of util::hex_literals: "..."_hex (std::array<std::byte, N>) and
// "..."_hex_u8 (std::array<uint8_t, N>).

#include_next <util/strencodings.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace util {
namespace detail {
template <size_t N>
struct Hex {
    std::array<std::byte, (N - 1) / 2> bytes{};
    consteval Hex(const char (&hex)[N])
    {
        if ((N - 1) % 2 != 0) throw "hex literal with an odd number of digits";
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::byte(Digit(hex[2 * i]) << 4 | Digit(hex[2 * i + 1]));
    }
    static consteval unsigned Digit(char c)
    {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw "not a hex digit";
    }
};
} // namespace detail

inline namespace hex_literals {
template <detail::Hex str>
constexpr auto operator""_hex() { return str.bytes; }

template <detail::Hex str>
constexpr auto operator""_hex_u8()
{
    std::array<uint8_t, str.bytes.size()> out{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(str.bytes[i]);
    return out;
}
} // namespace hex_literals
} // namespace util

#endif // CORECHECK_UTIL_STRENCODINGS_H
