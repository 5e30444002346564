#ifndef COINSDB_CRYPTO_HMAC_SHA256_H
#define COINSDB_CRYPTO_HMAC_SHA256_H

#include <array>
#include <span>

// HMAC-SHA-256 (RFC 2104 over SHA-256), one shot, from OpenSSL's libcrypto.
// -rpcauth stores HMAC(key = salt, message = password) in hex.
std::array<unsigned char, 32> HmacSha256(std::span<const unsigned char> key, std::span<const unsigned char> message);

#endif // COINSDB_CRYPTO_HMAC_SHA256_H
