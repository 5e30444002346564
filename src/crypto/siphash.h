#ifndef COINSDB_CRYPTO_SIPHASH_H
#define COINSDB_CRYPTO_SIPHASH_H

#include <cstdint>
#include <span>

// SipHash-2-4 (Aumasson and Bernstein), keyed with two 64-bit words.
// General form over bytes, used by tests against the paper's vectors, and a
// fixed-shape form for the hot path of the coins cache: a 32-byte txid plus a
// 32-bit output index, hashed without building a buffer.
uint64_t SipHash24(uint64_t k0, uint64_t k1, std::span<const unsigned char> data);

// Equals SipHash24(k0, k1, txid || LE32(n) padded as upstream's
// SipHashUint256Extra: the four txid words, then the index in the final word).
uint64_t SipHashUint256Extra(uint64_t k0, uint64_t k1, const unsigned char* txid32, uint32_t n);

#endif // COINSDB_CRYPTO_SIPHASH_H
