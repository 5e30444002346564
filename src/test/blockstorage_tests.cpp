// BlockManager: blk/rev records byte for byte, file rollover, undo checksums,
// the block index's LevelDB records and reload, best header selection,
// pruning, and scanning blk-format files (Bitcoin Core's own blk00000.dat
// from ../shared/vectors, and files with padding, garbage and truncation).
//
// Expected bytes are built here from the format (magic, LE32, SHA256d over
// raw bytes), not through BlockManager's own read path.

#include <consensus/merkle.h>
#include <dbwrapper.h>
#include <hash.h>
#include <kernel/pow.h>
#include <node/blockstorage/blockstorage.h>
#include <streams.h>
#include <test/util/setup.h>
#include <test/util/stream_helpers.h>
#include <test/util/vectors.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using node::BlockManager;

namespace {

constexpr uint32_t REGTEST_BITS{0x207fffff};
const MessageStartChars REGTEST_MAGIC{0xfa, 0xbf, 0xb5, 0xda};
constexpr std::string_view REGTEST_MAGIC_HEX{"fabfb5da"};

// A block whose coinbase scriptSig carries `tag`, so every tag gives a
// different block; blocks with equal padding have equal sizes.
CBlock MakeBlock(const uint256& prev, uint32_t tag, size_t padding = 0, uint32_t bits = REGTEST_BITS)
{
    CScript sig(4 + padding, 0);
    std::memcpy(sig.data(), &tag, 4);
    CMutableTransaction coinbase;
    coinbase.vin.emplace_back(COutPoint{}, sig);
    coinbase.vout.emplace_back(50'0000'0000, CScript{0x51});
    CBlock block;
    block.nVersion = 0x20000000;
    block.hashPrevBlock = prev;
    block.nTime = 1'700'000'000 + tag;
    block.nBits = bits;
    block.nNonce = tag;
    block.vtx.push_back(MakeTransactionRef(std::move(coinbase)));
    block.hashMerkleRoot = BlockMerkleRoot(block);
    return block;
}

// `count` blocks on top of `prev` (a new root when null), tags from `first_tag`.
std::vector<CBlock> MakeChain(size_t count, uint256 prev = {}, uint32_t first_tag = 0, size_t padding = 0)
{
    std::vector<CBlock> chain;
    for (size_t i = 0; i < count; ++i) {
        chain.push_back(MakeBlock(prev, first_tag + static_cast<uint32_t>(i), padding));
        prev = chain.back().GetHash();
    }
    return chain;
}

// Bytes a block takes in a blk file: magic + LE32 size + block.
size_t RecordSize(const CBlock& block) { return node::STORAGE_HEADER_BYTES + Serialized(block).size(); }

std::string Le32Hex(uint32_t value) { return HexStr(std::as_bytes(std::span{&value, 1})); }

std::string VarIntHex(uint64_t value)
{
    DataStream stream;
    WriteVarInt(stream, value);
    return HexStr(stream.Unread());
}

std::string FileHex(const std::filesystem::path& path)
{
    const std::string bytes = ReadFileToString(path);
    return HexStr(std::as_bytes(std::span{bytes}));
}

void WriteFile(const std::filesystem::path& path, std::span<const unsigned char> bytes)
{
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::byte> UndoBytes(size_t size, unsigned char seed)
{
    std::vector<std::byte> bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = std::byte(seed + i * 7);
    return bytes;
}

// SHA256d(parent hash || undo), from raw bytes.
uint256 ExpectedUndoChecksum(const uint256& parent, std::span<const std::byte> undo)
{
    std::vector<unsigned char> data(parent.begin(), parent.end());
    const auto* raw = reinterpret_cast<const unsigned char*>(undo.data());
    data.insert(data.end(), raw, raw + undo.size());
    return Hash256(data);
}

// Every key and value of blocks/index, as hex.
std::map<std::string, std::string> RawIndex(const std::filesystem::path& blocks_dir)
{
    CDBWrapper db{DBParams{.path = blocks_dir / "index", .obfuscate = false}};
    std::map<std::string, std::string> entries;
    auto it = db.NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) entries[HexStr(it->RawKey())] = HexStr(it->DeobfuscatedValue());
    return entries;
}

std::string BlockKeyHex(const uint256& hash) { return "62" + HexStr(std::span{hash.begin(), hash.end()}); }

// A key or value that is its bytes alone, for editing blocks/index directly.
struct RawBytes {
    std::vector<unsigned char> bytes;

    template <typename Stream>
    void Serialize(Stream& s) const { s.write(std::as_bytes(std::span{bytes})); }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        bytes.resize(s.size());
        s.read(std::as_writable_bytes(std::span{bytes}));
    }
};

struct BlockStorageSetup : public TempDirFixture {
    std::filesystem::path m_blocks_dir{m_path / "blocks"};

    BlockManager::Options Options(uint64_t max_blockfile_size = node::MAX_BLOCKFILE_SIZE, bool wipe = false) const
    {
        return {.blocks_dir = m_blocks_dir, .magic = REGTEST_MAGIC, .max_blockfile_size = max_blockfile_size,
                .index_cache_bytes = 1 << 20, .wipe_index = wipe};
    }
};

