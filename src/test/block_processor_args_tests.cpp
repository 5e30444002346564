// node::ParsePrevoutFetchThreads and ReadPrevoutFetchThreadsArg: every row
// of the -prevoutfetchthreads table in node/replay/block_processor_args.h, with
// the exact thread count or the exact error; and, through the node's own
// option list, a value that is not a number refused while parsing, and
// ReadBlockProcessorArgs filling BlockProcessorOptions.

#include <node/init/args_setup.h>
#include <node/replay/block_processor.h>
#include <node/replay/block_processor_args.h>
#include <util/args.h>

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

const std::string NEGATIVE_HINT = "). Use 0 to disable parallel input fetching.";

struct Row {
    std::optional<std::string> value;
    std::optional<int32_t> threads; // nullopt: refused
    std::string error;
};

const std::vector<Row> ROWS{
    // value                   threads        error
    {std::nullopt,             8,             ""},
    {"0",                      0,             ""},
    {"1",                      1,             ""},
    {"2",                      2,             ""},
    {"16",                     16,            ""},
    {"17",                     16,            ""},
    {"1000",                   16,            ""},
    {"9223372036854775807",    16,            ""},
    {"-1",                     std::nullopt,  "-prevoutfetchthreads must be non-negative (got -1" + NEGATIVE_HINT},
    {"-16",                    std::nullopt,  "-prevoutfetchthreads must be non-negative (got -16" + NEGATIVE_HINT},
    {"abc",                    std::nullopt,  "Invalid -prevoutfetchthreads value 'abc': expected an integer"},
    {"",                       std::nullopt,  "Invalid -prevoutfetchthreads value '': expected an integer"},
    {"2x",                     std::nullopt,  "Invalid -prevoutfetchthreads value '2x': expected an integer"},
};

// Parses argv (without the program name) with the node's own option list;
// says why when the ArgsManager refuses it.
std::optional<std::string> ParseNodeArgs(ArgsManager& args, std::vector<const char*> argv)
{
    node::SetupServerArgs(args);
    std::string error;
    argv.insert(argv.begin(), "bitcoind");
    if (!args.ParseParameters(static_cast<int>(argv.size()), argv.data(), error)) return "parse error: " + error;
    if (auto refused = args.CheckIntArgs()) return "refused: " + *refused;
    return std::nullopt;
}

} // namespace

BOOST_AUTO_TEST_SUITE(block_processor_args_tests)

BOOST_AUTO_TEST_CASE(parse_table)
{
    BOOST_CHECK_EQUAL(node::DEFAULT_PREVOUTFETCH_THREADS, 8);
    BOOST_CHECK_EQUAL(node::MAX_PREVOUTFETCH_THREADS, 16);
    for (const auto& row : ROWS) {
        BOOST_TEST_CONTEXT("-prevoutfetchthreads=" << row.value.value_or("(unset)"))
        {
            std::string error;
            const auto threads = node::ParsePrevoutFetchThreads(row.value, error);
            BOOST_REQUIRE_EQUAL(threads.has_value(), row.threads.has_value());
            if (threads) BOOST_CHECK_EQUAL(*threads, *row.threads);
            BOOST_CHECK_EQUAL(error, row.error);
        }
    }
}

// The node's own option list: the default, -noprevoutfetchthreads, the
// last value winning, and a value that is not a number refused by the
// parser before anything starts.
BOOST_AUTO_TEST_CASE(read_from_node_args)
{
    const auto read = [](std::vector<const char*> argv) -> std::string {
        ArgsManager args;
        if (auto refused = ParseNodeArgs(args, std::move(argv))) return *refused;
        std::string error;
        const auto threads = node::ReadPrevoutFetchThreadsArg(args, error);
        return threads ? std::to_string(*threads) : "error: " + error;
    };
    BOOST_CHECK_EQUAL(read({}), "8");
    BOOST_CHECK_EQUAL(read({"-prevoutfetchthreads=2"}), "2");
    BOOST_CHECK_EQUAL(read({"-noprevoutfetchthreads"}), "0");
    BOOST_CHECK_EQUAL(read({"-prevoutfetchthreads=1", "-prevoutfetchthreads=3"}), "3");
    BOOST_CHECK_EQUAL(read({"-prevoutfetchthreads=40"}), "16");
    BOOST_CHECK_EQUAL(read({"-prevoutfetchthreads=-1"}), "error: -prevoutfetchthreads must be non-negative (got -1" + NEGATIVE_HINT);
    BOOST_CHECK_EQUAL(read({"-prevoutfetchthreads=two"}), "refused: Invalid -prevoutfetchthreads value 'two': expected an integer");
}

// -flushinterval, -stopatheight and -prevoutfetchthreads into
// BlockProcessorOptions, as "interval,height,threads"; the prune target is
// left as it was.
BOOST_AUTO_TEST_CASE(read_block_processor_options)
{
    const auto read = [](std::vector<const char*> argv) -> std::string {
        ArgsManager args;
        if (auto refused = ParseNodeArgs(args, std::move(argv))) return *refused;
        std::string error;
        node::BlockProcessorOptions options;
        options.prune_target_bytes = 7;
        if (!node::ReadBlockProcessorArgs(args, options, error)) return "error: " + error;
        BOOST_CHECK_EQUAL(options.prune_target_bytes, 7U);
        return std::to_string(options.flush_interval.count()) + "," + std::to_string(options.stop_at_height) + "," +
               std::to_string(options.prevout_fetch_threads);
    };
    BOOST_CHECK_EQUAL(read({}), "3600,0,8");
    BOOST_CHECK_EQUAL(read({"-flushinterval=5", "-stopatheight=120", "-prevoutfetchthreads=2"}), "5,120,2");
    BOOST_CHECK_EQUAL(read({"-noprevoutfetchthreads", "-nostopatheight"}), "3600,0,0");
    BOOST_CHECK_EQUAL(read({"-flushinterval=1", "-prevoutfetchthreads=-1"}), "error: -prevoutfetchthreads must be non-negative (got -1" + NEGATIVE_HINT);
}

BOOST_AUTO_TEST_SUITE_END()
