#ifndef COINSDB_PRIMITIVES_BLOCK_H
#define COINSDB_PRIMITIVES_BLOCK_H

#include <primitives/transaction.h>
#include <serialize.h>
#include <streams.h>
#include <uint256.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

// A block header. The block hash is SHA256d of exactly these 80 bytes.
//
// Byte format (network, block files, headers.txt of the test vectors):
//   LE32 nVersion | hashPrevBlock (32, internal order) | hashMerkleRoot (32)
//   | LE32 nTime | LE32 nBits | LE32 nNonce
class CBlockHeader
{
public:
    static constexpr size_t SIZE = 80;

    int32_t nVersion{0};
    uint256 hashPrevBlock;
    uint256 hashMerkleRoot;
    uint32_t nTime{0};
    uint32_t nBits{0};
    uint32_t nNonce{0};

    // A real header always has a difficulty target, so nBits == 0 marks "unset".
    bool IsNull() const { return nBits == 0; }
    uint256 GetHash() const;
    int64_t GetBlockTime() const { return nTime; }

    friend bool operator==(const CBlockHeader&, const CBlockHeader&) = default;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE(s, nVersion);
        hashPrevBlock.Serialize(s);
        hashMerkleRoot.Serialize(s);
        WriteLE(s, nTime);
        WriteLE(s, nBits);
        WriteLE(s, nNonce);
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        nVersion = ReadLE<int32_t>(s);
        hashPrevBlock.Unserialize(s);
        hashMerkleRoot.Unserialize(s);
        nTime = ReadLE<uint32_t>(s);
        nBits = ReadLE<uint32_t>(s);
        nNonce = ReadLE<uint32_t>(s);
    }
};

// A block: its header and its transactions, the coinbase first.
//
// Byte format: the 80-byte header, CompactSize transaction count, then each
// transaction in its BIP144 form (see primitives/transaction.h). In a block
// file (blk?????.dat) every block is preceded by the 4-byte network magic and
// an LE32 size; that framing belongs to whoever reads the file, not here.
class CBlock : public CBlockHeader
{
public:
    std::vector<CTransactionRef> vtx;
    // Set by kernel::CheckBlock when the block passes, so connecting a block
    // that was checked on arrival does not hash and check it again (Core's
    // fChecked). Whoever changes vtx or the header after a check resets it;
    // reading a block clears it. Not serialized.
    mutable bool m_checked{false};

    CBlock() = default;
    explicit CBlock(const CBlockHeader& header) : CBlockHeader{header} {}

    CBlockHeader GetBlockHeader() const { return *this; }

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        CBlockHeader::Serialize(s);
        WriteCompactSize(s, vtx.size());
        for (const CTransactionRef& tx : vtx) tx->Serialize(s);
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        m_checked = false;
        CBlockHeader::Unserialize(s);
        const uint64_t count = ReadCompactSize(s);
        vtx.clear();
        // Grow as transactions arrive instead of trusting the count with memory.
        for (uint64_t i = 0; i < count; ++i) {
            CMutableTransaction tx;
            if constexpr (std::is_same_v<Stream, SpanReader>) {
                // The block's bytes are in memory: hash each transaction from
                // them rather than serializing it again (blocks read from
                // disk all come this way).
                const std::span<const std::byte> from{s.remaining()};
                tx.Unserialize(s);
                vtx.push_back(std::make_shared<const CTransaction>(std::move(tx), from.first(from.size() - s.size())));
            } else {
                tx.Unserialize(s);
                vtx.push_back(MakeTransactionRef(std::move(tx)));
            }
        }
    }
};

#endif // COINSDB_PRIMITIVES_BLOCK_H
