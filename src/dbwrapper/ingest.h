#ifndef COINSDB_DBWRAPPER_INGEST_H
#define COINSDB_DBWRAPPER_INGEST_H

// For dbwrapper.cpp (and its tests) only: a database's files as LevelDB
// 1.23 lays them out, to hand it table files built outside its write path.
//
// Byte formats (LevelDB's own; db/log_format.h, db/version_edit.cc,
// db/dbformat.h in its sources):
//
//   CURRENT        "MANIFEST-" + 6-digit number + "\n": the descriptor in force
//   MANIFEST-nnn   a log file of records, each one version edit
//   log file       32 KiB blocks; each record is cut into fragments
//                  that do not cross a block, each behind a 7-byte header:
//                    fixed32 masked CRC32C of (type, payload)
//                    fixed16 payload length
//                    uint8   type: 1 whole, 2 first, 3 middle, 4 last
//                  a block's tail of under 7 bytes is zeros
//   version edit   fields, each a varint32 tag and its value:
//                    1 comparator name        length-prefixed bytes
//                    2 log number             varint64
//                    3 next file number       varint64
//                    4 last sequence          varint64
//                    5 compact pointer        varint32 level, length-prefixed internal key
//                    6 deleted file           varint32 level, varint64 number
//                    7 new file               varint32 level, varint64 number,
//                                             varint64 size, smallest, largest
//                                             (length-prefixed internal keys)
//                    9 previous log number    varint64
//   internal key   user key + fixed64 little-endian (sequence << 8 | type),
//                  type 1 a value, 0 a deletion
//   masked CRC     ((crc >> 15) | (crc << 17)) + 0xa282ead8, mod 2^32
//
// fixed32/fixed64 are little-endian; varints are LevelDB's, 7 bits a byte,
// low bits first (not serialize.h's VARINT).

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

constexpr int NUM_LEVELS = 7;
constexpr size_t LOG_BLOCK_BYTES = 32768;
constexpr size_t LOG_HEADER_BYTES = 7;
constexpr uint8_t TYPE_DELETION = 0;
constexpr uint8_t TYPE_VALUE = 1;

// CRC-32C (Castagnoli), as LevelDB checksums its logs and blocks: with
// SSE 4.2's instruction where the CPU has it, else a byte at a time.
uint32_t Crc32c(std::string_view data);
// The CRC of what `crc` covers followed by `data`.
uint32_t Crc32cExtend(uint32_t crc, std::string_view data);
uint32_t MaskCrc(uint32_t crc);

// LevelDB's integer encodings: varints, and fixed widths little-endian.
// A varint holds 7 bits a byte, the lowest first, the high bit set on
// every byte but the last; a length (varint32) takes 5 bytes at most.
constexpr size_t MAX_VARINT32_BYTES = 5;
constexpr size_t MAX_VARINT64_BYTES = 10;
inline size_t VarintSize(uint64_t n)
{
    size_t bytes = 1;
    for (; n >= 0x80; n >>= 7) ++bytes;
    return bytes;
}
// Writes `n` at `p`, returns the byte after it. Inline: the batch stager
// and the table writer call it for every record of a flush.
inline char* EncodeVarint(char* p, uint64_t n)
{
    for (; n >= 0x80; n >>= 7) *p++ = static_cast<char>(n | 0x80);
    *p++ = static_cast<char>(n);
    return p;
}
void PutVarint(std::string& out, uint64_t n);
void PutFixed(std::string& out, uint64_t n, size_t bytes);
uint64_t GetFixed64(std::string_view in);

// A user key with the 8-byte tag of sequence number 0 and `type`.
std::string InternalKey(std::string_view user_key, uint8_t type);
std::string_view UserKeyOf(std::string_view internal_key);

struct FileMeta {
    uint64_t number{0};
    uint64_t size{0};
    std::string smallest; // internal keys
    std::string largest;
};

// What a MANIFEST says once all its edits are applied.
struct Descriptor {
    std::optional<std::string> comparator;
    std::optional<uint64_t> log_number;
    std::optional<uint64_t> prev_log_number;
    std::optional<uint64_t> next_file;
    std::optional<uint64_t> last_sequence;
    std::map<int, std::string> compact_pointers;
    std::array<std::map<uint64_t, FileMeta>, NUM_LEVELS> levels;
};

// Applies one encoded edit; false (and `into` partly changed) when it
// does not parse or names a level past the last.
bool ApplyEdit(std::string_view edit, Descriptor& into);
// One edit that, applied to nothing, gives `descriptor`.
std::string EncodeEdit(const Descriptor& descriptor);

// The records of a log file, reassembled; nullopt when a checksum, a
// length or a fragment's type is wrong. A file cut short inside its last
// record is wrong too: a MANIFEST is always whole.
std::optional<std::vector<std::string>> ReadLogRecords(std::string_view file);
// `record` as the whole content of a new log file.
std::string FrameLogRecord(std::string_view record);

std::string TableFileName(uint64_t number);
std::string ManifestFileName(uint64_t number);

enum class InstallResult {
    INSTALLED,
    // The database holds a key in the run's range, or writes LevelDB has
    // not yet turned into tables: nothing was changed.
    REFUSED,
};

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

    TableRunWriter(leveldb::Env* env, std::string dir, const leveldb::Comparator* user_order,
                   const leveldb::FilterPolicy* user_filter, size_t file_bytes);
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
                                         TableRunWriter&, bool, InstallResult&);
    // The run's files now belong to the database: they are not deleted.
    void Release() { m_files.clear(); }
    leveldb::Status OpenFile();

    struct Builder;
    leveldb::Env* m_env;
    std::string m_dir;
    const leveldb::Comparator* m_user_order;
    const leveldb::FilterPolicy* m_user_filter;
    size_t m_file_bytes;
    std::vector<File> m_files;
    std::unique_ptr<Builder> m_builder;
    // The last key added, the run's highest.
    std::string m_internal_key;
};

// Adds the run's files at the deepest level of the closed database in
// `dir`, through a new MANIFEST that CURRENT names once it is synced: a
// crash leaves the database as it was or with the whole run. The files
// are renamed to numbers LevelDB has not used. Anything but a refusal is
// an error status; the database is then as it was, or with the whole run
// if only the directory's sync failed.
leveldb::Status InstallTables(leveldb::Env* env, const std::string& dir, const leveldb::Comparator* user_order,
                              TableRunWriter& run, bool sync_dir, InstallResult& result);

// Deletes the "ingest-N.ldb" files a crash left in `dir`.
void RemoveLeftoverRuns(leveldb::Env* env, const std::string& dir);

} // namespace dbwrapper_ingest

#endif // COINSDB_DBWRAPPER_INGEST_H
