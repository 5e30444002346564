#include <txdb.h>

#include <crypto/random.h>
#include <util/log.h>
#include <util/memory.h>
#include <util/sort_prefix.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>

// Chainstate keys (values are obfuscated, see dbwrapper.h):
//   'C' txid(32, internal order) VARINT(vout) -> Coin (coins.h)
//   'B'                                      -> best block hash (32 bytes)
//   'H'                                      -> CompactSize(2), new hash, old hash
// 'H' exists only while a flush spread over several batches has not
// finished: the coins on disk are then a mix of the states after "old" and
// after "new", and replaying the blocks between them repairs that. The 'C'
// keys of a txid sort by output index up to 16511; past that VARINT's byte
// order is not numeric (serialize.h), exactly as in Bitcoin Core.
//
// Why a bulk load leaves the markers out: 'B' < 'C' < 'H', so a LevelDB
// memtable holding a marker and some coins spans every coin key in between,
// and the table LevelDB makes of it overlaps all the others. A load in key
// order (a snapshot) would otherwise write disjoint tables that LevelDB
// files deeper without rewriting them; with the markers, every flush's
// first and last memtables drag the whole database into level-0
// compactions, so each flush costs more than the one before.
namespace {

constexpr uint8_t DB_COIN = 'C';
constexpr uint8_t DB_BEST_BLOCK = 'B';
constexpr uint8_t DB_HEAD_BLOCKS = 'H';

struct CoinKey {
    COutPoint* outpoint;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE<Stream, uint8_t>(s, DB_COIN);
        outpoint->hash.Serialize(s);
        WriteVarInt(s, outpoint->n);
    }

    template <typename Stream>
    void Unserialize(Stream& s)
    {
        if (ReadLE<uint8_t>(s) != DB_COIN) throw std::ios_base::failure("not a coin key");
        outpoint->hash.Unserialize(s);
        const uint64_t n = ReadVarInt(s);
        if (n > UINT32_MAX) throw std::ios_base::failure("coin key output index out of range");
        outpoint->n = static_cast<uint32_t>(n);
    }
};

struct ConstCoinKey {
    const COutPoint& outpoint;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE<Stream, uint8_t>(s, DB_COIN);
        outpoint.hash.Serialize(s);
        WriteVarInt(s, outpoint.n);
    }
};

// Every coin goes into a batch through here: the txid filter (when there is
// one) takes its txid first, so a read that can find the coin in LevelDB
// also passes the filter (txdb/txid_filter.h).
void WriteCoin(CDBBatchWriter& writer, TxidFilter* filter, const COutPoint& outpoint, const Coin& coin)
{
    if (filter) filter->Add(outpoint.hash);
    writer.Batch().Write(ConstCoinKey{outpoint}, coin);
}

void SimulateCrash(const CoinsViewOptions& options)
{
    static std::mt19937_64 rng{std::random_device{}()};
    if (std::uniform_int_distribution<int>{0, options.simulate_crash_ratio - 1}(rng) != 0) return;
    if (options.on_simulated_crash) {
        options.on_simulated_crash();
        return;
    }
    LogInfo("Simulating a crash. Goodbye.");
    std::_Exit(0);
}

class CCoinsViewDBCursor final : public CCoinsViewCursor
{
public:
    CCoinsViewDBCursor(std::unique_ptr<CDBIterator> it, const uint256& best_block)
        : CCoinsViewCursor{best_block}, m_it{std::move(it)}
    {
        m_it->Seek(DB_COIN);
        LoadKey();
    }

    bool GetKey(COutPoint& key) const override
    {
        if (!m_valid) return false;
        key = m_key;
        return true;
    }

    bool GetValue(Coin& coin) const override { return m_it->GetValue(coin); }
    bool Valid() const override { return m_valid; }

    void Next() override
    {
        m_it->Next();
        LoadKey();
    }

private:
    // Stops at the first key that is not a coin: 'C' keys are contiguous.
    // A walk that stops there, before the last key, checks that it stepped
    // over nothing unreadable (CDBIterator::Valid checks only at the end).
    void LoadKey()
    {
        CoinKey key{&m_key};
        m_valid = m_it->Valid() && m_it->GetKey(key);
        if (!m_valid) m_it->CheckStatus();
    }

