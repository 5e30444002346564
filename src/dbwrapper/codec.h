#ifndef COINSDB_DBWRAPPER_CODEC_H
#define COINSDB_DBWRAPPER_CODEC_H

// For the dbwrapper module (and its tests) only: LevelDB 1.23's encodings
// of its numbers, checksums, keys, log files, MANIFEST and file names, the
// one place coinsdb writes or reads them (the table format is
// dbwrapper/table_encoder.h's). They let a bulk load hand LevelDB table
// files built outside its write path.
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

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dbwrapper_ingest {

constexpr int NUM_LEVELS = 7;
constexpr size_t LOG_BLOCK_BYTES = 32768;
constexpr size_t LOG_HEADER_BYTES = 7;
constexpr uint8_t TYPE_DELETION = 0;
constexpr uint8_t TYPE_VALUE = 1;
// An internal key's tag: sequence number and type.
constexpr size_t TAG_BYTES = 8;

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
// Reads the varint at `p`, reading no byte at or past `limit`; returns
// the byte after it, or nullptr when it runs past `limit` or over
// `max_bits` (32 for a varint32). The one decoder of both the MANIFEST,
// which is checked, and a batch's own staged records. Inline for the latter:
// sorting a batch reads a record's key length at every comparison.
inline const char* DecodeVarint(const char* p, const char* limit, uint64_t& n, int max_bits = 64)
{
    n = 0;
    for (int shift = 0; shift < max_bits && p < limit; shift += 7) {
        const auto byte = static_cast<unsigned char>(*p++);
        n |= uint64_t{byte & 0x7fu} << shift;
        if (byte < 0x80) return p;
    }
    return nullptr;
}
void PutVarint(std::string& out, uint64_t n);

// How many leading bytes `a` and `b` share, eight at a time: the table
// encoder's prefix compression and the database's key order both ask it
// for every key.
inline size_t SharedPrefix(std::string_view a, std::string_view b)
{
    const size_t limit = std::min(a.size(), b.size());
    size_t i = 0;
    for (; i + sizeof(uint64_t) <= limit; i += sizeof(uint64_t)) {
        uint64_t word_a;
        uint64_t word_b;
        std::memcpy(&word_a, a.data() + i, sizeof(word_a));
        std::memcpy(&word_b, b.data() + i, sizeof(word_b));
        if (word_a != word_b) {
            // The first differing byte is the lowest set one on little-endian.
            if constexpr (std::endian::native == std::endian::little) return i + std::countr_zero(word_a ^ word_b) / 8;
            break;
        }
    }
    while (i < limit && a[i] == b[i]) ++i;
    return i;
}
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
// What LevelDB writes CURRENT's next content to before renaming it.
std::string TempFileName(uint64_t number);
// A table file a bulk load builds before the database takes it:
// "ingest-N.ldb", a name LevelDB neither reads nor deletes, since it is not
// a number. IsIngestFileName takes a bare name or a path.
std::string IngestFileName(uint64_t n);
bool IsIngestFileName(std::string_view name);

} // namespace dbwrapper_ingest

#endif // COINSDB_DBWRAPPER_CODEC_H
