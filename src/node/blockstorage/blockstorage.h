#ifndef COINSDB_NODE_BLOCKSTORAGE_BLOCKSTORAGE_H
#define COINSDB_NODE_BLOCKSTORAGE_BLOCKSTORAGE_H

// Block storage laid out as Bitcoin Core lays it out under <datadir>/blocks/.
//
// blk?????.dat (blk00000.dat, blk00001.dat, ...), append-only records:
//   network magic (4) | LE32 size | block (size bytes, primitives/block.h)
// A block's data position (CBlockIndex::nDataPos) is the offset of its first
// byte, 8 past the record's start. A new block goes to the next file when it
// would make the current one reach max_blockfile_size (128 MiB; upstream's
// rule is "size + record >= max", so a file never quite reaches it); a block
// bigger than that on its own still goes alone into an empty file. Files are
// not pre-allocated, so they end at their last record.
//
// rev?????.dat, append-only records; rev N holds the undo data of blocks whose
// data is in blk N, in the order they were connected:
//   network magic (4) | LE32 size | undo (size bytes, opaque here)
//   | checksum (32) = SHA256d(hash of the block's *parent* (32, internal
//     order) || undo bytes)
// nUndoPos is the offset of the first undo byte. Upstream hashes the parent's
// hash, not the block's own, so a genesis block never has undo data.
//
// Both kinds of file are stored XORed with the key in blocks/xor.dat
// (node/blockstorage/obfuscation.h), byte by byte according to the offset in the
// file; all offsets and sizes above are those of the plain bytes, which are
// the stored ones too. The key is BlockManagerOptions::xor_key.
//
// blocks/index (LevelDB via CDBWrapper, not obfuscated, as upstream):
//   'b' (0x62) + block hash (32)  -> block index record, below
//   'f' (0x66) + LE32 file number -> file info, below
//   'l' (0x6c)                    -> LE32 number of the file being written
//   'F' (0x46) + CompactSize(len) + name -> '1' or '0' (one byte), e.g. "prunedblockfiles"
//
// Block index record (upstream's CDiskBlockIndex), VARINTs as in serialize.h:
//   VARINT(259900)   client version; upstream writes this constant, readers ignore it
//   VARINT(nHeight)
//   VARINT(nStatus)  BlockStatus bits below
//   VARINT(nTx)
//   VARINT(nFile)    only if nStatus has BLOCK_HAVE_DATA or BLOCK_HAVE_UNDO
//   VARINT(nDataPos) only if BLOCK_HAVE_DATA
//   VARINT(nUndoPos) only if BLOCK_HAVE_UNDO
//   the 80-byte header (nVersion, hashPrevBlock, ...; its hash must equal the key's)
//
// File info record (upstream's CBlockFileInfo), all VARINT:
//   nBlocks | nSize | nUndoSize | nHeightFirst | nHeightLast | nTimeFirst | nTimeLast
//
// Chain work is not stored: LoadBlockIndex recomputes it from nBits.

#include <kernel/chainparams.h>
#include <kernel/pow.h>
#include <node/blockstorage/obfuscation.h>
#include <node/blockstorage/record_file_writer.h>
#include <primitives/block.h>
#include <streams.h>
#include <uint256.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

class AutoFile;
class CDBWrapper;

// Where a record's payload starts: file number and byte offset.
struct FlatFilePos {
    int nFile{-1};
    unsigned int nPos{0};

    bool IsNull() const { return nFile == -1; }
    friend bool operator==(const FlatFilePos&, const FlatFilePos&) = default;
};

