#ifndef COINSDB_UTIL_LOG_H
#define COINSDB_UTIL_LOG_H

#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// A small process-wide logger: every line gets an ISO-8601 UTC timestamp and
// goes to the sinks that are open (a debug.log file, the console, or a
// capture buffer for tests). Categorised lines are written only when their
// category is enabled, the way -debug=<category> works upstream.
namespace logging {

enum class Category : uint32_t {
    NONE = 0,
    COINDB = 1 << 0,
    LEVELDB = 1 << 1,
    RPC = 1 << 2,
    BENCH = 1 << 3,
    PRUNE = 1 << 4,
    ALL = ~uint32_t{0},
};

// Bitcoin Core's category names, all accepted by -debug, -debugexclude and
// -loglevel so that a command line written for Core runs here:
//
// | name                          | in coinsdb                       |
// |-------------------------------|----------------------------------|
// | coindb leveldb rpc bench prune | lines of that category           |
// | 1, all                        | every category                   |
// | any other name Core knows     | NONE: accepted, nothing to show  |
// | anything else                 | nullopt: the option is refused   |
std::optional<Category> CategoryFromName(std::string_view name);
// The categories coinsdb writes lines under, comma-separated.
std::string CategoryNames();
// Every name Core accepts, comma-separated (for error messages).
std::string KnownCategoryNames();

void EnableCategory(Category category);
void DisableCategory(Category category);

struct CategoryState {
    std::string_view name;
    bool active;
};
// Every name Core lists in its logging RPC, sorted, with whether lines of
// it are written now. A name coinsdb writes nothing under is never active,
// whatever -debug or the RPC asked for: nothing of it reaches the log.
std::vector<CategoryState> CategoryStates();

// Severity of a categorised line. A line is written when its category is
// enabled and its level is at least the category's threshold (-loglevel;
// debug unless set), so -loglevel=info hides debug lines and
// -loglevel=trace shows trace lines too. Uncategorised lines (info,
// warning, error) are always written.
enum class Level : uint8_t { TRACE = 0, DEBUG = 1, INFO = 2 };
constexpr Level DEFAULT_LOG_LEVEL{Level::DEBUG};
// "trace", "debug" or "info" (the values -loglevel accepts, as Core).
std::optional<Level> LevelFromName(std::string_view name);
void SetLogLevel(Level level);
void SetCategoryLogLevel(Category category, Level level);

bool WillLog(Category category, Level level = Level::DEBUG);

// -logtimestamps (default on) and -logtimemicros (default off): a line
// starts with "2026-11-24T18:56:39Z", or "2026-11-24T18:56:39.123456Z".
void SetTimestamps(bool enabled, bool micros);

// Sinks. Opening a file that cannot be created returns false.
bool OpenDebugLog(const std::string& path);
void CloseDebugLog();
void SetPrintToConsole(bool enabled);
// While capturing, lines are also appended to an in-memory buffer that
// tests read back.
void StartCapture();
std::string StopCapture();

void LogLine(std::string_view message);
void LogCategoryLine(Category category, std::string_view message);

} // namespace logging

template <typename... Args>
void LogInfo(fmt::format_string<Args...> fmt, Args&&... args)
{
    logging::LogLine(fmt::format(fmt, std::forward<Args>(args)...));
}

template <typename... Args>
void LogWarning(fmt::format_string<Args...> fmt, Args&&... args)
{
    logging::LogLine("[warning] " + fmt::format(fmt, std::forward<Args>(args)...));
}

template <typename... Args>
void LogError(fmt::format_string<Args...> fmt, Args&&... args)
{
    logging::LogLine("[error] " + fmt::format(fmt, std::forward<Args>(args)...));
}

// Formats only when the category is on, so hot paths pay one branch.
#define LogDebug(category, ...)                                                   \
    do {                                                                          \
        if (logging::WillLog(category)) {                                         \
            logging::LogCategoryLine(category, fmt::format(__VA_ARGS__));         \
        }                                                                         \
    } while (0)

// Logs "<prefix>: <message> started" now and "<prefix>: completed (X.XXms)"
// when it goes out of scope, the shape upstream's timing lines have.
class LogTimer
{
public:
    LogTimer(std::string prefix, const std::string& message);
    ~LogTimer();
    LogTimer(const LogTimer&) = delete;
    LogTimer& operator=(const LogTimer&) = delete;
    double ElapsedMs() const;

private:
    std::string m_prefix;
    int64_t m_start_ns;
};

#endif // COINSDB_UTIL_LOG_H
