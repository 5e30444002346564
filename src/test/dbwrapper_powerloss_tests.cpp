// A power loss at a random point of a flush, simulated below the database
// (DBOptions::base_env_for_tests) by an environment that remembers what
// was synced, in the manner of LevelDB's own fault-injection test: the
// power goes off at the Nth write, sync, rename or delete, every later one
// fails, and once the database is closed every byte not synced and every
// directory change not synced is undone. Reopened with the file system
// alone, the database must open and hold, compared by a full scan with a
// std::map model (and again after a full compaction):
//  - for a run of ingested table files (CDBWrapper::IngestBatch and
//    CommitIngest): the state before the run or the state with all of it,
//    and the latter whenever CommitIngest had returned;
//  - for batches written through LevelDB's log (sync=false, as txdb
//    flushes, the last one synced in about half the runs): a prefix of the
//    batches, and at least every batch before the last one synced that
//    returned and every batch in a log LevelDB deleted (its memtable was
//    then in a table). LevelDB alone guarantees less: it leaves a full
//    memtable's log for a new one without a sync, so a loss soon after
//    could keep later batches and drop earlier ones; the environment's log
//    order layer (dbwrapper/env.h) holds the new log's bytes back until the
//    old one is deleted, or syncs the old one first.
//    power_loss_keeps_writes_in_order_across_a_log_switch is the directed
//    case, which failed without that layer;
//    a_new_log_waits_for_the_table_of_the_one_before shows the bytes held
//    and the log left never synced.
//
// POWERLOSS_SEED and POWERLOSS_ITERATIONS (per case) override the random
// seed and the default iteration count; the seed is logged.

#include <dbwrapper.h>
#include <dbwrapper/codec.h>
#include <test/util/ingest_available.h>
#include <test/util/random.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>
#include <leveldb/env.h>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string BaseName(const std::string& path) { return fs::path{path}.filename().string(); }
std::string DirName(const std::string& path) { return fs::path{path}.parent_path().string(); }

enum class Op { CREATE, APPEND, SYNC, RENAME, REMOVE };

const char* OpName(Op op)
{
    switch (op) {
    case Op::CREATE: return "create";
    case Op::APPEND: return "append";
    case Op::SYNC: return "sync";
    case Op::RENAME: return "rename";
    case Op::REMOVE: return "remove";
    }
    return "?";
}

struct Event {
    Op op;
    std::string name; // base names: one directory
    std::string target;
};

class PowerLossEnv;

class PowerLossFile final : public leveldb::WritableFile
{
public:
    PowerLossFile(PowerLossEnv& env, std::string name, leveldb::WritableFile* target)
        : m_env{env}, m_name{std::move(name)}, m_target{target} {}

    leveldb::Status Append(const leveldb::Slice& data) override;
    leveldb::Status Flush() override;
    leveldb::Status Sync() override;
    leveldb::Status Close() override;

private:
    PowerLossEnv& m_env;
    const std::string m_name;
    std::unique_ptr<leveldb::WritableFile> m_target;
};

// LevelDB's file system environment, with a power switch. What it takes
// to be durable, by the rules of POSIX file systems:
//  - a file's bytes up to its last successful Sync;
//  - the directory changes (creations, renames, deletions) made before the
//    directory's last sync. LevelDB's environment syncs the directory when
//    it syncs a MANIFEST ("MANIFEST-*"), and it is credited here for that;
//    with `new_file_sync_syncs_dir` also when a file created since that
//    sync is synced, which LevelDB's own fault-injection test assumes (and
//    ext4 and XFS do: their fsync commits the whole journal), and which
//    its log relies on after it switches to a new log file. The directory
//    sync dbwrapper/ingest.cpp makes itself after the CURRENT switch of an
//    ingestion goes around the Env and is not seen here: this environment
//    then drops more than a disk would, never less.
// At PowerLoss() every file is cut to its durable length (with
// `keep_unsynced`, plus a random part of what was written after it, as a
// disk may have taken some of it), and a random number of the last
// directory changes not yet synced are undone, newest first: file systems
// that journal their metadata (ext4, XFS) commit those changes in order, so
// what survives is a prefix of them.
class PowerLossEnv final : public leveldb::EnvWrapper
{
public:
    explicit PowerLossEnv(bool new_file_sync_syncs_dir)
        : leveldb::EnvWrapper{leveldb::Env::Default()}, m_new_file_sync_syncs_dir{new_file_sync_syncs_dir} {}

