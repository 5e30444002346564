#include <dbwrapper/ingest.h>

#include <dbwrapper/slices.h>
#include <dbwrapper/table_encoder.h>

#include <leveldb/comparator.h>
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/slice.h>
#include <leveldb/status.h>
#include <leveldb/table.h>

#include <algorithm>
#include <cassert>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace dbwrapper_ingest {
namespace {

#if COINSDB_LEVELDB_INGEST_VERIFIED
static_assert(leveldb::kMajorVersion == COINSDB_LEVELDB_MAJOR && leveldb::kMinorVersion == COINSDB_LEVELDB_MINOR,
              "CMake read the version of another LevelDB than the one compiled against");
#endif

// Where a run's tables go. LevelDB spreads a key range over deeper levels
// as it grows; a run is a key range no other file touches, so its place is
// the deepest level, where no size limit ever makes LevelDB rewrite it.
constexpr int INSTALL_LEVEL = NUM_LEVELS - 1;

std::string InDir(const std::string& dir, const std::string& name) { return dir + "/" + name; }

// The 8-byte tag of sequence number 0 and each type, as stored.
constexpr std::array<char, TAG_BYTES> VALUE_TAG{TYPE_VALUE};
constexpr std::array<char, TAG_BYTES> DELETION_TAG{TYPE_DELETION};

leveldb::Status WriteWholeFile(leveldb::Env* env, const std::string& name, std::string_view data)
{
    leveldb::WritableFile* raw = nullptr;
    leveldb::Status status = env->NewWritableFile(name, &raw);
    if (!status.ok()) return status;
    std::unique_ptr<leveldb::WritableFile> file{raw};
    status = file->Append(ToSlice(data));
    if (status.ok()) status = file->Sync();
    if (status.ok()) status = file->Close();
    if (!status.ok()) env->RemoveFile(name);
    return status;
}

leveldb::Status SyncDir(const std::string& dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd < 0) return leveldb::Status::IOError(dir, std::strerror(errno));
    const int rc = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (rc != 0) return leveldb::Status::IOError(dir, std::strerror(error));
    return leveldb::Status::OK();
}

// Reads the MANIFEST in force. An I/O error is the status; a MANIFEST this
// codec does not read as it expects sets `unexpected` to what is wrong.
leveldb::Status ReadDescriptor(leveldb::Env* env, const std::string& dir, const leveldb::Comparator* user_order,
                               Descriptor& descriptor, std::string& unexpected)
{
    std::string current;
    leveldb::Status status = leveldb::ReadFileToString(env, InDir(dir, "CURRENT"), &current);
    if (!status.ok()) return status;
    if (current.size() < 2 || current.back() != '\n' || !current.starts_with("MANIFEST-")) {
        unexpected = "CURRENT does not name a MANIFEST";
        return leveldb::Status::OK();
    }
    current.pop_back();
    std::string manifest;
    status = leveldb::ReadFileToString(env, InDir(dir, current), &manifest);
    if (!status.ok()) return status;
    const auto records = ReadLogRecords(manifest);
    if (!records) {
        unexpected = current + ": a record does not read back";
    } else if (!std::ranges::all_of(*records, [&](const std::string& record) { return ApplyEdit(record, descriptor); })) {
        unexpected = current + ": an edit with an unknown tag or level, or that does not parse";
    } else if (!descriptor.log_number || !descriptor.next_file || !descriptor.last_sequence) {
        unexpected = current + ": log number, next file or last sequence missing";
    } else if (descriptor.comparator != std::string{user_order->Name()}) {
        unexpected = current + ": comparator " + descriptor.comparator.value_or("(none)") + ", not " + user_order->Name();
    }
    return leveldb::Status::OK();
}

// Whether LevelDB holds writes in logs that no table has yet: after a
// memtable compaction the log in force is empty.
bool HasUnflushedLog(leveldb::Env* env, const std::string& dir, const Descriptor& descriptor)
{
    std::vector<std::string> children;
    if (!env->GetChildren(dir, &children).ok()) return true;
    for (const std::string& name : children) {
        unsigned long long number;
        char suffix[8];
        if (std::sscanf(name.c_str(), "%llu.%7s", &number, suffix) != 2 || std::strcmp(suffix, "log") != 0) continue;
        if (number < *descriptor.log_number && number != descriptor.prev_log_number.value_or(0)) continue;
        uint64_t size = 0;
        if (!env->GetFileSize(InDir(dir, name), &size).ok() || size > 0) return true;
    }
    return false;
}

bool OverlapsAnyFile(const leveldb::Comparator* user_order, const Descriptor& descriptor, std::string_view smallest, std::string_view largest)
{
    for (const auto& level : descriptor.levels) {
        for (const auto& [number, file] : level) {
            if (user_order->Compare(ToSlice(UserKeyOf(file.largest)), ToSlice(smallest)) < 0) continue;
            if (user_order->Compare(ToSlice(UserKeyOf(file.smallest)), ToSlice(largest)) > 0) continue;
            return true;
        }
    }
    return false;
}

