#ifndef COINSDB_KERNEL_SWIFTSYNC_ELIAS_FANO_H
#define COINSDB_KERNEL_SWIFTSYNC_ELIAS_FANO_H

// One block's hints in a SwiftSync hints file (BIP 456, version 0): the
// strictly rising hint indices (spendable.h) of the block's outputs still
// unspent at the file's height, as one Elias-Fano object.
//
//   object     CompactSize N               how many indices
//              only when N > 0:
//              CompactSize M               the greatest index (the last one)
//              low part                    N fields of l bits, then zero bits to a byte
//              high part                   N unary codes, then zero bits to a byte
//
//   l          floor(log2((M + 1) / N)), the division an integer one; it is
//              at least 1 because N rising indices end at M >= N - 1
//   field i    v_i mod 2^l, least significant bit first
//   code i     (v_i >> l) - (v_{i-1} >> l) zeros, then a one; v_{-1} >> l is 0
//   sizes      low part ceil(N * l / 8) bytes, high part ceil((N + (M >> l)) / 8)
//
// Bits fill each byte from its most significant bit. An empty list is the
// single byte 00. Example: [3, 7, 12] is 03 0c f0 a4 (l = 2; fields 11 11 00
// and padding give f0; codes 1 01 001 and padding give a4).
//
// Where that comes from: BIP 456's test vectors (../shared/vectors/swiftsync)
// fix the bit order; they only hold lists of ten or more indices, where
// (M + 1) / N and M / N give the same l, so l, the empty list and the
// CompactSize widths follow the reference implementations (Bitcoin Core's
// branch hintsfile-v1, crate hintsfile 0.1.x), which the BIP text agrees
// with. The BIP's worked example draws [3, 7, 12] with other bits; its
// numbers (l = 2, L = 111100, H = 101001) are these.
//
// Crate hintsfile 0.2.0 writes the same fields into each byte from its
// least significant bit ([3, 7, 12] is 03 0c 0f 25): BitOrder names it so
// that a reader can recognise such a file and refuse it by name.

#include <util/expected.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kernel::swiftsync {

// The most outputs a block can have: its transactions without witness
// weigh 4 units a byte, so at most 4,000,000 / 4 bytes, and an output takes
// at least 9 of them (an 8-byte amount and an empty script's length). So no
// index reaches 111,111, and a decoder never allocates more than that many
// indices whatever a file claims.
constexpr uint32_t MAX_BLOCK_OUTPUTS = 1'000'000 / 9;

enum class BitOrder {
    MOST_SIGNIFICANT_FIRST,  // BIP 456's vectors; the only order coinsdb writes and accepts
    LEAST_SIGNIFICANT_FIRST, // crate hintsfile 0.2.0's; only to recognise such files
};

// Appends the object for `indices`. Throws std::invalid_argument when they
// are not strictly rising or one is MAX_BLOCK_OUTPUTS or more.
void EncodeEliasFano(std::span<const uint32_t> indices, std::vector<uint8_t>& out,
                     BitOrder order = BitOrder::MOST_SIGNIFICANT_FIRST);
std::vector<uint8_t> EncodeEliasFano(std::span<const uint32_t> indices);

// N and M of an object and the sizes they imply.
struct EliasFanoShape {
    uint32_t count{0};
    uint32_t greatest{0};
    unsigned low_bits{0};
    size_t header_bytes{0};
    size_t low_bytes{0};
    size_t high_bytes{0};

    size_t PartBytes() const { return low_bytes + high_bytes; }
    size_t TotalBytes() const { return header_bytes + PartBytes(); }
};

// Reads N and M from the start of `bytes` (at most MAX_HEADER_BYTES of them
// are looked at). The error says what is wrong: a truncated or
// non-canonical CompactSize, N or M out of bounds, more indices than fit
// below M + 1.
constexpr size_t MAX_HEADER_BYTES = 10;
util::Expected<EliasFanoShape, std::string> ReadEliasFanoShape(std::span<const uint8_t> bytes);

// The indices from the low and high parts that follow the shape's header:
// `parts` must hold exactly shape.PartBytes() bytes. The error names the
// first check that failed: non-zero padding after a part, a high part
// without exactly N ones, indices not strictly rising, a last index other
// than M.
util::Expected<std::vector<uint32_t>, std::string> DecodeEliasFanoParts(const EliasFanoShape& shape, std::span<const uint8_t> parts,
                                                                        BitOrder order = BitOrder::MOST_SIGNIFICANT_FIRST);

struct DecodedEliasFano {
    std::vector<uint32_t> indices;
    size_t bytes_read{0};
};

// One whole object at the start of `bytes` (bytes after it are left
// alone); a shorter input is "truncated: ...".
util::Expected<DecodedEliasFano, std::string> DecodeEliasFano(std::span<const uint8_t> bytes);

} // namespace kernel::swiftsync

#endif // COINSDB_KERNEL_SWIFTSYNC_ELIAS_FANO_H
