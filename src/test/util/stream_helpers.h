#ifndef COINSDB_TEST_UTIL_STREAM_HELPERS_H
#define COINSDB_TEST_UTIL_STREAM_HELPERS_H

// Small helpers for tests that compare serialized bytes with hex literals
// or byte vectors and check the exact reason of a std::ios_base::failure.

#include <streams.h>
#include <util/strencodings.h>

#include <ios>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

// Parses a hex literal written in a test; a typo in the literal is a test bug.
inline std::vector<unsigned char> ParseHexOrThrow(std::string_view hex)
{
    auto bytes = TryParseHex(hex);
    if (!bytes) throw std::invalid_argument("bad hex literal in test: " + std::string{hex});
    return *bytes;
}

// Hex of the bytes a stream still holds.
inline std::string UnreadHex(const DataStream& stream) { return HexStr(stream.Unread()); }

// Hex of what value serializes to.
template <typename T>
std::string SerializedHex(const T& value)
{
    DataStream stream;
    stream << value;
    return UnreadHex(stream);
}

// The bytes value serializes to.
template <typename T>
std::vector<unsigned char> Serialized(const T& value)
{
    DataStream stream;
    stream << value;
    const auto bytes = stream.Unread();
    const auto* begin = reinterpret_cast<const unsigned char*>(bytes.data());
    return {begin, begin + bytes.size()};
}

// Predicate for BOOST_CHECK_EXCEPTION: the failure carries exactly `reason`.
// std::ios_base::failure is a std::system_error, so libstdc++ appends
// ": <io_errc::stream message>" to what(); that suffix is the standard
// library's, not ours, and is accepted.
class HasReason
{
public:
    explicit HasReason(std::string reason) : m_reason{std::move(reason)} {}

    bool operator()(const std::exception& e) const
    {
        const std::string what{e.what()};
        const std::string suffix = ": " + std::make_error_code(std::io_errc::stream).message();
        return what == m_reason || what == m_reason + suffix;
    }

private:
    std::string m_reason;
};

#endif // COINSDB_TEST_UTIL_STREAM_HELPERS_H
