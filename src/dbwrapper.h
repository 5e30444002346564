#ifndef COINSDB_DBWRAPPER_H
#define COINSDB_DBWRAPPER_H

// A key-value database over LevelDB. LevelDB's types stay in dbwrapper.cpp:
// callers see serialized keys and values only.
//
// Byte format: keys are stored as serialized, values as serialized and then
// XORed with the database's obfuscation key repeated (byte i of a value with
// key byte i % 8). The key itself lives at
//   0e 00 "obfuscate_key"     (CompactSize 14, a zero byte, 13 ASCII chars)
// as CompactSize(8) + 8 bytes, not obfuscated. A new database gets a random
// key when asked to; an existing one keeps what it has (all zeros when it was
// created without a key, so its values are stored as they are).

#include <serialize.h>
#include <storage_profile.h>
#include <streams.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// Any LevelDB failure: I/O errors, corruption, a database that will not open.
class dbwrapper_error : public std::runtime_error
{
public:
    explicit dbwrapper_error(const std::string& msg) : std::runtime_error{msg} {}
};

namespace leveldb {
class Env;
} // namespace leveldb

struct DBOptions {
    // Don't compact the whole database on open (tests and benchmarks).
    bool force_compact{false};
    // Tests: once this many bytes have gone to the database's files after
    // it was opened, every further write to them fails as on a full disk.
    std::optional<size_t> fail_writes_after_bytes{};
    // -debugstorage: the database's files behave as if on this slower
    // device (benchmarks; storage_profile.h).
    std::optional<StorageProfile> storage{};
    // Tests: the environment under the database's own ones, in place of
    // LevelDB's file system environment (power-loss tests wrap that one);
    // ignored with memory_only. Not owned: it must outlive the database.
    leveldb::Env* base_env_for_tests{nullptr};
    // -ingesttablebuilder: ingested table files are built by LevelDB's own
    // leveldb::TableBuilder instead of coinsdb's encoder (same bytes), to
    // measure one against the other (doc/benchmarks.md).
    bool tables_by_leveldb{false};
};

struct DBParams {
    std::filesystem::path path;
    // Split between LevelDB's block cache (1/2) and write buffer (1/4).
    size_t cache_bytes{8 << 20};
    // Keep everything in memory (tests); path is then only a name.
    bool memory_only{false};
    // Delete an existing database at path first.
    bool wipe_data{false};
    // Give a new database a random obfuscation key.
    bool obfuscate{true};
    DBOptions options{};
};

class Obfuscation
{
public:
    static constexpr size_t KEY_SIZE = 8;

    Obfuscation() = default;
    explicit Obfuscation(std::span<const unsigned char, KEY_SIZE> key);

    // XORs data in place; applying it twice restores the data.
    void Apply(std::span<std::byte> data) const;
    bool IsActive() const;
    // Core's spelling of IsActive(): `if (obfuscation)`.
    operator bool() const { return IsActive(); }
    const std::array<unsigned char, KEY_SIZE>& Key() const { return m_key; }

    // Same key.
    friend bool operator==(const Obfuscation&, const Obfuscation&) = default;

private:
    std::array<unsigned char, KEY_SIZE> m_key{};
};

class CDBWrapper;

class CDBBatch;

namespace dbwrapper_private {
// For the tests of how a batch sizes its buffers: the bytes its two
// buffers can hold without growing, the staged records and the LevelDB
// batch built from them. leveldb is 0 before the LevelDB batch is built,
// and when LevelDB's WriteBatch is not laid out as one std::string, the
// layout the probe reads.
struct BatchCapacity {
    size_t staged;
    size_t leveldb;
};
BatchCapacity GetBatchCapacity(const CDBBatch& batch);
// The order the database keeps keys in: bytewise, as LevelDB's default
// comparator, and so as Bitcoin Core's chainstate. Negative, 0 or
// positive as a sorts before, equal to or after b. Exposed for its tests.
int CompareKeys(std::string_view a, std::string_view b);
} // namespace dbwrapper_private

// Changes that reach the database atomically in one WriteBatch.
class CDBBatch
{
public:
    explicit CDBBatch(const CDBWrapper& parent);
    ~CDBBatch();
    CDBBatch(const CDBBatch&) = delete;
    CDBBatch& operator=(const CDBBatch&) = delete;

    template <typename K, typename V>
    void Write(const K& key, const V& value)
    {
        m_key_buffer.Clear();
        m_key_buffer << key;
        m_value_buffer.Clear();
        m_value_buffer << value;
        WriteImpl(m_key_buffer.Unread(), m_value_buffer);
    }

    template <typename K>
    void Erase(const K& key)
    {
        m_key_buffer.Clear();
        m_key_buffer << key;
        EraseImpl(m_key_buffer.Unread());
    }