CBlockIndex* AddAndSave(BlockManager& blockman, const CBlock& block)
{
    CBlockIndex* index = blockman.AddToBlockIndex(block);
    BOOST_REQUIRE(index);
    BOOST_REQUIRE(!blockman.SaveBlock(block, *index).IsNull());
    return index;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(blockstorage_tests, BlockStorageSetup)

BOOST_AUTO_TEST_CASE(save_and_read_round_trip)
{
    BlockManager blockman{Options()};
    BOOST_REQUIRE(blockman.LoadBlockIndex());
    const auto chain = MakeChain(4);
    std::vector<CBlockIndex*> entries;
    std::string expected_file;
    unsigned int expected_pos = node::STORAGE_HEADER_BYTES;
    for (const CBlock& block : chain) {
        CBlockIndex* index = blockman.AddToBlockIndex(block);
        BOOST_REQUIRE(index);
        const FlatFilePos pos = blockman.SaveBlock(block, *index);
        BOOST_CHECK(pos == (FlatFilePos{0, expected_pos}));
        BOOST_CHECK_EQUAL(index->nStatus, BLOCK_VALID_TREE | BLOCK_HAVE_DATA);
        BOOST_CHECK_EQUAL(index->nTx, 1u);
        const auto bytes = Serialized(block);
        expected_file += std::string{REGTEST_MAGIC_HEX} + Le32Hex(bytes.size()) + HexStr(bytes);
        expected_pos += node::STORAGE_HEADER_BYTES + bytes.size();
        entries.push_back(index);
    }
    // Records reach the file on the writer's thread: Flush waits for them.
    blockman.Flush();
    BOOST_CHECK_EQUAL(FileHex(blockman.BlockFilePath(0)), expected_file);

    for (size_t i = 0; i < chain.size(); ++i) {
        CBlock read;
        BOOST_REQUIRE(blockman.ReadBlock(read, *entries[i]));
        BOOST_CHECK_EQUAL(HexStr(Serialized(read)), HexStr(Serialized(chain[i])));
    }

    // Saving again writes nothing and returns the same position.
    BOOST_CHECK(blockman.SaveBlock(chain[2], *entries[2]) == entries[2]->GetBlockPos());
    BOOST_CHECK_EQUAL(FileHex(blockman.BlockFilePath(0)), expected_file);
    BOOST_CHECK_EQUAL(blockman.GetBlockFileInfo(0)->nSize, expected_pos - node::STORAGE_HEADER_BYTES);
    BOOST_CHECK_THROW(blockman.SaveBlock(chain[1], *entries[2]), std::logic_error);

    // A header without data, and an entry pointing at another block's bytes.
    const CBlock orphan_data = MakeBlock(chain.back().GetHash(), 99);
    CBlockIndex* header_only = blockman.AddToBlockIndex(orphan_data);
    CBlock read;
    BOOST_CHECK(!blockman.ReadBlock(read, *header_only));
    CBlockIndex wrong = *entries[1];
    wrong.nDataPos = entries[2]->nDataPos;
    logging::StartCapture();
    BOOST_CHECK(!blockman.ReadBlock(read, wrong));
    BOOST_CHECK(logging::StopCapture().find("ReadBlock: GetHash() doesn't match index for " + entries[1]->hash.GetHex() + " at 0:" +
                                            std::to_string(entries[2]->nDataPos)) != std::string::npos);
    // A position that is not a record start fails on the magic.
    wrong.nDataPos = entries[2]->nDataPos + 1;
    BOOST_CHECK(!blockman.ReadBlock(read, wrong));
}

BOOST_AUTO_TEST_CASE(file_rollover)
{
    const auto chain = MakeChain(7);
    const size_t record = RecordSize(chain[0]);
    BOOST_REQUIRE(std::ranges::all_of(chain, [&](const CBlock& b) { return RecordSize(b) == record; }));

    // Upstream moves on when size + record >= max, so a max of exactly two
    // records holds one block per file and one more byte holds two.
    {
        BlockManager blockman{Options(2 * record)};
        for (size_t i = 0; i < 3; ++i) BOOST_CHECK_EQUAL(AddAndSave(blockman, chain[i])->nFile, static_cast<int>(i));
    }
    std::filesystem::remove_all(m_blocks_dir);

    BlockManager blockman{Options(2 * record + 1)};
    std::vector<CBlockIndex*> entries;
    for (const CBlock& block : chain) entries.push_back(AddAndSave(blockman, block));
    for (size_t i = 0; i < chain.size(); ++i) {
        BOOST_CHECK_EQUAL(entries[i]->nFile, static_cast<int>(i / 2));
        BOOST_CHECK_EQUAL(entries[i]->nDataPos, (i % 2) * record + node::STORAGE_HEADER_BYTES);
    }
    BOOST_CHECK_EQUAL(blockman.LastBlockFile(), 3);
    // A file left for the next is synced, so whole; the last one once
    // flushed (its records are written on a thread of their own).
    for (int file = 0; file < 3; ++file) {
        BOOST_CHECK_EQUAL(std::filesystem::file_size(blockman.BlockFilePath(file)), 2 * record);
        const CBlockFileInfo* info = blockman.GetBlockFileInfo(file);
        BOOST_REQUIRE(info);
        BOOST_CHECK(*info == (CBlockFileInfo{2, static_cast<unsigned>(2 * record), 0, unsigned(2 * file), unsigned(2 * file + 1),
                                             chain[2 * file].nTime, chain[2 * file + 1].nTime}));
    }
    blockman.Flush();
    BOOST_CHECK_EQUAL(std::filesystem::file_size(blockman.BlockFilePath(3)), record);
    BOOST_CHECK(!blockman.GetBlockFileInfo(4));
    for (size_t i = 0; i < chain.size(); ++i) {
        CBlock read;
        BOOST_REQUIRE(blockman.ReadBlock(read, *entries[i]));
        BOOST_CHECK(read.GetHash() == chain[i].GetHash());
    }

    // A block bigger than the maximum goes alone into an empty file.
    const CBlock big = MakeBlock(chain.back().GetHash(), 100, /*padding=*/3 * record);
    CBlockIndex* big_index = AddAndSave(blockman, big);
    BOOST_CHECK_EQUAL(big_index->nFile, 4);
    BOOST_CHECK_EQUAL(big_index->nDataPos, node::STORAGE_HEADER_BYTES);
    const CBlock after = MakeBlock(big.GetHash(), 101);
    BOOST_CHECK_EQUAL(AddAndSave(blockman, after)->nFile, 5);
}

BOOST_AUTO_TEST_CASE(undo_round_trip_and_checksum)
{
    const auto chain = MakeChain(5);
    const size_t record = RecordSize(chain[0]);
    BlockManager blockman{Options(2 * record + 1)};
    std::vector<CBlockIndex*> entries;
    for (const CBlock& block : chain) entries.push_back(AddAndSave(blockman, block));

    BOOST_CHECK_THROW(blockman.WriteUndo(UndoBytes(3, 0), *entries[0]), std::logic_error); // no parent
    CBlockIndex* header_only = blockman.AddToBlockIndex(MakeBlock(chain.back().GetHash(), 50));
    BOOST_CHECK_THROW(blockman.WriteUndo(UndoBytes(3, 0), *header_only), std::logic_error);

    std::map<int, std::string> expected_rev;
    for (size_t i = 1; i < chain.size(); ++i) {
        const auto undo = UndoBytes(10 * i, static_cast<unsigned char>(i)); // block 1 gets 10 bytes, ...
        const int file = entries[i]->nFile;
        const unsigned int expected_pos = expected_rev[file].size() / 2 + node::STORAGE_HEADER_BYTES;
        BOOST_REQUIRE(blockman.WriteUndo(undo, *entries[i]));
        BOOST_CHECK(entries[i]->GetUndoPos() == (FlatFilePos{file, expected_pos}));
        BOOST_CHECK(entries[i]->nStatus & BLOCK_HAVE_UNDO);
        const uint256 checksum = ExpectedUndoChecksum(chain[i].hashPrevBlock, undo);
        expected_rev[file] += std::string{REGTEST_MAGIC_HEX} + Le32Hex(undo.size()) + HexStr(undo) +
                              HexStr(std::span{checksum.begin(), checksum.end()});
    }
    // Rev N pairs with blk N: blocks 1 -> rev 0; 2, 3 -> rev 1; 4 -> rev 2.
    BOOST_CHECK_EQUAL(expected_rev.size(), 3u);
    blockman.Flush();
    for (const auto& [file, hex] : expected_rev) {
        BOOST_CHECK_EQUAL(FileHex(blockman.UndoFilePath(file)), hex);
        BOOST_CHECK_EQUAL(blockman.GetBlockFileInfo(file)->nUndoSize, hex.size() / 2);
    }
    for (size_t i = 1; i < chain.size(); ++i) {
        const auto read = blockman.ReadUndo(*entries[i]);
        BOOST_REQUIRE(read);
        BOOST_CHECK(*read == UndoBytes(10 * i, static_cast<unsigned char>(i)));
    }
    // Writing again is a no-op.
    BOOST_CHECK(blockman.WriteUndo(UndoBytes(1, 1), *entries[1]));
    BOOST_CHECK_EQUAL(FileHex(blockman.UndoFilePath(0)), expected_rev[0]);
    BOOST_CHECK(!blockman.ReadUndo(*entries[0]));

    // One flipped bit in the checksum, then in the undo bytes, is rejected.
    BOOST_REQUIRE(blockman.Sync());
    const auto flip = [](const std::filesystem::path& path, uint64_t offset) {
        std::fstream file{path, std::ios::in | std::ios::out | std::ios::binary};
        file.seekg(offset);
        char byte;
        file.read(&byte, 1);
        byte ^= 0x01;
        file.seekp(offset);
        file.write(&byte, 1);
    };
    const uint64_t block3_checksum = entries[3]->nUndoPos + 30;
    flip(blockman.UndoFilePath(1), block3_checksum + 31);
    logging::StartCapture();
    BOOST_CHECK(!blockman.ReadUndo(*entries[3]));
    BOOST_CHECK(logging::StopCapture().find("ReadUndo: checksum mismatch for block " + entries[3]->hash.GetHex() + " at 1:" +
                                            std::to_string(entries[3]->nUndoPos)) != std::string::npos);
    flip(blockman.UndoFilePath(1), block3_checksum + 31);
    BOOST_CHECK(blockman.ReadUndo(*entries[3]));
    flip(blockman.UndoFilePath(1), entries[3]->nUndoPos);
    BOOST_CHECK(!blockman.ReadUndo(*entries[3]));
    // Its neighbour in the same file is untouched.
    BOOST_CHECK(blockman.ReadUndo(*entries[2]));
}

BOOST_AUTO_TEST_CASE(index_records_byte_format)
{
    const auto chain = MakeChain(2);
    uint256 hash0, hash1;
    std::string data_pos1;
    {
        BlockManager blockman{Options()};
        CBlockIndex* genesis = AddAndSave(blockman, chain[0]);
        CBlockIndex* block1 = AddAndSave(blockman, chain[1]);
        BOOST_REQUIRE(blockman.WriteUndo(UndoBytes(5, 9), *block1));
        BOOST_REQUIRE(blockman.WriteIndex());
        hash0 = genesis->hash;
        hash1 = block1->hash;
        data_pos1 = VarIntHex(block1->nDataPos);
    }
    const auto raw = RawIndex(m_blocks_dir);
    const std::string version = "8eed3c"; // VARINT(259900)
    // genesis: height 0, status TREE|HAVE_DATA (0x0a), nTx 1, file 0, data at 8.
    BOOST_CHECK_EQUAL(raw.at(BlockKeyHex(hash0)), version + "00" + "0a" + "01" + "00" + "08" + HexStr(Serialized(chain[0].GetBlockHeader())));
    // block 1: status TREE|HAVE_DATA|HAVE_UNDO (0x1a), undo at 8.
    BOOST_CHECK_EQUAL(raw.at(BlockKeyHex(hash1)),
                      version + "01" + "1a" + "01" + "00" + data_pos1 + "08" + HexStr(Serialized(chain[1].GetBlockHeader())));
    const size_t blk_size = RecordSize(chain[0]) + RecordSize(chain[1]);
    const size_t rev_size = node::STORAGE_HEADER_BYTES + 5 + 32;
    BOOST_CHECK_EQUAL(raw.at("6600000000"), "02" + VarIntHex(blk_size) + VarIntHex(rev_size) + "00" + "01" + VarIntHex(chain[0].nTime) +
                                                VarIntHex(chain[1].nTime));
    BOOST_CHECK_EQUAL(raw.at("6c"), "00000000");
    BOOST_CHECK_EQUAL(raw.size(), 4u); // two blocks, one file, 'l'; no flag until something is pruned
}

BOOST_AUTO_TEST_CASE(index_persisted_and_reloaded)
{
    const auto main_chain = MakeChain(6);
    const auto fork = MakeChain(2, main_chain[2].GetHash(), 1000);
    const size_t record = RecordSize(main_chain[0]);
    // Copies taken before the first manager (and the entries pprev points
    // at) goes away.
    struct Saved {
        CBlockIndex entry;
        CBlockHeader header;
    };
    std::map<uint256, Saved> before;
    uint256 best;
    {
        BlockManager blockman{Options(2 * record + 1)};
        BOOST_REQUIRE(blockman.LoadBlockIndex());
        for (const CBlock& block : main_chain) AddAndSave(blockman, block);
        // The fork: one block stored, one header only.
        AddAndSave(blockman, fork[0]);
        BOOST_REQUIRE(blockman.AddToBlockIndex(fork[1]));
        for (int height = 1; height <= 3; ++height) {
            CBlockIndex* index = blockman.LookupBlockIndex(main_chain[height].GetHash());
            BOOST_REQUIRE(blockman.WriteUndo(UndoBytes(height, 0), *index));
            index->RaiseValidity(BLOCK_VALID_SCRIPTS);
            blockman.SetDirty(*index);
        }
        CBlockIndex* failed = blockman.LookupBlockIndex(fork[0].GetHash());
        failed->nStatus |= BLOCK_FAILED_VALID;
        blockman.SetDirty(*failed);
        blockman.RecomputeBestHeader();
        BOOST_REQUIRE(blockman.WriteIndex());
        for (const auto& [hash, entry] : blockman.BlockIndex()) {
            Saved saved{*entry, entry->GetBlockHeader()};
            saved.entry.pprev = nullptr;
            before.emplace(hash, saved);
        }
        best = blockman.BestHeader()->hash;
    }

    BlockManager blockman{Options(2 * record + 1)};
    BOOST_REQUIRE(blockman.LoadBlockIndex());
    BOOST_REQUIRE_EQUAL(blockman.BlockIndex().size(), before.size());
    for (const auto& [hash, saved] : before) {
        const CBlockIndex& old = saved.entry;
        const CBlockIndex* loaded = blockman.LookupBlockIndex(hash);
        BOOST_REQUIRE(loaded);
        BOOST_CHECK_EQUAL(loaded->nHeight, old.nHeight);
        BOOST_CHECK_EQUAL(loaded->nStatus, old.nStatus);
        BOOST_CHECK_EQUAL(loaded->nTx, old.nTx);
        BOOST_CHECK_EQUAL(loaded->nFile, old.nFile);
        BOOST_CHECK_EQUAL(loaded->nDataPos, old.nDataPos);
        BOOST_CHECK_EQUAL(loaded->nUndoPos, old.nUndoPos);
        BOOST_CHECK(loaded->GetBlockHeader() == saved.header);
        BOOST_CHECK_EQUAL((loaded->pprev ? loaded->pprev->hash : uint256{}).GetHex(), saved.header.hashPrevBlock.GetHex());
        BOOST_CHECK(loaded->nChainWork == old.nChainWork);
        BOOST_CHECK(loaded->nChainWork == arith_uint256{2 * (loaded->nHeight + 1)});
        BOOST_CHECK(!loaded->pprev || loaded->pprev->nChainWork < loaded->nChainWork);
    }
    BOOST_CHECK_EQUAL(blockman.BestHeader()->hash.GetHex(), best.GetHex());
    BOOST_CHECK_EQUAL(blockman.BestHeader()->hash.GetHex(), main_chain.back().GetHash().GetHex());
    BOOST_CHECK_EQUAL(blockman.LastBlockFile(), 3);
    BOOST_CHECK(blockman.GetBlockFileInfo(3)->nBlocks == 1);
    BOOST_CHECK(!blockman.IsPruned());
    const CBlockIndex* tip = blockman.BestHeader();
    BOOST_CHECK(tip->GetAncestor(2)->hash == main_chain[2].GetHash());
    BOOST_CHECK(tip->IsValid(BLOCK_VALID_TREE) && !tip->IsValid(BLOCK_VALID_SCRIPTS));
    BOOST_CHECK(tip->GetAncestor(3)->IsValid(BLOCK_VALID_SCRIPTS));

    // The reloaded entries still find their bytes.
    CBlock read;
    BOOST_CHECK(blockman.ReadBlock(read, *blockman.LookupBlockIndex(main_chain[4].GetHash())));
    BOOST_CHECK(read.GetHash() == main_chain[4].GetHash());
    BOOST_CHECK(blockman.ReadUndo(*blockman.LookupBlockIndex(main_chain[3].GetHash())) == UndoBytes(3, 0));

    // New blocks continue in the last file, after what is there.
    const CBlock next = MakeBlock(main_chain.back().GetHash(), 7000);
    CBlockIndex* next_index = AddAndSave(blockman, next);
    BOOST_CHECK(next_index->GetBlockPos() == (FlatFilePos{3, static_cast<unsigned>(record + node::STORAGE_HEADER_BYTES)}));
}

BOOST_AUTO_TEST_CASE(chain_tx_counts)
{
    // Blocks of 1, 3, 2 and 4 transactions, so that the count is no
    // function of the height; then a header without its block.
    std::vector<CBlock> chain;
    uint256 prev;
    for (const size_t txs : {1, 3, 2, 4}) {
        CBlock block = MakeBlock(prev, static_cast<uint32_t>(chain.size()));
        for (size_t i = 1; i < txs; ++i) {
            CMutableTransaction tx;
            tx.vin.emplace_back(COutPoint{block.vtx[0]->GetHash(), static_cast<uint32_t>(i)}, CScript{});
            tx.vout.emplace_back(1, CScript{0x51});
            block.vtx.push_back(MakeTransactionRef(std::move(tx)));
        }
        block.hashMerkleRoot = BlockMerkleRoot(block);
        prev = block.GetHash();
        chain.push_back(block);
    }
    const CBlock header_only = MakeBlock(prev, 99);
    const std::vector<uint64_t> expected{1, 4, 6, 10};
    {
        BlockManager blockman{Options()};
        BOOST_REQUIRE(blockman.LoadBlockIndex());
        for (const CBlock& block : chain) AddAndSave(blockman, block);
        BOOST_REQUIRE(blockman.AddToBlockIndex(header_only));
        BOOST_REQUIRE(blockman.WriteIndex());
    }
    BlockManager blockman{Options()};
    BOOST_REQUIRE(blockman.LoadBlockIndex());
    for (size_t i = 0; i < chain.size(); ++i) {
        const CBlockIndex* index = blockman.LookupBlockIndex(chain[i].GetHash());
        BOOST_REQUIRE(index);
        BOOST_CHECK_EQUAL(index->nTx, chain[i].vtx.size());
        BOOST_CHECK_EQUAL(index->nChainTx, expected[i]);
    }
    CBlockIndex* tip = blockman.LookupBlockIndex(header_only.GetHash());
    BOOST_CHECK_EQUAL(tip->nChainTx, 0U);
    // Once its block is counted, so is the chain through it.
    tip->nTx = 1;
    tip->SetChainTxFromParent();
    BOOST_CHECK_EQUAL(tip->nChainTx, 11U);
    // A block whose parent is not counted is not counted either.
    tip->pprev->nChainTx = 0;
    tip->SetChainTxFromParent();
    BOOST_CHECK_EQUAL(tip->nChainTx, 0U);
}

BOOST_AUTO_TEST_CASE(wipe_index)
{
    {
        BlockManager blockman{Options()};
        for (const CBlock& block : MakeChain(3)) AddAndSave(blockman, block);
        BOOST_REQUIRE(blockman.WriteIndex());
    }
    BlockManager blockman{Options(node::MAX_BLOCKFILE_SIZE, /*wipe=*/true)};
    BOOST_REQUIRE(blockman.LoadBlockIndex());
    BOOST_CHECK(blockman.BlockIndex().empty());
    BOOST_CHECK(!blockman.BestHeader());
    // The block file is left for a reindex to read.
    BOOST_CHECK(std::filesystem::exists(blockman.BlockFilePath(0)));
}

BOOST_AUTO_TEST_CASE(reindex_blocks_where_they_are)
{
    const node::BlockFileXorKey key{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                    std::byte{5}, std::byte{6}, std::byte{7}, std::byte{8}};
    const auto chain = MakeChain(5);
    auto options = Options(2 * RecordSize(chain[0]) + 1);
    options.xor_key = key;
    std::vector<FlatFilePos> positions;
    std::vector<CBlockFileInfo> infos;
    {
        BlockManager blockman{options};
        for (const CBlock& block : chain) positions.push_back(AddAndSave(blockman, block)->GetBlockPos());
        for (int file = 0; file <= blockman.LastBlockFile(); ++file) infos.push_back(*blockman.GetBlockFileInfo(file));
        BOOST_REQUIRE(blockman.WriteIndex());
    }
    const auto blk_before = FileHex(m_blocks_dir / "blk00001.dat");

    options.wipe_index = true;
    BlockManager blockman{options};
    BOOST_REQUIRE(blockman.LoadBlockIndex());
    for (int file = 0; file < 3; ++file) {
        BlockManager::ReadBlockFile(
            blockman.BlockFilePath(file), REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>& read, uint64_t pos, std::span<const std::byte>) {
                const CBlock& block = *read;
                CBlockIndex* index = blockman.AddToBlockIndex(block);
                BOOST_REQUIRE(index);
                blockman.SetBlockStored(block, *index, {file, static_cast<unsigned int>(pos)});
            },
            key);
    }
    // The same positions and file infos as when the blocks were written,
    // and not a byte written.
    for (size_t i = 0; i < chain.size(); ++i) {
        const CBlockIndex* index = blockman.LookupBlockIndex(chain[i].GetHash());
        BOOST_REQUIRE(index);
        BOOST_CHECK(index->GetBlockPos() == positions[i]);
        BOOST_CHECK_EQUAL(index->nStatus, BLOCK_VALID_TREE | BLOCK_HAVE_DATA);
        CBlock read;
        BOOST_CHECK(blockman.ReadBlock(read, *index));
    }
    BOOST_CHECK_EQUAL(blockman.LastBlockFile(), 2);
    for (int file = 0; file < 3; ++file) BOOST_CHECK(*blockman.GetBlockFileInfo(file) == infos[file]);
    BOOST_CHECK_EQUAL(FileHex(m_blocks_dir / "blk00001.dat"), blk_before);

    // Found a second time, a block keeps its first position.
    CBlockIndex* first = blockman.LookupBlockIndex(chain[0].GetHash());
    blockman.SetBlockStored(chain[0], *first, {2, positions[4].nPos});
    BOOST_CHECK(first->GetBlockPos() == positions[0]);
    BOOST_CHECK(*blockman.GetBlockFileInfo(2) == infos[2]);
    BOOST_CHECK_THROW(blockman.SetBlockStored(chain[1], *first, positions[1]), std::logic_error);
    BOOST_CHECK_THROW(blockman.SetBlockStored(chain[0], *first, {0, 7}), std::logic_error);

    // The next block goes after the last record, with the same key.
    const CBlock next = MakeBlock(chain.back().GetHash(), 77);
    CBlockIndex* added = AddAndSave(blockman, next);
    BOOST_CHECK(added->GetBlockPos() == (FlatFilePos{2, infos[2].nSize + node::STORAGE_HEADER_BYTES}));
    size_t in_last_file = 0;
    blockman.Flush();
    BlockManager::ReadBlockFile(
        blockman.BlockFilePath(2), REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) { ++in_last_file; }, key);
    BOOST_CHECK_EQUAL(in_last_file, 2u);
}

