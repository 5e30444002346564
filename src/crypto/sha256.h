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

// SHA256d of each of `count` 64-byte inputs, the digests written 32 bytes
// apart: a merkle tree's level at once. Four inputs go through SHA-256's
// rounds side by side where the CPU has the SHA extensions
// (crypto/sha256_lanes.h), one at a time through OpenSSL elsewhere. `out`
// may be `in`: every input is read before its digest's bytes are written.
void Sha256D64(unsigned char* out, const unsigned char* in, size_t count);

#endif // COINSDB_CRYPTO_SHA256_H