    // Clears the batch. The staging buffer keeps its capacity, and what
    // Reserve() sized it for; the LevelDB batch built at a write goes.
    void Clear();
    // Sizes the batch's staging buffer for `bytes` in one allocation,
    // keeping what it holds; Clear() keeps it, and after a write the next
    // record reserves it again. Without it the buffer doubles its way up,
    // and each step briefly holds the old and the new copy. A no-op when it
    // is that big. (The LevelDB batch built at the write is always sized
    // once, for the records it gets.)
    void Reserve(size_t bytes);
    // Bytes the batch will hand to LevelDB, headers included.
    size_t SizeEstimate() const;
    // Whether every record since the last Clear() came in strictly
    // ascending key order: such a batch needs no sort before it is written.
    bool InKeyOrder() const;

private:
    friend class CDBWrapper;
    friend dbwrapper_private::BatchCapacity dbwrapper_private::GetBatchCapacity(const CDBBatch& batch);
    void WriteImpl(std::span<const std::byte> key, DataStream& value);
    void EraseImpl(std::span<const std::byte> key);

    struct Impl;
    const CDBWrapper& m_parent;
    std::unique_ptr<Impl> m_impl;
    DataStream m_key_buffer;
    DataStream m_value_buffer;
};

// Walks keys in byte order.
class CDBIterator
{
public:
    ~CDBIterator();
    CDBIterator(const CDBIterator&) = delete;
    CDBIterator& operator=(const CDBIterator&) = delete;

    // False once the walk is past the last key. Throws dbwrapper_error
    // when it ended on an error instead: LevelDB's iterator steps over a
    // block or a table it cannot read, goes on with the next, and says so
    // only in its status, so a scan to the end would otherwise have
    // missed those keys without a word.
    bool Valid() const;
    // Throws dbwrapper_error when the walk so far stepped over something it
    // could not read. For a scan that stops before the last key, where
    // Valid() does not check.
    void CheckStatus() const;
    void SeekToFirst();
    void Next();

    template <typename K>
    void Seek(const K& key)
    {
        DataStream stream;
        stream << key;
        SeekImpl(stream.Unread());
    }

    // Deserialize the current key or value; false when they don't parse.
    template <typename K>
    bool GetKey(K& key) const
    {
        try {
            SpanReader reader{KeyImpl()};
            reader >> key;
        } catch (const std::exception&) {
            return false;
        }
        return true;
    }

    template <typename V>
    bool GetValue(V& value) const
    {
        try {
            DataStream stream{ValueImpl()};
            m_obfuscation.Apply(stream.MutableUnread());
            stream >> value;
        } catch (const std::exception&) {
            return false;
        }
        return true;
    }

    std::span<const std::byte> RawKey() const { return KeyImpl(); }
    // The current value's bytes with the obfuscation removed.
    std::vector<std::byte> DeobfuscatedValue() const
    {
        std::vector<std::byte> value{ValueImpl().begin(), ValueImpl().end()};
        m_obfuscation.Apply(value);
        return value;
    }

private:
    friend class CDBWrapper;
    struct Impl;
    CDBIterator(std::unique_ptr<Impl> impl, const Obfuscation& obfuscation);

    void SeekImpl(std::span<const std::byte> key);
    std::span<const std::byte> KeyImpl() const;
    std::span<const std::byte> ValueImpl() const;

    std::unique_ptr<Impl> m_impl;
    const Obfuscation& m_obfuscation;
};

class CDBWrapper
{
public:
    // Opens or creates the database. Throws dbwrapper_error when it cannot.
    explicit CDBWrapper(const DBParams& params);
    ~CDBWrapper();
    CDBWrapper(const CDBWrapper&) = delete;
    CDBWrapper& operator=(const CDBWrapper&) = delete;

    template <typename K, typename V>
    bool Read(const K& key, V& value) const
    {
        DataStream key_stream;
        key_stream << key;
        std::optional<std::string> raw = ReadImpl(key_stream.Unread());
        if (!raw) return false;
        try {
            DataStream value_stream{std::as_bytes(std::span{*raw})};
            m_obfuscation.Apply(value_stream.MutableUnread());
            value_stream >> value;
        } catch (const std::exception&) {
            return false;
        }
        return true;
    }

    template <typename K, typename V>
    void Write(const K& key, const V& value, bool sync = false)
    {
        CDBBatch batch{*this};
        batch.Write(key, value);
        WriteBatch(batch, sync);
    }

    template <typename K>
    bool Exists(const K& key) const
    {
        DataStream key_stream;
        key_stream << key;
        return ExistsImpl(key_stream.Unread());
    }

