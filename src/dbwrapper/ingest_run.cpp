#include <dbwrapper/ingest_run.h>

#include <dbwrapper.h>
#include <dbwrapper/ingest.h>
#include <util/log.h>

#include <leveldb/db.h>
#include <leveldb/options.h>
#include <leveldb/slice.h>
#include <leveldb/status.h>
#include <leveldb/write_batch.h>

#include <future>
#include <vector>

namespace dbwrapper_ingest {
namespace {

// A batch of at least this many records is built into tables in this many
// parts at once (IngestRun::Add). Three parts measured no faster
// than two on the 2-core machine: 15.2 s and 15.5 s against 14.1 s and
// 15.3 s for a 60M flush, alternating.
constexpr size_t INGEST_SPLIT_RECORDS = 4096;
constexpr size_t INGEST_PARTS = 2;

} // namespace

IngestRun::IngestRun(Database& db, const leveldb::Options& options, std::string path, bool memory_only, std::string name,
                     std::optional<std::string>& write_failure, bool tables_by_leveldb)
    : m_db{db}, m_options{options}, m_path{std::move(path)}, m_memory_only{memory_only}, m_name{std::move(name)},
      m_write_failure{write_failure}, m_tables_by_leveldb{tables_by_leveldb}, m_off{IngestUnavailable()}
{
    if (m_off && !m_memory_only) LogInfo("{}: bulk loads write through LevelDB's log: {}", m_name, *m_off);
    if (m_tables_by_leveldb && !m_off) LogInfo("{}: ingested tables are built by LevelDB's TableBuilder (-ingesttablebuilder)", m_name);
    // Tables a crash left unregistered; a memory environment starts empty.
    if (!m_memory_only) RemoveLeftoverRuns(m_options.env, m_path);
}

IngestRun::~IngestRun() = default;

std::unique_ptr<TableRunWriter> IngestRun::NewWriter() const
{
    return std::make_unique<TableRunWriter>(m_options.env, m_path, m_options.comparator, m_options.filter_policy, m_options.max_file_size,
                                            m_tables_by_leveldb);
}

bool IngestRun::Accepts(std::string_view first_key) const
{
    if (m_write_failure || m_off) return false;
    return !m_run || m_run->KeyFits(first_key);
}

void IngestRun::Add(size_t count, const WriteRecords& write)
{
    if (!m_run) m_run = NewWriter();
    // Building tables costs more than filling the batch, so a big batch is
    // built in parts at once, each into files of its own: the keys rise,
    // so each part's files follow the part before. With the thread that
    // fills the next batch, that keeps both cores busy while a part's
    // builder waits for the disk.
    const size_t parts = count >= INGEST_SPLIT_RECORDS ? INGEST_PARTS : 1;
    std::vector<std::unique_ptr<TableRunWriter>> writers;
    for (size_t i = 0; i < parts; ++i) writers.push_back(NewWriter());
    const auto build = [&](size_t part) {
        const size_t begin = count * part / parts;
        const size_t end = count * (part + 1) / parts;
        TableRunWriter& writer = *writers[part];
        if (leveldb::Status status = write(writer, begin, end); !status.ok()) return status;
        return writer.Finish();
    };
    std::vector<std::future<leveldb::Status>> others;
    for (size_t part = 1; part < parts; ++part) others.push_back(std::async(std::launch::async, build, part));
    leveldb::Status status = build(0);
    for (auto& other : others) {
        const leveldb::Status other_status = other.get();
        if (status.ok()) status = other_status;
    }
    if (!status.ok()) Fail(status);
    for (auto& writer : writers) m_run->Adopt(*writer);
}

void IngestRun::Fail(const leveldb::Status& status)
{
    m_run.reset();
    m_write_failure = status.ToString();
    const std::string message = "Fatal LevelDB error in " + m_name + ": " + status.ToString();
    LogError("{}", message);
    throw dbwrapper_error(message);
}

bool IngestRun::Commit()
{
    if (!m_run) return false;
    if (m_write_failure) {
        m_run.reset();
        throw dbwrapper_error("Refusing to write to " + m_name + " after a failed write: " + *m_write_failure);
    }
    if (leveldb::Status status = m_run->Finish(); !status.ok()) Fail(status);
    // What LevelDB holds in its memtable goes into a table first, so that
    // the MANIFEST names every key the database has. An empty range is
    // compacted at no level.
    const leveldb::Slice nothing{};
    m_db.Db().CompactRange(&nothing, &nothing);
    m_db.WaitForCompactions();
    std::optional<InstallResult> result;
    std::string unexpected;
    leveldb::Status status;
    const size_t files = m_run->Files().size();
    if (!m_db.IteratorsOpen()) {
        m_db.Close();
        status = InstallTables(m_options.env, m_path, m_options.comparator, *m_run,
                               /*sync_dir=*/!m_memory_only, result.emplace(), unexpected);
        // Whatever happened, the database must be open again: a failure
        // left it as it was.
        if (const leveldb::Status reopened = m_db.Reopen(); !reopened.ok()) Fail(reopened);
    }
    if (!status.ok()) Fail(status);
    if (result == InstallResult::INSTALLED) {
        m_installed_files += files;
        m_run.reset();
        return true;
    }
    if (!result) {
        WriteThroughLog("an iterator is open");
    } else if (*result == InstallResult::UNEXPECTED_MANIFEST) {
        // It will not read better at the next flush: LevelDB's own write
        // path from now on, and the database is left to LevelDB alone.
        m_off = std::string{Describe(*result)} + " (" + unexpected + ")";
        WriteThroughLog(*m_off + "; ingestion is off from now on");
    } else {
        WriteThroughLog(Describe(*result));
    }
    return false;
}

void IngestRun::WriteThroughLog(std::string_view why)
{
    LogInfo("{}: {}: writing a run of table files through LevelDB's log instead", m_name, why);
    const leveldb::WriteOptions write_options;
    leveldb::WriteBatch chunk;
    leveldb::Status written;
    const leveldb::Status read = m_run->ForEachRecord([&](uint8_t type, std::string_view key, std::string_view value) {
        if (!written.ok()) return;
        if (type == TYPE_VALUE) {
            chunk.Put(leveldb::Slice{key.data(), key.size()}, leveldb::Slice{value.data(), value.size()});
        } else {
            chunk.Delete(leveldb::Slice{key.data(), key.size()});
        }
        if (chunk.ApproximateSize() < m_options.write_buffer_size) return;
        written = m_db.Db().Write(write_options, &chunk);
        chunk.Clear();
    });
    if (written.ok()) written = read;
    if (written.ok()) written = m_db.Db().Write(write_options, &chunk);
    if (!written.ok()) Fail(written);
    m_run.reset();
}

void IngestRun::Discard() { m_run.reset(); }

} // namespace dbwrapper_ingest
