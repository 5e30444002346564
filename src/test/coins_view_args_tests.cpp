// node::ParseDbBatchSize and ReadCoinsViewArgs: every row of the
// -dbbatchsize table in node/chainstate/coins_view_args.h, with the exact size, the
// source the startup log names and the exact error.

#include <kernel/caches.h>
#include <node/chainstate/coins_view_args.h>
#include <txdb.h>
#include <util/args.h>

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <vector>

namespace {

const std::string EXPECTED_RANGE = "expected a number of bytes from 1 to 4294967296, or auto";

struct Row {
    std::optional<std::string> value;
    size_t dbcache_mib;
    std::optional<size_t> bytes; // nullopt: rejected
    std::string source_or_error;
};

const std::vector<Row> ROWS{
    // value           dbcache  bytes                 source, or the error
    {std::nullopt,     450,     33'554'432,           "default"},
    {std::nullopt,     4000,    33'554'432,           "default"},
    {"1",              450,     1,                    "fixed by -dbbatchsize"},
    {"200000",         450,     200'000,              "fixed by -dbbatchsize"},
    {"16777216",       45000,   16'777'216,           "fixed by -dbbatchsize"},
    {"4294967296",     450,     4'294'967'296,        "fixed by -dbbatchsize"},
    {"auto",           450,     33'554'432,           "derived from -dbcache=450"},
    {"auto",           449,     16'777'216,           "derived from -dbcache=449"},
    {"auto",           1000,    67'108'864,           "derived from -dbcache=1000"},
    {"auto",           3000,    201'326'592,          "derived from -dbcache=3000"},
    {"auto",           45000,   268'435'456,          "derived from -dbcache=45000"},
    {"4294967297",     450,     std::nullopt,         "Invalid -dbbatchsize value '4294967297': " + EXPECTED_RANGE},
    {"0",              450,     std::nullopt,         "Invalid -dbbatchsize value '0': " + EXPECTED_RANGE},
    {"-1",             450,     std::nullopt,         "Invalid -dbbatchsize value '-1': " + EXPECTED_RANGE},
    {"-33554432",      450,     std::nullopt,         "Invalid -dbbatchsize value '-33554432': " + EXPECTED_RANGE},
    {"abc",            450,     std::nullopt,         "Invalid -dbbatchsize value 'abc': " + EXPECTED_RANGE},
    {"32MiB",          450,     std::nullopt,         "Invalid -dbbatchsize value '32MiB': " + EXPECTED_RANGE},
    {"",               450,     std::nullopt,         "Invalid -dbbatchsize value '': " + EXPECTED_RANGE},
    {"AUTO",           450,     std::nullopt,         "Invalid -dbbatchsize value 'AUTO': " + EXPECTED_RANGE},
    {"99999999999999999999", 450, std::nullopt,       "Invalid -dbbatchsize value '99999999999999999999': " + EXPECTED_RANGE},
};

} // namespace

BOOST_AUTO_TEST_SUITE(coins_view_args_tests)

BOOST_AUTO_TEST_CASE(parse_table)
{
    for (const auto& row : ROWS) {
        BOOST_TEST_CONTEXT("-dbbatchsize=" << row.value.value_or("(unset)") << " -dbcache=" << row.dbcache_mib)
        {
            std::string error;
            const auto parsed = node::ParseDbBatchSize(row.value, row.dbcache_mib * MiB, error);
            BOOST_REQUIRE_EQUAL(parsed.has_value(), row.bytes.has_value());
            if (parsed) {
                BOOST_CHECK_EQUAL(parsed->bytes, *row.bytes);
                BOOST_CHECK_EQUAL(parsed->source, row.source_or_error);
                BOOST_CHECK(error.empty());
            } else {
                BOOST_CHECK_EQUAL(error, row.source_or_error);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(read_from_args)
{
    ArgsManager args;
    args.AddArg("-dbbatchsize=<n|auto>", "", ArgsManager::DEBUG_ONLY, "o");
    args.AddArg("-dbcrashratio=<n>", "", ArgsManager::DEBUG_ONLY, "o");
    args.AddArg("-snapshotingest", "", ArgsManager::DEBUG_ONLY, "o");
    std::string error;
    {
        const char* argv[]{"bitcoind", "-dbbatchsize=auto", "-dbcrashratio=7"};
        BOOST_REQUIRE(args.ParseParameters(3, argv, error));
        CoinsViewOptions options;
        const auto source = node::ReadCoinsViewArgs(args, 2000 * MiB, options, error);
        BOOST_REQUIRE(source);
        BOOST_CHECK_EQUAL(*source, "derived from -dbcache=2000");
        BOOST_CHECK_EQUAL(options.batch_write_bytes, 134'217'728U);
        BOOST_CHECK_EQUAL(options.simulate_crash_ratio, 7);
        BOOST_CHECK(options.ingest_tables);
    }
    {
        // Ingestion alone off: the rest of a bulk load is -snapshotbulkload's.
        const char* argv[]{"bitcoind", "-snapshotingest=0"};
        BOOST_REQUIRE(args.ParseParameters(2, argv, error));
        CoinsViewOptions options;
        BOOST_REQUIRE(node::ReadCoinsViewArgs(args, DEFAULT_KERNEL_CACHE, options, error));
        BOOST_CHECK(!options.ingest_tables);
    }
    {
        // -nodbbatchsize reads as 0: refused like an explicit 0.
        const char* argv[]{"bitcoind", "-nodbbatchsize"};
        BOOST_REQUIRE(args.ParseParameters(2, argv, error));
        CoinsViewOptions options;
        BOOST_CHECK(!node::ReadCoinsViewArgs(args, DEFAULT_KERNEL_CACHE, options, error));
        BOOST_CHECK_EQUAL(error, "Invalid -dbbatchsize value '0': " + EXPECTED_RANGE);
    }
}

BOOST_AUTO_TEST_SUITE_END()
