#include <kernel/swiftsync/elias_fano.h>

#include <serialize.h>
#include <streams.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace kernel::swiftsync {
namespace {

using util::Unexpected;

unsigned LowBits(uint32_t count, uint32_t greatest)
{
    // 64-bit: greatest + 1 must not wrap, whatever a caller passes.
    return std::bit_width((uint64_t{greatest} + 1) / count) - 1;
}

size_t BitsToBytes(uint64_t bits) { return (bits + 7) / 8; }

// The stream WriteCompactSize writes to: the end of a byte vector.
class ByteAppender
{
public:
    explicit ByteAppender(std::vector<uint8_t>& out) : m_out{out} {}
    void write(std::span<const std::byte> bytes)
    {
        for (const std::byte b : bytes) m_out.push_back(std::to_integer<uint8_t>(b));
    }

private:
    std::vector<uint8_t>& m_out;
};

// Bits appended to a byte vector, each byte filled in `order`.
class BitWriter
{
public:
    BitWriter(std::vector<uint8_t>& out, BitOrder order) : m_out{out}, m_order{order} {}
    void Put(bool bit)
    {
        if (m_bits % 8 == 0) m_out.push_back(0);
        const unsigned shift = m_order == BitOrder::MOST_SIGNIFICANT_FIRST ? 7 - m_bits % 8 : m_bits % 8;
        m_out.back() |= uint8_t(bit) << shift;
        ++m_bits;
    }
    // Later bits start on a fresh byte; the unused bits are already zero.
    void Pad() { m_bits = 0; }

private:
    std::vector<uint8_t>& m_out;
    BitOrder m_order;
    size_t m_bits{0};
};

// Bit `pos` of a part read in `order`.
bool BitAt(std::span<const uint8_t> part, size_t pos, BitOrder order)
{
    const unsigned shift = order == BitOrder::MOST_SIGNIFICANT_FIRST ? 7 - pos % 8 : pos % 8;
    return (part[pos / 8] >> shift) & 1;
}

bool PaddingIsZero(std::span<const uint8_t> part, size_t used_bits, BitOrder order)
{
    for (size_t pos = used_bits; pos < part.size() * 8; ++pos) {
        if (BitAt(part, pos, order)) return false;
    }
    return true;
}

// A CompactSize at the start of `bytes`, or an error naming `what`.
util::Expected<uint64_t, std::string> ReadSize(std::span<const uint8_t>& bytes, const char* what)
{
    if (bytes.empty()) return Unexpected{std::string{"truncated in its "} + what};
    const size_t width = bytes[0] < 0xfd ? 1 : bytes[0] == 0xfd ? 3
                                           : bytes[0] == 0xfe   ? 5
                                                                : 9;
    if (bytes.size() < width) return Unexpected{std::string{"truncated in its "} + what};
    SpanReader reader{bytes.first(width)};
    try {
        const uint64_t value = ReadCompactSize(reader, /*range_check=*/false);
        bytes = bytes.subspan(width);
        return value;
    } catch (const std::ios_base::failure&) {
        return Unexpected{std::string{"non-canonical CompactSize for its "} + what};
    }
}

} // namespace

void EncodeEliasFano(std::span<const uint32_t> indices, std::vector<uint8_t>& out, BitOrder order)
{
    for (size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] >= MAX_BLOCK_OUTPUTS) throw std::invalid_argument("EncodeEliasFano: index beyond the most outputs a block can have");
        if (i > 0 && indices[i] <= indices[i - 1]) throw std::invalid_argument("EncodeEliasFano: indices not strictly rising");
    }
    ByteAppender header{out};
    WriteCompactSize(header, indices.size());
    if (indices.empty()) return;
    const uint32_t count = indices.size();
    const uint32_t greatest = indices.back();
    WriteCompactSize(header, greatest);
    const unsigned low_bits = LowBits(count, greatest);

    BitWriter bits{out, order};
    for (const uint32_t index : indices) {
        for (unsigned b = 0; b < low_bits; ++b) bits.Put((index >> b) & 1);
    }
    bits.Pad();
    uint32_t previous_high = 0;
    for (const uint32_t index : indices) {
        for (uint32_t gap = (index >> low_bits) - previous_high; gap > 0; --gap) bits.Put(false);
        bits.Put(true);
        previous_high = index >> low_bits;
    }
}

std::vector<uint8_t> EncodeEliasFano(std::span<const uint32_t> indices)
{
    std::vector<uint8_t> out;
    EncodeEliasFano(indices, out);
    return out;
}

