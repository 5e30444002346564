#include <rpc/netutil.h>

#include <util/strencodings.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace {

using Bytes16 = std::array<uint8_t, 16>;

// An IPv4 address in the ::ffff:0:0/96 range, as the kernel reports IPv4
// peers on a dual-stack socket.
Bytes16 MapIPv4(const uint8_t* v4)
{
    Bytes16 out{};
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, v4, 4);
    return out;
}

bool IsMappedIPv4(const Bytes16& address)
{
    static constexpr uint8_t PREFIX[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return std::memcmp(address.data(), PREFIX, 12) == 0;
}

std::optional<Bytes16> ParseAddress(const std::string& text)
{
    uint8_t v4[4];
    if (inet_pton(AF_INET, text.c_str(), v4) == 1) return MapIPv4(v4);
    Bytes16 v6;
    if (inet_pton(AF_INET6, text.c_str(), v6.data()) == 1) return v6;
    return std::nullopt;
}

std::optional<Bytes16> ToBytes(const sockaddr* address)
{
    if (!address) return std::nullopt;
    if (address->sa_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
        return MapIPv4(reinterpret_cast<const uint8_t*>(&v4->sin_addr));
    }
    if (address->sa_family == AF_INET6) {
        Bytes16 out;
        std::memcpy(out.data(), &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, 16);
        return out;
    }
    return std::nullopt;
}

Bytes16 PrefixMask(int bits)
{
    Bytes16 mask{};
    for (int i = 0; i < 16; ++i) {
        const int here = std::min(8, std::max(0, bits - 8 * i));
        mask[i] = static_cast<uint8_t>(0xff00 >> here);
    }
    return mask;
}

// A netmask must be some ones followed by zeros.
bool IsContiguous(const Bytes16& mask)
{
    bool seen_zero = false;
    for (const uint8_t byte : mask) {
        for (int bit = 7; bit >= 0; --bit) {
            const bool one = (byte >> bit) & 1;
            if (one && seen_zero) return false;
            seen_zero |= !one;
        }
    }
    return true;
}

} // namespace

bool SplitHostPort(std::string_view input, std::string& host, uint16_t& port)
{
    const auto colon = input.rfind(':');
    const bool bracketed = !input.empty() && input.front() == '[';
    // A colon ends the host only in "[v6]:port" or where it is the only one.
    const bool has_port = colon != std::string_view::npos &&
                          (bracketed ? colon > 0 && input[colon - 1] == ']' : input.find(':') == colon);
    std::string_view host_part = has_port ? input.substr(0, colon) : input;
    if (host_part.size() >= 2 && host_part.front() == '[' && host_part.back() == ']') {
        host_part = host_part.substr(1, host_part.size() - 2);
    }
    host = std::string{host_part};
    if (!has_port) return true;
    const auto value = ParseUInt64(input.substr(colon + 1));
    if (!value || *value == 0 || *value > 65535) return false;
    port = static_cast<uint16_t>(*value);
    return true;
}

std::optional<AllowedSubnet> AllowedSubnet::Parse(std::string_view text)
{
    const auto slash = text.find('/');
    const auto network = ParseAddress(std::string{text.substr(0, slash)});
    if (!network) return std::nullopt;
    const bool is_v4 = IsMappedIPv4(*network);
    AllowedSubnet subnet;
    if (slash == std::string_view::npos) {
        subnet.m_mask = PrefixMask(128);
    } else {
        const std::string_view suffix = text.substr(slash + 1);
        if (const auto bits = ParseUInt64(suffix)) {
            if (*bits > (is_v4 ? 32u : 128u)) return std::nullopt;
            subnet.m_mask = PrefixMask(static_cast<int>(*bits) + (is_v4 ? 96 : 0));
        } else {
            // A dotted netmask, which must be of the same family.
            const auto mask = ParseAddress(std::string{suffix});
            if (!mask || IsMappedIPv4(*mask) != is_v4) return std::nullopt;
            subnet.m_mask = *mask;
            if (is_v4) std::fill(subnet.m_mask.begin(), subnet.m_mask.begin() + 12, 0xff);
            if (!IsContiguous(subnet.m_mask)) return std::nullopt;
        }
    }
    for (int i = 0; i < 16; ++i) subnet.m_network[i] = (*network)[i] & subnet.m_mask[i];
    return subnet;
}

bool AllowedSubnet::Contains(const sockaddr* address) const
{
    const auto bytes = ToBytes(address);
    if (!bytes) return false;
    for (int i = 0; i < 16; ++i) {
        if (((*bytes)[i] & m_mask[i]) != m_network[i]) return false;
    }
    return true;
}

bool AllowedSubnet::IsLoopback(const sockaddr* address)
{
    static const AllowedSubnet V4{*Parse("127.0.0.0/8")};
    static const AllowedSubnet V6{*Parse("::1")};
    return V4.Contains(address) || V6.Contains(address);
}

std::string FormatSockAddr(const sockaddr* address)
{
    const auto bytes = ToBytes(address);
    if (!bytes) return "(unknown)";
    char text[INET6_ADDRSTRLEN] = {};
    uint16_t port = 0;
    if (address->sa_family == AF_INET) {
        port = ntohs(reinterpret_cast<const sockaddr_in*>(address)->sin_port);
    } else {
        port = ntohs(reinterpret_cast<const sockaddr_in6*>(address)->sin6_port);
    }
    if (IsMappedIPv4(*bytes)) {
        inet_ntop(AF_INET, bytes->data() + 12, text, sizeof(text));
        return std::string{text} + ":" + std::to_string(port);
    }
    inet_ntop(AF_INET6, bytes->data(), text, sizeof(text));
    return "[" + std::string{text} + "]:" + std::to_string(port);
}