    // Starts counting operations: the `cut_at`-th (from 1) fails, and every
    // one after it. Zero counts without a cut.
    void Arm(uint64_t cut_at)
    {
        const std::lock_guard lock{m_mutex};
        m_armed = true;
        m_cut_at = cut_at;
    }
    uint64_t Operations() const
    {
        const std::lock_guard lock{m_mutex};
        return m_operations;
    }
    // LevelDB log files created since Arm(): the batches written between
    // two of them went into the same file.
    size_t LogsCreated() const
    {
        const std::lock_guard lock{m_mutex};
        return m_logs_created;
    }
    // LevelDB log files deleted since Arm(), oldest first: the one written
    // to at Arm(), then those created since.
    size_t LogsRemoved() const
    {
        const std::lock_guard lock{m_mutex};
        return m_logs_removed;
    }
    // Every LevelDB log file created through this environment, in order.
    std::vector<std::string> LogNames() const
    {
        const std::lock_guard lock{m_mutex};
        return m_log_names;
    }
    // Bytes handed to the file system for `name`, and how many were synced.
    std::pair<uint64_t, uint64_t> WrittenAndSynced(const std::string& name) const
    {
        const std::lock_guard lock{m_mutex};
        const auto it = m_files.find(name);
        return it == m_files.end() ? std::pair<uint64_t, uint64_t>{} : std::pair{it->second.written, it->second.synced};
    }
    // Tables may be created again (see HoldTables).
    void ReleaseTables()
    {
        {
            const std::lock_guard lock{m_mutex};
            m_hold_tables = false;
        }
        m_power_changed.notify_all();
    }
    bool IsOff() const
    {
        const std::lock_guard lock{m_mutex};
        return m_off;
    }
    // From now on a table file is created only once the power is off (and
    // then fails): LevelDB's compactions never make a memtable durable.
    void HoldTables()
    {
        const std::lock_guard lock{m_mutex};
        m_hold_tables = true;
    }
    // The power goes off now: every later operation fails.
    void PowerOff()
    {
        {
            const std::lock_guard lock{m_mutex};
            m_off = true;
        }
        m_power_changed.notify_all();
    }
    // The operations done since Arm() and before the cut, and the one cut.
    const std::vector<Event>& Trace() const { return m_trace; }
    const std::optional<Event>& CutOperation() const { return m_cut; }

    struct LossStats {
        size_t files_cut{0};
        size_t changes_undone{0};
        size_t changes_pending{0};
    };
    // The disk as it is found after the power comes back. Call it once
    // nothing uses this environment any more.
    LossStats PowerLoss(TestRand& rng, bool keep_unsynced)
    {
        const std::lock_guard lock{m_mutex};
        LossStats stats;
        for (const auto& [path, file] : m_files) {
            std::error_code ec;
            const uint64_t size = fs::file_size(path, ec);
            if (ec) continue;
            uint64_t keep = file.synced;
            if (keep_unsynced && file.written > file.synced) keep += rng.Below(file.written - file.synced + 1);
            if (keep < size) {
                fs::resize_file(path, keep);
                ++stats.files_cut;
            }
        }
        stats.changes_pending = m_changes.size();
        const size_t kept = rng.Below(m_changes.size() + 1);
        for (size_t i = m_changes.size(); i-- > kept;) {
            for (const auto& [path, before] : m_changes[i].before) {
                if (before) {
                    std::ofstream{path, std::ios::binary | std::ios::trunc} << *before;
                } else {
                    fs::remove(path);
                }
            }
            ++stats.changes_undone;
        }
        m_files.clear();
        m_changes.clear();
        return stats;
    }

    leveldb::Status NewWritableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        if (name.ends_with(".ldb")) {
            std::unique_lock lock{m_mutex};
            m_power_changed.wait(lock, [&] { return !m_hold_tables || m_off; });
        }
        if (!Allow(Op::CREATE, name)) return Off(name);
        std::optional<std::string> before = Durable(name);
        leveldb::Status status = target()->NewWritableFile(name, result);
        if (!status.ok()) return status;
        {
            const std::lock_guard lock{m_mutex};
            if (name.ends_with(".log")) {
                m_logs_created += m_armed;
                m_log_names.push_back(name);
            }
            m_files[name] = {};
            AddChange(DirName(name), {{name, std::move(before)}});
            m_new_files.insert(name);
        }
        *result = new PowerLossFile{*this, name, *result};
        return status;
    }

    leveldb::Status NewAppendableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        if (target()->FileExists(name)) {
            if (IsOff()) return Off(name);
            uint64_t size = 0;
            leveldb::Status status = target()->GetFileSize(name, &size);
            if (status.ok()) status = target()->NewAppendableFile(name, result);
            if (!status.ok()) return status;
            {
                const std::lock_guard lock{m_mutex};
                // A file from before this environment is durable whole.
                if (!m_files.contains(name)) m_files[name] = {.synced = size, .written = size};
            }
            *result = new PowerLossFile{*this, name, *result};
            return status;
        }
        return NewWritableFile(name, result);
    }

    leveldb::Status RenameFile(const std::string& from, const std::string& to) override
    {
        if (!Allow(Op::RENAME, from, to)) return Off(from);
        std::optional<std::string> to_before = Durable(to);
        std::optional<std::string> from_before = Durable(from);
        leveldb::Status status = target()->RenameFile(from, to);
        if (!status.ok()) return status;
        const std::lock_guard lock{m_mutex};
        m_files.erase(to);
        if (auto it = m_files.find(from); it != m_files.end()) {
            m_files[to] = it->second;
            m_files.erase(from);
        }
        m_new_files.erase(to);
        if (m_new_files.erase(from)) m_new_files.insert(to);
        AddChange(DirName(to), {{to, std::move(to_before)}, {from, std::move(from_before)}});
        return status;
    }

    leveldb::Status RemoveFile(const std::string& name) override
    {
        if (!Allow(Op::REMOVE, name)) return Off(name);
        std::optional<std::string> before = Durable(name);
        leveldb::Status status = target()->RemoveFile(name);
        if (!status.ok()) return status;
        const std::lock_guard lock{m_mutex};
        m_logs_removed += m_armed && name.ends_with(".log");
        m_files.erase(name);
        m_new_files.erase(name);
        AddChange(DirName(name), {{name, std::move(before)}});
        return status;
    }

    // For PowerLossFile.
    bool Allow(Op op, const std::string& name, const std::string& target = {})
    {
        const std::lock_guard lock{m_mutex};
        if (m_off) return false;
        if (!m_armed) return true;
        ++m_operations;
        Event event{op, BaseName(name), target.empty() ? std::string{} : BaseName(target)};
        if (m_operations == m_cut_at) {
            m_off = true;
            m_cut = std::move(event);
            return false;
        }
        m_trace.push_back(std::move(event));
        return true;
    }
    void Written(const std::string& name, size_t bytes)
    {
        const std::lock_guard lock{m_mutex};
        m_files[name].written += bytes;
    }
    // Called before the file's own sync: the directory sync LevelDB's
    // environment does for a MANIFEST comes first, and a change made
    // between the two is then taken to be lost, as it may be.
    void Syncing(const std::string& name)
    {
        const std::lock_guard lock{m_mutex};
        const bool manifest = BaseName(name).starts_with("MANIFEST-");
        if (manifest || (m_new_file_sync_syncs_dir && m_new_files.contains(name))) DirectorySynced(DirName(name));
    }
    void Synced(const std::string& name, uint64_t size)
    {
        const std::lock_guard lock{m_mutex};
        FileState& file = m_files[name];
        file.synced = size;
        file.written = std::max(file.written, size);
    }

    static leveldb::Status Off(const std::string& name) { return leveldb::Status::IOError(name, "the power is off"); }