    std::unique_ptr<CDBIterator> m_it;
    COutPoint m_key;
    bool m_valid{false};
};

// VARINT(n) as the key holds it; at most 5 bytes for 32 bits.
struct VarIntBytes {
    std::array<std::byte, 8> bytes{};
    size_t size{0};
    void write(std::span<const std::byte> data)
    {
        std::ranges::copy(data, bytes.begin() + size);
        size += data.size();
    }
};

// A dirty cache entry and the first 8 bytes of its key's txid as a
// SortPrefix (util/sort_prefix.h), whose order is the bytes'. Sorting bare
// entry pointers read two entries, scattered over the heap, at each of a
// sort's ~n log n comparisons: 2.1 s of a 2.8 s first flush of 2M coins.
// With the prefix beside the pointer, a comparison reads an entry only
// when the prefixes tie (the outputs of one transaction, mostly).
struct EntryByKey {
    uint64_t prefix;
    const CoinsCachePair* entry;

    explicit EntryByKey(const CoinsCachePair* e) : prefix{SortPrefix({e->first.hash.data(), uint256::SIZE})}, entry{e} {}
};

} // namespace

bool CoinKeyLess(const COutPoint& a, const COutPoint& b)
{
    if (const int c = std::memcmp(a.hash.data(), b.hash.data(), uint256::size()); c != 0) return c < 0;
    if (a.n == b.n) return false;
    VarIntBytes va, vb;
    WriteVarInt(va, a.n);
    WriteVarInt(vb, b.n);
    return std::lexicographical_compare(va.bytes.begin(), va.bytes.begin() + va.size, vb.bytes.begin(), vb.bytes.begin() + vb.size);
}

CCoinsViewDB::CCoinsViewDB(DBParams db_params, CoinsViewOptions options)
    : m_db_params{std::move(db_params)}, m_options{std::move(options)},
      m_db{std::make_unique<CDBWrapper>(m_db_params)}
{
    // Zero would turn every changed coin into its own batch.
    if (m_options.batch_write_bytes == 0) throw std::invalid_argument("CoinsViewOptions::batch_write_bytes must not be 0");
    // A database that holds coins already would need a scan to fill the
    // filter; without one it could not say "no" for them.
    if (m_options.txid_filter_bytes > 0 && HoldsNoCoin()) {
        m_txid_filter = std::make_unique<TxidFilter>(m_options.txid_filter_bytes, GetRandUint64());
        LogDebug(logging::Category::COINDB, "A filter of the txids written ({:.1f} MiB) answers lookups of absent coins",
                 m_txid_filter->Bytes() * (1.0 / (1 << 20)));
    }
}

CCoinsViewDB::~CCoinsViewDB() = default;

size_t CCoinsViewDB::TxidFilterBytes() const { return m_txid_filter ? m_txid_filter->Bytes() : 0; }

void CCoinsViewDB::ResizeCache(size_t new_cache_bytes)
{
    // Close first: LevelDB allows one open handle per directory.
    m_db.reset();
    m_db_params.cache_bytes = new_cache_bytes;
    m_db_params.wipe_data = false;
    m_db = std::make_unique<CDBWrapper>(m_db_params);
}

std::optional<std::string> CCoinsViewDB::GetDBProperty(const std::string& name) const { return m_db->GetProperty(name); }
void CCoinsViewDB::CompactFull() { m_db->CompactFull(); }
std::shared_future<void> CCoinsViewDB::CompactFullAsync() { return m_db->CompactFullAsync(); }

std::optional<Coin> CCoinsViewDB::GetCoin(const COutPoint& outpoint) const
{
    if (!MayHoldTxid(outpoint.hash)) return std::nullopt;
    Coin coin;
    if (m_db->Read(ConstCoinKey{outpoint}, coin)) return coin;
    return std::nullopt;
}

bool CCoinsViewDB::HaveCoin(const COutPoint& outpoint) const
{
    if (!MayHoldTxid(outpoint.hash)) return false;
    return m_db->Exists(ConstCoinKey{outpoint});
}

uint256 CCoinsViewDB::GetBestBlock() const
{
    uint256 hash;
    if (!m_db->Read(DB_BEST_BLOCK, hash)) return uint256{};
    return hash;
}

