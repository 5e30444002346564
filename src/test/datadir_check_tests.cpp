// Telling coinsdb's data directories from Bitcoin Core's (node/init/datadir_check).

#include <node/init/datadir_check.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <vector>

namespace {

// Creates each entry under root: a trailing '/' makes a directory, anything
// else an empty file (with its parent directories).
void MakeEntries(const std::filesystem::path& root, const std::vector<std::string>& entries)
{
    for (const auto& entry : entries) {
        if (entry.ends_with('/')) {
            std::filesystem::create_directories(root / entry);
            continue;
        }
        std::filesystem::create_directories((root / entry).parent_path());
        std::ofstream{root / entry};
    }
}

std::vector<std::filesystem::path> ListTree(const std::filesystem::path& root)
{
    std::vector<std::filesystem::path> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator{root}) out.push_back(entry.path());
    std::ranges::sort(out);
    return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(datadir_check_tests)

BOOST_AUTO_TEST_CASE(foreign_entries)
{
    struct Case {
        std::vector<std::string> entries;
        std::vector<std::string> foreign;
    };
    // clang-format off
    const std::vector<Case> cases{
        // entries in the datadir                                           foreign, in the table's order
        {{},                                                                {}},
        {{"bitcoin.conf", "debug.log", ".lock", ".cookie", "bitcoind.pid"}, {}},
        // Bitcoin Core's regtest datadir as the reference template holds it.
        {{"regtest/blocks/xor.dat", "regtest/blocks/index/", "regtest/chainstate/CURRENT"},
                                                                            {"regtest/blocks", "regtest/chainstate"}},
        {{"regtest/coinsdb_datadir", "regtest/blocks/", "regtest/chainstate/"}, {}},
        // Empty blocks/ and chainstate/ hold no one's data: prepared for a
        // first start. Anything in them, even an empty directory, is data.
        {{"blocks/", "chainstate/", "regtest/blocks/", "regtest/chainstate/"}, {}},
        {{"blocks/index/", "chainstate/CURRENT"},                           {"blocks", "chainstate"}},
        {{"regtest/blocks/xor.dat", "regtest/chainstate/"},                 {"regtest/blocks"}},
        // An empty chainstate_snapshot/ would be taken for an unfinished load.
        {{"chainstate_snapshot/"},                                          {"chainstate_snapshot"}},
        {{"coinsdb_datadir", "blocks/", "chainstate/", "chainstate_snapshot/"}, {}},
        // The marker is per chain directory: main's says nothing of regtest's.
        {{"coinsdb_datadir", "blocks/", "regtest/chainstate/LOG"},          {"regtest/chainstate"}},
        {{"regtest/coinsdb_datadir", "blocks/xor.dat", "regtest/blocks/"},   {"blocks"}},
        // Core's own files count with or without the marker.
        {{"coinsdb_datadir", "blocks/", "settings.json"},                   {"settings.json"}},
        {{"regtest/coinsdb_datadir", "regtest/wallets/"},                   {"regtest/wallets"}},
        // Core made them, even empty.
        {{"wallets/", "regtest/indexes/"},                                  {"wallets", "regtest/indexes"}},
        {{"wallet.dat", "database/", "peers.dat", "anchors.dat", "banlist.json", "banlist.dat", "mempool.dat",
          "fee_estimates.dat", "indexes/", "onion_v3_private_key", "i2p_private_key"},
         {"wallet.dat", "database", "peers.dat", "anchors.dat", "banlist.json", "banlist.dat", "mempool.dat",
          "fee_estimates.dat", "indexes", "onion_v3_private_key", "i2p_private_key"}},
        {{"testnet3/blocks/index/", "testnet4/settings.json", "signet/chainstate/LOG"},
                                                                            {"testnet3/blocks", "testnet4/settings.json", "signet/chainstate"}},
        // Names that only look alike are not Core's.
        {{"blocks.bak/", "regtest2/blocks/", "wallets.txt"},                {}},
        // A chain's name taken by a file holds nothing.
        {{"regtest"},                                                       {}},
    };
    // clang-format on
    for (size_t i = 0; i < cases.size(); ++i) {
        TempDirFixture dir;
        MakeEntries(dir.m_path, cases[i].entries);
        const auto before = ListTree(dir.m_path);
        BOOST_CHECK_MESSAGE(node::FindForeignData(dir.m_path) == cases[i].foreign, "case " << i);
        BOOST_CHECK_MESSAGE(ListTree(dir.m_path) == before, "case " << i << ": the check changed the directory");
    }
}

BOOST_AUTO_TEST_CASE(a_symlink_counts_even_when_dangling)
{
    TempDirFixture dir;
    std::filesystem::create_directory_symlink(dir.m_path / "elsewhere", dir.m_path / "blocks");
    BOOST_CHECK(node::FindForeignData(dir.m_path) == std::vector<std::string>{"blocks"});
    std::string error;
    BOOST_CHECK(node::MarkNewChainDir(dir.m_path, error));
    BOOST_CHECK(!std::filesystem::exists(dir.m_path / node::DATADIR_MARKER_FILE));
}

// The operator's way to put the chain on another disk before the first
// start: the link is followed, and what decides is the directory it leads to.
BOOST_AUTO_TEST_CASE(a_symlink_to_an_empty_directory_is_new)
{
    TempDirFixture dir;
    const auto disk = dir.m_path / "disk";
    const auto chain_dir = dir.m_path / "datadir" / "regtest";
    MakeEntries(dir.m_path, {"disk/chainstate/", "disk/blocks/", "datadir/regtest/"});
    std::filesystem::create_directory_symlink(disk / "chainstate", chain_dir / "chainstate");
    std::filesystem::create_directory_symlink(disk / "blocks", chain_dir / "blocks");
    BOOST_CHECK(node::FindForeignData(dir.m_path / "datadir").empty());

    // Filled by someone else before coinsdb marked the chain directory.
    MakeEntries(disk, {"blocks/blk00000.dat"});
    BOOST_CHECK(node::FindForeignData(dir.m_path / "datadir") == std::vector<std::string>{"regtest/blocks"});
    std::string error;
    BOOST_CHECK(node::MarkNewChainDir(chain_dir, error));
    BOOST_CHECK(!std::filesystem::exists(chain_dir / node::DATADIR_MARKER_FILE));

    // Empty again, the chain directory is marked, and its data is then
    // coinsdb's.
    std::filesystem::remove(disk / "blocks" / "blk00000.dat");
    BOOST_CHECK(node::MarkNewChainDir(chain_dir, error));
    BOOST_CHECK(std::filesystem::exists(chain_dir / node::DATADIR_MARKER_FILE));
    MakeEntries(disk, {"blocks/blk00000.dat", "chainstate/CURRENT"});
    BOOST_CHECK(node::FindForeignData(dir.m_path / "datadir").empty());
}

BOOST_AUTO_TEST_CASE(error_names_the_entries_and_the_override)
{
    const auto message = node::ForeignDataDirError("/home/u/.bitcoin", {"regtest/blocks", "regtest/chainstate"});
    BOOST_CHECK_EQUAL(message,
                      "The data directory /home/u/.bitcoin holds data that coinsdb did not create (regtest/blocks, "
                      "regtest/chainstate); it looks like Bitcoin Core's. coinsdb does not verify scripts, yet Bitcoin "
                      "Core would trust the block index and chainstate it writes, so it leaves this directory alone. Use "
                      "another -datadir, or start with -allowforeigndatadir to use this one anyway.");
}

BOOST_AUTO_TEST_CASE(marker_only_for_a_new_chain_dir)
{
    struct Case {
        std::vector<std::string> entries;
        bool marked_after;
    };
    // clang-format off
    const std::vector<Case> cases{
        // entries                                  marker afterwards
        {{},                                        true},
        {{"debug.log", "bitcoin.conf"},             true},
        {{"coinsdb_datadir", "blocks/"},            true},
        // Empty directories are no one's data.
        {{"blocks/", "chainstate/"},                true},
        // Someone else's chain data is never adopted.
        {{"blocks/index/"},                         false},
        {{"chainstate/CURRENT"},                    false},
        {{"blocks/", "chainstate/CURRENT"},         false},
        {{"chainstate_snapshot/"},                  false},
    };
    // clang-format on
    for (size_t i = 0; i < cases.size(); ++i) {
        TempDirFixture dir;
        MakeEntries(dir.m_path, cases[i].entries);
        std::string error;
        BOOST_CHECK_MESSAGE(node::MarkNewChainDir(dir.m_path, error), "case " << i << ": " << error);
        BOOST_CHECK_MESSAGE(std::filesystem::exists(dir.m_path / node::DATADIR_MARKER_FILE) == cases[i].marked_after, "case " << i);
        // Marked, the directory's chain data is then coinsdb's own.
        if (cases[i].marked_after) BOOST_CHECK_MESSAGE(node::FindForeignData(dir.m_path).empty(), "case " << i);
    }
}

BOOST_AUTO_TEST_CASE(marker_write_failure_is_reported)
{
    TempDirFixture dir;
    const auto missing = dir.m_path / "no-such-dir";
    std::string error;
    BOOST_CHECK(!node::MarkNewChainDir(missing, error));
    BOOST_CHECK_EQUAL(error, "Cannot write " + (missing / node::DATADIR_MARKER_FILE).string());
}

BOOST_AUTO_TEST_SUITE_END()