// nStatus bits, with upstream's values (they are stored in the index).
//
// The low three bits are a validity level, not flags: each level implies the
// ones below it. The other bits are independent flags.
//
//   HAVE_DATA HAVE_UNDO  nFile/nDataPos/nUndoPos   meaning
//   0         0          0 / 0 / 0                 header only, or pruned
//   1         0          blk file / offset / 0     block stored, not connected yet
//   1         1          blk file / offset / offset block stored and connected; undo in rev nFile
//   0         1          -                         invalid: pruning drops both together,
//                                                  and LoadBlockIndex rejects it
// A HAVE_DATA bit set wrongly sends ReadBlock to someone else's bytes (its hash
// check catches that); a HAVE_UNDO bit cleared wrongly makes the block
// impossible to disconnect. FAILED_VALID marks a block found invalid;
// FAILED_CHILD one that descends from such a block. Either keeps the block
// from being the best header.
enum BlockStatus : uint32_t {
    BLOCK_VALID_UNKNOWN = 0,
    BLOCK_VALID_RESERVED = 1,
    BLOCK_VALID_TREE = 2,         // header connects to the tree
    BLOCK_VALID_TRANSACTIONS = 3, // transactions seen and checked
    BLOCK_VALID_CHAIN = 4,
    BLOCK_VALID_SCRIPTS = 5,
    BLOCK_VALID_MASK = 7,
    BLOCK_HAVE_DATA = 8,
    BLOCK_HAVE_UNDO = 16,
    BLOCK_HAVE_MASK = BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO,
    BLOCK_FAILED_VALID = 32,
    BLOCK_FAILED_CHILD = 64,
    BLOCK_FAILED_MASK = BLOCK_FAILED_VALID | BLOCK_FAILED_CHILD,
    BLOCK_OPT_WITNESS = 128,
};

// One known header, with where its block and undo data are.
struct CBlockIndex {
    uint256 hash;
    CBlockIndex* pprev{nullptr};
    int nHeight{0};

    int32_t nVersion{0};
    uint256 hashMerkleRoot;
    uint32_t nTime{0};
    uint32_t nBits{0};
    uint32_t nNonce{0};

    uint32_t nStatus{0};
    unsigned int nTx{0};
    int nFile{0};
    unsigned int nDataPos{0};
    unsigned int nUndoPos{0};

    // Memory only: total work from the root up to and including this block.
    arith_uint256 nChainWork;
    // Memory only: arrival order, for ties in work (lower came first).
    uint64_t nSequenceId{0};
    // Memory only: transactions in the chain up to and including this block
    // (upstream's m_chain_tx_count), or 0 while the count of this block or
    // of an ancestor is unknown (a header without its block). Pruning keeps
    // it: nTx stays in the index.
    uint64_t nChainTx{0};

    const uint256& GetBlockHash() const { return hash; }
    CBlockHeader GetBlockHeader() const;
    int64_t GetBlockTime() const { return nTime; }
    FlatFilePos GetBlockPos() const;
    FlatFilePos GetUndoPos() const;

    bool IsValid(BlockStatus up_to = BLOCK_VALID_TRANSACTIONS) const;
    // Raises the validity level; false when already there or failed.
    bool RaiseValidity(BlockStatus up_to);
    // Walks pprev (linear; fine for storage's own needs). nullptr when out of range.
    const CBlockIndex* GetAncestor(int height) const;
    // Sets nChainTx from nTx and the parent's nChainTx; call parents first.
    void SetChainTxFromParent();
};

// What one blk/rev file pair holds.
struct CBlockFileInfo {
    unsigned int nBlocks{0};
    unsigned int nSize{0};     // bytes used in blk N
    unsigned int nUndoSize{0}; // bytes used in rev N
    unsigned int nHeightFirst{0};
    unsigned int nHeightLast{0};
    uint64_t nTimeFirst{0};
    uint64_t nTimeLast{0};

    void AddBlock(unsigned int height, uint64_t time);
    std::string ToString() const;
    friend bool operator==(const CBlockFileInfo&, const CBlockFileInfo&) = default;
};

