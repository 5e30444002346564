#ifndef COINSDB_CRYPTO_SHA256_LANES_H
#define COINSDB_CRYPTO_SHA256_LANES_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

// SHA-256's compression function applied to several independent blocks at
// once, with the x86 SHA extensions.
//
// A block's 64 rounds are 32 SHA256RNDS2 instructions, each waiting for the
// one before it, so hashing one message at a time (OpenSSL's SHA256_Update)
// leaves the unit idle for most of every instruction's latency. Running up
// to MAX_LANES unrelated blocks through the rounds side by side fills those
// waits: the replays hash millions of short fixed-size messages (merkle
// nodes, SwiftSync's salted outpoints) that can be batched this way.
//
// States are the eight 32-bit words a..h of FIPS 180-4, host order. Callers
// check Available() and keep OpenSSL for CPUs without the extensions.
namespace sha256_lanes {

constexpr size_t BLOCK_SIZE = 64;
constexpr size_t MAX_LANES = 4;

using State = std::array<uint32_t, 8>;

// FIPS 180-4's initial hash value.
inline constexpr State INITIAL_STATE{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// Whether this CPU has the SHA extensions (and the SSE4.1 they are used with).
bool Available();

// Compresses blocks[i] (64 bytes each) into states[i] for i < lanes,
// 1 <= lanes <= MAX_LANES. Only when Available().
void Compress(State* states, const unsigned char* const* blocks, size_t lanes);

// The digest bytes of a final state (each word big-endian).
void WriteDigest(const State& state, unsigned char* out);

// FIPS 180-4's padding, written into `tail`: the padded message's last
// whole blocks, holding the message's last `rest` bytes at their start and
// zeros after them. Puts 0x80 after those bytes and the message's length in
// bits, 64-bit big-endian, in the tail's last 8 bytes.
constexpr void Pad(std::span<unsigned char> tail, size_t rest, uint64_t message_bytes)
{
    tail[rest] = 0x80;
    for (size_t i = 0; i < 8; ++i) tail[tail.size() - 1 - i] = static_cast<unsigned char>(message_bytes * 8 >> (8 * i));
}

} // namespace sha256_lanes

#endif // COINSDB_CRYPTO_SHA256_LANES_H
