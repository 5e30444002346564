// BlockManager: the blk/rev files (records, pruning, scanning blk-format
// files), then the block index (CBlockIndex, the records in blocks/index,
// loading and writing them, and the best header). Formats are at the top
// of node/blockstorage/blockstorage.h.

#include <node/blockstorage/blockstorage.h>

#include <dbwrapper.h>
#include <hash.h>
#include <serialize.h>
#include <streams.h>
#include <util/log.h>
#include <util/read_ahead_queue.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>

#include <pthread.h>
#include <unistd.h>

namespace node {
namespace {

constexpr size_t UNDO_CHECKSUM_BYTES{uint256::SIZE};
constexpr size_t SCAN_CHUNK_BYTES{1 << 16};
// Blocks parsed ahead of ReadBlockFile's callback: a few MiB at most.
constexpr size_t BLOCKS_READ_AHEAD{4};

// Serializes into the end of a record's bytes (BlockManager::m_record).
struct RecordAppender {
    std::vector<std::byte>& bytes;

    void write(std::span<const std::byte> more) { bytes.insert(bytes.end(), more.begin(), more.end()); }
    template <typename T>
    RecordAppender& operator<<(const T& obj)
    {
        Serialize(*this, obj);
        return *this;
    }
};

uint256 UndoChecksum(const uint256& parent_hash, std::span<const std::byte> undo)
{
    HashWriter hasher;
    hasher << parent_hash;
    hasher.write(undo);
    return hasher.GetHash();
}

// The offset of the first magic at or after `from`; nullopt when none is left.
std::optional<uint64_t> FindMagic(std::FILE* file, uint64_t from, const MessageStartChars& magic, std::vector<unsigned char>& chunk,
                                  const BlockFileXorKey& xor_key)
{
    while (true) {
        if (fseeko(file, static_cast<off_t>(from), SEEK_SET) != 0) return std::nullopt;
        const size_t got = std::fread(chunk.data(), 1, chunk.size(), file);
        if (got < magic.size()) return std::nullopt;
        XorAtOffset(std::as_writable_bytes(std::span{chunk}.first(got)), from, xor_key);
        const auto end = chunk.begin() + got;
        const auto found = std::search(chunk.begin(), end, magic.begin(), magic.end());
        if (found != end) return from + (found - chunk.begin());
        // A magic cut by the chunk's end is found by the next read.
        from += got - (magic.size() - 1);
    }
}

// Finds every block record of a blk-format file in order and hands each
// parsed block to emit, with the bytes it was parsed from (moved out; empty
// when the record held more than the block), the offset of its first byte
// and the record's size; stops early when emit returns false. Each record
// is read into a buffer `recycle` gives, so that buffers can go round.
template <typename Emit, typename Recycle>
void ScanRecords(std::FILE* file, const MessageStartChars& magic, const BlockFileXorKey& xor_key, Emit&& emit, Recycle&& recycle)
{
    std::vector<unsigned char> chunk(SCAN_CHUNK_BYTES);
    std::vector<std::byte> payload = recycle();
    uint64_t from = 0;
    while (const auto start = FindMagic(file, from, magic, chunk, xor_key)) {
        // Whatever goes wrong below, look again one byte further on, as
        // upstream's import does: the magic may have been part of garbage.
        from = *start + 1;
        std::array<std::byte, STORAGE_HEADER_BYTES> header;
        if (!ReadXored(file, *start, header, xor_key)) continue;
        uint32_t size;
        std::memcpy(&size, header.data() + magic.size(), sizeof(size));
        if (size < CBlockHeader::SIZE || size > MAX_BLOCK_SERIALIZED_SIZE) continue;
        payload.resize(size);
        if (!ReadXored(file, *start + STORAGE_HEADER_BYTES, payload, xor_key)) continue;
        auto block = std::make_shared<CBlock>();
        bool whole_record = false;
        try {
            SpanReader reader{payload};
            reader >> *block;
            whole_record = reader.empty();
        } catch (const std::exception&) {
            continue;
        }
        // Trailing bytes in the record are not the block's: it is then
        // serialized again when stored, as upstream stores every block.
        if (!whole_record) payload.clear();
        if (!emit(std::move(block), std::move(payload), *start + STORAGE_HEADER_BYTES, STORAGE_HEADER_BYTES + uint64_t{size})) return;
        payload = recycle();
        from = *start + STORAGE_HEADER_BYTES + size;
    }
}

} // namespace

BlockManager::BlockManager(Options options) : m_options{std::move(options)}
{
    if (m_options.max_blockfile_size == 0 || m_options.max_blockfile_size > UINT32_MAX) {
        // Positions in the index are 32-bit.
        throw std::invalid_argument("max_blockfile_size must be between 1 and 2^32 - 1");
    }
    std::filesystem::create_directories(m_options.blocks_dir);
    m_db = std::make_unique<CDBWrapper>(DBParams{.path = m_options.blocks_dir / "index",
                                                 .cache_bytes = m_options.index_cache_bytes,
                                                 .memory_only = false,
                                                 .wipe_data = m_options.wipe_index,
                                                 .obfuscate = false});
}

BlockManager::~BlockManager()
{
    CloseHandle(m_block_handle);
    CloseHandle(m_undo_handle);
}

std::filesystem::path BlockManager::FilePath(FileKind kind, int file) const
{
    return m_options.blocks_dir / fmt::format("{}{:05}.dat", kind == FileKind::BLOCK ? "blk" : "rev", file);
}

std::filesystem::path BlockManager::BlockFilePath(int file) const { return FilePath(FileKind::BLOCK, file); }
std::filesystem::path BlockManager::UndoFilePath(int file) const { return FilePath(FileKind::UNDO, file); }

const CBlockFileInfo* BlockManager::GetBlockFileInfo(int file) const
{
    if (file < 0 || file >= static_cast<int>(m_blockfile_info.size())) return nullptr;
    return &m_blockfile_info[file];
}

BlockManager::WriteHandle& BlockManager::HandleFor(FileKind kind)
{
    return kind == FileKind::BLOCK ? m_block_handle : m_undo_handle;
}

bool BlockManager::SyncHandle(WriteHandle& handle)
{
    if (!handle.writer || !handle.unsynced) return true;
    std::string error;
    if (!handle.writer->Sync(error)) {
        LogError("Syncing block file {} failed: {}", handle.file, error);
        m_write_failed = true;
        return false;
    }
    handle.unsynced = false;
    return true;
}

void BlockManager::CloseHandle(WriteHandle& handle)
{
    if (!handle.writer) return;
    SyncHandle(handle);
    handle.writer.reset();
    handle.file = -1;
    handle.unsynced = false;
}

void BlockManager::FlushForRead(FileKind kind, int file) const
{
    const WriteHandle& handle = kind == FileKind::BLOCK ? m_block_handle : m_undo_handle;
    if (!handle.writer || handle.file != file) return;
    std::string error;
    // A failure is the writer's for good; the read then finds what the
    // file has, and the next Sync reports it.
    if (!handle.writer->Flush(error)) LogError("Flushing {} before a read failed: {}", handle.writer->Path().string(), error);
}

bool BlockManager::OpenForWrite(FileKind kind, int file)
{
    WriteHandle& handle = HandleFor(kind);
    if (handle.writer && handle.file == file) return true;
    CloseHandle(handle);
    std::string error;
    handle.writer = RecordFileWriter::Open(FilePath(kind, file), m_options.xor_key, error);
    if (!handle.writer) {
        LogError("Unable to open a block file for writing: {}", error);
        return false;
    }
    handle.file = file;
    return true;
}

void BlockManager::StartRecord()
{
    m_record.clear();
    RecordAppender record{m_record};
    record << m_options.magic;
    WriteLE(record, uint32_t{0});
}

std::optional<uint32_t> BlockManager::EndPayload()
{
    const size_t payload = m_record.size() - STORAGE_HEADER_BYTES;
    if (payload > UINT32_MAX) return std::nullopt;
    const auto size = static_cast<uint32_t>(payload);
    std::memcpy(m_record.data() + m_options.magic.size(), &size, sizeof(size));
    return size;
}

bool BlockManager::WriteRecord(FileKind kind, int file, unsigned int pos)
{
    if (m_write_failed) {
        LogError("Not writing to {}: an earlier block file write failed", FilePath(kind, file).string());
        return false;
    }
    if (!OpenForWrite(kind, file)) return false;
    WriteHandle& handle = HandleFor(kind);
    // The record's bytes go to the writer's thread, which obfuscates them
    // by their file offset and writes them; the next record is built in a
    // buffer the writer has done with.
    handle.unsynced = true;
    std::string error;
    const bool queued = handle.writer->Write(pos, std::move(m_record), error);
    m_record = handle.writer->TakeBuffer();
    if (!queued) {
        LogError("Writing {} at offset {} failed: {}", FilePath(kind, file).string(), pos, error);
        m_write_failed = true;
        return false;
    }
    return true;
}

std::optional<std::vector<std::byte>> BlockManager::ReadRecord(FileKind kind, const FlatFilePos& pos, size_t trailer_bytes) const
{
    const auto path = FilePath(kind, pos.nFile);
    const auto where = fmt::format("{}:{}", path.filename().string(), pos.nPos);
    if (pos.nPos < STORAGE_HEADER_BYTES) {
        LogError("{}: no record can start there", where);
        return std::nullopt;
    }
    FlushForRead(kind, pos.nFile);
    AutoFile file{std::fopen(path.c_str(), "rb")};
    std::error_code ec;
    const uint64_t file_size = std::filesystem::file_size(path, ec);
    if (file.IsNull() || ec) {
        LogError("{}: cannot open the file", where);
        return std::nullopt;
    }
    std::array<std::byte, STORAGE_HEADER_BYTES> header;
    if (!ReadXored(file.Get(), pos.nPos - STORAGE_HEADER_BYTES, header, m_options.xor_key)) {
        LogError("{}: read failed: the file ends before the record", where);
        return std::nullopt;
    }
    if (!std::ranges::equal(std::span{header}.first(m_options.magic.size()), std::as_bytes(std::span{m_options.magic}))) {
        LogError("{}: wrong network magic before the record", where);
        return std::nullopt;
    }
    SpanReader size_reader{std::span{header}.subspan(m_options.magic.size())};
    const uint32_t size = ReadLE<uint32_t>(size_reader);
    // Checked before allocating, so a corrupt size cannot ask for 4 GiB.
    if (uint64_t{pos.nPos} + size + trailer_bytes > file_size) {
        LogError("{}: a record of {} bytes runs past the end of the file", where, size);
        return std::nullopt;
    }
    std::vector<std::byte> bytes(size + trailer_bytes);
    if (!ReadXored(file.Get(), pos.nPos, bytes, m_options.xor_key)) {
        LogError("{}: read failed", where);
        return std::nullopt;
    }
    return bytes;
}

int BlockManager::FindBlockFile(unsigned int add_size)
{
    if (m_blockfile_info.size() <= static_cast<size_t>(m_last_blockfile)) m_blockfile_info.resize(m_last_blockfile + 1);
    // An empty file takes any block, so an oversized one cannot loop forever.
    while (m_blockfile_info[m_last_blockfile].nSize > 0 &&
           uint64_t{m_blockfile_info[m_last_blockfile].nSize} + add_size >= m_options.max_blockfile_size) {
        LogInfo("Leaving block file {}: {}", m_last_blockfile, m_blockfile_info[m_last_blockfile].ToString());
        // A finished file is fsynced now, as upstream does, rather than at
        // the next WriteIndex.
        if (m_block_handle.file == m_last_blockfile) CloseHandle(m_block_handle);
        ++m_last_blockfile;
        if (m_blockfile_info.size() <= static_cast<size_t>(m_last_blockfile)) m_blockfile_info.resize(m_last_blockfile + 1);
    }
    return m_last_blockfile;
}

FlatFilePos BlockManager::SaveBlock(const CBlock& block, CBlockIndex& index, std::span<const std::byte> serialized)
{
    if (block.GetHash() != index.hash) throw std::logic_error("SaveBlock: the block is not the index entry's");
    if (index.nStatus & BLOCK_HAVE_DATA) return index.GetBlockPos();

    StartRecord();
    // Serializing a block again was 3% of a hinted replay's samples on the
    // connecting thread; the bytes it was parsed from are the same bytes
    // (our deserialization takes canonical encodings only).
    if (serialized.empty()) {
        RecordAppender{m_record} << block;
    } else {
        RecordAppender{m_record}.write(serialized);
    }
    const auto size = EndPayload();
    // A file that already holds a block stays below max_blockfile_size (at
    // most 2^32 - 1), so only a lone block in an empty file can overflow.
    if (!size || *size > UINT32_MAX - STORAGE_HEADER_BYTES) {
        LogError("SaveBlock: block {} is too large to store ({} bytes)", index.hash.GetHex(), m_record.size() - STORAGE_HEADER_BYTES);
        return {};
    }
    const auto add_size = static_cast<unsigned int>(STORAGE_HEADER_BYTES + *size);
    const int file = FindBlockFile(add_size);
    CBlockFileInfo& info = m_blockfile_info[file];
    const unsigned int record_pos = info.nSize;
    if (!WriteRecord(FileKind::BLOCK, file, record_pos)) return {};

    info.nSize += add_size;
    info.AddBlock(static_cast<unsigned int>(index.nHeight), block.nTime);
    m_dirty_fileinfo.insert(file);
    index.nTx = static_cast<unsigned int>(block.vtx.size());
    index.nFile = file;
    index.nDataPos = record_pos + STORAGE_HEADER_BYTES;
    index.nStatus |= BLOCK_HAVE_DATA;
    SetDirty(index);
    return index.GetBlockPos();
}

void BlockManager::SetBlockStored(const CBlock& block, CBlockIndex& index, const FlatFilePos& pos)
{
    if (block.GetHash() != index.hash) throw std::logic_error("SetBlockStored: the block is not the index entry's");
    if (pos.nFile < 0 || pos.nPos < STORAGE_HEADER_BYTES) throw std::logic_error("SetBlockStored: no record can start there");
    if (index.nStatus & BLOCK_HAVE_DATA) return;
    const uint64_t record_end = uint64_t{pos.nPos} + GetSerializeSize(block);
    if (record_end > UINT32_MAX) throw std::logic_error("SetBlockStored: the record ends beyond 32-bit positions");

    if (m_blockfile_info.size() <= static_cast<size_t>(pos.nFile)) m_blockfile_info.resize(pos.nFile + 1);
    CBlockFileInfo& info = m_blockfile_info[pos.nFile];
    info.nSize = std::max(info.nSize, static_cast<unsigned int>(record_end));
    info.AddBlock(static_cast<unsigned int>(index.nHeight), block.nTime);
    m_dirty_fileinfo.insert(pos.nFile);
    m_last_blockfile = std::max(m_last_blockfile, pos.nFile);
    index.nTx = static_cast<unsigned int>(block.vtx.size());
    index.nFile = pos.nFile;
    index.nDataPos = pos.nPos;
    index.nStatus |= BLOCK_HAVE_DATA;
    SetDirty(index);
}

bool BlockManager::ReadBlock(CBlock& block, const CBlockIndex& index) const
{
    if (!(index.nStatus & BLOCK_HAVE_DATA)) {
        LogError("ReadBlock: no data for block {}", index.hash.GetHex());
        return false;
    }
    const auto bytes = ReadRecord(FileKind::BLOCK, index.GetBlockPos(), 0);
    if (!bytes) return false;
    try {
        SpanReader reader{*bytes};
        reader >> block;
    } catch (const std::exception& e) {
        LogError("ReadBlock: cannot deserialize block {} at {}:{}: {}", index.hash.GetHex(), index.nFile, index.nDataPos, e.what());
        return false;
    }
    if (block.GetHash() != index.hash) {
        LogError("ReadBlock: GetHash() doesn't match index for {} at {}:{}", index.hash.GetHex(), index.nFile, index.nDataPos);
        return false;
    }
    return true;
}

bool BlockManager::WriteUndo(std::span<const std::byte> undo, CBlockIndex& index)
{
    if (!(index.nStatus & BLOCK_HAVE_DATA)) throw std::logic_error("WriteUndo: the block has no data, so no rev file");
    if (!index.pprev) throw std::logic_error("WriteUndo: a block without a parent has no undo data");
    if (index.nStatus & BLOCK_HAVE_UNDO) return true;
    assert(index.nFile >= 0 && static_cast<size_t>(index.nFile) < m_blockfile_info.size());

    CBlockFileInfo& info = m_blockfile_info[index.nFile];
    const uint64_t add_size = STORAGE_HEADER_BYTES + undo.size() + UNDO_CHECKSUM_BYTES;
    if (info.nUndoSize + add_size > UINT32_MAX) {
        LogError("WriteUndo: rev file {} would outgrow 32-bit positions", index.nFile);
        return false;
    }
    const uint256 checksum = UndoChecksum(index.pprev->hash, undo);
    const unsigned int record_pos = info.nUndoSize;
    StartRecord();
    RecordAppender{m_record}.write(undo);
    EndPayload(); // add_size fits 32 bits, checked above
    RecordAppender{m_record}.write(std::as_bytes(std::span{checksum.begin(), checksum.end()}));
    if (!WriteRecord(FileKind::UNDO, index.nFile, record_pos)) return false;

    info.nUndoSize += static_cast<unsigned int>(add_size);
    m_dirty_fileinfo.insert(index.nFile);
    index.nUndoPos = record_pos + STORAGE_HEADER_BYTES;
    index.nStatus |= BLOCK_HAVE_UNDO;
    SetDirty(index);
    return true;
}

std::optional<std::vector<std::byte>> BlockManager::ReadUndo(const CBlockIndex& index) const
{
    if (!(index.nStatus & BLOCK_HAVE_UNDO) || !index.pprev) {
        LogError("ReadUndo: no undo data for block {}", index.hash.GetHex());
        return std::nullopt;
    }
    auto bytes = ReadRecord(FileKind::UNDO, index.GetUndoPos(), UNDO_CHECKSUM_BYTES);
    if (!bytes) return std::nullopt;
    const auto undo = std::span{*bytes}.first(bytes->size() - UNDO_CHECKSUM_BYTES);
    const auto stored = std::span{*bytes}.last(UNDO_CHECKSUM_BYTES);
    const uint256 expected = UndoChecksum(index.pprev->hash, undo);
    if (!std::ranges::equal(stored, std::as_bytes(std::span{expected.begin(), expected.end()}))) {
        LogError("ReadUndo: checksum mismatch for block {} at {}:{}", index.hash.GetHex(), index.nFile, index.nUndoPos);
        return std::nullopt;
    }
    bytes->resize(undo.size());
    return bytes;
}

void BlockManager::Flush()
{
    FlushForRead(FileKind::BLOCK, m_block_handle.file);
    FlushForRead(FileKind::UNDO, m_undo_handle.file);
}

bool BlockManager::Sync()
{
    const bool blocks_ok = SyncHandle(m_block_handle);
    const bool undo_ok = SyncHandle(m_undo_handle);
    return blocks_ok && undo_ok && !m_write_failed;
}

uint64_t BlockManager::CalculateCurrentUsage() const
{
    uint64_t usage = 0;
    for (const CBlockFileInfo& info : m_blockfile_info) usage += uint64_t{info.nSize} + info.nUndoSize;
    return usage;
}

std::vector<int> BlockManager::FindFilesToPrune(uint64_t target_bytes, int tip_height, int keep_last_blocks) const
{
    std::vector<int> files;
    const int last_prunable_height = tip_height - keep_last_blocks;
    if (last_prunable_height < 0) return files;
    uint64_t usage = CalculateCurrentUsage();
    for (int file = 0; file < m_last_blockfile && file < static_cast<int>(m_blockfile_info.size()); ++file) {
        if (usage < target_bytes) break;
        const CBlockFileInfo& info = m_blockfile_info[file];
        if (info.nSize == 0) continue;
        // A file's blocks are not in height order (forks, late arrivals), so
        // a kept file does not end the search.
        if (info.nHeightLast > static_cast<unsigned int>(last_prunable_height)) continue;
        files.push_back(file);
        usage -= uint64_t{info.nSize} + info.nUndoSize;
    }
    return files;
}

void BlockManager::PruneFiles(const std::vector<int>& files)
{
    if (files.empty()) return;
    for (const int file : files) {
        if (file == m_last_blockfile) throw std::logic_error("PruneFiles: cannot prune the block file being written");
        if (!GetBlockFileInfo(file)) throw std::logic_error("PruneFiles: no such block file");
    }
    const std::set<int> pruned(files.begin(), files.end());
    for (const auto& [hash, entry] : m_block_index) {
        if (!(entry->nStatus & BLOCK_HAVE_MASK) || !pruned.contains(entry->nFile)) continue;
        entry->nStatus &= ~uint32_t{BLOCK_HAVE_MASK};
        entry->nFile = 0;
        entry->nDataPos = 0;
        entry->nUndoPos = 0;
        SetDirty(*entry);
    }
    for (const int file : pruned) {
        m_blockfile_info[file] = CBlockFileInfo{};
        m_dirty_fileinfo.insert(file);
    }
    if (!m_have_pruned) {
        m_have_pruned = true;
        m_pruned_flag_dirty = true;
    }
    // Deleting first would let a crash leave an index that claims the data.
    if (!WriteIndex()) {
        LogError("PruneFiles: the block index could not be written; keeping the files for now");
        return;
    }
    for (const int file : pruned) {
        for (WriteHandle* handle : {&m_block_handle, &m_undo_handle}) {
            if (handle->file == file) CloseHandle(*handle);
        }
        std::error_code ec_blk, ec_rev;
        std::filesystem::remove(BlockFilePath(file), ec_blk);
        std::filesystem::remove(UndoFilePath(file), ec_rev);
        if (ec_blk || ec_rev) LogWarning("Prune: could not delete blk/rev ({:05}): {}", file, (ec_blk ? ec_blk : ec_rev).message());
        LogDebug(logging::Category::PRUNE, "Prune: deleted blk/rev ({:05})", file);
    }
}

std::optional<size_t> BlockManager::ReadBlockFileHeaders(const std::filesystem::path& path, const MessageStartChars& magic,
                                                         const BlockHeaderCallback& callback, const BlockFileXorKey& xor_key)
{
    AutoFile file{std::fopen(path.c_str(), "rb")};
    std::error_code ec;
    const uint64_t file_size = std::filesystem::file_size(path, ec);
    if (file.IsNull() || ec) {
        LogError("ReadBlockFileHeaders: cannot open {}", path.string());
        return std::nullopt;
    }
    std::vector<unsigned char> chunk(SCAN_CHUNK_BYTES);
    std::array<std::byte, STORAGE_HEADER_BYTES + CBlockHeader::SIZE> head;
    const auto starts_with_magic = [&] { return std::ranges::equal(std::span{head}.first(magic.size()), std::as_bytes(std::span{magic})); };
    size_t records = 0;
    uint64_t from = 0;
    while (true) {
        // A record usually starts where the one before ended: looking
        // there first saves FindMagic's 64 KiB read per record.
        std::optional<uint64_t> start;
        if (ReadXored(file.Get(), from, head, xor_key) && starts_with_magic()) {
            start = from;
        } else {
            start = FindMagic(file.Get(), from, magic, chunk, xor_key);
        }
        if (!start) break;
        // As ScanRecords: whatever is wrong, look again one byte further on.
        from = *start + 1;
        if (!ReadXored(file.Get(), *start, head, xor_key)) continue;
        uint32_t size;
        std::memcpy(&size, head.data() + magic.size(), sizeof(size));
        if (size < CBlockHeader::SIZE || size > MAX_BLOCK_SERIALIZED_SIZE) continue;
        // A truncated last record is no block.
        if (*start + STORAGE_HEADER_BYTES + size > file_size) continue;
        CBlockHeader header;
        SpanReader reader{std::span{head}.subspan(STORAGE_HEADER_BYTES)};
        reader >> header;
        callback(header);
        ++records;
        from = *start + STORAGE_HEADER_BYTES + size;
    }
    return records;
}

std::optional<BlockFileScan> BlockManager::ReadBlockFile(const std::filesystem::path& path, const MessageStartChars& magic,
                                                         const BlockFileCallback& callback, const BlockFileXorKey& xor_key,
                                                         const BlockPrepare& prepare)
{
    AutoFile file{std::fopen(path.c_str(), "rb")};
    std::error_code ec;
    const uint64_t file_size = std::filesystem::file_size(path, ec);
    if (file.IsNull() || ec) {
        LogError("ReadBlockFile: cannot open {}", path.string());
        return std::nullopt;
    }

    // Reading, de-obfuscating and parsing blocks (hashing every txid) is a
    // fifth of a replay's CPU: a thread of its own does it a few blocks
    // ahead of the callback, on the core the callback leaves idle.
    // `prepare`, when given, runs on a second thread between the two: on
    // the parsing thread it made that thread the critical path of a hinted
    // replay, whose connecting thread then waited for blocks.
    struct ScannedBlock {
        std::shared_ptr<const CBlock> block;
        std::vector<std::byte> serialized;
        uint64_t data_pos;
    };
    ReadAheadQueue<ScannedBlock> scanned{BLOCKS_READ_AHEAD};
    ReadAheadQueue<ScannedBlock> prepared{BLOCKS_READ_AHEAD};
    ReadAheadQueue<ScannedBlock>& ready = prepare ? prepared : scanned;
    BlockFileScan scan;
    uint64_t record_bytes = 0;
    std::thread scanner{[&] {
        pthread_setname_np(pthread_self(), "b-readblocks");
        std::exception_ptr error;
        try {
            const auto emit = [&](std::shared_ptr<const CBlock> block, std::vector<std::byte>&& serialized, uint64_t data_pos, uint64_t bytes) {
                ++scan.blocks;
                record_bytes += bytes;
                return scanned.Push({std::move(block), std::move(serialized), data_pos});
            };
            // A block the consumer has given back since the last push leaves
            // its buffer to the next record, and is freed here. That is rare:
            // each push destroys the blocks given back before it, and the
            // consumer gives one back while the reader parses. A buffer made
            // new then takes the memory glibc got back from those. Handing
            // one back from inside the push did not change a hinted replay's
            // time (alternate_replay.py, 6.0M chain) and added 7 MiB to its
            // peak RSS, so it was not kept.
            const auto recycle = [&] {
                auto given_back = scanned.Reuse();
                return given_back ? std::move(given_back->serialized) : std::vector<std::byte>{};
            };
            ScanRecords(file.Get(), magic, xor_key, emit, recycle);
        } catch (...) {
            error = std::current_exception();
        }
        scanned.Finish(error);
    }};
    std::thread preparer;
    if (prepare) {
        preparer = std::thread{[&] {
            pthread_setname_np(pthread_self(), "b-prepblocks");
            std::exception_ptr error;
            try {
                while (auto next = scanned.Pop()) {
                    prepare(*next->block);
                    if (!prepared.Push(std::move(*next))) break;
                }
            } catch (...) {
                // The scanner's error, or prepare's.
                error = std::current_exception();
            }
            // Stopped early: the scanner stops too.
            scanned.Stop();
            prepared.Finish(error);
        }};
    }
    // However the callbacks end, a throw included, the threads stop first.
    struct StopThreads {
        ReadAheadQueue<ScannedBlock>& ready;
        ReadAheadQueue<ScannedBlock>& scanned;
        std::thread& preparer;
        std::thread& scanner;
        ~StopThreads()
        {
            ready.Stop();
            scanned.Stop();
            if (preparer.joinable()) preparer.join();
            scanner.join();
        }
    } stop_threads{ready, scanned, preparer, scanner};

    // Blocks given back are freed by the thread that parsed them, at its
    // next Push: glibc's free of a block from another thread's arena waits
    // for that arena's lock, which the parsing thread holds in its mallocs
    // (that wait showed in the prepare thread's profile when it freed them).
    while (auto next = ready.Pop()) {
        callback(next->block, next->data_pos, next->serialized);
        scanned.GiveBack(std::move(*next));
    }
    scan.skipped_bytes = file_size - record_bytes;
    if (scan.skipped_bytes > 0) {
        LogInfo("ReadBlockFile: {}: {} blocks, skipped {} bytes that are not blocks", path.string(), scan.blocks, scan.skipped_bytes);
    }
    return scan;
}

} // namespace node