namespace node {

constexpr uint64_t MAX_BLOCKFILE_SIZE{128 << 20};
// Upstream keeps at least this many blocks below the tip when pruning, so a
// reorg that deep can still be undone.
constexpr int MIN_BLOCKS_TO_KEEP{288};
// Bytes before each record's payload: magic + LE32 size.
constexpr unsigned int STORAGE_HEADER_BYTES{8};
// Upstream's limit on a serialized block (4,000,000 weight units).
constexpr uint32_t MAX_BLOCK_SERIALIZED_SIZE{4'000'000};

struct BlockHashHasher {
    // Block hashes are uniformly random where they are not zero, and the
    // zeros are at the end of the internal order.
    size_t operator()(const uint256& hash) const { return hash.GetUint64(0); }
};

using BlockMap = std::unordered_map<uint256, std::unique_ptr<CBlockIndex>, BlockHashHasher>;

struct BlockManagerOptions {
    std::filesystem::path blocks_dir;
    MessageStartChars magic{};
    // Tests shrink this to see files roll over; must be in [1, 2^32 - 1].
    uint64_t max_blockfile_size{MAX_BLOCKFILE_SIZE};
    size_t index_cache_bytes{2 << 20};
    // Key of every blk/rev file read and written (blocks/xor.dat; all zeros
    // for plain files). Files written with another key read as garbage.
    BlockFileXorKey xor_key{};
    // Wipes blocks/index only. blk/rev files stay, and new blocks overwrite
    // them from blk00000.dat on: read them (ReadBlockFile) before saving.
    bool wipe_index{false};
};

// Result of scanning a blk-format file.
struct BlockFileScan {
    size_t blocks{0};
    // Bytes that were not part of a record whose block parsed: padding,
    // garbage, a truncated last record.
    uint64_t skipped_bytes{0};
};

// The block index and the blk/rev files. Not thread-safe: callers hold their
// chainstate lock, as upstream holds cs_main.
//
// Durability follows upstream's order: block and undo bytes are fsynced
// before the index that points at them is written (WriteIndex), and pruned
// files are deleted only after the index no longer claims them.
class BlockManager
{
public:
    using Options = BlockManagerOptions;

    // Opens (creates) blocks_dir and blocks/index. Throws dbwrapper_error when
    // the index cannot be opened, std::invalid_argument on a bad option.
    explicit BlockManager(Options options);
    // Closes the files, fsyncing what was written. Does not write the index.
    ~BlockManager();
    BlockManager(const BlockManager&) = delete;
    BlockManager& operator=(const BlockManager&) = delete;

    // Replaces the in-memory index with the one on disk. False, with the
    // reason logged and the in-memory index empty, when it is inconsistent.
    bool LoadBlockIndex();

    // Adds a header whose parent is known (or whose hashPrevBlock is null: a
    // root at height 0). Returns the existing entry when already known,
    // nullptr when the parent is unknown.
    CBlockIndex* AddToBlockIndex(const CBlockHeader& header);
    CBlockIndex* LookupBlockIndex(const uint256& hash) const;
    const BlockMap& BlockIndex() const { return m_block_index; }
    // The non-failed header with the most work; of equal ones the first to arrive.
    CBlockIndex* BestHeader() const { return m_best_header; }
    // Callers that change nStatus (validity, failure) mark the entry so that
    // WriteIndex stores it, and recompute the best header after failures.
    void SetDirty(CBlockIndex& index) { m_dirty_blockindex.insert(&index); }
    void RecomputeBestHeader();

    // Appends the block to the current blk file, sets nTx, nFile, nDataPos
    // and BLOCK_HAVE_DATA. A block already stored is not written again. A
    // null position (logged) on an I/O failure. Throws std::logic_error when
    // the block is not the entry's. `serialized`, when not empty, is the
    // block's serialization (the bytes it was parsed from, ReadBlockFile):
    // written as it is instead of serializing the block again.
    FlatFilePos SaveBlock(const CBlock& block, CBlockIndex& index, std::span<const std::byte> serialized = {});
    // For -reindex: records that the block is already stored at pos (the
    // offset of its first byte in blk pos.nFile), as SaveBlock does after
    // writing it, without writing anything; the file's info grows to cover
    // the record, and later blocks are appended after the last one. A block
    // already stored keeps its first position. Throws std::logic_error when
    // the block is not the entry's or pos cannot hold a record.
    void SetBlockStored(const CBlock& block, CBlockIndex& index, const FlatFilePos& pos);
    // False (logged) when the data is missing, unreadable or not this block.
    bool ReadBlock(CBlock& block, const CBlockIndex& index) const;

