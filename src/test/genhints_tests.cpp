// The hints generator behind coinsdb-genhints: on Bitcoin Core's own
// regtest chain (shared/vectors/regtest-small, whose block file holds a
// 3-block stale branch), the file it writes names exactly the snapshot's
// coins, pinned by its SHA-256; a UTXO set at another height, a base
// block missing from the files and an existing output are refused.

#include <kernel/chainparams.h>
#include <kernel/swiftsync/hints_file.h>
#include <node/snapshot/utxo_snapshot.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <tools/hints_generator.h>

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

const CChainParams REGTEST{CChainParams::ForChain(ChainType::REGTEST)};

std::filesystem::path SmallVector() { return VectorsRoot() / "regtest-small"; }

HintsGeneratorOptions FromSnapshot()
{
    HintsGeneratorOptions options;
    options.snapshot = SmallVector() / "snapshot.dat";
    options.block_files = {SmallVector() / "blocks.dat"};
    return options;
}

// "<txid>:<n>" of every coin of a snapshot.
std::set<std::string> SnapshotOutpoints(const std::filesystem::path& path, int height)
{
    AutoFile file{std::fopen(path.c_str(), "rb")};
    const auto metadata = SnapshotMetadata::Read(file, REGTEST.MessageStart());
    SnapshotCoinReader reader{file, metadata, height};
    std::set<std::string> outpoints;
    COutPoint outpoint;
    Coin coin;
    while (reader.Next(outpoint, coin)) outpoints.insert(outpoint.hash.GetHex() + ":" + std::to_string(outpoint.n));
    return outpoints;
}

template <typename F>
std::string ErrorOf(F&& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(genhints_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(cores_chain_hints_name_the_snapshots_coins, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto output = m_path / "regtest-small.hints";
    const GeneratedHintsInfo info = GenerateHintsFile(output, REGTEST, FromSnapshot());
    BOOST_CHECK_EQUAL(info.height, 160);
    BOOST_CHECK_EQUAL(info.block_hash.GetHex(), "01f5668f5da83717ee3240606b45c6002699d0f53901ae67793478c737da9b2c");
    BOOST_CHECK_EQUAL(info.coins, 1318U);
    BOOST_CHECK_EQUAL(info.file_bytes, std::filesystem::file_size(output));
    BOOST_CHECK_EQUAL(info.file_bytes, 727U);
    BOOST_CHECK_EQUAL(info.file_sha256.GetHex(), "c36bcf5a1238ea98d7b759a1b01dd952c6092c6a297ccd13c177cbbf916a2b4d");
    BOOST_CHECK(info.file_sha256 == FileSha256(output));

    const auto blocks = kernel::swiftsync::ReadHintsFile(output);
    BOOST_REQUIRE(blocks);
    BOOST_CHECK_EQUAL(blocks->size(), 160U);
    BOOST_CHECK_EQUAL(std::accumulate(blocks->begin(), blocks->end(), size_t{0}, [](size_t sum, const auto& hints) { return sum + hints.size(); }), 1318U);

    // Decoding against the blocks gives back exactly the snapshot's coins.
    const auto listing = m_path / "listing.txt";
    {
        AutoFile out{std::fopen(listing.c_str(), "w")};
        PrintHintedOutputs(output, info.block_hash, REGTEST, FromSnapshot(), out.Get());
    }
    std::istringstream lines{ReadFileToString(listing)};
    std::set<std::string> hinted;
    int height;
    std::string outpoint;
    while (lines >> height >> outpoint) hinted.insert(outpoint);
    BOOST_CHECK(hinted == SnapshotOutpoints(SmallVector() / "snapshot.dat", 160));
}

BOOST_AUTO_TEST_CASE(refusals, *boost::unit_test::precondition(VectorsAvailable))
{
    auto at_150 = FromSnapshot();
    at_150.height = 150;
    BOOST_CHECK_EQUAL(ErrorOf([&] { GenerateHintsFile(m_path / "a.hints", REGTEST, at_150); }),
                      "the UTXO set's base block 01f5668f5da83717ee3240606b45c6002699d0f53901ae67793478c737da9b2c is at height 160, not at -height=150");
    auto no_blocks = FromSnapshot();
    no_blocks.block_files = {SmallVector() / "snapshot.dat"};
    BOOST_CHECK_EQUAL(ErrorOf([&] { GenerateHintsFile(m_path / "b.hints", REGTEST, no_blocks); }),
                      "the block files do not hold block 01f5668f5da83717ee3240606b45c6002699d0f53901ae67793478c737da9b2c, the UTXO set's base");
    const auto exists = m_path / "exists.hints";
    std::fclose(std::fopen(exists.c_str(), "w"));
    BOOST_CHECK_EQUAL(ErrorOf([&] { GenerateHintsFile(exists, REGTEST, FromSnapshot()); }),
                      exists.string() + " already exists: remove it or choose another -output");
    // Nothing is left behind by a refusal.
    BOOST_CHECK(!std::filesystem::exists(m_path / "a.hints"));
    BOOST_CHECK(!std::filesystem::exists(m_path / "b.hints.incomplete"));
}

BOOST_AUTO_TEST_SUITE_END()
