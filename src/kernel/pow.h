#ifndef COINSDB_KERNEL_POW_H
#define COINSDB_KERNEL_POW_H

// Proof of work: a block's hash, read as a 256-bit number, must not exceed
// the target its header's nBits claims, and that target must not be easier
// than the chain's pow limit.
//
// nBits, the "compact" target (a 32-bit floating-point number):
//   exponent = nBits >> 24 (size in bytes), mantissa = nBits & 0x007fffff,
//   target = mantissa * 256^(exponent - 3)   (mantissa >> 8 * (3 - exponent)
//                                              when exponent < 3)
//   Bit 0x00800000 is a sign: with a non-zero mantissa the target is
//   negative. A target that needs more than 256 bits overflows. Negative,
//   overflowing and zero targets are invalid, and a target above the pow
//   limit is too easy.
//   Example: 0x1d00ffff = 0xffff * 256^26 = 00000000ffff0000...0000 (main's
//   difficulty 1); regtest's 0x207fffff = 7fffff0000...0000.
//
// Hash and limits as numbers: a uint256's 32 internal bytes are the number
// little-endian, so its usual (reversed) hex reads as the number in the
// usual big-endian notation.

#include <uint256.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>

// Unsigned 256-bit arithmetic wrapping modulo 2^256, header-only from Boost.
// Used for targets and chain work; uint256 stays the type of hashes.
using arith_uint256 = boost::multiprecision::uint256_t;

arith_uint256 UintToArith256(const uint256& hash);
uint256 ArithToUint256(const arith_uint256& value);

struct CompactTarget {
    arith_uint256 target;
    bool negative{false};
    bool overflow{false};
};

// Decodes nBits as above; target is meaningful only when neither flag is set.
CompactTarget DecodeCompact(uint32_t n_bits);

// True when the target nBits encodes is valid, not above pow_limit, and hash
// does not exceed it.
bool CheckProofOfWork(const uint256& hash, uint32_t n_bits, const uint256& pow_limit);

// Expected number of hashes to find a block with this target:
// 2^256 / (target + 1), computed as ~target / (target + 1) + 1 since 2^256
// does not fit. 0 for an invalid target. Summed over a chain it is the
// chain work that decides between forks.
arith_uint256 GetBlockProof(uint32_t n_bits);

#endif // COINSDB_KERNEL_POW_H