private:
    struct FileState {
        uint64_t synced{0};
        // Bytes handed to the file system before the power went off.
        uint64_t written{0};
    };
    // One directory change: each path it touched, with what that path
    // durably held before it (nullopt: no file).
    struct Change {
        std::string dir;
        std::vector<std::pair<std::string, std::optional<std::string>>> before;
    };

    void AddChange(std::string dir, std::vector<std::pair<std::string, std::optional<std::string>>> before)
    {
        m_changes.push_back({std::move(dir), std::move(before)});
    }

    void DirectorySynced(const std::string& dir)
    {
        std::erase_if(m_changes, [&](const Change& change) { return change.dir == dir; });
        std::erase_if(m_new_files, [&](const std::string& name) { return DirName(name) == dir; });
    }

    // What survives of `name` if the power goes off now.
    std::optional<std::string> Durable(const std::string& name)
    {
        std::ifstream in{name, std::ios::binary};
        if (!in) return std::nullopt;
        std::ostringstream content;
        content << in.rdbuf();
        std::string bytes = std::move(content).str();
        const std::lock_guard lock{m_mutex};
        if (auto it = m_files.find(name); it != m_files.end() && it->second.synced < bytes.size()) bytes.resize(it->second.synced);
        return bytes;
    }

    const bool m_new_file_sync_syncs_dir;
    mutable std::mutex m_mutex;
    std::condition_variable m_power_changed;
    bool m_armed{false};
    bool m_off{false};
    bool m_hold_tables{false};
    uint64_t m_cut_at{0};
    uint64_t m_operations{0};
    size_t m_logs_created{0};
    size_t m_logs_removed{0};
    std::vector<std::string> m_log_names;
    std::vector<Event> m_trace;
    std::optional<Event> m_cut;
    // Files written through this environment; any other file is durable.
    std::map<std::string, FileState> m_files;
    std::set<std::string> m_new_files;
    std::vector<Change> m_changes;
};

leveldb::Status PowerLossFile::Append(const leveldb::Slice& data)
{
    if (!m_env.Allow(Op::APPEND, m_name)) return PowerLossEnv::Off(m_name);
    leveldb::Status status = m_target->Append(data);
    if (status.ok()) m_env.Written(m_name, data.size());
    return status;
}

leveldb::Status PowerLossFile::Flush()
{
    if (m_env.IsOff()) return PowerLossEnv::Off(m_name);
    return m_target->Flush();
}

leveldb::Status PowerLossFile::Sync()
{
    if (!m_env.Allow(Op::SYNC, m_name)) return PowerLossEnv::Off(m_name);
    m_env.Syncing(m_name);
    leveldb::Status status = m_target->Sync();
    if (!status.ok()) return status;
    uint64_t size = 0;
    if (status = m_env.GetFileSize(m_name, &size); status.ok()) m_env.Synced(m_name, size);
    return status;
}

leveldb::Status PowerLossFile::Close()
{
    // Closed either way, so that no descriptor is left open.
    const leveldb::Status status = m_target->Close();
    if (m_env.IsOff()) return PowerLossEnv::Off(m_name);
    return status;
}

// The power loss is simulated, so the disk's own syncs only cost time: the
// databases live in memory (tmpfs) where there is one.
struct ScratchDir {
    ScratchDir()
    {
        std::error_code ec;
        const fs::path shm{"/dev/shm"};
        const fs::path parent = fs::is_directory(shm, ec) ? shm : fs::temp_directory_path();
        m_path = parent / ("coinsdb_powerloss_" + std::to_string(std::random_device{}()) + std::to_string(std::random_device{}()));
        fs::create_directories(m_path);
    }
    ~ScratchDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    fs::path m_path;
};

