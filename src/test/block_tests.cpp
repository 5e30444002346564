// Block headers and blocks byte for byte, the genesis blocks' hashes, and the
// merkle tree: roots for odd and even leaf counts computed by hand and for
// random counts against a pairwise reference, and the
// CVE-2012-2459 mutation check; txids taken from a read block's bytes against
// txids of a second serialization, on random transactions.

#include <consensus/merkle.h>
#include <hash.h>
#include <primitives/block.h>
#include <streams.h>
#include <test/util/random.h>
#include <test/util/stream_helpers.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <string>
#include <vector>

namespace {

constexpr const char* MAIN_GENESIS_HEADER_HEX =
    "0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f"
    "617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c";
constexpr const char* MAIN_GENESIS_HASH = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";
constexpr const char* REGTEST_GENESIS_HASH = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";
constexpr const char* GENESIS_MERKLE_ROOT = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";
constexpr const char* GENESIS_COINBASE_HEX =
    "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468"
    "652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e642062"
    "61696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a8"
    "28e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000";

uint256 Leaf(unsigned char byte)
{
    std::array<unsigned char, 32> bytes;
    bytes.fill(byte);
    return uint256{bytes};
}

// SHA256d(left || right), built from raw bytes rather than the merkle code.
uint256 H(const uint256& left, const uint256& right)
{
    std::vector<unsigned char> both(left.begin(), left.end());
    both.insert(both.end(), right.begin(), right.end());
    return Hash256(both);
}

CBlockHeader MainGenesisHeader()
{
    CBlockHeader header;
    header.nVersion = 1;
    header.hashMerkleRoot = *uint256::FromHex(GENESIS_MERKLE_ROOT);
    header.nTime = 1231006505;
    header.nBits = 0x1d00ffff;
    header.nNonce = 2083236893;
    return header;
}

CTransactionRef TxPayingTo(unsigned char tag, bool with_witness = false)
{
    CMutableTransaction tx;
    tx.vin.emplace_back(COutPoint{Leaf(tag), 0});
    if (with_witness) tx.vin[0].scriptWitness.stack = {std::vector<unsigned char>{tag}};
    tx.vout.emplace_back(tag, CScript{0x51});
    return MakeTransactionRef(std::move(tx));
}

CTransactionRef Coinbase()
{
    CMutableTransaction tx;
    tx.vin.emplace_back(COutPoint{}, CScript{0x51, 0x51});
    tx.vin[0].scriptWitness.stack = {std::vector<unsigned char>(32, 0)};
    tx.vout.emplace_back(50 * COIN, CScript{0x51});
    return MakeTransactionRef(std::move(tx));
}

// Lengths on both sides of each CompactSize width (1, 3 and 5 bytes).
size_t RandomLength(TestRand& rand)
{
    static constexpr std::array<size_t, 8> EDGES{0, 1, 252, 253, 254, 0xffff, 0x10000, 0x10001};
    return rand.OneIn(8) ? EDGES[rand.Below(EDGES.size())] : rand.Below(40);
}

std::vector<unsigned char> RandomBytes(TestRand& rand, size_t length)
{
    std::vector<unsigned char> bytes(length);
    for (auto& byte : bytes) byte = static_cast<unsigned char>(rand.Next());
    return bytes;
}

// A transaction of any shape the reader accepts: legacy or witness (some
// inputs with empty stacks), counts of inputs and outputs past 252, scripts
// and stack items of every CompactSize width, and the transaction with
// neither inputs nor outputs.
CTransactionRef RandomTransaction(TestRand& rand)
{
    CMutableTransaction tx;
    tx.version = static_cast<int32_t>(rand.Next());
    tx.nLockTime = static_cast<uint32_t>(rand.Next());
    if (rand.OneIn(40)) return MakeTransactionRef(std::move(tx));
    const bool witness = rand.Bool();
    const size_t inputs = rand.OneIn(20) ? 253 + rand.Below(3) : 1 + rand.Below(4);
    for (size_t i = 0; i < inputs; ++i) {
        CScript script_sig;
        const auto bytes = RandomBytes(rand, rand.OneIn(4) ? RandomLength(rand) : rand.Below(8));
        script_sig.insert(script_sig.end(), bytes.begin(), bytes.end());
        tx.vin.emplace_back(COutPoint{rand.Hash(), static_cast<uint32_t>(rand.Next())}, std::move(script_sig),
                            static_cast<uint32_t>(rand.Next()));
        if (witness && rand.Bool()) {
            const size_t items = rand.OneIn(10) ? 253 : rand.Below(4);
            for (size_t item = 0; item < items; ++item) {
                tx.vin.back().scriptWitness.stack.push_back(RandomBytes(rand, RandomLength(rand)));
            }
        }
    }
    // A witness flag needs a stack that is not empty somewhere.
    if (witness) tx.vin[0].scriptWitness.stack.push_back(RandomBytes(rand, rand.Below(3)));
    const size_t outputs = rand.OneIn(20) ? 253 + rand.Below(3) : rand.Below(4);
    for (size_t o = 0; o < outputs; ++o) {
        CScript script;
        const auto bytes = RandomBytes(rand, RandomLength(rand));
        script.insert(script.end(), bytes.begin(), bytes.end());
        tx.vout.emplace_back(static_cast<CAmount>(rand.Below(MAX_MONEY)), std::move(script));
    }
    return MakeTransactionRef(std::move(tx));
}

uint256 Root(const std::vector<uint256>& leaves, bool& mutated)
{
    mutated = true; // must be overwritten
    return ComputeMerkleRoot(leaves, &mutated);
}

} // namespace

