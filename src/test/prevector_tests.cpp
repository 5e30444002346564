// prevector against std::vector as the model: random operations on both,
// compared after every step, across the inline/heap boundary both ways;
// plus the layout (N + 1 bytes while N < 255) and the heap use the cache
// counts.

#include <prevector.h>
#include <script/script.h>
#include <serialize.h>
#include <streams.h>

#include <boost/test/unit_test.hpp>

#include <random>
#include <vector>

namespace {

using Small = prevector<16, unsigned char>;

void CheckEqual(const Small& p, const std::vector<unsigned char>& model, int step)
{
    BOOST_REQUIRE_MESSAGE(p.size() == model.size(), "step " << step << ": size " << p.size() << " != " << model.size());
    BOOST_REQUIRE_MESSAGE(std::equal(p.begin(), p.end(), model.begin()), "step " << step << ": contents differ");
    // Inline exactly when the contents fit there.
    BOOST_REQUIRE_MESSAGE((p.allocated_memory() == 0) == (p.size() <= Small::STATIC_SIZE), "step " << step << ": heap use " << p.allocated_memory() << " at size " << p.size());
    BOOST_REQUIRE(p.capacity() >= p.size());
}

} // namespace

BOOST_AUTO_TEST_SUITE(prevector_tests)

BOOST_AUTO_TEST_CASE(layout)
{
    // A one-byte tag after the inline elements, up to 254 of them; then 4.
    BOOST_CHECK_EQUAL(sizeof(Small), 17U);
    BOOST_CHECK_EQUAL(sizeof(prevector<35, unsigned char>), 36U);
    BOOST_CHECK_EQUAL(sizeof(prevector<254, unsigned char>), 255U);
    BOOST_CHECK_EQUAL(sizeof(prevector<255, unsigned char>), 259U);
    BOOST_CHECK_EQUAL(sizeof(prevector<4, uint32_t>), 17U);
    BOOST_CHECK_EQUAL(alignof(prevector<35, unsigned char>), 1U);
    static_assert(prevector<35, unsigned char>::STATIC_SIZE == 35);
    static_assert(CScriptBase::STATIC_SIZE == SCRIPT_INLINE_BYTES);
}

BOOST_AUTO_TEST_CASE(static_size_is_the_inline_capacity)
{
    // Up to STATIC_SIZE elements allocate nothing; one more moves to the heap.
    CScriptBase v(CScriptBase::STATIC_SIZE, 0x51);
    BOOST_CHECK_EQUAL(v.allocated_memory(), 0U);
    v.push_back(0x51);
    BOOST_CHECK_GE(v.allocated_memory(), CScriptBase::STATIC_SIZE + 1);
}

BOOST_AUTO_TEST_CASE(random_operations_match_std_vector)
{
    std::mt19937 rng{42};
    auto below = [&](uint32_t n) { return std::uniform_int_distribution<uint32_t>{0, n - 1}(rng); };
    Small p;
    std::vector<unsigned char> model;
    for (int step = 0; step < 20'000; ++step) {
        const unsigned char value = static_cast<unsigned char>(below(256));
        switch (below(11)) {
        case 0:
            p.push_back(value);
            model.push_back(value);
            break;
        case 1: {
            const uint32_t at = below(p.size() + 1), n = below(12);
            p.insert(p.begin() + at, n, value);
            model.insert(model.begin() + at, n, value);
            break;
        }
        case 2: {
            const std::vector<unsigned char> src(below(20), value);
            const uint32_t at = below(p.size() + 1);
            p.insert(p.begin() + at, src.begin(), src.end());
            model.insert(model.begin() + at, src.begin(), src.end());
            break;
        }
        case 3:
            if (!p.empty()) {
                // Inserting a range of itself.
                const uint32_t from = below(p.size()), to = from + below(p.size() - from) + 1, at = below(p.size() + 1);
                p.insert(p.begin() + at, p.begin() + from, p.begin() + to);
                const std::vector<unsigned char> part(model.begin() + from, model.begin() + to);
                model.insert(model.begin() + at, part.begin(), part.end());
            }
            break;
        case 4:
            if (!p.empty()) {
                const uint32_t from = below(p.size()), to = from + below(p.size() - from + 1);
                p.erase(p.begin() + from, p.begin() + to);
                model.erase(model.begin() + from, model.begin() + to);
            }
            break;
        case 5: {
            // Now and then past 255, which a one-byte tag cannot hold: the
            // heap half keeps its own 32-bit size.
            const uint32_t n = below(8) == 0 ? below(700) : below(30);
            p.resize(n, value);
            model.resize(n, value);
            break;
        }
        case 6: {
            Small copy{p};
            CheckEqual(copy, model, step);
            Small moved{std::move(copy)};
            CheckEqual(moved, model, step);
            BOOST_REQUIRE(copy.empty());
            p = moved;
            break;
        }
        case 7: {
            Small other(below(20), value);
            std::vector<unsigned char> other_model(other.begin(), other.end());
            p.swap(other);
            std::swap(model, other_model);
            CheckEqual(other, other_model, step);
            break;
        }
        case 8:
            if (p.size() > 20) {
                p.clear();
                model.clear();
            }
            break;
        case 9:
            p.reserve(below(40));
            p.shrink_to_fit();
            break;
        default: {
            // Serialized exactly as a byte vector, and read back.
            DataStream a, b;
            a << p;
            b << model;
            BOOST_REQUIRE(std::ranges::equal(a.Unread(), b.Unread()));
            Small read;
            a >> read;
            BOOST_REQUIRE(read == p);
            break;
        }
        }
        CheckEqual(p, model, step);
    }
}

BOOST_AUTO_TEST_CASE(large_sizes_round_trip_through_the_heap)
{
    // Sizes the one-byte tag cannot spell, grown one element at a time and
    // shrunk back home, for both tag widths.
    auto check = [](auto v) {
        using V = decltype(v);
        for (uint32_t i = 0; i < 10'000; ++i) v.push_back(static_cast<unsigned char>(i * 7));
        BOOST_REQUIRE_EQUAL(v.size(), 10'000U);
        for (uint32_t i = 0; i < 10'000; ++i) BOOST_REQUIRE_EQUAL(v[i], static_cast<unsigned char>(i * 7));
        V copy{v};
        BOOST_CHECK(copy == v);
        v.resize(V::STATIC_SIZE);
        BOOST_CHECK_EQUAL(v.allocated_memory(), 0U);
        BOOST_CHECK_EQUAL(v.size(), V::STATIC_SIZE);
        BOOST_CHECK(std::equal(v.begin(), v.end(), copy.begin()));
    };
    check(prevector<16, unsigned char>{});
    check(prevector<300, unsigned char>{});
}

BOOST_AUTO_TEST_CASE(comparison_is_lexicographic)
{
    BOOST_CHECK(Small({1, 2}) < Small({1, 2, 0}));
    BOOST_CHECK(Small({1, 3}) > Small(10, 1));
    BOOST_CHECK(Small(10, 1) == Small(10, 1));
    BOOST_CHECK(Small(10, 1) != Small(9, 1));
}

BOOST_AUTO_TEST_SUITE_END()
