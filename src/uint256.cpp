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

std::string uint256::GetHex() const
{
    std::array<unsigned char, SIZE> reversed;
    std::ranges::reverse_copy(m_data, reversed.begin());
    return HexStr(reversed);
}