BOOST_AUTO_TEST_CASE(load_rejects_inconsistent_index)
{
    const auto chain = MakeChain(3);
    {
        BlockManager blockman{Options()};
        for (const CBlock& block : chain) AddAndSave(blockman, block);
        BOOST_REQUIRE(blockman.WriteIndex());
    }
    const auto expect_failure = [&](const std::string& reason) {
        BlockManager blockman{Options()};
        logging::StartCapture();
        BOOST_CHECK(!blockman.LoadBlockIndex());
        const std::string log = logging::StopCapture();
        BOOST_CHECK_MESSAGE(log.find(reason) != std::string::npos, "expected '" << reason << "' in: " << log);
        BOOST_CHECK(blockman.BlockIndex().empty());
        BOOST_CHECK(!blockman.BestHeader());
    };
    const auto edit = [&](const std::function<void(CDBWrapper&)>& change) {
        CDBWrapper db{DBParams{.path = m_blocks_dir / "index", .obfuscate = false}};
        change(db);
    };
    const auto key = [](const uint256& hash) { return RawBytes{*TryParseHex(BlockKeyHex(hash))}; };
    const uint256 hash1 = chain[1].GetHash();
    const uint256 hash2 = chain[2].GetHash();
    RawBytes record1, record2;
    edit([&](CDBWrapper& db) { BOOST_REQUIRE(db.Read(key(hash1), record1) && db.Read(key(hash2), record2)); });

    // Block 1's record under another hash.
    const uint256 other = MakeBlock({}, 555).GetHash();
    edit([&](CDBWrapper& db) { db.Write(key(other), record1); });
    expect_failure("LoadBlockIndex: the header stored under " + other.GetHex() + " hashes to " + hash1.GetHex());
    edit([&](CDBWrapper& db) { db.Erase(key(other)); });

    // Block 1 gone: block 2's parent is missing.
    edit([&](CDBWrapper& db) { db.Erase(key(hash1)); });
    expect_failure("LoadBlockIndex: the parent " + hash1.GetHex() + " of block " + hash2.GetHex() + " is not in the index");

    // Block 1 back; the tip with a height its parent contradicts (the byte after the version).
    edit([&](CDBWrapper& db) { db.Write(key(hash1), record1); });
    RawBytes wrong_height = record2;
    wrong_height.bytes[3] = 0x05;
    edit([&](CDBWrapper& db) { db.Write(key(hash2), wrong_height); });
    expect_failure("LoadBlockIndex: block " + hash2.GetHex() + " has height 5, its parent says 2");
    edit([&](CDBWrapper& db) { db.Write(key(hash2), record2); });

    // A record that does not parse.
    edit([&](CDBWrapper& db) { db.Write(key(hash1), RawBytes{{0x8e, 0xed}}); });
    expect_failure("LoadBlockIndex: cannot parse the index record of block " + hash1.GetHex());

    // Restored, it loads; without its block file it does not.
    edit([&](CDBWrapper& db) { db.Write(key(hash1), record1); });
    {
        BlockManager blockman{Options()};
        BOOST_REQUIRE(blockman.LoadBlockIndex());
        BOOST_CHECK_EQUAL(blockman.BlockIndex().size(), 3u);
    }
    std::filesystem::remove(m_blocks_dir / "blk00000.dat");
    expect_failure("LoadBlockIndex: " + (m_blocks_dir / "blk00000.dat").string() + " is missing");
}

