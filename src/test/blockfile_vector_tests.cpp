// Reads Bitcoin Core's own block file (../shared/vectors/*/blocks.dat) and
// checks transactions and blocks against it: every block re-serializes to the
// exact bytes Core wrote, every merkle root and witness commitment matches,
// and headers.txt is a chain through the file from the genesis block to the
// snapshot's base block, with the reorg's stale blocks left over.
//
// blocks.dat framing (Core's blk?????.dat, written with -blocksxor=0, so not
// XORed): repeated { 4-byte network magic | LE32 block size | block }.

#include <consensus/merkle.h>
#include <hash.h>
#include <kernel/chainparams.h>
#include <primitives/block.h>
#include <streams.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace {

// The BIP141 commitment output: OP_RETURN, push 36, then this 4-byte tag.
constexpr std::array<unsigned char, 6> WITNESS_COMMITMENT_PREFIX{0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed};
constexpr size_t WITNESS_COMMITMENT_SIZE = WITNESS_COMMITMENT_PREFIX.size() + 32;

struct FileBlock {
    std::vector<unsigned char> bytes;
    CBlock block;
};

struct BlockVector {
    std::filesystem::path dir;
    nlohmann::json expected;
    CChainParams params;
    std::vector<FileBlock> blocks; // in file order
    std::map<uint256, size_t> index_by_hash;
};

std::vector<FileBlock> ReadBlockFile(const std::filesystem::path& path, const MessageStartChars& magic)
{
    AutoFile file{std::fopen(path.c_str(), "rb")};
    BOOST_REQUIRE_MESSAGE(!file.IsNull(), "cannot open " << path);
    std::vector<FileBlock> blocks;
    while (!file.AtEnd()) {
        std::array<unsigned char, 4> start;
        file >> start;
        BOOST_REQUIRE_MESSAGE(start == magic, "wrong network magic before block " << blocks.size());
        FileBlock& entry = blocks.emplace_back();
        entry.bytes.resize(ReadLE<uint32_t>(file));
        file.read(std::as_writable_bytes(std::span{entry.bytes}));
        SpanReader reader{entry.bytes};
        reader >> entry.block;
        BOOST_CHECK_MESSAGE(reader.empty(), "block " << blocks.size() - 1 << " has " << reader.size() << " bytes left over");
    }
    return blocks;
}

std::vector<BlockVector> LoadBlockVectors()
{
    std::vector<BlockVector> vectors;
    for (auto& [dir, expected] : CoreVectors("blocks.dat")) {
        const auto chain = ChainTypeFromString(expected["chain"].get<std::string>());
        BOOST_REQUIRE(chain);
        auto params = CChainParams::ForChain(*chain);
        auto blocks = ReadBlockFile(dir / "blocks.dat", params.MessageStart());
        BlockVector vec{dir, std::move(expected), std::move(params), std::move(blocks), {}};
        for (size_t i = 0; i < vec.blocks.size(); ++i) {
            const bool inserted = vec.index_by_hash.emplace(vec.blocks[i].block.GetHash(), i).second;
            BOOST_CHECK_MESSAGE(inserted, "block " << i << " appears twice in the file");
        }
        vectors.push_back(std::move(vec));
    }
    return vectors;
}

// headers.txt: the active chain's headers, heights 1..tip, one hex line each.
std::vector<std::vector<unsigned char>> ReadHeaders(const std::filesystem::path& path)
{
    std::vector<std::vector<unsigned char>> headers;
    std::istringstream lines{ReadFileToString(path)};
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        auto bytes = TryParseHex(line);
        BOOST_REQUIRE_MESSAGE(bytes && bytes->size() == CBlockHeader::SIZE, "bad header line " << headers.size() + 1);
        headers.push_back(std::move(*bytes));
    }
    return headers;
}

// The last output of the coinbase that carries the BIP141 tag, if any.
const CTxOut* FindWitnessCommitment(const CTransaction& coinbase)
{
    const CTxOut* found = nullptr;
    for (const CTxOut& out : coinbase.vout) {
        const auto& script = out.scriptPubKey;
        if (script.size() >= WITNESS_COMMITMENT_SIZE && std::equal(WITNESS_COMMITMENT_PREFIX.begin(), WITNESS_COMMITMENT_PREFIX.end(), script.begin())) {
            found = &out;
        }
    }
    return found;
}

} // namespace

BOOST_AUTO_TEST_SUITE(blockfile_vector_tests)

