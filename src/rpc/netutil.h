#ifndef COINSDB_RPC_NETUTIL_H
#define COINSDB_RPC_NETUTIL_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sockaddr;

// Splits "host", "host:port", "[v6]:port" or a bare IPv6 address ("::1",
// which has several colons and so no port). port is left unchanged when the
// input names none. Returns false for a port that is not 1..65535.
bool SplitHostPort(std::string_view input, std::string& host, uint16_t& port);

// An address or network for -rpcallowip: "1.2.3.4", "1.2.3.0/24",
// "1.2.3.0/255.255.255.0", "fe80::/10", "::1". IPv4 is kept as an
// IPv4-mapped IPv6 address so one comparison covers both families.
class AllowedSubnet
{
public:
    static std::optional<AllowedSubnet> Parse(std::string_view text);
    bool Contains(const sockaddr* address) const;
    // Loopback (127.0.0.0/8 and ::1), which is always allowed.
    static bool IsLoopback(const sockaddr* address);

private:
    std::array<uint8_t, 16> m_network{};
    std::array<uint8_t, 16> m_mask{};
};

// The address of a peer for log lines: "1.2.3.4:5678" or "[::1]:5678".
std::string FormatSockAddr(const sockaddr* address);

#endif // COINSDB_RPC_NETUTIL_H