BOOST_AUTO_TEST_CASE(best_header_and_forks)
{
    BlockManager blockman{Options()};
    const auto a = MakeChain(5); // heights 0..4
    const auto b = MakeChain(3, a[1].GetHash(), 100); // heights 2..4 off a[1]

    // Unknown parent, then idempotence.
    BOOST_CHECK(!blockman.AddToBlockIndex(a[1]));
    BOOST_CHECK(!blockman.BestHeader());
    CBlockIndex* root = blockman.AddToBlockIndex(a[0]);
    BOOST_REQUIRE(root);
    BOOST_CHECK(blockman.AddToBlockIndex(a[0]) == root);
    BOOST_CHECK_EQUAL(blockman.BlockIndex().size(), 1u);
    BOOST_CHECK_EQUAL(root->nHeight, 0);
    BOOST_CHECK_EQUAL(root->nStatus, BLOCK_VALID_TREE);
    BOOST_CHECK(blockman.BestHeader() == root);

    for (int h = 1; h <= 3; ++h) blockman.AddToBlockIndex(a[h]);
    CBlockIndex* a3 = blockman.LookupBlockIndex(a[3].GetHash());
    BOOST_CHECK(blockman.BestHeader() == a3);
    // b reaches the same work at height 3: the first to arrive stays.
    blockman.AddToBlockIndex(b[0]);
    CBlockIndex* b3 = blockman.AddToBlockIndex(b[1]);
    BOOST_CHECK(b3->nChainWork == a3->nChainWork);
    BOOST_CHECK(blockman.BestHeader() == a3);
    // b gets ahead; a catching up does not take it back.
    CBlockIndex* b4 = blockman.AddToBlockIndex(b[2]);
    BOOST_CHECK(blockman.BestHeader() == b4);
    CBlockIndex* a4 = blockman.AddToBlockIndex(a[4]);
    BOOST_CHECK(blockman.BestHeader() == b4);
    BOOST_CHECK_EQUAL(a4->nHeight, 4);
    BOOST_CHECK(a4->GetAncestor(1) == b4->GetAncestor(1));

    // b4 found invalid: a4 takes over; b4's children are failed too.
    b4->nStatus |= BLOCK_FAILED_VALID;
    blockman.SetDirty(*b4);
    blockman.RecomputeBestHeader();
    BOOST_CHECK(blockman.BestHeader() == a4);
    CBlockIndex* b5 = blockman.AddToBlockIndex(MakeBlock(b[2].GetHash(), 200));
    BOOST_CHECK(b5->nStatus & BLOCK_FAILED_CHILD);
    BOOST_CHECK(!b5->IsValid(BLOCK_VALID_TREE));
    BOOST_CHECK(blockman.BestHeader() == a4);

    // Most work, not most blocks: one harder block beats a longer easy branch.
    const CBlock hard = MakeBlock(a[0].GetHash(), 300, 0, /*bits=*/0x1f00ffff);
    CBlockIndex* hard_index = blockman.AddToBlockIndex(hard);
    BOOST_CHECK_EQUAL(hard_index->nHeight, 1);
    BOOST_CHECK(hard_index->nChainWork > a4->nChainWork);
    BOOST_CHECK(blockman.BestHeader() == hard_index);
}