BOOST_AUTO_TEST_CASE(blocks_reserialize_exactly, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const auto& vec : LoadBlockVectors()) {
        BOOST_TEST_CONTEXT(vec.dir.filename())
        {
            BOOST_CHECK_EQUAL(vec.blocks.size(), vec.expected["blocks_in_file"].get<size_t>());
            for (size_t i = 0; i < vec.blocks.size(); ++i) {
                DataStream out;
                out << vec.blocks[i].block;
                BOOST_CHECK_MESSAGE(HexStr(out.Unread()) == HexStr(vec.blocks[i].bytes), "block " << i << " re-serializes differently");
                // The block hash covers the first 80 bytes exactly.
                const std::vector<unsigned char> header(vec.blocks[i].bytes.begin(), vec.blocks[i].bytes.begin() + CBlockHeader::SIZE);
                BOOST_CHECK(vec.blocks[i].block.GetHash() == Hash256(header));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(merkle_roots_and_witness_commitments, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const auto& vec : LoadBlockVectors()) {
        BOOST_TEST_CONTEXT(vec.dir.filename())
        {
            size_t commitments = 0;
            for (size_t i = 0; i < vec.blocks.size(); ++i) {
                const CBlock& block = vec.blocks[i].block;
                BOOST_REQUIRE_MESSAGE(!block.vtx.empty() && block.vtx[0]->IsCoinBase(), "block " << i << " has no coinbase");
                bool mutated = true;
                BOOST_CHECK_MESSAGE(BlockMerkleRoot(block, &mutated) == block.hashMerkleRoot, "merkle root of block " << i);
                BOOST_CHECK_MESSAGE(!mutated, "block " << i << " is mutated");
                for (size_t t = 1; t < block.vtx.size(); ++t) BOOST_CHECK(!block.vtx[t]->IsCoinBase());

                const CTxOut* commitment = FindWitnessCommitment(*block.vtx[0]);
                if (!commitment) continue;
                ++commitments;
                const auto& reserved = block.vtx[0]->vin[0].scriptWitness.stack;
                BOOST_REQUIRE_MESSAGE(reserved.size() == 1 && reserved[0].size() == 32, "block " << i << " witness reserved value");
                HashWriter writer;
                writer << BlockWitnessMerkleRoot(block);
                writer.write(std::as_bytes(std::span{reserved[0]}));
                const uint256 expected = writer.GetHash();
                BOOST_CHECK_MESSAGE(std::equal(expected.begin(), expected.end(), commitment->scriptPubKey.begin() + WITNESS_COMMITMENT_PREFIX.size()),
                                    "witness commitment of block " << i);
            }
            // Core's miner commits in every block once segwit is active, which
            // on regtest is every block after the genesis.
            BOOST_CHECK_EQUAL(commitments, vec.blocks.size() - 1);
        }
    }
}

BOOST_AUTO_TEST_CASE(headers_form_chain_through_file, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const auto& vec : LoadBlockVectors()) {
        BOOST_TEST_CONTEXT(vec.dir.filename())
        {
            const auto headers = ReadHeaders(vec.dir / "headers.txt");
            BOOST_CHECK_EQUAL(headers.size(), vec.expected["height"].get<size_t>());
            BOOST_CHECK_EQUAL(vec.params.GenesisHash().GetHex(), "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206");
            BOOST_REQUIRE(vec.index_by_hash.contains(vec.params.GenesisHash()));

            uint256 prev = vec.params.GenesisHash();
            uint64_t chain_tx = vec.blocks[vec.index_by_hash.at(prev)].block.vtx.size();
            for (size_t height = 1; height <= headers.size(); ++height) {
                const auto& bytes = headers[height - 1];
                CBlockHeader header;
                SpanReader{bytes} >> header;
                BOOST_REQUIRE_MESSAGE(header.hashPrevBlock == prev, "header " << height << " does not extend the chain");
                const uint256 hash = header.GetHash();
                const auto found = vec.index_by_hash.find(hash);
                BOOST_REQUIRE_MESSAGE(found != vec.index_by_hash.end(), "block at height " << height << " missing from blocks.dat");
                const FileBlock& file_block = vec.blocks[found->second];
                BOOST_CHECK(std::equal(bytes.begin(), bytes.end(), file_block.bytes.begin()));
                chain_tx += file_block.block.vtx.size();
                prev = hash;
            }
            BOOST_CHECK_EQUAL(prev.GetHex(), vec.expected["base_blockhash"].get<std::string>());
            // Core's nChainTx for the tip: transactions from genesis to tip.
            BOOST_CHECK_EQUAL(chain_tx, vec.expected["nchaintx"].get<uint64_t>());
        }
    }
}

BOOST_AUTO_TEST_CASE(stale_blocks, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const auto& vec : LoadBlockVectors()) {
        BOOST_TEST_CONTEXT(vec.dir.filename())
        {
            std::set<uint256> active{vec.params.GenesisHash()};
            for (const auto& bytes : ReadHeaders(vec.dir / "headers.txt")) active.insert(Hash256(bytes));

            size_t stale = 0;
            for (size_t i = 0; i < vec.blocks.size(); ++i) {
                const CBlock& block = vec.blocks[i].block;
                // Core writes a block only after its parent, so every block but
                // the genesis points at an earlier one in the file.
                if (block.GetHash() != vec.params.GenesisHash()) {
                    const auto parent = vec.index_by_hash.find(block.hashPrevBlock);
                    BOOST_CHECK_MESSAGE(parent != vec.index_by_hash.end() && parent->second < i, "block " << i << " precedes its parent");
                }
                if (!active.contains(block.GetHash())) ++stale;
            }
            BOOST_CHECK_EQUAL(stale, vec.expected["stale_blocks"].get<size_t>());
            BOOST_CHECK_EQUAL(vec.blocks.size() - stale, active.size());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