util::Expected<EliasFanoShape, std::string> ReadEliasFanoShape(std::span<const uint8_t> bytes)
{
    const size_t available = bytes.size();
    const auto count = ReadSize(bytes, "count N");
    if (!count) return Unexpected{count.error()};
    if (*count > MAX_BLOCK_OUTPUTS) {
        return Unexpected{"count N=" + std::to_string(*count) + " is above the most outputs a block can have (" + std::to_string(MAX_BLOCK_OUTPUTS) + ")"};
    }
    EliasFanoShape shape;
    shape.count = *count;
    if (shape.count > 0) {
        const auto greatest = ReadSize(bytes, "greatest index M");
        if (!greatest) return Unexpected{greatest.error()};
        if (*greatest >= MAX_BLOCK_OUTPUTS) {
            return Unexpected{"greatest index M=" + std::to_string(*greatest) + " is not below the most outputs a block can have (" + std::to_string(MAX_BLOCK_OUTPUTS) + ")"};
        }
        shape.greatest = *greatest;
        if (shape.count > uint64_t{shape.greatest} + 1) {
            return Unexpected{"N=" + std::to_string(shape.count) + " indices cannot rise strictly up to M=" + std::to_string(shape.greatest)};
        }
        shape.low_bits = LowBits(shape.count, shape.greatest);
        shape.low_bytes = BitsToBytes(uint64_t{shape.count} * shape.low_bits);
        shape.high_bytes = BitsToBytes(uint64_t{shape.count} + (shape.greatest >> shape.low_bits));
    }
    shape.header_bytes = available - bytes.size();
    return shape;
}

util::Expected<std::vector<uint32_t>, std::string> DecodeEliasFanoParts(const EliasFanoShape& shape, std::span<const uint8_t> parts, BitOrder order)
{
    if (parts.size() != shape.PartBytes()) throw std::invalid_argument("DecodeEliasFanoParts: parts of the wrong size");
    if (shape.count == 0) return std::vector<uint32_t>{};
    const auto low = parts.first(shape.low_bytes);
    const auto high = parts.subspan(shape.low_bytes);
    const unsigned l = shape.low_bits;
    if (!PaddingIsZero(low, size_t{shape.count} * l, order)) return Unexpected{std::string{"non-zero padding bits after the low part"}};
    const size_t high_used = size_t{shape.count} + (shape.greatest >> l);
    size_t ones = 0;
    for (size_t pos = 0; pos < high_used; ++pos) ones += BitAt(high, pos, order);
    if (ones != shape.count) {
        return Unexpected{"the high part holds " + std::to_string(ones) + " ones, not N=" + std::to_string(shape.count)};
    }
    if (!PaddingIsZero(high, high_used, order)) return Unexpected{std::string{"non-zero padding bits after the high part"}};

    std::vector<uint32_t> indices;
    indices.reserve(shape.count);
    uint32_t high_value = 0;
    size_t pos = 0;
    for (uint32_t i = 0; i < shape.count; ++i) {
        uint32_t low_value = 0;
        for (unsigned b = 0; b < l; ++b) low_value |= uint32_t{BitAt(low, size_t{i} * l + b, order)} << b;
        while (!BitAt(high, pos++, order)) ++high_value;
        const uint32_t index = (high_value << l) | low_value;
        if (!indices.empty() && index <= indices.back()) {
            return Unexpected{"index " + std::to_string(index) + " follows " + std::to_string(indices.back()) + ": indices must rise strictly"};
        }
        indices.push_back(index);
    }
    if (indices.back() != shape.greatest) {
        return Unexpected{"the last index is " + std::to_string(indices.back()) + ", not M=" + std::to_string(shape.greatest)};
    }
    return indices;
}

util::Expected<DecodedEliasFano, std::string> DecodeEliasFano(std::span<const uint8_t> bytes)
{
    const auto shape = ReadEliasFanoShape(bytes.first(std::min(bytes.size(), MAX_HEADER_BYTES)));
    if (!shape) return Unexpected{shape.error()};
    if (bytes.size() < shape->TotalBytes()) {
        return Unexpected{"truncated: the object takes " + std::to_string(shape->TotalBytes()) + " bytes, " + std::to_string(bytes.size()) + " are left"};
    }
    DecodedEliasFano decoded;
    decoded.bytes_read = shape->TotalBytes();
    if (shape->count == 0) return decoded;
    auto indices = DecodeEliasFanoParts(*shape, bytes.subspan(shape->header_bytes, shape->PartBytes()));
    if (!indices) return Unexpected{indices.error()};
    decoded.indices = std::move(*indices);
    return decoded;
}

} // namespace kernel::swiftsync