namespace node {
namespace {

constexpr uint8_t DB_BLOCK_INDEX{'b'};
constexpr uint8_t DB_BLOCK_FILES{'f'};
constexpr uint8_t DB_LAST_BLOCK{'l'};
constexpr uint8_t DB_FLAG{'F'};

// Upstream writes this constant where a client version once was.
constexpr uint64_t DISK_INDEX_VERSION{259900};
constexpr std::string_view PRUNED_FLAG{"prunedblockfiles"};

template <typename T, typename Stream>
T ReadVarIntAs(Stream& s)
{
    const uint64_t value = ReadVarInt(s);
    if (value > static_cast<uint64_t>(std::numeric_limits<T>::max())) throw std::ios_base::failure("block index field out of range");
    return static_cast<T>(value);
}

struct BlockIndexKey {
    uint256 hash;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE<Stream, uint8_t>(s, DB_BLOCK_INDEX);
        hash.Serialize(s);
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        if (ReadLE<uint8_t>(s) != DB_BLOCK_INDEX) throw std::ios_base::failure("not a block index key");
        hash.Unserialize(s);
        if (!s.empty()) throw std::ios_base::failure("block index key too long");
    }
};

struct FileInfoKey {
    int32_t file;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE<Stream, uint8_t>(s, DB_BLOCK_FILES);
        WriteLE(s, file);
    }
};