std::vector<uint256> CCoinsViewDB::GetHeadBlocks() const
{
    std::vector<uint256> heads;
    if (!m_db->Read(DB_HEAD_BLOCKS, heads)) return {};
    return heads;
}

uint256 CCoinsViewDB::FlushStartTip(const uint256& best_block) const
{
    const uint256 best = GetBestBlock();
    if (!best.IsNull()) return best;
    // No 'B': either a new database, or an earlier flush died midway and
    // left 'H'. Then this flush must be the same target again (the caller
    // replayed to it), and the old end of the range still holds.
    const std::vector<uint256> heads = GetHeadBlocks();
    if (heads.size() != 2) return uint256{};
    if (heads[0] != best_block) {
        LogError("The coins database detected an inconsistent state, likely due to a previous crash or "
                 "shutdown. You will need to restart with -reindex-chainstate.");
    }
    assert(heads[0] == best_block);
    return heads[1];
}

void CCoinsViewDB::WriteSortedCoins(const std::function<void(const CoinSink&)>& produce, const uint256& best_block)
{
    if (!HoldsNoCoin()) throw std::logic_error("WriteSortedCoins: the database holds coins already");
    const auto start = std::chrono::steady_clock::now();
    const CDBBatchWriter::Options writer_options{.batch_bytes = m_options.batch_write_bytes, .ingest = m_options.ingest_tables, .overlap = m_options.overlap_batches};
    CDBBatchWriter writer{*m_db, writer_options, {.release = [](void*) {}, .after_partial = [] {}, .sample = [] {}}};
    size_t written = 0;
    produce([&](const COutPoint& outpoint, const Coin& coin) {
        WriteCoin(writer, m_txid_filter.get(), outpoint, coin);
        writer.EntryDone(nullptr);
        ++written;
    });
    writer.Finish(nullptr);
    // 'B' after the run, on its own: a database that had a best block
    // already holds a 'B' record, which a run starting with one would
    // overlap, and LevelDB would not take the run's tables.
    CDBBatch best{*m_db};
    best.Write(DB_BEST_BLOCK, best_block);
    m_db->WriteBatch(best, /*fSync=*/true);
    const CDBBatchWriter::Stats& stats = writer.GetStats();
    const double took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m_last_flush = {stats.batches, written, written, took_ms, 0, stats.overlapped, stats.ingested};
    LogInfo("Wrote {} coins in key order in {} batches ({} into table files) in {}ms", written, stats.batches, stats.ingested,
            static_cast<int64_t>(took_ms));
}

bool CCoinsViewDB::HoldsNoCoin() const
{
    const std::unique_ptr<CDBIterator> it = m_db->NewIterator();
    it->Seek(DB_COIN);
    uint8_t prefix{0};
    return !it->Valid() || !it->GetKey(prefix) || prefix != DB_COIN;
}

bool CCoinsViewDB::WritesSortedFirst(const CoinsViewCacheCursor& cursor) const
{
    return !m_bulk_load && m_options.ingest_tables && cursor.DirtyCount() >= m_options.sorted_first_write_entries && HoldsNoCoin();
}

