#ifndef COINSDB_UINT256_H
#define COINSDB_UINT256_H

#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

// A 256-bit hash (txid, block hash, hash_serialized_3).
//
// Byte format: the 32 bytes are kept, compared and serialized in internal
// order, exactly as the hash function produced them. Hex for humans is the
// reverse of that order: byte 31 is printed first. So the regtest genesis
// hash 0f9188f1...206 is stored starting with the byte 0x06.
class uint256
{
public:
    static constexpr size_t SIZE = 32;

    constexpr uint256() = default;
    explicit uint256(std::span<const unsigned char, SIZE> bytes) { std::ranges::copy(bytes, m_data.begin()); }
    // Stored byte 0 is `v`, the others 0: uint256{1} prints as 00..01 (Core's).
    constexpr explicit uint256(uint8_t v) : m_data{v} {}

    static const uint256 ZERO;
    static const uint256 ONE;

    // Reverse-order hex as shown by RPCs; nullopt unless exactly 64 hex digits.
    static std::optional<uint256> FromHex(std::string_view hex);
    // As typed by a user (Core's FromUserHex): an optional "0x", then up to
    // 64 hex digits, the missing leading ones taken as 0. nullopt otherwise.
    static std::optional<uint256> FromUserHex(std::string_view hex);
    std::string GetHex() const;
    std::string ToString() const { return GetHex(); }

    bool IsNull() const { return std::ranges::all_of(m_data, [](unsigned char b) { return b == 0; }); }
    void SetNull() { m_data.fill(0); }

    unsigned char* data() { return m_data.data(); }
    const unsigned char* data() const { return m_data.data(); }
    unsigned char* begin() { return m_data.data(); }
    unsigned char* end() { return m_data.data() + SIZE; }
    const unsigned char* begin() const { return m_data.data(); }
    const unsigned char* end() const { return m_data.data() + SIZE; }
    static constexpr size_t size() { return SIZE; }

    // Little-endian 64-bit word `index` (0..3) of the internal bytes.
    uint64_t GetUint64(int index) const
    {
        uint64_t word;
        std::memcpy(&word, m_data.data() + 8 * index, 8);
        return word;
    }

    friend auto operator<=>(const uint256&, const uint256&) = default;
    // Four word compares, inlined: the defaulted equality is a call to
    // memcmp, and the coins map compares a key at every entry it probes.
    friend bool operator==(const uint256& a, const uint256& b)
    {
        return ((a.GetUint64(0) ^ b.GetUint64(0)) | (a.GetUint64(1) ^ b.GetUint64(1)) |
                (a.GetUint64(2) ^ b.GetUint64(2)) | (a.GetUint64(3) ^ b.GetUint64(3))) == 0;
    }

    template <typename Stream>
    void Serialize(Stream& s) const { s.write(std::as_bytes(std::span{m_data})); }
    template <typename Stream>
    void Unserialize(Stream& s) { s.read(std::as_writable_bytes(std::span{m_data})); }

private:
    std::array<unsigned char, SIZE> m_data{};
};

inline constexpr uint256 uint256::ZERO{uint8_t{0}};
inline constexpr uint256 uint256::ONE{uint8_t{1}};

#endif // COINSDB_UINT256_H
