#include <node/replay/coin_runs.h>

#include <streams.h>
#include <txdb.h>
#include <util/sort_prefix.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace node {
namespace {

// Enough to read and write sequentially without one system call per coin.
constexpr size_t RUN_IO_BUFFER_BYTES = size_t{1} << 20;

// The first 8 bytes of a txid as one number that orders as the bytes do
// (util/sort_prefix.h): sorts and merges compare these and look at whole
// outpoints only when they tie, mostly the outputs of one transaction.
// Comparing outpoints byte by byte (a memcmp call each time) was most of
// the sort's and the merge's time.
uint64_t TxidPrefix(const COutPoint& outpoint) { return SortPrefix(std::span{outpoint.hash.data(), 8}); }

// Sorts a chunk in key order (CoinKeyLess): first an index of (prefix,
// position), small and cheap to move, then the coins are put in its order
// in place, one cycle of the permutation at a time, each coin moved once.
void SortChunk(std::vector<std::pair<COutPoint, Coin>>& chunk)
{
    if (chunk.size() > UINT32_MAX) throw std::logic_error("CoinRuns: a chunk of more than 2^32 coins");
    std::vector<std::pair<uint64_t, uint32_t>> order(chunk.size());
    for (size_t i = 0; i < chunk.size(); ++i) order[i] = {TxidPrefix(chunk[i].first), static_cast<uint32_t>(i)};
    std::ranges::sort(order, [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        return CoinKeyLess(chunk[a.second].first, chunk[b.second].first);
    });
    // order[k].second: where the coin that belongs at k is now. A place
    // filled is marked by pointing at itself.
    for (size_t start = 0; start < chunk.size(); ++start) {
        if (order[start].second == start) continue;
        std::pair<COutPoint, Coin> held{std::move(chunk[start])};
        size_t place = start;
        while (order[place].second != start) {
            const size_t from = order[place].second;
            chunk[place] = std::move(chunk[from]);
            order[place].second = static_cast<uint32_t>(place);
            place = from;
        }
        chunk[place] = std::move(held);
        order[place].second = static_cast<uint32_t>(place);
    }
}

// One sorted source of a k-way merge: a run file or a chunk in memory.
class SortedSource
{
public:
    virtual ~SortedSource() = default;
    // Moves to the next coin; false at the end.
    virtual bool Advance() = 0;
    virtual const COutPoint& Outpoint() const = 0;
    virtual Coin& CurrentCoin() = 0;
};

class RunReader final : public SortedSource
{
public:
    explicit RunReader(const std::filesystem::path& path)
        : m_file{std::fopen(path.c_str(), "rb")}, m_path{path}
    {
        if (m_file.IsNull()) throw std::runtime_error("Cannot open the SwiftSync run " + path.string());
        m_reader = std::make_unique<BufferedFileReader>(m_file, RUN_IO_BUFFER_BYTES);
    }

    bool Advance() override
    {
        if (m_reader->AtEnd()) return false;
        try {
            *m_reader >> m_outpoint >> m_coin;
        } catch (const std::ios_base::failure& e) {
            throw std::runtime_error(fmt::format("The SwiftSync run {} does not read back: {}", m_path.string(), e.what()));
        }
        return true;
    }
    const COutPoint& Outpoint() const override { return m_outpoint; }
    Coin& CurrentCoin() override { return m_coin; }

private:
    AutoFile m_file;
    std::filesystem::path m_path;
    std::unique_ptr<BufferedFileReader> m_reader;
    COutPoint m_outpoint;
    Coin m_coin;
};

// Coins are moved out of the chunk as the merge takes them, not copied.
class ChunkReader final : public SortedSource
{
public:
    explicit ChunkReader(std::vector<std::pair<COutPoint, Coin>>& chunk) : m_chunk{chunk} {}

    bool Advance() override { return ++m_next <= m_chunk.size(); }
    const COutPoint& Outpoint() const override { return m_chunk[m_next - 1].first; }
    Coin& CurrentCoin() override { return m_chunk[m_next - 1].second; }

private:
    std::vector<std::pair<COutPoint, Coin>>& m_chunk;
    size_t m_next{0};
};

// Every coin of `sources`, in key order, to `sink`, each source being in
// key order. Throws std::logic_error for an outpoint seen twice.
void MergeSources(std::vector<std::unique_ptr<SortedSource>>& sources, const std::function<void(const COutPoint&, Coin&&)>& sink)
{
    // A min-heap of the sources by their current outpoint, each beside its
    // txid's prefix.
    struct Head {
        uint64_t prefix;
        size_t source;
    };
    const auto later = [&](const Head& a, const Head& b) {
        if (a.prefix != b.prefix) return b.prefix < a.prefix;
        return CoinKeyLess(sources[b.source]->Outpoint(), sources[a.source]->Outpoint());
    };
    std::vector<Head> heap;
    for (size_t source = 0; source < sources.size(); ++source) {
        if (sources[source]->Advance()) heap.push_back({TxidPrefix(sources[source]->Outpoint()), source});
    }
    std::ranges::make_heap(heap, later);

    std::optional<COutPoint> previous;
    uint64_t previous_prefix{0};
    while (!heap.empty()) {
        std::ranges::pop_heap(heap, later);
        Head& head = heap.back();
        SortedSource& source = *sources[head.source];
        const COutPoint& outpoint = source.Outpoint();
        if (previous && head.prefix <= previous_prefix && !CoinKeyLess(*previous, outpoint)) {
            throw std::logic_error(fmt::format("SwiftSync: the coin {}:{} was kept twice", outpoint.hash.GetHex(), outpoint.n));
        }
        previous = outpoint;
        previous_prefix = head.prefix;
        sink(outpoint, std::move(source.CurrentCoin()));
        if (source.Advance()) {
            head.prefix = TxidPrefix(source.Outpoint());
            std::ranges::push_heap(heap, later);
        } else {
            heap.pop_back();
        }
    }
}

} // namespace

