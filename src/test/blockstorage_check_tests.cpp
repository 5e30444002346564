// The check before -reindex/-reindex-chainstate wipe anything
// (node/blockstorage/reindex_check): one file at a time, each with one thing wrong.

#include <node/blockstorage/reindex_check.h>
#include <streams.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <functional>
#include <vector>

namespace {

const CChainParams REGTEST{CChainParams::ForChain(ChainType::REGTEST)};
const CChainParams MAIN{CChainParams::ForChain(ChainType::MAIN)};
constexpr std::array<unsigned char, 8> KEY{0x15, 0x7b, 0xe0, 0x88, 0x5b, 0x75, 0x92, 0x4a};

// magic | LE32 size | block, as a blk file holds it (plain).
std::vector<unsigned char> Record(const MessageStartChars& magic, const CBlock& block)
{
    DataStream stream;
    stream << magic;
    DataStream body;
    body << block;
    WriteLE(stream, static_cast<uint32_t>(body.size()));
    stream.write(body.Unread());
    const auto bytes = stream.Unread();
    const auto* begin = reinterpret_cast<const unsigned char*>(bytes.data());
    return {begin, begin + bytes.size()};
}

void Write(const std::filesystem::path& path, std::vector<unsigned char> bytes, bool obfuscate = false)
{
    if (obfuscate) {
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] ^= KEY[i % 8];
    }
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(blockstorage_check_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(first_block_file)
{
    const auto genesis = Record(REGTEST.MessageStart(), REGTEST.GenesisBlock());
    const auto blk = m_path / "blk00000.dat";
    const auto xor_dat = m_path / "xor.dat";
    const std::string at = blk.string() + ":0: ";
    const std::string plain = "read as plain bytes: no key in xor.dat";
    const std::string keyed = "de-obfuscated with the key in xor.dat";
    auto with_size = [&](uint32_t size) {
        auto bytes = genesis;
        std::memcpy(bytes.data() + 4, &size, 4);
        return bytes;
    };
    auto cut = [&](size_t size) { return std::vector(genesis.begin(), genesis.begin() + size); };
    const std::vector<unsigned char> key(KEY.begin(), KEY.end());

    struct Case {
        std::function<void()> setup;
        std::optional<std::string> problem;
    };
    // clang-format off
    const std::vector<Case> cases{
        // setup                                                                    the reason, or nullopt
        {[&] { Write(blk, genesis); },                                              std::nullopt},
        {[&] { Write(blk, genesis); Write(xor_dat, std::vector<unsigned char>(8)); }, std::nullopt},
        {[&] { Write(blk, genesis, true); Write(xor_dat, key); },                   std::nullopt},
        // Core pre-allocates: zeros after the records are fine.
        {[&] { auto b = genesis; b.resize(4096); Write(blk, b, true); Write(xor_dat, key); }, std::nullopt},
        {[] {},                                                                     blk.string() + " cannot be opened"},
        {[&] { Write(blk, genesis, true); },                                        at + "wrong network magic (" + plain + ")"},
        {[&] { Write(blk, genesis); Write(xor_dat, key); },                         at + "wrong network magic (" + keyed + ")"},
        {[&] { Write(blk, Record(MAIN.MessageStart(), REGTEST.GenesisBlock())); },  at + "wrong network magic (" + plain + ")"},
        {[&] { Write(blk, genesis, true); Write(xor_dat, cut(7)); },                "The block file XOR key " + xor_dat.string() + " must be exactly 8 bytes, not 7"},
        {[&] { Write(blk, {}); },                                                   at + "the file ends before the first record"},
        {[&] { Write(blk, cut(7)); },                                               at + "the file ends before the first record"},
        {[&] { Write(blk, cut(100)); },                                             at + "the first record is cut short"},
        {[&] { Write(blk, with_size(79)); },                                        at + "a record of 79 bytes cannot hold a block (" + plain + ")"},
        {[&] { Write(blk, with_size(4'000'001)); },                                 at + "a record of 4000001 bytes cannot hold a block (" + plain + ")"},
        {[&] { Write(blk, Record(REGTEST.MessageStart(), MAIN.GenesisBlock())); },
                                                                                    at + "the first block is " + MAIN.GenesisHash().GetHex() +
                                                                                    ", not the genesis block " + REGTEST.GenesisHash().GetHex()},
    };
    // clang-format on
    for (size_t i = 0; i < cases.size(); ++i) {
        std::filesystem::remove(blk);
        std::filesystem::remove(xor_dat);
        cases[i].setup();
        const auto problem = node::CheckFirstBlockFile(m_path, REGTEST);
        BOOST_CHECK_MESSAGE(problem == cases[i].problem, "case " << i << ": " << problem.value_or("(fine)"));
    }
}

BOOST_AUTO_TEST_CASE(a_block_that_does_not_parse)
{
    // The genesis record with its transaction count raised: the block runs
    // out of bytes.
    auto bytes = Record(REGTEST.MessageStart(), REGTEST.GenesisBlock());
    bytes[8 + CBlockHeader::SIZE] = 0x02;
    Write(m_path / "blk00000.dat", bytes);
    const auto problem = node::CheckFirstBlockFile(m_path, REGTEST);
    BOOST_REQUIRE(problem);
    BOOST_CHECK_MESSAGE(problem->starts_with((m_path / "blk00000.dat").string() + ":0: the first block does not parse: "), *problem);
}

BOOST_AUTO_TEST_CASE(core_obfuscated_block_file, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto root = VectorsRoot();
    BOOST_REQUIRE_MESSAGE(!root.empty(), "no vectors found (set COINSDB_VECTORS)");
    BOOST_CHECK(!node::CheckFirstBlockFile(root / "regtest-small-xor", REGTEST));
    BOOST_CHECK_EQUAL(node::CheckFirstBlockFile(root / "regtest-small-xor", MAIN).value_or(""),
                      (root / "regtest-small-xor" / "blk00000.dat").string() + ":0: wrong network magic (de-obfuscated with the key in xor.dat)");
}

BOOST_AUTO_TEST_SUITE_END()
