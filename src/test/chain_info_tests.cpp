// What the chain RPCs derive from the block index (node/chainstate/chain_info.h):
// difficulty and target from nBits, median time past, and the verification
// progress estimate, each against figures Bitcoin Core prints for the same
// block (regtest genesis and tip of the regtest-small vector, main's block
// 840000).

#include <node/blockstorage/blockstorage.h>
#include <node/chainstate/chain_info.h>

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <memory>
#include <vector>

namespace {

// Doubles as Core's JSON writer prints them: 16 significant digits.
std::string Printed(double value) { return fmt::format("{:.16g}", value); }

// A header-only chain with the given block times, genesis first.
std::vector<std::unique_ptr<CBlockIndex>> ChainWithTimes(const std::vector<uint32_t>& times)
{
    std::vector<std::unique_ptr<CBlockIndex>> chain;
    for (uint32_t time : times) {
        auto index = std::make_unique<CBlockIndex>();
        index->pprev = chain.empty() ? nullptr : chain.back().get();
        index->nHeight = static_cast<int>(chain.size());
        index->nTime = time;
        chain.push_back(std::move(index));
    }
    return chain;
}

} // namespace

BOOST_AUTO_TEST_SUITE(chain_info_tests)

BOOST_AUTO_TEST_CASE(difficulty_and_target)
{
    // Core's getblockchaininfo on regtest, and main's difficulty 1.
    BOOST_CHECK_EQUAL(Printed(node::GetDifficulty(0x207fffff)), "4.656542373906925e-10");
    BOOST_CHECK_EQUAL(Printed(node::GetDifficulty(0x1d00ffff)), "1");
    // Main's block 840000.
    BOOST_CHECK_EQUAL(Printed(node::GetDifficulty(0x17034219)), "86388558925171.02");
    BOOST_CHECK_EQUAL(node::TargetHex(0x207fffff), "7fffff0000000000000000000000000000000000000000000000000000000000");
    BOOST_CHECK_EQUAL(node::TargetHex(0x1d00ffff), "00000000ffff0000000000000000000000000000000000000000000000000000");
    BOOST_CHECK_EQUAL(node::TargetHex(0x17034219), "0000000000000000000342190000000000000000000000000000000000000000");
    // A negative target is no target.
    BOOST_CHECK_EQUAL(node::TargetHex(0x04923456), std::string(64, '0'));
}

BOOST_AUTO_TEST_CASE(median_time_past)
{
    // Fewer than eleven blocks: the median of those there are.
    auto chain = ChainWithTimes({100});
    BOOST_CHECK_EQUAL(node::GetMedianTimePast(*chain.back()), 100);
    chain = ChainWithTimes({100, 300, 200});
    BOOST_CHECK_EQUAL(node::GetMedianTimePast(*chain.back()), 200);
    // Out-of-order times are sorted; with twelve blocks the first is left out.
    chain = ChainWithTimes({1, 50, 20, 30, 40, 10, 60, 70, 80, 90, 100, 200});
    // The last eleven sorted: 10 20 30 40 50 60 70 80 90 100 200.
    BOOST_CHECK_EQUAL(node::GetMedianTimePast(*chain.back()), 60);
    BOOST_CHECK_EQUAL(node::GetMedianTimePast(*chain[10]), 50);
}

BOOST_AUTO_TEST_CASE(verification_progress)
{
    const CChainParams regtest = CChainParams::ForChain(ChainType::REGTEST);
    // Core at 1795545390 on a fresh regtest node: one transaction, the
    // genesis block's, against 0.001 per second since 2011.
    const int64_t now = 1795545390;
    node::ProgressInput genesis{.chain_tx = 1, .tip_time = 1296688602, .tip_height = 0, .best_header_height = 0};
    BOOST_CHECK_EQUAL(Printed(node::GuessVerificationProgress(regtest, genesis, now)), "2.004579309083574e-06");
    // The regtest-small tip: 203 transactions, 225326 seconds old.
    node::ProgressInput tip{.chain_tx = 203, .tip_time = 1795320064, .tip_height = 160, .best_header_height = 160};
    BOOST_CHECK_EQUAL(Printed(node::GuessVerificationProgress(regtest, tip, now)), Printed(203 / (203 + 225326 * 0.001)));
    // Unknown count: 0, as Core answers.
    tip.chain_tx = 0;
    BOOST_CHECK_EQUAL(node::GuessVerificationProgress(regtest, tip, now), 0.0);

    // A recent tip is timed by the headers above it, not its own clock:
    // with none above, as fresh as now, so 1.
    node::ProgressInput recent{.chain_tx = 500, .tip_time = now + 3600, .tip_height = 10, .best_header_height = 10};
    BOOST_CHECK_EQUAL(node::GuessVerificationProgress(regtest, recent, now), 1.0);
    // Three headers above: three spacings behind.
    recent.best_header_height = 13;
    BOOST_CHECK_EQUAL(Printed(node::GuessVerificationProgress(regtest, recent, now)), Printed(500 / (500 + 3 * 600 * 0.001)));
    // Older than two hours: its own time counts again.
    recent.tip_time = now - 7201;
    BOOST_CHECK_EQUAL(Printed(node::GuessVerificationProgress(regtest, recent, now)), Printed(500 / (500 + 7201 * 0.001)));

    // Main, below the parameters' count: measured against that count.
    const CChainParams main = CChainParams::ForChain(ChainType::MAIN);
    const ChainTxData& data = main.TxData();
    node::ProgressInput early{.chain_tx = data.tx_count / 2, .tip_time = data.time - 86400, .tip_height = 1, .best_header_height = 1};
    BOOST_CHECK_EQUAL(Printed(node::GuessVerificationProgress(main, early, data.time)),
                      Printed(static_cast<double>(data.tx_count / 2) / data.tx_count));
}

BOOST_AUTO_TEST_SUITE_END()