    // Appends undo data to rev nFile of a stored block and sets nUndoPos and
    // BLOCK_HAVE_UNDO; true without writing when it is already there. Throws
    // std::logic_error for a block without data or without a parent.
    bool WriteUndo(std::span<const std::byte> undo, CBlockIndex& index);
    // nullopt (logged) when missing, unreadable or the checksum differs.
    std::optional<std::vector<std::byte>> ReadUndo(const CBlockIndex& index) const;

    // Waits until every record written so far is in the open blk/rev files:
    // their writers write them on threads of their own (RecordFileWriter).
    // Reads through this class do it themselves.
    void Flush();
    // Flush, then fdatasync of the open blk/rev files; false (logged) on
    // failure, and from any failed write on.
    bool Sync();
    // Syncs the files, then writes every changed index entry, file info, the
    // last file number and pending flags in one synced batch. Call before
    // flushing a chainstate, so the chainstate never refers to blocks the
    // index does not know. False, with nothing written, when the sync fails;
    // a database failure throws dbwrapper_error.
    bool WriteIndex();

    // Bytes used by blk and rev files together.
    uint64_t CalculateCurrentUsage() const;
    // Files to delete, lowest first, to get usage below target_bytes. Never
    // the file being written, nor one holding a block above
    // tip_height - keep_last_blocks.
    std::vector<int> FindFilesToPrune(uint64_t target_bytes, int tip_height, int keep_last_blocks = MIN_BLOCKS_TO_KEEP) const;
    // Forgets the files' blocks (HAVE_DATA/HAVE_UNDO cleared), empties their
    // file infos, sets "prunedblockfiles", writes the index, and only then
    // deletes blk N and rev N. Throws std::logic_error for the file being
    // written or one that does not exist.
    void PruneFiles(const std::vector<int>& files);
    bool IsPruned() const { return m_have_pruned; }

    int LastBlockFile() const { return m_last_blockfile; }
    const BlockFileXorKey& XorKey() const { return m_options.xor_key; }
    // nullptr for a file number never used.
    const CBlockFileInfo* GetBlockFileInfo(int file) const;
    std::filesystem::path BlockFilePath(int file) const;
    std::filesystem::path UndoFilePath(int file) const;

    // Reads any blk-format file (ours, or Bitcoin Core's blk?????.dat) in
    // order, de-obfuscating it with xor_key (external -loadblock files are
    // plain: all zeros), calling back with each block and the offset of its
    // first byte. Like upstream's -loadblock import it scans for the
    // magic, so padding and garbage between records are skipped, as is a
    // record whose size is out of range or whose block does not parse; a
    // truncated last record ends the scan. nullopt when the file cannot be
    // opened. The block is shared, so a caller that keeps it (ProcessBlock)
    // does not copy it. `serialized` is the bytes it was parsed from, for
    // SaveBlock to store as they are: valid during the callback, empty when
    // the record held more bytes than its block. `prepare`, when given,
    // sees each block first, on a thread of its own between the one that
    // parses ahead and the callbacks: work that needs no other block
    // (kernel::CheckBlock, which marks a block that passes) leaves the
    // callback's thread. An exception it throws ends the scan and reaches
    // the caller.
    using BlockFileCallback = std::function<void(const std::shared_ptr<const CBlock>& block, uint64_t data_pos, std::span<const std::byte> serialized)>;
    using BlockPrepare = std::function<void(const CBlock& block)>;
    static std::optional<BlockFileScan> ReadBlockFile(const std::filesystem::path& path, const MessageStartChars& magic,
                                                      const BlockFileCallback& callback, const BlockFileXorKey& xor_key = {},
                                                      const BlockPrepare& prepare = {});

