// LevelDB's built-in bloom filters as dbwrapper/bloom.h builds them: the
// key hash against LevelDB's own known values, whole filters against the
// policy's CreateFilter byte for byte over key counts, key lengths (every
// tail length, bytes above 0x7f) and bits per key; and the check that
// decides whether a policy's filters may be built this way.

#include <dbwrapper/bloom.h>
#include <test/util/random.h>

#include <boost/test/unit_test.hpp>
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

using namespace dbwrapper_ingest;

namespace {

std::string RandomKey(TestRand& rand, size_t max_size)
{
    std::string key(rand.Below(max_size + 1), '\0');
    for (char& c : key) c = static_cast<char>(rand.Next());
    return key;
}

// Same name as LevelDB's built-in policy, other bytes: one bit per key set
// at the key's size.
class ImpostorPolicy final : public leveldb::FilterPolicy
{
public:
    const char* Name() const override { return "leveldb.BuiltinBloomFilter2"; }
    void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override
    {
        const size_t start = dst->size();
        dst->resize(start + n * 10 / 8 + 1, 0);
        for (int i = 0; i < n; ++i) (*dst)[start + keys[i].size() % (n * 10 / 8 + 1)] |= 1;
    }
    bool KeyMayMatch(const leveldb::Slice&, const leveldb::Slice&) const override { return true; }
};

class OtherPolicy final : public leveldb::FilterPolicy
{
public:
    const char* Name() const override { return "test.OtherFilter"; }
    void CreateFilter(const leveldb::Slice*, int, std::string* dst) const override { dst->push_back('x'); }
    bool KeyMayMatch(const leveldb::Slice&, const leveldb::Slice&) const override { return true; }
};

} // namespace

BOOST_AUTO_TEST_SUITE(dbwrapper_bloom_tests)

// LevelDB's util/hash_test.cc: keys of 0 to 4 bytes, high bits set, under
// the seed its bloom filter uses.
BOOST_AUTO_TEST_CASE(hash_known_values)
{
    BOOST_CHECK_EQUAL(BloomHash(""), 0xbc9f1d34U);
    BOOST_CHECK_EQUAL(BloomHash("\x62"), 0xef1345c4U);
    BOOST_CHECK_EQUAL(BloomHash("\xc3\x97"), 0x5b663814U);
    BOOST_CHECK_EQUAL(BloomHash("\xe2\x99\xa5"), 0x323c078fU);
    BOOST_CHECK_EQUAL(BloomHash("\xe1\x80\xb9\x32"), 0xed21633aU);
}

BOOST_AUTO_TEST_CASE(filters_match_leveldb_byte_for_byte)
{
    TestRand rand{0xb100};
    for (const int bits_per_key : {1, 2, 5, 6, 10, 12, 20, 45}) {
        const std::unique_ptr<const leveldb::FilterPolicy> policy{leveldb::NewBloomFilterPolicy(bits_per_key)};
        for (const size_t count : {0, 1, 5, 6, 7, 63, 64, 65, 200, 1000}) {
            BOOST_TEST_CONTEXT("bits per key " << bits_per_key << ", keys " << count)
            {
                std::vector<std::string> keys;
                for (size_t i = 0; i < count; ++i) keys.push_back(RandomKey(rand, 60));
                std::vector<leveldb::Slice> slices;
                std::vector<uint32_t> hashes;
                for (const std::string& key : keys) {
                    slices.emplace_back(key.data(), key.size());
                    hashes.push_back(BloomHash(key));
                }
                // Both append: start from the same bytes already there.
                std::string theirs{"prefix"};
                std::string ours{"prefix"};
                policy->CreateFilter(slices.data(), static_cast<int>(slices.size()), &theirs);
                AppendBloomFilter(hashes, bits_per_key, ours);
                BOOST_CHECK_EQUAL(ours.size(), theirs.size());
                BOOST_CHECK(ours == theirs);
                // And the policy finds every key in ours.
                const leveldb::Slice filter{ours.data() + 6, ours.size() - 6};
                for (const leveldb::Slice& key : slices) BOOST_CHECK(policy->KeyMayMatch(key, filter));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(only_leveldb_builtin_policy_is_built_here)
{
    for (const int bits_per_key : {1, 7, 10, 16}) {
        const std::unique_ptr<const leveldb::FilterPolicy> policy{leveldb::NewBloomFilterPolicy(bits_per_key)};
        BOOST_CHECK_EQUAL(BuiltinBloomBitsPerKey(*policy), bits_per_key);
    }
    BOOST_CHECK_EQUAL(BuiltinBloomBitsPerKey(ImpostorPolicy{}), 0);
    BOOST_CHECK_EQUAL(BuiltinBloomBitsPerKey(OtherPolicy{}), 0);
}

BOOST_AUTO_TEST_SUITE_END()
