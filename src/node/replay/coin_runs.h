#ifndef COINSDB_NODE_REPLAY_COIN_RUNS_H
#define COINSDB_NODE_REPLAY_COIN_RUNS_H

// The coins a SwiftSync hinted replay keeps, gathered in block order and
// handed back in chainstate key order: an external sort. Coins collect in
// memory in chunks; each full chunk is sorted on a thread of its own while
// the replay goes on (the sort would otherwise sit on the connecting
// thread at H, where it cost 0.55 s of a 3.7 s replay of 2M coins). Up to
// a budget (the coins cache's: the cache itself stays empty below the
// hints' height); then the sorted chunks are merged into a run file of
// their own. Merge() reads every run and the chunks still in memory back
// in one k-way merge, so the chainstate is written once, in key order, the
// way a snapshot load writes it (bulk load, ingested tables).
//
// Run file: records until the end of the file, each
//   txid (32 bytes, internal order), LE32 n, Coin (coins.h)
// strictly rising in chainstate key order (CoinKeyLess, txdb.h: an index
// of 16512 or more sorts by its VARINT bytes, not its value). Files are
// private to one replay: nothing else reads them, no header, and a start
// that finds them deletes them.
//
// Why not LevelDB's level 0: runs overlap each other over the whole key
// range, so each one installed there would be merged by a compaction with
// all the data below it: at mainnet's 180M coins and a few GiB of cache,
// dozens of rewrites of a growing database, against one read of each run
// here.

#include <coins.h>
#include <primitives/transaction.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <utility>
#include <vector>

namespace node {

class CoinRuns
{
public:
    // Coins per chunk: sorted in about 60 ms, so a sort is done long
    // before the replay fills the next chunk.
    static constexpr size_t DEFAULT_CHUNK_COINS{size_t{1} << 18};

    // `dir` is created, and removed with everything in it by the
    // destructor. `memory_budget`: the bytes gathered coins may take
    // before they are written out as a run. `chunk_coins`: coins gathered
    // before a chunk is handed to the sorting thread.
    CoinRuns(std::filesystem::path dir, size_t memory_budget, size_t chunk_coins = DEFAULT_CHUNK_COINS);
    ~CoinRuns();
    CoinRuns(const CoinRuns&) = delete;
    CoinRuns& operator=(const CoinRuns&) = delete;

    // Throws std::runtime_error when a run cannot be written.
    void Add(const COutPoint& outpoint, Coin&& coin);

    // Every coin added, once each, in key order. Throws std::runtime_error
    // for a run that does not read back, and std::logic_error for an
    // outpoint added twice (the hinted replay checks duplicate coinbase
    // txids before they get here).
    void Merge(const std::function<void(const COutPoint&, Coin&&)>& sink);

    uint64_t Count() const { return m_count; }
    size_t Runs() const { return m_run_files.size(); }
    size_t MemoryUsage() const { return m_memory; }
    uint64_t RunBytes() const { return m_run_bytes; }

    // What one gathered coin costs in memory.
    static size_t CoinUsage(const Coin& coin);

    // Sorted chunks still in memory (the one being filled not counted).
    size_t Chunks() const { return m_sorted.size(); }

private:
    using Chunk = std::vector<std::pair<COutPoint, Coin>>;

    // Hands the chunk being filled to the sorting thread.
    void SortInBackground();
    // Every coin in memory, sorted: waits for the sorting thread.
    void FinishSorting();
    void WriteRun();

    std::filesystem::path m_dir;
    size_t m_budget;
    size_t m_chunk_coins;
    Chunk m_filling;
    // unique_ptr: the sorting thread holds a reference to the last one.
    std::vector<std::unique_ptr<Chunk>> m_sorted;
    // The last chunk's sort; at most one runs at a time.
    std::future<void> m_sorting;
    size_t m_memory{0};
    uint64_t m_count{0};
    uint64_t m_run_bytes{0};
    std::vector<std::filesystem::path> m_run_files;
};

} // namespace node

#endif // COINSDB_NODE_REPLAY_COIN_RUNS_H
