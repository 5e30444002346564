#ifndef COINSDB_NODE_CHAINSTATE_CHAINSTATE_H
#define COINSDB_NODE_CHAINSTATE_CHAINSTATE_H

#include <coins.h>
#include <kernel/caches.h>
#include <kernel/chainparams.h>
#include <txdb.h>
#include <uint256.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

class AutoFile;
struct SnapshotMetadata;

namespace node {

// -snapshotbulkload default (see ChainstateManagerOptions).
constexpr bool DEFAULT_SNAPSHOT_BULK_LOAD{true};

// How full the in-memory coins cache is relative to its budget.
enum class CoinsCacheSizeState { OK, LARGE, CRITICAL };

// Entries a cache may gain between two looks at its size: a block's outputs
// and spends reach the tip all at once. A 4 MB block holds at most about
// 111,000 outputs (36 weight units each) and 25,000 inputs; ten times that
// leaves room to spare.
constexpr size_t CACHE_ENTRY_HEADROOM = 1'000'000;

// The txid filter of a chainstate opened without coins (txdb/txid_filter.h)
// takes this share of its coins cache budget, at most MAX_TXID_FILTER_BYTES:
// 5.6 MiB at -dbcache=100, 27.5 MiB at the default 450. It is counted in
// the cache's usage. Once full it passes most txids and only costs that
// memory: on mainnet, past BIP34's height, where the BIP30 lookups it
// saves stop, the cap bounds what that costs.
constexpr size_t TXID_FILTER_BUDGET_DIVISOR = 16;
constexpr size_t MAX_TXID_FILTER_BYTES = size_t{32} << 20;
constexpr size_t TxidFilterBytes(size_t coins_cache_bytes) { return std::min(coins_cache_bytes / TXID_FILTER_BUDGET_DIVISOR, MAX_TXID_FILTER_BYTES); }

// The state of a cache holding `entries` coins in `usage` bytes under a
// budget of `budget` bytes:
//   usage > budget                                      CRITICAL
//   entries >= MAX_ENTRIES - CACHE_ENTRY_HEADROOM       CRITICAL
//   usage > 90% of the budget                           LARGE
//   otherwise                                           OK
// The second row is for a -dbcache so large (over about 100 GB) that the
// map would run out of slots before the budget: the cache is written out
// instead of an insert failing.
CoinsCacheSizeState CoinsCacheSizeStateOf(size_t usage, size_t entries, size_t budget);

// Where a snapshot chainstate came from; kept beside it on disk so that a
// restart finds it without the -assumeutxo entry it was loaded with.
struct SnapshotBase {
    uint256 blockhash;
    int height;
    uint64_t chain_tx_count;
};

// Bitcoin Core treats a failed chainstate write as fatal, and so does
// coinsdb: the first failure, in any chainstate and whoever asked for the
// write, stops every later one and tells the node to shut down. What is on
// disk then is what a crash at that moment would have left, which start-up
// knows how to repair; writing on could only tear it further.
class ChainstateWriteGuard
{
public:
    using OnFailure = std::function<void(const std::string& message)>;
    explicit ChainstateWriteGuard(OnFailure on_failure) : m_on_failure{std::move(on_failure)} {}

    bool Failed() const { return m_failed; }
    // Throws when an earlier write failed.
    void CheckWritable(const std::filesystem::path& dir) const;
    // Records the first failure and reports it once.
    void Fail(const std::filesystem::path& dir, const std::string& what);

private:
    OnFailure m_on_failure;
    std::atomic<bool> m_failed{false};
};

// The last write of a coins cache to disk in this process, of whichever
// chainstate (getcoinscacheinfo's last_flush).
struct FlushRecord {
    // The chainstate's directory name: chainstate or chainstate_snapshot.
    std::string chainstate;
    // The whole write, as FlushSnapshotToDisk logs it.
    double duration_ms{0};
    CoinsFlushStats stats;
};

// Shared by every chainstate. A snapshot load flushes its chainstate
// without holding the chainstate lock, so the record has a lock of its own.
class FlushRecorder
{
public:
    void Record(FlushRecord record);
    // nullopt until the first write since start-up.
    std::optional<FlushRecord> Last() const;

private:
    mutable std::mutex m_mutex;
    std::optional<FlushRecord> m_last;
};

// One UTXO set: the chainstate database plus the coins cache on top of it.
class Chainstate
{
public:
    Chainstate(std::filesystem::path dir, size_t db_cache_bytes, const DBOptions& db_options, const CoinsViewOptions& options, bool wipe,
               size_t coins_cache_bytes, std::optional<SnapshotBase> snapshot, ChainstateWriteGuard& write_guard,
               FlushRecorder& flush_recorder);

    CCoinsViewDB& CoinsDB() { return *m_db; }
    CCoinsViewCache& CoinsTip() { return *m_cache; }
    const std::filesystem::path& Dir() const { return m_dir; }
    const std::optional<SnapshotBase>& Snapshot() const { return m_snapshot; }