BOOST_AUTO_TEST_CASE(find_files_to_prune)
{
    const auto chain = MakeChain(400);
    const size_t record = RecordSize(chain[0]);
    BlockManager blockman{Options(2 * record)}; // one block per file
    for (const CBlock& block : chain) BOOST_REQUIRE(blockman.AddToBlockIndex(block));
    // Block 350 arrives first, so file 0 holds a recent block and files
    // 1..400 hold heights 0..349, 351..399 in order.
    AddAndSave(blockman, chain[350]);
    for (size_t h = 0; h < chain.size(); ++h) {
        if (h != 350) AddAndSave(blockman, chain[h]);
    }
    BOOST_REQUIRE_EQUAL(blockman.LastBlockFile(), 399);
    const uint64_t usage = blockman.CalculateCurrentUsage();
    BOOST_CHECK_EQUAL(usage, 400 * record);

    const auto range = [](int first, int last) {
        std::vector<int> files;
        for (int f = first; f <= last; ++f) files.push_back(f);
        return files;
    };
    // Tip 399 keeps heights above 111: file 0 (height 350) is skipped but the
    // scan goes on; files 1..112 hold heights 0..111.
    BOOST_CHECK(blockman.FindFilesToPrune(0, 399) == range(1, 112));
    // Only as much as it takes to get strictly below the target.
    BOOST_CHECK(blockman.FindFilesToPrune(usage - 10 * record + 1, 399) == range(1, 10));
    BOOST_CHECK(blockman.FindFilesToPrune(usage - 10 * record, 399) == range(1, 11));
    BOOST_CHECK(blockman.FindFilesToPrune(usage + 1, 399).empty());
    // Too short a chain to prune anything; a smaller window; never the file being written.
    BOOST_CHECK(blockman.FindFilesToPrune(0, 287).empty());
    BOOST_CHECK(blockman.FindFilesToPrune(0, 288) == range(1, 1));
    BOOST_CHECK(blockman.FindFilesToPrune(0, 399, /*keep_last_blocks=*/0) == range(0, 398));

    // Undo data counts towards usage.
    BOOST_REQUIRE(blockman.WriteUndo(UndoBytes(60, 1), *blockman.LookupBlockIndex(chain[1].GetHash())));
    BOOST_CHECK_EQUAL(blockman.CalculateCurrentUsage(), usage + node::STORAGE_HEADER_BYTES + 60 + 32);
    BOOST_CHECK(blockman.FindFilesToPrune(usage + 100 - 10 * record + 1, 399) == range(1, 10));
}

