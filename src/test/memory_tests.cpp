// GetResidentBytes (util/memory.h): the resident set it reports follows
// memory this process actually touches.

#include <util/memory.h>

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <memory>

BOOST_AUTO_TEST_SUITE(memory_tests)

BOOST_AUTO_TEST_CASE(resident_set_follows_touched_memory)
{
    const auto before = GetResidentBytes();
    BOOST_REQUIRE(before.has_value());
    // A test binary is resident in more than a MiB.
    BOOST_CHECK_GT(*before, size_t{1} << 20);

    constexpr size_t TOUCHED = size_t{64} << 20;
    auto block = std::make_unique<unsigned char[]>(TOUCHED);
    std::memset(block.get(), 0x5a, TOUCHED);
    const auto after = GetResidentBytes();
    BOOST_REQUIRE(after.has_value());
    // Every page was written, so all of them are resident now.
    BOOST_CHECK_GE(*after, *before + TOUCHED - (size_t{4} << 20));
    BOOST_CHECK_EQUAL(block[TOUCHED - 1], 0x5a);
}

BOOST_AUTO_TEST_SUITE_END()
