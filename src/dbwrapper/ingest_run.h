#ifndef COINSDB_DBWRAPPER_INGEST_RUN_H
#define COINSDB_DBWRAPPER_INGEST_RUN_H

// For dbwrapper.cpp only: a bulk load's run of batches, from the first
// batch added to its commit or discard. CDBWrapper's CanIngest,
// IngestBatch, CommitIngest and DiscardIngest forward here. The files
// themselves and their installation are dbwrapper/ingest.h's; this class
// decides when a batch may join, builds a big batch in parts at once, and
// at a commit either hands the run to the database or, when the database
// cannot take it as it is, writes its records through LevelDB's log.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace leveldb {
class DB;
struct Options;
class Status;
} // namespace leveldb

namespace dbwrapper_ingest {

class TableRunWriter;

class IngestRun
{
public:
    // The database a run joins. CDBWrapper owns it; a commit closes it and
    // opens it again.
    class Database
    {
    public:
        virtual ~Database() = default;
        // The open database; throws dbwrapper_error when it is closed
        // (it failed to open again after a commit).
        virtual leveldb::DB& Db() = 0;
        virtual void Close() = 0;
        virtual leveldb::Status Reopen() = 0;
        // Waits for the compactions CDBWrapper::CompactFullAsync started.
        virtual void WaitForCompactions() = 0;
        virtual bool IteratorsOpen() const = 0;
    };

    // Writes records [begin, end) of the batch being added into `writer`,
    // in key order.
    using WriteRecords = std::function<leveldb::Status(TableRunWriter& writer, size_t begin, size_t end)>;

    // `options` (the database's environment, comparator, filter and file
    // sizes) must outlive the run. `write_failure` is CDBWrapper's latch:
    // a run refuses to grow or commit once it is set, and sets it when a
    // file of the run cannot be written. `name` is for messages.
    // `tables_by_leveldb`: DBOptions::tables_by_leveldb.
    IngestRun(Database& db, const leveldb::Options& options, std::string path, bool memory_only, std::string name,
              std::optional<std::string>& write_failure, bool tables_by_leveldb);
    // Deletes the files of a run not committed.
    ~IngestRun();
    IngestRun(const IngestRun&) = delete;
    IngestRun& operator=(const IngestRun&) = delete;

    // Why no batch may join, ever: this build's LevelDB was not verified,
    // or a MANIFEST was not as expected. Nullopt while batches may.
    const std::optional<std::string>& Off() const { return m_off; }
    // Whether a batch whose keys rise strictly from `first_key` may join:
    // nothing failed, ingestion is not off, and the key is above the run's.
    bool Accepts(std::string_view first_key) const;
    // Builds a batch of `count` records into the run's files: at once in
    // parts, each into files of its own, when it is big. Throws
    // dbwrapper_error when a file cannot be written, after discarding the
    // run and setting the write failure.
    void Add(size_t count, const WriteRecords& write);
    // See CDBWrapper::CommitIngest.
    bool Commit();
    // Deletes the run's files, if any.
    void Discard();
    // Table files Commit registered since the database opened.
    size_t InstalledFiles() const { return m_installed_files; }

private:
    [[noreturn]] void Fail(const leveldb::Status& status);
    void WriteThroughLog(std::string_view why);
    std::unique_ptr<TableRunWriter> NewWriter() const;

    Database& m_db;
    const leveldb::Options& m_options;
    const std::string m_path;
    const bool m_memory_only;
    const std::string m_name;
    std::optional<std::string>& m_write_failure;
    const bool m_tables_by_leveldb;
    std::optional<std::string> m_off;
    // Table files built by Add and not yet handed to LevelDB.
    std::unique_ptr<TableRunWriter> m_run;
    size_t m_installed_files{0};
};

} // namespace dbwrapper_ingest

#endif // COINSDB_DBWRAPPER_INGEST_RUN_H
