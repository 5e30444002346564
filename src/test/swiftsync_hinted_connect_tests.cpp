// SwiftSync's hinted connect (kernel/swiftsync/hinted_connect.h):
// - on random chains, against a std::map model of the UTXO set: with the
//   true hints, the kept coins are exactly the set at H and the aggregate
//   is zero; a hint dropped, a spent output hinted, or an index moved by
//   one leaves it non-zero;
// - which outputs have an index (OP_RETURN, 10,000 and 10,001-byte
//   scripts);
// - every reject reason, as a table;
// - the coinbase history's maturity answer against a model, heights in
//   and out of order.

#include <kernel/swiftsync/aggregate.h>
#include <kernel/swiftsync/hinted_connect.h>
#include <test/util/random.h>

#include <boost/test/unit_test.hpp>

#include <map>
#include <optional>
#include <vector>

using kernel::BlockValidationState;
using kernel::swiftsync::AggregateSum;
using kernel::swiftsync::BlockTables;
using kernel::swiftsync::CoinbaseHistory;
using kernel::swiftsync::ConnectBlockHinted;
using kernel::swiftsync::HintedBlock;
using kernel::swiftsync::OutpointHasher;

namespace {

const CChainParams REGTEST{CChainParams::ForChain(ChainType::REGTEST)};

CScript Script(size_t size, unsigned char first = 0x51)
{
    std::vector<unsigned char> bytes(size, 0x00);
    if (size > 0) bytes[0] = first;
    return CScript{bytes};
}

CTransactionRef Coinbase(int height, std::vector<CTxOut> outputs)
{
    CMutableTransaction tx;
    tx.vin.emplace_back(COutPoint{}, CScript{std::vector<unsigned char>{0x02, static_cast<unsigned char>(height), static_cast<unsigned char>(height >> 8)}});
    tx.vout = std::move(outputs);
    return MakeTransactionRef(std::move(tx));
}

CTransactionRef Spend(std::vector<COutPoint> prevouts, std::vector<CTxOut> outputs)
{
    CMutableTransaction tx;
    for (const COutPoint& prevout : prevouts) tx.vin.emplace_back(prevout);
    tx.vout = std::move(outputs);
    return MakeTransactionRef(std::move(tx));
}

CBlock Block(std::vector<CTransactionRef> txs)
{
    CBlock block;
    block.nTime = 1;
    block.vtx = std::move(txs);
    return block;
}

// A random chain of `blocks` blocks from height 1, each transaction
// spending mature coins of the model (and sometimes an output of the same
// block), and the model's set after each block.
struct RandomChain {
    std::vector<CBlock> blocks;
    std::map<COutPoint, Coin> utxo;
};

RandomChain MakeRandomChain(TestRand& rand, int blocks)
{
    RandomChain chain;
    std::vector<COutPoint> spendable;
    std::map<COutPoint, int> coinbase_height;
    for (int height = 1; height <= blocks; ++height) {
        std::vector<CTransactionRef> txs;
        std::vector<CTxOut> cb_out{CTxOut{50, Script(25)}, CTxOut{0, Script(3, 0x6a)}};
        txs.push_back(Coinbase(height, cb_out));
        std::vector<COutPoint> created_here;
        const int tx_count = static_cast<int>(rand.Below(6));
        for (int t = 0; t < tx_count; ++t) {
            std::vector<COutPoint> prevouts;
            const int want = 1 + static_cast<int>(rand.Below(3));
            for (int i = 0; i < want && !spendable.empty(); ++i) {
                const size_t pick = rand.Below(spendable.size());
                const COutPoint prevout = spendable[pick];
                if (auto it = coinbase_height.find(prevout); it != coinbase_height.end() && height - it->second < kernel::COINBASE_MATURITY) continue;
                spendable[pick] = spendable.back();
                spendable.pop_back();
                prevouts.push_back(prevout);
            }
            if (!created_here.empty() && rand.OneIn(3)) {
                const size_t pick = rand.Below(created_here.size());
                prevouts.push_back(created_here[pick]);
                std::erase(spendable, created_here[pick]);
                created_here.erase(created_here.begin() + pick);
            }
            if (prevouts.empty()) continue;
            std::vector<CTxOut> outs;
            for (int o = 1 + static_cast<int>(rand.Below(3)); o > 0; --o) outs.emplace_back(1 + static_cast<CAmount>(rand.Below(1000)), Script(1 + rand.Below(40)));
            if (rand.OneIn(4)) outs.emplace_back(0, Script(5, 0x6a));
            txs.push_back(Spend(prevouts, outs));
        }
        CBlock block = Block(txs);
        for (size_t t = 0; t < block.vtx.size(); ++t) {
            const CTransaction& tx = *block.vtx[t];
            if (t > 0) {
                for (const CTxIn& in : tx.vin) chain.utxo.erase(in.prevout);
            }
            for (uint32_t n = 0; n < tx.vout.size(); ++n) {
                if (tx.vout[n].scriptPubKey.IsUnspendable()) continue;
                const COutPoint outpoint{tx.GetHash(), n};
                chain.utxo.emplace(outpoint, Coin{tx.vout[n], height, t == 0});
                spendable.push_back(outpoint);
                created_here.push_back(outpoint);
                if (t == 0) coinbase_height.emplace(outpoint, height);
            }
        }
        // Outputs spent in their own block left the model already; drop
        // them from the candidates too.
        std::erase_if(spendable, [&](const COutPoint& o) { return !chain.utxo.contains(o); });
        chain.blocks.push_back(std::move(block));
    }
    return chain;
}

// The true hints of a block: indices of its spendable outputs unspent at H.
std::vector<uint32_t> HintsFor(const CBlock& block, const std::map<COutPoint, Coin>& utxo)
{
    std::vector<uint32_t> hints;
    uint32_t index = 0;
    for (const CTransactionRef& tx : block.vtx) {
        for (uint32_t n = 0; n < tx->vout.size(); ++n) {
            if (tx->vout[n].scriptPubKey.IsUnspendable()) continue;
            if (utxo.contains(COutPoint{tx->GetHash(), n})) hints.push_back(index);
            ++index;
        }
    }
    return hints;
}

struct ReplayResult {
    std::map<COutPoint, Coin> kept;
    AggregateSum sum;
    std::optional<std::string> reject;
};

ReplayResult ReplayHinted(const std::vector<CBlock>& blocks, const std::vector<std::vector<uint32_t>>& hints)
{
    ReplayResult result;
    const OutpointHasher hasher{kernel::swiftsync::NewSalt()};
    CoinbaseHistory coinbases;
    BlockTables tables;
    for (size_t i = 0; i < blocks.size(); ++i) {
        HintedBlock out;
        BlockValidationState state;
        if (!ConnectBlockHinted(blocks[i], static_cast<int>(i + 1), REGTEST, hints[i], coinbases, tables, out, state)) {
            result.reject = state.GetRejectReason();
            return result;
        }
        for (auto& [outpoint, coin] : out.kept) result.kept.emplace(outpoint, coin);
        for (const COutPoint& outpoint : out.created) result.sum.Add(hasher.Hash(outpoint));
        for (const COutPoint& outpoint : out.spent) result.sum.Subtract(hasher.Hash(outpoint));
    }
    return result;
}

bool SameSet(const std::map<COutPoint, Coin>& a, const std::map<COutPoint, Coin>& b)
{
    if (a.size() != b.size()) return false;
    for (const auto& [outpoint, coin] : a) {
        const auto it = b.find(outpoint);
        if (it == b.end() || it->second.out != coin.out || it->second.nHeight != coin.nHeight || it->second.fCoinBase != coin.fCoinBase) return false;
    }
    return true;
}

} // namespace

