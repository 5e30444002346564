// SlabHashMap and SlabArena (util/slab_hash_map.h): random operations agree
// with std::unordered_map; entries never move while they live; erasing
// through an iterator from a lookup or from iteration unlinks the right
// entry from a shared bucket; clear() rewinds the arena so a refill is laid
// out in address order; an entry whose constructor throws leaves the map as
// it was; contains and count agree with the model; emplace inserts only an
// absent key and emplace_absent skips the lookup; prefetch changes nothing;
// the memory figure is exactly entries, buckets and bitmaps; live_at finds
// an entry by its slot; clear_without_destructors runs no destructor.

#include <util/slab_hash_map.h>

#include <test/util/random.h>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// Like a coins cache entry: a key, a value, the map's link in padding.
struct Entry {
    const uint64_t first;
    uint32_t map_link{0};
    std::string second;

    static inline int live{0};
    Entry(uint64_t key, std::string value) : first{key}, second{std::move(value)}
    {
        if (second == "throw") throw std::runtime_error("constructor failed");
        ++live;
    }
    Entry(uint64_t key) : Entry{key, std::string{}} {}
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;
    ~Entry() { --live; }
};

// Few distinct hashes, so that chains of several entries are common.
struct CollidingHash {
    size_t operator()(uint64_t key) const { return (key % 7) * 0x9e3779b97f4a7c15ULL; }
};
// Spread over all buckets.
struct MixingHash {
    size_t operator()(uint64_t key) const { return (key + 1) * 0x9e3779b97f4a7c15ULL ^ (key >> 7); }
};

template <typename Map>
void CheckAgainst(const Map& map, const std::map<uint64_t, std::string>& model)
{
    BOOST_REQUIRE_EQUAL(map.size(), model.size());
    BOOST_CHECK_EQUAL(Entry::live, static_cast<int>(model.size()));
    std::set<uint64_t> seen;
    for (const auto& entry : map) {
        const auto it = model.find(entry.first);
        BOOST_REQUIRE(it != model.end());
        BOOST_CHECK_EQUAL(entry.second, it->second);
        BOOST_CHECK(seen.insert(entry.first).second);
    }
    BOOST_CHECK_EQUAL(seen.size(), model.size());
    for (const auto& [key, value] : model) {
        const auto found = map.find(key);
        BOOST_REQUIRE(found != map.end());
        BOOST_CHECK_EQUAL(found->second, value);
    }
}

template <typename Hash>
void RandomOperationsMatchAModel(uint64_t seed)
{
    TestRand rand{seed};
    SlabHashMap<Entry, Hash> map;
    std::map<uint64_t, std::string> model;
    std::unordered_map<uint64_t, const Entry*> addresses;
    for (int step = 0; step < 20000; ++step) {
        const uint64_t key = rand.Below(600);
        switch (rand.Below(10)) {
        case 0: case 1: case 2: case 3: {
            const std::string value = std::to_string(rand.Next());
            // emplace is try_emplace under the standard name.
            auto [it, inserted] = rand.Bool() ? map.try_emplace(key, value) : map.emplace(key, value);
            BOOST_CHECK_EQUAL(inserted, !model.contains(key));
            if (inserted) {
                model[key] = value;
                addresses[key] = &*it;
            }
            BOOST_CHECK_EQUAL(it->first, key);
            BOOST_CHECK_EQUAL(it->second, model[key]);
            break;
        }
        case 4: case 5: { // erase through a lookup's iterator
            const auto it = map.find(key);
            BOOST_CHECK_EQUAL(it != map.end(), model.contains(key));
            BOOST_CHECK_EQUAL(map.contains(key), model.contains(key));
            BOOST_CHECK_EQUAL(map.count(key), model.count(key));
            if (it != map.end()) {
                map.erase(it);
                model.erase(key);
                addresses.erase(key);
            }
            break;
        }
        case 6: // erase by key
            BOOST_CHECK_EQUAL(map.erase(key), model.erase(key));
            addresses.erase(key);
            break;
        case 7: { // erase through an iterator from iteration
            if (model.empty()) break;
            auto it = map.begin();
            for (uint64_t skip = rand.Below(model.size()); skip > 0; --skip) ++it;
            const uint64_t erased = it->first;
            map.erase(it);
            model.erase(erased);
            addresses.erase(erased);
            break;
        }
        case 8:
            if (rand.OneIn(40)) {
                map.clear();
                model.clear();
                addresses.clear();
            } else if (rand.OneIn(20)) {
                map.reserve(map.size() + rand.Below(300));
            }
            break;
        case 9: // live entries never move
            for (const auto& [k, address] : addresses) BOOST_REQUIRE(&*map.find(k) == address);
            break;
        }
        if (step % 1000 == 0) CheckAgainst(map, model);
    }
    CheckAgainst(map, model);
}

} // namespace