struct FlagKey {
    std::string_view name;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE<Stream, uint8_t>(s, DB_FLAG);
        WriteCompactSize(s, name.size());
        s.write(std::as_bytes(std::span{name}));
    }
};

// CBlockIndex as stored: the fields that are not recomputed on load.
struct DiskBlockIndex {
    int height{0};
    uint32_t status{0};
    unsigned int tx_count{0};
    int file{0};
    unsigned int data_pos{0};
    unsigned int undo_pos{0};
    CBlockHeader header;

    static DiskBlockIndex From(const CBlockIndex& index)
    {
        return {index.nHeight, index.nStatus, index.nTx, index.nFile, index.nDataPos, index.nUndoPos, index.GetBlockHeader()};
    }

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        assert(height >= 0 && file >= 0);
        WriteVarInt(s, DISK_INDEX_VERSION);
        WriteVarInt(s, static_cast<uint64_t>(height));
        WriteVarInt(s, status);
        WriteVarInt(s, tx_count);
        if (status & (BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO)) WriteVarInt(s, static_cast<uint64_t>(file));
        if (status & BLOCK_HAVE_DATA) WriteVarInt(s, data_pos);
        if (status & BLOCK_HAVE_UNDO) WriteVarInt(s, undo_pos);
        header.Serialize(s);
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        ReadVarInt(s); // the version, which means nothing
        height = ReadVarIntAs<int>(s);
        status = ReadVarIntAs<uint32_t>(s);
        tx_count = ReadVarIntAs<unsigned int>(s);
        if (status & (BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO)) file = ReadVarIntAs<int>(s);
        if (status & BLOCK_HAVE_DATA) data_pos = ReadVarIntAs<unsigned int>(s);
        if (status & BLOCK_HAVE_UNDO) undo_pos = ReadVarIntAs<unsigned int>(s);
        header.Unserialize(s);
    }
};