BOOST_AUTO_TEST_CASE(prune_files)
{
    const auto chain = MakeChain(8);
    const size_t record = RecordSize(chain[0]);
    const size_t undo_record = node::STORAGE_HEADER_BYTES + 4 + 32;
    {
        BlockManager blockman{Options(2 * record + 1)}; // two blocks per file: 0 {0,1}, 1 {2,3}, 2 {4,5}, 3 {6,7}
        std::vector<CBlockIndex*> entries;
        for (const CBlock& block : chain) entries.push_back(AddAndSave(blockman, block));
        for (size_t i = 1; i < chain.size(); ++i) BOOST_REQUIRE(blockman.WriteUndo(UndoBytes(4, i), *entries[i]));
        BOOST_REQUIRE(blockman.WriteIndex());
        const uint64_t usage = blockman.CalculateCurrentUsage();
        BOOST_CHECK_EQUAL(usage, 8 * record + 7 * undo_record);

        BOOST_CHECK_THROW(blockman.PruneFiles({3}), std::logic_error);
        BOOST_CHECK_THROW(blockman.PruneFiles({9}), std::logic_error);
        BOOST_CHECK(!blockman.IsPruned());

        blockman.PruneFiles({0, 1});
        BOOST_CHECK(blockman.IsPruned());
        for (int file : {0, 1}) {
            BOOST_CHECK(!std::filesystem::exists(blockman.BlockFilePath(file)));
            BOOST_CHECK(!std::filesystem::exists(blockman.UndoFilePath(file)));
            BOOST_CHECK(*blockman.GetBlockFileInfo(file) == CBlockFileInfo{});
        }
        BOOST_CHECK(std::filesystem::exists(blockman.BlockFilePath(2)));
        BOOST_CHECK_EQUAL(blockman.CalculateCurrentUsage(), usage - 4 * record - 3 * undo_record);
        for (size_t i = 0; i < chain.size(); ++i) {
            const bool pruned = i < 4;
            BOOST_CHECK_EQUAL(entries[i]->nStatus & BLOCK_HAVE_MASK, pruned ? 0u : unsigned{BLOCK_HAVE_MASK});
            if (pruned) BOOST_CHECK(entries[i]->nFile == 0 && entries[i]->nDataPos == 0 && entries[i]->nUndoPos == 0);
        }
        CBlock read;
        BOOST_CHECK(!blockman.ReadBlock(read, *entries[2]));
        BOOST_CHECK(!blockman.ReadUndo(*entries[2]));
        BOOST_CHECK(blockman.ReadBlock(read, *entries[4]));
        // Already pruned files are not offered again.
        BOOST_CHECK(blockman.FindFilesToPrune(0, 1000) == (std::vector<int>{2}));
    }
    // The flag and the cleared entries were written by PruneFiles itself.
    const auto raw = RawIndex(m_blocks_dir);
    BOOST_CHECK_EQUAL(raw.at("4610" + HexStr(std::as_bytes(std::span{std::string_view{"prunedblockfiles"}}))), "31");
    BOOST_CHECK_EQUAL(raw.at("6600000000"), "00000000000000");

    BlockManager blockman{Options(2 * record + 1)};
    BOOST_REQUIRE(blockman.LoadBlockIndex());
    BOOST_CHECK(blockman.IsPruned());
    BOOST_CHECK_EQUAL(blockman.LookupBlockIndex(chain[3].GetHash())->nStatus, unsigned{BLOCK_VALID_TREE});
    BOOST_CHECK(blockman.LookupBlockIndex(chain[5].GetHash())->nStatus & BLOCK_HAVE_UNDO);
    BOOST_CHECK(blockman.ReadUndo(*blockman.LookupBlockIndex(chain[5].GetHash())) == UndoBytes(4, 5));
}

BOOST_AUTO_TEST_CASE(read_core_block_files, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const auto& [dir, expected] : CoreVectors("blocks.dat")) {
        const auto blocks_dat = dir / "blocks.dat";
        BOOST_TEST_CONTEXT(dir.filename())
        {
            const auto chain = ChainTypeFromString(expected["chain"].get<std::string>());
            BOOST_REQUIRE(chain);
            const auto params = CChainParams::ForChain(*chain);

            std::vector<CBlock> blocks;
            std::vector<uint64_t> offsets;
            const auto scan = BlockManager::ReadBlockFile(blocks_dat, params.MessageStart(), [&](const std::shared_ptr<const CBlock>& read, uint64_t pos, std::span<const std::byte>) {
                const CBlock& block = *read;
                blocks.push_back(block);
                offsets.push_back(pos);
            });
            BOOST_REQUIRE(scan);
            BOOST_CHECK_EQUAL(scan->blocks, expected["blocks_in_file"].get<size_t>());
            BOOST_CHECK_EQUAL(scan->skipped_bytes, 0u);
            BOOST_REQUIRE_EQUAL(blocks.size(), scan->blocks);
            BOOST_CHECK(blocks.front().GetHash() == params.GenesisHash());
            BOOST_CHECK_EQUAL(offsets.front(), node::STORAGE_HEADER_BYTES);

            // Storing Core's blocks in Core's order reproduces Core's file
            // byte for byte, and the index finds Core's tip.
            const auto store = m_path / dir.filename();
            BlockManager blockman{{.blocks_dir = store, .magic = params.MessageStart()}};
            for (size_t i = 0; i < blocks.size(); ++i) {
                CBlockIndex* index = AddAndSave(blockman, blocks[i]);
                BOOST_CHECK_EQUAL(index->nDataPos, offsets[i]);
            }
            blockman.Flush();
            BOOST_CHECK(ReadFileToString(blockman.BlockFilePath(0)) == ReadFileToString(blocks_dat));
            const CBlockIndex* best = blockman.BestHeader();
            BOOST_CHECK_EQUAL(best->hash.GetHex(), expected["base_blockhash"].get<std::string>());
            BOOST_CHECK_EQUAL(best->nHeight, expected["height"].get<int>());
            BOOST_CHECK(best->nChainWork == arith_uint256{2 * (best->nHeight + 1)});
        }
    }
}

// A record longer than its block: the block is read, but its bytes are not
// handed on (the record's are not the block's serialization).
BOOST_AUTO_TEST_CASE(read_block_file_gives_no_bytes_for_a_record_longer_than_its_block)
{
    const auto chain = MakeChain(2);
    std::vector<unsigned char> file;
    for (const CBlock& block : chain) {
        auto bytes = Serialized(block);
        const bool padded = &block == &chain[0];
        if (padded) bytes.insert(bytes.end(), {0x01, 0x02, 0x03});
        const uint32_t size = bytes.size();
        file.insert(file.end(), REGTEST_MAGIC.begin(), REGTEST_MAGIC.end());
        file.insert(file.end(), reinterpret_cast<const unsigned char*>(&size), reinterpret_cast<const unsigned char*>(&size) + 4);
        file.insert(file.end(), bytes.begin(), bytes.end());
    }
    const auto path = m_path / "padded.dat";
    WriteFile(path, file);
    std::vector<std::string> bytes_given;
    const auto scan = BlockManager::ReadBlockFile(path, REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>& read, uint64_t, std::span<const std::byte> serialized) {
        BOOST_CHECK(read->GetHash() == chain[bytes_given.size()].GetHash());
        bytes_given.push_back(HexStr(serialized));
    });
    BOOST_REQUIRE(scan);
    BOOST_REQUIRE_EQUAL(bytes_given.size(), 2u);
    BOOST_CHECK_EQUAL(bytes_given[0], "");
    BOOST_CHECK_EQUAL(bytes_given[1], HexStr(Serialized(chain[1])));
}

