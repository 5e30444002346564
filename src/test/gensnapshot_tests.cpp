// The snapshot generator behind coinsdb-gensnapshot: what it writes loads
// like a real snapshot and reproduces the figures it reported, the bytes
// depend on the seed alone, and the content has the intended shape.

#include <coins.h>
#include <compressor.h>
#include <kernel/caches.h>
#include <kernel/chainparams.h>
#include <kernel/coinstats.h>
#include <node/snapshot/utxo_snapshot.h>
#include <test/util/setup.h>
#include <tools/coin_shape.h>
#include <tools/snapshot_generator.h>
#include <tools/tx_layout.h>
#include <txdb.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace {

const CChainParams REGTEST{CChainParams::ForChain(ChainType::REGTEST)};

SnapshotGeneratorOptions Options(uint64_t seed, uint64_t coins)
{
    SnapshotGeneratorOptions options;
    options.seed = seed;
    options.coins = coins;
    return options;
}

struct ReadBack {
    SnapshotMetadata metadata;
    std::vector<std::pair<COutPoint, Coin>> coins;
};

ReadBack ReadSnapshot(const std::filesystem::path& path, int base_height)
{
    AutoFile file{std::fopen(path.c_str(), "rb")};
    BOOST_REQUIRE(!file.IsNull());
    ReadBack out{SnapshotMetadata::Read(file, REGTEST.MessageStart()), {}};
    SnapshotCoinReader reader{file, out.metadata, base_height};
    COutPoint outpoint;
    Coin coin;
    while (reader.Next(outpoint, coin)) out.coins.emplace_back(outpoint, coin);
    return out;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(gensnapshot_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(loads_with_the_reported_stats)
{
    const auto options = Options(/*seed=*/42, /*coins=*/5000);
    const auto path = m_path / "gen.dat";
    const auto info = GenerateSnapshotFile(path, REGTEST, options);
    BOOST_CHECK_EQUAL(info.coins, 5000U);
    BOOST_CHECK_EQUAL(info.base_height, 840000);
    BOOST_CHECK(!std::filesystem::exists(m_path / "gen.dat.incomplete"));

    const ReadBack snapshot = ReadSnapshot(path, info.base_height);
    BOOST_CHECK(snapshot.metadata.base_blockhash == info.base_blockhash);
    BOOST_CHECK_EQUAL(snapshot.metadata.coins_count, 5000U);
    BOOST_REQUIRE_EQUAL(snapshot.coins.size(), 5000U);

    // What the tool prints as "assumeutxo" is all a chain needs to trust it.
    CChainParams params = REGTEST;
    params.AddAssumeutxo({info.base_height, info.base_blockhash, info.hash_serialized, info.chain_tx_count});
    BOOST_CHECK_EQUAL(CheckSnapshotBase(snapshot.metadata, params).height, 840000);

    CCoinsViewDB db{DBParams{.path = m_path / "chainstate", .cache_bytes = 8 << 20}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    {
        CCoinsViewCache cache{&db};
        for (auto [outpoint, coin] : snapshot.coins) cache.EmplaceCoinInternalDANGER(std::move(outpoint), std::move(coin));
        cache.SetBestBlock(snapshot.metadata.base_blockhash);
        cache.Flush();
    }
    const auto stats = kernel::ComputeUTXOStats(kernel::CoinStatsHashType::HASH_SERIALIZED, db);
    BOOST_REQUIRE(stats);
    BOOST_CHECK_EQUAL(stats->hash_serialized.GetHex(), info.hash_serialized.GetHex());
    BOOST_CHECK_EQUAL(stats->txouts, info.coins);
    BOOST_CHECK_EQUAL(stats->transactions, info.transactions);
    BOOST_CHECK_EQUAL(stats->total_amount, info.total_amount);
    BOOST_CHECK_EQUAL(stats->bogosize, info.bogosize);
    BOOST_CHECK(stats->best_block == info.base_blockhash);
    BOOST_CHECK_EQUAL(info.chain_tx_count, 840001 + info.transactions - info.coinbase_transactions);
}

BOOST_AUTO_TEST_CASE(bytes_depend_on_the_seed_alone)
{
    const auto first = GenerateSnapshotFile(m_path / "a.dat", REGTEST, Options(7, 3000));
    const auto again = GenerateSnapshotFile(m_path / "b.dat", REGTEST, Options(7, 3000));
    const auto other = GenerateSnapshotFile(m_path / "c.dat", REGTEST, Options(8, 3000));
    const std::string a = ReadFileToString(m_path / "a.dat");
    BOOST_CHECK(a == ReadFileToString(m_path / "b.dat"));
    BOOST_CHECK(a != ReadFileToString(m_path / "c.dat"));
    BOOST_CHECK(first.hash_serialized == again.hash_serialized);
    BOOST_CHECK(first.hash_serialized != other.hash_serialized);
    BOOST_CHECK(first.base_blockhash != other.base_blockhash);

    // Like dumptxoutset, an existing file is never replaced.
    BOOST_CHECK_THROW(GenerateSnapshotFile(m_path / "a.dat", REGTEST, Options(9, 3000)), std::runtime_error);
    BOOST_CHECK(a == ReadFileToString(m_path / "a.dat"));
    BOOST_CHECK(!std::filesystem::exists(m_path / "a.dat.incomplete"));
}

BOOST_AUTO_TEST_CASE(content_has_the_intended_shape)
{
    const uint64_t count = 20'000;
    const auto info = GenerateSnapshotFile(m_path / "shape.dat", REGTEST, Options(3, count));
    const ReadBack snapshot = ReadSnapshot(m_path / "shape.dat", info.base_height);
    BOOST_REQUIRE_EQUAL(snapshot.coins.size(), count);

    std::array<uint64_t, SCRIPT_TYPE_COUNT> by_type{};
    uint64_t coinbase = 0, dust = 0, whole_btc = 0, recent = 0, vout_holes = 0;
    for (size_t i = 0; i < snapshot.coins.size(); ++i) {
        const auto& [outpoint, coin] = snapshot.coins[i];
        const ScriptType type = ClassifyScript(coin.out.scriptPubKey);
        ++by_type[static_cast<size_t>(type)];
        BOOST_CHECK(!coin.out.scriptPubKey.IsUnspendable());
        BOOST_CHECK(coin.nHeight >= 1 && coin.nHeight <= 840000U);
        BOOST_CHECK(coin.out.nValue <= 500 * COIN);
        // Valid keys: every P2PK script takes one of the compressor's special forms.
        if (type == ScriptType::P2PK_COMPRESSED || type == ScriptType::P2PK_UNCOMPRESSED) {
            CompressedScript compressed;
            BOOST_CHECK(CompressScript(coin.out.scriptPubKey, compressed) && compressed[0] >= 2 && compressed[0] <= 5);
        }
        coinbase += coin.IsCoinBase();
        dust += coin.out.nValue < 1000;
        whole_btc += coin.out.nValue >= COIN;
        recent += coin.nHeight > 840000U * 8 / 10;
        if (i > 0) {
            const COutPoint& previous = snapshot.coins[i - 1].first;
            BOOST_CHECK(previous < outpoint);
            vout_holes += previous.hash == outpoint.hash && outpoint.n != previous.n + 1;
        }
    }
    // Each type within a third of its SCRIPT_MIX share, or within 0.4 points
    // for the small ones, where a few coins swing the share.
    for (size_t t = 0; t < SCRIPT_TYPE_COUNT; ++t) {
        const double expected = SCRIPT_MIX[t] / 10'000.0;
        const double observed = double(by_type[t]) / count;
        BOOST_TEST_CONTEXT(ScriptTypeName(static_cast<ScriptType>(t)) << " " << observed << " vs " << expected)
        {
            BOOST_CHECK(by_type[t] > 0);
            BOOST_CHECK(std::abs(observed - expected) <= std::max(expected / 3, 0.004));
        }
    }
    const double segwit = double(by_type[size_t(ScriptType::P2WPKH)] + by_type[size_t(ScriptType::P2TR)]) / count;
    BOOST_CHECK(segwit > 0.45 && segwit < 0.60);
    BOOST_CHECK(coinbase > count / 500 && coinbase < count / 50);
    BOOST_CHECK(dust > count / 10);
    BOOST_CHECK(whole_btc > 0 && whole_btc < count / 20);
    BOOST_CHECK(recent > count / 2);
    BOOST_CHECK(vout_holes > 0);
    BOOST_CHECK(info.transactions < count * 3 / 4 && info.transactions > count / 3);
}

BOOST_AUTO_TEST_CASE(total_never_exceeds_the_budget)
{
    auto options = Options(5, 2000);
    options.max_total = 3 * COIN;
    const auto info = GenerateSnapshotFile(m_path / "poor.dat", REGTEST, options);
    BOOST_CHECK(info.total_amount <= 3 * COIN);
    CAmount total = 0;
    for (const auto& [outpoint, coin] : ReadSnapshot(m_path / "poor.dat", info.base_height).coins) total += coin.out.nValue;
    BOOST_CHECK_EQUAL(total, info.total_amount);
}

BOOST_AUTO_TEST_CASE(txids_increase_across_the_key_space)
{
    SortedTxids txids{/*seed=*/1, /*count=*/1000};
    uint256 previous;
    std::array<bool, 16> high_nibbles{};
    for (int i = 0; i < 1000; ++i) {
        const uint256 txid = txids.Next();
        BOOST_CHECK(previous < txid);
        high_nibbles[txid.data()[0] >> 4] = true;
        previous = txid;
    }
    // Spread like hashes: every sixteenth of the key space is used.
    BOOST_CHECK(std::ranges::all_of(high_nibbles, [](bool used) { return used; }));
}

BOOST_AUTO_TEST_CASE(json_carries_the_assumeutxo_entry)
{
    auto options = Options(1, 100);
    options.base_height = 200;
    const auto info = GenerateSnapshotFile(m_path / "j.dat", REGTEST, options);
    const auto json = nlohmann::json::parse(SnapshotInfoJson(info, "dir/\"odd\".dat", "regtest"));
    BOOST_CHECK_EQUAL(json["path"].get<std::string>(), "dir/\"odd\".dat");
    BOOST_CHECK_EQUAL(json["chain"].get<std::string>(), "regtest");
    BOOST_CHECK_EQUAL(json["base_height"].get<int>(), 200);
    BOOST_CHECK_EQUAL(json["coins"].get<uint64_t>(), 100U);
    BOOST_CHECK_EQUAL(json["transactions"].get<uint64_t>(), info.transactions);
    BOOST_CHECK_EQUAL(json["nchaintx"].get<uint64_t>(), info.chain_tx_count);
    BOOST_CHECK_EQUAL(json["base_blockhash"].get<std::string>(), info.base_blockhash.GetHex());
    BOOST_CHECK_EQUAL(json["hash_serialized_3"].get<std::string>(), info.hash_serialized.GetHex());
    BOOST_CHECK_EQUAL(json["assumeutxo"].get<std::string>(),
                      "200:" + info.base_blockhash.GetHex() + ":" + info.hash_serialized.GetHex());
    BOOST_CHECK_EQUAL(std::llround(json["total_amount"].get<double>() * COIN), info.total_amount);
}

BOOST_AUTO_TEST_SUITE_END()