struct DiskFileInfo {
    CBlockFileInfo info;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        for (uint64_t field : {uint64_t{info.nBlocks}, uint64_t{info.nSize}, uint64_t{info.nUndoSize}, uint64_t{info.nHeightFirst},
                               uint64_t{info.nHeightLast}, info.nTimeFirst, info.nTimeLast}) {
            WriteVarInt(s, field);
        }
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        info.nBlocks = ReadVarIntAs<unsigned int>(s);
        info.nSize = ReadVarIntAs<unsigned int>(s);
        info.nUndoSize = ReadVarIntAs<unsigned int>(s);
        info.nHeightFirst = ReadVarIntAs<unsigned int>(s);
        info.nHeightLast = ReadVarIntAs<unsigned int>(s);
        info.nTimeFirst = ReadVarInt(s);
        info.nTimeLast = ReadVarInt(s);
    }
};

bool IsFailed(const CBlockIndex& index) { return index.nStatus & BLOCK_FAILED_MASK; }

// More work wins; of equal work, the one that arrived first.
bool IsBetterHeader(const CBlockIndex& candidate, const CBlockIndex& best)
{
    if (candidate.nChainWork != best.nChainWork) return candidate.nChainWork > best.nChainWork;
    return candidate.nSequenceId < best.nSequenceId;
}

} // namespace
} // namespace node

