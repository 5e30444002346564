// The flagged list on its own (CoinsFlaggedList, coins.h): entries join at
// the tail on their first flag, stay put on later flags, leave on SetClean(),
// the sentinel links to itself when the list is empty, and Forget() empties
// it after the map's clear(); only an entry on no list moves. The links are
// arena slots, across the arena's chunks. Random sequences of those
// operations are compared with a std::list model.

#include <coins.h>
#include <test/util/cache_entries.h>
#include <test/util/coin_compare.h>

#include <boost/test/unit_test.hpp>

#include <list>
#include <map>
#include <random>
#include <type_traits>
#include <vector>

namespace {

constexpr int DIRTY = CCoinsCacheEntry::DIRTY;
constexpr int FRESH = CCoinsCacheEntry::FRESH;

COutPoint OutpointOf(uint32_t i) { return COutPoint{uint256{}, i}; }

Coin SomeCoin(uint32_t i) { return Coin{CTxOut{static_cast<CAmount>(i) + 1, CScript{0x51}}, 1, false}; }

// The list read both ways from the sentinel, checking that the two agree
// and that every member is flagged. Stops at the map size plus one, so a
// broken cycle fails instead of looping.
std::vector<uint32_t> ReadList(const FlaggedMap& flagged)
{
    std::vector<uint32_t> forward;
    const CoinsFlaggedList& list = flagged.list;
    for (const CoinsCachePair* it = list.First(); it != list.End(); it = list.Next(*it)) {
        BOOST_REQUIRE(it != nullptr);
        BOOST_REQUIRE_LE(forward.size(), flagged.map.size());
        BOOST_CHECK(it->second.IsDirty() || it->second.IsFresh());
        BOOST_CHECK(list.Prev(*list.Next(*it)) == it);
        // A member is the map's own entry for its key.
        BOOST_CHECK(&*flagged.map.find(it->first) == it);
        forward.push_back(it->first.n);
    }
    std::vector<uint32_t> backward;
    for (const CoinsCachePair* it = list.Last(); it != list.End(); it = list.Prev(*it)) {
        BOOST_REQUIRE(it != nullptr);
        BOOST_REQUIRE_LE(backward.size(), flagged.map.size());
        backward.insert(backward.begin(), it->first.n);
    }
    BOOST_CHECK(forward == backward);
    return forward;
}

std::vector<uint32_t> Ids(std::initializer_list<uint32_t> ids) { return ids; }

} // namespace

BOOST_AUTO_TEST_SUITE(coinscachepair_tests)

BOOST_AUTO_TEST_CASE(empty_list_is_a_self_linked_sentinel)
{
    FlaggedMap flagged;
    BOOST_CHECK(flagged.list.Empty());
    BOOST_CHECK(flagged.list.First() == flagged.list.End());
    BOOST_CHECK(flagged.list.Last() == flagged.list.End());
    // Clean entries stay off the list.
    CoinsCachePair& clean = flagged.Add(OutpointOf(1), SomeCoin(1), 0);
    BOOST_CHECK_EQUAL(FlagsOf(clean.second), 0);
    BOOST_CHECK(flagged.list.Empty());
    BOOST_CHECK(ReadList(flagged).empty());
}

