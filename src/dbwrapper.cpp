#include <dbwrapper.h>

#include <crypto/random.h>
#include <dbwrapper/env.h>
#include <dbwrapper/ingest.h>
#include <dbwrapper/ingest_run.h>
#include <dbwrapper/slices.h>
#include <util/log.h>
#include <util/sort_prefix.h>
#include <util/xor.h>

#include <leveldb/cache.h>
#include <leveldb/comparator.h>
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/write_batch.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdarg>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <sys/mman.h>
#include <type_traits>

namespace {

// "\0obfuscate_key", serialized as a byte vector: 0e 00 6f 62 ...
const std::vector<unsigned char> OBFUSCATION_KEY_KEY{'\0', 'o', 'b', 'f', 'u', 's', 'c', 'a', 't', 'e', '_', 'k', 'e', 'y'};

constexpr size_t MIN_MAX_FILE_SIZE = 32 << 20;
constexpr int BLOOM_BITS_PER_KEY = 10;

using dbwrapper_ingest::ToSlice;
using dbwrapper_ingest::ToSpan;

void ThrowOnError(const leveldb::Status& status, const std::string& db_name)
{
    if (status.ok()) return;
    const std::string message = "Fatal LevelDB error in " + db_name + ": " + status.ToString();
    LogError("{}", message);
    throw dbwrapper_error(message);
}

// LevelDB's bytewise order with a cheaper compare. LevelDB compares keys
// in every memtable insert (its skip list), every seek and every
// compaction; its default comparator calls memcmp for each, and memcmp was
// a fifth of the thread that writes a flush. Keys here differ within
// their first 8 bytes almost always (a prefix byte, then a txid), so one
// big-endian 64-bit compare usually decides. The name is the default's:
// the order is the same, so databases written with either open with the
// other, Bitcoin Core's included. The separators it writes into table
// indexes are the default's own.
class BytewiseKeyComparator final : public leveldb::Comparator
{
public:
    const char* Name() const override { return leveldb::BytewiseComparator()->Name(); }
    int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override
    {
        return dbwrapper_private::CompareKeys({a.data(), a.size()}, {b.data(), b.size()});
    }
    void FindShortestSeparator(std::string* start, const leveldb::Slice& limit) const override
    {
        leveldb::BytewiseComparator()->FindShortestSeparator(start, limit);
    }
    void FindShortSuccessor(std::string* key) const override { leveldb::BytewiseComparator()->FindShortSuccessor(key); }
};

const BytewiseKeyComparator KEY_COMPARATOR;

// Routes LevelDB's own diagnostics to the "leveldb" debug category.
class LevelDBLogger : public leveldb::Logger
{
public:
    void Logv(const char* format, va_list args) override
    {
        if (!logging::WillLog(logging::Category::LEVELDB)) return;
        char buffer[1024];
        const int written = std::vsnprintf(buffer, sizeof(buffer), format, args);
        if (written < 0) return;
        std::string_view line{buffer, std::min<size_t>(written, sizeof(buffer) - 1)};
        while (!line.empty() && line.back() == '\n') line.remove_suffix(1);
        logging::LogCategoryLine(logging::Category::LEVELDB, line);
    }
};

// Gives an empty `batch` room for `bytes` in one allocation, touched once.
// leveldb::WriteBatch has no reserve(), and its header says nothing of how
// it keeps its memory. What this relies on is how LevelDB (1.23,
// db/write_batch.cc) builds a batch:
//  - the records are appended to one std::string, so a batch given one
//    record with a `bytes`-long value grows that string once, to about
//    `bytes` (a std::string grows to the size asked for when that is more
//    than twice what it holds);
//  - Clear() shrinks the string to the batch's 12-byte header with clear()
//    and resize(), which keep its capacity (libstdc++ and libc++ never
//    release it there);
//  - Put() and Delete() append to that string, so records up to `bytes`
//    are written into the same buffer.
// Otherwise the string would double its way up, copying what it holds at
// each step. dbwrapper_tests' batch_reserve_holds_its_buffers fails when
// any of this stops holding. The value is read from untouched anonymous
// memory, which the kernel backs with its shared zero page.
void SizeLevelDBBatch(leveldb::WriteBatch& batch, size_t bytes)
{
    void* zeros = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (zeros == MAP_FAILED) return; // the buffer grows as it would have
    batch.Put(leveldb::Slice{}, leveldb::Slice{static_cast<const char*>(zeros), bytes});
    munmap(zeros, bytes);
    batch.Clear();
}
} // namespace