// SaveBlock from the bytes a block was read from writes the file that
// serializing it writes, and both read back as the block.
BOOST_AUTO_TEST_CASE(save_from_bytes_writes_what_serializing_writes)
{
    const auto chain = MakeChain(3);
    std::vector<std::string> files;
    for (const bool from_bytes : {false, true}) {
        const auto dir = m_path / (from_bytes ? "from_bytes" : "serialized");
        BlockManager blockman{{.blocks_dir = dir, .magic = REGTEST_MAGIC, .index_cache_bytes = 1 << 20}};
        BOOST_REQUIRE(blockman.LoadBlockIndex());
        for (const CBlock& block : chain) {
            CBlockIndex* index = blockman.AddToBlockIndex(block);
            BOOST_REQUIRE(index);
            const auto bytes = Serialized(block);
            const auto serialized = from_bytes ? std::as_bytes(std::span{bytes}) : std::span<const std::byte>{};
            BOOST_REQUIRE(!blockman.SaveBlock(block, *index, serialized).IsNull());
            CBlock read;
            BOOST_REQUIRE(blockman.ReadBlock(read, *index));
            BOOST_CHECK(read.GetHash() == block.GetHash());
            BOOST_CHECK_EQUAL(HexStr(Serialized(read)), HexStr(bytes));
        }
        files.push_back(FileHex(blockman.BlockFilePath(0)));
    }
    BOOST_CHECK_EQUAL(files[0], files[1]);
}

BOOST_AUTO_TEST_CASE(read_block_file_skips_padding_and_garbage)
{
    const auto chain = MakeChain(4);
    std::vector<unsigned char> file;
    std::vector<uint64_t> expected_offsets;
    const auto append = [&](std::span<const unsigned char> bytes) { file.insert(file.end(), bytes.begin(), bytes.end()); };
    const auto append_record = [&](const CBlock& block) {
        const auto bytes = Serialized(block);
        const uint32_t size = bytes.size();
        append(REGTEST_MAGIC);
        append(std::span{reinterpret_cast<const unsigned char*>(&size), 4});
        expected_offsets.push_back(file.size());
        append(bytes);
    };
    const std::vector<unsigned char> zeros(100, 0x00);
    const std::vector<unsigned char> ones(120, 0xff);
    const uint32_t huge = 0xffffffff;
    const uint32_t plausible = 100;

    append(zeros);               // leading padding, as a pre-allocated file has
    append_record(chain[0]);
    append(REGTEST_MAGIC);       // magic with an impossible size
    append(std::span{reinterpret_cast<const unsigned char*>(&huge), 4});
    append_record(chain[1]);
    append(REGTEST_MAGIC);       // magic with a plausible size over bytes that are no block
    append(std::span{reinterpret_cast<const unsigned char*>(&plausible), 4});
    append(ones);
    append_record(chain[2]);
    append(zeros);
    append(zeros);
    append_record(chain[3]);     // then cut short
    const size_t records = 3 * RecordSize(chain[0]);
    file.resize(file.size() - 10);
    const auto path = m_path / "messy.dat";
    WriteFile(path, file);

    std::vector<uint256> hashes;
    std::vector<uint64_t> offsets;
    std::vector<std::string> bytes_given;
    const auto scan = BlockManager::ReadBlockFile(path, REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>& read, uint64_t pos, std::span<const std::byte> serialized) {
        const CBlock& block = *read;
        hashes.push_back(block.GetHash());
        offsets.push_back(pos);
        bytes_given.push_back(HexStr(serialized));
    });
    BOOST_REQUIRE(scan);
    BOOST_CHECK_EQUAL(scan->blocks, 3u);
    BOOST_REQUIRE_EQUAL(hashes.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        BOOST_CHECK(hashes[i] == chain[i].GetHash());
        BOOST_CHECK_EQUAL(offsets[i], expected_offsets[i]);
        // The bytes each block was parsed from, for SaveBlock to store.
        BOOST_CHECK_EQUAL(bytes_given[i], HexStr(Serialized(chain[i])));
    }
    BOOST_CHECK_EQUAL(scan->skipped_bytes, file.size() - records);

    // The header scan finds the same records, and the one whose block does
    // not parse (its first 80 bytes are a header all the same); not the
    // truncated last one.
    std::vector<uint256> header_hashes;
    const auto headers = BlockManager::ReadBlockFileHeaders(path, REGTEST_MAGIC, [&](const CBlockHeader& header) { header_hashes.push_back(header.GetHash()); });
    BOOST_REQUIRE(headers);
    BOOST_CHECK_EQUAL(*headers, 4u);
    BOOST_REQUIRE_EQUAL(header_hashes.size(), 4u);
    BOOST_CHECK(header_hashes[0] == chain[0].GetHash());
    BOOST_CHECK(header_hashes[1] == chain[1].GetHash());
    BOOST_CHECK(header_hashes[3] == chain[2].GetHash());
    BOOST_CHECK(!BlockManager::ReadBlockFileHeaders(m_path / "absent.dat", REGTEST_MAGIC, [](const CBlockHeader&) {}));

    // A magic split across the scanner's 64 KiB reads is still found.
    std::vector<unsigned char> split((1 << 16) - 2, 0x00);
    file = split;
    append_record(chain[0]);
    WriteFile(path, file);
    offsets.clear();
    BOOST_CHECK_EQUAL(BlockManager::ReadBlockFile(path, REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>&, uint64_t pos, std::span<const std::byte>) { offsets.push_back(pos); })->blocks, 1u);
    BOOST_CHECK(offsets == (std::vector<uint64_t>{(1 << 16) - 2 + node::STORAGE_HEADER_BYTES}));

    // Empty and missing files.
    WriteFile(path, {});
    const auto empty = BlockManager::ReadBlockFile(path, REGTEST_MAGIC, [](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) {});
    BOOST_REQUIRE(empty);
    BOOST_CHECK_EQUAL(empty->blocks, 0u);
    BOOST_CHECK_EQUAL(empty->skipped_bytes, 0u);
    BOOST_CHECK(!BlockManager::ReadBlockFile(m_path / "absent.dat", REGTEST_MAGIC, [](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) {}));

    // A callback that throws ends the scan (blocks are read ahead on
    // another thread, which must stop and not hang) and its exception
    // reaches the caller; no block after it is handed over.
    file.clear();
    for (const auto& block : chain) append_record(block);
    WriteFile(path, file);
    size_t calls = 0;
    BOOST_CHECK_THROW(BlockManager::ReadBlockFile(path, REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) {
                          if (++calls == 2) throw std::runtime_error{"stop here"};
                      }),
                      std::runtime_error);
    BOOST_CHECK_EQUAL(calls, 2u);
}