void CCoinsViewDB::BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block)
{
    assert(!best_block.IsNull());
    const auto start = std::chrono::steady_clock::now();
    // Upstream's -debug=bench lines around every coins write.
    const std::string what = fmt::format("write coins cache to disk ({} out of {} cached coins)", cursor.DirtyCount(), cursor.CachedCount());
    LogDebug(logging::Category::BENCH, "BatchWrite: {} started", what);
    const auto log_completed = [&] {
        LogDebug(logging::Category::BENCH, "BatchWrite: {} completed ({:.2f}ms)", what,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    };
    // The peak resident set of this write, for the BatchWrite log line.
    // Sampled around each LevelDB write, where the serialized batch and
    // LevelDB's memtable are at their largest; the walk in between only
    // frees memory (Flush) or leaves it as it is (Sync).
    size_t peak_rss = GetResidentBytes().value_or(0);
    // Where the peak starts from: maxMem minus this is what the write added.
    LogDebug(logging::Category::COINDB, "BatchWrite started, rss={}MiB", peak_rss >> 20);
    const auto sample_rss = [&] { peak_rss = std::max(peak_rss, GetResidentBytes().value_or(0)); };

    // No coin to write: at most a new best block, which one batch moves
    // atomically, with no crash marker. Writing the markers anyway (Core
    // does, at every flush, a shutdown's included) leaves a log whose two
    // records, 'B' and 'H', bracket every coin key: the next start makes
    // them a small table spanning the whole coin range, each read then
    // charges a seek to it, and LevelDB's seek-triggered compaction merges
    // it with every table below, rewriting the whole chainstate
    // (contrib/bench/restart_rewrites.py, doc/reliability.md). Such a table
    // would also keep a replay's first sorted flush from going under it.
    // With an 'H' an interrupted flush left, the markers are written as for
    // any flush below.
    if (cursor.Begin() == cursor.End() && GetHeadBlocks().empty()) {
        if (GetBestBlock() != best_block) {
            CDBBatch batch{*m_db};
            batch.Write(DB_BEST_BLOCK, best_block);
            m_db->WriteBatch(batch, /*fSync=*/true);
        }
        m_last_flush = {0, 0, 0, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(), peak_rss, 0, 0};
        LogDebug(logging::Category::COINDB, "Committed 0 changed transaction outputs (out of 0) to coin database: only the best block");
        LogInfo("BatchWrite took={}ms, maxMem={}MiB", static_cast<int64_t>(m_last_flush.duration_ms), peak_rss >> 20);
        log_completed();
        return;
    }

    // Bulk load, and a sorted first write: a batch whose keys rise above
    // the batch before goes into table files rather than through LevelDB's
    // log and memtable, whose CPU set the pace of a flush (CDBBatchWriter).
    // The cursor releases a batch's entries (cleans them, or erases them
    // when spent) only once the batch is in the database; entries written
    // in key order are released together, at the end (a null `end`).
    const bool sorted_first = WritesSortedFirst(cursor);
    const bool ingest = (m_bulk_load || sorted_first) && m_options.ingest_tables;
    const auto release = [&](void* end) {
        if (end) cursor.ReleaseUntil(static_cast<CoinsCachePair*>(end));
    };
    const auto after_partial = [&] {
        if (m_options.simulate_crash_ratio > 0) SimulateCrash(m_options);
    };
    const CDBBatchWriter::Options writer_options{.batch_bytes = m_options.batch_write_bytes, .ingest = ingest, .overlap = m_options.overlap_batches};
    CDBBatchWriter writer{*m_db, writer_options, {.release = release, .after_partial = after_partial, .sample = sample_rss}};

    if (m_bulk_load) {
        LogDebug(logging::Category::COINDB, "Bulk load: this flush writes no crash markers");
        // Nothing to repair or protect: a crash discards the database. 'B'
        // goes with the lowest coins of a load in key order (the first
        // batch of its first flush), not with the highest.
        if (GetBestBlock() != best_block) writer.Batch().Write(DB_BEST_BLOCK, best_block);
        if (!GetHeadBlocks().empty()) writer.Batch().Erase(DB_HEAD_BLOCKS);
    } else if (sorted_first) {
        // 'H' alone in a memtable of its own, synced before any coin: its
        // table then holds one key, which the coins' run does not overlap,
        // so the run is installed. 'B' stays until the last batch; 'H'
        // decides at a restart.
        LogDebug(logging::Category::COINDB, "The database holds no coin: {} changed coins go in key order into table files", cursor.DirtyCount());
        m_db->FlushMemtable();
        CDBBatch marker{*m_db};
        marker.Write(DB_HEAD_BLOCKS, std::vector<uint256>{best_block, FlushStartTip(best_block)});
        m_db->WriteBatch(marker, /*fSync=*/true);
    } else {
        // First batch: from here until the last batch lands, the database
        // is a mix of old_tip and best_block.
        writer.Batch().Erase(DB_BEST_BLOCK);
        writer.Batch().Write(DB_HEAD_BLOCKS, std::vector<uint256>{best_block, FlushStartTip(best_block)});
    }

    size_t visited = 0;
    size_t changed = 0;
    if (sorted_first) {
        // A database without a coin has none to erase: only unspent coins
        // are written.
        std::vector<EntryByKey> coins;
        coins.reserve(cursor.DirtyCount());
        for (auto it = cursor.Begin(); it != cursor.End(); it = cursor.Next(*it)) {
            ++visited;
            if (!it->second.IsDirty()) continue;
            ++changed;
            if (!it->second.coin.IsSpent()) coins.emplace_back(it);
        }
        // Key order exactly (CoinKeyLess, not COutPoint's order, which
        // differs for output indices of 16512 and up), so every batch
        // rises above the one before it.
        std::ranges::sort(coins, [](const EntryByKey& a, const EntryByKey& b) {
            return a.prefix != b.prefix ? a.prefix < b.prefix : CoinKeyLess(a.entry->first, b.entry->first);
        });
        // In key order the entries are scattered over the heap: each would
        // be a cache miss waited for (half the time of this loop), so the
        // ones a few places ahead are fetched while this one is serialized.
        constexpr size_t PREFETCH_AHEAD{16};
        for (size_t i = 0; i < coins.size(); ++i) {
            if (i + PREFETCH_AHEAD < coins.size()) {
                const auto* ahead = reinterpret_cast<const char*>(coins[i + PREFETCH_AHEAD].entry);
                __builtin_prefetch(ahead);
                __builtin_prefetch(ahead + 64);
            }
            WriteCoin(writer, m_txid_filter.get(), coins[i].entry->first, coins[i].entry->second.coin);
            writer.EntryDone(nullptr);
        }
    } else {
        // Only flagged entries, in the order of the cache's list.
        for (auto it = cursor.Begin(); it != cursor.End();) {
            CoinsCachePair* const next = cursor.Next(*it);
            ++visited;
            if (it->second.IsDirty()) {
                ++changed;
                if (it->second.coin.IsSpent()) {
                    writer.Batch().Erase(ConstCoinKey{it->first});
                } else {
                    WriteCoin(writer, m_txid_filter.get(), it->first, it->second.coin);
                }
            }
            writer.EntryDone(next);
            it = next;
        }
    }

    if (!m_bulk_load && !sorted_first) {
        // Last batch: the database is consistent with best_block again.
        writer.Batch().Erase(DB_HEAD_BLOCKS);
        writer.Batch().Write(DB_BEST_BLOCK, best_block);
    }
    writer.Finish(cursor.End());
    if (sorted_first) {
        // After the run's commit: the coins are in, whether LevelDB took
        // the run's tables or it fell back to writing them through the log.
        CDBBatch markers{*m_db};
        markers.Erase(DB_HEAD_BLOCKS);
        markers.Write(DB_BEST_BLOCK, best_block);
        m_db->WriteBatch(markers, /*fSync=*/true);
    }
    // A flush that returned survives a crash of the process, as Core's
    // does: its last batches may still be held back by the log order
    // layer (dbwrapper/env.h) until the memtable before them is a table.
    m_db->ReleaseHeldWrites();
    const CDBBatchWriter::Stats& stats = writer.GetStats();
    if (stats.ingested > 0) {
        LogDebug(logging::Category::COINDB, "{} of {} batches went into table files; {} table files ingested so far; the commit took {}ms",
                 stats.ingested, stats.batches, m_db->IngestedFiles(), std::chrono::duration_cast<std::chrono::milliseconds>(stats.committing).count());
    }
    LogDebug(logging::Category::COINDB, "The walk waited {}ms for batches written beside it", std::chrono::duration_cast<std::chrono::milliseconds>(stats.waited).count());
    const double took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m_last_flush = {stats.batches, changed, visited, took_ms, peak_rss, stats.overlapped, stats.ingested};
    LogDebug(logging::Category::COINDB, "Committed {} changed transaction outputs (out of {}) to coin database...", changed, visited);
    // Written by default and without a category prefix, exactly as the
    // published batch-size measurements print it, so that their plotting
    // script (which matches "^<time>Z BatchWrite took=<n>ms, maxMem=<n>MiB")
    // and any grep of Core's logs work on this debug.log unchanged.
    LogInfo("BatchWrite took={}ms, maxMem={}MiB", static_cast<int64_t>(took_ms), peak_rss >> 20);
    log_completed();
}

std::unique_ptr<CCoinsViewCursor> CCoinsViewDB::Cursor() const
{
    return std::make_unique<CCoinsViewDBCursor>(m_db->NewIterator(), GetBestBlock());
}

size_t CCoinsViewDB::EstimateSize() const { return m_db->EstimateSize(DB_COIN, uint8_t{DB_COIN + 1}); }