Obfuscation::Obfuscation(std::span<const unsigned char, KEY_SIZE> key) { std::ranges::copy(key, m_key.begin()); }

bool Obfuscation::IsActive() const
{
    return std::ranges::any_of(m_key, [](unsigned char b) { return b != 0; });
}

void Obfuscation::Apply(std::span<std::byte> data) const
{
    if (!IsActive()) return;
    // A value starts at the key's first byte.
    static_assert(KEY_SIZE == 8);
    XorRepeatingKey(data, std::as_bytes(std::span<const unsigned char, KEY_SIZE>{m_key}));
}

struct CDBWrapper::Impl final : dbwrapper_ingest::IngestRun::Database {
    std::unique_ptr<EnvStack> envs;
    std::unique_ptr<const leveldb::FilterPolicy> filter_policy;
    std::unique_ptr<leveldb::Cache> block_cache;
    std::unique_ptr<leveldb::Logger> logger;
    leveldb::Options options;
    leveldb::ReadOptions read_options;
    leveldb::ReadOptions iterate_options;
    leveldb::WriteOptions write_options;
    leveldb::WriteOptions sync_options;
    std::unique_ptr<leveldb::DB> db;
    std::string name;
    std::string path;
    bool memory_only{false};
    // Compactions started by CompactFullAsync and maybe still running.
    std::mutex compactions_mutex;
    std::vector<std::shared_future<void>> compactions;
    // StartMemtableFlush's empty write, while it may be running, and what
    // went into the memtable since the last one: less than the write buffer
    // cannot need one.
    std::future<leveldb::Status> memtable_flush;
    size_t written_since_memtable_flush{0};
    // Iterators still open: the database cannot be closed under them.
    std::atomic<int> open_iterators{0};
    // Last: it uses the members above.
    std::unique_ptr<dbwrapper_ingest::IngestRun> ingest;

    // The open database. It is closed only inside CommitIngest, and stays
    // closed if LevelDB then fails to reopen it: every use then throws.
    leveldb::DB& Db() override
    {
        if (!db) throw dbwrapper_error("LevelDB database " + name + " is closed: it failed to reopen after a commit");
        return *db;
    }

    leveldb::Status Open()
    {
        leveldb::DB* raw_db = nullptr;
        const leveldb::Status status = leveldb::DB::Open(options, path, &raw_db);
        db.reset(raw_db);
        return status;
    }

    void Close() override { db.reset(); }
    leveldb::Status Reopen() override { return Open(); }

    void WaitForCompactions() override
    {
        const std::lock_guard lock{compactions_mutex};
        for (const auto& compaction : compactions) compaction.wait();
        compactions.clear();
    }

    bool IteratorsOpen() const override { return open_iterators != 0; }
};

// A batch reaches LevelDB in descending key order. LevelDB puts a batch's
// records one by one into its memtable, a skip list, finding each one's
// place from the list's head down: on each level it steps along while the
// next key is below the new one. A key below every key already there stops
// at the first node of each level, one comparison per level; one above
// them all walks each level to its end, about four nodes per level with
// LevelDB's branching factor of 4. A big batch fills a memtable of its own
// (LevelDB switches memtables only between writes), so in descending order
// every record is of the first kind, and in ascending order of the second;
// in random order (a cache flush walks its entries in the order they
// changed) each walks about as far, and misses the CPU cache at each step
// too. The memtable, and the table made of it, hold the same records
// whatever the order: only the log's order and the sequence numbers
// differ. A 20M-coin snapshot load at -dbcache=450 (7 flushes of 32 MiB
// batches) spent 10.33 s in BatchWrite in descending order against 12.45 s
// in ascending order (medians of 3, alternating; doc/benchmarks.md).
//
// Records are staged in LevelDB's record encoding as they come. The
// LevelDB batch is built from them when the batch is written: in the
// staged order reversed when every key came above the one before (a
// snapshot load's batches), else sorted by a stable sort, so that a key
// written twice in one batch keeps its last value. The staged copy
// is then released, so a batch holds its records once while LevelDB writes
// it, and the staging buffer is reserved again for the next records; the
// LevelDB batch goes at Clear(). A flush that fills one batch while
// LevelDB writes the other (txdb's BatchWrite) so keeps two buffers, and
// briefly a third while it builds one.
struct CDBBatch::Impl {
    enum class Type : uint8_t { PUT, DELETE };
    // leveldb::WriteBatch's own header: sequence number and count.
    static constexpr size_t LEVELDB_HEADER = 12;

