#include <crypto/sha256_lanes.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define COINSDB_SHA256_LANES_X86 1
#endif

#include <bit>
#include <cstring>
#include <stdexcept>

namespace sha256_lanes {

#ifdef COINSDB_SHA256_LANES_X86
namespace {

// FIPS 180-4's round constants.
alignas(16) constexpr uint32_t K[64]{
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// SHA256RNDS2 keeps the eight words in two registers, a, b, e, f in one and
// c, d, g, h in the other, highest dword first: (f, e, b, a) and (h, g, d, c)
// from dword 0 up. It writes the new (a, b, e, f); after two rounds the old
// one is the new (c, d, g, h), so the pair of registers swaps roles every
// instruction and is back in place every four rounds.
//
// The message schedule keeps W[t..t+15] in four registers, W[t] in dword 0.
// For the next four words, W[t+16+j] = W[t+j] + s0(W[t+1+j]) + W[t+9+j] +
// s1(W[t+14+j]): SHA256MSG1 adds the first two, PALIGNR lines W[t+9..t+12]
// up to be added, SHA256MSG2 adds s1 of the words it itself produces.
template <size_t N>
__attribute__((target("sha,sse4.1"))) void CompressN(State* states, const unsigned char* const* blocks)
{
    // Each 32-bit word of a block is big-endian.
    const __m128i word_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i abef[N], cdgh[N], abef_in[N], cdgh_in[N], w[N][4];
    for (size_t l = 0; l < N; ++l) {
        const __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(states[l].data()));
        const __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(states[l].data() + 4));
        const __m128i badc = _mm_shuffle_epi32(abcd, 0xB1);
        const __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);
        abef[l] = abef_in[l] = _mm_alignr_epi8(badc, hgfe, 8);
        cdgh[l] = cdgh_in[l] = _mm_blend_epi16(hgfe, badc, 0xF0);
        for (size_t j = 0; j < 4; ++j) {
            const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks[l] + 16 * j));
            w[l][j] = _mm_shuffle_epi8(raw, word_swap);
        }
    }
    for (size_t g = 0; g < 16; ++g) {
        const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(K + 4 * g));
        for (size_t l = 0; l < N; ++l) {
            const __m128i wk = _mm_add_epi32(w[l][g % 4], k);
            cdgh[l] = _mm_sha256rnds2_epu32(cdgh[l], abef[l], wk);
            abef[l] = _mm_sha256rnds2_epu32(abef[l], cdgh[l], _mm_shuffle_epi32(wk, 0x0E));
        }
        if (g < 12) {
            for (size_t l = 0; l < N; ++l) {
                __m128i next = _mm_sha256msg1_epu32(w[l][g % 4], w[l][(g + 1) % 4]);
                next = _mm_add_epi32(next, _mm_alignr_epi8(w[l][(g + 3) % 4], w[l][(g + 2) % 4], 4));
                w[l][g % 4] = _mm_sha256msg2_epu32(next, w[l][(g + 3) % 4]);
            }
        }
    }
    for (size_t l = 0; l < N; ++l) {
        const __m128i feba = _mm_add_epi32(abef[l], abef_in[l]);
        const __m128i hgdc = _mm_add_epi32(cdgh[l], cdgh_in[l]);
        const __m128i abef_words = _mm_shuffle_epi32(feba, 0x1B);
        const __m128i ghcd = _mm_shuffle_epi32(hgdc, 0xB1);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(states[l].data()), _mm_blend_epi16(abef_words, ghcd, 0xF0));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(states[l].data() + 4), _mm_alignr_epi8(ghcd, abef_words, 8));
    }
}

bool DetectExtensions()
{
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_SSE4_1)) return false;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    return (ebx & bit_SHA) != 0;
}

} // namespace

bool Available()
{
    static const bool available{DetectExtensions()};
    return available;
}

void Compress(State* states, const unsigned char* const* blocks, size_t lanes)
{
    switch (lanes) {
    case 1:
        return CompressN<1>(states, blocks);
    case 2:
        return CompressN<2>(states, blocks);
    case 3:
        return CompressN<3>(states, blocks);
    case 4:
        return CompressN<4>(states, blocks);
    }
    throw std::invalid_argument("sha256_lanes::Compress: lanes must be 1 to 4");
}

#else

bool Available()
{
    return false;
}

void Compress(State*, const unsigned char* const*, size_t)
{
    throw std::logic_error("sha256_lanes::Compress: no SHA extensions on this architecture");
}

#endif

void WriteDigest(const State& state, unsigned char* out)
{
    for (size_t i = 0; i < state.size(); ++i) {
        const uint32_t word = std::endian::native == std::endian::little ? __builtin_bswap32(state[i]) : state[i];
        std::memcpy(out + 4 * i, &word, 4);
    }
}

} // namespace sha256_lanes