// Coins-like records: 'C', a 32-byte id whose first 4 bytes are a
// big-endian number (so keys sort as their numbers), and a value of a few
// dozen bytes.
constexpr unsigned char KEY_PREFIX = 'C';
constexpr size_t KEY_SIZE = 33;

struct CoinKey {
    uint32_t n;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        std::array<unsigned char, KEY_SIZE> bytes;
        bytes[0] = KEY_PREFIX;
        for (size_t i = 0; i < 4; ++i) bytes[1 + i] = static_cast<unsigned char>(n >> (24 - 8 * i));
        for (size_t i = 5; i < KEY_SIZE; ++i) bytes[i] = static_cast<unsigned char>(n * 2654435761u >> (i % 4 * 8));
        s.write(std::as_bytes(std::span{bytes}));
    }
};

using Value = std::vector<unsigned char>;
using Model = std::map<uint32_t, Value>;

constexpr size_t CACHE_BYTES = 1 << 20; // a 256 KiB write buffer: big batches switch memtables
// Stored keys are below this number; an ingested run goes above it.
constexpr uint32_t RUN_START = 100'000;

DBParams Params(const fs::path& path, leveldb::Env* env = nullptr)
{
    return DBParams{.path = path, .cache_bytes = CACHE_BYTES, .options = {.base_env_for_tests = env}};
}

Value RandomValue(TestRand& rng)
{
    Value value(10 + rng.Below(50));
    for (auto& byte : value) byte = static_cast<unsigned char>(rng.Next());
    return value;
}

// Every record of the database, by a full scan, which checks every block's
// checksum; a record that is not one of ours fails the test.
Model ReadAll(const CDBWrapper& db)
{
    Model model;
    auto it = db.NewIterator();
    size_t others = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const auto key = it->RawKey();
        if (key.size() != KEY_SIZE || key[0] != std::byte{KEY_PREFIX}) {
            ++others;
            continue;
        }
        uint32_t n = 0;
        for (size_t i = 1; i <= 4; ++i) n = n << 8 | std::to_integer<uint32_t>(key[i]);
        Value value;
        BOOST_REQUIRE(it->GetValue(value));
        model[n] = std::move(value);
    }
    // The obfuscation key.
    BOOST_CHECK_EQUAL(others, 1U);
    return model;
}

// A closed database at `path` holding a few hundred records, some in
// tables and some only in LevelDB's log, the last write synced.
Model WriteBase(const fs::path& path, TestRand& rng)
{
    Model model;
    CDBWrapper db{Params(path)};
    const size_t writes = 1 + rng.Below(3);
    for (size_t w = 0; w < writes; ++w) {
        CDBBatch batch{db};
        for (size_t i = 0, count = 20 + rng.Below(200); i < count; ++i) {
            const uint32_t n = rng.Below(RUN_START);
            const Value value = RandomValue(rng);
            batch.Write(CoinKey{n}, value);
            model[n] = value;
        }
        db.WriteBatch(batch, /*sync=*/w + 1 == writes);
        if (rng.OneIn(3)) db.CompactFull();
    }
    return model;
}

uint64_t SeedFromEnvironment()
{
    if (const char* seed = std::getenv("POWERLOSS_SEED"); seed && *seed) return std::stoull(seed);
    return std::random_device{}() | uint64_t{std::random_device{}()} << 32;
}

size_t IterationsFromEnvironment(size_t fallback)
{
    if (const char* count = std::getenv("POWERLOSS_ITERATIONS"); count && *count) return std::stoull(count);
    return fallback;
}

size_t IngestFilesIn(const fs::path& path)
{
    size_t count = 0;
    for (const auto& entry : fs::directory_iterator{path}) count += dbwrapper_ingest::IsIngestFileName(entry.path().filename().string());
    return count;
}

std::string Describe(const std::optional<Event>& cut)
{
    if (!cut) return "no cut";
    return std::string{OpName(cut->op)} + " " + cut->name + (cut->target.empty() ? "" : " -> " + cut->target);
}

// Opens the database as found after the loss, with the file system alone,
// and returns what it holds; a full compaction must keep all of it. Every
// key of `probe` is also read on its own, which checks the bloom filters
// and indexes a scan does not use.
Model Recover(const fs::path& path, const Model& probe)
{
    CDBWrapper db{Params(path)};
    const Model found = ReadAll(db);
    for (const auto& [n, unused] : probe) {
        Value value;
        const bool present = db.Read(CoinKey{n}, value);
        const auto it = found.find(n);
        BOOST_CHECK_MESSAGE(present == (it != found.end()) && (!present || value == it->second),
                            "key " << n << " reads otherwise than the scan found it");
    }
    db.CompactFull();
    BOOST_CHECK_MESSAGE(ReadAll(db) == found, "a full compaction changed the records");
    BOOST_CHECK_EQUAL(IngestFilesIn(path), 0U);
    return found;
}

// A run of key-ordered batches above every stored key, each ingested.
struct Run {
    std::vector<Model> batches;
};

Run MakeRun(TestRand& rng)
{
    Run run;
    uint32_t next = RUN_START + rng.Below(100);
    for (size_t b = 0, count = 1 + rng.Below(4); b < count; ++b) {
        // Now and then big enough for IngestBatch to build it in two parts.
        const size_t records = rng.OneIn(4) ? 4096 + rng.Below(1000) : 1 + rng.Below(800);
        Model& batch = run.batches.emplace_back();
        for (size_t i = 0; i < records; ++i) {
            next += 1 + rng.Below(3);
            batch[next] = RandomValue(rng);
        }
    }
    return run;
}