    // Each record as LevelDB's batch encodes it: type, varint key length,
    // key and, for a PUT, varint value length and value. The staged bytes
    // are then as many as the records of the LevelDB batch built from
    // them, so room reserved for that batch holds them too.
    std::vector<char> staged;
    std::vector<size_t> offsets;
    // Once built: all the records (and `staged` none).
    std::optional<leveldb::WriteBatch> batch;
    // Whether every key so far came above the one before.
    bool ascending{true};
    // What Reserve() last sized the staging buffer for.
    size_t reserved{0};

    // A length Add wrote at `p`, which moves past it.
    uint32_t ReadVarint(const char*& p) const
    {
        uint64_t n = 0;
        p = dbwrapper_ingest::DecodeVarint(p, staged.data() + staged.size(), n, /*max_bits=*/32);
        assert(p);
        return static_cast<uint32_t>(n);
    }

    void Add(Type type, std::span<const std::byte> key, std::span<const std::byte> value)
    {
        if (batch) Unbuild();
        if (ascending && !offsets.empty()) {
            const leveldb::Slice last = KeyAt(offsets.back());
            // In the database's own order (CompareKeys, LevelDB's comparator).
            ascending = dbwrapper_private::CompareKeys({reinterpret_cast<const char*>(key.data()), key.size()}, {last.data(), last.size()}) > 0;
        }
        // Released by the last Build(): reserved again in one piece.
        if (staged.capacity() < reserved) staged.reserve(reserved);
        offsets.push_back(staged.size());
        // The whole record in one resize, then written in place. Growing
        // the vector for the type byte, each length byte, the key and the
        // value in turn was 8% of a 60M-coin flush's CPU samples, with
        // this function's own.
        using dbwrapper_ingest::EncodeVarint;
        using dbwrapper_ingest::VarintSize;
        const size_t record_size = 1 + VarintSize(key.size()) + key.size() +
                                   (type == Type::PUT ? VarintSize(value.size()) + value.size() : 0);
        const size_t start = staged.size();
        staged.resize(start + record_size);
        char* p = staged.data() + start;
        *p++ = static_cast<char>(type);
        p = EncodeVarint(p, static_cast<uint32_t>(key.size()));
        p = std::copy_n(reinterpret_cast<const char*>(key.data()), key.size(), p);
        if (type == Type::PUT) {
            p = EncodeVarint(p, static_cast<uint32_t>(value.size()));
            std::copy_n(reinterpret_cast<const char*>(value.data()), value.size(), p);
        }
    }

    size_t Size() const { return batch ? batch->ApproximateSize() : LEVELDB_HEADER + staged.size(); }

    leveldb::Slice KeyAt(size_t offset) const
    {
        const char* p = staged.data() + offset + 1;
        const uint32_t key_size = ReadVarint(p);
        return {p, key_size};
    }

    struct Record {
        Type type;
        leveldb::Slice key;
        leveldb::Slice value;
    };
    Record At(size_t offset) const
    {
        const char* p = staged.data() + offset;
        const auto type = static_cast<Type>(*p++);
        const uint32_t key_size = ReadVarint(p);
        const leveldb::Slice key{p, key_size};
        if (type != Type::PUT) return {type, key, {}};
        p += key_size;
        const uint32_t value_size = ReadVarint(p);
        return {type, key, {p, value_size}};
    }

    // Records [begin, end) in staging order into an ingested run's files
    // (CDBWrapper::IngestBatch).
    leveldb::Status WriteTo(dbwrapper_ingest::TableRunWriter& writer, size_t begin, size_t end) const
    {
        for (const size_t offset : std::span{offsets}.subspan(begin, end - begin)) {
            const Record record = At(offset);
            const uint8_t type = record.type == Type::PUT ? dbwrapper_ingest::TYPE_VALUE : dbwrapper_ingest::TYPE_DELETION;
            leveldb::Status status = writer.Add(type, {record.key.data(), record.key.size()}, {record.value.data(), record.value.size()});
            if (!status.ok()) return status;
        }
        return leveldb::Status::OK();
    }

