// node/chainstate/caches.h: the default -dbcache by machine and the oversized -dbcache
// warning, at the thresholds Bitcoin Core (master b88bffe5) uses. The
// last rows were measured with the reference bitcoind on a machine with
// 25,276,502,016 bytes of RAM: -dbcache=16543 started quietly, 16544 warned.

#include <node/chainstate/caches.h>
#include <util/args.h>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <optional>
#include <string>

namespace {

constexpr uint64_t MIB{uint64_t{1} << 20};
constexpr uint64_t GIB{uint64_t{1} << 30};

struct DefaultRow {
    std::optional<uint64_t> total_ram;
    uint64_t dbcache;
};

constexpr DefaultRow DEFAULTS[]{
    {std::nullopt, 450 * MIB},
    {1 * GIB, 450 * MIB},
    {4 * GIB - 1, 450 * MIB},
    {4 * GIB, 1024 * MIB},
    {24 * GIB, 1024 * MIB},
};

// The largest -dbcache that starts without a warning, by total RAM.
struct WarnRow {
    uint64_t total_ram;
    uint64_t largest_quiet;
};

constexpr WarnRow WARN_THRESHOLDS[]{
    {0, 450 * MIB},
    {1 * GIB, 450 * MIB},
    {2 * GIB, 450 * MIB},
    // 3/4 of 1 GiB is 768 MiB, above the 450 MiB floor.
    {3 * GIB, 768 * MIB},
    {8 * GIB, 6 * GIB * 3 / 4},
    {32 * GIB, 30 * GIB * 3 / 4},
    {25'276'502'016, (25'276'502'016 - 2 * GIB) / 4 * 3},
};

kernel::CacheSizes Calculate(const std::string& dbcache, std::optional<uint64_t> total_ram)
{
    ArgsManager args;
    args.AddArg("-dbcache=<n>", "", ArgsManager::Flags::NONE, "");
    std::string error;
    const char* argv[]{"bitcoind", dbcache.c_str()};
    BOOST_REQUIRE(args.ParseParameters(dbcache.empty() ? 1 : 2, argv, error));
    const auto sizes = node::CalculateCacheSizes(args, total_ram, error);
    BOOST_REQUIRE_MESSAGE(sizes, error);
    return *sizes;
}

// Core's CalculateCacheSizes(args, n_indexes): the index caches it splits
// off -dbcache, in MiB, and what the kernel keeps.
struct IndexRow {
    uint64_t dbcache_mib;
    bool txindex;
    bool txospenderindex;
    size_t n_indexes;
    uint64_t tx_index;
    uint64_t txospender_index;
    uint64_t filter_index;
};

constexpr IndexRow INDEX_SPLITS[]{
    // No index (coinsdb's node): the kernel gets it all.
    {450, false, false, 0, 0, 0, 0},
    // An eighth of 450 MiB, then an eighth of the 393.75 MiB left.
    {450, true, false, 0, 450 * MIB / 8, 0, 0},
    {450, true, true, 0, 450 * MIB / 8, 450 * MIB * 7 / 64, 0},
    {450, false, false, 2, 0, 0, 450 * MIB / 8 / 2},
    {800, true, false, 1, 100 * MIB, 0, 700 * MIB / 8},
    // The caps: an eighth of 16 GiB is 2 GiB, each index gets 1 GiB.
    {16384, true, true, 1, 1024 * MIB, 1024 * MIB, 1024 * MIB},
    {16384, false, false, 4, 0, 0, 256 * MIB},
    // Bitcoin Core's caches_tests case: -dbcache=2^43 MiB, 2^63 bytes.
    {uint64_t{1} << 43, true, true, 3, 1024 * MIB, 1024 * MIB, 1024 * MIB / 3},
};

node::CacheSizes CalculateWithIndexes(const IndexRow& row)
{
    ArgsManager args;
    args.ForceSetArg("-dbcache", std::to_string(row.dbcache_mib));
    args.ForceSetArg("-txindex", row.txindex ? "1" : "0");
    args.ForceSetArg("-txospenderindex", row.txospenderindex ? "1" : "0");
    return node::CalculateCacheSizes(args, row.n_indexes);
}

} // namespace

BOOST_AUTO_TEST_SUITE(node_caches_tests)

BOOST_AUTO_TEST_CASE(default_dbcache_by_total_ram)
{
    for (const auto& row : DEFAULTS) {
        BOOST_TEST_CONTEXT("total RAM " << row.total_ram.value_or(0))
        {
            BOOST_CHECK_EQUAL(node::GetDefaultDBCache(row.total_ram), row.dbcache);
            // Without -dbcache the split starts from that default.
            BOOST_CHECK_EQUAL(Calculate("", row.total_ram).Total(), row.dbcache);
            // A given -dbcache wins on any machine.
            BOOST_CHECK_EQUAL(Calculate("-dbcache=300", row.total_ram).Total(), 300 * MIB);
        }
    }
}

