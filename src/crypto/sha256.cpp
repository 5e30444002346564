#include <crypto/sha256.h>

#include <openssl/evp.h>

#include <stdexcept>

struct CSHA256::Impl {
    EVP_MD_CTX* ctx{EVP_MD_CTX_new()};
    ~Impl() { EVP_MD_CTX_free(ctx); }
};

namespace {
void Check(int ok, const char* what)
{
    if (ok != 1) throw std::runtime_error(std::string{"OpenSSL SHA-256 failure in "} + what);
}

// The provider's SHA-256, fetched once. Handing EVP_DigestInit_ex the
// legacy EVP_sha256() makes OpenSSL 3 look the implementation up again on
// every init, behind a read-write lock: with a txid, a merkle node or a
// block hash per init, that lookup cost block replay more than the hashing.
const EVP_MD* FetchedSha256()
{
    static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (!md) throw std::runtime_error("OpenSSL SHA-256 failure in EVP_MD_fetch");
    return md;
}
} // namespace

CSHA256::CSHA256() : m_impl{std::make_unique<Impl>()}
{
    if (!m_impl->ctx) throw std::bad_alloc{};
    Reset();
}

CSHA256::~CSHA256() = default;
CSHA256::CSHA256(CSHA256&&) noexcept = default;
CSHA256& CSHA256::operator=(CSHA256&&) noexcept = default;

CSHA256& CSHA256::Write(std::span<const unsigned char> data)
{
    Check(EVP_DigestUpdate(m_impl->ctx, data.data(), data.size()), "EVP_DigestUpdate");
    return *this;
}

void CSHA256::Finalize(std::span<unsigned char, OUTPUT_SIZE> out)
{
    unsigned int written = 0;
    Check(EVP_DigestFinal_ex(m_impl->ctx, out.data(), &written), "EVP_DigestFinal_ex");
    Reset();
}

CSHA256& CSHA256::Reset()
{
    Check(EVP_DigestInit_ex(m_impl->ctx, FetchedSha256(), nullptr), "EVP_DigestInit_ex");
    return *this;
}

std::array<unsigned char, 32> Sha256(std::span<const unsigned char> data)
{
    std::array<unsigned char, 32> out;
    CSHA256{}.Write(data).Finalize(out);
    return out;
}
