#include <node/rpc/rpcauth_credentials.h>

#include <crypto/hmac_sha256.h>
#include <rpc/auth.h>
#include <util/strencodings.h>

#include <span>

namespace node {
namespace {
std::span<const unsigned char> Bytes(std::string_view text)
{
    return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}
} // namespace

std::optional<std::vector<RpcAuthEntry>> ParseRpcAuth(const std::vector<std::string>& values)
{
    std::vector<RpcAuthEntry> entries;
    for (const std::string& value : values) {
        // Either separator splits, as upstream: three fields or refused.
        std::vector<std::string> fields{""};
        for (const char c : value) {
            if (c == ':' || c == '$') {
                fields.emplace_back();
            } else {
                fields.back() += c;
            }
        }
        if (fields.size() != 3) return std::nullopt;
        entries.push_back({fields[0], fields[1], fields[2]});
    }
    return entries;
}

bool RpcAuthMatches(const std::vector<RpcAuthEntry>& entries, std::string_view user_pass)
{
    const size_t colon = user_pass.find(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view user = user_pass.substr(0, colon);
    const std::string_view password = user_pass.substr(colon + 1);
    bool matched = false;
    for (const RpcAuthEntry& entry : entries) {
        const auto mac = HmacSha256(Bytes(entry.salt), Bytes(password));
        const bool same_user = TimingResistantEqual(user, entry.user);
        const bool same_hash = TimingResistantEqual(HexStr(mac), entry.hash);
        matched |= same_user & same_hash;
    }
    return matched;
}

} // namespace node
