// -debugstorage: the values ParseStorageProfile takes and refuses (the table
// in storage_profile.h), and a database opened with a profile: its data is
// what was written, and its writes and syncs take at least the time the
// profile says they cost. Only lower bounds are checked: a slow machine can
// make a write take longer, never shorter.

#include <dbwrapper.h>
#include <storage_profile.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

struct ParseCase {
    std::string value;
    bool valid;
    double mb_per_second{0};
    std::chrono::microseconds sync{0};
    std::chrono::microseconds seek{0};
};

const std::vector<ParseCase> PARSE_CASES{
    {"hdd", true, HDD_PROFILE.bytes_per_second / 1e6, HDD_PROFILE.sync_delay, HDD_PROFILE.seek_delay},
    {"sdcard", true, SDCARD_PROFILE.bytes_per_second / 1e6, SDCARD_PROFILE.sync_delay, SDCARD_PROFILE.seek_delay},
    {"150,10", true, 150, 10ms, 0ms},
    {"150,10,8", true, 150, 10ms, 8ms},
    {"0.5,0,0.25", true, 0.5, 0ms, 250us},
    {"HDD", false},
    {"ssd", false},
    {"", false},
    {"150", false},
    {"150,10,8,1", false},
    {"0,10", false},
    {"-1,10", false},
    {"150,-1", false},
    {"150,10,-1", false},
    {"150,x", false},
    {"150, 10", false},
    {"150,10,", false},
    {"inf,10", false},
    {"nan,10", false},
    {"150,3600001", false},
};

std::vector<unsigned char> Bytes(size_t count, uint8_t seed)
{
    std::vector<unsigned char> bytes(count);
    for (size_t i = 0; i < count; ++i) bytes[i] = static_cast<unsigned char>(seed + i * 7);
    return bytes;
}

template <typename F>
std::chrono::duration<double> Timed(F&& f)
{
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::steady_clock::now() - start;
}

} // namespace

BOOST_AUTO_TEST_SUITE(storage_profile_tests)

BOOST_AUTO_TEST_CASE(parse_table)
{
    for (const auto& test : PARSE_CASES) {
        BOOST_TEST_CONTEXT("-debugstorage=" << test.value)
        {
            std::string error;
            const auto profile = ParseStorageProfile(test.value, error);
            BOOST_REQUIRE_EQUAL(profile.has_value(), test.valid);
            if (!test.valid) {
                BOOST_CHECK_EQUAL(error, "Invalid -debugstorage value '" + test.value +
                                             "': expected hdd, sdcard or <write MB/s>,<sync ms>[,<seek ms>] with a positive "
                                             "rate and delays from 0 to 3600000 ms");
                continue;
            }
            BOOST_CHECK(error.empty());
            BOOST_CHECK_EQUAL(profile->name, test.value);
            BOOST_CHECK_CLOSE(profile->bytes_per_second, test.mb_per_second * 1e6, 1e-9);
            BOOST_CHECK(profile->sync_delay == test.sync);
            BOOST_CHECK(profile->seek_delay == test.seek);
        }
    }
}

BOOST_AUTO_TEST_CASE(describe)
{
    BOOST_CHECK_EQUAL(StorageProfile({"150,10,8", 150e6, 10ms, 8ms}).Describe(), "150,10,8 (150 MB/s, sync 10 ms, seek 8 ms)");
    BOOST_CHECK_EQUAL(StorageProfile({"x", 0.5e6, 250us, 0us}).Rates(), "0.5 MB/s, sync 0.25 ms, seek 0 ms");
}

BOOST_AUTO_TEST_CASE(throttled_database_keeps_data_and_takes_its_time)
{
    TempDirFixture tmp;
    // 2 MB/s, 100 ms per sync: a 400 kB write needs 200 ms of device time.
    const StorageProfile slow{"2,100", 2e6, 100ms, 0ms};
    const auto path = tmp.m_path / "slow";
    const auto value = Bytes(400'000, 0x5a);
    {
        CDBWrapper db{DBParams{.path = path, .cache_bytes = 1 << 20, .options = {.storage = slow}}};
        const auto unsynced = Timed([&] { db.Write(uint8_t{1}, value, /*sync=*/false); });
        BOOST_CHECK_GE(unsynced.count(), 0.2);
        // A synced write pays the sync on top of the bytes.
        const auto synced = Timed([&] { db.Write(uint8_t{2}, Bytes(10, 1), /*sync=*/true); });
        BOOST_CHECK_GE(synced.count(), 0.1);
    }
    // Reopened without a profile: everything is there, byte for byte.
    CDBWrapper db{DBParams{.path = path, .cache_bytes = 1 << 20}};
    std::vector<unsigned char> read;
    BOOST_REQUIRE(db.Read(uint8_t{1}, read));
    BOOST_CHECK(read == value);
    BOOST_REQUIRE(db.Read(uint8_t{2}, read));
    BOOST_CHECK(read == Bytes(10, 1));
}

BOOST_AUTO_TEST_SUITE_END()
