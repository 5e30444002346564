// MuHash3072: the empty set's digest, and the set properties checked
// against a model (a multiset of random items), in any order. Byte
// compatibility with Bitcoin Core is checked on a real UTXO set in
// vector_tests (Core's gettxoutsetinfo muhash).

#include <crypto/muhash.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using Item = std::vector<unsigned char>;

std::string Digest(const MuHash3072& muhash) { return HexStr(muhash.Finalize()); }

std::string DigestOf(const std::vector<Item>& items)
{
    MuHash3072 muhash;
    for (const Item& item : items) muhash.Insert(item);
    return Digest(muhash);
}

std::vector<Item> RandomItems(std::mt19937_64& rng, size_t count)
{
    std::vector<Item> items(count);
    for (Item& item : items) {
        item.resize(rng() % 80);
        for (auto& byte : item) byte = static_cast<unsigned char>(rng());
    }
    return items;
}

} // namespace

BOOST_AUTO_TEST_SUITE(muhash_tests)

BOOST_AUTO_TEST_CASE(empty_set_is_sha256_of_one)
{
    // SHA256 of the number 1 as 384 little-endian bytes.
    BOOST_CHECK_EQUAL(Digest(MuHash3072{}), "c85525462fdcf30a2c18d6f4b92923000974355c2477f59594d2c205a1d25add");
}

BOOST_AUTO_TEST_CASE(set_properties_against_a_model)
{
    std::mt19937_64 rng{20261124};
    for (int round = 0; round < 20; ++round) {
        const auto items = RandomItems(rng, 1 + rng() % 12);
        const std::string want = DigestOf(items);

        // Any order gives the same digest.
        auto shuffled = items;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        BOOST_CHECK_EQUAL(DigestOf(shuffled), want);

        // Inserting extras and removing them again changes nothing; the
        // digest in between differs.
        const auto extras = RandomItems(rng, 1 + rng() % 4);
        MuHash3072 muhash;
        for (const Item& item : items) muhash.Insert(item);
        for (const Item& item : extras) muhash.Insert(item);
        BOOST_CHECK_NE(Digest(muhash), want);
        for (const Item& item : extras) muhash.Remove(item);
        BOOST_CHECK_EQUAL(Digest(muhash), want);

        // Splitting the set in two and combining the halves is the same.
        const size_t split = rng() % (items.size() + 1);
        MuHash3072 left;
        MuHash3072 right;
        for (size_t i = 0; i < items.size(); ++i) (i < split ? left : right).Insert(items[i]);
        left *= right;
        BOOST_CHECK_EQUAL(Digest(left), want);

        // A multiset: an item inserted twice is not the item once.
        if (!items.empty()) {
            auto doubled = items;
            doubled.push_back(items.front());
            BOOST_CHECK_NE(DigestOf(doubled), want);
        }
    }
}

BOOST_AUTO_TEST_CASE(finalize_leaves_the_state_alone)
{
    MuHash3072 muhash;
    const Item a{1, 2, 3};
    muhash.Insert(a);
    const std::string first = Digest(muhash);
    BOOST_CHECK_EQUAL(Digest(muhash), first);
    muhash.Remove(a);
    BOOST_CHECK_EQUAL(Digest(muhash), Digest(MuHash3072{}));
}

BOOST_AUTO_TEST_SUITE_END()
