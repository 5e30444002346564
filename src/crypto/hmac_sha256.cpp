#include <crypto/hmac_sha256.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

std::array<unsigned char, 32> HmacSha256(std::span<const unsigned char> key, std::span<const unsigned char> message)
{
    std::array<unsigned char, 32> out{};
    unsigned int length = 0;
    // OpenSSL wants a non-null key pointer even for an empty key.
    static const unsigned char no_key{0};
    if (!HMAC(EVP_sha256(), key.empty() ? &no_key : key.data(), static_cast<int>(key.size()), message.data(), message.size(),
              out.data(), &length) ||
        length != out.size()) {
        throw std::runtime_error("OpenSSL HMAC-SHA-256 failure");
    }
    return out;
}
