// SHA256_Init and friends are deprecated in OpenSSL 3 in favour of EVP, but
// remain in libcrypto on the same code path (SHA extensions where the CPU
// has them). Through EVP, every digest cost an init that looks the
// provider's context up and allocates: more than hashing a txid or a
// merkle node (bench_coinsdb --benchmark_filter='Sha256d|MerkleRoot').
#define OPENSSL_SUPPRESS_DEPRECATED

#include <crypto/sha256.h>

#include <crypto/sha256_lanes.h>

#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

namespace {
void Check(int ok, const char* what)
{
    if (ok != 1) throw std::runtime_error(std::string{"OpenSSL SHA-256 failure in "} + what);
}
} // namespace

static_assert(sizeof(SHA256_CTX) <= CSHA256::STATE_BYTES, "CSHA256::STATE_BYTES cannot hold OpenSSL's SHA256_CTX");
static_assert(alignof(SHA256_CTX) <= alignof(std::max_align_t));

namespace {
SHA256_CTX* Ctx(std::byte* state) { return std::launder(reinterpret_cast<SHA256_CTX*>(state)); }
} // namespace

CSHA256::CSHA256() { Reset(); }

CSHA256& CSHA256::Write(std::span<const unsigned char> data)
{
    Check(SHA256_Update(Ctx(m_state), data.data(), data.size()), "SHA256_Update");
    return *this;
}

void CSHA256::Finalize(std::span<unsigned char, OUTPUT_SIZE> out)
{
    Check(SHA256_Final(out.data(), Ctx(m_state)), "SHA256_Final");
    Reset();
}

CSHA256& CSHA256::Reset()
{
    new (m_state) SHA256_CTX;
    Check(SHA256_Init(Ctx(m_state)), "SHA256_Init");
    return *this;
}

std::array<unsigned char, 32> Sha256(std::span<const unsigned char> data)
{
    std::array<unsigned char, 32> out;
    CSHA256{}.Write(data).Finalize(out);
    return out;
}

namespace {

// The second blocks of SHA256d over 64 bytes: the first hash's padding (a
// 64-byte message), and the second hash's digest slot and padding (32 bytes).
constexpr std::array<unsigned char, sha256_lanes::BLOCK_SIZE> PaddingBlock(size_t rest, uint64_t message_bytes)
{
    std::array<unsigned char, sha256_lanes::BLOCK_SIZE> block{};
    sha256_lanes::Pad(block, rest, message_bytes);
    return block;
}
constexpr std::array<unsigned char, sha256_lanes::BLOCK_SIZE> PAD_64_BYTES{PaddingBlock(0, 64)};
constexpr std::array<unsigned char, sha256_lanes::BLOCK_SIZE> PAD_32_BYTES{PaddingBlock(32, 32)};

void Sha256D64Lanes(unsigned char* out, const unsigned char* in, size_t count)
{
    using sha256_lanes::MAX_LANES;
    for (size_t first = 0; first < count; first += MAX_LANES) {
        const size_t lanes = std::min(MAX_LANES, count - first);
        std::array<sha256_lanes::State, MAX_LANES> states;
        std::array<const unsigned char*, MAX_LANES> blocks;
        states.fill(sha256_lanes::INITIAL_STATE);
        for (size_t lane = 0; lane < lanes; ++lane) blocks[lane] = in + 64 * (first + lane);
        sha256_lanes::Compress(states.data(), blocks.data(), lanes);
        blocks.fill(PAD_64_BYTES.data());
        sha256_lanes::Compress(states.data(), blocks.data(), lanes);
        // The first digests, each with the second hash's padding after it.
        std::array<std::array<unsigned char, sha256_lanes::BLOCK_SIZE>, MAX_LANES> second;
        for (size_t lane = 0; lane < lanes; ++lane) {
            second[lane] = PAD_32_BYTES;
            sha256_lanes::WriteDigest(states[lane], second[lane].data());
            blocks[lane] = second[lane].data();
        }
        states.fill(sha256_lanes::INITIAL_STATE);
        sha256_lanes::Compress(states.data(), blocks.data(), lanes);
        for (size_t lane = 0; lane < lanes; ++lane) sha256_lanes::WriteDigest(states[lane], out + 32 * (first + lane));
    }
}

} // namespace

void Sha256D64(unsigned char* out, const unsigned char* in, size_t count)
{
    if (sha256_lanes::Available()) return Sha256D64Lanes(out, in, count);
    CSHA256 sha;
    std::array<unsigned char, CSHA256::OUTPUT_SIZE> once;
    for (size_t i = 0; i < count; ++i) {
        sha.Write({in + 64 * i, 64}).Finalize(once);
        sha.Write(once).Finalize(std::span<unsigned char, CSHA256::OUTPUT_SIZE>{out + 32 * i, CSHA256::OUTPUT_SIZE});
    }
}
