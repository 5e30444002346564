#ifndef COINSDB_NODE_REPLAY_COIN_RUNS_H
#define COINSDB_NODE_REPLAY_COIN_RUNS_H

// The coins a SwiftSync hinted replay keeps, gathered in block order and
// handed back in chainstate key order: an external sort. Coins collect in
// memory up to a budget (the coins cache's: the cache itself stays empty
// below the hints' height); then they are sorted and written to a run file
// of their own. Merge() reads every run and what is still in memory back
// in one k-way merge, so the chainstate is written once, in key order, the
// way a snapshot load writes it (bulk load, ingested tables).
//
// Run file: records until the end of the file, each
//   txid (32 bytes, internal order), LE32 n, Coin (coins.h)
// strictly rising by outpoint. Files are private to one replay: nothing
// else reads them, no header, and a start that finds them deletes them.
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
#include <utility>
#include <vector>

namespace node {

class CoinRuns
{
public:
    // `dir` is created, and removed with everything in it by the
    // destructor. `memory_budget`: the bytes gathered coins may take
    // before they are written out as a run.
    CoinRuns(std::filesystem::path dir, size_t memory_budget);
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

private:
    void WriteRun();

    std::filesystem::path m_dir;
    size_t m_budget;
    std::vector<std::pair<COutPoint, Coin>> m_coins;
    size_t m_memory{0};
    uint64_t m_count{0};
    uint64_t m_run_bytes{0};
    std::vector<std::filesystem::path> m_run_files;
};

} // namespace node

#endif // COINSDB_NODE_REPLAY_COIN_RUNS_H
