// SortPrefix (util/sort_prefix.h): fixed values, and for random byte
// strings of 0 to 12 bytes the numbers order them as their first 8 bytes,
// zero-padded, compare byte by byte.

#include <util/sort_prefix.h>

#include <test/util/random.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using Bytes = std::vector<unsigned char>;

// The model: the first 8 bytes, zero-padded, compared byte by byte.
int ComparePadded(const Bytes& a, const Bytes& b)
{
    for (size_t i = 0; i < 8; ++i) {
        const unsigned char x = i < a.size() ? a[i] : 0;
        const unsigned char y = i < b.size() ? b[i] : 0;
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sort_prefix_tests)

BOOST_AUTO_TEST_CASE(fixed_values)
{
    struct Case {
        Bytes bytes;
        uint64_t prefix;
    };
    for (const Case& c : {
             Case{{}, 0},
             Case{{0x01}, 0x0100000000000000},
             Case{{0xff, 0x00, 0x7f}, 0xff007f0000000000},
             Case{{1, 2, 3, 4, 5, 6, 7, 8}, 0x0102030405060708},
             // Bytes past the eighth do not count.
             Case{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0x0102030405060708},
         }) {
        BOOST_CHECK_EQUAL(SortPrefix(c.bytes), c.prefix);
    }
}

BOOST_AUTO_TEST_CASE(numbers_order_strings_as_their_first_eight_bytes)
{
    TestRand rand{21};
    const auto random_bytes = [&] {
        Bytes bytes(rand.Below(13));
        // Few distinct byte values, so that long common prefixes are common.
        for (unsigned char& byte : bytes) byte = static_cast<unsigned char>(rand.OneIn(2) ? rand.Below(3) : rand.Below(256));
        return bytes;
    };
    for (int i = 0; i < 20000; ++i) {
        const Bytes a = random_bytes();
        const Bytes b = random_bytes();
        const uint64_t pa = SortPrefix(a), pb = SortPrefix(b);
        const int by_number = pa == pb ? 0 : (pa < pb ? -1 : 1);
        BOOST_REQUIRE_EQUAL(by_number, ComparePadded(a, b));
    }
}

BOOST_AUTO_TEST_SUITE_END()