BOOST_AUTO_TEST_SUITE(swiftsync_hinted_connect_tests)

BOOST_AUTO_TEST_CASE(true_hints_keep_the_set_and_zero_the_aggregate)
{
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        TestRand rand{seed};
        const RandomChain chain = MakeRandomChain(rand, 150);
        std::vector<std::vector<uint32_t>> hints;
        for (const CBlock& block : chain.blocks) hints.push_back(HintsFor(block, chain.utxo));
        const ReplayResult result = ReplayHinted(chain.blocks, hints);
        BOOST_REQUIRE_MESSAGE(!result.reject, "seed " << seed << ": " << *result.reject);
        BOOST_CHECK_MESSAGE(SameSet(result.kept, chain.utxo), "seed " << seed);
        BOOST_CHECK_MESSAGE(result.sum.IsZero(), "seed " << seed);
    }
}

BOOST_AUTO_TEST_CASE(wrong_hints_leave_the_aggregate_non_zero)
{
    TestRand rand{77};
    const RandomChain chain = MakeRandomChain(rand, 150);
    std::vector<std::vector<uint32_t>> truth;
    for (const CBlock& block : chain.blocks) truth.push_back(HintsFor(block, chain.utxo));

    // A block with both an unspent and a spent spendable output.
    const auto spendable_in = [](const CBlock& block) {
        uint32_t count = 0;
        for (const CTransactionRef& tx : block.vtx) {
            for (const CTxOut& out : tx->vout) count += !out.scriptPubKey.IsUnspendable();
        }
        return count;
    };
    size_t at = 0;
    while (at < chain.blocks.size() && (truth[at].empty() || truth[at].size() == spendable_in(chain.blocks[at]))) ++at;
    BOOST_REQUIRE(at < chain.blocks.size());
    const uint32_t spendable_count = spendable_in(chain.blocks[at]);
    uint32_t spent_index = 0;
    while (std::ranges::find(truth[at], spent_index) != truth[at].end()) ++spent_index;
    BOOST_REQUIRE(spent_index < spendable_count);

    auto missing = truth;
    missing[at].erase(missing[at].begin());
    auto spent_hinted = truth;
    spent_hinted[at].push_back(spent_index);
    std::ranges::sort(spent_hinted[at]);
    for (const auto& [name, hints] : {std::pair{"missing hint", missing}, std::pair{"spent output hinted", spent_hinted}}) {
        const ReplayResult result = ReplayHinted(chain.blocks, hints);
        BOOST_REQUIRE_MESSAGE(!result.reject, name);
        BOOST_CHECK_MESSAGE(!result.sum.IsZero(), name);
    }

    auto beyond = truth;
    beyond[at].push_back(spendable_count);
    BOOST_CHECK_EQUAL(ReplayHinted(chain.blocks, beyond).reject.value_or(""), "swiftsync-hint-out-of-range");
}

