#include <util/log.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <utility>
#include <vector>

namespace logging {
namespace {

struct CategoryName {
    Category category;
    std::string_view name;
};

constexpr std::array CATEGORY_NAMES{
    CategoryName{Category::COINDB, "coindb"},
    CategoryName{Category::LEVELDB, "leveldb"},
    CategoryName{Category::RPC, "rpc"},
    CategoryName{Category::BENCH, "bench"},
    CategoryName{Category::PRUNE, "prune"},
};

// Names Bitcoin Core (master b88bffe5) accepts that coinsdb writes nothing
// under: the subsystems it does not have.
constexpr std::array<std::string_view, 24> CORE_ONLY_CATEGORIES{
    "addrman", "blockstorage", "cmpctblock", "estimatefee", "http", "i2p", "ipc", "kernel",
    "mempool", "mempoolrej", "net", "privatebroadcast", "proxy", "qt", "rand", "reindex",
    "scan", "selectcoins", "tor", "txpackages", "txreconciliation", "validation", "walletdb", "zmq",
};

constexpr size_t MAX_CATEGORIES{32};
constexpr uint8_t NO_OVERRIDE{0xff};

struct LoggerState {
    std::mutex mutex;
    // Read on every LogDebug, written at start-up and by the logging RPC.
    std::atomic<uint32_t> categories{0};
    std::atomic<uint8_t> level{static_cast<uint8_t>(DEFAULT_LOG_LEVEL)};
    std::array<std::atomic<uint8_t>, MAX_CATEGORIES> category_level{};
    std::atomic<bool> timestamps{true};
    std::atomic<bool> micros{false};
    FILE* file{nullptr};
    bool console{false};
    bool capturing{false};
    std::string capture;

    LoggerState()
    {
        for (auto& entry : category_level) entry = NO_OVERRIDE;
    }
};

LoggerState& State()
{
    static LoggerState state;
    return state;
}

// The bit a single category occupies; categories are one bit each.
size_t BitIndex(Category category)
{
    return static_cast<size_t>(std::countr_zero(static_cast<uint32_t>(category)));
}

std::string Timestamp()
{
    if (!State().timestamps) return "";
    const auto now = std::chrono::system_clock::now();
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
    const std::time_t seconds = micros / 1'000'000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", utc.tm_year + 1900, utc.tm_mon + 1,
                                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
    if (State().micros) out += fmt::format(".{:06}", micros % 1'000'000);
    return out + "Z ";
}

} // namespace

std::optional<Category> CategoryFromName(std::string_view name)
{
    if (name == "1" || name == "all") return Category::ALL;
    for (const auto& entry : CATEGORY_NAMES) {
        if (entry.name == name) return entry.category;
    }
    for (const auto core_only : CORE_ONLY_CATEGORIES) {
        if (core_only == name) return Category::NONE;
    }
    return std::nullopt;
}

std::string CategoryNames()
{
    std::string out;
    for (const auto& entry : CATEGORY_NAMES) {
        if (!out.empty()) out += ", ";
        out += entry.name;
    }
    return out;
}

std::string KnownCategoryNames()
{
    std::vector<std::string_view> names(CORE_ONLY_CATEGORIES.begin(), CORE_ONLY_CATEGORIES.end());
    for (const auto& entry : CATEGORY_NAMES) names.push_back(entry.name);
    std::sort(names.begin(), names.end());
    std::string out;
    for (const auto name : names) {
        if (!out.empty()) out += ", ";
        out += name;
    }
    return out;
}

std::vector<CategoryState> CategoryStates()
{
    std::vector<CategoryState> states;
    const uint32_t enabled = State().categories;
    for (const auto& entry : CATEGORY_NAMES) states.push_back({entry.name, (enabled & static_cast<uint32_t>(entry.category)) != 0});
    for (const auto name : CORE_ONLY_CATEGORIES) states.push_back({name, false});
    std::sort(states.begin(), states.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return states;
}

void EnableCategory(Category category) { State().categories |= static_cast<uint32_t>(category); }

void DisableCategory(Category category) { State().categories &= ~static_cast<uint32_t>(category); }

std::optional<Level> LevelFromName(std::string_view name)
{
    if (name == "trace") return Level::TRACE;
    if (name == "debug") return Level::DEBUG;
    if (name == "info") return Level::INFO;
    return std::nullopt;
}

void SetLogLevel(Level level) { State().level = static_cast<uint8_t>(level); }

void SetCategoryLogLevel(Category category, Level level)
{
    // ALL and NONE are no single category: a global level or nothing.
    if (category == Category::ALL) return SetLogLevel(level);
    if (category == Category::NONE) return;
    State().category_level[BitIndex(category)] = static_cast<uint8_t>(level);
}

bool WillLog(Category category, Level level)
{
    auto& state = State();
    if ((state.categories & static_cast<uint32_t>(category)) == 0) return false;
    if (category == Category::ALL || category == Category::NONE) return level >= static_cast<Level>(state.level.load());
    const uint8_t override = state.category_level[BitIndex(category)];
    const uint8_t threshold = override == NO_OVERRIDE ? state.level.load() : override;
    return static_cast<uint8_t>(level) >= threshold;
}

void SetTimestamps(bool enabled, bool micros)
{
    State().timestamps = enabled;
    State().micros = micros;
}

bool OpenDebugLog(const std::string& path)
{
    FILE* file = std::fopen(path.c_str(), "a");
    if (!file) return false;
    std::setvbuf(file, nullptr, _IOLBF, 0);
    std::lock_guard lock{State().mutex};
    if (State().file) std::fclose(State().file);
    State().file = file;
    return true;
}

void CloseDebugLog()
{
    std::lock_guard lock{State().mutex};
    if (State().file) std::fclose(State().file);
    State().file = nullptr;
}

void SetPrintToConsole(bool enabled)
{
    std::lock_guard lock{State().mutex};
    State().console = enabled;
}

void StartCapture()
{
    std::lock_guard lock{State().mutex};
    State().capturing = true;
    State().capture.clear();
}

std::string StopCapture()
{
    std::lock_guard lock{State().mutex};
    State().capturing = false;
    return std::exchange(State().capture, {});
}

void LogLine(std::string_view message)
{
    const std::string line = Timestamp() + std::string{message} + "\n";
    std::lock_guard lock{State().mutex};
    auto& state = State();
    if (state.file) std::fputs(line.c_str(), state.file);
    if (state.console) std::fputs(line.c_str(), stdout);
    if (state.capturing) state.capture += line;
}

void LogCategoryLine(Category category, std::string_view message)
{
    for (const auto& entry : CATEGORY_NAMES) {
        if (entry.category == category) {
            LogLine(fmt::format("[{}] {}", entry.name, message));
            return;
        }
    }
    LogLine(message);
}

} // namespace logging

namespace {
int64_t SteadyNowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} // namespace

LogTimer::LogTimer(std::string prefix, const std::string& message) : m_prefix{std::move(prefix)}, m_start_ns{SteadyNowNs()}
{
    logging::LogLine(m_prefix + ": " + message + " started");
}

LogTimer::~LogTimer() { logging::LogLine(fmt::format("{}: completed ({:.2f}ms)", m_prefix, ElapsedMs())); }

double LogTimer::ElapsedMs() const { return (SteadyNowNs() - m_start_ns) / 1e6; }
