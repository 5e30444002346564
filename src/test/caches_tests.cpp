// kernel::CacheSizes: how a -dbcache total is split between the block-tree
// database, the coins database and the in-memory coins cache.
//   block_tree_db = min(total / 8, 2 MiB)
//   coins_db      = min((total - block_tree_db) / 2, 8 MiB)
//   coins         = the rest
// GetDbBatchSize: the -dbbatchsize=auto batch for a -dbcache total,
//   clamp((total / 450 MiB) * 32 MiB, 16 MiB, 256 MiB)

#include <kernel/caches.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace {

constexpr size_t KiB = size_t{1} << 10;

struct Split {
    size_t total;
    size_t block_tree_db;
    size_t coins_db;
    size_t coins;
};

constexpr bool Matches(const Split& expected)
{
    const kernel::CacheSizes sizes{expected.total};
    return sizes.block_tree_db == expected.block_tree_db && sizes.coins_db == expected.coins_db &&
           sizes.coins == expected.coins;
}

// The defaults and the documented extremes, checked at compile time.
static_assert(DEFAULT_KERNEL_CACHE == 450 * MiB);
static_assert(MIN_DBCACHE_BYTES == 4 * MiB);
static_assert(MAX_BLOCK_DB_CACHE == 2 * MiB);
static_assert(MAX_COINS_DB_CACHE == 8 * MiB);
static_assert(DEFAULT_DB_CACHE_BATCH == 32 * MiB);
static_assert(Matches({DEFAULT_KERNEL_CACHE, 2 * MiB, 8 * MiB, 440 * MiB}));
static_assert(Matches({MIN_DBCACHE_BYTES, 512 * KiB, 1792 * KiB, 1792 * KiB}));
static_assert(Matches({0, 0, 0, 0}));

// The auto batch size for every -dbcache (MiB) the series documents; the
// division comes first, so 449 and 899 MiB stay on the lower step.
constexpr std::pair<size_t, size_t> AUTO_BATCH[]{
    // -dbcache MiB   batch bytes
    {0,               16'777'216},
    {4,               16'777'216},
    {10,              16'777'216},
    {45,              16'777'216},
    {100,             16'777'216},
    {449,             16'777'216},
    {450,             33'554'432},
    {899,             33'554'432},
    {900,             67'108'864},
    {1000,            67'108'864},
    {2000,            134'217'728},
    {3000,            201'326'592},
    {4000,            268'435'456},
    {4500,            268'435'456},
    {10000,           268'435'456},
    {45000,           268'435'456},
};

constexpr bool AutoBatchTableHolds()
{
    for (const auto& [dbcache_mib, batch] : AUTO_BATCH) {
        if (GetDbBatchSize(dbcache_mib * MiB) != batch) return false;
    }
    return true;
}
static_assert(AutoBatchTableHolds());
static_assert(GetDbBatchSize(DEFAULT_KERNEL_CACHE) == DEFAULT_DB_CACHE_BATCH);
static_assert(GetDbBatchSize(SIZE_MAX) == MAX_DB_CACHE_BATCH);
// Two batch buffers only where the second is at most an eighth of -dbcache:
// the default cache keeps its double buffering, -dbcache=64 (and 255) with
// the default batch writes one batch at a time.
static_assert(OverlapBatches(DEFAULT_KERNEL_CACHE, DEFAULT_DB_CACHE_BATCH));
static_assert(OverlapBatches(256 * MiB, DEFAULT_DB_CACHE_BATCH));
static_assert(!OverlapBatches(255 * MiB, DEFAULT_DB_CACHE_BATCH));
static_assert(!OverlapBatches(64 * MiB, DEFAULT_DB_CACHE_BATCH));
static_assert(!OverlapBatches(MIN_DBCACHE_BYTES, GetDbBatchSize(MIN_DBCACHE_BYTES)));

// Worked examples. Columns: total, block-tree db, coins db, coins cache.
const std::vector<Split> SPLITS{
    // Both databases capped.
    {450 * MiB,           2 * MiB,    8 * MiB,    440 * MiB},
    {size_t{16} << 30,    2 * MiB,    8 * MiB,    (size_t{16} << 30) - 10 * MiB},
    {100 * MiB,           2 * MiB,    8 * MiB,    90 * MiB},
    {18 * MiB,            2 * MiB,    8 * MiB,    8 * MiB},   // rest/2 == 8 MiB exactly
    // Block tree capped (total/8 >= 2 MiB), coins db not (rest/2 < 8 MiB).
    {17 * MiB,            2 * MiB,    7680 * KiB, 7680 * KiB},
    {16 * MiB,            2 * MiB,    7 * MiB,    7 * MiB},   // total/8 == 2 MiB exactly
    // Neither capped: total/8 < 2 MiB.
    {15 * MiB,            1920 * KiB, 6720 * KiB, 6720 * KiB},
    {10 * MiB,            1280 * KiB, 4480 * KiB, 4480 * KiB},
    {8 * MiB,             1 * MiB,    3584 * KiB, 3584 * KiB},
    {4 * MiB,             512 * KiB,  1792 * KiB, 1792 * KiB},
    {1 * MiB,             128 * KiB,  448 * KiB,  448 * KiB},
    // Integer division rounds down; the remainder goes to the coins cache.
    {7,                   0,          3,          4},
    {9,                   1,          4,          4},
    {4 * MiB + 7,         512 * KiB,  1792 * KiB + 3, 1792 * KiB + 4},
    {1,                   0,          0,          1},
    {0,                   0,          0,          0},
};

} // namespace