BOOST_AUTO_TEST_CASE(unspendable_outputs_have_no_index)
{
    const CBlock block = Block({Coinbase(1, {CTxOut{1, Script(3, 0x6a)}, CTxOut{2, Script(10'000)}, CTxOut{3, Script(10'001)},
                                             CTxOut{4, Script(25)}, CTxOut{5, CScript{}}})});
    // Spendable: the 10,000-byte script (0), the P2PKH-sized one (1) and
    // the empty script (2).
    CoinbaseHistory coinbases;
    HintedBlock out;
    BlockValidationState state;
    const std::vector<uint32_t> hints{0, 2};
    BlockTables tables;
    BOOST_REQUIRE(ConnectBlockHinted(block, 1, REGTEST, hints, coinbases, tables, out, state));
    BOOST_REQUIRE_EQUAL(out.kept.size(), 2U);
    BOOST_CHECK_EQUAL(out.kept[0].first.n, 1U);
    BOOST_CHECK_EQUAL(out.kept[1].first.n, 4U);
    BOOST_REQUIRE_EQUAL(out.created.size(), 1U);
    BOOST_CHECK_EQUAL(out.created[0].n, 3U);
    BOOST_CHECK_EQUAL(out.kept_value, 2 + 5);
    BOOST_CHECK_EQUAL(out.unspendable_value, 1 + 3);

    CoinbaseHistory fresh;
    const std::vector<uint32_t> beyond{3};
    BOOST_CHECK(!ConnectBlockHinted(block, 1, REGTEST, beyond, fresh, tables, out, state));
    BOOST_CHECK_EQUAL(state.GetRejectReason(), "swiftsync-hint-out-of-range");
    BOOST_CHECK_EQUAL(fresh.Size(), 0U);
}

