// Our key adapters (include/key.h, pubkey.h) and Hash160 (include/hash.h),
// on libsecp256k1 and OpenSSL.

#include <hash.h>
#include <key.h>
#include <pubkey.h>

#include <crypto/random.h>

#include <openssl/evp.h>
#include <secp256k1.h>

#include <cassert>

namespace {

const secp256k1_context* Context()
{
    static secp256k1_context* const ctx{secp256k1_context_create(SECP256K1_CONTEXT_NONE)};
    return ctx;
}

// The length a serialized public key with this first byte has (Core's
// CPubKey::GetLen), 0 for an unknown one.
size_t LengthFor(unsigned char header)
{
    if (header == 2 || header == 3) return CPubKey::COMPRESSED_SIZE;
    if (header == 4 || header == 6 || header == 7) return CPubKey::SIZE;
    return 0;
}

} // namespace

uint160 Hash160(std::span<const unsigned char> data)
{
    unsigned char sha[32];
    unsigned char ripemd[20];
    unsigned int len;
    assert(EVP_Digest(data.data(), data.size(), sha, &len, EVP_sha256(), nullptr) == 1);
    assert(EVP_Digest(sha, sizeof(sha), ripemd, &len, EVP_ripemd160(), nullptr) == 1);
    return uint160{ripemd};
}

CPubKey::CPubKey(std::span<const unsigned char> bytes)
{
    if (bytes.empty() || LengthFor(bytes[0]) != bytes.size()) return;
    std::ranges::copy(bytes, m_bytes.begin());
    m_size = bytes.size();
}

bool CPubKey::IsFullyValid() const
{
    secp256k1_pubkey parsed;
    return IsValid() && secp256k1_ec_pubkey_parse(Context(), &parsed, data(), size()) == 1;
}

CKeyID CPubKey::GetID() const { return CKeyID{Hash160(std::span{data(), size()})}; }

XOnlyPubKey::XOnlyPubKey(std::span<const unsigned char> bytes)
{
    assert(bytes.size() == m_x.size());
    std::ranges::copy(bytes, m_x.begin());
}

XOnlyPubKey::XOnlyPubKey(const CPubKey& pubkey)
{
    std::copy(pubkey.begin() + 1, pubkey.begin() + 33, m_x.begin());
}

bool XOnlyPubKey::IsFullyValid() const
{
    // x is on the curve exactly when 02 || x parses as a compressed key.
    std::array<unsigned char, 33> compressed;
    compressed[0] = 2;
    std::ranges::copy(m_x, compressed.begin() + 1);
    secp256k1_pubkey parsed;
    return secp256k1_ec_pubkey_parse(Context(), &parsed, compressed.data(), compressed.size()) == 1;
}

void CKey::MakeNewKey(bool compressed)
{
    do {
        GetRandBytes(m_secret);
    } while (!secp256k1_ec_seckey_verify(Context(), m_secret.data()));
    m_compressed = compressed;
    m_valid = true;
}

CPubKey CKey::GetPubKey() const
{
    assert(m_valid);
    secp256k1_pubkey pubkey;
    assert(secp256k1_ec_pubkey_create(Context(), &pubkey, m_secret.data()) == 1);
    std::array<unsigned char, CPubKey::SIZE> out;
    size_t len{out.size()};
    secp256k1_ec_pubkey_serialize(Context(), out.data(), &len, &pubkey, m_compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED);
    return CPubKey{std::span{out.data(), len}};
}

CKey GenerateRandomKey(bool compressed) noexcept
{
    CKey key;
    key.MakeNewKey(compressed);
    return key;
}