BOOST_AUTO_TEST_SUITE(block_tests)

BOOST_AUTO_TEST_CASE(main_genesis_header)
{
    const CBlockHeader header = MainGenesisHeader();
    BOOST_CHECK_EQUAL(GetSerializeSize(header), CBlockHeader::SIZE);
    BOOST_CHECK_EQUAL(SerializedHex(header), MAIN_GENESIS_HEADER_HEX);
    BOOST_CHECK_EQUAL(header.GetHash().GetHex(), MAIN_GENESIS_HASH);
    BOOST_CHECK(header.GetHash() == Hash256(ParseHexOrThrow(MAIN_GENESIS_HEADER_HEX)));

    DataStream stream{ParseHexOrThrow(MAIN_GENESIS_HEADER_HEX)};
    CBlockHeader read;
    stream >> read;
    BOOST_CHECK(stream.empty());
    BOOST_CHECK(read == header);
    BOOST_CHECK(read.hashPrevBlock.IsNull());
    BOOST_CHECK_EQUAL(read.GetBlockTime(), 1231006505);
}

BOOST_AUTO_TEST_CASE(regtest_genesis_header)
{
    CBlockHeader header = MainGenesisHeader();
    header.nTime = 1296688602;
    header.nBits = 0x207fffff;
    header.nNonce = 2;
    BOOST_CHECK_EQUAL(header.GetHash().GetHex(), REGTEST_GENESIS_HASH);
    // Every field is hashed: changing the nonce changes the hash.
    header.nNonce = 3;
    BOOST_CHECK(header.GetHash().GetHex() != REGTEST_GENESIS_HASH);
}

BOOST_AUTO_TEST_CASE(header_truncated)
{
    const auto bytes = ParseHexOrThrow(MAIN_GENESIS_HEADER_HEX);
    DataStream stream{std::span{bytes}.first(79)};
    CBlockHeader header;
    BOOST_CHECK_THROW(stream >> header, std::ios_base::failure);
}

BOOST_AUTO_TEST_CASE(main_genesis_block)
{
    const std::string hex = std::string{MAIN_GENESIS_HEADER_HEX} + "01" + GENESIS_COINBASE_HEX;
    DataStream stream{ParseHexOrThrow(hex)};
    CBlock block;
    stream >> block;
    BOOST_CHECK(stream.empty());
    BOOST_REQUIRE_EQUAL(block.vtx.size(), 1U);
    BOOST_CHECK(block.vtx[0]->IsCoinBase());
    BOOST_CHECK_EQUAL(block.GetHash().GetHex(), MAIN_GENESIS_HASH);
    BOOST_CHECK(block.GetBlockHeader() == MainGenesisHeader());

    // One transaction: the root is its txid, and nothing is mutated.
    bool mutated = true;
    BOOST_CHECK_EQUAL(BlockMerkleRoot(block, &mutated).GetHex(), GENESIS_MERKLE_ROOT);
    BOOST_CHECK(!mutated);
    BOOST_CHECK(block.vtx[0]->GetHash() == block.hashMerkleRoot);

    BOOST_CHECK_EQUAL(SerializedHex(block), hex);
}

