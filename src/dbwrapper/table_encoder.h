#ifndef COINSDB_DBWRAPPER_TABLE_ENCODER_H
#define COINSDB_DBWRAPPER_TABLE_ENCODER_H

// For dbwrapper/ingest.cpp (and its tests) only: LevelDB table files,
// written byte for byte as leveldb::TableBuilder writes them with the
// options every coinsdb database uses, at a fraction of its cost.
//
// Byte format (LevelDB 1.23, doc/table_format.md in its sources):
//
//   file        data blocks, filter block, metaindex block, index block, footer
//   block       entries; fixed32 offset of each restart entry; fixed32 their
//               count; then a 5-byte trailer: type 0 (not compressed) and
//               fixed32 masked CRC32C (dbwrapper/codec.h) of the block and
//               the type byte
//   entry       varint32 key bytes shared with the entry before, varint32
//               bytes not shared, varint32 value size, the unshared key
//               bytes, the value; every 16th entry (every entry in the index
//               block) is a restart, which shares nothing
//   data block  cut once its size with its restart array reaches 4096 bytes;
//               keys are internal keys (dbwrapper/codec.h)
//   filter      for each 2 KiB of data-block offsets, the bloom filter of the
//               user keys of the blocks that start there (none: an empty
//               filter; LevelDB's own bloom filters are built by
//               dbwrapper/bloom.h, any other by the filter policy); fixed32 offset of each filter; fixed32 where those
//               offsets start; the byte 11 (2 KiB = 1 << 11). Written with a
//               trailer, not in block format.
//   metaindex   one entry: "filter." + the filter policy's name -> its handle
//   index       each data block's last key -> its handle. LevelDB shortens
//               that key when its comparator can; coinsdb's writer and the
//               TableBuilder it is checked against keep it whole.
//   handle      varint64 offset, varint64 size (trailer excluded)
//   footer      metaindex handle, index handle, zeros up to 40 bytes,
//               fixed64 0xdb4775248b80fb57

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace leveldb {
class Comparator;
class FilterPolicy;
class Status;
class WritableFile;
} // namespace leveldb

namespace dbwrapper_ingest {

// One table file being written, by either encoder below.
class TableWriter
{
public:
    virtual ~TableWriter() = default;
    // Internal keys, strictly rising.
    virtual leveldb::Status Add(std::string_view internal_key, std::string_view value) = 0;
    // Writes the rest of the file; Close() and Sync() are the caller's.
    virtual leveldb::Status Finish() = 0;
    virtual uint64_t FileSize() const = 0;
};

// Why not leveldb::TableBuilder: it copies each key three times, compares
// it twice with the one before (checks its build keeps), and checksums
// with a portable CRC-32C; building a flush's tables with it took as much
// CPU as everything else the flush does. What it writes is the reference:
// dbwrapper_ingest_tests compares the two byte for byte.
class TableFileWriter final : public TableWriter
{
public:
    // `user_filter`: the database's filter policy, applied to user keys.
    TableFileWriter(leveldb::WritableFile* file, const leveldb::FilterPolicy* user_filter);
    ~TableFileWriter() override;
    TableFileWriter(const TableFileWriter&) = delete;
    TableFileWriter& operator=(const TableFileWriter&) = delete;

    leveldb::Status Add(std::string_view internal_key, std::string_view value) override;
    leveldb::Status Finish() override;
    uint64_t FileSize() const override { return m_offset; }

private:
    struct Block;
    struct Handle {
        uint64_t offset{0};
        uint64_t size{0};
    };
    void FlushDataBlock();
    Handle WriteBlock(Block& block);
    Handle WriteRaw(std::string_view contents);
    void StartFilters(uint64_t block_offset);
    void GenerateFilter();
    void Append(std::string_view bytes);

    leveldb::WritableFile* m_file;
    const leveldb::FilterPolicy* m_filter;
    // Set when m_filter is LevelDB's built-in bloom filter: the filters
    // are then built here (dbwrapper/bloom.h), from each key's hash.
    const int m_bloom_bits_per_key;
    std::unique_ptr<Block> m_data;
    std::unique_ptr<Block> m_index;
    std::string m_last_key;
    bool m_pending_index{false};
    Handle m_pending_handle;
    // The user keys of the filter being collected (their bloom hashes
    // instead, with m_bloom_bits_per_key), and the filters so far.
    std::string m_filter_keys;
    std::vector<size_t> m_filter_starts;
    std::vector<uint32_t> m_filter_hashes;
    std::string m_filters;
    std::vector<uint32_t> m_filter_offsets;
    // The file's size so far.
    uint64_t m_offset{0};
    std::unique_ptr<leveldb::Status> m_status;
};

// `by_leveldb`: LevelDB's own leveldb::TableBuilder, set up to write the
// same bytes as TableFileWriter (DBOptions::tables_by_leveldb, to measure
// one against the other); else a TableFileWriter.
std::unique_ptr<TableWriter> NewTableWriter(leveldb::WritableFile* file, const leveldb::FilterPolicy* user_filter,
                                            const leveldb::Comparator* user_order, bool by_leveldb);

// Internal keys by user key, the newer first: the order a table's index is
// searched in when coinsdb reads its own tables back.
std::unique_ptr<leveldb::Comparator> NewInternalKeyOrder(const leveldb::Comparator* user_order);

// Tests: one table file of `records` (internal key, value; keys rising),
// built by TableFileWriter or by leveldb::TableBuilder, each with
// `user_filter` over user keys (null: LevelDB's bloom filter at 10 bits
// per key, the databases' own).
std::string TableFileBytes(std::span<const std::pair<std::string, std::string>> records, bool by_leveldb,
                           const leveldb::FilterPolicy* user_filter = nullptr);

} // namespace dbwrapper_ingest

#endif // COINSDB_DBWRAPPER_TABLE_ENCODER_H
