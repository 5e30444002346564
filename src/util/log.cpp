#include <util/log.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <utility>

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

struct LoggerState {
    std::mutex mutex;
    uint32_t categories{0};
    FILE* file{nullptr};
    bool console{false};
    bool capturing{false};
    std::string capture;
};

LoggerState& State()
{
    static LoggerState state;
    return state;
}

std::string Timestamp()
{
    const auto now = std::chrono::system_clock::now();
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
    const std::time_t seconds = micros / 1'000'000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                       utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, micros % 1'000'000);
}

} // namespace

Category CategoryFromName(std::string_view name)
{
    if (name == "1" || name == "all") return Category::ALL;
    for (const auto& entry : CATEGORY_NAMES) {
        if (entry.name == name) return entry.category;
    }
    return Category::NONE;
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

void EnableCategory(Category category)
{
    std::lock_guard lock{State().mutex};
    State().categories |= static_cast<uint32_t>(category);
}

void DisableCategory(Category category)
{
    std::lock_guard lock{State().mutex};
    State().categories &= ~static_cast<uint32_t>(category);
}

bool WillLog(Category category)
{
    // Racy read on purpose: categories are set at start-up, and a stale answer
    // costs at most one line.
    return (State().categories & static_cast<uint32_t>(category)) != 0;
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
    const std::string line = Timestamp() + " " + std::string{message} + "\n";
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
