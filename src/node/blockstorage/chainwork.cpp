#include <node/blockstorage/chainwork.h>

#include <fmt/format.h>

namespace node {
namespace {

using Words = std::array<uint64_t, 4>; // least significant first

std::strong_ordering Compare(const Words& a, const Words& b)
{
    for (size_t i = a.size(); i-- > 0;) {
        if (a[i] != b[i]) return a[i] <=> b[i];
    }
    return std::strong_ordering::equal;
}

void AddInPlace(Words& a, const Words& b)
{
    uint64_t carry = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const uint64_t sum = a[i] + b[i];
        const uint64_t with_carry = sum + carry;
        carry = (sum < a[i]) || (with_carry < sum);
        a[i] = with_carry;
    }
}

// Wraps modulo 2^256, which the division below relies on.
void SubtractInPlace(Words& a, const Words& b)
{
    uint64_t borrow = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const uint64_t diff = a[i] - b[i];
        const uint64_t with_borrow = diff - borrow;
        borrow = (a[i] < b[i]) || (diff < borrow);
        a[i] = with_borrow;
    }
}

// Shifts left by one and returns the bit pushed out of the top.
bool ShiftLeftOne(Words& a)
{
    const bool out = a[3] >> 63;
    for (size_t i = a.size(); i-- > 1;) a[i] = (a[i] << 1) | (a[i - 1] >> 63);
    a[0] <<= 1;
    return out;
}

void ShiftLeftBytes(Words& a, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; ++i) {
        for (int bit = 0; bit < 8; ++bit) ShiftLeftOne(a);
    }
}

// Schoolbook binary long division; the divisor is never zero here. The
// remainder can need 257 bits for a moment when the divisor is above 2^255,
// hence the bit carried out of the shift.
Words Divide(const Words& numerator, const Words& divisor)
{
    Words quotient{};
    Words remainder{};
    for (int bit = 255; bit >= 0; --bit) {
        const bool overflow = ShiftLeftOne(remainder);
        remainder[0] |= (numerator[bit / 64] >> (bit % 64)) & 1;
        if (overflow || Compare(remainder, divisor) >= 0) {
            SubtractInPlace(remainder, divisor);
            quotient[bit / 64] |= uint64_t{1} << (bit % 64);
        }
    }
    return quotient;
}

} // namespace

ChainWork& ChainWork::operator+=(const ChainWork& other)
{
    AddInPlace(m_words, other.m_words);
    return *this;
}

std::strong_ordering operator<=>(const ChainWork& a, const ChainWork& b)
{
    return Compare(a.m_words, b.m_words);
}

std::string ChainWork::GetHex() const
{
    return fmt::format("{:016x}{:016x}{:016x}{:016x}", m_words[3], m_words[2], m_words[1], m_words[0]);
}

ChainWork BlockProofFromCompact(uint32_t n_bits)
{
    const unsigned exponent = n_bits >> 24;
    uint32_t mantissa = n_bits & 0x007fffff;
    const bool negative = mantissa != 0 && (n_bits & 0x00800000);
    // The largest exponent each mantissa width can take without the target
    // needing more than 256 bits.
    const bool overflow = mantissa != 0 && (exponent > 34 || (mantissa > 0xff && exponent > 33) || (mantissa > 0xffff && exponent > 32));
    if (negative || overflow) return {};

    Words target{};
    if (exponent <= 3) {
        target[0] = mantissa >> (8 * (3 - exponent));
    } else {
        target[0] = mantissa;
        ShiftLeftBytes(target, exponent - 3);
    }
    if (target == Words{}) return {};

    Words not_target = target;
    for (uint64_t& word : not_target) word = ~word;
    Words divisor = target;
    AddInPlace(divisor, Words{1, 0, 0, 0});

    ChainWork work;
    work.m_words = Divide(not_target, divisor);
    AddInPlace(work.m_words, Words{1, 0, 0, 0});
    return work;
}

} // namespace node
