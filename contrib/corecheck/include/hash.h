#ifndef CORECHECK_HASH_H
#define CORECHECK_HASH_H

// Adapts: Core's hash.h also has Hash160 (RIPEMD-160 of SHA-256), for key
// and script ids; coinsdb never computes one. adapters/key.cpp computes it
// with OpenSSL.

#include_next <hash.h>

#include <uint256.h>

#include <span>

uint160 Hash160(std::span<const unsigned char> data);

#endif // CORECHECK_HASH_H
