#include <node/chainstate/chainstate.h>

#include <kernel/coinstats.h>
#include <node/blockstorage/blockstorage.h>
#include <node/snapshot/read_ahead.h>
#include <node/snapshot/utxo_snapshot.h>
#include <streams.h>
#include <util/log.h>

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <optional>

namespace node {
namespace {

// Upstream's split while a snapshot chainstate exists: it does all the
// work, the other one only waits.
constexpr double SNAPSHOT_CACHE_SHARE = 0.99;
// How often a load looks at the shutdown flag. The cache's size is checked
// after every coin: that costs a few arithmetic operations, and a count of
// coins would let a snapshot of large scripts overshoot the budget by
// hundreds of MiB between checks.
constexpr uint64_t SNAPSHOT_INTERRUPT_CHECK_INTERVAL = 120'000;
constexpr uint64_t SNAPSHOT_PROGRESS_INTERVAL = 1'000'000;
// How many coins ahead of an insert a snapshot load prefetches the map's
// bucket for it: a little more than a memory access's latency in inserts.
constexpr size_t SNAPSHOT_PREFETCH_DISTANCE = 8;
// A cache at 90% of its budget is "large", as upstream.
constexpr double LARGE_CACHE_SHARE = 0.9;

constexpr const char* BASE_BLOCKHASH_FILE = "base_blockhash";
// coinsdb's own addition beside upstream's base_blockhash file.
constexpr const char* BASE_INFO_FILE = "coinsdb_snapshot_base";

double InMB(size_t bytes) { return bytes / (1000.0 * 1000.0); }

void WriteSnapshotBaseFiles(const std::filesystem::path& dir, const SnapshotBase& base)
{
    {
        AutoFile file{std::fopen((dir / BASE_BLOCKHASH_FILE).c_str(), "wb")};
        if (file.IsNull()) throw std::runtime_error("Cannot write " + (dir / BASE_BLOCKHASH_FILE).string());
        file << base.blockhash;
        if (file.fclose() != 0) throw std::runtime_error("Cannot write " + (dir / BASE_BLOCKHASH_FILE).string());
    }
    std::ofstream info{dir / BASE_INFO_FILE};
    info << base.height << ' ' << base.chain_tx_count << '\n';
    if (!info.good()) throw std::runtime_error("Cannot write " + (dir / BASE_INFO_FILE).string());
}

std::optional<SnapshotBase> ReadSnapshotBaseFiles(const std::filesystem::path& dir, const CChainParams& params)
{
    SnapshotBase base{};
    AutoFile file{std::fopen((dir / BASE_BLOCKHASH_FILE).c_str(), "rb")};
    if (file.IsNull()) return std::nullopt;
    try {
        file >> base.blockhash;
    } catch (const std::ios_base::failure&) {
        return std::nullopt;
    }
    std::ifstream info{dir / BASE_INFO_FILE};
    if (!(info >> base.height >> base.chain_tx_count)) {
        auto entry = params.AssumeutxoForBlockhash(base.blockhash);
        if (!entry) return std::nullopt;
        base.height = entry->height;
        base.chain_tx_count = entry->chain_tx_count;
    }
    return base;
}

// Upstream's FlushSnapshotToDisk, with its log lines. "completed" only
// once the flush did: a LogTimer would also log it while a failed flush
// unwinds, right after the error, as if the write had gone through.
// The duration logged is the one getcoinscacheinfo then reports.
void FlushSnapshotToDisk(Chainstate& chainstate, bool snapshot_loaded)
{
    LogInfo("FlushSnapshotToDisk: {} ({:.2f} MB) started", snapshot_loaded ? "saving snapshot chainstate" : "flushing coins cache",
            InMB(chainstate.CoinsTip().DynamicMemoryUsage()));
    chainstate.Flush();
    LogInfo("FlushSnapshotToDisk: completed ({:.2f}ms)", chainstate.LastFlushMs());
}

} // namespace

void FlushRecorder::Record(FlushRecord record)
{
    std::lock_guard lock{m_mutex};
    m_last = std::move(record);
}

std::optional<FlushRecord> FlushRecorder::Last() const
{
    std::lock_guard lock{m_mutex};
    return m_last;
}

void ChainstateWriteGuard::CheckWritable(const std::filesystem::path& dir) const
{
    if (m_failed) throw std::runtime_error("Not writing " + dir.string() + ": an earlier chainstate write failed and the node is shutting down");
}

void ChainstateWriteGuard::Fail(const std::filesystem::path& dir, const std::string& what)
{
    if (m_failed.exchange(true)) return;
    const std::string message = fmt::format(
        "A write to the chainstate in {} failed: {}. coinsdb writes nothing more and shuts down. The chainstate on disk is "
        "as a crash at this moment would leave it: free disk space (or fix the I/O error) and restart, and the node "
        "rolls forward to where it stopped.",
        dir.string(), what);
    LogError("{}", message);
    if (m_on_failure) m_on_failure(message);
}

Chainstate::Chainstate(std::filesystem::path dir, size_t db_cache_bytes, const DBOptions& db_options, const CoinsViewOptions& options, bool wipe,
                       size_t coins_cache_bytes, std::optional<SnapshotBase> snapshot, ChainstateWriteGuard& write_guard,
                       FlushRecorder& flush_recorder)
    : m_dir{std::move(dir)}, m_cache_budget{coins_cache_bytes}, m_snapshot{std::move(snapshot)}, m_write_guard{write_guard},
      m_flush_recorder{flush_recorder}
{
    CoinsViewOptions db_view_options{options};
    db_view_options.txid_filter_bytes = TxidFilterBytes(coins_cache_bytes);
    m_db = std::make_unique<CCoinsViewDB>(DBParams{.path = m_dir, .cache_bytes = db_cache_bytes, .wipe_data = wipe, .options = db_options},
                                          std::move(db_view_options));
    m_cache = std::make_unique<CCoinsViewCache>(m_db.get());
    // A database without a coin (new, wiped, or a snapshot's before its
    // load) gets every coin it will hold through this cache: until the
    // cache first lets go of one (a Flush), a coin the cache lacks is in no
    // database either, and the cache answers without reading it.
    if (!m_db->Cursor()->Valid()) m_cache->MarkHoldsEveryParentCoin();
    if (m_snapshot) m_tip_height = m_snapshot->height;
}

CoinsCacheSizeState CoinsCacheSizeStateOf(size_t usage, size_t entries, size_t budget)
{
    static_assert(CCoinsViewCache::MAX_ENTRIES > 100 * CACHE_ENTRY_HEADROOM);
    if (usage > budget) return CoinsCacheSizeState::CRITICAL;
    if (entries >= CCoinsViewCache::MAX_ENTRIES - CACHE_ENTRY_HEADROOM) return CoinsCacheSizeState::CRITICAL;
    if (usage > budget * LARGE_CACHE_SHARE) return CoinsCacheSizeState::LARGE;
    return CoinsCacheSizeState::OK;
}

CoinsCacheSizeState Chainstate::GetCoinsCacheSizeState() const
{
    return CoinsCacheSizeStateOf(m_cache->DynamicMemoryUsage(), m_cache->GetCacheSize(), CoinsCacheRoom());
}

void Chainstate::SetTip(const uint256& hash, int height)
{
    m_cache->SetBestBlock(hash);
    m_tip_height = height;
}

void Chainstate::Flush() { WriteBack(/*empty_cache=*/true); }

void Chainstate::Sync() { WriteBack(/*empty_cache=*/false); }

void Chainstate::WriteBack(bool empty_cache)
{
    m_write_guard.CheckWritable(m_dir);
    const auto start = std::chrono::steady_clock::now();
    try {
        if (empty_cache) {
            m_cache->Flush();
        } else {
            m_cache->Sync();
        }
    } catch (const std::exception& e) {
        m_write_guard.Fail(m_dir, e.what());
        throw;
    }
    m_last_flush_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m_flush_recorder.Record({m_dir.filename().string(), m_last_flush_ms, m_db->LastFlushStats()});
}

void Chainstate::Close()
{
    m_cache.reset();
    m_db.reset();
}

ChainstateManager::ChainstateManager(ChainstateManagerOptions options)
    : m_options{std::move(options)}, m_write_guard{m_options.on_write_failure} {}

ChainstateManager::~ChainstateManager() = default;

void ChainstateManager::LoadChainstates()
{
    std::lock_guard lock{m_mutex};
    const auto& sizes = m_options.cache_sizes;
    if (m_options.wipe_chainstate) LogInfo("-reindex-chainstate: wiping chainstate/ to rebuild it from stored blocks");
    m_ibd_chainstate = std::make_unique<Chainstate>(m_options.datadir / "chainstate", sizes.coins_db, m_options.db, m_options.coins_view,
                                                    /*wipe=*/m_options.wipe_chainstate, sizes.coins, std::nullopt, m_write_guard,
                                                    m_flush_recorder);
    if (m_ibd_chainstate->TipHash().IsNull() && !m_ibd_chainstate->CoinsDB().GetHeadBlocks().empty()) {
        // A flush was cut short: block replay repairs it (BlockProcessor).
        LogInfo("chainstate/ holds an unfinished flush; it will be replayed");
        m_ibd_chainstate->SetTip(uint256{}, -1);
    } else if (m_ibd_chainstate->TipHash().IsNull()) {
        // A new chainstate starts as the UTXO set after genesis: empty,
        // since the genesis output is not spendable.
        LogInfo("Initializing chainstate at the genesis block {}", Params().GenesisHash().GetHex());
        m_ibd_chainstate->SetTip(Params().GenesisHash(), 0);
        m_ibd_chainstate->Flush();
    } else if (m_ibd_chainstate->TipHash() != Params().GenesisHash()) {
        // The coins database keeps only the best block's hash; its height
        // is in the block index. Read here rather than left to block
        // replay, which is not set up while a snapshot chainstate is active
        // and yet this chainstate's height is still reported.
        const uint256 tip = m_ibd_chainstate->TipHash();
        const auto height = BlockManager::ReadStoredHeight(m_options.datadir / "blocks", tip);
        if (!height) LogWarning("chainstate/ best block {} is not in the block index; its height is unknown", tip.GetHex());
        m_ibd_chainstate->SetTip(tip, height.value_or(-1));
    }

    if (std::filesystem::exists(SnapshotDir())) {
        auto base = ReadSnapshotBaseFiles(SnapshotDir(), Params());
        if (!base) {
            // No base file: a load that never finished. Its coins can't be trusted.
            LogWarning("Removing incomplete snapshot chainstate in {}", SnapshotDir().string());
            std::filesystem::remove_all(SnapshotDir());
        } else {
            LogInfo("[snapshot] detected active snapshot chainstate ({}) - loading", SnapshotDir().string());
            m_snapshot_chainstate = OpenSnapshotChainstate(*base, /*wipe=*/false);
            if (m_snapshot_chainstate->TipHash() != base->blockhash) {
                throw std::runtime_error("Snapshot chainstate tip " + m_snapshot_chainstate->TipHash().GetHex() +
                                         " does not match its base block " + base->blockhash.GetHex());
            }
        }
    }
    RebalanceCaches();
    LogInfo("Active chainstate: {} at height {}, best block {}", Active().Dir().filename().string(), Active().TipHeight(),
            Active().TipHash().GetHex());
}

std::unique_ptr<Chainstate> ChainstateManager::OpenSnapshotChainstate(const SnapshotBase& base, bool wipe)
{
    const auto& sizes = m_options.cache_sizes;
    return std::make_unique<Chainstate>(SnapshotDir(), sizes.coins_db, m_options.db, m_options.coins_view, wipe,
                                        static_cast<size_t>(sizes.coins * SNAPSHOT_CACHE_SHARE), base, m_write_guard, m_flush_recorder);
}

void ChainstateManager::RebalanceCaches()
{
    const size_t total = m_options.cache_sizes.coins;
    if (m_snapshot_chainstate) {
        m_snapshot_chainstate->SetCoinsCacheBudget(static_cast<size_t>(total * SNAPSHOT_CACHE_SHARE));
        m_ibd_chainstate->SetCoinsCacheBudget(total - m_snapshot_chainstate->CoinsCacheBudget());
    } else {
        m_ibd_chainstate->SetCoinsCacheBudget(total);
    }
}

Chainstate& ChainstateManager::Active()
{
    return m_snapshot_chainstate ? *m_snapshot_chainstate : *m_ibd_chainstate;
}

std::vector<Chainstate*> ChainstateManager::All()
{
    std::vector<Chainstate*> out;
    if (m_ibd_chainstate) out.push_back(m_ibd_chainstate.get());
    if (m_snapshot_chainstate) out.push_back(m_snapshot_chainstate.get());
    return out;
}

void ChainstateManager::FlushAll()
{
    std::lock_guard lock{m_mutex};
    for (Chainstate* chainstate : All()) chainstate->Flush();
}

namespace {

// Reads every coin into the snapshot chainstate's cache, flushing when the
// cache outgrows its budget, then saves it. Returns the coins' hash when
// they came in key order.
std::optional<uint256> PopulateSnapshot(Chainstate& chainstate, AutoFile& file, const SnapshotMetadata& metadata,
                                        int base_height, const std::atomic<bool>& interrupt)
{
    CCoinsViewCache& cache = chainstate.CoinsTip();
    // The whole bucket array up front, for as many coins as can fit: the
    // map neither rehashes on the way up nor after a flush (which keeps it).
    cache.ReserveEntries(std::min<uint64_t>({metadata.coins_count, chainstate.CoinsCacheRoom() / CCoinsViewCache::MIN_BYTES_PER_ENTRY,
                                             CCoinsViewCache::MAX_ENTRIES}));
    // Coins in strictly ascending order are all distinct, and a cache that
    // starts empty holds none of them (a flush empties it again).
    const bool cache_started_empty = cache.GetCacheSize() == 0;
    SnapshotReadAhead reader{file, metadata, base_height};
    SnapshotReadAhead::Chunk chunk;
    uint64_t loaded = 0;
    while (reader.Next(chunk)) {
        for (size_t i = 0; i < chunk.coins.size(); ++i) {
            if (i + SNAPSHOT_PREFETCH_DISTANCE < chunk.coins.size()) cache.PrefetchEntry(chunk.coins[i + SNAPSHOT_PREFETCH_DISTANCE].first);
            auto& [outpoint, coin] = chunk.coins[i];
            ++loaded;
            const bool in_order = i < chunk.first_unordered;
            // In key order a repeat is the coin just before (the hasher
            // refuses it). Out of order it could be any coin read so far,
            // in the cache or already flushed: look it up, a database read
            // per coin, paid only by files that dumptxoutset did not write.
            if (!in_order && cache.HaveCoin(outpoint)) {
                throw SnapshotError(fmt::format("Bad snapshot data after deserializing {} coins: coin {}:{} appears twice",
                                                loaded, outpoint.hash.GetHex(), outpoint.n));
            }
            if (cache_started_empty && in_order) {
                cache.EmplaceNewCoinInternalDANGER(std::move(outpoint), std::move(coin));
            } else {
                cache.EmplaceCoinInternalDANGER(std::move(outpoint), std::move(coin));
            }
            if (loaded % SNAPSHOT_PROGRESS_INTERVAL == 0) {
                LogInfo("[snapshot] {} coins loaded ({:.2f}%, {:.2f} MB)", loaded, loaded * 100.0 / metadata.coins_count,
                        InMB(cache.DynamicMemoryUsage()));
            }
            if (loaded % SNAPSHOT_INTERRUPT_CHECK_INTERVAL == 0 && interrupt) {
                throw std::runtime_error("Snapshot load interrupted by shutdown");
            }
            if (chainstate.GetCoinsCacheSizeState() == CoinsCacheSizeState::CRITICAL) {
                // A flush needs a best block (BatchWrite asserts one), and the
                // base block is the only one this set will ever have, so it is
                // set for every intermediate flush as for the last. What marks
                // the set as unfinished is the missing base_blockhash file,
                // written only once the load is validated: a failed load
                // removes the directory, and a start that finds it without the
                // file removes it (LoadChainstates). That is why the load's
                // flushes can be bulk ones, without crash markers.
                cache.SetBestBlock(metadata.base_blockhash);
                FlushSnapshotToDisk(chainstate, /*snapshot_loaded=*/false);
            }
        }
    }
    cache.SetBestBlock(metadata.base_blockhash);
    return reader.Hash();
}

} // namespace

SnapshotLoadResult ChainstateManager::ActivateSnapshot(AutoFile& file, const SnapshotMetadata& metadata, const std::filesystem::path& path,
                                                      const std::atomic<bool>& interrupt)
{
    bool expected = false;
    if (!m_snapshot_loading.compare_exchange_strong(expected, true)) {
        throw std::runtime_error("Another snapshot load is already in progress");
    }
    struct ResetFlag {
        std::atomic<bool>& flag;
        ~ResetFlag() { flag = false; }
    } reset{m_snapshot_loading};

    {
        std::lock_guard lock{m_mutex};
        if (m_snapshot_chainstate) throw std::runtime_error("Can't activate a snapshot-based chainstate more than once");
    }

    const AssumeutxoData au_data = CheckSnapshotBase(metadata, Params());
    const SnapshotBase base{metadata.base_blockhash, au_data.height, au_data.chain_tx_count};

    LogInfo("[snapshot] loading {} coins from snapshot {}", metadata.coins_count, metadata.base_blockhash.GetHex());
    std::unique_ptr<Chainstate> chainstate;
    try {
        chainstate = OpenSnapshotChainstate(base, /*wipe=*/true);
        // Up to the last flush of the loaded set; nothing of it survives a
        // crash before the base_blockhash file is written.
        chainstate->CoinsDB().SetBulkLoad(m_options.snapshot_bulk_load);
        // Every coin of the snapshot would go through the txid filter, to
        // save the lookups of the few blocks connected on top before the
        // background chainstate catches up: the memory serves the load's
        // cache better, as it does a hinted replay's (BlockProcessor).
        chainstate->CoinsDB().DropTxidFilter();
        std::optional<uint256> hash = PopulateSnapshot(*chainstate, file, metadata, au_data.height, interrupt);
        const uint64_t loaded = metadata.coins_count;
        const size_t loaded_usage = chainstate->CoinsTip().DynamicMemoryUsage();
        LogInfo("[snapshot] loaded {} ({:.2f} MB) coins from snapshot {}", loaded, InMB(loaded_usage),
                metadata.base_blockhash.GetHex());
        FlushSnapshotToDisk(*chainstate, /*snapshot_loaded=*/true);
        chainstate->CoinsDB().SetBulkLoad(false);

        if (!hash) {
            const auto stats = kernel::ComputeUTXOStats(kernel::CoinStatsHashType::HASH_SERIALIZED, chainstate->CoinsDB(),
                                                        [&] { if (interrupt) throw std::runtime_error("Snapshot validation interrupted by shutdown"); });
            if (!stats) throw std::runtime_error("Failed to compute the snapshot's UTXO statistics");
            hash = stats->hash_serialized;
        }
        if (*hash != au_data.hash_serialized) {
            throw SnapshotError(fmt::format("Bad snapshot content hash: expected {}, got {}", au_data.hash_serialized.GetHex(),
                                            hash->GetHex()));
        }
        WriteSnapshotBaseFiles(SnapshotDir(), base);
        LogInfo("[snapshot] validated snapshot ({:.2f} MB)", InMB(loaded_usage));
    } catch (...) {
        // Nothing of a failed load may survive: the next start must not
        // mistake a partial set for a snapshot chainstate.
        if (chainstate) chainstate->Close();
        std::error_code ec;
        std::filesystem::remove_all(SnapshotDir(), ec);
        LogError("[snapshot] load of {} failed; removed {}", path.string(), SnapshotDir().string());
        throw;
    }

    std::lock_guard lock{m_mutex};
    m_snapshot_chainstate = std::move(chainstate);
    RebalanceCaches();
    LogInfo("[snapshot] successfully activated snapshot {}", metadata.base_blockhash.GetHex());
    return {metadata.coins_count, metadata.base_blockhash, au_data.height};
}

} // namespace node
