#include <crypto/siphash.h>

#include <bit>
#include <cstring>

namespace {

struct SipState {
    uint64_t v0, v1, v2, v3;

    SipState(uint64_t k0, uint64_t k1)
        : v0{0x736f6d6570736575ULL ^ k0}, v1{0x646f72616e646f6dULL ^ k1},
          v2{0x6c7967656e657261ULL ^ k0}, v3{0x7465646279746573ULL ^ k1} {}

    void Round()
    {
        v0 += v1; v1 = std::rotl(v1, 13); v1 ^= v0; v0 = std::rotl(v0, 32);
        v2 += v3; v3 = std::rotl(v3, 16); v3 ^= v2;
        v0 += v3; v3 = std::rotl(v3, 21); v3 ^= v0;
        v2 += v1; v1 = std::rotl(v1, 17); v1 ^= v2; v2 = std::rotl(v2, 32);
    }

    // Two compression rounds per message word: the "2" of SipHash-2-4.
    void Absorb(uint64_t word)
    {
        v3 ^= word;
        Round();
        Round();
        v0 ^= word;
    }

    // Four finalization rounds: the "4".
    uint64_t Finish()
    {
        v2 ^= 0xff;
        Round();
        Round();
        Round();
        Round();
        return v0 ^ v1 ^ v2 ^ v3;
    }
};

uint64_t LoadLE64(const unsigned char* p)
{
    uint64_t word;
    std::memcpy(&word, p, 8);
    if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
    return word;
}

} // namespace

uint64_t SipHash24(uint64_t k0, uint64_t k1, std::span<const unsigned char> data)
{
    SipState state{k0, k1};
    const size_t full_words = data.size() / 8;
    for (size_t i = 0; i < full_words; ++i) state.Absorb(LoadLE64(data.data() + 8 * i));
    // The last word carries the leftover bytes and the message length mod 256.
    uint64_t last = uint64_t{data.size() & 0xff} << 56;
    for (size_t i = full_words * 8; i < data.size(); ++i) last |= uint64_t{data[i]} << (8 * (i % 8));
    state.Absorb(last);
    return state.Finish();
}

uint64_t SipHashUint256Extra(uint64_t k0, uint64_t k1, const unsigned char* txid32, uint32_t n)
{
    SipState state{k0, k1};
    for (int i = 0; i < 4; ++i) state.Absorb(LoadLE64(txid32 + 8 * i));
    state.Absorb((uint64_t{36} << 56) | n);
    return state.Finish();
}