BOOST_AUTO_TEST_CASE(reject_reasons)
{
    // Height 1's coinbase, mature by height 101, and an ordinary transaction
    // of height 1 to spend from.
    const CTransactionRef cb1 = Coinbase(1, {CTxOut{50, Script(25)}});
    const COutPoint cb1_out{cb1->GetHash(), 0};
    const COutPoint other{uint256{uint8_t{9}}, 0};
    const CTransactionRef a = Spend({other}, {CTxOut{1, Script(25)}, CTxOut{1, Script(25)}});

    struct Case {
        const char* name;
        int height;
        std::vector<CTransactionRef> txs;
        const char* reason; // nullptr: accepted
    };
    const std::vector<Case> cases{
        {"plain spend", 101, {Coinbase(101, {CTxOut{1, Script(25)}}), Spend({cb1_out}, {CTxOut{1, Script(25)}})}, nullptr},
        {"coinbase at depth 99", 100, {Coinbase(100, {CTxOut{1, Script(25)}}), Spend({cb1_out}, {CTxOut{1, Script(25)}})}, "bad-txns-premature-spend-of-coinbase"},
        {"own coinbase", 101, {Coinbase(102, {CTxOut{1, Script(25)}}), Spend({COutPoint{Coinbase(102, {CTxOut{1, Script(25)}})->GetHash(), 0}}, {CTxOut{1, Script(25)}})}, "bad-txns-premature-spend-of-coinbase"},
        {"same coin twice", 101, {Coinbase(101, {CTxOut{1, Script(25)}}), Spend({other}, {CTxOut{1, Script(25)}}), Spend({other}, {CTxOut{2, Script(25)}})}, "bad-txns-inputs-missingorspent"},
        {"output of a later tx", 101, {Coinbase(101, {CTxOut{1, Script(25)}}), Spend({COutPoint{a->GetHash(), 0}}, {CTxOut{1, Script(25)}}), a}, "bad-txns-inputs-missingorspent"},
        {"output of an earlier tx", 101, {Coinbase(101, {CTxOut{1, Script(25)}}), a, Spend({COutPoint{a->GetHash(), 1}}, {CTxOut{1, Script(25)}})}, nullptr},
        {"index the tx lacks", 101, {Coinbase(101, {CTxOut{1, Script(25)}}), a, Spend({COutPoint{a->GetHash(), 2}}, {CTxOut{1, Script(25)}})}, "bad-txns-inputs-missingorspent"},
        {"coinbase txid repeated", 101, {cb1}, "bad-txns-BIP30"},
        {"outputs above the supply", 101, {Coinbase(101, {CTxOut{MAX_MONEY, Script(25)}}), Spend({other}, {CTxOut{1, Script(25)}})}, "bad-txns-txouttotal-toolarge"},
    };
    // One set of tables for every case, as a replay keeps them from block
    // to block, rejected blocks included.
    BlockTables tables;
    for (const Case& c : cases) {
        CoinbaseHistory coinbases;
        coinbases.Add(cb1->GetHash(), 1);
        HintedBlock out;
        BlockValidationState state;
        const bool ok = ConnectBlockHinted(Block(c.txs), c.height, REGTEST, {}, coinbases, tables, out, state);
        BOOST_CHECK_MESSAGE(ok == (c.reason == nullptr), c.name << ": " << state.ToString());
        if (c.reason) {
            BOOST_CHECK_MESSAGE(state.GetRejectReason() == c.reason, c.name << ": " << state.GetRejectReason());
            BOOST_CHECK_MESSAGE(coinbases.Size() == 1, c.name << ": the history changed");
        }
    }
}

// MaybeImmatureHeightOf against a map of every coinbase: whenever the
// coinbase an input names is immature at the input's height, its height
// comes back; otherwise -1 or that same height. Heights mostly rise by one,
// as in a replay, and sometimes jump ahead, go back, or repeat a txid (the
// BIP30 overwrites).
BOOST_AUTO_TEST_CASE(coinbase_history_finds_every_immature_coinbase)
{
    TestRand rand{20261129};
    CoinbaseHistory history;
    std::map<uint256, int> model;
    std::vector<uint256> txids;
    int highest = 0;
    size_t immature_found = 0;
    for (int step = 0; step < 800; ++step) {
        int height = highest + 1;
        if (rand.OneIn(10)) height += static_cast<int>(rand.Below(120));
        if (rand.OneIn(20)) height = 1 + static_cast<int>(rand.Below(highest + 1));
        const uint256 txid = !txids.empty() && rand.OneIn(50) ? txids[rand.Below(txids.size())] : rand.Hash();
        history.Add(txid, height);
        model[txid] = height;
        txids.push_back(txid);
        highest = std::max(highest, height);

        for (int query = 0; query < 30; ++query) {
            const int at = rand.OneIn(4) ? 1 + static_cast<int>(rand.Below(highest + 150)) : highest + 1 + static_cast<int>(rand.Below(3));
            const uint256 asked = rand.OneIn(5) ? rand.Hash() : txids[txids.size() - 1 - rand.Below(std::min<size_t>(txids.size(), 150))];
            const auto known = model.find(asked);
            const int answer = history.MaybeImmatureHeightOf(asked, at);
            if (known == model.end()) {
                BOOST_CHECK_EQUAL(answer, -1);
            } else if (at - known->second < kernel::COINBASE_MATURITY) {
                BOOST_CHECK_EQUAL(answer, known->second);
                ++immature_found;
            } else {
                BOOST_CHECK(answer == -1 || answer == known->second);
            }
        }
    }
    // The queries reached the window's edge often enough to mean something.
    BOOST_CHECK_GT(immature_found, 5000U);
}

BOOST_AUTO_TEST_SUITE_END()
