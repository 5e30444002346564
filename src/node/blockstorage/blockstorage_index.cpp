// The block index half of BlockManager: CBlockIndex, the records in
// blocks/index (formats at the top of node/blockstorage/blockstorage.h), loading and
// writing them, and the best header.

#include <node/blockstorage/blockstorage.h>

#include <dbwrapper.h>
#include <serialize.h>
#include <util/log.h>

#include <algorithm>
#include <cassert>
#include <limits>
#include <string_view>
#include <tuple>

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

ChainWork BlockManager::BlockProof(uint32_t n_bits) const
{
    if (!m_proof_cache || m_proof_cache->first != n_bits) m_proof_cache.emplace(n_bits, BlockProofFromCompact(n_bits));
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
    entry->nChainWork = (parent ? parent->nChainWork : ChainWork{}) + BlockProof(header.nBits);
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
        entry->nChainWork = (entry->pprev ? entry->pprev->nChainWork : ChainWork{}) + BlockProof(entry->nBits);
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