std::atomic<uint64_t> g_run_file_counter{0};

// Asks the kernel to start writing a closed file's pages out, without
// waiting: by the time the file is synced, most of it is on the disk. A
// file not in the file system (a memory environment) is left alone.
void StartWriteback(const std::string& name)
{
    const int fd = ::open(name.c_str(), O_RDONLY);
    if (fd < 0) return;
    ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    ::close(fd);
}

// Syncs a closed file through the environment, so that whatever the
// environment adds to a sync (a slower device's delay) applies.
leveldb::Status SyncClosedFile(leveldb::Env* env, const std::string& name)
{
    leveldb::WritableFile* raw = nullptr;
    leveldb::Status status = env->NewAppendableFile(name, &raw);
    if (!status.ok()) return status;
    std::unique_ptr<leveldb::WritableFile> file{raw};
    status = file->Sync();
    if (status.ok()) status = file->Close();
    return status;
}

} // namespace

struct TableRunWriter::Builder {
    std::string name;
    std::unique_ptr<leveldb::WritableFile> file;
    std::unique_ptr<TableWriter> table;
    std::string smallest;
};

TableRunWriter::TableRunWriter(leveldb::Env* env, std::string dir, const leveldb::Comparator* user_order,
                               const leveldb::FilterPolicy* user_filter, size_t file_bytes, bool by_leveldb)
    : m_env{env}, m_dir{std::move(dir)}, m_user_order{user_order}, m_user_filter{user_filter}, m_file_bytes{file_bytes},
      m_by_leveldb{by_leveldb} {}

TableRunWriter::~TableRunWriter() { Discard(); }

bool TableRunWriter::KeyFits(std::string_view user_key) const
{
    if (m_internal_key.empty()) return true;
    return m_user_order->Compare(ToSlice(user_key), ToSlice(UserKeyOf(m_internal_key))) > 0;
}

leveldb::Status TableRunWriter::OpenFile()
{
    auto builder = std::make_unique<Builder>();
    builder->name = InDir(m_dir, IngestFileName(++g_run_file_counter));
    leveldb::WritableFile* raw = nullptr;
    leveldb::Status status = m_env->NewWritableFile(builder->name, &raw);
    if (!status.ok()) return status;
    builder->file.reset(raw);
    builder->table = NewTableWriter(raw, m_user_filter, m_user_order, m_by_leveldb);
    m_builder = std::move(builder);
    return status;
}

leveldb::Status TableRunWriter::Add(uint8_t type, std::string_view user_key, std::string_view value)
{
    if (!m_builder) {
        if (leveldb::Status status = OpenFile(); !status.ok()) return status;
    }
    m_internal_key.assign(user_key);
    m_internal_key.append((type == TYPE_VALUE ? VALUE_TAG : DELETION_TAG).data(), TAG_BYTES);
    if (m_builder->smallest.empty()) m_builder->smallest = m_internal_key;
    if (leveldb::Status status = m_builder->table->Add(m_internal_key, value); !status.ok()) return status;
    if (m_builder->table->FileSize() >= m_file_bytes) return Finish();
    return leveldb::Status::OK();
}

leveldb::Status TableRunWriter::Finish()
{
    if (!m_builder) return leveldb::Status::OK();
    std::unique_ptr<Builder> builder = std::move(m_builder);
    leveldb::Status status = builder->table->Finish();
    if (status.ok()) status = builder->file->Close();
    // Synced only at InstallTables, all together: a sync here would stop
    // the building for each file's trip to the disk. The disk starts now.
    if (status.ok()) StartWriteback(builder->name);
    // Listed even when it failed, so that Discard deletes it.
    m_files.push_back({builder->name, {0, builder->table->FileSize(), builder->smallest, m_internal_key}});
    return status;
}

void TableRunWriter::Adopt(TableRunWriter& part)
{
    assert(!m_builder && !part.m_builder);
    for (File& file : part.m_files) m_files.push_back(std::move(file));
    part.m_files.clear();
    if (!part.m_internal_key.empty()) m_internal_key = part.m_internal_key;
}

void TableRunWriter::Discard()
{
    if (m_builder) {
        m_builder->table.reset();
        m_builder->file.reset();
        m_env->RemoveFile(m_builder->name);
        m_builder.reset();
    }
    for (const File& file : m_files) m_env->RemoveFile(file.name);
    m_files.clear();
}

