// SnapshotReadAhead against a model: the plain SnapshotCoinReader and
// SnapshotHasher run over the same file on the test's thread. Random files
// of a few chunks, in key order or not, whole or cut short, must yield the
// same coins in the same order, the same out-of-order point, the same hash
// and, for a bad file, the same error after the same coins.

#include <coins.h>
#include <kernel/chainparams.h>
#include <node/snapshot/read_ahead.h>
#include <node/snapshot/utxo_snapshot.h>
#include <streams.h>
#include <test/util/coin_compare.h>
#include <test/util/random.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

const CChainParams REGTEST = CChainParams::ForChain(ChainType::REGTEST);
// The regtest assumeutxo entry at height 110.
const uint256 BASE_110 = *uint256::FromHex("6affe030b7965ab538f820a56ef56c8149b7dc1d1c144af57113be080db7c397");
constexpr int BASE_HEIGHT = 110;

using CoinList = std::vector<std::pair<COutPoint, Coin>>;

// Groups of 1-3 coins under distinct txids, in key order unless a swap of
// two groups is asked for.
CoinList RandomCoins(TestRand& rng, size_t groups, bool swap_two)
{
    std::vector<uint256> txids(groups);
    for (auto& txid : txids) txid = rng.Hash();
    std::ranges::sort(txids);
    txids.erase(std::ranges::unique(txids).begin(), txids.end());
    if (swap_two && txids.size() > 2) std::swap(txids[rng.Next() % (txids.size() - 1)], txids.back());
    CoinList coins;
    for (const auto& txid : txids) {
        const uint32_t outputs = 1 + rng.Next() % 3;
        for (uint32_t n = 0; n < outputs; ++n) {
            CScript script(5 + rng.Next() % 60, static_cast<unsigned char>(0x51 + rng.Next() % 7));
            coins.emplace_back(COutPoint{txid, n * 3},
                               Coin{CTxOut{static_cast<CAmount>(rng.Next() % 100'000'000), std::move(script)},
                                    static_cast<int>(rng.Next() % (BASE_HEIGHT + 1)), rng.Next() % 2 == 0});
        }
    }
    return coins;
}

// Writes the snapshot and returns its size; cut_at > 0 truncates it there.
size_t WriteFile(const std::filesystem::path& path, const CoinList& coins, size_t cut_at = 0)
{
    {
        AutoFile file{std::fopen(path.c_str(), "wb")};
        SnapshotMetadata{REGTEST.MessageStart(), BASE_110, coins.size()}.Write(file);
        for (size_t i = 0; i < coins.size();) {
            size_t end = i;
            while (end < coins.size() && coins[end].first.hash == coins[i].first.hash) ++end;
            file << coins[i].first.hash;
            WriteCompactSize(file, end - i);
            for (; i < end; ++i) {
                WriteCompactSize(file, coins[i].first.n);
                file << coins[i].second;
            }
        }
    }
    const size_t size = std::filesystem::file_size(path);
    if (cut_at > 0 && cut_at < size) std::filesystem::resize_file(path, cut_at);
    return size;
}

// Opens the file and reads its header, leaving it at the first coin.
std::unique_ptr<AutoFile> OpenBody(const std::filesystem::path& path, SnapshotMetadata& metadata)
{
    auto file = std::make_unique<AutoFile>(std::fopen(path.c_str(), "rb"));
    metadata = SnapshotMetadata::Read(*file, REGTEST.MessageStart());
    return file;
}

// What the model reads: every coin up to the first error, where the hashed
// order broke, the hash, and the error.
struct Outcome {
    CoinList coins;
    std::optional<size_t> first_unordered;
    std::optional<uint256> hash;
    std::optional<std::string> error;
};

Outcome ReadWithModel(const std::filesystem::path& path)
{
    SnapshotMetadata metadata;
    const auto file = OpenBody(path, metadata);
    SnapshotCoinReader reader{*file, metadata, BASE_HEIGHT};
    SnapshotHasher hasher;
    Outcome out;
    try {
        COutPoint outpoint;
        Coin coin;
        while (reader.Next(outpoint, coin)) {
            const bool was_in_order = hasher.InOrder();
            hasher.Add(outpoint, coin, reader.CoinsRead());
            if (was_in_order && !hasher.InOrder()) out.first_unordered = out.coins.size();
            out.coins.emplace_back(outpoint, std::move(coin));
        }
        out.hash = hasher.Hash();
    } catch (const SnapshotError& e) {
        out.error = e.what();
    }
    return out;
}

Outcome ReadAhead(const std::filesystem::path& path)
{
    SnapshotMetadata metadata;
    const auto file = OpenBody(path, metadata);
    SnapshotReadAhead reader{*file, metadata, BASE_HEIGHT};
    SnapshotReadAhead::Chunk chunk;
    Outcome out;
    try {
        while (reader.Next(chunk)) {
            BOOST_CHECK_LE(chunk.coins.size(), SnapshotReadAhead::CHUNK_COINS);
            BOOST_CHECK_LE(chunk.first_unordered, chunk.coins.size());
            if (!out.first_unordered && chunk.first_unordered < chunk.coins.size()) {
                out.first_unordered = out.coins.size() + chunk.first_unordered;
            }
            // Once out of order, every later chunk is so from its start.
            if (out.first_unordered && *out.first_unordered < out.coins.size()) BOOST_CHECK_EQUAL(chunk.first_unordered, 0U);
            for (auto& entry : chunk.coins) out.coins.push_back(std::move(entry));
            BOOST_CHECK_EQUAL(chunk.coins_read, out.coins.size());
        }
        out.hash = reader.Hash();
    } catch (const SnapshotError& e) {
        out.error = e.what();
    }
    return out;
}