BOOST_AUTO_TEST_CASE(first_flag_links_at_the_tail)
{
    FlaggedMap flagged;
    CoinsCachePair& a = flagged.Add(OutpointOf(1), SomeCoin(1), DIRTY);
    CoinsCachePair& b = flagged.Add(OutpointOf(2), SomeCoin(2), DIRTY | FRESH);
    flagged.Add(OutpointOf(3), SomeCoin(3), 0);
    const CoinsFlaggedList& list = flagged.list;
    BOOST_CHECK(ReadList(flagged) == Ids({1, 2}));
    BOOST_CHECK(!list.Empty());
    BOOST_CHECK(list.First() == &a);
    BOOST_CHECK(list.Prev(a) == list.End());
    BOOST_CHECK(list.Next(a) == &b);
    BOOST_CHECK(list.Next(b) == list.End());
    BOOST_CHECK(list.Last() == &b);

    // A later flag on a listed entry does not move it.
    flagged.list.SetFresh(flagged.map.find(OutpointOf(1)));
    flagged.list.SetDirty(flagged.map.find(OutpointOf(2)));
    BOOST_CHECK(ReadList(flagged) == Ids({1, 2}));
    BOOST_CHECK_EQUAL(FlagsOf(a.second), DIRTY | FRESH);

    // FRESH alone (a state only tests build) is a flag too.
    flagged.list.SetFresh(flagged.map.find(OutpointOf(3)));
    BOOST_CHECK(ReadList(flagged) == Ids({1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(set_clean_unlinks_from_anywhere)
{
    // Head, middle and tail, each on a fresh list of five.
    for (const uint32_t victim : {1U, 3U, 5U}) {
        BOOST_TEST_CONTEXT("clean entry " << victim)
        {
            FlaggedMap flagged;
            for (uint32_t i = 1; i <= 5; ++i) flagged.Add(OutpointOf(i), SomeCoin(i), DIRTY);
            const auto it = flagged.map.find(OutpointOf(victim));
            flagged.list.SetClean(*it);
            BOOST_CHECK_EQUAL(FlagsOf(it->second), 0);
            std::vector<uint32_t> expected{1, 2, 3, 4, 5};
            std::erase(expected, victim);
            BOOST_CHECK(ReadList(flagged) == expected);
            // Cleaning twice changes nothing.
            flagged.list.SetClean(*it);
            BOOST_CHECK(ReadList(flagged) == expected);
            // Flagged again, it is the newest: back at the tail.
            flagged.list.SetDirty(it);
            expected.push_back(victim);
            BOOST_CHECK(ReadList(flagged) == expected);
        }
    }
}

BOOST_AUTO_TEST_CASE(cleaned_entries_erase_and_a_cleared_map_is_forgotten)
{
    FlaggedMap flagged;
    for (uint32_t i = 1; i <= 4; ++i) flagged.Add(OutpointOf(i), SomeCoin(i), i == 3 ? 0 : DIRTY);
    const auto two = flagged.map.find(OutpointOf(2));
    flagged.list.SetClean(*two);
    flagged.map.erase(two);
    BOOST_CHECK(ReadList(flagged) == Ids({1, 4}));
    flagged.map.erase(OutpointOf(3)); // clean: never linked
    BOOST_CHECK(ReadList(flagged) == Ids({1, 4}));
    // The freed slots go to new entries, which link in at the tail.
    flagged.Add(OutpointOf(5), SomeCoin(5), DIRTY);
    flagged.Add(OutpointOf(6), SomeCoin(6), DIRTY);
    BOOST_CHECK(ReadList(flagged) == Ids({1, 4, 5, 6}));
    flagged.map.clear();
    flagged.list.Forget();
    BOOST_CHECK(flagged.list.Empty());
    BOOST_CHECK(flagged.list.First() == flagged.list.End());
    BOOST_CHECK(flagged.list.Last() == flagged.list.End());
    // The arena starts again from its first slot; the list works on.
    flagged.Add(OutpointOf(7), SomeCoin(7), DIRTY);
    BOOST_CHECK(ReadList(flagged) == Ids({7}));
}

BOOST_AUTO_TEST_CASE(rehash_keeps_links)
{
    // Growing the map rehashes it many times and fills chunk after chunk of
    // its arena (64, 128, ... 4096 slots): links name slots in all of them.
    FlaggedMap flagged;
    std::vector<uint32_t> expected;
    for (uint32_t i = 0; i < 5000; ++i) {
        const bool flag = i % 3 != 0;
        flagged.Add(OutpointOf(i), SomeCoin(i), flag ? DIRTY : 0);
        if (flag) expected.push_back(i);
    }
    BOOST_CHECK(ReadList(flagged) == expected);
}

// An entry built outside a map moves into one, as Core's tests move theirs
// (map.emplace(outpoint, std::move(entry))): the coin goes with it, its
// script's heap block included, and the new entry carries no flags and no
// links until it is flagged in the map. Copies stay impossible, and so does
// moving a flagged entry (an assert, which a test cannot survive).
BOOST_AUTO_TEST_CASE(unflagged_entry_moves_into_a_map)
{
    static_assert(std::is_nothrow_move_constructible_v<CCoinsCacheEntry>);
    static_assert(!std::is_copy_constructible_v<CCoinsCacheEntry>);
    static_assert(!std::is_move_assignable_v<CCoinsCacheEntry>);
    struct Case {
        const char* what;
        Coin coin;
        bool script_on_heap;
    };
    // clang-format off
    const Case cases[]{
        // what            coin                                                      script on heap
        {"spent",          Coin{},                                                   false},
        {"inline script",  Coin{CTxOut{7, CScript(SCRIPT_INLINE_BYTES, 0x51)}, 3, true}, false},
        {"heap script",    Coin{CTxOut{8, CScript(SCRIPT_INLINE_BYTES + 1, 0x52)}, 4, false}, true},
    };
    // clang-format on
    uint32_t id = 0;
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.what)
        {
            CCoinsCacheEntry built{Coin{c.coin}};
            const size_t heap = built.coin.DynamicMemoryUsage();
            BOOST_CHECK_EQUAL(heap > 0, c.script_on_heap);

            CCoinsCacheEntry moved{std::move(built)};
            BOOST_CHECK(SameCoin(moved.coin, c.coin));
            BOOST_CHECK_EQUAL(moved.coin.IsSpent(), c.coin.IsSpent());
            BOOST_CHECK_EQUAL(FlagsOf(moved), 0);
            // Moved, not copied: the heap block changed hands.
            BOOST_CHECK_EQUAL(moved.coin.DynamicMemoryUsage(), heap);
            BOOST_CHECK_EQUAL(built.coin.DynamicMemoryUsage(), 0U);

            FlaggedMap flagged;
            flagged.Add(OutpointOf(100), SomeCoin(100), DIRTY);
            const COutPoint outpoint = OutpointOf(id++);
            auto [it, inserted] = flagged.map.try_emplace(outpoint, std::move(moved));
            BOOST_CHECK(inserted);
            BOOST_CHECK(SameCoin(it->second.coin, c.coin));
            BOOST_CHECK_EQUAL(it->second.coin.DynamicMemoryUsage(), heap);
            BOOST_CHECK_EQUAL(FlagsOf(it->second), 0);
            BOOST_CHECK(ReadList(flagged) == Ids({100}));
            SetFlags(it, flagged.list, DIRTY);
            BOOST_CHECK(ReadList(flagged) == Ids({100, outpoint.n}));
        }
    }
}

BOOST_AUTO_TEST_CASE(random_operations_match_a_model)
{
    for (const uint64_t seed : {1, 2, 3}) {
        BOOST_TEST_CONTEXT("seed " << seed)
        {
            std::mt19937_64 rng{seed};
            FlaggedMap flagged;
            // The list as it should be, and each entry's flags.
            std::list<uint32_t> model;
            std::map<uint32_t, int> flags;
            constexpr uint32_t IDS = 40;
            for (int step = 0; step < 4000; ++step) {
                const uint32_t id = static_cast<uint32_t>(rng() % IDS);
                const auto it = flagged.map.find(OutpointOf(id));
                switch (rng() % 5) {
                case 0: // insert clean if absent
                    if (it == flagged.map.end()) {
                        flagged.Add(OutpointOf(id), SomeCoin(id), 0);
                        flags[id] = 0;
                    }
                    break;
                case 1: // add a flag
                case 2:
                    if (it != flagged.map.end()) {
                        const int flag = rng() % 2 ? DIRTY : FRESH;
                        if (flags[id] == 0) model.push_back(id);
                        flags[id] |= flag;
                        SetFlags(it, flagged.list, flag);
                    }
                    break;
                case 3: // clean
                    if (it != flagged.map.end()) {
                        flagged.list.SetClean(*it);
                        if (flags[id] != 0) model.remove(id);
                        flags[id] = 0;
                    }
                    break;
                case 4: // erase, as a cache does: off the list first
                    if (it != flagged.map.end()) {
                        flagged.list.SetClean(*it);
                        flagged.map.erase(it);
                        if (flags[id] != 0) model.remove(id);
                        flags.erase(id);
                    }
                    break;
                }
                const std::vector<uint32_t> expected{model.begin(), model.end()};
                BOOST_REQUIRE_MESSAGE(ReadList(flagged) == expected, "step " << step);
                for (const auto& [key, entry] : flagged.map) BOOST_REQUIRE_EQUAL(FlagsOf(entry), flags.at(key.n));
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