leveldb::Status TableRunWriter::ForEachRecord(const std::function<void(uint8_t, std::string_view, std::string_view)>& fn) const
{
    const std::unique_ptr<leveldb::Comparator> order = NewInternalKeyOrder(m_user_order);
    leveldb::Options options;
    options.comparator = order.get();
    for (const File& file : m_files) {
        leveldb::RandomAccessFile* raw_file = nullptr;
        leveldb::Status status = m_env->NewRandomAccessFile(file.name, &raw_file);
        if (!status.ok()) return status;
        std::unique_ptr<leveldb::RandomAccessFile> source{raw_file};
        leveldb::Table* raw_table = nullptr;
        status = leveldb::Table::Open(options, source.get(), file.meta.size, &raw_table);
        if (!status.ok()) return status;
        std::unique_ptr<leveldb::Table> table{raw_table};
        std::unique_ptr<leveldb::Iterator> it{table->NewIterator(leveldb::ReadOptions{})};
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
            const std::string_view key = ToView(it->key());
            // Sequence number 0: the tag's first byte is the type.
            fn(static_cast<uint8_t>(key[key.size() - TAG_BYTES]), UserKeyOf(key), ToView(it->value()));
        }
        if (!it->status().ok()) return it->status();
    }
    return leveldb::Status::OK();
}

std::optional<std::string> IngestUnavailable()
{
    if (COINSDB_LEVELDB_INGEST_VERIFIED) return std::nullopt;
    return "LevelDB " + std::to_string(COINSDB_LEVELDB_MAJOR) + "." + std::to_string(COINSDB_LEVELDB_MINOR) +
           " is not a version whose file formats were verified for it (CMakeLists.txt)";
}

std::string_view Describe(InstallResult result)
{
    switch (result) {
    case InstallResult::INSTALLED: return "installed";
    case InstallResult::OVERLAP: return "the database holds keys in the run's range";
    case InstallResult::UNFLUSHED_LOG: return "LevelDB's log holds writes no table has";
    case InstallResult::UNEXPECTED_MANIFEST: return "the MANIFEST is not as this build expects";
    }
    return "unknown";
}

leveldb::Status InstallTables(leveldb::Env* env, const std::string& dir, const leveldb::Comparator* user_order,
                              TableRunWriter& run, bool sync_dir, InstallResult& result, std::string& unexpected)
{
    result = InstallResult::OVERLAP;
    if (run.Empty()) return leveldb::Status::OK();
    Descriptor descriptor;
    leveldb::Status status = ReadDescriptor(env, dir, user_order, descriptor, unexpected);
    if (!status.ok()) return status;
    if (!unexpected.empty()) {
        result = InstallResult::UNEXPECTED_MANIFEST;
        return leveldb::Status::OK();
    }
    auto& files = run.m_files;
    if (HasUnflushedLog(env, dir, descriptor)) {
        result = InstallResult::UNFLUSHED_LOG;
        return leveldb::Status::OK();
    }
    if (OverlapsAnyFile(user_order, descriptor, UserKeyOf(files.front().meta.smallest), UserKeyOf(files.back().meta.largest))) {
        return leveldb::Status::OK();
    }
    for (const auto& file : files) {
        status = SyncClosedFile(env, file.name);
        if (!status.ok()) return status;
    }
    uint64_t number = *descriptor.next_file;
    for (auto& file : files) {
        const std::string numbered = InDir(dir, TableFileName(number));
        status = env->RenameFile(file.name, numbered);
        // A renamed file that no MANIFEST names is deleted by LevelDB's
        // next open, as any file it does not know.
        if (!status.ok()) return status;
        file.name = numbered;
        file.meta.number = number++;
        descriptor.levels[INSTALL_LEVEL][file.meta.number] = file.meta;
    }
    const uint64_t manifest_number = number++;
    descriptor.next_file = number;
    const std::string manifest = InDir(dir, ManifestFileName(manifest_number));
    status = WriteWholeFile(env, manifest, FrameLogRecord(EncodeEdit(descriptor)));
    if (!status.ok()) return status;
    const std::string temp = InDir(dir, TempFileName(manifest_number));
    status = WriteWholeFile(env, temp, ManifestFileName(manifest_number) + "\n");
    if (status.ok()) status = env->RenameFile(temp, InDir(dir, "CURRENT"));
    if (!status.ok()) {
        env->RemoveFile(temp);
        env->RemoveFile(manifest);
        return status;
    }
    // From here the database has the run, whatever follows.
    result = InstallResult::INSTALLED;
    run.Release();
    if (sync_dir) return SyncDir(dir);
    return leveldb::Status::OK();
}

void RemoveLeftoverRuns(leveldb::Env* env, const std::string& dir)
{
    std::vector<std::string> children;
    if (!env->GetChildren(dir, &children).ok()) return;
    for (const std::string& name : children) {
        if (IsIngestFileName(name)) env->RemoveFile(InDir(dir, name));
    }
}

} // namespace dbwrapper_ingest