CoinRuns::CoinRuns(std::filesystem::path dir, size_t memory_budget, size_t chunk_coins)
    : m_dir{std::move(dir)}, m_budget{memory_budget}, m_chunk_coins{std::max<size_t>(chunk_coins, 1)}
{
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
}

CoinRuns::~CoinRuns()
{
    // The sorting thread may still hold a chunk.
    if (m_sorting.valid()) m_sorting.wait();
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

size_t CoinRuns::CoinUsage(const Coin& coin) { return sizeof(std::pair<COutPoint, Coin>) + coin.DynamicMemoryUsage(); }

void CoinRuns::Add(const COutPoint& outpoint, Coin&& coin)
{
    // The spare capacity of the chunk being filled counts too.
    const auto spare = [&] { return (m_filling.capacity() - m_filling.size()) * sizeof(m_filling[0]); };
    m_memory -= spare();
    // A new chunk is allocated whole, not grown by doubling, which copied
    // every coin once more and touched twice the memory. At most a quarter
    // of the budget (a small one may hold less than a chunk): the room
    // reserved counts against it.
    if (m_filling.capacity() == 0) m_filling.reserve(std::clamp<size_t>(m_budget / 4 / sizeof(m_filling[0]), 1, m_chunk_coins));
    m_memory += CoinUsage(coin);
    m_filling.emplace_back(outpoint, std::move(coin));
    m_memory += spare();
    ++m_count;
    if (m_memory >= m_budget) {
        WriteRun();
    } else if (m_filling.size() >= m_chunk_coins) {
        SortInBackground();
    }
}

void CoinRuns::SortInBackground()
{
    // One sort at a time: the previous chunk's is long done by now.
    if (m_sorting.valid()) m_sorting.get();
    // A sorted chunk keeps no spare capacity.
    const auto spare = [&] { return (m_filling.capacity() - m_filling.size()) * sizeof(m_filling[0]); };
    m_memory -= spare();
    m_filling.shrink_to_fit();
    m_memory += spare();
    m_sorted.push_back(std::make_unique<Chunk>(std::move(m_filling)));
    m_filling = Chunk{};
    Chunk& chunk = *m_sorted.back();
    m_sorting = std::async(std::launch::async, [&chunk] { SortChunk(chunk); });
}

void CoinRuns::FinishSorting()
{
    if (m_sorting.valid()) m_sorting.get();
    if (!m_filling.empty()) {
        SortChunk(m_filling);
        m_sorted.push_back(std::make_unique<Chunk>(std::move(m_filling)));
        m_filling = Chunk{};
    }
}

void CoinRuns::WriteRun()
{
    FinishSorting();
    const auto path = m_dir / fmt::format("run{:05}.dat", m_run_files.size());
    AutoFile file{std::fopen(path.c_str(), "wb")};
    if (file.IsNull()) throw std::runtime_error("Cannot create the SwiftSync run " + path.string());
    std::setvbuf(file.Get(), nullptr, _IOFBF, RUN_IO_BUFFER_BYTES);
    std::vector<std::unique_ptr<SortedSource>> sources;
    for (const auto& chunk : m_sorted) sources.push_back(std::make_unique<ChunkReader>(*chunk));
    DataStream record;
    try {
        MergeSources(sources, [&](const COutPoint& outpoint, Coin&& coin) {
            record.Clear();
            record << outpoint << coin;
            file.write(record.Unread());
            m_run_bytes += record.size();
        });
    } catch (const std::ios_base::failure& e) {
        throw std::runtime_error(fmt::format("Cannot write the SwiftSync run {}: {}", path.string(), e.what()));
    }
    if (file.fclose() != 0) throw std::runtime_error("Cannot write the SwiftSync run " + path.string());
    m_run_files.push_back(path);
    m_sorted.clear();
    m_memory = 0;
}

void CoinRuns::Merge(const std::function<void(const COutPoint&, Coin&&)>& sink)
{
    FinishSorting();
    std::vector<std::unique_ptr<SortedSource>> sources;
    for (const auto& path : m_run_files) sources.push_back(std::make_unique<RunReader>(path));
    for (const auto& chunk : m_sorted) sources.push_back(std::make_unique<ChunkReader>(*chunk));
    MergeSources(sources, sink);
    m_sorted.clear();
    m_memory = 0;
}

} // namespace node
