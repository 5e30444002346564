// SaltedSha256 against OpenSSL's plain SHA-256 of the salt and the message
// written out: Hash() one message at a time, HashEach() for runs of
// messages of every size it takes (one to four blocks once padded) and
// counts on both sides of the four lanes hashed side by side, and the
// sizes HashEach refuses.

#include <crypto/salted_sha256.h>
#include <crypto/sha256.h>
#include <test/util/random.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <stdexcept>
#include <vector>

namespace {

using Salt = std::array<unsigned char, SaltedSha256::SALT_SIZE>;

Salt RandomSalt(TestRand& rand)
{
    Salt salt;
    for (auto& byte : salt) byte = static_cast<unsigned char>(rand.Next());
    return salt;
}

std::vector<unsigned char> RandomBytes(TestRand& rand, size_t size)
{
    std::vector<unsigned char> bytes(size);
    for (auto& byte : bytes) byte = static_cast<unsigned char>(rand.Next());
    return bytes;
}

std::array<unsigned char, 32> SaltThenMessage(const Salt& salt, std::span<const unsigned char> message)
{
    std::vector<unsigned char> both(salt.begin(), salt.end());
    both.insert(both.end(), message.begin(), message.end());
    return Sha256(both);
}

} // namespace

BOOST_AUTO_TEST_SUITE(salted_sha256_tests)

BOOST_AUTO_TEST_CASE(hash_is_sha256_of_salt_then_message)
{
    TestRand rand{0x5a17};
    for (size_t size : {0, 1, 23, 31, 32, 36, 55, 100}) {
        const Salt salt = RandomSalt(rand);
        const std::vector<unsigned char> message = RandomBytes(rand, size);
        BOOST_CHECK_EQUAL(HexStr(SaltedSha256{salt}.Hash(message)), HexStr(SaltThenMessage(salt, message)));
    }
}

BOOST_AUTO_TEST_CASE(hash_each_equals_hash_of_every_message)
{
    TestRand rand{0x5a18};
    for (size_t size = 1; size <= SaltedSha256::MAX_EACH_SIZE; ++size) {
        const Salt salt = RandomSalt(rand);
        const SaltedSha256 sha{salt};
        const size_t count = rand.Below(10);
        const std::vector<unsigned char> messages = RandomBytes(rand, size * count);
        std::vector<unsigned char> digests(count * SaltedSha256::OUTPUT_SIZE);
        sha.HashEach(messages, size, digests);
        for (size_t i = 0; i < count; ++i) {
            BOOST_TEST_CONTEXT(size << "-byte message " << i << " of " << count)
            {
                const auto message = std::span{messages}.subspan(i * size, size);
                BOOST_CHECK_EQUAL(HexStr(std::span{digests}.subspan(i * SaltedSha256::OUTPUT_SIZE, 32)),
                                  HexStr(SaltThenMessage(salt, message)));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(hash_each_refuses_sizes_it_cannot_take)
{
    TestRand rand{0x5a19};
    const SaltedSha256 sha{RandomSalt(rand)};
    std::vector<unsigned char> digests(2 * SaltedSha256::OUTPUT_SIZE);
    // A size of zero, over the largest, not dividing the input, or an
    // output that is not one digest per message.
    BOOST_CHECK_THROW(sha.HashEach(std::vector<unsigned char>{}, 0, {}), std::invalid_argument);
    const size_t too_long = SaltedSha256::MAX_EACH_SIZE + 1;
    BOOST_CHECK_THROW(sha.HashEach(RandomBytes(rand, 2 * too_long), too_long, digests), std::invalid_argument);
    BOOST_CHECK_THROW(sha.HashEach(RandomBytes(rand, 73), 36, digests), std::invalid_argument);
    BOOST_CHECK_THROW(sha.HashEach(RandomBytes(rand, 36), 36, digests), std::invalid_argument);
    // The same call with a matching output goes through.
    BOOST_CHECK_NO_THROW(sha.HashEach(RandomBytes(rand, 72), 36, digests));
}

BOOST_AUTO_TEST_SUITE_END()