// Ingests the run; true when CommitIngest returned true. Throws where the
// power went off.
bool IngestRun(CDBWrapper& db, const Run& run)
{
    CDBBatch batch{db};
    for (const Model& records : run.batches) {
        for (const auto& [n, value] : records) batch.Write(CoinKey{n}, value);
        db.IngestBatch(batch);
    }
    return db.CommitIngest();
}

// Batches of writes and erases over the stored keys and new ones, written
// through the log as txdb writes a flush; models[i] is the state after the
// first i batches.
struct Writes {
    std::vector<std::vector<std::pair<uint32_t, std::optional<Value>>>> batches;
    std::vector<Model> models;
};

Writes MakeWrites(const Model& base, TestRand& rng)
{
    Writes writes;
    writes.models.push_back(base);
    std::vector<uint32_t> keys;
    for (const auto& [n, value] : base) keys.push_back(n);
    for (size_t b = 0, count = 2 + rng.Below(5); b < count; ++b) {
        auto& batch = writes.batches.emplace_back();
        Model model = writes.models.back();
        // Now and then enough to fill LevelDB's write buffer and make it
        // switch to a new log while the batches go on.
        const size_t records = rng.OneIn(5) ? 3000 + rng.Below(2000) : 1 + rng.Below(300);
        for (size_t i = 0; i < records; ++i) {
            const uint32_t n = keys.empty() || rng.OneIn(3) ? rng.Below(RUN_START) : keys[rng.Below(keys.size())];
            if (rng.OneIn(4)) {
                batch.emplace_back(n, std::nullopt);
                model.erase(n);
            } else {
                Value value = RandomValue(rng);
                batch.emplace_back(n, value);
                model[n] = std::move(value);
                keys.push_back(n);
            }
        }
        writes.models.push_back(std::move(model));
    }
    return writes;
}

// Writes the batches, the last one synced with `sync_last`; true when the
// last one returned. `logs[b]` counts the log files created up to batch b's
// write (PowerLossEnv's count), for every batch that may have reached one.
bool WriteThroughLog(CDBWrapper& db, const Writes& writes, const PowerLossEnv& env, std::vector<size_t>& logs, bool sync_last)
{
    CDBBatch batch{db};
    logs.clear();
    for (size_t b = 0; b < writes.batches.size(); ++b) {
        batch.Clear();
        for (const auto& [n, value] : writes.batches[b]) {
            if (value) {
                batch.Write(CoinKey{n}, *value);
            } else {
                batch.Erase(CoinKey{n});
            }
        }
        // A batch that throws may still have reached its log whole (the
        // sync failed, not the append).
        try {
            db.WriteBatch(batch, /*sync=*/sync_last && b + 1 == writes.batches.size());
        } catch (const dbwrapper_error&) {
            logs.push_back(env.LogsCreated());
            throw;
        }
        logs.push_back(env.LogsCreated());
    }
    return true;
}

// One batch of `count` random records from key `first` on, also put in
// `expected`.
void WriteRecords(CDBWrapper& db, TestRand& rng, Model& expected, uint32_t first, uint32_t count, bool sync)
{
    CDBBatch batch{db};
    for (uint32_t n = first; n < first + count; ++n) {
        const Value value = RandomValue(rng);
        batch.Write(CoinKey{n}, value);
        expected[n] = value;
    }
    db.WriteBatch(batch, sync);
}

// How many of the first batches must be found after the loss: all of them
// when the last write was synced and returned, else those written to a log
// LevelDB deleted (`removed` of them, oldest first, counting the one written
// to when the batches began as 0), since it deletes a log only once the
// memtable it fed is in a synced table that a synced MANIFEST names.
size_t DurableBatches(const Writes& writes, const std::vector<size_t>& logs, size_t removed, bool synced)
{
    if (synced) return writes.batches.size();
    size_t durable = 0;
    while (durable < logs.size() && logs[durable] < removed) ++durable;
    return durable;
}

bool Contains(const std::vector<Event>& trace, Op op, std::string_view target = {})
{
    for (const Event& event : trace) {
        if (event.op == op && (target.empty() || event.target == target)) return true;
    }
    return false;
}

// The same database at a second path, for a dry run that counts the
// operations of the flush.
void CopyDatabase(const fs::path& from, const fs::path& to)
{
    fs::remove_all(to);
    fs::copy(from, to, fs::copy_options::recursive);
}

// A directed case's setup: a closed database holding WriteBase's records
// (`expected`, which the case extends), under a PowerLossEnv.
struct DirectedCase {
    DirectedCase(uint64_t seed, bool new_file_sync_syncs_dir)
        : rng{seed}, path{tmp.m_path / "db"}, expected{WriteBase(path, rng)}, env{new_file_sync_syncs_dir} {}
    TestRand rng;
    ScratchDir tmp;
    fs::path path;
    Model expected;
    PowerLossEnv env;
};

} // namespace

BOOST_AUTO_TEST_SUITE(dbwrapper_powerloss_tests)

