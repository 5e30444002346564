// CoinRuns (node/replay/coin_runs.h), the external sort of a hinted
// replay's kept coins: against a std::map model in chainstate key order
// (CoinKeyLess: indexes up to 20,000, past where VARINT order and numeric
// order part at 16512), with budgets that make
// one run, several, or none, and chunk sizes that leave one sorted chunk in
// memory or many (sorted on the second thread); a repeated outpoint is
// refused, whether the two are in runs or in chunks; the run files go away
// with the object.

#include <node/replay/coin_runs.h>
#include <test/util/random.h>
#include <test/util/setup.h>
#include <txdb.h>

#include <boost/test/unit_test.hpp>

#include <map>
#include <stdexcept>

using node::CoinRuns;

namespace {

struct ByKey {
    bool operator()(const COutPoint& a, const COutPoint& b) const { return CoinKeyLess(a, b); }
};

Coin RandomCoin(TestRand& rand)
{
    std::vector<unsigned char> script(rand.Below(60));
    for (auto& byte : script) byte = static_cast<unsigned char>(rand.Next());
    return Coin{CTxOut{static_cast<CAmount>(rand.Below(MAX_MONEY)), CScript{script}}, static_cast<int>(rand.Below(1'000'000)), rand.Bool()};
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(swiftsync_coin_runs_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(merge_returns_every_coin_in_key_order)
{
    struct Case {
        size_t coins;
        size_t budget;
        size_t chunk_coins;
        size_t min_runs;
        size_t max_runs;
        // Sorted chunks still in memory before the merge.
        size_t min_chunks;
    };
    const size_t def{CoinRuns::DEFAULT_CHUNK_COINS};
    for (const Case& c : {
             Case{0, 1 << 20, def, 0, 0, 0},
             Case{3000, 1 << 24, def, 0, 0, 0},
             Case{3000, 100'000, def, 2, 1000, 0},
             Case{3000, 1, def, 2900, 3000, 0},
             Case{3000, 1 << 24, 256, 0, 0, 10},
             Case{3000, 1 << 24, 1, 0, 0, 2900},
             Case{3000, 100'000, 64, 2, 1000, 0},
         }) {
        TestRand rand{c.coins + c.budget + c.chunk_coins};
        std::map<COutPoint, Coin, ByKey> model;
        const auto dir = m_path / "runs";
        {
            CoinRuns runs{dir, c.budget, c.chunk_coins};
            for (size_t i = 0; i < c.coins; ++i) {
                // Some txids with many outputs, to cover the index order,
                // and some equal to another in all but their last byte, to
                // cover txids whose first 8 bytes tie.
                uint256 txid{rand.Hash()};
                if (!model.empty() && rand.OneIn(4)) {
                    txid = model.begin()->first.hash;
                } else if (!model.empty() && rand.OneIn(4)) {
                    txid = model.rbegin()->first.hash;
                    txid.data()[31] ^= static_cast<unsigned char>(1 + rand.Below(255));
                }
                const COutPoint outpoint{txid, static_cast<uint32_t>(rand.Below(20'000))};
                if (model.contains(outpoint)) continue;
                Coin coin = RandomCoin(rand);
                model.emplace(outpoint, coin);
                runs.Add(outpoint, std::move(coin));
            }
            BOOST_CHECK_EQUAL(runs.Count(), model.size());
            BOOST_CHECK_MESSAGE(runs.Runs() >= c.min_runs && runs.Runs() <= c.max_runs, runs.Runs() << " runs for budget " << c.budget);
            BOOST_CHECK_MESSAGE(runs.Chunks() >= c.min_chunks, runs.Chunks() << " chunks of " << c.chunk_coins);
            BOOST_CHECK(runs.MemoryUsage() < c.budget || c.budget == 1);
            auto expected = model.begin();
            runs.Merge([&](const COutPoint& outpoint, Coin&& coin) {
                BOOST_REQUIRE(expected != model.end());
                BOOST_REQUIRE(outpoint == expected->first);
                BOOST_REQUIRE(coin.out == expected->second.out);
                BOOST_REQUIRE_EQUAL(coin.nHeight, expected->second.nHeight);
                BOOST_REQUIRE_EQUAL(coin.fCoinBase, expected->second.fCoinBase);
                ++expected;
            });
            BOOST_CHECK(expected == model.end());
            BOOST_CHECK(std::filesystem::exists(dir));
        }
        BOOST_CHECK(!std::filesystem::exists(dir));
    }
}

// One transaction's outputs around 16512, where VARINT(n)'s bytes stop
// rising with n (16512 sorts before 16511): the merge gives them in the
// chainstate's order, from one chunk, from several, and from runs.
BOOST_AUTO_TEST_CASE(indexes_merge_in_varint_order)
{
    TestRand rand{14};
    const uint256 txid = rand.Hash();
    // VARINT bytes: 00, 7f, 8000, 808000, 808001, 80808000, ff7f, ffff7f.
    const std::vector<uint32_t> in_key_order{0, 127, 128, 16512, 16513, 2'113'664, 16511, 2'113'663};
    for (const auto& [budget, chunk_coins] : {std::pair<size_t, size_t>{1 << 24, 1 << 10}, {1 << 24, 2}, {1, 1 << 10}}) {
        CoinRuns runs{m_path / "runs", budget, chunk_coins};
        for (auto it = in_key_order.rbegin(); it != in_key_order.rend(); ++it) runs.Add(COutPoint{txid, *it}, RandomCoin(rand));
        std::vector<uint32_t> merged;
        runs.Merge([&](const COutPoint& outpoint, Coin&&) { merged.push_back(outpoint.n); });
        BOOST_CHECK(merged == in_key_order);
    }
}

BOOST_AUTO_TEST_CASE(an_outpoint_kept_twice_is_refused)
{
    TestRand rand{9};
    CoinRuns runs{m_path / "runs", 1000};
    const COutPoint outpoint{rand.Hash(), 3};
    runs.Add(outpoint, RandomCoin(rand));
    for (int i = 0; i < 50; ++i) runs.Add(COutPoint{rand.Hash(), 0}, RandomCoin(rand));
    runs.Add(outpoint, RandomCoin(rand));
    BOOST_CHECK_GE(runs.Runs(), 1U);
    BOOST_CHECK_THROW(runs.Merge([](const COutPoint&, Coin&&) {}), std::logic_error);
}

BOOST_AUTO_TEST_CASE(an_outpoint_kept_twice_in_two_chunks_is_refused)
{
    TestRand rand{11};
    CoinRuns runs{m_path / "runs", 1 << 24, 8};
    const COutPoint outpoint{rand.Hash(), 3};
    runs.Add(outpoint, RandomCoin(rand));
    for (int i = 0; i < 50; ++i) runs.Add(COutPoint{rand.Hash(), 0}, RandomCoin(rand));
    runs.Add(outpoint, RandomCoin(rand));
    BOOST_CHECK_EQUAL(runs.Runs(), 0U);
    BOOST_CHECK_GE(runs.Chunks(), 2U);
    BOOST_CHECK_THROW(runs.Merge([](const COutPoint&, Coin&&) {}), std::logic_error);
}

BOOST_AUTO_TEST_CASE(a_chunk_is_reserved_whole_and_counted)
{
    TestRand rand{12};
    constexpr size_t slot{sizeof(std::pair<COutPoint, Coin>)};
    // The first coin reserves the whole chunk, and its room counts.
    CoinRuns big{m_path / "big", size_t{1} << 30, 1000};
    big.Add(COutPoint{rand.Hash(), 0}, RandomCoin(rand));
    BOOST_CHECK_GE(big.MemoryUsage(), 1000 * slot);
    // A small budget reserves a quarter of itself, not a chunk.
    CoinRuns small{m_path / "small", 400 * slot, 1000};
    small.Add(COutPoint{rand.Hash(), 0}, RandomCoin(rand));
    BOOST_CHECK_GE(small.MemoryUsage(), 100 * slot);
    BOOST_CHECK_LT(small.MemoryUsage(), 200 * slot);
    BOOST_CHECK_EQUAL(small.Runs(), 0U);
}

BOOST_AUTO_TEST_CASE(a_damaged_run_is_an_error)
{
    TestRand rand{10};
    const auto dir = m_path / "runs";
    CoinRuns runs{dir, 1000};
    for (int i = 0; i < 50; ++i) runs.Add(COutPoint{rand.Hash(), 0}, RandomCoin(rand));
    BOOST_REQUIRE_GE(runs.Runs(), 1U);
    const auto first = dir / "run00000.dat";
    std::filesystem::resize_file(first, std::filesystem::file_size(first) - 3);
    BOOST_CHECK_THROW(runs.Merge([](const COutPoint&, Coin&&) {}), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
