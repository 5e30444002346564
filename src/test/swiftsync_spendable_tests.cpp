// Which outputs a hints file counts (kernel/swiftsync/spendable.h):
// OP_RETURN and scripts over 10,000 bytes are skipped, outputs spent in
// their own block are not, and only mainnet's two overwritten coinbases
// (blocks 91722 and 91812) are skipped whole.

#include <kernel/chainparams.h>
#include <kernel/swiftsync/spendable.h>

#include <boost/test/unit_test.hpp>

#include <vector>

using kernel::swiftsync::IsOverwrittenCoinbase;
using kernel::swiftsync::IsSpendableScript;
using kernel::swiftsync::SpendableOutputs;

namespace {

constexpr unsigned char OP_RETURN_BYTE = 0x6a;

CScript Script(size_t size, unsigned char first = 0x51)
{
    std::vector<unsigned char> bytes(size, 0x00);
    if (size > 0) bytes[0] = first;
    return CScript{bytes};
}

CTxOut Out(CScript script) { return CTxOut{1000, std::move(script)}; }

CTransactionRef Tx(std::vector<COutPoint> prevouts, std::vector<CTxOut> outputs)
{
    CMutableTransaction tx;
    for (const COutPoint& prevout : prevouts) tx.vin.emplace_back(prevout, CScript{std::vector<unsigned char>{0x01, 0x02}});
    tx.vout = std::move(outputs);
    return MakeTransactionRef(std::move(tx));
}

// A coinbase of four outputs (P2PK-like, OP_RETURN, 10,000 and 10,001
// bytes), a transaction of three (the middle one OP_RETURN), and a third
// spending the second's first output in the same block.
CBlock MixedBlock()
{
    CBlock block;
    block.vtx.push_back(Tx({COutPoint{}}, {Out(Script(25)), Out(Script(1, OP_RETURN_BYTE)), Out(Script(10'000)), Out(Script(10'001))}));
    block.vtx.push_back(Tx({COutPoint{uint256::ONE, 0}}, {Out(Script(22)), Out(Script(40, OP_RETURN_BYTE)), Out(Script(0))}));
    block.vtx.push_back(Tx({COutPoint{block.vtx[1]->GetHash(), 0}}, {Out(Script(34))}));
    return block;
}

} // namespace

BOOST_AUTO_TEST_SUITE(swiftsync_spendable_tests)

BOOST_AUTO_TEST_CASE(scripts)
{
    BOOST_CHECK(IsSpendableScript(Script(0)));
    BOOST_CHECK(IsSpendableScript(Script(25)));
    BOOST_CHECK(IsSpendableScript(Script(10'000)));
    BOOST_CHECK(!IsSpendableScript(Script(10'001)));
    BOOST_CHECK(!IsSpendableScript(Script(1, OP_RETURN_BYTE)));
    BOOST_CHECK(!IsSpendableScript(Script(10'000, OP_RETURN_BYTE)));
    // OP_RETURN counts only as the first byte.
    CScript late_return = Script(2);
    late_return[1] = OP_RETURN_BYTE;
    BOOST_CHECK(IsSpendableScript(late_return));
}

BOOST_AUTO_TEST_CASE(indices_in_block_order)
{
    const CBlock block = MixedBlock();
    const auto regtest = CChainParams::ForChain(ChainType::REGTEST);
    const uint256 coinbase = block.vtx[0]->GetHash(), second = block.vtx[1]->GetHash(), third = block.vtx[2]->GetHash();
    const std::vector<COutPoint> expected{
        {coinbase, 0},
        {coinbase, 2}, // 1: OP_RETURN, 3: 10,001 bytes
        {second, 0},   // spent by the third transaction: keeps index 2
        {second, 2},   // 1: OP_RETURN; 2: an empty script
        {third, 0},
    };
    BOOST_CHECK(SpendableOutputs(block, 5, regtest) == expected);
}

BOOST_AUTO_TEST_CASE(only_mainnets_overwritten_coinbases_are_skipped)
{
    const CBlock block = MixedBlock();
    const auto main = CChainParams::ForChain(ChainType::MAIN);
    const auto all = SpendableOutputs(block, 5, main);
    BOOST_REQUIRE_EQUAL(all.size(), 5U);
    const std::vector<COutPoint> without_coinbase(all.begin() + 2, all.end());
    for (const int height : {91722, 91812}) {
        BOOST_CHECK(IsOverwrittenCoinbase(height, main));
        BOOST_CHECK(SpendableOutputs(block, height, main) == without_coinbase);
    }
    // The overwriting blocks and their neighbours keep their coinbase.
    for (const int height : {91721, 91723, 91811, 91813, 91842, 91880}) {
        BOOST_CHECK(!IsOverwrittenCoinbase(height, main));
        BOOST_CHECK(SpendableOutputs(block, height, main) == all);
    }
    for (const ChainType chain : {ChainType::REGTEST, ChainType::TESTNET, ChainType::TESTNET4, ChainType::SIGNET}) {
        const auto params = CChainParams::ForChain(chain);
        BOOST_CHECK(!IsOverwrittenCoinbase(91722, params));
        BOOST_CHECK(SpendableOutputs(block, 91722, params) == all);
    }
}

BOOST_AUTO_TEST_SUITE_END()