BOOST_AUTO_TEST_CASE(power_loss_while_ingesting, *boost::unit_test::precondition(IngestAvailable))
{
    const uint64_t seed = SeedFromEnvironment();
    const size_t iterations = IterationsFromEnvironment(100);
    BOOST_TEST_MESSAGE("power_loss_while_ingesting: POWERLOSS_SEED=" << seed << ", " << iterations << " iterations");
    TestRand rng{seed};
    ScratchDir tmp;
    // Where the power went off, and what the database held after.
    size_t during_tables = 0, syncing_tables = 0, renaming = 0, before_current = 0, after_current = 0, no_cut = 0;
    size_t old_state = 0, new_state = 0, committed_then_lost = 0, strict = 0, pending_undone = 0;

    for (size_t iteration = 0; iteration < iterations; ++iteration) {
        const fs::path path = tmp.m_path / "db";
        const fs::path dry = tmp.m_path / "dry";
        fs::remove_all(path);
        const Model old_model = WriteBase(path, rng);
        const Run run = MakeRun(rng);
        Model new_model = old_model;
        for (const Model& batch : run.batches) new_model.insert(batch.begin(), batch.end());

        CopyDatabase(path, dry);
        uint64_t operations = 0;
        {
            PowerLossEnv env{/*new_file_sync_syncs_dir=*/false};
            CDBWrapper db{Params(dry, &env)};
            env.Arm(/*cut_at=*/0);
            BOOST_REQUIRE_MESSAGE(IngestRun(db, run), "the dry run fell back to the log (" << iteration << ")");
            operations = env.Operations();
        }

        // The install syncs what it needs itself: it must hold whether or
        // not a file's sync also commits its directory.
        const bool syncs_dir = rng.Bool();
        const bool keep_unsynced = rng.Bool();
        strict += !syncs_dir;
        PowerLossEnv env{syncs_dir};
        bool committed = false;
        {
            CDBWrapper db{Params(path, &env)};
            // A quarter of the losses come after the flush, so that a run
            // CommitIngest returned is often there to lose.
            env.Arm(/*cut_at=*/rng.OneIn(4) ? operations + 1 : 1 + rng.Below(operations + 1));
            try {
                committed = IngestRun(db, run);
            } catch (const dbwrapper_error&) {
                BOOST_REQUIRE(env.IsOff());
            }
        }
        const auto loss = env.PowerLoss(rng, keep_unsynced);
        pending_undone += loss.changes_undone > 0;

        const auto& cut = env.CutOperation();
        const auto& trace = env.Trace();
        const bool current_renamed = Contains(trace, Op::RENAME, "CURRENT");
        if (!cut) {
            ++no_cut;
        } else if (current_renamed) {
            ++after_current;
        } else {
            ++before_current;
            const bool tables_renamed = Contains(trace, Op::RENAME);
            const bool ingest_file = dbwrapper_ingest::IsIngestFileName(cut->name);
            if (tables_renamed) {
                ++renaming;
            } else if (ingest_file && cut->op == Op::SYNC) {
                ++syncing_tables;
            } else if (ingest_file) {
                ++during_tables;
            }
        }

        const std::string where = "iteration " + std::to_string(iteration) + " (POWERLOSS_SEED=" + std::to_string(seed) + "), cut at " +
                                  Describe(cut) + " after " + std::to_string(trace.size()) + " of " + std::to_string(operations) +
                                  " operations, " + std::to_string(loss.changes_undone) + " of " + std::to_string(loss.changes_pending) +
                                  " directory changes undone";
        Model found;
        try {
            found = Recover(path, new_model);
        } catch (const dbwrapper_error& e) {
            BOOST_FAIL("the database does not open or read after a power loss, " << where << ": " << e.what());
        }
        if (found == old_model) {
            ++old_state;
            BOOST_CHECK_MESSAGE(!committed, "a committed run was lost, " << where);
            committed_then_lost += committed;
        } else if (found == new_model) {
            ++new_state;
        } else {
            BOOST_ERROR("neither the old state nor the new one (" << found.size() << " records, old " << old_model.size()
                                                                  << ", new " << new_model.size() << "), " << where);
        }
    }
    fs::remove_all(tmp.m_path / "dry");

    BOOST_TEST_MESSAGE("power_loss_while_ingesting: cut while the tables were written " << during_tables << ", while they were synced "
                       << syncing_tables << ", while they were renamed and the MANIFEST written " << renaming
                       << ", before the CURRENT switch (all of those) " << before_current << ", after it " << after_current
                       << ", never " << no_cut << "; came back old " << old_state << ", new " << new_state
                       << "; strict directory model " << strict << ", directory changes undone " << pending_undone);
    // Otherwise the test would pass without testing: every class of cut
    // and both outcomes must have happened (likely enough to assert from
    // the default count on).
    if (iterations >= 100) {
        BOOST_CHECK_GT(during_tables, 0U);
        BOOST_CHECK_GT(renaming, 0U);
        BOOST_CHECK_GT(before_current, 0U);
        BOOST_CHECK_GT(after_current, 0U);
        BOOST_CHECK_GT(old_state, 0U);
        BOOST_CHECK_GT(new_state, 0U);
        BOOST_CHECK_GT(pending_undone, 0U);
    }
    BOOST_CHECK_GT(no_cut, 0U);
    BOOST_CHECK_EQUAL(committed_then_lost, 0U);
}