    // The header of each block record of a blk-format file, in file order,
    // without reading the rest of the block: for a look at a -loadblock
    // file's chain before importing it. Finds the records ReadBlockFile
    // finds, except that a record whose block does not parse is passed on
    // here (its header is all that is read). The number of records, or
    // nullopt when the file cannot be opened.
    using BlockHeaderCallback = std::function<void(const CBlockHeader& header)>;
    static std::optional<size_t> ReadBlockFileHeaders(const std::filesystem::path& path, const MessageStartChars& magic,
                                                      const BlockHeaderCallback& callback, const BlockFileXorKey& xor_key = {});

    // The height blocks_dir/index records for hash, without loading the
    // index: for a chainstate whose blocks are not being replayed (a
    // snapshot chainstate is active), whose height the index alone knows.
    // nullopt when there is no index or no valid record for hash. Throws
    // dbwrapper_error when the index cannot be opened.
    static std::optional<int> ReadStoredHeight(const std::filesystem::path& blocks_dir, const uint256& hash);

private:
    enum class FileKind { BLOCK, UNDO };
    // A file kept open for writing. It is fsynced before it is closed, so
    // Sync() over the open handles covers every write.
    struct WriteHandle {
        int file{-1};
        std::unique_ptr<RecordFileWriter> writer;
        bool unsynced{false};
    };

    std::filesystem::path FilePath(FileKind kind, int file) const;
    WriteHandle& HandleFor(FileKind kind);
    bool OpenForWrite(FileKind kind, int file);
    bool SyncHandle(WriteHandle& handle);
    void CloseHandle(WriteHandle& handle);
    // A record is in its file only once its writer has written it: before
    // a read of `file`, the writer that has it open flushes.
    void FlushForRead(FileKind kind, int file) const;
    // A record is built in m_record: StartRecord writes the magic and a
    // blank size, the caller appends the payload, EndPayload fills in its
    // size, the caller appends any trailer, and WriteRecord hands the bytes
    // to the file's writer, which obfuscates them and writes them at pos.
    void StartRecord();
    // The payload's size, or nullopt when it does not fit the 32-bit field.
    std::optional<uint32_t> EndPayload();
    bool WriteRecord(FileKind kind, int file, unsigned int pos);
    std::optional<std::vector<std::byte>> ReadRecord(FileKind kind, const FlatFilePos& pos, size_t trailer_bytes) const;

    int FindBlockFile(unsigned int add_size);
    arith_uint256 BlockProof(uint32_t n_bits) const;
    void ClearIndex();
    void LoadFileInfos();
    bool LoadBlockRecords(std::vector<std::pair<CBlockIndex*, uint256>>& parents);
    bool LinkAndCheckIndex(const std::vector<std::pair<CBlockIndex*, uint256>>& parents);
    bool CheckFilesPresent() const;

    Options m_options;
    std::unique_ptr<CDBWrapper> m_db;

    BlockMap m_block_index;
    CBlockIndex* m_best_header{nullptr};
    uint64_t m_next_sequence_id{1};
    std::set<CBlockIndex*> m_dirty_blockindex;

    std::vector<CBlockFileInfo> m_blockfile_info;
    int m_last_blockfile{0};
    std::set<int> m_dirty_fileinfo;
    bool m_have_pruned{false};
    bool m_pruned_flag_dirty{false};

    WriteHandle m_block_handle;
    WriteHandle m_undo_handle;
    // Set by any failed write or sync of a blk or rev file, and never
    // cleared: a writer writes records after SaveBlock or WriteUndo report
    // them stored, so some may have been lost with it, and Sync() (hence
    // WriteIndex) must fail from then on, so that no index on disk claims
    // them.
    bool m_write_failed{false};
    // The record being built. A block is serialized (or copied) once, into
    // the buffer that is written; after each record this takes a buffer the
    // writer is done with, so none is allocated and faulted in per block.
    std::vector<std::byte> m_record;

    // nBits changes once per retarget period, so one entry saves almost all
    // of the 256-bit divisions when loading a long chain.
    mutable std::optional<std::pair<uint32_t, arith_uint256>> m_proof_cache;
};

} // namespace node

#endif // COINSDB_NODE_BLOCKSTORAGE_BLOCKSTORAGE_H