BOOST_AUTO_TEST_CASE(block_round_trip_with_witness)
{
    CBlock block{MainGenesisHeader()};
    block.vtx = {Coinbase(), TxPayingTo(1, /*with_witness=*/true), TxPayingTo(2)};
    block.hashMerkleRoot = BlockMerkleRoot(block);

    DataStream stream;
    stream << block;
    const std::string hex = UnreadHex(stream);
    // Header, then the count as a one-byte CompactSize.
    BOOST_CHECK_EQUAL(hex.substr(2 * CBlockHeader::SIZE, 2), "03");
    CBlock read;
    stream >> read;
    BOOST_CHECK(stream.empty());
    BOOST_CHECK(read.GetBlockHeader() == block.GetBlockHeader());
    BOOST_REQUIRE_EQUAL(read.vtx.size(), 3U);
    for (size_t i = 0; i < 3; ++i) BOOST_CHECK(*read.vtx[i] == *block.vtx[i]);
    BOOST_CHECK(read.vtx[1]->HasWitness());
    BOOST_CHECK_EQUAL(SerializedHex(read), hex);

    // The witness root leaves the coinbase out (as zero) and uses wtxids.
    const uint256 expected_witness_root = H(H(uint256{}, block.vtx[1]->GetWitnessHash()),
                                            H(block.vtx[2]->GetWitnessHash(), block.vtx[2]->GetWitnessHash()));
    BOOST_CHECK(BlockWitnessMerkleRoot(read) == expected_witness_root);
    BOOST_CHECK(BlockWitnessMerkleRoot(read) != BlockMerkleRoot(read));
}

// A block read from memory (SpanReader, as every block read from disk is)
// takes each transaction's hashes from the bytes it was read from; any other
// stream hashes a second serialization. Both must give the hashes of the
// transactions that were written.
BOOST_AUTO_TEST_CASE(txids_from_read_bytes)
{
    TestRand rand{0x7b1d};
    for (int round = 0; round < 20; ++round) {
        CBlock block{MainGenesisHeader()};
        block.vtx.push_back(Coinbase());
        for (int i = 0; i < 15; ++i) block.vtx.push_back(RandomTransaction(rand));
        const std::vector<unsigned char> bytes = Serialized(block);

        SpanReader span_reader{bytes};
        CBlock from_span;
        span_reader >> from_span;
        BOOST_CHECK(span_reader.empty());
        DataStream stream{bytes};
        CBlock from_stream;
        stream >> from_stream;

        BOOST_REQUIRE_EQUAL(from_span.vtx.size(), block.vtx.size());
        BOOST_REQUIRE_EQUAL(from_stream.vtx.size(), block.vtx.size());
        for (size_t i = 0; i < block.vtx.size(); ++i) {
            const CTransaction& written = *block.vtx[i];
            BOOST_CHECK(from_span.vtx[i]->HasWitness() == written.HasWitness());
            BOOST_CHECK(from_span.vtx[i]->GetHash() == written.GetHash());
            BOOST_CHECK(from_span.vtx[i]->GetWitnessHash() == written.GetWitnessHash());
            BOOST_CHECK(from_stream.vtx[i]->GetHash() == written.GetHash());
            BOOST_CHECK(from_stream.vtx[i]->GetWitnessHash() == written.GetWitnessHash());
            // And the hashes are of the transaction's contents, rebuilt.
            BOOST_CHECK(CMutableTransaction{*from_span.vtx[i]}.GetHash() == written.GetHash());
        }
        BOOST_CHECK(BlockMerkleRoot(from_span) == BlockMerkleRoot(block));
    }
}

// The genesis block read from memory: its coinbase's txid, taken from the
// read bytes, is the header's merkle root (a block of one transaction).
BOOST_AUTO_TEST_CASE(genesis_block_read_from_memory)
{
    const std::string hex = std::string{MAIN_GENESIS_HEADER_HEX} + "01" + GENESIS_COINBASE_HEX;
    const auto bytes = ParseHexOrThrow(hex);
    SpanReader reader{bytes};
    CBlock block;
    reader >> block;
    BOOST_REQUIRE_EQUAL(block.vtx.size(), 1U);
    BOOST_CHECK_EQUAL(block.vtx[0]->GetHash().GetHex(), GENESIS_MERKLE_ROOT);
    BOOST_CHECK(block.vtx[0]->GetWitnessHash() == block.vtx[0]->GetHash());
}