BOOST_AUTO_TEST_CASE(power_loss_while_writing_the_log)
{
    const uint64_t seed = SeedFromEnvironment();
    const size_t iterations = IterationsFromEnvironment(100);
    BOOST_TEST_MESSAGE("power_loss_while_writing_the_log: POWERLOSS_SEED=" << seed << ", " << iterations << " iterations");
    TestRand rng{seed};
    // txdb syncs none of a flush's batches; here the last one is synced in
    // about half the runs. Drawn from a generator of its own, so that a
    // seed gives the writes and cuts it gave before there was a choice.
    TestRand sync_rng{seed + 1};
    ScratchDir tmp;
    size_t acknowledged = 0, unacknowledged = 0, none_kept = 0, some_kept = 0, all_kept = 0, kept_by_table = 0, switched_logs = 0;

    for (size_t iteration = 0; iteration < iterations; ++iteration) {
        const fs::path path = tmp.m_path / "db";
        const fs::path dry = tmp.m_path / "dry";
        fs::remove_all(path);
        const Model old_model = WriteBase(path, rng);
        const Writes writes = MakeWrites(old_model, rng);
        const bool sync_last = sync_rng.Bool();

        CopyDatabase(path, dry);
        uint64_t operations = 0;
        {
            PowerLossEnv env{/*new_file_sync_syncs_dir=*/true};
            CDBWrapper db{Params(dry, &env)};
            env.Arm(/*cut_at=*/0);
            std::vector<size_t> logs;
            WriteThroughLog(db, writes, env, logs, sync_last);
            operations = env.Operations();
        }

        // LevelDB's log relies on a synced new file being in its directory
        // (see PowerLossEnv).
        PowerLossEnv env{/*new_file_sync_syncs_dir=*/true};
        const bool keep_unsynced = rng.Bool();
        bool returned = false;
        std::vector<size_t> logs;
        {
            CDBWrapper db{Params(path, &env)};
            // The last write is among the last operations: a quarter of
            // the losses come after the flush, so that it returned often.
            env.Arm(/*cut_at=*/rng.OneIn(4) ? operations + 1 : 1 + rng.Below(operations + 1));
            try {
                returned = WriteThroughLog(db, writes, env, logs, sync_last);
            } catch (const dbwrapper_error&) {
                BOOST_REQUIRE(env.IsOff());
            }
        }
        const bool synced = sync_last && returned;
        const auto loss = env.PowerLoss(rng, keep_unsynced);
        switched_logs += !logs.empty() && logs.back() > 0;
        const std::string where = "iteration " + std::to_string(iteration) + " (POWERLOSS_SEED=" + std::to_string(seed) + "), " +
                                  (sync_last ? "last batch synced" : "no batch synced") + ", cut at " +
                                  Describe(env.CutOperation()) + " after " + std::to_string(env.Trace().size()) + " of " +
                                  std::to_string(operations) + " operations, " + std::to_string(loss.files_cut) + " files cut, " +
                                  std::to_string(loss.changes_undone) + " of " + std::to_string(loss.changes_pending) +
                                  " directory changes undone";
        Model found;
        try {
            Model probe;
            for (const Model& model : writes.models) probe.insert(model.begin(), model.end());
            found = Recover(path, probe);
        } catch (const dbwrapper_error& e) {
            BOOST_FAIL("the database does not open or read after a power loss, " << where << ": " << e.what());
        }
        // The batches found must be a prefix of those that may have
        // reached a log (the one whose write threw too), and no shorter
        // than the durable ones. Two prefixes can leave the same state.
        const size_t durable = DurableBatches(writes, logs, env.LogsRemoved(), synced);
        std::optional<size_t> prefix;
        for (size_t i = durable; i <= logs.size(); ++i) {
            if (writes.models[i] == found) prefix = i;
        }
        BOOST_CHECK_MESSAGE(prefix, "not a prefix of the batches, or one without a batch that was durable (" << found.size() << " records, "
                                                                                                             << durable << " of " << writes.batches.size() << " batches durable), " << where);
        synced ? ++acknowledged : ++unacknowledged;
        kept_by_table += !synced && durable > 0;
        if (!prefix) continue;
        if (prefix == 0) {
            ++none_kept;
        } else if (prefix == writes.batches.size()) {
            ++all_kept;
        } else {
            ++some_kept;
        }
    }
    fs::remove_all(tmp.m_path / "dry");

    BOOST_TEST_MESSAGE("power_loss_while_writing_the_log: synced write returned " << acknowledged << ", not " << unacknowledged
                                                                                  << "; came back with no batch " << none_kept << ", some " << some_kept << ", all " << all_kept
                                                                                  << "; switched to a new log " << switched_logs << ", batches durable by their table alone " << kept_by_table);
    if (iterations >= 100) {
        BOOST_CHECK_GT(acknowledged, 0U);
        BOOST_CHECK_GT(unacknowledged, 0U);
        BOOST_CHECK_GT(none_kept, 0U);
        BOOST_CHECK_GT(some_kept, 0U);
        BOOST_CHECK_GT(switched_logs, 0U);
        BOOST_CHECK_GT(kept_by_table, 0U);
    }
}

