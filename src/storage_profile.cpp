#include <storage_profile.h>

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <vector>

using namespace std::chrono_literals;

// A 7200 rpm disk: ~100 MB/s through the platters, ~8 ms to reach a random
// block, and a cache flush costing about a rotation and a seek.
const StorageProfile HDD_PROFILE{"hdd", 100e6, 12ms, 8ms};
// An SD card at the SD Association's A1 minimums: 10 MB/s sustained
// writes and 1500 random reads per second (0.667 ms each); a sync costs
// more than on a disk, as the card's controller rewrites whole erase
// blocks.
const StorageProfile SDCARD_PROFILE{"sdcard", 10e6, 25ms, 667us};

std::string StorageProfile::Rates() const
{
    return fmt::format("{:g} MB/s, sync {:g} ms, seek {:g} ms", bytes_per_second / 1e6,
                       sync_delay.count() / 1000.0, seek_delay.count() / 1000.0);
}

namespace {

std::optional<double> ParseNumber(std::string_view text)
{
    double value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

std::vector<std::string_view> SplitCommas(std::string_view text)
{
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        parts.push_back(text.substr(start, comma - start));
        if (comma == std::string_view::npos) return parts;
        start = comma + 1;
    }
}

std::chrono::microseconds Milliseconds(double ms) { return std::chrono::microseconds{std::llround(ms * 1000)}; }

} // namespace

std::optional<StorageProfile> ParseStorageProfile(std::string_view value, std::string& error)
{
    if (value == HDD_PROFILE.name) return HDD_PROFILE;
    if (value == SDCARD_PROFILE.name) return SDCARD_PROFILE;
    const auto parts = SplitCommas(value);
    std::vector<double> numbers;
    for (const auto part : parts) {
        const auto number = ParseNumber(part);
        if (!number) break;
        numbers.push_back(*number);
    }
    // An hour per sync or seek is certainly a typo.
    constexpr double MAX_DELAY_MS = 3'600'000;
    const bool shaped = (parts.size() == 2 || parts.size() == 3) && numbers.size() == parts.size();
    if (!shaped || numbers[0] <= 0 || numbers[1] < 0 || numbers[1] > MAX_DELAY_MS ||
        (numbers.size() == 3 && (numbers[2] < 0 || numbers[2] > MAX_DELAY_MS))) {
        error = fmt::format("Invalid -debugstorage value '{}': expected hdd, sdcard or <write MB/s>,<sync ms>[,<seek ms>] "
                            "with a positive rate and delays from 0 to {} ms",
                            value, MAX_DELAY_MS);
        return std::nullopt;
    }
    return StorageProfile{std::string{value}, numbers[0] * 1e6, Milliseconds(numbers[1]),
                          Milliseconds(numbers.size() == 3 ? numbers[2] : 0)};
}
