#ifndef COINSDB_CRYPTO_SHA256_H
#define COINSDB_CRYPTO_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

// Incremental SHA-256 backed by OpenSSL's libcrypto. OpenSSL's context lives
// inside the object, as plain bytes: no allocation per hasher, and no caller
// sees OpenSSL headers (the .cpp file checks that it fits). Copying a
// hasher copies its midstate.
class CSHA256
{
public:
    static constexpr size_t OUTPUT_SIZE = 32;
    // sizeof(SHA256_CTX) is 112 bytes on every platform OpenSSL 3 builds for.
    static constexpr size_t STATE_BYTES = 128;

    CSHA256();

    CSHA256& Write(std::span<const unsigned char> data);
    // Writes the digest and resets the object for reuse.
    void Finalize(std::span<unsigned char, OUTPUT_SIZE> out);
    CSHA256& Reset();

private:
    alignas(std::max_align_t) std::byte m_state[STATE_BYTES];
};

std::array<unsigned char, 32> Sha256(std::span<const unsigned char> data);

#endif // COINSDB_CRYPTO_SHA256_H