CBlockHeader CBlockIndex::GetBlockHeader() const
{
    CBlockHeader header;
    header.nVersion = nVersion;
    if (pprev) header.hashPrevBlock = pprev->hash;
    header.hashMerkleRoot = hashMerkleRoot;
    header.nTime = nTime;
    header.nBits = nBits;
    header.nNonce = nNonce;
    return header;
}

FlatFilePos CBlockIndex::GetBlockPos() const
{
    if (!(nStatus & BLOCK_HAVE_DATA)) return {};
    return {nFile, nDataPos};
}

FlatFilePos CBlockIndex::GetUndoPos() const
{
    if (!(nStatus & BLOCK_HAVE_UNDO)) return {};
    return {nFile, nUndoPos};
}

bool CBlockIndex::IsValid(BlockStatus up_to) const
{
    assert(!(up_to & ~BLOCK_VALID_MASK));
    if (nStatus & BLOCK_FAILED_MASK) return false;
    return (nStatus & BLOCK_VALID_MASK) >= up_to;
}

bool CBlockIndex::RaiseValidity(BlockStatus up_to)
{
    assert(!(up_to & ~BLOCK_VALID_MASK));
    if (nStatus & BLOCK_FAILED_MASK) return false;
    if ((nStatus & BLOCK_VALID_MASK) >= up_to) return false;
    nStatus = (nStatus & ~uint32_t{BLOCK_VALID_MASK}) | up_to;
    return true;
}

