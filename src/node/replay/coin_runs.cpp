#include <node/replay/coin_runs.h>

#include <streams.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

namespace node {
namespace {

// Enough to read and write sequentially without one system call per coin.
constexpr size_t RUN_IO_BUFFER_BYTES = size_t{1} << 20;

bool ByOutpoint(const std::pair<COutPoint, Coin>& a, const std::pair<COutPoint, Coin>& b) { return a.first < b.first; }

// One run being read back during a merge.
class RunReader
{
public:
    explicit RunReader(const std::filesystem::path& path)
        : m_file{std::fopen(path.c_str(), "rb")}, m_path{path}
    {
        if (m_file.IsNull()) throw std::runtime_error("Cannot open the SwiftSync run " + path.string());
        m_reader = std::make_unique<BufferedFileReader>(m_file, RUN_IO_BUFFER_BYTES);
    }

    // False at the end of the file.
    bool Next(COutPoint& outpoint, Coin& coin)
    {
        if (m_reader->AtEnd()) return false;
        try {
            *m_reader >> outpoint >> coin;
        } catch (const std::ios_base::failure& e) {
            throw std::runtime_error(fmt::format("The SwiftSync run {} does not read back: {}", m_path.string(), e.what()));
        }
        return true;
    }

private:
    AutoFile m_file;
    std::filesystem::path m_path;
    std::unique_ptr<BufferedFileReader> m_reader;
};

} // namespace

CoinRuns::CoinRuns(std::filesystem::path dir, size_t memory_budget) : m_dir{std::move(dir)}, m_budget{memory_budget}
{
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
}

CoinRuns::~CoinRuns()
{
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

size_t CoinRuns::CoinUsage(const Coin& coin) { return sizeof(std::pair<COutPoint, Coin>) + coin.DynamicMemoryUsage(); }

void CoinRuns::Add(const COutPoint& outpoint, Coin&& coin)
{
    m_memory += CoinUsage(coin);
    m_coins.emplace_back(outpoint, std::move(coin));
    ++m_count;
    // The vector's spare capacity counts too: it can double the array.
    if (m_memory + (m_coins.capacity() - m_coins.size()) * sizeof(m_coins[0]) >= m_budget) WriteRun();
}

void CoinRuns::WriteRun()
{
    std::ranges::sort(m_coins, ByOutpoint);
    const auto path = m_dir / fmt::format("run{:05}.dat", m_run_files.size());
    AutoFile file{std::fopen(path.c_str(), "wb")};
    if (file.IsNull()) throw std::runtime_error("Cannot create the SwiftSync run " + path.string());
    std::setvbuf(file.Get(), nullptr, _IOFBF, RUN_IO_BUFFER_BYTES);
    DataStream record;
    try {
        for (const auto& [outpoint, coin] : m_coins) {
            record.Clear();
            record << outpoint << coin;
            file.write(record.Unread());
            m_run_bytes += record.size();
        }
    } catch (const std::ios_base::failure& e) {
        throw std::runtime_error(fmt::format("Cannot write the SwiftSync run {}: {}", path.string(), e.what()));
    }
    if (file.fclose() != 0) throw std::runtime_error("Cannot write the SwiftSync run " + path.string());
    m_run_files.push_back(path);
    // Give the memory back, not just the elements.
    std::vector<std::pair<COutPoint, Coin>>{}.swap(m_coins);
    m_memory = 0;
}

void CoinRuns::Merge(const std::function<void(const COutPoint&, Coin&&)>& sink)
{
    std::ranges::sort(m_coins, ByOutpoint);
    std::vector<std::unique_ptr<RunReader>> readers;
    for (const auto& path : m_run_files) readers.push_back(std::make_unique<RunReader>(path));

    // The head of each source: the runs, then the coins still in memory
    // (source readers.size()).
    struct Head {
        COutPoint outpoint;
        Coin coin;
        size_t source;
    };
    // A min-heap by outpoint.
    const auto later = [](const Head& a, const Head& b) { return b.outpoint < a.outpoint; };
    std::vector<Head> heads;
    size_t next_in_memory = 0;
    const auto refill = [&](size_t source) {
        Head head{.outpoint = {}, .coin = {}, .source = source};
        if (source < readers.size()) {
            if (!readers[source]->Next(head.outpoint, head.coin)) return;
        } else {
            if (next_in_memory == m_coins.size()) return;
            head.outpoint = m_coins[next_in_memory].first;
            head.coin = std::move(m_coins[next_in_memory].second);
            ++next_in_memory;
        }
        heads.push_back(std::move(head));
        std::ranges::push_heap(heads, later);
    };
    for (size_t source = 0; source <= readers.size(); ++source) refill(source);

    std::optional<COutPoint> previous;
    while (!heads.empty()) {
        std::ranges::pop_heap(heads, later);
        Head head = std::move(heads.back());
        heads.pop_back();
        if (previous && !(*previous < head.outpoint)) {
            throw std::logic_error(fmt::format("SwiftSync: the coin {}:{} was kept twice", head.outpoint.hash.GetHex(), head.outpoint.n));
        }
        previous = head.outpoint;
        const size_t source = head.source;
        sink(head.outpoint, std::move(head.coin));
        refill(source);
    }
    std::vector<std::pair<COutPoint, Coin>>{}.swap(m_coins);
    m_memory = 0;
}

} // namespace node
