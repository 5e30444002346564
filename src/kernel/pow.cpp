#include <kernel/pow.h>

#include <array>

arith_uint256 UintToArith256(const uint256& hash)
{
    arith_uint256 value{0};
    // Most significant 64-bit word first.
    for (int word = 3; word >= 0; --word) {
        value <<= 64;
        value |= hash.GetUint64(word);
    }
    return value;
}

uint256 ArithToUint256(const arith_uint256& value)
{
    std::array<unsigned char, uint256::SIZE> bytes;
    arith_uint256 rest = value;
    for (unsigned char& byte : bytes) {
        byte = static_cast<unsigned char>(rest & 0xff);
        rest >>= 8;
    }
    return uint256{bytes};
}

CompactTarget DecodeCompact(uint32_t n_bits)
{
    const unsigned size = n_bits >> 24;
    uint32_t mantissa = n_bits & 0x007fffff;
    CompactTarget result;
    if (size <= 3) {
        mantissa >>= 8 * (3 - size);
        result.target = mantissa;
    }
    result.negative = mantissa != 0 && (n_bits & 0x00800000) != 0;
    // The mantissa's highest non-zero byte must land inside 32 bytes.
    result.overflow = mantissa != 0 && (size > 34 || (mantissa > 0xff && size > 33) || (mantissa > 0xffff && size > 32));
    // A zero mantissa stays 0 at any exponent; skipping it avoids shifts
    // past 256 bits.
    if (size > 3 && mantissa != 0 && !result.overflow) result.target = arith_uint256{mantissa} << (8 * (size - 3));
    return result;
}

bool CheckProofOfWork(const uint256& hash, uint32_t n_bits, const uint256& pow_limit)
{
    const CompactTarget decoded = DecodeCompact(n_bits);
    if (decoded.negative || decoded.overflow || decoded.target == 0) return false;
    if (decoded.target > UintToArith256(pow_limit)) return false;
    return UintToArith256(hash) <= decoded.target;
}

arith_uint256 GetBlockProof(uint32_t n_bits)
{
    const CompactTarget decoded = DecodeCompact(n_bits);
    if (decoded.negative || decoded.overflow || decoded.target == 0) return 0;
    // A valid target is a mantissa shifted left by whole bytes, so it never
    // reaches 2^256 - 1 and target + 1 cannot wrap.
    return ~decoded.target / (decoded.target + 1) + 1;
}
