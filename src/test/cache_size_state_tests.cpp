// node/chainstate/chainstate.h: CoinsCacheSizeStateOf, the state table beside it. The
// budget decides until the map nears its last slot; from there on the
// cache is CRITICAL (written out) whatever its budget, so that a huge
// -dbcache flushes instead of failing an insert.

#include <coins.h>
#include <node/chainstate/chainstate.h>

#include <boost/test/unit_test.hpp>

#include <cstddef>

using node::CACHE_ENTRY_HEADROOM;
using node::CoinsCacheSizeState;
using node::CoinsCacheSizeStateOf;

namespace {

constexpr size_t MIB{size_t{1} << 20};
constexpr size_t MAX_ENTRIES{CCoinsViewCache::MAX_ENTRIES};
// A budget no usage below reaches: only the entry count can decide.
constexpr size_t HUGE_BUDGET{size_t{1} << 50};

struct Row {
    size_t usage;
    size_t entries;
    size_t budget;
    CoinsCacheSizeState state;
};

// clang-format off
constexpr Row ROWS[]{
    // usage          entries                                budget       state
    {0,               0,                                     450 * MIB,   CoinsCacheSizeState::OK},
    {405 * MIB,       4'000'000,                             450 * MIB,   CoinsCacheSizeState::OK},
    {405 * MIB + 1,   4'000'000,                             450 * MIB,   CoinsCacheSizeState::LARGE},
    {450 * MIB,       4'000'000,                             450 * MIB,   CoinsCacheSizeState::LARGE},
    {450 * MIB + 1,   4'000'000,                             450 * MIB,   CoinsCacheSizeState::CRITICAL},
    // The map's slots: CRITICAL from MAX_ENTRIES - CACHE_ENTRY_HEADROOM on,
    // however much budget is left.
    {100 * MIB,       MAX_ENTRIES - CACHE_ENTRY_HEADROOM - 1, HUGE_BUDGET, CoinsCacheSizeState::OK},
    {100 * MIB,       MAX_ENTRIES - CACHE_ENTRY_HEADROOM,     HUGE_BUDGET, CoinsCacheSizeState::CRITICAL},
    {100 * MIB,       MAX_ENTRIES,                            HUGE_BUDGET, CoinsCacheSizeState::CRITICAL},
    {HUGE_BUDGET,     MAX_ENTRIES - CACHE_ENTRY_HEADROOM - 1, HUGE_BUDGET, CoinsCacheSizeState::LARGE},
};
// clang-format on

} // namespace

BOOST_AUTO_TEST_SUITE(cache_size_state_tests)

BOOST_AUTO_TEST_CASE(state_table)
{
    for (const Row& row : ROWS) {
        BOOST_TEST_CONTEXT("usage " << row.usage << ", entries " << row.entries << ", budget " << row.budget)
        {
            BOOST_CHECK(CoinsCacheSizeStateOf(row.usage, row.entries, row.budget) == row.state);
        }
    }
}

BOOST_AUTO_TEST_CASE(the_headroom_leaves_most_of_the_map_usable)
{
    // The cap is the map's, not a tighter one: a billion coins still fit.
    BOOST_CHECK_GT(MAX_ENTRIES - CACHE_ENTRY_HEADROOM, size_t{1'000'000'000});
    BOOST_CHECK_LT(MAX_ENTRIES, size_t{1} << CCoinsCacheEntry::LINK_BITS);
}

BOOST_AUTO_TEST_SUITE_END()
