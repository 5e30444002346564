#ifndef COINSDB_DBWRAPPER_INGEST_H
#define COINSDB_DBWRAPPER_INGEST_H

// For dbwrapper.cpp (and its tests) only: a run of table files built
// outside LevelDB's write path, and its installation into a closed
// database. The formats it relies on are in dbwrapper/codec.h.

#include <dbwrapper/codec.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leveldb {
class Comparator;
class Env;
class FilterPolicy;
class Status;
class TableBuilder;
class WritableFile;
} // namespace leveldb

namespace dbwrapper_ingest {

// Why this build never ingests (LevelDB's version is not one whose formats
// were verified: the top CMakeLists.txt), or nullopt.
std::optional<std::string> IngestUnavailable();

// What InstallTables did. Anything but INSTALLED changed nothing, and the
// run's records take LevelDB's own write path instead.
enum class InstallResult {
    INSTALLED,
    // The database holds a key in the run's range: the run's versions of
    // those keys would hide newer ones.
    OVERLAP,
    // Writes LevelDB has not yet turned into tables: a MANIFEST naming the
    // run would not know them.
    UNFLUSHED_LOG,
    // The MANIFEST holds what the codec does not know (an edit tag, a
    // level, another comparator, a framing): written by a LevelDB whose
    // formats were not verified. Ingesting into it could lose the database.
    UNEXPECTED_MANIFEST,
};
// A few words for the log line of a fallback.
std::string_view Describe(InstallResult result);

// A run of table files built from records handed over in strictly
// ascending key order, in the database's directory under names LevelDB
// neither reads nor deletes ("ingest-N.ldb"), each at most about
// `file_bytes`. Every key gets sequence number 0: InstallTables only takes
// a run whose keys the database holds no other version of, so no sequence
// number needs to be newer than another, and every later write is newer.
// Filters are built over user keys under the user filter's name, as
// LevelDB builds them for its own tables.
class TableRunWriter
{
public:
    struct File {
        std::string name; // in the database's directory
        FileMeta meta;    // number is 0 until installed
    };

    // `by_leveldb`: build with leveldb::TableBuilder (NewTableWriter).
    TableRunWriter(leveldb::Env* env, std::string dir, const leveldb::Comparator* user_order,
                   const leveldb::FilterPolicy* user_filter, size_t file_bytes, bool by_leveldb = false);
    // Deletes the files not yet installed.
    ~TableRunWriter();
    TableRunWriter(const TableRunWriter&) = delete;
    TableRunWriter& operator=(const TableRunWriter&) = delete;

    // Keys must rise strictly (the caller checks, with KeyFits).
    leveldb::Status Add(uint8_t type, std::string_view user_key, std::string_view value);
    // Whether `user_key` may come next.
    bool KeyFits(std::string_view user_key) const;
    // Finishes and closes the open file; InstallTables syncs them all.
    leveldb::Status Finish();
    bool Empty() const { return m_files.empty(); }
    const std::vector<File>& Files() const { return m_files; }
    // Deletes every file of the run.
    void Discard();
    // Appends the files of `part`, a run built beside this one from keys
    // above all of this one's; both have finished their files.
    void Adopt(TableRunWriter& part);
    // Hands each record of the finished files to `fn` in key order: type,
    // user key, value.
    leveldb::Status ForEachRecord(const std::function<void(uint8_t, std::string_view, std::string_view)>& fn) const;

private:
    friend leveldb::Status InstallTables(leveldb::Env*, const std::string&, const leveldb::Comparator*,
                                         TableRunWriter&, bool, InstallResult&, std::string&);
    // The run's files now belong to the database: they are not deleted.
    void Release() { m_files.clear(); }
    leveldb::Status OpenFile();

    struct Builder;
    leveldb::Env* m_env;
    std::string m_dir;
    const leveldb::Comparator* m_user_order;
    const leveldb::FilterPolicy* m_user_filter;
    size_t m_file_bytes;
    bool m_by_leveldb;
    std::vector<File> m_files;
    std::unique_ptr<Builder> m_builder;
    // The last key added, the run's highest.
    std::string m_internal_key;
};

// Adds the run's files at the deepest level of the closed database in
// `dir`, through a new MANIFEST that CURRENT names once it is synced: a
// crash leaves the database as it was or with the whole run. The files
// are renamed to numbers LevelDB has not used. A run the database cannot
// take as it is gets a result saying why (and `unexpected` what the
// MANIFEST held) and changes nothing. An I/O error is an error status; the
// database is then as it was, or with the whole run if only the
// directory's sync failed.
leveldb::Status InstallTables(leveldb::Env* env, const std::string& dir, const leveldb::Comparator* user_order,
                              TableRunWriter& run, bool sync_dir, InstallResult& result, std::string& unexpected);

// Deletes the "ingest-N.ldb" files a crash left in `dir`.
void RemoveLeftoverRuns(leveldb::Env* env, const std::string& dir);

} // namespace dbwrapper_ingest

#endif // COINSDB_DBWRAPPER_INGEST_H