    // The LevelDB batch of the staged records, in descending key order.
    leveldb::WriteBatch& Build()
    {
        if (batch) return *batch;
        if (ascending) {
            std::ranges::reverse(offsets);
        } else {
            SortDescending();
        }
        const size_t size = Size();
        leveldb::WriteBatch& built = batch.emplace();
        SizeLevelDBBatch(built, size);
        for (const size_t offset : offsets) {
            const Record record = At(offset);
            if (record.type == Type::PUT) {
                built.Put(record.key, record.value);
            } else {
                built.Delete(record.key);
            }
        }
        std::vector<char>{}.swap(staged);
        std::vector<size_t>{}.swap(offsets);
        return built;
    }

    // Offsets in descending key order; equal keys keep their staging order,
    // so the last one wins. A sort on bare offsets decoded two records of
    // the staging buffer at each comparison (4.8% of a -dbcache=100
    // replay's samples, on the connecting thread): each record's key's
    // SortPrefix (util/sort_prefix.h) now sits beside its offset, and the
    // records are decoded only when those tie (a transaction's outputs).
    void SortDescending()
    {
        struct Keyed {
            uint64_t prefix;
            size_t offset;
        };
        std::vector<Keyed> keyed;
        keyed.reserve(offsets.size());
        for (const size_t offset : offsets) {
            const leveldb::Slice key = KeyAt(offset);
            keyed.push_back({SortPrefix({reinterpret_cast<const unsigned char*>(key.data()), key.size()}), offset});
        }
        // Total order (key descending, then offset), so an unstable sort
        // gives what a stable one did. A zero-padded prefix can tie with a
        // longer key's: the full comparison decides those.
        std::ranges::sort(keyed, [this](const Keyed& a, const Keyed& b) {
            if (a.prefix != b.prefix) return a.prefix > b.prefix;
            const leveldb::Slice key_a = KeyAt(a.offset);
            const leveldb::Slice key_b = KeyAt(b.offset);
            const int c = dbwrapper_private::CompareKeys({key_a.data(), key_a.size()}, {key_b.data(), key_b.size()});
            return c != 0 ? c > 0 : a.offset < b.offset;
        });
        for (size_t i = 0; i < keyed.size(); ++i) offsets[i] = keyed[i].offset;
    }

    // Records added to a written batch (rare: BatchWrite never does) go after
    // the built ones: those are staged again first, in their built order,
    // which keeps equal keys in the order they came.
    void Unbuild()
    {
        struct Stager : leveldb::WriteBatch::Handler {
            Impl& impl;
            explicit Stager(Impl& i) : impl{i} {}
            static std::span<const std::byte> Bytes(const leveldb::Slice& slice) { return std::as_bytes(std::span{slice.data(), slice.size()}); }
            void Put(const leveldb::Slice& key, const leveldb::Slice& value) override { impl.Add(Type::PUT, Bytes(key), Bytes(value)); }
            void Delete(const leveldb::Slice& key) override { impl.Add(Type::DELETE, Bytes(key), {}); }
        } stager{*this};
        leveldb::WriteBatch records;
        records.Append(*batch);
        batch.reset();
        ascending = true;
        const leveldb::Status status = records.Iterate(&stager);
        assert(status.ok());
    }

    void Clear()
    {
        staged.clear();
        offsets.clear();
        batch.reset();
        ascending = true;
    }
};

struct CDBIterator::Impl {
    std::unique_ptr<leveldb::Iterator> it;
    std::atomic<int>* open_count{nullptr};
    // The database's, for messages.
    std::string name;

    ~Impl()
    {
        it.reset();
        if (open_count) --*open_count;
    }
};

int dbwrapper_private::CompareKeys(std::string_view a, std::string_view b)
{
    // Bytewise: the first byte that differs decides.
    const size_t shared = dbwrapper_ingest::SharedPrefix(a, b);
    if (shared < std::min(a.size(), b.size())) {
        return static_cast<unsigned char>(a[shared]) < static_cast<unsigned char>(b[shared]) ? -1 : 1;
    }
    // One is a prefix of the other: the shorter sorts first.
    if (a.size() == b.size()) return 0;
    return a.size() < b.size() ? -1 : 1;
}