BOOST_AUTO_TEST_CASE(read_block_file_prepares_each_block_ahead)
{
    const auto chain = MakeChain(6);
    BlockManager blockman{Options()};
    for (const CBlock& block : chain) AddAndSave(blockman, block);
    blockman.Flush();
    // prepare sees every block, on a thread of its own, before the
    // callback does; what it marks on the block reaches the callback.
    std::mutex mutex;
    std::vector<uint256> prepared;
    std::set<std::thread::id> prepare_threads;
    size_t called = 0;
    const auto scan = BlockManager::ReadBlockFile(
        blockman.BlockFilePath(0), REGTEST_MAGIC,
        [&](const std::shared_ptr<const CBlock>& read, uint64_t, std::span<const std::byte>) {
            std::lock_guard lock{mutex};
            BOOST_REQUIRE_LT(called, prepared.size());
            BOOST_CHECK(prepared[called] == read->GetHash());
            BOOST_CHECK(read->m_checked);
            BOOST_CHECK(!prepare_threads.contains(std::this_thread::get_id()));
            ++called;
        },
        blockman.XorKey(),
        [&](const CBlock& block) {
            std::lock_guard lock{mutex};
            BOOST_CHECK(!block.m_checked);
            prepared.push_back(block.GetHash());
            prepare_threads.insert(std::this_thread::get_id());
            block.m_checked = true;
        });
    BOOST_REQUIRE(scan);
    BOOST_CHECK_EQUAL(called, chain.size());
    BOOST_CHECK_EQUAL(prepared.size(), chain.size());
    BOOST_CHECK_EQUAL(prepare_threads.size(), 1u);

    // A prepare that throws ends the scan: the blocks before it reach the
    // callback, none after, and the exception reaches the caller. A
    // callback that throws stops all three threads (nothing hangs).
    size_t seen = 0;
    size_t prepares = 0;
    BOOST_CHECK_THROW(BlockManager::ReadBlockFile(
                          blockman.BlockFilePath(0), REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) { ++seen; },
                          blockman.XorKey(),
                          [&](const CBlock&) {
                              if (++prepares == 3) throw std::runtime_error{"bad block"};
                          }),
                      std::runtime_error);
    BOOST_CHECK_EQUAL(seen, 2u);
    seen = 0;
    BOOST_CHECK_THROW(BlockManager::ReadBlockFile(
                          blockman.BlockFilePath(0), REGTEST_MAGIC,
                          [&](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) {
                              if (++seen == 2) throw std::runtime_error{"stop here"};
                          },
                          blockman.XorKey(), [](const CBlock&) {}),
                      std::runtime_error);
    BOOST_CHECK_EQUAL(seen, 2u);
}

BOOST_AUTO_TEST_CASE(read_own_block_files)
{
    const auto chain = MakeChain(5);
    BlockManager blockman{Options(2 * RecordSize(chain[0]) + 1)};
    std::vector<CBlockIndex*> entries;
    for (const CBlock& block : chain) entries.push_back(AddAndSave(blockman, block));
    blockman.Flush();
    size_t next = 0;
    for (int file = 0; file <= blockman.LastBlockFile(); ++file) {
        const auto scan = BlockManager::ReadBlockFile(blockman.BlockFilePath(file), REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>& read, uint64_t pos, std::span<const std::byte>) {
            const CBlock& block = *read;
            BOOST_REQUIRE_LT(next, entries.size());
            BOOST_CHECK(block.GetHash() == entries[next]->hash);
            BOOST_CHECK(entries[next]->GetBlockPos() == (FlatFilePos{file, static_cast<unsigned>(pos)}));
            ++next;
        });
        BOOST_REQUIRE(scan);
        BOOST_CHECK_EQUAL(scan->skipped_bytes, 0u);
    }
    BOOST_CHECK_EQUAL(next, chain.size());
    // Another network's magic finds nothing.
    const auto other = BlockManager::ReadBlockFile(blockman.BlockFilePath(0), MessageStartChars{0xf9, 0xbe, 0xb4, 0xd9}, [](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) {});
    BOOST_CHECK_EQUAL(other->blocks, 0u);
}

BOOST_AUTO_TEST_CASE(obfuscated_block_and_undo_files)
{
    // Bitcoin Core's reference key; two blocks a file, so records start at
    // offsets that are not multiples of 8.
    const node::BlockFileXorKey key{std::byte{0x15}, std::byte{0x7b}, std::byte{0xe0}, std::byte{0x88},
                                    std::byte{0x5b}, std::byte{0x75}, std::byte{0x92}, std::byte{0x4a}};
    const auto xored_hex = [&](const std::string& plain_hex) {
        auto bytes = *TryParseHex(plain_hex);
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] ^= static_cast<unsigned char>(key[i % 8]);
        return HexStr(bytes);
    };
    const auto chain = MakeChain(5);
    auto options = Options(2 * RecordSize(chain[0]) + 1);
    options.xor_key = key;
    std::vector<FlatFilePos> positions;
    {
        std::vector<CBlockIndex*> entries;
        BlockManager blockman{options};
        BOOST_REQUIRE(blockman.LoadBlockIndex());
        std::map<int, std::string> expected_blk, expected_rev;
        for (size_t i = 0; i < chain.size(); ++i) {
            entries.push_back(AddAndSave(blockman, chain[i]));
            const auto bytes = Serialized(chain[i]);
            expected_blk[entries[i]->nFile] += std::string{REGTEST_MAGIC_HEX} + Le32Hex(bytes.size()) + HexStr(bytes);
            if (i == 0) continue;
            const auto undo = UndoBytes(5 + i, static_cast<unsigned char>(i));
            BOOST_REQUIRE(blockman.WriteUndo(undo, *entries[i]));
            const uint256 checksum = ExpectedUndoChecksum(chain[i].hashPrevBlock, undo);
            expected_rev[entries[i]->nFile] += std::string{REGTEST_MAGIC_HEX} + Le32Hex(undo.size()) + HexStr(undo) +
                                               HexStr(std::span{checksum.begin(), checksum.end()});
        }
        BOOST_CHECK_EQUAL(expected_blk.size(), 3u);
        BOOST_REQUIRE_NE(entries[1]->nDataPos % 8, 0u);
        blockman.Flush();
        for (const auto& [file, hex] : expected_blk) BOOST_CHECK_EQUAL(FileHex(blockman.BlockFilePath(file)), xored_hex(hex));
        for (const auto& [file, hex] : expected_rev) BOOST_CHECK_EQUAL(FileHex(blockman.UndoFilePath(file)), xored_hex(hex));
        for (size_t i = 0; i < chain.size(); ++i) {
            CBlock read;
            BOOST_REQUIRE(blockman.ReadBlock(read, *entries[i]));
            BOOST_CHECK(read.GetHash() == chain[i].GetHash());
            if (i > 0) BOOST_CHECK(*blockman.ReadUndo(*entries[i]) == UndoBytes(5 + i, static_cast<unsigned char>(i)));
            positions.push_back(entries[i]->GetBlockPos());
        }
        BOOST_REQUIRE(blockman.WriteIndex());
    }

    // Scanning needs the key too.
    size_t found = 0;
    for (int file = 0; file < 3; ++file) {
        const auto path = m_blocks_dir / fmt::format("blk{:05}.dat", file);
        const auto scan = BlockManager::ReadBlockFile(
            path, REGTEST_MAGIC, [&](const std::shared_ptr<const CBlock>& read, uint64_t pos, std::span<const std::byte>) {
                const CBlock& block = *read;
                BOOST_REQUIRE_LT(found, positions.size());
                BOOST_CHECK(block.GetHash() == chain[found].GetHash());
                BOOST_CHECK(positions[found] == (FlatFilePos{file, static_cast<unsigned>(pos)}));
                ++found;
            },
            key);
        BOOST_CHECK_EQUAL(scan->skipped_bytes, 0u);
        BOOST_CHECK_EQUAL(BlockManager::ReadBlockFile(path, REGTEST_MAGIC, [](const std::shared_ptr<const CBlock>&, uint64_t, std::span<const std::byte>) {})->blocks, 0u);
    }
    BOOST_CHECK_EQUAL(found, chain.size());

    // Without the key the same index points at bytes that are not records.
    auto plain = Options(2 * RecordSize(chain[0]) + 1);
    BlockManager blockman{plain};
    BOOST_REQUIRE(blockman.LoadBlockIndex());
    CBlock read;
    logging::StartCapture();
    BOOST_CHECK(!blockman.ReadBlock(read, *blockman.LookupBlockIndex(chain[3].GetHash())));
    BOOST_CHECK(logging::StopCapture().find("blk00001.dat:" + std::to_string(positions[3].nPos) + ": wrong network magic") !=
                std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
