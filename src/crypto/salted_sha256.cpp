// SHA256_Init and friends are deprecated in OpenSSL 3 in favour of EVP, but
// remain in libcrypto with the same SHA extensions code path; EVP's
// per-call dispatch would cost more than hashing a 68-byte message.
#define OPENSSL_SUPPRESS_DEPRECATED

#include <crypto/salted_sha256.h>

#include <openssl/sha.h>

#include <stdexcept>

struct SaltedSha256::State {
    SHA256_CTX ctx;
};

SaltedSha256::SaltedSha256(std::span<const unsigned char, SALT_SIZE> salt) : m_salted{std::make_unique<State>()}
{
    if (SHA256_Init(&m_salted->ctx) != 1 || SHA256_Update(&m_salted->ctx, salt.data(), salt.size()) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 failure while absorbing a salt");
    }
}

SaltedSha256::~SaltedSha256() = default;

std::array<unsigned char, SaltedSha256::OUTPUT_SIZE> SaltedSha256::Hash(std::span<const unsigned char> message) const
{
    SHA256_CTX ctx = m_salted->ctx;
    std::array<unsigned char, OUTPUT_SIZE> out;
    if (SHA256_Update(&ctx, message.data(), message.size()) != 1 || SHA256_Final(out.data(), &ctx) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 failure while hashing a salted message");
    }
    return out;
}
