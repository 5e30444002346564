#ifndef COINSDB_CRYPTO_RANDOM_H
#define COINSDB_CRYPTO_RANDOM_H

#include <cstdint>
#include <span>

// Unpredictable bytes from OpenSSL's CSPRNG: obfuscation keys, hash salts,
// RPC cookies. Throws if the generator cannot be seeded.
void GetRandBytes(std::span<unsigned char> out);
uint64_t GetRandUint64();

#endif // COINSDB_CRYPTO_RANDOM_H
