#include <uint256.h>

#include <util/strencodings.h>

std::optional<uint256> uint256::FromHex(std::string_view hex)
{
    if (hex.size() != 2 * SIZE) return std::nullopt;
    auto bytes = TryParseHex(hex);
    if (!bytes) return std::nullopt;
    std::ranges::reverse(*bytes);
    return uint256{std::span<const unsigned char, SIZE>{bytes->data(), SIZE}};
}

std::optional<uint256> uint256::FromUserHex(std::string_view hex)
{
    if (hex.starts_with("0x")) hex.remove_prefix(2);
    if (hex.size() > 2 * SIZE) return std::nullopt;
    std::string padded(2 * SIZE - hex.size(), '0');
    padded += hex;
    return FromHex(padded);
}

std::string uint256::GetHex() const
{
    std::array<unsigned char, SIZE> reversed;
    std::ranges::reverse_copy(m_data, reversed.begin());
    return HexStr(reversed);
}
