// util/log: which -debug/-loglevel names are taken (Bitcoin Core's), how a
// category's level threshold filters lines, and the timestamp formats of
// -logtimestamps/-logtimemicros. The logger is process-wide, so every case
// puts back what it changed.

#include <util/log.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

using logging::Category;
using logging::Level;

namespace {

struct NameRow {
    std::string_view name;
    std::optional<Category> category;
};

constexpr NameRow NAMES[]{
    {"coindb", Category::COINDB},
    {"leveldb", Category::LEVELDB},
    {"rpc", Category::RPC},
    {"bench", Category::BENCH},
    {"prune", Category::PRUNE},
    {"1", Category::ALL},
    {"all", Category::ALL},
    // Core's, with no lines in coinsdb: accepted, enabling nothing.
    {"validation", Category::NONE},
    {"net", Category::NONE},
    {"blockstorage", Category::NONE},
    {"zmq", Category::NONE},
    // Typos and other programs' names: refused.
    {"coinsdb", std::nullopt},
    {"COINDB", std::nullopt},
    {"foo", std::nullopt},
    {"", std::nullopt},
};

// Restores categories, levels and timestamp flags to the defaults.
struct LoggerReset {
    ~LoggerReset()
    {
        logging::DisableCategory(Category::ALL);
        logging::SetLogLevel(logging::DEFAULT_LOG_LEVEL);
        for (const auto category : {Category::COINDB, Category::LEVELDB, Category::RPC, Category::BENCH, Category::PRUNE}) {
            logging::SetCategoryLogLevel(category, logging::DEFAULT_LOG_LEVEL);
        }
        logging::SetTimestamps(true, false);
    }
};

} // namespace

BOOST_AUTO_TEST_SUITE(log_tests)

BOOST_AUTO_TEST_CASE(category_names)
{
    for (const auto& row : NAMES) {
        BOOST_TEST_CONTEXT("name '" << row.name << "'")
        {
            const auto got = logging::CategoryFromName(row.name);
            BOOST_CHECK_EQUAL(got.has_value(), row.category.has_value());
            if (got && row.category) BOOST_CHECK(*got == *row.category);
        }
    }
    // The error message's list is Core's 29 names, sorted.
    const std::string known = logging::KnownCategoryNames();
    BOOST_CHECK(known.starts_with("addrman, bench, blockstorage, cmpctblock, coindb, "));
    BOOST_CHECK(known.ends_with(", validation, walletdb, zmq"));
    BOOST_CHECK_EQUAL(std::count(known.begin(), known.end(), ','), 28);
}

BOOST_AUTO_TEST_CASE(level_names)
{
    BOOST_CHECK(logging::LevelFromName("trace") == Level::TRACE);
    BOOST_CHECK(logging::LevelFromName("debug") == Level::DEBUG);
    BOOST_CHECK(logging::LevelFromName("info") == Level::INFO);
    // Core takes exactly these three.
    for (const char* bad : {"warning", "error", "Debug", "", "none"}) {
        BOOST_CHECK_MESSAGE(!logging::LevelFromName(bad), bad);
    }
}

BOOST_AUTO_TEST_CASE(levels_filter_enabled_categories)
{
    LoggerReset reset;
    // Off: nothing, at any level.
    BOOST_CHECK(!logging::WillLog(Category::COINDB));
    BOOST_CHECK(!logging::WillLog(Category::COINDB, Level::INFO));

    logging::EnableCategory(Category::COINDB);
    // Default threshold debug: debug yes, trace no.
    BOOST_CHECK(logging::WillLog(Category::COINDB, Level::DEBUG));
    BOOST_CHECK(!logging::WillLog(Category::COINDB, Level::TRACE));
    BOOST_CHECK(!logging::WillLog(Category::LEVELDB));

    // -loglevel=info hides debug lines of an enabled category.
    logging::SetLogLevel(Level::INFO);
    BOOST_CHECK(!logging::WillLog(Category::COINDB, Level::DEBUG));
    BOOST_CHECK(logging::WillLog(Category::COINDB, Level::INFO));

    // -loglevel=coindb:trace overrides the global level for that category.
    logging::SetCategoryLogLevel(Category::COINDB, Level::TRACE);
    BOOST_CHECK(logging::WillLog(Category::COINDB, Level::TRACE));
    logging::EnableCategory(Category::RPC);
    BOOST_CHECK(!logging::WillLog(Category::RPC, Level::DEBUG));

    // -debugexclude wins over any level.
    logging::DisableCategory(Category::COINDB);
    BOOST_CHECK(!logging::WillLog(Category::COINDB, Level::INFO));
}

// What the logging RPC lists: Core's 29 names in order; coinsdb's own
// follow Enable/Disable, the others never read as active.
BOOST_AUTO_TEST_CASE(category_states)
{
    LoggerReset reset;
    const auto active = [] {
        std::vector<std::string_view> names;
        for (const auto& state : logging::CategoryStates()) {
            if (state.active) names.push_back(state.name);
        }
        return names;
    };
    const auto states = logging::CategoryStates();
    BOOST_CHECK_EQUAL(states.size(), 29U);
    BOOST_CHECK(std::is_sorted(states.begin(), states.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
    for (const auto& state : states) BOOST_CHECK(logging::CategoryFromName(state.name).has_value());
    BOOST_CHECK(active().empty());
    logging::EnableCategory(Category::LEVELDB);
    logging::EnableCategory(*logging::CategoryFromName("net"));
    BOOST_CHECK(active() == std::vector<std::string_view>{"leveldb"});
    logging::EnableCategory(Category::ALL);
    BOOST_CHECK((active() == std::vector<std::string_view>{"bench", "coindb", "leveldb", "prune", "rpc"}));
}

BOOST_AUTO_TEST_CASE(timestamp_formats)
{
    LoggerReset reset;
    const std::regex seconds{R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ line\n)"};
    const std::regex micros{R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z line\n)"};
    const auto logged = [] {
        logging::StartCapture();
        LogInfo("line");
        return logging::StopCapture();
    };

    // Core's default: whole seconds.
    const std::string plain = logged();
    BOOST_CHECK_MESSAGE(std::regex_match(plain, seconds), plain);
    logging::SetTimestamps(true, true);
    const std::string fine = logged();
    BOOST_CHECK_MESSAGE(std::regex_match(fine, micros), fine);
    logging::SetTimestamps(false, true);
    BOOST_CHECK_EQUAL(logged(), "line\n");
}

BOOST_AUTO_TEST_SUITE_END()