dbwrapper_private::BatchCapacity dbwrapper_private::GetBatchCapacity(const CDBBatch& batch)
{
    const CDBBatch::Impl& impl = *batch.m_impl;
    size_t leveldb = 0;
    // LevelDB keeps a batch's records in its one member, a std::string
    // (leveldb/write_batch.h). A standard-layout object and its first member
    // share their address, so the string can be read through it.
    if constexpr (std::is_standard_layout_v<leveldb::WriteBatch> && sizeof(leveldb::WriteBatch) == sizeof(std::string)) {
        if (impl.batch) leveldb = reinterpret_cast<const std::string&>(*impl.batch).capacity();
    }
    return {impl.staged.capacity(), leveldb};
}

CDBWrapper::CDBWrapper(const DBParams& params)
    : m_impl{std::make_unique<Impl>()}, m_name{params.path.filename().string()}
{
    auto& impl = *m_impl;
    impl.filter_policy.reset(leveldb::NewBloomFilterPolicy(BLOOM_BITS_PER_KEY));
    impl.block_cache.reset(leveldb::NewLRUCache(params.cache_bytes / 2));
    impl.logger = std::make_unique<LevelDBLogger>();

    auto& options = impl.options;
    options.block_cache = impl.block_cache.get();
    options.write_buffer_size = params.cache_bytes / 4;
    options.filter_policy = impl.filter_policy.get();
    options.comparator = &KEY_COMPARATOR;
    // Coin values are small and already compressed; LevelDB's compression
    // costs time for little space.
    options.compression = leveldb::kNoCompression;
    options.max_file_size = std::max(MIN_MAX_FILE_SIZE, options.write_buffer_size);
    options.paranoid_checks = true;
    options.create_if_missing = true;
    options.info_log = impl.logger.get();
    impl.read_options.verify_checksums = true;
    impl.iterate_options.verify_checksums = true;
    // A full scan would evict everything useful from the block cache.
    impl.iterate_options.fill_cache = false;
    impl.sync_options.sync = true;

    // Which environment wraps which, and why: dbwrapper/env.h.
    impl.envs = std::make_unique<EnvStack>(EnvStack::Layers{.memory_only = params.memory_only,
                                                            .base_for_tests = params.options.base_env_for_tests,
                                                            .storage = params.options.storage,
                                                            .write_budget = params.options.fail_writes_after_bytes.has_value()});
    options.env = impl.envs->Top();
    if (!params.memory_only) {
        if (params.wipe_data) {
            LogInfo("Wiping LevelDB in {}", params.path.string());
            // The base alone: a wipe is nothing for the write budget to
            // count or the slower device to charge.
            leveldb::Options base_options = options;
            base_options.env = impl.envs->Base();
            ThrowOnError(leveldb::DestroyDB(params.path.string(), base_options), m_name);
        }
        std::error_code ec;
        std::filesystem::create_directories(params.path, ec);
        if (ec) throw dbwrapper_error("Cannot create database directory " + params.path.string() + ": " + ec.message());
        LogInfo("Opening LevelDB in {}", params.path.string());
    }
    if (params.options.storage) LogInfo("{}: files behave as on {}", m_name, params.options.storage->Describe());

    impl.name = m_name;
    impl.path = params.path.string();
    impl.memory_only = params.memory_only;
    impl.ingest = std::make_unique<dbwrapper_ingest::IngestRun>(impl, options, impl.path, impl.memory_only, m_name, m_write_failure,
                                                                params.options.tables_by_leveldb);
    ThrowOnError(impl.Open(), m_name);

    if (params.options.force_compact) impl.db->CompactRange(nullptr, nullptr);

    // The key entry itself is stored in the clear, so read it with the
    // all-zero key this object starts with.
    std::vector<unsigned char> stored_key;
    const bool has_key = Read(OBFUSCATION_KEY_KEY, stored_key);
    if (!has_key && params.obfuscate && IsEmpty()) {
        std::array<unsigned char, Obfuscation::KEY_SIZE> fresh_key;
        GetRandBytes(fresh_key);
        stored_key.assign(fresh_key.begin(), fresh_key.end());
        Write(OBFUSCATION_KEY_KEY, stored_key, /*sync=*/true);
        LogInfo("Wrote new obfuscation key for {}", params.path.string());
    }
    if (!stored_key.empty()) {
        if (stored_key.size() != Obfuscation::KEY_SIZE) {
            throw dbwrapper_error("Obfuscation key of " + m_name + " has " + std::to_string(stored_key.size()) + " bytes, expected 8");
        }
        m_obfuscation = Obfuscation{std::span<const unsigned char, Obfuscation::KEY_SIZE>{stored_key.data(), Obfuscation::KEY_SIZE}};
    }
    if (params.options.fail_writes_after_bytes) impl.envs->ArmBudget(*params.options.fail_writes_after_bytes);
}