void CheckSame(const Outcome& got, const Outcome& model)
{
    BOOST_REQUIRE_EQUAL(got.coins.size(), model.coins.size());
    for (size_t i = 0; i < model.coins.size(); ++i) {
        BOOST_CHECK(got.coins[i].first == model.coins[i].first);
        BOOST_CHECK(SameCoin(got.coins[i].second, model.coins[i].second));
    }
    BOOST_CHECK(got.first_unordered == model.first_unordered);
    BOOST_CHECK(got.hash == model.hash);
    BOOST_CHECK_EQUAL(got.error.value_or("no error"), model.error.value_or("no error"));
}

} // namespace

BOOST_AUTO_TEST_SUITE(snapshot_read_ahead_tests)

BOOST_AUTO_TEST_CASE(same_as_the_plain_reader)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "snapshot.dat";
    TestRand rng{0x5eada4ead};
    struct Case {
        const char* name;
        bool swap_two;
        bool cut;
    };
    for (const Case test : {Case{"in key order", false, false}, Case{"out of order", true, false},
                            Case{"cut short", false, true}, Case{"out of order and cut short", true, true}}) {
        for (int round = 0; round < 3; ++round) {
            // From empty to several chunks and a partial one.
            const size_t groups = round == 0 ? 0 : rng.Next() % (3 * SnapshotReadAhead::CHUNK_COINS / 2);
            const CoinList coins = RandomCoins(rng, groups, test.swap_two);
            const size_t whole = WriteFile(path, coins);
            const size_t cut_at = test.cut && whole > 52 ? 52 + rng.Next() % (whole - 52) : 0;
            WriteFile(path, coins, cut_at);
            BOOST_TEST_CONTEXT(test.name << ", " << coins.size() << " coins, cut at " << cut_at)
            {
                const Outcome model = ReadWithModel(path);
                if (test.swap_two && coins.size() > 6) BOOST_CHECK(model.first_unordered || model.error);
                if (cut_at > 0) BOOST_CHECK(model.error);
                CheckSame(ReadAhead(path), model);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(stops_when_dropped_midway)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "snapshot.dat";
    TestRand rng{0x5709};
    WriteFile(path, RandomCoins(rng, 4 * SnapshotReadAhead::CHUNKS_AHEAD * SnapshotReadAhead::CHUNK_COINS, false));
    SnapshotMetadata metadata;
    const auto file = OpenBody(path, metadata);
    uint64_t read = 0;
    {
        SnapshotReadAhead reader{*file, metadata, BASE_HEIGHT};
        SnapshotReadAhead::Chunk chunk;
        BOOST_REQUIRE(reader.Next(chunk));
        BOOST_CHECK_EQUAL(chunk.coins.size(), SnapshotReadAhead::CHUNK_COINS);
        read = chunk.coins_read;
        // Destroyed with the queue full and most of the file unread: the
        // reader stops instead of running on (or hanging the destructor).
    }
    BOOST_CHECK_EQUAL(read, SnapshotReadAhead::CHUNK_COINS);
    BOOST_CHECK(!file->AtEnd());
}

BOOST_AUTO_TEST_CASE(big_scripts_end_a_chunk_early)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "snapshot.dat";
    TestRand rng{0xb165c7};
    // Scripts of 10,000 bytes, the largest a coin stores: 4096 of them
    // would be 40 MiB a chunk, and six chunks in flight 240 MiB.
    constexpr size_t SCRIPT_BYTES = 10'000;
    constexpr size_t COINS = 3 * SnapshotReadAhead::CHUNK_SCRIPT_BYTES / SCRIPT_BYTES;
    CoinList coins = RandomCoins(rng, COINS, false);
    for (auto& [outpoint, coin] : coins) coin.out.scriptPubKey = CScript(SCRIPT_BYTES, static_cast<unsigned char>(0x51 + rng.Next() % 7));
    WriteFile(path, coins);
    SnapshotMetadata metadata;
    const auto file = OpenBody(path, metadata);
    SnapshotReadAhead reader{*file, metadata, BASE_HEIGHT};
    SnapshotReadAhead::Chunk chunk;
    size_t read = 0;
    size_t chunks = 0;
    while (reader.Next(chunk)) {
        size_t script_bytes = 0;
        for (const auto& [outpoint, coin] : chunk.coins) script_bytes += coin.DynamicMemoryUsage();
        // Past the bound by at most the coin that reached it.
        BOOST_CHECK_LT(script_bytes, SnapshotReadAhead::CHUNK_SCRIPT_BYTES + SCRIPT_BYTES + 64);
        read += chunk.coins.size();
        ++chunks;
    }
    BOOST_CHECK_EQUAL(read, coins.size());
    BOOST_CHECK_GE(chunks, 3U);
}

BOOST_AUTO_TEST_SUITE_END()