BOOST_AUTO_TEST_CASE(merkle_root_by_hand)
{
    const uint256 a = Leaf(1), b = Leaf(2), c = Leaf(3), d = Leaf(4), e = Leaf(5), f = Leaf(6), g = Leaf(7);
    bool mutated;

    BOOST_CHECK(Root({}, mutated).IsNull());
    BOOST_CHECK(!mutated);
    BOOST_CHECK(Root({a}, mutated) == a);
    BOOST_CHECK(!mutated);
    BOOST_CHECK(Root({a, b}, mutated) == H(a, b));
    BOOST_CHECK(!mutated);
    // Odd counts pair the last hash with itself.
    BOOST_CHECK(Root({a, b, c}, mutated) == H(H(a, b), H(c, c)));
    BOOST_CHECK(!mutated);
    BOOST_CHECK(Root({a, b, c, d}, mutated) == H(H(a, b), H(c, d)));
    BOOST_CHECK(!mutated);
    // Odd at two levels: e is doubled, then H(e, e) is.
    BOOST_CHECK(Root({a, b, c, d, e}, mutated) == H(H(H(a, b), H(c, d)), H(H(e, e), H(e, e))));
    BOOST_CHECK(!mutated);
    BOOST_CHECK(Root({a, b, c, d, e, f, g}, mutated) == H(H(H(a, b), H(c, d)), H(H(e, f), H(g, g))));
    BOOST_CHECK(!mutated);
    // Order matters.
    BOOST_CHECK(Root({b, a}, mutated) != Root({a, b}, mutated));
    // Without the out-parameter it still works.
    BOOST_CHECK(ComputeMerkleRoot({a, b, c}) == H(H(a, b), H(c, c)));
}

BOOST_AUTO_TEST_CASE(merkle_root_matches_pairwise_reference)
{
    // Random leaf counts, every level's odd duplication and runs of hashes
    // longer than the four hashed side by side, against a tree of H().
    TestRand rand{0x3e2c1e};
    for (int round = 0; round < 60; ++round) {
        std::vector<uint256> leaves(1 + rand.Below(70));
        for (uint256& leaf : leaves) leaf = rand.Hash();
        std::vector<uint256> level = leaves;
        while (level.size() > 1) {
            std::vector<uint256> next;
            for (size_t i = 0; i < level.size(); i += 2) {
                next.push_back(H(level[i], level[i + 1 < level.size() ? i + 1 : i]));
            }
            level = std::move(next);
        }
        bool mutated;
        BOOST_TEST_CONTEXT(leaves.size() << " leaves")
        {
            BOOST_CHECK(Root(leaves, mutated) == level.front());
            BOOST_CHECK(!mutated);
        }
    }
}

BOOST_AUTO_TEST_CASE(merkle_mutation)
{
    const uint256 a = Leaf(1), b = Leaf(2), c = Leaf(3), d = Leaf(4), e = Leaf(5), f = Leaf(6);
    bool mutated;

    // The CVE-2012-2459 collision: duplicating the odd last leaf keeps the root.
    const uint256 honest = Root({a, b, c}, mutated);
    BOOST_CHECK(!mutated);
    BOOST_CHECK(Root({a, b, c, c}, mutated) == honest);
    BOOST_CHECK(mutated);

    // The same one level up: duplicating the last pair of six leaves.
    const uint256 honest6 = Root({a, b, c, d, e, f}, mutated);
    BOOST_CHECK(!mutated);
    BOOST_CHECK(Root({a, b, c, d, e, f, e, f}, mutated) == honest6);
    BOOST_CHECK(mutated);

    // Equal siblings anywhere count, even without a colliding honest tree.
    Root({a, a}, mutated);
    BOOST_CHECK(mutated);
    Root({a, b, a, b}, mutated); // equal only at the second level
    BOOST_CHECK(mutated);

    // Equal neighbours that are not siblings are harmless.
    Root({a, b, b, c}, mutated);
    BOOST_CHECK(!mutated);
}

BOOST_AUTO_TEST_CASE(block_merkle_mutation)
{
    CBlock block;
    block.vtx = {Coinbase(), TxPayingTo(1), TxPayingTo(2)};
    bool mutated = true;
    const uint256 root = BlockMerkleRoot(block, &mutated);
    BOOST_CHECK(!mutated);
    BOOST_CHECK(root == H(H(block.vtx[0]->GetHash(), block.vtx[1]->GetHash()),
                          H(block.vtx[2]->GetHash(), block.vtx[2]->GetHash())));

    block.vtx.push_back(block.vtx.back());
    BOOST_CHECK(BlockMerkleRoot(block, &mutated) == root);
    BOOST_CHECK(mutated);
}

BOOST_AUTO_TEST_SUITE_END()