BOOST_AUTO_TEST_SUITE(caches_tests)

BOOST_AUTO_TEST_CASE(split_table)
{
    for (const auto& expected : SPLITS) {
        BOOST_TEST_CONTEXT("total " << expected.total)
        {
            const kernel::CacheSizes sizes{expected.total};
            BOOST_CHECK_EQUAL(sizes.block_tree_db, expected.block_tree_db);
            BOOST_CHECK_EQUAL(sizes.coins_db, expected.coins_db);
            BOOST_CHECK_EQUAL(sizes.coins, expected.coins);
            // The table itself must add up.
            BOOST_CHECK_EQUAL(expected.block_tree_db + expected.coins_db + expected.coins, expected.total);
        }
    }
}

BOOST_AUTO_TEST_CASE(split_properties)
{
    // Every byte count around the thresholds, and a sweep of larger totals.
    std::vector<size_t> totals;
    for (size_t t = 0; t < 4096; ++t) totals.push_back(t);
    for (const size_t threshold : {MIN_DBCACHE_BYTES, 16 * MiB, 18 * MiB}) {
        for (size_t t = threshold - 64; t <= threshold + 64; ++t) totals.push_back(t);
    }
    for (size_t t = 1 * MiB; t <= 64 * MiB; t += 37 * KiB + 3) totals.push_back(t);
    for (size_t t = 64 * MiB; t <= size_t{64} << 30; t += t / 3) totals.push_back(t);

    size_t previous_total = 0;
    kernel::CacheSizes previous{0};
    for (const size_t total : totals) {
        const kernel::CacheSizes sizes{total};
        BOOST_TEST_CONTEXT("total " << total)
        {
            BOOST_CHECK_EQUAL(sizes.block_tree_db + sizes.coins_db + sizes.coins, total);
            BOOST_CHECK_EQUAL(sizes.block_tree_db, std::min(total / 8, 2 * MiB));
            BOOST_CHECK_LE(sizes.block_tree_db, MAX_BLOCK_DB_CACHE);
            BOOST_CHECK_LE(sizes.coins_db, MAX_COINS_DB_CACHE);
            // The coins cache always gets at least as much as the coins db.
            BOOST_CHECK_GE(sizes.coins, sizes.coins_db);
            if (total >= previous_total) {
                // More memory never shrinks any part.
                BOOST_CHECK_GE(sizes.block_tree_db, previous.block_tree_db);
                BOOST_CHECK_GE(sizes.coins_db, previous.coins_db);
                BOOST_CHECK_GE(sizes.coins, previous.coins);
            }
            // Past the caps, every extra byte goes to the coins cache.
            if (total >= 18 * MiB) BOOST_CHECK_EQUAL(sizes.coins, total - 10 * MiB);
        }
        previous_total = total;
        previous = sizes;
    }
}

BOOST_AUTO_TEST_CASE(auto_batch_table)
{
    // The static_assert above names no row when it fails; this does.
    for (const auto& [dbcache_mib, batch] : AUTO_BATCH) {
        BOOST_CHECK_MESSAGE(GetDbBatchSize(dbcache_mib * MiB) == batch,
                            "-dbcache=" << dbcache_mib << ": " << GetDbBatchSize(dbcache_mib * MiB) << ", expected " << batch);
    }
}

BOOST_AUTO_TEST_CASE(auto_batch_steps)
{
    // Around every step: one byte short of a whole default cache stays on
    // the step below; the ceiling holds from 8 default caches up.
    for (size_t caches = 1; caches <= 12; ++caches) {
        const size_t at = caches * DEFAULT_KERNEL_CACHE;
        BOOST_TEST_CONTEXT(caches << " default caches")
        {
            BOOST_CHECK_EQUAL(GetDbBatchSize(at), std::min(caches * DEFAULT_DB_CACHE_BATCH, MAX_DB_CACHE_BATCH));
            BOOST_CHECK_EQUAL(GetDbBatchSize(at - 1), std::clamp((caches - 1) * DEFAULT_DB_CACHE_BATCH, MIN_DB_CACHE_BATCH, MAX_DB_CACHE_BATCH));
            // CacheSizes::Total gives back the -dbcache the split came from.
            BOOST_CHECK_EQUAL(kernel::CacheSizes{at}.Total(), at);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
