#ifndef COINSDB_NODE_BLOCKSTORAGE_CHAINWORK_H
#define COINSDB_NODE_BLOCKSTORAGE_CHAINWORK_H

// Chain work for the block index: a 256-bit unsigned sum of per-block proofs.
//
// This is block storage's private copy of the proof-of-work arithmetic. It
// exists only so that the block index can order headers by work before
// kernel/pow.h lands; once that exists, BlockProofFromCompact should be
// replaced by its GetBlockProof and ChainWork by its 256-bit type. The
// formula is the same: work = 2^256 / (target + 1).

#include <array>
#include <compare>
#include <cstdint>
#include <string>

namespace node {

// An unsigned 256-bit number, only as much of one as chain work needs:
// addition and ordering. Sums wrap modulo 2^256, which real chains never
// reach (each block adds at most 2^256 / 2 and there are far fewer than 2^255
// blocks of that difficulty).
class ChainWork
{
public:
    constexpr ChainWork() = default;
    static constexpr ChainWork FromUint64(uint64_t value)
    {
        ChainWork work;
        work.m_words[0] = value;
        return work;
    }

    ChainWork& operator+=(const ChainWork& other);
    friend ChainWork operator+(ChainWork a, const ChainWork& b) { return a += b; }

    friend std::strong_ordering operator<=>(const ChainWork& a, const ChainWork& b);
    friend bool operator==(const ChainWork&, const ChainWork&) = default;

    bool IsZero() const { return m_words == std::array<uint64_t, 4>{}; }
    // 64 hex digits, most significant first: getblockheader's "chainwork".
    std::string GetHex() const;

private:
    friend ChainWork BlockProofFromCompact(uint32_t n_bits);
    std::array<uint64_t, 4> m_words{}; // least significant word first
};

// The work a block with this nBits proves: 2^256 / (target + 1), computed as
// ~target / (target + 1) + 1 so that 2^256 is never needed. nBits decoding
// (the "compact" form): exponent = top byte, mantissa = low 23 bits, target =
// mantissa * 256^(exponent - 3); bit 23 is a sign. A negative, zero or
// overflowing (> 2^256 - 1) target proves nothing and yields 0.
ChainWork BlockProofFromCompact(uint32_t n_bits);

} // namespace node

#endif // COINSDB_NODE_BLOCKSTORAGE_CHAINWORK_H
