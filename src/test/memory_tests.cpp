// GetResidentBytes (util/memory.h): the resident set it reports follows
// memory this process actually touches.

#include <util/memory.h>

#include <boost/test/unit_test.hpp>

#include <sys/mman.h>

#include <cstring>

BOOST_AUTO_TEST_SUITE(memory_tests)

BOOST_AUTO_TEST_CASE(resident_set_follows_touched_memory)
{
    const auto before = GetResidentBytes();
    BOOST_REQUIRE(before.has_value());
    // A test binary is resident in more than a MiB.
    BOOST_CHECK_GT(*before, size_t{1} << 20);

    // Fresh pages from the kernel: malloc could hand back a freed region
    // that is still resident (the heap's top after an earlier test in the
    // same process), and then touching it adds nothing.
    constexpr size_t TOUCHED = size_t{64} << 20;
    void* const mapping = mmap(nullptr, TOUCHED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    BOOST_REQUIRE(mapping != MAP_FAILED);
    auto* const block = static_cast<unsigned char*>(mapping);
    std::memset(block, 0x5a, TOUCHED);
    const auto after = GetResidentBytes();
    BOOST_REQUIRE(after.has_value());
    // Every page was written, so all of them are resident now.
    BOOST_CHECK_GE(*after, *before + TOUCHED - (size_t{4} << 20));
    BOOST_CHECK_EQUAL(block[TOUCHED - 1], 0x5a);
    munmap(mapping, TOUCHED);
}

BOOST_AUTO_TEST_SUITE_END()
