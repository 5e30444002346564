// leveldb_ingest_probe: how fast LevelDB alone takes a flush's worth of
// coin-shaped records in ascending key order, two ways:
//
//   write   DB::Write in 32 MiB batches, the last one synced: what every
//           coinsdb flush does today. LevelDB logs each batch, inserts it
//           into a memtable, and its compaction thread then builds the
//           table files.
//   tables  leveldb::TableBuilder writing the same records straight into
//           table files (internal keys, bloom filters on the user key, as
//           the database would read them), each file synced. Nothing
//           registers the files with a database: the figure is the cost of
//           the bytes a bulk load that ingested prebuilt tables would have
//           to produce, not a working ingestion. The tables are read back
//           with leveldb::Table and counted, so a malformed file shows.
//
// It measures LevelDB, not coinsdb: this is the one file that talks to
// LevelDB outside dbwrapper, on purpose. doc/benchmarks.md (round 8) has
// the figures and what they mean for the flush.
//
// Usage: leveldb_ingest_probe [records (5000000)] [runs (3)] [dir]
// Runs alternate write, tables, write, ...; prints wall and CPU seconds
// (CPU of every thread: LevelDB's compaction thread included).

#include <leveldb/comparator.h>
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>
#include <leveldb/write_batch.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr size_t KEY_BYTES = 34;   // 'C', a 32-byte txid, a one-byte VARINT vout
constexpr size_t VALUE_BYTES = 30; // about a compressed P2WPKH coin
constexpr size_t BATCH_BYTES = size_t{32} << 20;
constexpr size_t TABLE_BYTES = size_t{32} << 20;
// The 8 bytes LevelDB appends to a user key inside its files: sequence
// number << 8 | type, little-endian; type 1 is a value.
constexpr uint64_t INTERNAL_TAG = (uint64_t{1} << 8) | 1;

double CpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto secs = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return secs(usage.ru_utime) + secs(usage.ru_stime);
}

// Orders internal keys by their user key (every tag here is the same) and
// keeps index keys whole: shortening them as bytes could cut into the tag.
class InternalKeyOrder : public leveldb::Comparator
{
public:
    int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override { return UserKey(a).compare(UserKey(b)); }
    const char* Name() const override { return "leveldb.InternalKeyComparator"; }
    void FindShortestSeparator(std::string*, const leveldb::Slice&) const override {}
    void FindShortSuccessor(std::string*) const override {}
    static leveldb::Slice UserKey(const leveldb::Slice& key) { return {key.data(), key.size() - 8}; }
};

// Bloom filters over user keys under the bloom policy's own name, which is
// what a database looks the filter block up by.
class UserKeyBloom : public leveldb::FilterPolicy
{
public:
    const char* Name() const override { return m_bloom->Name(); }
    void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override
    {
        std::vector<leveldb::Slice> user(keys, keys + n);
        for (auto& key : user) key = InternalKeyOrder::UserKey(key);
        m_bloom->CreateFilter(user.data(), n, dst);
    }
    bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override { return m_bloom->KeyMayMatch(key, filter); }

private:
    std::unique_ptr<const leveldb::FilterPolicy> m_bloom{leveldb::NewBloomFilterPolicy(10)};
};

// Records laid out one after another, keys ascending: the order in which a
// snapshot load's cache hands its coins to the flush.
std::vector<char> MakeRecords(size_t count)
{
    std::vector<char> records(count * (KEY_BYTES + VALUE_BYTES));
    std::mt19937_64 rng{1};
    const uint64_t step = UINT64_MAX / count;
    for (size_t i = 0; i < count; ++i) {
        char* key = records.data() + i * (KEY_BYTES + VALUE_BYTES);
        key[0] = 'C';
        // The first 8 txid bytes rise with i (big-endian); the rest are random.
        const uint64_t prefix = __builtin_bswap64(i * step);
        std::memcpy(key + 1, &prefix, 8);
        for (size_t at = 9; at < KEY_BYTES + VALUE_BYTES; at += 8) {
            const uint64_t r = rng();
            std::memcpy(key + at, &r, std::min<size_t>(8, KEY_BYTES + VALUE_BYTES - at));
        }
        key[KEY_BYTES - 1] = static_cast<char>(i % 3);
    }
    return records;
}

leveldb::Options BaseOptions(const leveldb::FilterPolicy* filter)
{
    leveldb::Options options;
    options.create_if_missing = true;
    options.compression = leveldb::kNoCompression;
    options.write_buffer_size = size_t{2} << 20; // the coins database's, at Core's 8 MiB cap
    options.max_file_size = size_t{2} << 20;
    options.filter_policy = filter;
    return options;
}

void Fail(const std::string& what, const leveldb::Status& status)
{
    std::fprintf(stderr, "%s: %s\n", what.c_str(), status.ToString().c_str());
    std::exit(1);
}

