#ifndef COINSDB_HASH_H
#define COINSDB_HASH_H

#include <crypto/sha256.h>
#include <serialize.h>
#include <uint256.h>

#include <span>

// A stream that feeds everything serialized into it to SHA-256. GetHash()
// returns SHA256d (SHA-256 of the SHA-256), Bitcoin's txid, block hash and
// hash_serialized_3 construction.
class HashWriter
{
public:
    void write(std::span<const std::byte> bytes)
    {
        m_sha.Write(std::span{reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
    }

    uint256 GetHash()
    {
        std::array<unsigned char, 32> once;
        m_sha.Finalize(once);
        std::array<unsigned char, 32> twice;
        m_sha.Write(once).Finalize(twice);
        return uint256{twice};
    }

    // Plain SHA-256 of what was written.
    uint256 GetSHA256()
    {
        std::array<unsigned char, 32> out;
        m_sha.Finalize(out);
        return uint256{out};
    }

    template <typename T>
    HashWriter& operator<<(const T& obj)
    {
        Serialize(*this, obj);
        return *this;
    }

private:
    CSHA256 m_sha;
};

inline uint256 Hash256(std::span<const std::byte> data)
{
    HashWriter writer;
    writer.write(data);
    return writer.GetHash();
}

inline uint256 Hash256(std::span<const unsigned char> data) { return Hash256(std::as_bytes(data)); }

#endif // COINSDB_HASH_H
