// SHA256_Init and friends are deprecated in OpenSSL 3 in favour of EVP, but
// remain in libcrypto with the same SHA extensions code path; EVP's
// per-call dispatch would cost more than hashing a 68-byte message.
#define OPENSSL_SUPPRESS_DEPRECATED

#include <crypto/salted_sha256.h>

#include <crypto/sha256_lanes.h>

#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

struct SaltedSha256::State {
    SHA256_CTX ctx;
    std::array<unsigned char, SALT_SIZE> salt;
};

SaltedSha256::SaltedSha256(std::span<const unsigned char, SALT_SIZE> salt) : m_salted{std::make_unique<State>()}
{
    if (SHA256_Init(&m_salted->ctx) != 1 || SHA256_Update(&m_salted->ctx, salt.data(), salt.size()) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 failure while absorbing a salt");
    }
    std::ranges::copy(salt, m_salted->salt.begin());
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

void SaltedSha256::HashEach(std::span<const unsigned char> messages, size_t message_size, std::span<unsigned char> out) const
{
    if (message_size == 0 || message_size > MAX_EACH_SIZE || messages.size() % message_size != 0 ||
        out.size() != messages.size() / message_size * OUTPUT_SIZE) {
        throw std::invalid_argument("SaltedSha256::HashEach: bad message size or output size");
    }
    const size_t count = messages.size() / message_size;
    if (!sha256_lanes::Available()) {
        for (size_t i = 0; i < count; ++i) {
            const auto digest = Hash(messages.subspan(i * message_size, message_size));
            std::ranges::copy(digest, out.begin() + i * OUTPUT_SIZE);
        }
        return;
    }
    // Each lane's padded input: the salt, a slot for the message, 0x80,
    // zeros and the length in bits. Only the slot changes between messages.
    const size_t length = SALT_SIZE + message_size;
    const size_t blocks = (length + 9 + sha256_lanes::BLOCK_SIZE - 1) / sha256_lanes::BLOCK_SIZE;
    using sha256_lanes::MAX_LANES;
    std::array<std::array<unsigned char, MAX_BLOCKS * sha256_lanes::BLOCK_SIZE>, MAX_LANES> padded{};
    for (auto& lane : padded) {
        std::ranges::copy(m_salted->salt, lane.begin());
        sha256_lanes::Pad(std::span{lane}.first(blocks * sha256_lanes::BLOCK_SIZE), length, length);
    }
    for (size_t first = 0; first < count; first += MAX_LANES) {
        const size_t lanes = std::min(MAX_LANES, count - first);
        for (size_t lane = 0; lane < lanes; ++lane) {
            std::memcpy(padded[lane].data() + SALT_SIZE, messages.data() + (first + lane) * message_size, message_size);
        }
        std::array<sha256_lanes::State, MAX_LANES> states;
        states.fill(sha256_lanes::INITIAL_STATE);
        for (size_t block = 0; block < blocks; ++block) {
            std::array<const unsigned char*, MAX_LANES> pointers;
            for (size_t lane = 0; lane < lanes; ++lane) pointers[lane] = padded[lane].data() + block * sha256_lanes::BLOCK_SIZE;
            sha256_lanes::Compress(states.data(), pointers.data(), lanes);
        }
        for (size_t lane = 0; lane < lanes; ++lane) {
            sha256_lanes::WriteDigest(states[lane], out.data() + (first + lane) * OUTPUT_SIZE);
        }
    }
}
