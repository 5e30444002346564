#ifndef COINSDB_PRIMITIVES_TRANSACTION_H
#define COINSDB_PRIMITIVES_TRANSACTION_H

#include <primitives/amount.h>
#include <script/script.h>
#include <serialize.h>
#include <uint256.h>

#include <compare>
#include <cstdint>
#include <string>

// A reference to one output of a transaction.
// Byte format (network, undo data): txid (32 bytes, internal order), LE32 n.
class COutPoint
{
public:
    static constexpr uint32_t NULL_INDEX = UINT32_MAX;

    uint256 hash;
    uint32_t n{NULL_INDEX};

    COutPoint() = default;
    COutPoint(const uint256& txid, uint32_t index) : hash{txid}, n{index} {}

    bool IsNull() const { return hash.IsNull() && n == NULL_INDEX; }
    std::string ToString() const;

    friend auto operator<=>(const COutPoint&, const COutPoint&) = default;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        hash.Serialize(s);
        WriteLE(s, n);
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        hash.Unserialize(s);
        n = ReadLE<uint32_t>(s);
    }
};

// A transaction output: an amount locked by a script.
// Byte format (network): LE64 value, CompactSize script length, script.
// The chainstate stores it compressed instead (see compressor.h).
class CTxOut
{
public:
    CAmount nValue{-1};
    CScript scriptPubKey;

    CTxOut() = default;
    CTxOut(CAmount value, CScript script) : nValue{value}, scriptPubKey{std::move(script)} {}

    // The "null" output marks a spent Coin.
    void SetNull()
    {
        nValue = -1;
        // Give the heap block back: clear() would keep it, and a spent cache
        // entry must cost no script memory.
        CScript{}.swap(scriptPubKey);
    }
    bool IsNull() const { return nValue == -1; }

    friend bool operator==(const CTxOut&, const CTxOut&) = default;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE(s, nValue);
        ::Serialize(s, static_cast<const std::vector<unsigned char>&>(scriptPubKey));
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        nValue = ReadLE<int64_t>(s);
        ::Unserialize(s, static_cast<std::vector<unsigned char>&>(scriptPubKey));
    }
};

#endif // COINSDB_PRIMITIVES_TRANSACTION_H
