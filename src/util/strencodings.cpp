#include <util/strencodings.h>

#include <charconv>

namespace {
int HexDigitValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

template <typename Int>
std::optional<Int> ParseWhole(std::string_view text)
{
    Int value{};
    if (text.empty()) return std::nullopt;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end) return std::nullopt;
    return value;
}
} // namespace

std::string HexStr(std::span<const unsigned char> bytes)
{
    static constexpr char DIGITS[] = "0123456789abcdef";
    std::string out(bytes.size() * 2, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) {
        out[2 * i] = DIGITS[bytes[i] >> 4];
        out[2 * i + 1] = DIGITS[bytes[i] & 0x0f];
    }
    return out;
}

std::optional<std::vector<unsigned char>> TryParseHex(std::string_view hex)
{
    if (hex.size() % 2 != 0) return std::nullopt;
    std::vector<unsigned char> out;
    out.reserve(hex.size() / 2);
    for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = HexDigitValue(hex[i]);
        const int lo = HexDigitValue(hex[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out.push_back(static_cast<unsigned char>((hi << 4) | lo));
    }
    return out;
}

std::optional<int64_t> ParseInt64(std::string_view text) { return ParseWhole<int64_t>(text); }
std::optional<uint64_t> ParseUInt64(std::string_view text) { return ParseWhole<uint64_t>(text); }
