#ifndef COINSDB_CRYPTO_SHA256_H
#define COINSDB_CRYPTO_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

// Incremental SHA-256 backed by OpenSSL's libcrypto. The OpenSSL context type
// stays in the .cpp file so that no caller sees OpenSSL headers.
class CSHA256
{
public:
    static constexpr size_t OUTPUT_SIZE = 32;

    CSHA256();
    ~CSHA256();
    CSHA256(CSHA256&&) noexcept;
    CSHA256& operator=(CSHA256&&) noexcept;
    CSHA256(const CSHA256&) = delete;
    CSHA256& operator=(const CSHA256&) = delete;

    CSHA256& Write(std::span<const unsigned char> data);
    // Writes the digest and resets the object for reuse.
    void Finalize(std::span<unsigned char, OUTPUT_SIZE> out);
    CSHA256& Reset();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

std::array<unsigned char, 32> Sha256(std::span<const unsigned char> data);

#endif // COINSDB_CRYPTO_SHA256_H