CDBWrapper::~CDBWrapper()
{
    // A running compaction uses the database; it must end before that
    // closes. The database must close before the cache, filter and env it
    // uses.
    m_impl->WaitForCompactions();
    if (m_impl->memtable_flush.valid()) m_impl->memtable_flush.wait();
    m_impl->db.reset();
    // Unregistered tables are deleted, after the database: they use its
    // environment, which outlives both.
    m_impl->ingest->Discard();
}

std::optional<std::string> CDBWrapper::ReadImpl(std::span<const std::byte> key) const
{
    std::string value;
    const leveldb::Status status = m_impl->Db().Get(m_impl->read_options, ToSlice(key), &value);
    if (status.IsNotFound()) return std::nullopt;
    ThrowOnError(status, m_name);
    return value;
}

bool CDBWrapper::ExistsImpl(std::span<const std::byte> key) const { return ReadImpl(key).has_value(); }

void CDBWrapper::WriteBatch(CDBBatch& batch, bool sync)
{
    JoinMemtableFlush();
    if (m_write_failure) throw dbwrapper_error("Refusing to write to " + m_name + " after a failed write: " + *m_write_failure);
    leveldb::WriteBatch& records = batch.m_impl->Build();
    m_impl->written_since_memtable_flush += records.ApproximateSize();
    const leveldb::Status status = m_impl->Db().Write(sync ? m_impl->sync_options : m_impl->write_options, &records);
    if (!status.ok()) m_write_failure = status.ToString();
    ThrowOnError(status, m_name);
}

void CDBWrapper::ReleaseHeldWrites(std::chrono::milliseconds wait)
{
    const leveldb::Status status = m_impl->envs->ReleaseHeldLog(wait);
    if (!status.ok() && !m_write_failure) m_write_failure = status.ToString();
    ThrowOnError(status, m_name);
}

void CDBWrapper::StartMemtableFlush()
{
    JoinMemtableFlush();
    if (m_write_failure || m_impl->written_since_memtable_flush <= m_impl->options.write_buffer_size) return;
    m_impl->written_since_memtable_flush = 0;
    leveldb::DB* db = &m_impl->Db();
    m_impl->memtable_flush = std::async(std::launch::async, [db, options = m_impl->write_options] {
        leveldb::WriteBatch empty;
        return db->Write(options, &empty);
    });
}

void CDBWrapper::FlushMemtable()
{
    JoinMemtableFlush();
    const leveldb::Slice nothing{};
    m_impl->Db().CompactRange(&nothing, &nothing);
    m_impl->written_since_memtable_flush = 0;
}

void CDBWrapper::JoinMemtableFlush()
{
    if (!m_impl->memtable_flush.valid()) return;
    const leveldb::Status status = m_impl->memtable_flush.get();
    if (!status.ok() && !m_write_failure) m_write_failure = status.ToString();
}

bool CDBWrapper::CanIngest(const CDBBatch& batch) const
{
    const CDBBatch::Impl& records = *batch.m_impl;
    if (records.batch || records.offsets.empty() || !records.ascending) return false;
    const leveldb::Slice first = records.KeyAt(records.offsets.front());
    return m_impl->ingest->Accepts({first.data(), first.size()});
}

void CDBWrapper::IngestBatch(CDBBatch& batch)
{
    if (!CanIngest(batch)) throw std::logic_error("CDBWrapper::IngestBatch: batch out of key order, or below the run");
    CDBBatch::Impl& records = *batch.m_impl;
    const auto write = [&records](dbwrapper_ingest::TableRunWriter& writer, size_t begin, size_t end) { return records.WriteTo(writer, begin, end); };
    // Cleared with its buffer kept, also when the build failed: the next
    // batch fills it again, where a fresh one would fault in every page.
    try {
        m_impl->ingest->Add(records.offsets.size(), write);
    } catch (const dbwrapper_error&) {
        records.Clear();
        throw;
    }
    records.Clear();
}

bool CDBWrapper::CommitIngest()
{
    // The commit closes the database: the empty write must be done.
    JoinMemtableFlush();
    return m_impl->ingest->Commit();
}

void CDBWrapper::DiscardIngest() { m_impl->ingest->Discard(); }

