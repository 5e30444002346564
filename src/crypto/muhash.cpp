#include <crypto/muhash.h>

#include <crypto/sha256.h>

#include <openssl/bn.h>
#include <openssl/evp.h>

#include <algorithm>
#include <new>
#include <stdexcept>

namespace {

void Check(bool ok, const char* what)
{
    if (!ok) throw std::runtime_error(std::string{"OpenSSL failure in MuHash3072: "} + what);
}

struct BnDeleter {
    void operator()(BIGNUM* bn) const { BN_free(bn); }
};
using Bn = std::unique_ptr<BIGNUM, BnDeleter>;

Bn NewBn()
{
    Bn bn{BN_new()};
    if (!bn) throw std::bad_alloc{};
    return bn;
}

// 2^3072 - 1103717, built once.
const BIGNUM* Modulus()
{
    static const Bn modulus = [] {
        Bn p = NewBn();
        Bn offset = NewBn();
        Check(BN_set_bit(p.get(), 3072) == 1, "BN_set_bit");
        Check(BN_set_word(offset.get(), 1103717) == 1, "BN_set_word");
        Check(BN_sub(p.get(), p.get(), offset.get()) == 1, "BN_sub");
        return p;
    }();
    return modulus.get();
}

struct CtxDeleter {
    void operator()(BN_CTX* ctx) const { BN_CTX_free(ctx); }
};

BN_CTX* ThreadCtx()
{
    thread_local std::unique_ptr<BN_CTX, CtxDeleter> ctx{BN_CTX_new()};
    if (!ctx) throw std::bad_alloc{};
    return ctx.get();
}

// The element a piece of data stands for, reduced mod p.
Bn ToElement(std::span<const unsigned char> data)
{
    const auto key = Sha256(data);
    std::array<unsigned char, 16> iv{}; // 32-bit counter, then a 96-bit nonce: all zero
    std::array<unsigned char, MuHash3072::BYTE_SIZE> zeros{};
    std::array<unsigned char, MuHash3072::BYTE_SIZE> stream{};
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    if (!ctx) throw std::bad_alloc{};
    int written = 0;
    const bool ok = EVP_EncryptInit_ex(ctx, EVP_chacha20(), nullptr, key.data(), iv.data()) == 1 &&
                    EVP_EncryptUpdate(ctx, stream.data(), &written, zeros.data(), static_cast<int>(zeros.size())) == 1 &&
                    written == static_cast<int>(stream.size());
    EVP_CIPHER_CTX_free(ctx);
    Check(ok, "ChaCha20");
    Bn element{BN_lebin2bn(stream.data(), static_cast<int>(stream.size()), nullptr)};
    Check(element != nullptr, "BN_lebin2bn");
    // Below 2^3072 but possibly at or above p (about 1 in 2^3052).
    Check(BN_nnmod(element.get(), element.get(), Modulus(), ThreadCtx()) == 1, "BN_nnmod");
    return element;
}

} // namespace

struct MuHash3072::Impl {
    Bn numerator = NewBn();
    Bn denominator = NewBn();
    Impl()
    {
        Check(BN_one(numerator.get()) == 1, "BN_one");
        Check(BN_one(denominator.get()) == 1, "BN_one");
    }
};

MuHash3072::MuHash3072() : m_impl{std::make_unique<Impl>()} {}
MuHash3072::~MuHash3072() = default;
MuHash3072::MuHash3072(MuHash3072&&) noexcept = default;
MuHash3072& MuHash3072::operator=(MuHash3072&&) noexcept = default;

MuHash3072& MuHash3072::Insert(std::span<const unsigned char> data)
{
    const Bn element = ToElement(data);
    Check(BN_mod_mul(m_impl->numerator.get(), m_impl->numerator.get(), element.get(), Modulus(), ThreadCtx()) == 1, "BN_mod_mul");
    return *this;
}

MuHash3072& MuHash3072::Remove(std::span<const unsigned char> data)
{
    const Bn element = ToElement(data);
    Check(BN_mod_mul(m_impl->denominator.get(), m_impl->denominator.get(), element.get(), Modulus(), ThreadCtx()) == 1, "BN_mod_mul");
    return *this;
}

MuHash3072& MuHash3072::operator*=(const MuHash3072& other)
{
    Check(BN_mod_mul(m_impl->numerator.get(), m_impl->numerator.get(), other.m_impl->numerator.get(), Modulus(), ThreadCtx()) == 1, "BN_mod_mul");
    Check(BN_mod_mul(m_impl->denominator.get(), m_impl->denominator.get(), other.m_impl->denominator.get(), Modulus(), ThreadCtx()) == 1, "BN_mod_mul");
    return *this;
}

std::array<unsigned char, 32> MuHash3072::Finalize() const
{
    Bn inverse{BN_mod_inverse(nullptr, m_impl->denominator.get(), Modulus(), ThreadCtx())};
    Check(inverse != nullptr, "BN_mod_inverse");
    Bn value = NewBn();
    Check(BN_mod_mul(value.get(), m_impl->numerator.get(), inverse.get(), Modulus(), ThreadCtx()) == 1, "BN_mod_mul");
    std::array<unsigned char, BYTE_SIZE> bytes{};
    Check(BN_bn2lebinpad(value.get(), bytes.data(), static_cast<int>(bytes.size())) == static_cast<int>(bytes.size()), "BN_bn2lebinpad");
    return Sha256(bytes);
}