BOOST_AUTO_TEST_CASE(power_loss_keeps_writes_in_order_across_a_log_switch)
{
    // An unsynced write fills LevelDB's memtable; the next write, synced,
    // goes into a new log. LevelDB left the first log without a sync, and
    // the memtable's table that would make the first write durable is never
    // written here (its creation waits for the power to go off). What keeps
    // the first write is the log order layer alone: without it the database
    // came back with the second write and not the first.
    DirectedCase c{/*seed=*/34, /*new_file_sync_syncs_dir=*/true};
    {
        CDBWrapper db{Params(c.path, &c.env)};
        c.env.HoldTables();
        c.env.Arm(/*cut_at=*/0);
        // Past the 256 KiB write buffer.
        WriteRecords(db, c.rng, c.expected, RUN_START, 5000, /*sync=*/false);
        BOOST_REQUIRE_EQUAL(c.env.LogsCreated(), 0U);
        WriteRecords(db, c.rng, c.expected, RUN_START + 10'000, 1, /*sync=*/true);
        BOOST_REQUIRE_EQUAL(c.env.LogsCreated(), 1U);
        c.env.PowerOff();
    }
    c.env.PowerLoss(c.rng, /*keep_unsynced=*/false);
    const Model found = Recover(c.path, c.expected);
    BOOST_CHECK_MESSAGE(found == c.expected, "found " << found.size() << " records, expected " << c.expected.size()
                                                      << (found.contains(RUN_START + 10'000) && !found.contains(RUN_START) ? ": the synced write without the one before it" : ""));
}

BOOST_AUTO_TEST_CASE(a_new_log_waits_for_the_table_of_the_one_before)
{
    // An unsynced write fills LevelDB's memtable; the next, unsynced too,
    // goes into a new log. While the first memtable cannot become a table
    // (its creation is held back), the second write's bytes stay in the
    // process and the first log is not synced: neither log reaches the disk
    // out of order, and the first never has to (its bytes go to the table).
    // Once the table is written and the first log deleted, the held bytes
    // are handed on, still with no sync of the first log. Then the same
    // again with ReleaseHeldWrites not waiting: it syncs the log before.
    DirectedCase c{/*seed=*/36, /*new_file_sync_syncs_dir=*/true};
    {
        CDBWrapper db{Params(c.path, &c.env)};
        for (const bool wait : {true, false}) {
            const uint32_t base = wait ? RUN_START : RUN_START + 20'000;
            // Let the memtable of the writes before become a table first.
            db.FlushMemtable();
            db.ReleaseHeldWrites();
            c.env.HoldTables();
            const size_t logs_before = c.env.LogNames().size();
            WriteRecords(db, c.rng, c.expected, base, 5000, /*sync=*/false); // past the 256 KiB write buffer
            WriteRecords(db, c.rng, c.expected, base + 10'000, 10, /*sync=*/false);
            const std::vector<std::string> logs = c.env.LogNames();
            BOOST_REQUIRE_EQUAL(logs.size(), logs_before + 1);
            const std::string& left = logs[logs.size() - 2];
            const std::string& held = logs.back();
            BOOST_CHECK_EQUAL(c.env.WrittenAndSynced(held).first, 0U);
            BOOST_CHECK_GT(c.env.WrittenAndSynced(left).first, 0U);
            BOOST_CHECK_EQUAL(c.env.WrittenAndSynced(left).second, 0U);
            if (wait) {
                c.env.ReleaseTables();
                db.ReleaseHeldWrites();
                // Never synced: its records went into the table.
                BOOST_CHECK_EQUAL(c.env.WrittenAndSynced(left).second, 0U);
            } else {
                db.ReleaseHeldWrites(std::chrono::milliseconds{0});
                BOOST_CHECK_GT(c.env.WrittenAndSynced(left).second, 0U);
                c.env.ReleaseTables();
            }
            BOOST_CHECK_GT(c.env.WrittenAndSynced(held).first, 0U);
        }
    }
    BOOST_CHECK(Recover(c.path, c.expected) == c.expected);
}

BOOST_AUTO_TEST_CASE(power_loss_after_a_commit_keeps_the_log_writes_before_it, *boost::unit_test::precondition(IngestAvailable))
{
    // A flush that writes a batch through the log and then ingests a run,
    // nothing synced but by the commit: once CommitIngest returned, the
    // logged batch is durable too. The commit flushes LevelDB's memtable
    // into a synced table (and the log order layer syncs the log it
    // leaves) before the run's MANIFEST is written, so the run never
    // reaches the disk without the writes before it.
    DirectedCase c{/*seed=*/35, /*new_file_sync_syncs_dir=*/false};
    {
        CDBWrapper db{Params(c.path, &c.env)};
        c.env.Arm(/*cut_at=*/0);
        CDBBatch logged{db};
        for (size_t i = 0; i < 200; ++i) {
            const uint32_t n = c.rng.Below(RUN_START);
            const Value value = RandomValue(c.rng);
            logged.Write(CoinKey{n}, value);
            c.expected[n] = value;
        }
        db.WriteBatch(logged, /*sync=*/false);
        const Run run = MakeRun(c.rng);
        for (const Model& batch : run.batches) c.expected.insert(batch.begin(), batch.end());
        BOOST_REQUIRE(IngestRun(db, run));
        c.env.PowerOff();
    }
    c.env.PowerLoss(c.rng, /*keep_unsynced=*/false);
    const Model found = Recover(c.path, c.expected);
    BOOST_CHECK_MESSAGE(found == c.expected, "found " << found.size() << " records, expected " << c.expected.size());
}

BOOST_AUTO_TEST_SUITE_END()
