#ifndef COINSDB_TXDB_H
#define COINSDB_TXDB_H

#include <coins.h>
#include <dbwrapper.h>
#include <txdb/txid_filter.h>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

// Whether a's chainstate key sorts before b's: by txid bytes, then by the
// bytes of VARINT(vout), the order CCoinsViewDB's cursor walks.
bool CoinKeyLess(const COutPoint& a, const COutPoint& b);

// -dbbatchsize default: a flush hands LevelDB its changes in batches of
// about this many bytes. Larger batches mean fewer, cheaper writes; the
// serialized batch is held in memory on top of the cache.
constexpr size_t DEFAULT_DB_CACHE_BATCH = size_t{32} << 20;

// What a CCoinsViewDB needs to know, set by whoever builds it.
// Below this, sorting costs more than LevelDB's log and compactions do.
inline constexpr size_t DEFAULT_SORTED_FIRST_WRITE_ENTRIES{100'000};

struct CoinsViewOptions {
    // A flush writes a batch whenever the pending one grows past this.
    // Defaulted as in Core, so CoinsViewOptions{} works as is; 0 is refused.
    size_t batch_write_bytes{DEFAULT_DB_CACHE_BATCH};
    // When non-zero, after each partial batch a 1-in-N draw simulates a
    // crash, leaving the database between two states (crash tests).
    int simulate_crash_ratio{0};
    // What a simulated crash does. Unset: log and end the process at once
    // without any clean-up, as a real crash would. Tests throw instead.
    std::function<void()> on_simulated_crash{};
    // Bulk loads only: batches in rising key order go into table files the
    // database takes as they are once the run of them ends
    // (CDBWrapper::IngestBatch), not through LevelDB's log and memtable.
    // Off, every batch is written through LevelDB, as Core writes it.
    bool ingest_tables{true};
    // Whether a flush fills its next batch while LevelDB writes the one
    // before (CDBBatchWriter): faster, but a second batch in memory.
    bool overlap_batches{true};
    // A flush of at least this many changed coins into a database that holds
    // no coin yet (a replay's first) writes them in key order, as table
    // files LevelDB takes as they are, between its crash markers
    // (CCoinsViewDB::BatchWrite). Needs ingest_tables.
    size_t sorted_first_write_entries{DEFAULT_SORTED_FIRST_WRITE_ENTRIES};
    // Memory for a filter of the txids the database holds coins of
    // (txdb/txid_filter.h), which answers most lookups of absent coins
    // without a LevelDB read. Only a database that holds no coin when it
    // is opened gets one (new or wiped): it then sees every coin written.
    // 0: none.
    size_t txid_filter_bytes{0};
};

// What the last BatchWrite did, for getcoinscacheinfo and benchmarks.
struct CoinsFlushStats {
    size_t batches{0};
    // DIRTY entries written; visited counts every flagged entry walked
    // (clean cached coins are never visited).
    size_t changed{0};
    size_t visited{0};
    double duration_ms{0};
    // The largest resident set seen during the write; 0 when unknown.
    size_t peak_rss_bytes{0};
    // Batches LevelDB wrote on a thread of their own while the walk went
    // on: the partial batches in key order (see BatchWrite).
    size_t overlapped{0};
    // Batches written into table files and handed to LevelDB whole.
    size_t ingested{0};
};

// The UTXO set on disk (chainstate/), in Bitcoin Core's format: see the top
// of txdb.cpp for the keys.
class CCoinsViewDB final : public CCoinsView
{
public:
    CCoinsViewDB(DBParams db_params, CoinsViewOptions options);
    ~CCoinsViewDB();

    // Never a spent coin: a flush erases those (BatchWrite), and no record
    // decodes as one (no compressed amount decompresses to -1).
    std::optional<Coin> GetCoin(const COutPoint& outpoint) const override;
    // GetCoin: the database keeps no copies.
    std::optional<Coin> PeekCoin(const COutPoint& outpoint) const override { return GetCoin(outpoint); }
    bool HaveCoin(const COutPoint& outpoint) const override;
    uint256 GetBestBlock() const override;
    std::vector<uint256> GetHeadBlocks() const override;
    // Writes the DIRTY entries in batches of at most about
    // batch_write_bytes, bracketed by the 'H' marker (see txdb.cpp).
    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) override;
    std::unique_ptr<CCoinsViewCursor> Cursor() const override;
    size_t EstimateSize() const override;

    // Reopens the database with a different LevelDB cache size; waits for
    // a compaction CompactFullAsync started.
    void ResizeCache(size_t new_cache_bytes);

    // A LevelDB property of the chainstate, e.g. "leveldb.stats"; nullopt
    // for an unknown name (see CDBWrapper::GetProperty).
    std::optional<std::string> GetDBProperty(const std::string& name) const;
    // Compacts the whole chainstate, dropping spent coins' records from the
    // files: synchronously, or on a thread of its own with a future that is
    // ready when it is done.
    void CompactFull();
    std::shared_future<void> CompactFullAsync();

    // Bulk load: for a database that a crash throws away as a whole, such
    // as a snapshot chainstate before its load is validated (a start that
    // finds one unfinished removes it). Its flushes then write no 'H'
    // marker and write 'B' only when it changes, with the first batch: a
    // flush is no longer crash-safe on its own, but a load in key order
    // no longer makes every LevelDB table span all the coins (txdb.cpp).
    void SetBulkLoad(bool bulk_load) { m_bulk_load = bulk_load; }

    // Coins in strictly rising key order, straight into an empty database,
    // as a bulk load's flush writes them (table files LevelDB takes as they
    // are, no crash markers) but without a cache in between: `produce`
    // calls its argument once per coin. 'B' becomes best_block, after the
    // coins. For a
    // caller whose own marker stands for the write until it ends (a
    // SwiftSync replay's); std::logic_error when the database holds a coin.
    using CoinSink = std::function<void(const COutPoint&, const Coin&)>;
    void WriteSortedCoins(const std::function<void(const CoinSink&)>& produce, const uint256& best_block);
    bool IsBulkLoad() const { return m_bulk_load; }

    const CoinsViewOptions& GetOptions() const { return m_options; }
    // The txid filter's memory; 0 without one (see CoinsViewOptions).
    size_t TxidFilterBytes() const;
    // Frees the txid filter: lookups read LevelDB again. Only while no
    // other thread reads this view.
    void DropTxidFilter() { m_txid_filter.reset(); }
    const CoinsFlushStats& LastFlushStats() const { return m_last_flush; }
    CDBWrapper& GetDB() { return *m_db; }

private:
    // The tip a flush to best_block starts from: 'B', or the old end of
    // the range an interrupted flush left in 'H'.
    uint256 FlushStartTip(const uint256& best_block) const;
    // Whether the database has no 'C' record at all.
    bool HoldsNoCoin() const;
    // False only when the txid filter says no coin of txid is stored.
    bool MayHoldTxid(const uint256& txid) const { return !m_txid_filter || m_txid_filter->MayContain(txid); }
    // A flush that writes its coins in key order (sorted_first_write_entries).
    bool WritesSortedFirst(const CoinsViewCacheCursor& cursor) const;

    DBParams m_db_params;
    CoinsViewOptions m_options;
    std::unique_ptr<CDBWrapper> m_db;
    // Set only at construction (DropTxidFilter ends it); every coin written
    // goes through it first.
    std::unique_ptr<TxidFilter> m_txid_filter;
    CoinsFlushStats m_last_flush;
    bool m_bulk_load{false};
};

#endif // COINSDB_TXDB_H