    template <typename K>
    void Erase(const K& key, bool sync = false)
    {
        CDBBatch batch{*this};
        batch.Erase(key);
        WriteBatch(batch, sync);
    }

    // Applies the batch atomically; sync waits until it is on disk. After
    // one failed write every later one throws without reaching LevelDB:
    // LevelDB itself would append behind the torn record the failure left
    // in its log, and a database that no longer opens is worse than one
    // that stopped at its last good write.
    void WriteBatch(CDBBatch& batch, bool sync = false);
    // An unsynced write may return with its records still held in this
    // process, not yet in the kernel, until LevelDB has made the memtable
    // before them a table (the log order layer, dbwrapper/env.h); a crash
    // of the process may lose them, as a power loss may. This hands them
    // on: it waits up to `wait` for that table, then syncs the log before
    // them instead. Afterwards every write that returned survives a crash
    // of the process (txdb calls it at the end of every flush). Throws
    // like WriteBatch.
    void ReleaseHeldWrites(std::chrono::milliseconds wait = std::chrono::seconds{30});
    // Why writes are refused, once one failed.
    const std::optional<std::string>& WriteFailure() const { return m_write_failure; }
    // After writes larger than LevelDB's write buffer (a flush's batches):
    // has LevelDB start moving its memtable, which then holds the last of
    // them, into a table file, as its next write would. Until then every
    // read searches that memtable first, a skip list of up to a batch's
    // records (~500k after a 32 MiB batch, one cache miss per step); after
    // it, reads meet an empty memtable and the table's bloom filter. An
    // empty write does it: LevelDB makes room for every write, an empty one
    // too. It runs beside the caller, since making room waits for the
    // memtable before it to be written; a failure shows at the next write.
    void StartMemtableFlush();
    // Writes LevelDB's memtable into a table now and waits for it
    // (CompactRange of an empty range does, as IngestBatch's commit relies
    // on), so that the next write starts a memtable of its own: a marker
    // written next then becomes a table of one key rather than one spanning
    // every key the memtable held, which a run could not be installed under.
    void FlushMemtable();

    // Bulk ingestion: a run of batches written into table files of their
    // own, which LevelDB takes as they are at CommitIngest(), skipping its
    // log and memtable and the compactions behind them (a bulk load's
    // flush, txdb.cpp). A run must rise: each batch's keys in strictly
    // ascending order, above the run's keys so far.
    //
    // Whether `batch` may join the run (and nothing failed so far, and
    // ingestion is not off).
    bool CanIngest(const CDBBatch& batch) const;
    // Writes the batch's records into the run's files and clears it (its
    // buffer stays, for the records that fill it next). Nothing reaches the database before
    // CommitIngest(), and nothing else may use the database meanwhile
    // but the thread that fills the next batch. Throws like WriteBatch; a
    // failure discards the run.
    void IngestBatch(CDBBatch& batch);
    // Hands the run to the database, all of it or none (a crash included):
    // it closes and reopens LevelDB, and registers the files with a new
    // MANIFEST at the deepest level. That holds only when no other
    // version of the run's keys exists (no file in the run's key range),
    // no iterator is open, LevelDB's log holds nothing, and the MANIFEST
    // reads as the codec expects; otherwise the records are written
    // through LevelDB's log as WriteBatch writes them, with one log line
    // saying why (an unexpected MANIFEST also turns ingestion off for good:
    // IngestOff). True when registered. A no-op without a run.
    bool CommitIngest();
    // Deletes the run's files, if any: what a write that threw left.
    void DiscardIngest();
    // Table files registered by CommitIngest since the database opened.
    size_t IngestedFiles() const;
    // Table files built for ingestion with O_DIRECT since the database
    // opened: none in memory, on a -debugstorage device or under a write
    // budget, or where the file system refuses O_DIRECT (logged once).
    size_t DirectIngestFiles() const;
    // Why CanIngest refuses every batch: this build's LevelDB was not
    // verified, or a MANIFEST was not as expected. Nullopt while it may.
    const std::optional<std::string>& IngestOff() const;

    std::unique_ptr<CDBIterator> NewIterator() const;
    bool IsEmpty() const;

    // Approximate bytes on disk of keys in [begin, end).
    template <typename K>
    size_t EstimateSize(const K& begin, const K& end) const
    {
        DataStream begin_stream, end_stream;
        begin_stream << begin;
        end_stream << end;
        return EstimateSizeImpl(begin_stream.Unread(), end_stream.Unread());
    }

    // LevelDB's own estimate of its memory use (memtables and caches).
    size_t DynamicMemoryUsage() const;

