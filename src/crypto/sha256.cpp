// SHA256_Init and friends are deprecated in OpenSSL 3 in favour of EVP, but
// remain in libcrypto on the same code path (SHA extensions where the CPU
// has them). Through EVP, every digest cost an init that looks the
// provider's context up and allocates: more than hashing a txid or a
// merkle node (bench_coinsdb --benchmark_filter='Sha256d|MerkleRoot').
#define OPENSSL_SUPPRESS_DEPRECATED

#include <crypto/sha256.h>

#include <openssl/sha.h>

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
