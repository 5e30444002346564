#ifndef CORECHECK_PUBKEY_H
#define CORECHECK_PUBKEY_H

// Adapts: Core's pubkey.h, the part compress_tests uses: CPubKey (a
// serialized public key, its validity checks, its id), XOnlyPubKey (an x
// coordinate) and CKeyID. coinsdb parses public keys only inside its
// script compression; these sit on the same libsecp256k1.

#include <uint256.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <vector>

class CKeyID : public uint160
{
public:
    CKeyID() = default;
    explicit CKeyID(const uint160& hash) : uint160{hash} {}
};

class CPubKey
{
public:
    static constexpr size_t SIZE = 65;
    static constexpr size_t COMPRESSED_SIZE = 33;

    CPubKey() = default;
    explicit CPubKey(std::span<const unsigned char> bytes);

    // The length the header byte announces matches the data (Core's IsValid).
    bool IsValid() const { return m_size > 0; }
    // A point on the curve.
    bool IsFullyValid() const;
    bool IsCompressed() const { return m_size == COMPRESSED_SIZE; }
    CKeyID GetID() const;

    size_t size() const { return m_size; }
    const unsigned char* data() const { return m_bytes.data(); }
    const unsigned char* begin() const { return m_bytes.data(); }
    const unsigned char* end() const { return m_bytes.data() + m_size; }
    unsigned char operator[](size_t i) const { return m_bytes[i]; }

private:
    std::array<unsigned char, SIZE> m_bytes{};
    size_t m_size{0};
};

class XOnlyPubKey
{
public:
    XOnlyPubKey() = default;
    explicit XOnlyPubKey(std::span<const unsigned char> bytes);
    explicit XOnlyPubKey(const CPubKey& pubkey);

    // x is the coordinate of a point on the curve.
    bool IsFullyValid() const;

    const unsigned char* begin() const { return m_x.data(); }
    const unsigned char* end() const { return m_x.data() + m_x.size(); }
    static constexpr size_t size() { return 32; }

private:
    std::array<unsigned char, 32> m_x{};
};

#endif // CORECHECK_PUBKEY_H