const CBlockIndex* CBlockIndex::GetAncestor(int height) const
{
    if (height < 0 || height > nHeight) return nullptr;
    const CBlockIndex* walk = this;
    while (walk && walk->nHeight > height) walk = walk->pprev;
    return walk;
}

void CBlockIndex::SetChainTxFromParent()
{
    const uint64_t before = pprev ? pprev->nChainTx : 0;
    nChainTx = nTx == 0 || (pprev && before == 0) ? 0 : before + nTx;
}

void CBlockFileInfo::AddBlock(unsigned int height, uint64_t time)
{
    if (nBlocks == 0 || height < nHeightFirst) nHeightFirst = height;
    if (nBlocks == 0 || time < nTimeFirst) nTimeFirst = time;
    ++nBlocks;
    nHeightLast = std::max(nHeightLast, height);
    nTimeLast = std::max(nTimeLast, time);
}

std::string CBlockFileInfo::ToString() const
{
    return fmt::format("CBlockFileInfo(blocks={}, size={}, undo={}, heights={}...{}, time={}...{})", nBlocks, nSize, nUndoSize,
                       nHeightFirst, nHeightLast, nTimeFirst, nTimeLast);
}

namespace node {

arith_uint256 BlockManager::BlockProof(uint32_t n_bits) const
{
    if (!m_proof_cache || m_proof_cache->first != n_bits) m_proof_cache.emplace(n_bits, GetBlockProof(n_bits));
    return m_proof_cache->second;
}

CBlockIndex* BlockManager::LookupBlockIndex(const uint256& hash) const
{
    const auto it = m_block_index.find(hash);
    return it == m_block_index.end() ? nullptr : it->second.get();
}

CBlockIndex* BlockManager::AddToBlockIndex(const CBlockHeader& header)
{
    const uint256 hash = header.GetHash();
    if (CBlockIndex* known = LookupBlockIndex(hash)) return known;
    CBlockIndex* parent = nullptr;
    if (!header.hashPrevBlock.IsNull()) {
        parent = LookupBlockIndex(header.hashPrevBlock);
        if (!parent) return nullptr;
    }

    auto entry = std::make_unique<CBlockIndex>();
    entry->hash = hash;
    entry->pprev = parent;
    entry->nHeight = parent ? parent->nHeight + 1 : 0;
    entry->nVersion = header.nVersion;
    entry->hashMerkleRoot = header.hashMerkleRoot;
    entry->nTime = header.nTime;
    entry->nBits = header.nBits;
    entry->nNonce = header.nNonce;
    entry->nStatus = BLOCK_VALID_TREE;
    // A child of a failed block can never be part of a valid chain.
    if (parent && IsFailed(*parent)) entry->nStatus |= BLOCK_FAILED_CHILD;
    entry->nChainWork = (parent ? parent->nChainWork : arith_uint256{0}) + BlockProof(header.nBits);
    entry->nSequenceId = m_next_sequence_id++;

    CBlockIndex* added = m_block_index.emplace(hash, std::move(entry)).first->second.get();
    SetDirty(*added);
    if (!IsFailed(*added) && (!m_best_header || IsBetterHeader(*added, *m_best_header))) m_best_header = added;
    return added;
}

void BlockManager::RecomputeBestHeader()
{
    m_best_header = nullptr;
    for (const auto& [hash, entry] : m_block_index) {
        if (IsFailed(*entry)) continue;
        if (!m_best_header || IsBetterHeader(*entry, *m_best_header)) m_best_header = entry.get();
    }
}

void BlockManager::ClearIndex()
{
    m_block_index.clear();
    m_best_header = nullptr;
    m_next_sequence_id = 1;
    m_dirty_blockindex.clear();
    m_blockfile_info.clear();
    m_last_blockfile = 0;
    m_dirty_fileinfo.clear();
    m_have_pruned = false;
    m_pruned_flag_dirty = false;
}

void BlockManager::LoadFileInfos()
{
    int32_t last = 0;
    m_db->Read(DB_LAST_BLOCK, last);
    m_last_blockfile = std::max(last, int32_t{0});
    m_blockfile_info.assign(m_last_blockfile + 1, CBlockFileInfo{});
    for (int file = 0;; ++file) {
        DiskFileInfo disk;
        if (!m_db->Read(FileInfoKey{file}, disk)) {
            // Infos past 'l' would only exist after a crash between writes
            // that upstream also tolerates; stop at the first gap beyond it.
            if (file > m_last_blockfile) break;
            continue;
        }
        if (file >= static_cast<int>(m_blockfile_info.size())) m_blockfile_info.resize(file + 1);
        m_blockfile_info[file] = disk.info;
    }
    uint8_t flag = '0';
    m_have_pruned = m_db->Read(FlagKey{PRUNED_FLAG}, flag) && flag == '1';
}

bool BlockManager::LoadBlockRecords(std::vector<std::pair<CBlockIndex*, uint256>>& parents)
{
    auto it = m_db->NewIterator();
    for (it->Seek(DB_BLOCK_INDEX); it->Valid(); it->Next()) {
        BlockIndexKey key;
        if (!it->GetKey(key)) break;
        DiskBlockIndex disk;
        if (!it->GetValue(disk)) {
            LogError("LoadBlockIndex: cannot parse the index record of block {}", key.hash.GetHex());
            return false;
        }
        if (disk.header.GetHash() != key.hash) {
            LogError("LoadBlockIndex: the header stored under {} hashes to {}", key.hash.GetHex(), disk.header.GetHash().GetHex());
            return false;
        }
        auto entry = std::make_unique<CBlockIndex>();
        entry->hash = key.hash;
        entry->nHeight = disk.height;
        entry->nVersion = disk.header.nVersion;
        entry->hashMerkleRoot = disk.header.hashMerkleRoot;
        entry->nTime = disk.header.nTime;
        entry->nBits = disk.header.nBits;
        entry->nNonce = disk.header.nNonce;
        entry->nStatus = disk.status;
        entry->nTx = disk.tx_count;
        entry->nFile = disk.file;
        entry->nDataPos = disk.data_pos;
        entry->nUndoPos = disk.undo_pos;
        parents.emplace_back(entry.get(), disk.header.hashPrevBlock);
        m_block_index.emplace(key.hash, std::move(entry));
    }
    return true;
}

// Links pprev, checks that heights, flags and file numbers agree, then
// computes chain work parents first.
bool BlockManager::LinkAndCheckIndex(const std::vector<std::pair<CBlockIndex*, uint256>>& parents)
{
    for (const auto& [entry, prev_hash] : parents) {
        if (!prev_hash.IsNull()) {
            entry->pprev = LookupBlockIndex(prev_hash);
            if (!entry->pprev) {
                LogError("LoadBlockIndex: the parent {} of block {} is not in the index", prev_hash.GetHex(), entry->hash.GetHex());
                return false;
            }
        }
        const int expected_height = entry->pprev ? entry->pprev->nHeight + 1 : 0;
        if (entry->nHeight != expected_height) {
            LogError("LoadBlockIndex: block {} has height {}, its parent says {}", entry->hash.GetHex(), entry->nHeight, expected_height);
            return false;
        }
        const bool have_data = entry->nStatus & BLOCK_HAVE_DATA;
        const bool have_undo = entry->nStatus & BLOCK_HAVE_UNDO;
        if (have_undo && (!have_data || !entry->pprev)) {
            LogError("LoadBlockIndex: block {} has undo data without block data or without a parent", entry->hash.GetHex());
            return false;
        }
        if (have_data && (entry->nFile > m_last_blockfile || entry->nDataPos < STORAGE_HEADER_BYTES)) {
            LogError("LoadBlockIndex: block {} has an impossible position {}:{} (last block file {})", entry->hash.GetHex(), entry->nFile,
                     entry->nDataPos, m_last_blockfile);
            return false;
        }
    }

    std::vector<CBlockIndex*> by_height;
    by_height.reserve(m_block_index.size());
    for (const auto& [hash, entry] : m_block_index) by_height.push_back(entry.get());
    std::ranges::sort(by_height, {}, &CBlockIndex::nHeight);
    for (CBlockIndex* entry : by_height) {
        entry->nChainWork = (entry->pprev ? entry->pprev->nChainWork : arith_uint256{0}) + BlockProof(entry->nBits);
        entry->SetChainTxFromParent();
    }

    // Arrival order is not stored. Blocks were appended to the files in the
    // order they arrived, so file position is the best stand-in; headers
    // without data come after, by height, then hash to stay deterministic.
    const auto arrival_key = [](const CBlockIndex* entry) {
        const bool no_data = !(entry->nStatus & BLOCK_HAVE_DATA);
        return std::tuple{no_data, no_data ? 0 : entry->nFile, no_data ? 0u : entry->nDataPos, entry->nHeight, entry->hash};
    };
    std::ranges::sort(by_height, [&](const CBlockIndex* a, const CBlockIndex* b) { return arrival_key(a) < arrival_key(b); });
    for (CBlockIndex* entry : by_height) entry->nSequenceId = m_next_sequence_id++;
    return true;
}

bool BlockManager::CheckFilesPresent() const
{
    std::set<std::pair<FileKind, int>> needed;
    for (const auto& [hash, entry] : m_block_index) {
        if (entry->nStatus & BLOCK_HAVE_DATA) needed.emplace(FileKind::BLOCK, entry->nFile);
        if (entry->nStatus & BLOCK_HAVE_UNDO) needed.emplace(FileKind::UNDO, entry->nFile);
    }
    for (const auto& [kind, file] : needed) {
        if (!std::filesystem::exists(FilePath(kind, file))) {
            LogError("LoadBlockIndex: {} is missing", FilePath(kind, file).string());
            return false;
        }
    }
    return true;
}

bool BlockManager::LoadBlockIndex()
{
    ClearIndex();
    LoadFileInfos();
    std::vector<std::pair<CBlockIndex*, uint256>> parents;
    if (!LoadBlockRecords(parents) || !LinkAndCheckIndex(parents) || !CheckFilesPresent()) {
        ClearIndex();
        return false;
    }
    RecomputeBestHeader();
    LogInfo("Loaded {} block index entries; best header {} at height {}; last block file {}", m_block_index.size(),
            m_best_header ? m_best_header->hash.GetHex() : "(none)", m_best_header ? m_best_header->nHeight : -1, m_last_blockfile);
    return true;
}

std::optional<int> BlockManager::ReadStoredHeight(const std::filesystem::path& blocks_dir, const uint256& hash)
{
    const auto index_dir = blocks_dir / "index";
    // Opening a missing index would create an empty one.
    if (!std::filesystem::is_directory(index_dir)) return std::nullopt;
    const CDBWrapper db{DBParams{.path = index_dir, .cache_bytes = 1 << 20, .obfuscate = false}};
    DiskBlockIndex record;
    if (!db.Read(BlockIndexKey{hash}, record) || record.header.GetHash() != hash) return std::nullopt;
    return record.height;
}

bool BlockManager::WriteIndex()
{
    // The index must never point at block or undo bytes that a crash could
    // still take away, so the files go to disk first.
    if (!Sync()) {
        LogError("WriteIndex: block files could not be synced; the block index was not written");
        return false;
    }
    CDBBatch batch{*m_db};
    for (const int file : m_dirty_fileinfo) batch.Write(FileInfoKey{file}, DiskFileInfo{m_blockfile_info[file]});
    batch.Write(DB_LAST_BLOCK, int32_t{m_last_blockfile});
    for (const CBlockIndex* entry : m_dirty_blockindex) batch.Write(BlockIndexKey{entry->hash}, DiskBlockIndex::From(*entry));
    if (m_pruned_flag_dirty) batch.Write(FlagKey{PRUNED_FLAG}, uint8_t{'1'});
    m_db->WriteBatch(batch, /*sync=*/true);
    m_dirty_fileinfo.clear();
    m_dirty_blockindex.clear();
    m_pruned_flag_dirty = false;
    return true;
}

} // namespace node