    // A LevelDB property by name, e.g. "leveldb.stats",
    // "leveldb.approximate-memory-usage", "leveldb.sstables" or
    // "leveldb.num-files-at-level2"; nullopt for a name LevelDB does not know.
    std::optional<std::string> GetProperty(const std::string& name) const;
    // Compacts every key range, dropping erased and overwritten records from
    // the files, and returns when done.
    void CompactFull();
    // The same on a thread of its own; the future is ready once it is done.
    // Destroying the wrapper waits for it, since the compaction uses the
    // open database.
    std::shared_future<void> CompactFullAsync();
    const Obfuscation& GetObfuscation() const { return m_obfuscation; }
    const std::string& GetName() const { return m_name; }

private:
    friend class CDBBatch;
    std::optional<std::string> ReadImpl(std::span<const std::byte> key) const;
    bool ExistsImpl(std::span<const std::byte> key) const;
    size_t EstimateSizeImpl(std::span<const std::byte> begin, std::span<const std::byte> end) const;

    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::string m_name;
    Obfuscation m_obfuscation;
    std::optional<std::string> m_write_failure;
    // Waits for StartMemtableFlush's write, and takes its failure as a
    // failed write's.
    void JoinMemtableFlush();
};

// Writes a flush's records to `db` in batches of about `batch_bytes`, and
// says when each batch's entries may be released. What it adds to
// "fill a batch, write it when full":
// - a full batch in key order (each of a snapshot load's but the first) goes
//   to LevelDB on a thread of its own while the caller fills the other
//   batch (unless `overlap` is off); one out of order is sorted and written on the caller's thread
//   with no other batch around, so at most two batch buffers exist at once;
// - with `ingest`, a batch whose keys rise above the batch before goes into
//   table files (CDBWrapper::IngestBatch) instead of LevelDB's log; the run
//   of such batches is committed when it ends (a batch out of order, or the
//   last), and only then are its entries released;
// - a batch past 1 MiB is sized for the whole cap at once.
// Entries are released through `release` only once their batch is in the
// database, so a write that throws leaves every unwritten one in the cache.
// Destroying the writer waits for the batch in flight.
class CDBBatchWriter
{
public:
    struct Options {
        size_t batch_bytes;
        bool ingest{false};
        // Off, every batch is written on the caller's thread, and one batch
        // buffer is all a write holds: for caches so small that a second
        // batch would be a large share of the memory they were given.
        bool overlap{true};
    };
    // `end`: the caller's token for where the released entries end.
    struct Hooks {
        std::function<void(void* end)> release;
        // After each partial batch is in the database or in a run (where
        // crash tests simulate a crash).
        std::function<void()> after_partial;
        // Around each write, where memory peaks.
        std::function<void()> sample;
    };
    struct Stats {
        size_t batches{0};
        // Partial batches written on the second thread.
        size_t overlapped{0};
        size_t ingested{0};
        // Time the caller waited for the second thread, and the commits took.
        std::chrono::steady_clock::duration waited{};
        std::chrono::steady_clock::duration committing{};
    };

    CDBBatchWriter(CDBWrapper& db, Options options, Hooks hooks);
    ~CDBBatchWriter();
    CDBBatchWriter(const CDBBatchWriter&) = delete;
    CDBBatchWriter& operator=(const CDBBatchWriter&) = delete;

    // The batch to add records to; another one after each write.
    CDBBatch& Batch() { return *m_batch; }
    // After each entry: writes the batch once it outgrows the cap. `next`
    // is where the entries the batch does not hold begin.
    void EntryDone(void* next);
    // Writes what the batch holds last; `end` is past every entry.
    void Finish(void* end);
    const Stats& GetStats() const { return m_stats; }

private:
    void Written(void* end, bool partial);
    void LandInFlight();
    void CommitRun();
    void WritePartial(void* end);

    CDBWrapper& m_db;
    const Options m_options;
    const Hooks m_hooks;
    Stats m_stats;
    std::unique_ptr<CDBBatch> m_batch;
    // The batch LevelDB writes on the second thread, or the spare.
    std::unique_ptr<CDBBatch> m_other;
    bool m_batch_reserved{false};
    bool m_other_reserved{false};
    // Where the ingested run's entries end, while a run is open.
    std::optional<void*> m_run_end;
    void* m_in_flight_end{nullptr};
    bool m_in_flight_ingests{false};
    // Last: destroyed first, it waits for its thread, which uses a batch.
    std::future<void> m_in_flight;
};

// Core's accessor for tests, beside CDBWrapper::GetObfuscation().
namespace dbwrapper_private {
inline const Obfuscation& GetObfuscation(const CDBWrapper& db) { return db.GetObfuscation(); }
} // namespace dbwrapper_private

#endif // COINSDB_DBWRAPPER_H