BOOST_AUTO_TEST_SUITE(slab_hash_map_tests)

BOOST_AUTO_TEST_CASE(random_operations_match_a_model)
{
    for (uint64_t seed : {1, 2, 3}) {
        BOOST_TEST_CONTEXT("seed " << seed)
        {
            RandomOperationsMatchAModel<MixingHash>(seed);
            RandomOperationsMatchAModel<CollidingHash>(seed);
        }
    }
    BOOST_CHECK_EQUAL(Entry::live, 0);
}

BOOST_AUTO_TEST_CASE(erasing_from_a_shared_bucket_keeps_the_others)
{
    // One bucket for all: every entry is in one chain.
    struct OneBucket {
        size_t operator()(uint64_t) const { return 0; }
    };
    for (uint64_t victim = 0; victim < 5; ++victim) {
        BOOST_TEST_CONTEXT("victim " << victim)
        {
            SlabHashMap<Entry, OneBucket> map;
            for (uint64_t key = 0; key < 5; ++key) map.try_emplace(key, std::to_string(key));
            BOOST_CHECK_EQUAL(map.erase(victim), 1U);
            BOOST_CHECK_EQUAL(map.size(), 4U);
            for (uint64_t key = 0; key < 5; ++key) {
                BOOST_CHECK_EQUAL(map.find(key) != map.end(), key != victim);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(slots_are_reused_last_freed_first_and_rewound_by_clear)
{
    SlabArena<Entry> arena;
    SlabHashMap<Entry, MixingHash> map{0, MixingHash{}, {}, &arena};
    std::vector<const Entry*> first_fill;
    for (uint64_t key = 0; key < 300; ++key) first_fill.push_back(&*map.try_emplace(key).first);
    // Consecutive slots of the first chunk (64 entries) are adjacent.
    BOOST_CHECK(first_fill[1] == first_fill[0] + 1);
    BOOST_CHECK_EQUAL(arena.HighWater(), 300U);

    map.erase(10);
    map.erase(20);
    // The last slot freed is the first reused; no new slot is opened.
    BOOST_CHECK(&*map.try_emplace(1000).first == first_fill[20]);
    BOOST_CHECK(&*map.try_emplace(1001).first == first_fill[10]);
    BOOST_CHECK_EQUAL(arena.HighWater(), 300U);
    BOOST_CHECK_EQUAL(arena.InUse(), 300U);

    map.clear();
    BOOST_CHECK_EQUAL(Entry::live, 0);
    BOOST_CHECK_EQUAL(arena.InUse(), 0U);
    BOOST_CHECK_EQUAL(arena.HighWater(), 0U);
    BOOST_CHECK(map.begin() == map.end());
    // The refill takes the same memory, from the start, in order.
    for (uint64_t key = 500; key < 800; ++key) {
        BOOST_CHECK(&*map.try_emplace(key).first == first_fill[key - 500]);
    }
}

BOOST_AUTO_TEST_CASE(chunks_double_and_indexes_cross_them)
{
    SlabArena<Entry> arena;
    SlabHashMap<Entry, MixingHash> map{0, MixingHash{}, {}, &arena};
    // 64 + 128 + 256 + 512 slots fill the first four chunks exactly.
    constexpr uint64_t COUNT = 64 + 128 + 256 + 512 + 1;
    for (uint64_t key = 0; key < COUNT; ++key) map.try_emplace(key, std::to_string(key));
    uint32_t index = 0;
    for (uint64_t key = 0; key < COUNT; ++key, ++index) {
        BOOST_REQUIRE(arena.IsLive(index));
        BOOST_CHECK(arena.At(index) == &*map.find(key));
        BOOST_CHECK_EQUAL(map.find(key).slot(), index);
        BOOST_CHECK_EQUAL(arena.At(index)->second, std::to_string(key));
    }
    BOOST_CHECK(!arena.IsLive(COUNT));
    // Iteration goes by slot: the order of insertion here.
    uint64_t expected = 0;
    for (const auto& entry : map) BOOST_CHECK_EQUAL(entry.first, expected++);
    BOOST_CHECK_EQUAL(expected, COUNT);
    // Iteration skips a freed slot at a chunk boundary.
    map.erase(63);
    map.erase(64);
    BOOST_CHECK_EQUAL(arena.NextLive(63), 65U);
    BOOST_CHECK_EQUAL(arena.NextLive(COUNT), SlabArena<Entry>::NIL);
}

BOOST_AUTO_TEST_CASE(a_full_arena_refuses_the_next_entry)
{
    // 8-bit indexes: chunks of 64 and 128 slots, 192 in all.
    using SmallArena = SlabArena<Entry, 8>;
    static_assert(SmallArena::MAX_SLOTS == 192);
    SmallArena arena;
    SlabHashMap<Entry, MixingHash, std::equal_to<uint64_t>, 8> map{0, MixingHash{}, {}, &arena};
    for (uint64_t key = 0; key < SmallArena::MAX_SLOTS; ++key) {
        const auto [it, inserted] = map.try_emplace(key, "v");
        BOOST_REQUIRE(inserted);
        BOOST_CHECK_LT(it.slot(), uint32_t{1} << 8);
    }
    BOOST_CHECK_THROW(map.try_emplace(uint64_t{1000}, "v"), std::length_error);
    BOOST_CHECK_EQUAL(map.size(), SmallArena::MAX_SLOTS);
    BOOST_CHECK(map.find(1000) == map.end());
    // A freed slot is taken again; the map still works after the refusal.
    map.erase(5);
    BOOST_CHECK(map.try_emplace(uint64_t{1000}, "w").second);
    BOOST_CHECK_EQUAL(map.find(1000)->second, "w");
    BOOST_CHECK_EQUAL(map.size(), SmallArena::MAX_SLOTS);
}

BOOST_AUTO_TEST_CASE(a_throwing_constructor_leaves_the_map_as_it_was)
{
    SlabArena<Entry> arena;
    SlabHashMap<Entry, MixingHash> map{0, MixingHash{}, {}, &arena};
    for (uint64_t key = 0; key < 10; ++key) map.try_emplace(key, "v");
    BOOST_CHECK_THROW(map.try_emplace(uint64_t{99}, "throw"), std::runtime_error);
    BOOST_CHECK_EQUAL(map.size(), 10U);
    BOOST_CHECK(map.find(99) == map.end());
    BOOST_CHECK_EQUAL(arena.InUse(), 10U);
    // The slot went back: the next insert takes it, opening none.
    const uint32_t high_water = arena.HighWater();
    map.try_emplace(uint64_t{99}, "ok");
    BOOST_CHECK_EQUAL(arena.HighWater(), high_water);
    BOOST_CHECK_EQUAL(map.find(99)->second, "ok");
}

BOOST_AUTO_TEST_CASE(emplace_absent_inserts_without_looking)
{
    SlabHashMap<Entry, CollidingHash> map;
    for (uint64_t key = 0; key < 100; ++key) {
        const auto it = map.emplace_absent(key, std::to_string(key));
        BOOST_CHECK_EQUAL(it->first, key);
    }
    BOOST_CHECK_EQUAL(map.size(), 100U);
    BOOST_CHECK_GE(map.bucket_count(), 100U);
    for (uint64_t key = 0; key < 100; ++key) BOOST_CHECK_EQUAL(map.find(key)->second, std::to_string(key));
    // It does not look: a present key goes in a second time, which is why
    // its callers must know the key is absent.
    map.emplace_absent(uint64_t{7}, "again");
    BOOST_CHECK_EQUAL(map.size(), 101U);
    BOOST_CHECK_EQUAL(map.erase(7), 1U);
    BOOST_CHECK_EQUAL(map.erase(7), 1U);
    BOOST_CHECK(map.find(7) == map.end());
}

// prefetch and prefetch_chain are hints to the CPU: on a map without a bucket array yet and
// on a filled one, for keys present or not, the map stays as it was.
BOOST_AUTO_TEST_CASE(prefetch_changes_nothing)
{
    SlabHashMap<Entry, CollidingHash> map;
    map.prefetch(3);
    map.prefetch_chain(3);
    BOOST_CHECK_EQUAL(map.bucket_count(), 0U);
    BOOST_CHECK_EQUAL(map.DynamicMemoryUsage(), 0U);
    std::map<uint64_t, std::string> model;
    for (uint64_t key = 0; key < 50; ++key) {
        map.try_emplace(key, std::to_string(key));
        model.emplace(key, std::to_string(key));
    }
    const size_t usage = map.DynamicMemoryUsage();
    for (uint64_t key = 0; key < 100; ++key) {
        map.prefetch(key);
        map.prefetch_chain(key);
    }
    BOOST_CHECK_EQUAL(map.DynamicMemoryUsage(), usage);
    CheckAgainst(map, model);
}

// emplace(key, args...) as Core calls it: an absent key gets a new entry,
// a present one is found, its entry left as it was and the arguments
// untouched (a moved-from argument would be empty).
BOOST_AUTO_TEST_CASE(emplace_inserts_only_an_absent_key)
{
    SlabHashMap<Entry, CollidingHash> map;
    struct Step {
        uint64_t key;
        bool inserted;
        const char* value_after;
    };
    // clang-format off
    const Step steps[]{
        // key  inserted  value after
        {3,     true,     "v3"},
        {10,    true,     "v10"}, // CollidingHash: the same bucket as 3
        {3,     false,    "v3"},
        {10,    false,    "v10"},
        {4,     true,     "v4"},
    };
    // clang-format on
    for (const Step& step : steps) {
        BOOST_TEST_CONTEXT("key " << step.key)
        {
            std::string value = "v" + std::to_string(step.key);
            if (!step.inserted) value = "other";
            const size_t size = map.size();
            auto [it, inserted] = map.emplace(step.key, std::move(value));
            BOOST_CHECK_EQUAL(inserted, step.inserted);
            BOOST_CHECK_EQUAL(it->first, step.key);
            BOOST_CHECK_EQUAL(it->second, step.value_after);
            BOOST_CHECK_EQUAL(map.size(), size + inserted);
            BOOST_CHECK(&*map.find(step.key) == &*it);
            if (!inserted) BOOST_CHECK_EQUAL(value, "other");
        }
    }
    BOOST_CHECK_EQUAL(Entry::live, 3);
}

BOOST_AUTO_TEST_CASE(buckets_grow_at_load_factor_one_and_reserve_sizes_them_once)
{
    SlabHashMap<Entry, MixingHash> map;
    BOOST_CHECK_EQUAL(map.bucket_count(), 0U);
    map.try_emplace(uint64_t{0});
    BOOST_CHECK_EQUAL(map.bucket_count(), 16U);
    for (uint64_t key = 1; key < 17; ++key) map.try_emplace(key);
    BOOST_CHECK_EQUAL(map.bucket_count(), 32U);

    SlabHashMap<Entry, MixingHash> reserved;
    reserved.reserve(1000);
    BOOST_CHECK_EQUAL(reserved.bucket_count(), 1000U);
    for (uint64_t key = 0; key < 1000; ++key) reserved.try_emplace(key);
    BOOST_CHECK_EQUAL(reserved.bucket_count(), 1000U);
    reserved.try_emplace(uint64_t{1000});
    BOOST_CHECK_EQUAL(reserved.bucket_count(), 2000U);
    // A smaller reserve never shrinks.
    reserved.reserve(10);
    BOOST_CHECK_EQUAL(reserved.bucket_count(), 2000U);
}

BOOST_AUTO_TEST_CASE(memory_is_entries_buckets_and_bitmaps)
{
    SlabArena<Entry> arena;
    SlabHashMap<Entry, MixingHash> map{100, MixingHash{}, {}, &arena};
    BOOST_CHECK_EQUAL(map.DynamicMemoryUsage(), 100 * sizeof(uint32_t));
    for (uint64_t key = 0; key < 70; ++key) map.try_emplace(key);
    // Two chunks (64 + 128 slots), one bit each.
    BOOST_CHECK_EQUAL(arena.BitmapBytes(), (64 + 128) / 8U);
    BOOST_CHECK_EQUAL(map.DynamicMemoryUsage(), 70 * sizeof(Entry) + 100 * sizeof(uint32_t) + (64 + 128) / 8);
    map.erase(5);
    BOOST_CHECK_EQUAL(map.DynamicMemoryUsage(), 69 * sizeof(Entry) + 100 * sizeof(uint32_t) + (64 + 128) / 8);
}

// live_at finds an entry by the slot its iterator reports, and nothing in
// a slot that was freed or never used; prefetch_slot changes nothing.
BOOST_AUTO_TEST_CASE(live_at_finds_entries_by_slot)
{
    SlabHashMap<Entry, MixingHash> map;
    std::vector<uint32_t> slots;
    for (uint64_t key = 0; key < 200; ++key) slots.push_back(map.try_emplace(key, std::to_string(key)).first.slot());
    for (uint64_t key = 0; key < 200; ++key) {
        map.prefetch_slot(slots[key]);
        const Entry* entry = map.live_at(slots[key]);
        BOOST_REQUIRE(entry != nullptr);
        BOOST_CHECK_EQUAL(entry->first, key);
        BOOST_CHECK(entry == &*map.find(key));
    }
    map.erase(17);
    BOOST_CHECK(map.live_at(slots[17]) == nullptr);
    // Past the arena's high water, including slots of chunks never made.
    map.prefetch_slot(200);
    map.prefetch_slot(1'000'000);
    BOOST_CHECK(map.live_at(200) == nullptr);
    BOOST_CHECK(map.live_at(1'000'000) == nullptr);
    // The freed slot holds the next entry.
    const uint32_t reused = map.try_emplace(uint64_t{1000}).first.slot();
    BOOST_CHECK_EQUAL(reused, slots[17]);
    BOOST_CHECK_EQUAL(map.live_at(reused)->first, 1000U);
    BOOST_CHECK_EQUAL(map.size(), 200U);
    map.clear();
    BOOST_CHECK(map.live_at(slots[0]) == nullptr);
    BOOST_CHECK_EQUAL(Entry::live, 0);
}

// clear_without_destructors empties the map as clear() does (lookups find
// nothing, the refill takes the same slots in order) but runs no
// destructor: the caller has seen to what they would have freed.
BOOST_AUTO_TEST_CASE(clear_without_destructors_runs_none)
{
    SlabArena<Entry> arena;
    SlabHashMap<Entry, MixingHash> map{0, MixingHash{}, {}, &arena};
    std::vector<const Entry*> first_fill;
    for (uint64_t key = 0; key < 300; ++key) first_fill.push_back(&*map.try_emplace(key).first);
    const size_t buckets = map.bucket_count();
    BOOST_CHECK_EQUAL(Entry::live, 300);

    map.clear_without_destructors();
    BOOST_CHECK_EQUAL(Entry::live, 300);
    // Their memory is the map's again; the count of live ones is the test's.
    Entry::live = 0;
    BOOST_CHECK_EQUAL(map.size(), 0U);
    BOOST_CHECK_EQUAL(arena.InUse(), 0U);
    BOOST_CHECK_EQUAL(arena.HighWater(), 0U);
    BOOST_CHECK_EQUAL(map.bucket_count(), buckets);
    BOOST_CHECK(map.begin() == map.end());
    for (uint64_t key = 0; key < 300; ++key) BOOST_CHECK(map.find(key) == map.end());

    std::map<uint64_t, std::string> model;
    for (uint64_t key = 500; key < 800; ++key) {
        BOOST_CHECK(&*map.try_emplace(key, "v").first == first_fill[key - 500]);
        model.emplace(key, "v");
    }
    CheckAgainst(map, model);
}

BOOST_AUTO_TEST_SUITE_END()
