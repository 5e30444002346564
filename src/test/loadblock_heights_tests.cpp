// FindLoadBlockHeights (node/replay/loadblock_heights.h): heights of the
// blocks of -loadblock files from their headers alone, table-driven over
// file layouts: one file or several in any order, blocks out of order,
// forks, repeats, a chain that does not start at genesis, a missing file.

#include <kernel/chainparams.h>
#include <node/replay/loadblock_heights.h>
#include <primitives/block.h>
#include <streams.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

using node::FindLoadBlockHeights;

namespace {

const CChainParams REGTEST{CChainParams::ForChain(ChainType::REGTEST)};

// A header-only "block" (no transactions): all a header scan reads.
CBlock Child(const uint256& prev, uint32_t tag)
{
    CBlock block;
    block.hashPrevBlock = prev;
    block.nNonce = tag;
    return block;
}

std::vector<CBlock> Chain(const uint256& from, size_t count, uint32_t first_tag)
{
    std::vector<CBlock> chain;
    uint256 prev = from;
    for (size_t i = 0; i < count; ++i) {
        chain.push_back(Child(prev, first_tag + static_cast<uint32_t>(i)));
        prev = chain.back().GetHash();
    }
    return chain;
}

void WriteBlocks(const std::filesystem::path& path, const std::vector<CBlock>& blocks)
{
    DataStream bytes;
    for (const CBlock& block : blocks) {
        DataStream record;
        record << block;
        bytes << REGTEST.MessageStart();
        WriteLE(bytes, static_cast<uint32_t>(record.size()));
        bytes.write(record.Unread());
    }
    std::ofstream file{path, std::ios::binary};
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(loadblock_heights_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(heights_from_headers)
{
    const auto trunk = Chain(REGTEST.GenesisHash(), 10, 0);
    // A fork off block 3 (height 3), three blocks long: heights 4 to 6.
    const auto fork = Chain(trunk[2].GetHash(), 3, 100);
    // A chain whose first parent the files do not hold.
    const auto orphan = Chain(uint256{uint8_t{7}}, 8, 200);
    std::vector<CBlock> reversed{trunk.rbegin(), trunk.rend()};
    std::vector<CBlock> first_half{trunk.begin(), trunk.begin() + 5};
    std::vector<CBlock> second_half{trunk.begin() + 5, trunk.end()};
    std::vector<CBlock> with_repeats = trunk;
    with_repeats.insert(with_repeats.end(), trunk.begin(), trunk.begin() + 3);
    std::vector<CBlock> with_fork = trunk;
    with_fork.insert(with_fork.end(), fork.begin(), fork.end());
    std::vector<CBlock> with_orphan = trunk;
    with_orphan.insert(with_orphan.begin(), orphan.begin(), orphan.end());

    struct Case {
        std::string name;
        std::vector<std::vector<CBlock>> files;
        int height;
        std::vector<uint256> at_height;
        int max_height;
        size_t headers;
    };
    const std::vector<Case> cases{
        {"one file in order", {trunk}, 5, {trunk[4].GetHash()}, 10, 10},
        {"one file, children first", {reversed}, 5, {trunk[4].GetHash()}, 10, 10},
        {"two files, the later one first", {second_half, first_half}, 7, {trunk[6].GetHash()}, 10, 10},
        {"repeated blocks", {with_repeats}, 3, {trunk[2].GetHash()}, 10, 13},
        {"a fork: two blocks at height 5", {with_fork}, 5, {trunk[4].GetHash(), fork[1].GetHash()}, 10, 13},
        {"a fork: one block above it", {with_fork}, 7, {trunk[6].GetHash()}, 10, 13},
        {"height 0 is genesis", {trunk}, 0, {REGTEST.GenesisHash()}, 10, 10},
        {"beyond the files", {trunk}, 11, {}, 10, 10},
        {"a chain not from genesis reaches nothing", {with_orphan}, 9, {trunk[8].GetHash()}, 10, 18},
        {"no file", {}, 1, {}, 0, 0},
    };
    for (const Case& c : cases) {
        std::vector<std::filesystem::path> paths;
        for (size_t i = 0; i < c.files.size(); ++i) {
            paths.push_back(m_path / ("blocks" + std::to_string(i) + ".dat"));
            WriteBlocks(paths.back(), c.files[i]);
        }
        // A missing file is skipped.
        paths.push_back(m_path / "missing.dat");
        auto found = FindLoadBlockHeights(paths, REGTEST, c.height);
        auto expected = c.at_height;
        std::ranges::sort(found.at_height);
        std::ranges::sort(expected);
        BOOST_CHECK_MESSAGE(found.at_height == expected, c.name << ": " << found.at_height.size() << " blocks at height " << c.height);
        BOOST_CHECK_MESSAGE(found.max_height == c.max_height, c.name << ": max height " << found.max_height);
        BOOST_CHECK_MESSAGE(found.headers == c.headers, c.name << ": " << found.headers << " headers");
    }
}

BOOST_AUTO_TEST_SUITE_END()
