// SwiftSync's aggregate: the salted hash against plain SHA-256, the 256-bit
// sum against Boost's wrapping uint256_t, and the property a hinted replay
// relies on: the sum is zero exactly when every added outpoint was
// subtracted, in whatever order.

#include <crypto/sha256.h>
#include <kernel/swiftsync/aggregate.h>
#include <test/util/random.h>
#include <util/strencodings.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <vector>

using kernel::swiftsync::AggregateSum;
using kernel::swiftsync::OutpointHasher;
using kernel::swiftsync::Salt;
using boost::multiprecision::uint256_t;

namespace {

uint256_t ModelOf(const AggregateSum::Digest& digest)
{
    uint256_t value = 0;
    for (size_t i = digest.size(); i-- > 0;) value = (value << 8) | digest[i];
    return value;
}

uint256_t ModelOf(const AggregateSum& sum)
{
    uint256_t value = 0;
    for (size_t i = 4; i-- > 0;) value = (value << 64) | sum.Limbs()[i];
    return value;
}

AggregateSum::Digest RandomDigest(TestRand& rand)
{
    AggregateSum::Digest digest;
    for (auto& byte : digest) byte = static_cast<unsigned char>(rand.Next());
    return digest;
}

Salt TestSalt(unsigned char first)
{
    Salt salt{};
    salt[0] = first;
    return salt;
}

} // namespace

BOOST_AUTO_TEST_SUITE(swiftsync_aggregate_tests)

BOOST_AUTO_TEST_CASE(outpoint_hash_is_sha256_of_salt_then_outpoint)
{
    TestRand rand{1};
    const Salt salt = TestSalt(0x5a);
    const COutPoint outpoint{rand.Hash(), 0x01020304};
    std::vector<unsigned char> message(salt.begin(), salt.end());
    message.insert(message.end(), outpoint.hash.begin(), outpoint.hash.end());
    for (unsigned char byte : {0x04, 0x03, 0x02, 0x01}) message.push_back(byte);
    BOOST_CHECK_EQUAL(message.size(), 68U);
    BOOST_CHECK(OutpointHasher{salt}.Hash(outpoint) == Sha256(message));
    // The salt is part of the hash: another salt, another digest.
    BOOST_CHECK(OutpointHasher{TestSalt(0x5b)}.Hash(outpoint) != Sha256(message));
}

BOOST_AUTO_TEST_CASE(add_all_and_subtract_all_equal_one_at_a_time)
{
    // Counts on both sides of the hashing's batches (4 lanes, 128 outpoints).
    TestRand rand{7};
    const OutpointHasher hasher{TestSalt(0x77)};
    for (size_t count : {0, 1, 3, 4, 5, 127, 128, 129, 300}) {
        std::vector<COutPoint> outpoints;
        for (size_t i = 0; i < count; ++i) outpoints.emplace_back(rand.Hash(), static_cast<uint32_t>(rand.Next()));
        const AggregateSum start = AggregateSum::FromLimbs({rand.Next(), rand.Next(), rand.Next(), rand.Next()});
        AggregateSum added = start, added_one_by_one = start;
        AggregateSum subtracted = start, subtracted_one_by_one = start;
        hasher.AddAll(outpoints, added);
        hasher.SubtractAll(outpoints, subtracted);
        for (const COutPoint& outpoint : outpoints) {
            added_one_by_one.Add(hasher.Hash(outpoint));
            subtracted_one_by_one.Subtract(hasher.Hash(outpoint));
        }
        BOOST_TEST_CONTEXT(count << " outpoints")
        {
            BOOST_CHECK(added == added_one_by_one);
            BOOST_CHECK(subtracted == subtracted_one_by_one);
            BOOST_CHECK_EQUAL(count == 0, added == start);
        }
    }
}

BOOST_AUTO_TEST_CASE(sum_matches_a_wrapping_model)
{
    TestRand rand{2};
    AggregateSum sum;
    uint256_t model = 0;
    for (int step = 0; step < 2000; ++step) {
        const AggregateSum::Digest digest = RandomDigest(rand);
        if (rand.Bool()) {
            sum.Add(digest);
            model += ModelOf(digest);
        } else {
            sum.Subtract(digest);
            model -= ModelOf(digest);
        }
        BOOST_REQUIRE(ModelOf(sum) == model);
    }
}

BOOST_AUTO_TEST_CASE(carries_and_borrows_cross_every_limb)
{
    AggregateSum::Digest all_ones;
    all_ones.fill(0xff);
    AggregateSum::Digest one{};
    one[0] = 1;

    AggregateSum sum;
    sum.Add(all_ones);
    BOOST_CHECK_EQUAL(sum.ToHex(), std::string(64, 'f'));
    sum.Add(one);
    BOOST_CHECK(sum.IsZero());
    sum.Subtract(one);
    BOOST_CHECK_EQUAL(sum.ToHex(), std::string(64, 'f'));

    AggregateSum high;
    AggregateSum::Digest top{};
    top[31] = 0x80;
    high.Add(top);
    BOOST_CHECK_EQUAL(high.ToHex(), "80" + std::string(62, '0'));
    high += high;
    BOOST_CHECK(high.IsZero());
}

BOOST_AUTO_TEST_CASE(zero_exactly_when_every_creation_is_spent)
{
    TestRand rand{3};
    const OutpointHasher hasher{TestSalt(7)};
    std::vector<COutPoint> created;
    for (int i = 0; i < 500; ++i) created.emplace_back(rand.Hash(), static_cast<uint32_t>(rand.Below(4000)));
    std::vector<COutPoint> spent = created;
    std::mt19937_64 shuffle{4};
    std::ranges::shuffle(spent, shuffle);

    AggregateSum sum;
    for (const COutPoint& outpoint : created) sum.Add(hasher.Hash(outpoint));
    BOOST_CHECK(!sum.IsZero());
    // Spent in another order, and split over two partial sums as two
    // threads would hash them.
    AggregateSum other_thread;
    for (size_t i = 0; i < spent.size(); ++i) (i % 2 ? sum : other_thread).Subtract(hasher.Hash(spent[i]));
    sum += other_thread;
    BOOST_CHECK(sum.IsZero());

    // One spend missing, one spent twice, or one spend of another index:
    // never zero.
    AggregateSum missing;
    for (const COutPoint& outpoint : created) missing.Add(hasher.Hash(outpoint));
    for (size_t i = 1; i < spent.size(); ++i) missing.Subtract(hasher.Hash(spent[i]));
    BOOST_CHECK(!missing.IsZero());
    AggregateSum twice = missing;
    twice.Subtract(hasher.Hash(spent[1]));
    BOOST_CHECK(!twice.IsZero());
    AggregateSum off_by_one = missing;
    off_by_one.Subtract(hasher.Hash(COutPoint{spent[0].hash, spent[0].n + 1}));
    BOOST_CHECK(!off_by_one.IsZero());
}

BOOST_AUTO_TEST_CASE(limbs_round_trip)
{
    TestRand rand{5};
    AggregateSum sum;
    sum.Add(RandomDigest(rand));
    BOOST_CHECK(AggregateSum::FromLimbs(sum.Limbs()) == sum);
    BOOST_CHECK_EQUAL(AggregateSum::FromLimbs(sum.Limbs()).ToHex(), sum.ToHex());
}

BOOST_AUTO_TEST_SUITE_END()