    // The memory the coins cache and the database's txid filter share.
    size_t CoinsCacheBudget() const { return m_cache_budget; }
    void SetCoinsCacheBudget(size_t bytes) { m_cache_budget = bytes; }
    // The part of it left to the cache's entries.
    size_t CoinsCacheRoom() const { return m_cache_budget - std::min(m_cache_budget, m_db->TxidFilterBytes()); }
    CoinsCacheSizeState GetCoinsCacheSizeState() const;

    uint256 TipHash() const { return m_cache->GetBestBlock(); }
    int TipHeight() const { return m_tip_height; }
    void SetTip(const uint256& hash, int height);

    // Writes every change and empties the cache: for when the memory is
    // wanted back (cache over budget, snapshot load, shutdown). Both throw
    // when the write fails or an earlier one did (ChainstateWriteGuard);
    // the cache then still holds every change the database did not take.
    void Flush();
    // Writes every change and keeps the coins cached, clean: for writes
    // that only need the changes on disk (prune, periodic, statistics).
    void Sync();
    // Duration of this chainstate's last Flush or Sync.
    double LastFlushMs() const { return m_last_flush_ms; }

    // Closes the database so the directory can be removed.
    void Close();

private:
    void WriteBack(bool empty_cache);

    std::filesystem::path m_dir;
    std::unique_ptr<CCoinsViewDB> m_db;
    std::unique_ptr<CCoinsViewCache> m_cache;
    size_t m_cache_budget;
    int m_tip_height{0};
    std::optional<SnapshotBase> m_snapshot;
    double m_last_flush_ms{0};
    ChainstateWriteGuard& m_write_guard;
    FlushRecorder& m_flush_recorder;
};

struct ChainstateManagerOptions {
    CChainParams params;
    // The network's data directory (e.g. <datadir>/regtest).
    std::filesystem::path datadir;
    kernel::CacheSizes cache_sizes;
    CoinsViewOptions coins_view;
    // -reindex-chainstate: start chainstate/ from scratch.
    bool wipe_chainstate{false};
    // Called once, on the first failed chainstate write (see
    // ChainstateWriteGuard); the node shuts down from it.
    ChainstateWriteGuard::OnFailure on_write_failure{};
    // How chainstate/ and chainstate_snapshot/ open their databases
    // (-debugstorage).
    DBOptions db{};
    // -snapshotbulkload: a snapshot load's flushes are bulk ones (no crash
    // markers, see CCoinsViewDB::SetBulkLoad); off, they are written as
    // every other flush, as Bitcoin Core writes them.
    bool snapshot_bulk_load{DEFAULT_SNAPSHOT_BULK_LOAD};
};

struct SnapshotLoadResult {
    uint64_t coins_loaded;
    uint256 base_blockhash;
    int base_height;
};

// The node's chainstates: the one in chainstate/ and, after loadtxoutset,
// the snapshot one in chainstate_snapshot/, which is then the active one.
class ChainstateManager
{
public:
    explicit ChainstateManager(ChainstateManagerOptions options);
    ~ChainstateManager();

    // Opens chainstate/ (starting it at genesis when new; otherwise at the
    // height blocks/index records for its best block) and, when present,
    // chainstate_snapshot/. Throws on a database error.
    void LoadChainstates();

    // Guards every chainstate; RPCs and shutdown take it.
    std::recursive_mutex& Mutex() { return m_mutex; }

    Chainstate& Active();
    std::vector<Chainstate*> All();
    const CChainParams& Params() const { return m_options.params; }
    const ChainstateManagerOptions& Options() const { return m_options; }

    // Loads, flushes and validates a snapshot into chainstate_snapshot/ and
    // makes it the active chainstate: the coins that follow metadata (read
    // already, SnapshotMetadata::Read) in file; path is for the log. On any
    // failure the directory is removed, chainstate/ is untouched, and the
    // exception says why.
    SnapshotLoadResult ActivateSnapshot(AutoFile& file, const SnapshotMetadata& metadata, const std::filesystem::path& path,
                                        const std::atomic<bool>& interrupt);
    bool IsSnapshotLoading() const { return m_snapshot_loading; }

    // Flushes every chainstate (shutdown, before statistics).
    void FlushAll();
    // True once a chainstate write failed: nothing is written any more.
    bool WriteFailed() const { return m_write_guard.Failed(); }
    // The last write of any chainstate's coins cache, also one of a
    // snapshot chainstate still being loaded.
    std::optional<FlushRecord> LastFlush() const { return m_flush_recorder.Last(); }

private:
    std::filesystem::path SnapshotDir() const { return m_options.datadir / "chainstate_snapshot"; }
    std::unique_ptr<Chainstate> OpenSnapshotChainstate(const SnapshotBase& base, bool wipe);
    void RebalanceCaches();

    ChainstateManagerOptions m_options;
    ChainstateWriteGuard m_write_guard;
    FlushRecorder m_flush_recorder;
    std::recursive_mutex m_mutex;
    std::unique_ptr<Chainstate> m_ibd_chainstate;
    std::unique_ptr<Chainstate> m_snapshot_chainstate;
    std::atomic<bool> m_snapshot_loading{false};
};

} // namespace node

#endif // COINSDB_NODE_CHAINSTATE_CHAINSTATE_H