size_t CDBWrapper::IngestedFiles() const { return m_impl->ingest->InstalledFiles(); }

const std::optional<std::string>& CDBWrapper::IngestOff() const { return m_impl->ingest->Off(); }

size_t CDBWrapper::DirectIngestFiles() const { return m_impl->envs->DirectIngestFiles(); }

std::unique_ptr<CDBIterator> CDBWrapper::NewIterator() const
{
    auto impl = std::make_unique<CDBIterator::Impl>();
    impl->it.reset(m_impl->Db().NewIterator(m_impl->iterate_options));
    impl->open_count = &m_impl->open_iterators;
    impl->name = m_name;
    ++m_impl->open_iterators;
    return std::unique_ptr<CDBIterator>{new CDBIterator{std::move(impl), m_obfuscation}};
}

bool CDBWrapper::IsEmpty() const
{
    auto it = NewIterator();
    it->SeekToFirst();
    return !it->Valid();
}

size_t CDBWrapper::EstimateSizeImpl(std::span<const std::byte> begin, std::span<const std::byte> end) const
{
    const leveldb::Range range{ToSlice(begin), ToSlice(end)};
    uint64_t size = 0;
    m_impl->Db().GetApproximateSizes(&range, 1, &size);
    return size;
}

size_t CDBWrapper::DynamicMemoryUsage() const
{
    std::string value;
    if (!m_impl->db || !m_impl->db->GetProperty("leveldb.approximate-memory-usage", &value)) return 0;
    return std::stoull(value);
}

std::optional<std::string> CDBWrapper::GetProperty(const std::string& name) const
{
    std::string value;
    if (!m_impl->db || !m_impl->db->GetProperty(name, &value)) return std::nullopt;
    return value;
}

void CDBWrapper::CompactFull()
{
    // Null bounds: from before the first key to past the last.
    m_impl->Db().CompactRange(nullptr, nullptr);
}

std::shared_future<void> CDBWrapper::CompactFullAsync()
{
    std::shared_future<void> compaction = std::async(std::launch::async, [this] { CompactFull(); }).share();
    const std::lock_guard lock{m_impl->compactions_mutex};
    // Finished ones need no waiting at destruction.
    std::erase_if(m_impl->compactions, [](const auto& f) { return f.wait_for(std::chrono::seconds{0}) == std::future_status::ready; });
    m_impl->compactions.push_back(compaction);
    return compaction;
}

CDBBatch::CDBBatch(const CDBWrapper& parent) : m_parent{parent}, m_impl{std::make_unique<Impl>()} {}
CDBBatch::~CDBBatch() = default;

void CDBBatch::Clear() { m_impl->Clear(); }

void CDBBatch::Reserve(size_t bytes)
{
    if (bytes <= m_impl->reserved || bytes <= SizeEstimate()) return;
    m_impl->staged.reserve(bytes);
    m_impl->reserved = bytes;
}

size_t CDBBatch::SizeEstimate() const { return m_impl->Size(); }

bool CDBBatch::InKeyOrder() const { return m_impl->ascending; }

void CDBBatch::WriteImpl(std::span<const std::byte> key, DataStream& value)
{
    m_parent.m_obfuscation.Apply(value.MutableUnread());
    m_impl->Add(Impl::Type::PUT, key, value.Unread());
}

void CDBBatch::EraseImpl(std::span<const std::byte> key) { m_impl->Add(Impl::Type::DELETE, key, {}); }

CDBIterator::CDBIterator(std::unique_ptr<Impl> impl, const Obfuscation& obfuscation)
    : m_impl{std::move(impl)}, m_obfuscation{obfuscation} {}
CDBIterator::~CDBIterator() = default;

bool CDBIterator::Valid() const
{
    if (m_impl->it->Valid()) return true;
    CheckStatus();
    return false;
}

void CDBIterator::CheckStatus() const { ThrowOnError(m_impl->it->status(), m_impl->name); }

void CDBIterator::SeekToFirst() { m_impl->it->SeekToFirst(); }
void CDBIterator::Next() { m_impl->it->Next(); }
void CDBIterator::SeekImpl(std::span<const std::byte> key) { m_impl->it->Seek(ToSlice(key)); }
std::span<const std::byte> CDBIterator::KeyImpl() const { return ToSpan(m_impl->it->key()); }
std::span<const std::byte> CDBIterator::ValueImpl() const { return ToSpan(m_impl->it->value()); }