void RunWrite(const std::vector<char>& records, size_t count, const std::string& dir)
{
    std::unique_ptr<const leveldb::FilterPolicy> bloom{leveldb::NewBloomFilterPolicy(10)};
    leveldb::DB* raw = nullptr;
    if (auto s = leveldb::DB::Open(BaseOptions(bloom.get()), dir, &raw); !s.ok()) Fail("open", s);
    std::unique_ptr<leveldb::DB> db{raw};
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = CpuSeconds();
    leveldb::WriteBatch batch;
    for (size_t i = 0; i < count; ++i) {
        const char* key = records.data() + i * (KEY_BYTES + VALUE_BYTES);
        batch.Put({key, KEY_BYTES}, {key + KEY_BYTES, VALUE_BYTES});
        if (batch.ApproximateSize() >= BATCH_BYTES || i + 1 == count) {
            leveldb::WriteOptions write_options;
            write_options.sync = i + 1 == count;
            if (auto s = db->Write(write_options, &batch); !s.ok()) Fail("write", s);
            batch.Clear();
        }
    }
    const double written = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    db.reset(); // waits for the compaction thread's last table
    const double closed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("write   %zu records: %.2f s to the last Write (%.2f M/s), %.2f s to closed, cpu %.2f s\n",
                count, written, count / written / 1e6, closed, CpuSeconds() - cpu_start);
}

void RunTables(const std::vector<char>& records, size_t count, const std::string& dir)
{
    InternalKeyOrder order;
    UserKeyBloom bloom;
    leveldb::Options options = BaseOptions(&bloom);
    options.comparator = &order;
    leveldb::Env* env = leveldb::Env::Default();
    env->CreateDir(dir);
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = CpuSeconds();
    std::vector<std::pair<std::string, uint64_t>> files;
    std::string internal_key;
    for (size_t i = 0; i < count;) {
        const std::string name = dir + "/" + std::to_string(100000 + files.size()) + ".ldb";
        leveldb::WritableFile* raw = nullptr;
        if (auto s = env->NewWritableFile(name, &raw); !s.ok()) Fail("create " + name, s);
        std::unique_ptr<leveldb::WritableFile> file{raw};
        leveldb::TableBuilder builder{options, file.get()};
        for (; i < count && builder.FileSize() < TABLE_BYTES; ++i) {
            const char* key = records.data() + i * (KEY_BYTES + VALUE_BYTES);
            internal_key.assign(key, KEY_BYTES);
            internal_key.append(reinterpret_cast<const char*>(&INTERNAL_TAG), 8); // x86-64: little-endian
            builder.Add(internal_key, {key + KEY_BYTES, VALUE_BYTES});
        }
        if (auto s = builder.Finish(); !s.ok()) Fail("finish " + name, s);
        if (auto s = file->Sync(); !s.ok()) Fail("sync " + name, s);
        if (auto s = file->Close(); !s.ok()) Fail("close " + name, s);
        files.emplace_back(name, builder.FileSize());
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = CpuSeconds() - cpu_start;

    // Read every table back: the records, in order, with their values.
    size_t read = 0;
    for (const auto& [name, size] : files) {
        leveldb::RandomAccessFile* raw = nullptr;
        if (auto s = env->NewRandomAccessFile(name, &raw); !s.ok()) Fail("reopen " + name, s);
        std::unique_ptr<leveldb::RandomAccessFile> file{raw};
        leveldb::Table* table_raw = nullptr;
        if (auto s = leveldb::Table::Open(options, file.get(), size, &table_raw); !s.ok()) Fail("table " + name, s);
        std::unique_ptr<leveldb::Table> table{table_raw};
        std::unique_ptr<leveldb::Iterator> it{table->NewIterator({})};
        for (it->SeekToFirst(); it->Valid(); it->Next(), ++read) {
            const char* expected = records.data() + read * (KEY_BYTES + VALUE_BYTES);
            if (InternalKeyOrder::UserKey(it->key()) != leveldb::Slice{expected, KEY_BYTES} ||
                it->value() != leveldb::Slice{expected + KEY_BYTES, VALUE_BYTES}) {
                std::fprintf(stderr, "record %zu differs in %s\n", read, name.c_str());
                std::exit(1);
            }
        }
    }
    if (read != count) {
        std::fprintf(stderr, "read back %zu of %zu records\n", read, count);
        std::exit(1);
    }
    std::printf("tables  %zu records: %.2f s (%.2f M/s), %zu files synced, cpu %.2f s; all read back\n",
                count, wall, count / wall / 1e6, files.size(), cpu);
}

} // namespace

int main(int argc, char** argv)
{
    const size_t count = argc > 1 ? std::stoull(argv[1]) : 5'000'000;
    const int runs = argc > 2 ? std::stoi(argv[2]) : 3;
    const std::string dir = argc > 3 ? argv[3] : (std::filesystem::temp_directory_path() / "leveldb_ingest_probe").string();
    if (count == 0 || runs <= 0) {
        std::fprintf(stderr, "usage: %s [records > 0] [runs > 0] [dir]\n", argv[0]);
        return 1;
    }
    const std::vector<char> records = MakeRecords(count);
    for (int run = 0; run < runs; ++run) {
        for (const bool tables : {false, true}) {
            std::filesystem::remove_all(dir);
            std::filesystem::create_directories(dir);
            tables ? RunTables(records, count, dir) : RunWrite(records, count, dir);
        }
    }
    std::filesystem::remove_all(dir);
}