BOOST_AUTO_TEST_CASE(oversized_dbcache_warning_thresholds)
{
    for (const auto& row : WARN_THRESHOLDS) {
        BOOST_TEST_CONTEXT("total RAM " << row.total_ram)
        {
            BOOST_CHECK(!node::ShouldWarnOversizedDbCache(MIN_DBCACHE_BYTES, row.total_ram));
            BOOST_CHECK(!node::ShouldWarnOversizedDbCache(row.largest_quiet, row.total_ram));
            BOOST_CHECK(node::ShouldWarnOversizedDbCache(row.largest_quiet + 1, row.total_ram));
        }
    }
    // The measured pair, in whole MiB as the flag takes it.
    BOOST_CHECK(!node::ShouldWarnOversizedDbCache(16543 * MIB, 25'276'502'016));
    BOOST_CHECK(node::ShouldWarnOversizedDbCache(16544 * MIB, 25'276'502'016));
}

BOOST_AUTO_TEST_CASE(dbcache_floor_and_default_names)
{
    // Core's node/caches.h names: 4 MiB, never warned about; 450 MiB.
    static_assert(MIN_DB_CACHE == MIN_DBCACHE_BYTES);
    BOOST_CHECK_EQUAL(MIN_DB_CACHE, 4 * MIB);
    BOOST_CHECK_EQUAL(DEFAULT_DB_CACHE, 450 * MIB);
    BOOST_CHECK_EQUAL(Calculate("-dbcache=1", std::nullopt).Total(), MIN_DB_CACHE);
    BOOST_CHECK(!node::ShouldWarnOversizedDbCache(MIN_DB_CACHE, 1 * MIB));
}

BOOST_AUTO_TEST_CASE(total_ram_is_known_here)
{
    // Linux always answers; 0 would silently disable the warning.
    const auto ram = node::GetTotalRAM();
    BOOST_REQUIRE(ram);
    BOOST_CHECK_GT(*ram, 64 * MIB);
}

BOOST_AUTO_TEST_CASE(index_caches_split_off_dbcache)
{
    for (const auto& row : INDEX_SPLITS) {
        BOOST_TEST_CONTEXT("-dbcache=" << row.dbcache_mib << " txindex=" << row.txindex << " txospenderindex="
                                       << row.txospenderindex << " n_indexes=" << row.n_indexes)
        {
            const auto [index, kernel] = CalculateWithIndexes(row);
            BOOST_CHECK_EQUAL(index.tx_index, row.tx_index);
            BOOST_CHECK_EQUAL(index.txospender_index, row.txospender_index);
            BOOST_CHECK_EQUAL(index.filter_index, row.filter_index);
            // Nothing lost and nothing made up: every byte of -dbcache is
            // an index's or the kernel's.
            const uint64_t indexes = index.tx_index + index.txospender_index + index.filter_index * row.n_indexes;
            BOOST_CHECK_EQUAL(indexes + kernel.Total(), row.dbcache_mib * MIB);
            // With no index it is the node's own split.
            if (indexes == 0) {
                BOOST_CHECK_EQUAL(kernel.coins, Calculate("-dbcache=" + std::to_string(row.dbcache_mib), std::nullopt).coins);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(dbcache_saturates_instead_of_wrapping)
{
    // 2^44 MiB is 2^64 bytes, one past size_t; larger still stays at the top.
    for (const std::string mib : {"17592186044416", "9223372036854775807"}) {
        BOOST_CHECK_EQUAL(Calculate("-dbcache=" + mib, std::nullopt).Total(), std::numeric_limits<size_t>::max());
    }
    BOOST_CHECK_EQUAL(Calculate("-dbcache=17592186044415", std::nullopt).Total(), std::numeric_limits<size_t>::max() - MIB + 1);
    // Bitcoin Core's caches_tests size: 2^43 MiB, 2^63 bytes, exactly.
    BOOST_CHECK_EQUAL(Calculate("-dbcache=8796093022208", std::nullopt).Total(), uint64_t{1} << 63);
    BOOST_CHECK_EQUAL(Calculate("-dbcache=-5", std::nullopt).Total(), MIN_DB_CACHE);
}

BOOST_AUTO_TEST_CASE(index_split_refuses_a_dbcache_that_is_not_a_number)
{
    ArgsManager args;
    args.ForceSetArg("-dbcache", "lots");
    BOOST_CHECK_THROW(node::CalculateCacheSizes(args), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
