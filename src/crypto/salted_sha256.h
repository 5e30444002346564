#ifndef COINSDB_CRYPTO_SALTED_SHA256_H
#define COINSDB_CRYPTO_SALTED_SHA256_H

#include <array>
#include <cstddef>
#include <memory>
#include <span>

// SHA-256 of a fixed 32-byte salt followed by a short message, for hashing
// millions of small messages under one salt (SwiftSync's aggregate hashes
// every outpoint a replay creates or spends). The salt is absorbed once;
// each message then starts from a copy of that state.
class SaltedSha256
{
public:
    static constexpr size_t SALT_SIZE = 32;
    static constexpr size_t OUTPUT_SIZE = 32;

    explicit SaltedSha256(std::span<const unsigned char, SALT_SIZE> salt);
    ~SaltedSha256();
    SaltedSha256(const SaltedSha256&) = delete;
    SaltedSha256& operator=(const SaltedSha256&) = delete;

    // SHA-256(salt || message). Thread-safe: the salted state is only read.
    std::array<unsigned char, OUTPUT_SIZE> Hash(std::span<const unsigned char> message) const;

    // The longest message HashEach takes: salt, message and padding in
    // MAX_BLOCKS of SHA-256's 64-byte blocks.
    static constexpr size_t MAX_BLOCKS = 4;
    static constexpr size_t MAX_EACH_SIZE = 64 * MAX_BLOCKS - SALT_SIZE - 9;

    // Hash() of each message_size-byte message stored back to back in
    // `messages`, the digests written back to back to `out`: four messages
    // through SHA-256's rounds side by side where the CPU has the SHA
    // extensions (crypto/sha256_lanes.h), one at a time elsewhere. With a
    // 32-byte salt no block holds the salt alone, so lanes, not a shared
    // midstate, are what batching saves. Thread-safe.
    void HashEach(std::span<const unsigned char> messages, size_t message_size, std::span<unsigned char> out) const;

private:
    struct State;
    std::unique_ptr<State> m_salted;
};

#endif // COINSDB_CRYPTO_SALTED_SHA256_H
