#ifndef COINSDB_CRYPTO_MUHASH_H
#define COINSDB_CRYPTO_MUHASH_H

#include <array>
#include <cstdint>
#include <memory>
#include <span>

// MuHash3072, the rolling set hash of gettxoutsetinfo's "muhash", with
// Bitcoin Core's byte format:
//
//   p        = 2^3072 - 1103717 (prime)
//   element  = ChaCha20 keystream (RFC 8439, key = SHA256(data), nonce 0,
//              block counter 0), 384 bytes read as a little-endian number
//   state    = numerator / denominator (mod p): Insert multiplies the
//              numerator by an element, Remove the denominator
//   Finalize = SHA256 of (numerator * denominator^-1 mod p) written as 384
//              little-endian bytes
//
// The order of inserts does not matter, and inserting then removing the
// same data leaves the hash unchanged. Arithmetic is OpenSSL's BIGNUM,
// hidden here like every other OpenSSL type.
class MuHash3072
{
public:
    static constexpr size_t BYTE_SIZE{384};

    MuHash3072();
    ~MuHash3072();
    MuHash3072(MuHash3072&&) noexcept;
    MuHash3072& operator=(MuHash3072&&) noexcept;
    MuHash3072(const MuHash3072&) = delete;
    MuHash3072& operator=(const MuHash3072&) = delete;

    MuHash3072& Insert(std::span<const unsigned char> data);
    MuHash3072& Remove(std::span<const unsigned char> data);
    // Combines another set's state into this one (set union).
    MuHash3072& operator*=(const MuHash3072& other);
    // The 32-byte digest, in the order a uint256 holds it.
    std::array<unsigned char, 32> Finalize() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

#endif // COINSDB_CRYPTO_MUHASH_H
