// Block replay (kernel/connect.h) on small regtest chains built in memory and
// on Bitcoin Core's own blocks (../shared/vectors/*/blocks.dat):
// - its per-transaction steps, UpdateCoins and ApplyTxInUndo, as a table
//   and against a std::map model;
// - connecting applies exactly the changes a std::map model predicts, and
//   the undo data holds exactly the spent coins;
// - disconnecting restores the exact coin set of every earlier height;
// - every reject reason, each with the view left exactly as it was;
// - the coinbase maturity boundary, BIP30, the subsidy halving;
// - Core's blocks reproduce Core's UTXO set hash, also after disconnecting
//   and reconnecting the tip and after a reorg through the stale branch.

#include <consensus/merkle.h>
#include <kernel/caches.h>
#include <kernel/chainparams.h>
#include <kernel/coinstats.h>
#include <kernel/connect.h>
#include <kernel/pow.h>
#include <kernel/undo.h>
#include <streams.h>
#include <test/util/coin_compare.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <txdb.h>
#include <util/strencodings.h>
#include <util/threadpool.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>

using kernel::BlockValidationResult;
using kernel::BlockValidationState;
using kernel::ConnectBlockCoins;
using kernel::DisconnectBlockCoins;
using kernel::DisconnectResult;

namespace {

using CoinMap = std::map<COutPoint, Coin>;

const CChainParams REGTEST{CChainParams::ForChain(ChainType::REGTEST)};

// Every coin of a view that has a cursor (a CCoinsViewDB).
CoinMap ReadCoins(const CCoinsView& view)
{
    CoinMap coins;
    auto cursor = view.Cursor();
    BOOST_REQUIRE(cursor);
    for (; cursor->Valid(); cursor->Next()) {
        COutPoint outpoint;
        Coin coin;
        BOOST_REQUIRE(cursor->GetKey(outpoint) && cursor->GetValue(coin));
        coins.emplace(outpoint, std::move(coin));
    }
    return coins;
}

// Names the first difference, so a failure says more than "not equal".
void CheckSameCoins(const CoinMap& actual, const CoinMap& expected, const std::string& what)
{
    BOOST_CHECK_MESSAGE(actual.size() == expected.size(), what << ": " << actual.size() << " coins, expected " << expected.size());
    for (const auto& [outpoint, coin] : expected) {
        const auto found = actual.find(outpoint);
        if (found == actual.end() || !SameCoin(found->second, coin)) {
            BOOST_ERROR(what << ": coin " << outpoint.ToString() << (found == actual.end() ? " missing" : " differs"));
            return;
        }
    }
}

// A hash of 32 equal bytes: a stand-in best block.
uint256 FilledHash(unsigned char byte)
{
    std::array<unsigned char, uint256::SIZE> bytes;
    bytes.fill(byte);
    return uint256{bytes};
}

// A P2PKH script whose key hash starts with the tag: distinct outputs.
CScript KeyHashScript(uint32_t tag)
{
    CScript script{OP_DUP, OP_HASH160, 0x14};
    for (int i = 0; i < 4; ++i) script.push_back(static_cast<unsigned char>(tag >> (8 * i)));
    script.insert(script.end(), 16, 0x00);
    script.insert(script.end(), {OP_EQUALVERIFY, OP_CHECKSIG});
    return script;
}

// A coinbase unique to (height, variant): its scriptSig pushes the height.
CMutableTransaction MakeCoinbase(int height, CAmount value, uint8_t variant = 0)
{
    CMutableTransaction tx;
    CScript script_sig{0x04};
    for (int i = 0; i < 4; ++i) script_sig.push_back(static_cast<unsigned char>(height >> (8 * i)));
    script_sig.push_back(variant);
    tx.vin.emplace_back(COutPoint{}, std::move(script_sig));
    tx.vout.emplace_back(value, KeyHashScript(0xc0000000u | static_cast<uint32_t>(height) << 8 | variant));
    return tx;
}

CMutableTransaction MakeSpend(const std::vector<COutPoint>& inputs, const std::vector<CAmount>& outputs, uint32_t tag)
{
    CMutableTransaction tx;
    for (const COutPoint& in : inputs) tx.vin.emplace_back(in);
    for (size_t i = 0; i < outputs.size(); ++i) tx.vout.emplace_back(outputs[i], KeyHashScript(tag + static_cast<uint32_t>(i)));
    return tx;
}

// Sets the merkle root (unless told not to) and grinds the nonce until the
// hash meets (or, for "high-hash", misses) regtest's target: ~2 tries.
CBlock Finish(CBlock block, bool fix_merkle = true, bool valid_pow = true)
{
    // A changed block must be checked afresh.
    block.m_checked = false;
    if (fix_merkle) block.hashMerkleRoot = BlockMerkleRoot(block);
    while (CheckProofOfWork(block.GetHash(), block.nBits, REGTEST.PowLimit()) != valid_pow) ++block.nNonce;
    return block;
}

// A ThreadPool with that many workers; none for 0.
std::shared_ptr<ThreadPool> StartedPool(int workers)
{
    if (workers == 0) return nullptr;
    auto pool = std::make_shared<ThreadPool>("connect_test");
    pool->Start(workers);
    return pool;
}

// A chainstate in memory: a cache over a memory-only CCoinsViewDB, whose
// cursor can list the whole coin set after a flush. With overlay_workers,
// blocks are connected in a CoinsViewOverlay over the cache with that many
// fetch workers, as the node's replay does, instead of a plain child cache.
class TestChain
{
public:
    explicit TestChain(std::optional<int> overlay_workers = std::nullopt)
    {
        if (overlay_workers) m_overlay = std::make_unique<CoinsViewOverlay>(&m_tip, StartedPool(*overlay_workers), /*deterministic=*/true);
        BlockValidationState state;
        CBlockUndo undo;
        BOOST_REQUIRE(ConnectBlockCoins(REGTEST.GenesisBlock(), 0, REGTEST, m_tip, undo, state));
        m_blocks.push_back(REGTEST.GenesisBlock());
        m_undos.push_back(undo);
    }

    int Height() const { return static_cast<int>(m_blocks.size()) - 1; }
    const CBlock& Block(int height) const { return m_blocks.at(height); }
    const CBlockUndo& Undo(int height) const { return m_undos.at(height); }
    CCoinsViewCache& View() { return m_tip; }
    COutPoint CoinbaseOutpoint(int height) const { return {Block(height).vtx[0]->GetHash(), 0}; }

    // The next block: a coinbase paying the subsidy plus coinbase_extra, then txs.
    CBlock MakeBlock(std::vector<CMutableTransaction> txs = {}, CAmount coinbase_extra = 0, uint8_t variant = 0) const
    {
        const int height = Height() + 1;
        CBlock block;
        block.nVersion = 4;
        block.hashPrevBlock = Block(Height()).GetHash();
        block.nTime = REGTEST.GenesisBlock().nTime + height;
        block.nBits = 0x207fffff;
        block.vtx.push_back(MakeTransactionRef(MakeCoinbase(height, kernel::GetBlockSubsidy(height, REGTEST) + coinbase_extra, variant)));
        for (auto& tx : txs) block.vtx.push_back(MakeTransactionRef(std::move(tx)));
        return Finish(std::move(block));
    }

    bool Connect(const CBlock& block, BlockValidationState& state, CBlockUndo& undo)
    {
        const bool connected = m_overlay ? ConnectBlockCoins(block, Height() + 1, REGTEST, *m_overlay, undo, state)
                                         : ConnectBlockCoins(block, Height() + 1, REGTEST, m_tip, undo, state);
        if (!connected) return false;
        m_blocks.push_back(block);
        m_undos.push_back(undo);
        return true;
    }
    void ConnectOrFail(const CBlock& block)
    {
        BlockValidationState state;
        CBlockUndo undo;
        // Evaluated first: Boost may build the message before the condition.
        const bool connected = Connect(block, state, undo);
        BOOST_REQUIRE_MESSAGE(connected, "height " << Height() + 1 << ": " << state.ToString());
    }
    void Grow(int blocks)
    {
        for (int i = 0; i < blocks; ++i) ConnectOrFail(MakeBlock());
    }

    // Undoes the tip with its undo data read back from bytes, as it would
    // be from a rev file.
    DisconnectResult DisconnectTip()
    {
        DataStream bytes;
        bytes << m_undos.back();
        CBlockUndo undo;
        bytes >> undo;
        const DisconnectResult result = DisconnectBlockCoins(m_blocks.back(), undo, m_tip);
        m_blocks.pop_back();
        m_undos.pop_back();
        return result;
    }

    CoinMap Coins()
    {
        m_tip.Flush();
        return ReadCoins(m_db);
    }

private:
    CCoinsViewDB m_db{DBParams{.path = "connect_tests", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    CCoinsViewCache m_tip{&m_db};
    std::unique_ptr<CoinsViewOverlay> m_overlay;
    std::vector<CBlock> m_blocks;
    std::vector<CBlockUndo> m_undos;
};

// Expects the block to fail with `reason` and to leave the view and the
// caller's undo exactly as they were.
void CheckRejected(TestChain& chain, const CBlock& block, const std::string& reason)
{
    const CoinMap before = chain.Coins();
    const uint256 best_before = chain.View().GetBestBlock();
    const int height_before = chain.Height();
    BlockValidationState state;
    CBlockUndo undo;
    undo.vtxundo.resize(3); // a sentinel a failed connect must not touch
    BOOST_CHECK(!chain.Connect(block, state, undo));
    BOOST_CHECK_EQUAL(state.GetRejectReason(), reason);
    BOOST_CHECK(state.IsInvalid());
    BOOST_CHECK_EQUAL(undo.vtxundo.size(), 3u);
    BOOST_CHECK_EQUAL(chain.Height(), height_before);
    BOOST_CHECK_EQUAL(chain.View().GetBestBlock().GetHex(), best_before.GetHex());
    CheckSameCoins(chain.Coins(), before, "after " + reason);
}

// ---- Bitcoin Core's blocks (../shared/vectors/*/blocks.dat) ----
//
// blocks.dat framing (Core's blk?????.dat written with -blocksxor=0):
// repeated { 4-byte network magic | LE32 block size | block }.

std::map<uint256, CBlock> ReadBlockFile(const std::filesystem::path& path, const MessageStartChars& magic)
{
    AutoFile file{std::fopen(path.c_str(), "rb")};
    BOOST_REQUIRE_MESSAGE(!file.IsNull(), "cannot open " << path);
    std::map<uint256, CBlock> blocks;
    while (!file.AtEnd()) {
        std::array<unsigned char, 4> start;
        file >> start;
        BOOST_REQUIRE(start == magic);
        std::vector<unsigned char> bytes(ReadLE<uint32_t>(file));
        file.read(std::as_writable_bytes(std::span{bytes}));
        CBlock block;
        SpanReader{bytes} >> block;
        blocks.emplace(block.GetHash(), std::move(block));
    }
    return blocks;
}

// headers.txt: the active chain's headers, heights 1..tip; returns the hashes.
std::vector<uint256> ReadActiveHashes(const std::filesystem::path& path)
{
    std::vector<uint256> hashes;
    std::istringstream lines{ReadFileToString(path)};
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        const auto bytes = TryParseHex(line);
        BOOST_REQUIRE(bytes && bytes->size() == CBlockHeader::SIZE);
        CBlockHeader header;
        SpanReader{*bytes} >> header;
        hashes.push_back(header.GetHash());
    }
    return hashes;
}

// A vector's chain: its parameters, every block of blocks.dat by hash, and
// the active chain from genesis to the tip.
struct CoreChain {
    CChainParams params;
    std::map<uint256, CBlock> blocks;
    std::vector<uint256> active;
};

CoreChain ReadCoreChain(const CoreVector& vec)
{
    CoreChain chain{CChainParams::ForChain(*ChainTypeFromString(vec.expected["chain"].get<std::string>())), {}, {}};
    chain.blocks = ReadBlockFile(vec.dir / "blocks.dat", chain.params.MessageStart());
    chain.active.push_back(chain.params.GenesisHash());
    for (const uint256& hash : ReadActiveHashes(vec.dir / "headers.txt")) chain.active.push_back(hash);
    return chain;
}

// A chainstate on disk fed with a vector's blocks by hash.
// With overlay_workers, blocks are connected in a CoinsViewOverlay with
// that many workers, as in TestChain.
struct VectorChain {
    VectorChain(const CChainParams& params_in, const std::map<uint256, CBlock>& blocks_in, const std::filesystem::path& dir,
                std::optional<int> overlay_workers)
        : params{params_in}, blocks{blocks_in}, db{DBParams{.path = dir, .cache_bytes = 8 << 20}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}}
    {
        if (overlay_workers) overlay = std::make_unique<CoinsViewOverlay>(&tip, StartedPool(*overlay_workers));
    }

    const CChainParams& params;
    const std::map<uint256, CBlock>& blocks;
    CCoinsViewDB db;
    CCoinsViewCache tip{&db};
    std::unique_ptr<CoinsViewOverlay> overlay;
    std::map<uint256, CBlockUndo> undos;

    void Connect(const uint256& hash, int height)
    {
        BlockValidationState state;
        CBlockUndo undo;
        const bool connected = overlay ? ConnectBlockCoins(blocks.at(hash), height, params, *overlay, undo, state)
                                       : ConnectBlockCoins(blocks.at(hash), height, params, tip, undo, state);
        BOOST_REQUIRE_MESSAGE(connected, "block " << hash.GetHex() << " at height " << height << ": " << state.ToString());
        undos[hash] = std::move(undo);
    }
    void Disconnect(const uint256& hash)
    {
        BOOST_REQUIRE(DisconnectBlockCoins(blocks.at(hash), undos.at(hash), tip) == DisconnectResult::OK);
        BOOST_REQUIRE(tip.GetBestBlock() == blocks.at(hash).hashPrevBlock);
    }
    kernel::CCoinsStats Stats()
    {
        tip.Flush();
        const auto stats = kernel::ComputeUTXOStats(kernel::CoinStatsHashType::HASH_SERIALIZED, db);
        BOOST_REQUIRE(stats);
        return *stats;
    }
    CoinMap Coins()
    {
        tip.Flush();
        return ReadCoins(db);
    }
};

} // namespace

BOOST_AUTO_TEST_SUITE(connect_tests)

BOOST_AUTO_TEST_CASE(validation_state)
{
    BlockValidationState state;
    BOOST_CHECK(state.IsValid());
    BOOST_CHECK_EQUAL(state.ToString(), "Valid");
    BOOST_CHECK(!state.Invalid("bad-cb-amount"));
    BOOST_CHECK(state.GetResult() == BlockValidationResult::CONSENSUS);
    BOOST_CHECK_EQUAL(state.ToString(), "bad-cb-amount");
    BOOST_CHECK(!state.Invalid(BlockValidationResult::MUTATED, "bad-txnmrklroot", "hashMerkleRoot mismatch"));
    BOOST_CHECK(state.GetResult() == BlockValidationResult::MUTATED);
    BOOST_CHECK_EQUAL(state.ToString(), "bad-txnmrklroot, hashMerkleRoot mismatch");
}

BOOST_AUTO_TEST_CASE(subsidy_halvings)
{
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(0, REGTEST), 50 * COIN);
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(149, REGTEST), 50 * COIN);
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(150, REGTEST), 25 * COIN);
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(150 * 33, REGTEST), 0); // 50 BTC = 5e9 < 2^33
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(150 * 32, REGTEST), 1);
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(150 * 64, REGTEST), 0);
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(150 * 100, REGTEST), 0);
    const auto main = CChainParams::ForChain(ChainType::MAIN);
    BOOST_CHECK_EQUAL(main.SubsidyHalvingInterval(), 210000);
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(209999, main), 50 * COIN);
    BOOST_CHECK_EQUAL(kernel::GetBlockSubsidy(840000, main), 3 * COIN + COIN / 8);
    BOOST_CHECK_EQUAL(CChainParams::ForChain(ChainType::SIGNET).SubsidyHalvingInterval(), 210000);
    BOOST_CHECK_EQUAL(CChainParams::ForChain(ChainType::TESTNET).SubsidyHalvingInterval(), 210000);
    BOOST_CHECK_EQUAL(REGTEST.SubsidyHalvingInterval(), 150);
}

BOOST_AUTO_TEST_CASE(genesis_and_misuse)
{
    TestChain chain;
    // The genesis output never enters the set.
    BOOST_CHECK(chain.Coins().empty());
    BOOST_CHECK_EQUAL(chain.View().GetBestBlock().GetHex(), REGTEST.GenesisHash().GetHex());
    BOOST_CHECK(chain.Undo(0).vtxundo.empty());

    // A block that does not build on the view's best block is a caller bug.
    chain.Grow(2);
    CBlock stale = chain.MakeBlock();
    stale.hashPrevBlock = chain.Block(1).GetHash();
    stale = Finish(stale);
    BlockValidationState state;
    CBlockUndo undo;
    BOOST_CHECK_THROW(ConnectBlockCoins(stale, 2, REGTEST, chain.View(), undo, state), std::logic_error);
    BOOST_CHECK_EQUAL(chain.View().GetBestBlock().GetHex(), chain.Block(2).GetHash().GetHex());
}

BOOST_AUTO_TEST_CASE(context_free_rejections)
{
    TestChain chain;
    chain.Grow(101);
    const COutPoint mature = chain.CoinbaseOutpoint(1);
    const COutPoint mature2 = chain.CoinbaseOutpoint(2);
    const CMutableTransaction spend = MakeSpend({mature}, {COIN}, 1);

    struct Case {
        std::string reason;
        CBlock block;
    };
    std::vector<Case> cases;
    const CBlock good = chain.MakeBlock({spend, MakeSpend({mature2}, {COIN}, 2)});

    cases.push_back({"high-hash", Finish(good, /*fix_merkle=*/false, /*valid_pow=*/false)});
    {
        CBlock block = good;
        block.hashMerkleRoot = uint256{};
        cases.push_back({"bad-txnmrklroot", Finish(block, /*fix_merkle=*/false)});
    }
    {
        // [cb, a, b, b] has the root of [cb, a, b] (CVE-2012-2459).
        CBlock block = good;
        block.vtx.push_back(block.vtx.back());
        BOOST_CHECK(BlockMerkleRoot(block) == good.hashMerkleRoot);
        cases.push_back({"bad-txns-duplicate", Finish(block, /*fix_merkle=*/false)});
    }
    {
        CBlock block = good;
        block.vtx.clear();
        cases.push_back({"bad-blk-length", Finish(block)});
    }
    {
        // Over 1,000,000 bytes without witness.
        CBlock block = good;
        CMutableTransaction coinbase{*block.vtx[0]};
        coinbase.vout.emplace_back(0, CScript(1'000'000, OP_RETURN));
        block.vtx[0] = MakeTransactionRef(std::move(coinbase));
        cases.push_back({"bad-blk-length", Finish(block)});
    }
    {
        CBlock block = good;
        block.vtx.erase(block.vtx.begin());
        cases.push_back({"bad-cb-missing", Finish(block)});
    }
    {
        CBlock block = good;
        block.vtx.push_back(MakeTransactionRef(MakeCoinbase(chain.Height() + 1, COIN, /*variant=*/1)));
        cases.push_back({"bad-cb-multiple", Finish(block)});
    }
    const auto with_tx = [&](CMutableTransaction tx) { return chain.MakeBlock({std::move(tx)}); };
    {
        CMutableTransaction tx = spend;
        tx.vin.clear();
        cases.push_back({"bad-txns-vin-empty", with_tx(tx)});
    }
    {
        CMutableTransaction tx = spend;
        tx.vout.clear();
        cases.push_back({"bad-txns-vout-empty", with_tx(tx)});
    }
    cases.push_back({"bad-txns-vout-negative", with_tx(MakeSpend({mature}, {COIN, -5}, 1))});
    cases.push_back({"bad-txns-vout-toolarge", with_tx(MakeSpend({mature}, {MAX_MONEY + 1}, 1))});
    cases.push_back({"bad-txns-txouttotal-toolarge", with_tx(MakeSpend({mature}, {MAX_MONEY, 1}, 1))});
    cases.push_back({"bad-txns-inputs-duplicate", with_tx(MakeSpend({mature, mature2, mature}, {COIN}, 1))});
    cases.push_back({"bad-txns-prevout-null", with_tx(MakeSpend({mature, COutPoint{}}, {COIN}, 1))});
    for (const size_t length : {size_t{0}, size_t{1}, size_t{101}}) {
        CBlock block = good;
        CMutableTransaction coinbase{*block.vtx[0]};
        coinbase.vin[0].scriptSig = CScript(length, 0x51);
        block.vtx[0] = MakeTransactionRef(std::move(coinbase));
        cases.push_back({"bad-cb-length", Finish(block)});
    }

    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.reason)
        {
            BlockValidationState state;
            BOOST_CHECK(!kernel::CheckBlock(c.block, REGTEST, state));
            BOOST_CHECK_EQUAL(state.GetRejectReason(), c.reason);
            CheckRejected(chain, c.block, c.reason);
        }
    }

    // The good block and the coinbase lengths at the bounds pass.
    for (const size_t length : {size_t{2}, size_t{100}}) {
        CBlock block = good;
        CMutableTransaction coinbase{*block.vtx[0]};
        coinbase.vin[0].scriptSig = CScript(length, 0x51);
        block.vtx[0] = MakeTransactionRef(std::move(coinbase));
        BlockValidationState state;
        const bool valid = kernel::CheckBlock(Finish(block), REGTEST, state);
        BOOST_CHECK_MESSAGE(valid, "coinbase scriptSig of " << length << ": " << state.ToString());
    }
    chain.ConnectOrFail(good);
}

BOOST_AUTO_TEST_CASE(mutated_and_header_results)
{
    TestChain chain;
    const CBlock good = chain.MakeBlock();
    BlockValidationState state;
    BOOST_CHECK(!kernel::CheckBlock(Finish(good, false, false), REGTEST, state));
    BOOST_CHECK(state.GetResult() == BlockValidationResult::INVALID_HEADER);
    CBlock block = good;
    block.hashMerkleRoot = uint256{};
    BOOST_CHECK(!kernel::CheckBlock(Finish(block, false), REGTEST, state));
    BOOST_CHECK(state.GetResult() == BlockValidationResult::MUTATED);
    block = good;
    block.vtx.clear();
    BOOST_CHECK(!kernel::CheckBlock(Finish(block), REGTEST, state));
    BOOST_CHECK(state.GetResult() == BlockValidationResult::CONSENSUS);
}

// A block that passed CheckBlock is marked and not checked again (Core's
// fChecked); one that failed is not marked; reading one back clears it.
BOOST_AUTO_TEST_CASE(checked_once)
{
    TestChain chain;
    const CBlock good = chain.MakeBlock();
    BlockValidationState state;
    BOOST_CHECK(!good.m_checked);
    BOOST_CHECK(kernel::CheckBlock(good, REGTEST, state));
    BOOST_CHECK(good.m_checked);
    CBlock bad = Finish(good);
    bad.vtx.clear();
    BOOST_CHECK(!kernel::CheckBlock(Finish(bad), REGTEST, state));
    BOOST_CHECK(!bad.m_checked);
    DataStream stream;
    stream << good;
    CBlock read;
    read.m_checked = true;
    stream >> read;
    BOOST_CHECK(!read.m_checked);
    BOOST_CHECK(read.GetHash() == good.GetHash());
    chain.ConnectOrFail(good);
}

// Every contextual reject reason, each leaving the view as it was; run
// with a plain child cache and in an overlay with two fetch workers.
void CheckContextualRejections(std::optional<int> overlay_workers)
{
    TestChain chain{overlay_workers};
    chain.Grow(105);
    const COutPoint mature = chain.CoinbaseOutpoint(1);
    const COutPoint mature2 = chain.CoinbaseOutpoint(2);
    // Spent at 106, below: a second spend in a later block must fail.
    const CMutableTransaction first_spend = MakeSpend({chain.CoinbaseOutpoint(3)}, {10 * COIN}, 1);
    chain.ConnectOrFail(chain.MakeBlock({first_spend}));
    const COutPoint spent = chain.CoinbaseOutpoint(3);

    CheckRejected(chain, chain.MakeBlock({MakeSpend({COutPoint{uint256::FromHex(std::string(63, '0') + "1").value(), 0}}, {COIN}, 1)}),
                  "bad-txns-inputs-missingorspent");
    CheckRejected(chain, chain.MakeBlock({MakeSpend({spent}, {COIN}, 1)}), "bad-txns-inputs-missingorspent");
    // An output index past the end of a real transaction.
    CheckRejected(chain, chain.MakeBlock({MakeSpend({COutPoint{mature.hash, 1}}, {COIN}, 1)}), "bad-txns-inputs-missingorspent");
    // The same coin twice in one block: the second spend finds it gone.
    CheckRejected(chain, chain.MakeBlock({MakeSpend({mature}, {COIN}, 1), MakeSpend({mature}, {COIN}, 2)}), "bad-txns-inputs-missingorspent");
    // A transaction may spend an earlier one in its block, not a later one.
    {
        const CMutableTransaction parent = MakeSpend({mature}, {10 * COIN}, 1);
        const CMutableTransaction child = MakeSpend({COutPoint{parent.GetHash(), 0}}, {COIN}, 2);
        CheckRejected(chain, chain.MakeBlock({child, parent}), "bad-txns-inputs-missingorspent");
    }
    // Coinbase of height 10 at height 107: depth 97.
    {
        const CBlock block = chain.MakeBlock({MakeSpend({chain.CoinbaseOutpoint(10)}, {COIN}, 1)});
        CheckRejected(chain, block, "bad-txns-premature-spend-of-coinbase");
        BlockValidationState state;
        CBlockUndo undo;
        BOOST_CHECK(!chain.Connect(block, state, undo));
        BOOST_CHECK(state.GetDebugMessage().starts_with("tried to spend coinbase at depth 97"));
    }
    CheckRejected(chain, chain.MakeBlock({MakeSpend({mature, mature2}, {100 * COIN + 1}, 1)}), "bad-txns-in-belowout");
    // Fees count towards the coinbase: 1 BTC of fee allows 1 BTC more, not 1 sat more.
    CheckRejected(chain, chain.MakeBlock({MakeSpend({mature}, {49 * COIN}, 1)}, COIN + 1), "bad-cb-amount");
    CheckRejected(chain, chain.MakeBlock({}, 1), "bad-cb-amount");
    // BIP30: a coinbase identical to an unspent one (height 5's).
    {
        CBlock block = chain.MakeBlock();
        block.vtx[0] = chain.Block(5).vtx[0];
        CheckRejected(chain, Finish(block), "bad-txns-BIP30");
    }
    // The BIP30 check precedes the input checks: both faults, BIP30 reported.
    {
        CBlock block = chain.MakeBlock({MakeSpend({spent}, {COIN}, 1)});
        block.vtx[0] = chain.Block(5).vtx[0];
        CheckRejected(chain, Finish(block), "bad-txns-BIP30");
    }

    // Amounts no valid chain holds, planted below the cache: one coin above
    // MAX_MONEY, and two whose sum is.
    const COutPoint huge{uint256::FromHex(std::string(63, '0') + "2").value(), 0};
    const COutPoint max_a{uint256::FromHex(std::string(63, '0') + "3").value(), 0};
    const COutPoint max_b{uint256::FromHex(std::string(63, '0') + "3").value(), 1};
    chain.View().AddCoin(huge, Coin{CTxOut{MAX_MONEY + 1, KeyHashScript(7)}, 1, false}, false);
    chain.View().AddCoin(max_a, Coin{CTxOut{MAX_MONEY, KeyHashScript(8)}, 1, false}, false);
    chain.View().AddCoin(max_b, Coin{CTxOut{1, KeyHashScript(9)}, 1, false}, false);
    CheckRejected(chain, chain.MakeBlock({MakeSpend({huge}, {COIN}, 1)}), "bad-txns-inputvalues-outofrange");
    CheckRejected(chain, chain.MakeBlock({MakeSpend({max_a, max_b}, {COIN}, 1)}), "bad-txns-inputvalues-outofrange");
    // Each fee in range, their sum not.
    const COutPoint max_c{uint256::FromHex(std::string(63, '0') + "4").value(), 0};
    chain.View().AddCoin(max_c, Coin{CTxOut{MAX_MONEY, KeyHashScript(10)}, 1, false}, false);
    CheckRejected(chain, chain.MakeBlock({MakeSpend({max_a}, {0}, 1), MakeSpend({max_c}, {1}, 2)}), "bad-txns-accumulated-fee-outofrange");
    // MAX_MONEY alone is in range.
    chain.ConnectOrFail(chain.MakeBlock({MakeSpend({max_a}, {MAX_MONEY}, 1)}));
}

BOOST_AUTO_TEST_CASE(contextual_rejections) { CheckContextualRejections(std::nullopt); }

BOOST_AUTO_TEST_CASE(contextual_rejections_through_overlay) { CheckContextualRejections(/*overlay_workers=*/2); }

BOOST_AUTO_TEST_CASE(coinbase_maturity_boundary)
{
    TestChain chain;
    chain.Grow(99);
    // Height 100 spending the coinbase of height 1: depth 99.
    const COutPoint coinbase1 = chain.CoinbaseOutpoint(1);
    CheckRejected(chain, chain.MakeBlock({MakeSpend({coinbase1}, {COIN}, 1)}), "bad-txns-premature-spend-of-coinbase");
    chain.Grow(1);
    // Height 101: depth 100.
    chain.ConnectOrFail(chain.MakeBlock({MakeSpend({coinbase1}, {COIN}, 1)}));
    BOOST_CHECK(!chain.View().HaveCoin(coinbase1));
    BOOST_CHECK_EQUAL(chain.Undo(101).vtxundo.at(0).vprevout.at(0).nHeight, 1u);
    // A non-coinbase output is spendable in the very next block, even the same one.
    const CMutableTransaction parent = MakeSpend({chain.CoinbaseOutpoint(2)}, {20 * COIN, 20 * COIN}, 10);
    const CMutableTransaction child = MakeSpend({COutPoint{parent.GetHash(), 0}}, {COIN}, 20);
    chain.ConnectOrFail(chain.MakeBlock({parent, child}));
    chain.ConnectOrFail(chain.MakeBlock({MakeSpend({COutPoint{parent.GetHash(), 1}}, {COIN}, 30)}));
}

BOOST_AUTO_TEST_CASE(subsidy_halves_at_150)
{
    TestChain chain;
    chain.Grow(149);
    CheckRejected(chain, chain.MakeBlock({}, 25 * COIN), "bad-cb-amount");
    chain.ConnectOrFail(chain.MakeBlock());
    BOOST_CHECK_EQUAL(chain.Block(150).vtx[0]->GetValueOut(), 25 * COIN);
}

// A random chain: every block checked against a std::map model, its undo
// against the coins the model says were spent, then disconnected block by
// block back to the genesis with the coin set of every height restored.
void CheckConnectDisconnectRoundTrip(std::optional<int> overlay_workers)
{
    TestChain chain{overlay_workers};
    CoinMap model;
    std::vector<CoinMap> history{model};
    std::mt19937 rng{20251104};
    size_t spends = 0;
    const auto add_outputs = [&](const CTransaction& tx, int height) {
        for (uint32_t n = 0; n < tx.vout.size(); ++n) {
            if (!tx.vout[n].scriptPubKey.IsUnspendable()) model[COutPoint{tx.GetHash(), n}] = Coin{tx.vout[n], height, tx.IsCoinBase()};
        }
    };

    for (int height = 1; height <= 160; ++height) {
        std::vector<COutPoint> spendable;
        for (const auto& [outpoint, coin] : model) {
            if (!coin.IsCoinBase() || height - static_cast<int>(coin.nHeight) >= kernel::COINBASE_MATURITY) spendable.push_back(outpoint);
        }
        std::vector<CMutableTransaction> txs;
        CBlockUndo expected_undo;
        CoinMap next = model;
        CAmount fees = 0;
        const int tx_count = spendable.empty() ? 0 : static_cast<int>(rng() % 6);
        for (int t = 0; t < tx_count && !spendable.empty(); ++t) {
            CMutableTransaction tx;
            CTxUndo& tx_undo = expected_undo.vtxundo.emplace_back();
            CAmount value_in = 0;
            for (unsigned i = 0, n = 1 + rng() % 3; i < n && !spendable.empty(); ++i) {
                const size_t pick = rng() % spendable.size();
                const COutPoint outpoint = spendable[pick];
                spendable[pick] = spendable.back();
                spendable.pop_back();
                tx.vin.emplace_back(outpoint);
                ++spends;
                tx_undo.vprevout.push_back(next.at(outpoint));
                value_in += next.at(outpoint).out.nValue;
                next.erase(outpoint);
            }
            const CAmount fee = value_in / 100;
            const unsigned outputs = 1 + rng() % 3;
            for (unsigned o = 0; o < outputs; ++o) {
                const CAmount value = o + 1 < outputs ? (value_in - fee) / outputs : value_in - fee - (value_in - fee) / outputs * (outputs - 1);
                tx.vout.emplace_back(value, KeyHashScript(static_cast<uint32_t>(height) << 12 | t << 4 | o));
            }
            if (rng() % 4 == 0) tx.vout.emplace_back(0, CScript{OP_RETURN, 0x04, 't', 'e', 's', 't'});
            fees += fee;
            const CTransaction final_tx{tx};
            for (uint32_t n = 0; n < final_tx.vout.size(); ++n) {
                if (!final_tx.vout[n].scriptPubKey.IsUnspendable()) {
                    next[COutPoint{final_tx.GetHash(), n}] = Coin{final_tx.vout[n], height, false};
                    // Spendable by later transactions of the same block.
                    spendable.emplace_back(final_tx.GetHash(), n);
                }
            }
            txs.push_back(std::move(tx));
        }
        // Claim the fees in some blocks, burn them in others.
        const CBlock block = chain.MakeBlock(std::move(txs), rng() % 2 ? fees : 0);
        model = std::move(next);
        add_outputs(*block.vtx[0], height);
        chain.ConnectOrFail(block);
        BOOST_REQUIRE(SameUndo(chain.Undo(height), expected_undo));
        CheckSameCoins(chain.Coins(), model, "connected height " + std::to_string(height));
        BOOST_CHECK_EQUAL(chain.View().GetBestBlock().GetHex(), block.GetHash().GetHex());
        history.push_back(model);
    }
    // Enough happened: coins spent, across the regtest halving at 150.
    BOOST_CHECK_GT(spends, 100u);
    BOOST_CHECK_GT(model.size(), 100u);

    for (int height = chain.Height(); height > 0; --height) {
        const uint256 prev = chain.Block(height - 1).GetHash();
        BOOST_REQUIRE(chain.DisconnectTip() == DisconnectResult::OK);
        CheckSameCoins(chain.Coins(), history[height - 1], "disconnected to height " + std::to_string(height - 1));
        BOOST_CHECK_EQUAL(chain.View().GetBestBlock().GetHex(), prev.GetHex());
    }
    BOOST_CHECK(chain.Coins().empty());
}

BOOST_AUTO_TEST_CASE(connect_disconnect_round_trip) { CheckConnectDisconnectRoundTrip(std::nullopt); }

// The same chain connected in an overlay with two fetch workers: the same
// coins and undo data at every height.
BOOST_AUTO_TEST_CASE(connect_disconnect_round_trip_through_overlay) { CheckConnectDisconnectRoundTrip(/*overlay_workers=*/2); }

BOOST_AUTO_TEST_CASE(disconnect_failures_leave_view_unchanged)
{
    TestChain chain;
    chain.Grow(101);
    const CMutableTransaction tx = MakeSpend({chain.CoinbaseOutpoint(1), chain.CoinbaseOutpoint(2)}, {60 * COIN, 30 * COIN}, 1);
    chain.ConnectOrFail(chain.MakeBlock({tx}));
    const CBlock block = chain.Block(102);
    const CBlockUndo good = chain.Undo(102);
    const CoinMap before = chain.Coins();

    const auto check_failed = [&](const CBlockUndo& undo, const std::string& what) {
        BOOST_CHECK_MESSAGE(DisconnectBlockCoins(block, undo, chain.View()) == DisconnectResult::FAILED, what);
        BOOST_CHECK_EQUAL(chain.View().GetBestBlock().GetHex(), block.GetHash().GetHex());
        CheckSameCoins(chain.Coins(), before, what);
    };
    check_failed(CBlockUndo{}, "no transaction records");
    {
        CBlockUndo undo = good;
        undo.vtxundo.push_back(CTxUndo{});
        check_failed(undo, "one record too many");
    }
    {
        CBlockUndo undo = good;
        undo.vtxundo[0].vprevout.pop_back();
        check_failed(undo, "one coin short");
    }
    {
        // The first input is restored last: the failure comes after the
        // outputs were removed and the second input restored.
        CBlockUndo undo = good;
        undo.vtxundo[0].vprevout[0].Clear();
        check_failed(undo, "a spent coin in the undo data");
    }
    {
        CBlockUndo undo = good;
        undo.vtxundo[0].vprevout[0].nHeight = 0;
        check_failed(undo, "a coin without height");
    }

    // The real undo data disconnects cleanly, and a second time does not:
    // the outputs are gone and the inputs are already back.
    const CoinMap at_101 = [&] {
        BOOST_REQUIRE(DisconnectBlockCoins(block, good, chain.View()) == DisconnectResult::OK);
        return chain.Coins();
    }();
    BOOST_CHECK_EQUAL(at_101.size(), 101u);
    BOOST_CHECK(DisconnectBlockCoins(block, good, chain.View()) == DisconnectResult::UNCLEAN);
    CheckSameCoins(chain.Coins(), at_101, "second disconnect");
    BOOST_CHECK_EQUAL(chain.View().GetBestBlock().GetHex(), chain.Block(101).GetHash().GetHex());
}

BOOST_AUTO_TEST_CASE(disconnect_detects_changed_outputs)
{
    TestChain chain;
    chain.Grow(101);
    chain.ConnectOrFail(chain.MakeBlock({MakeSpend({chain.CoinbaseOutpoint(1)}, {COIN}, 1)}));
    const CBlock& block = chain.Block(102);
    const COutPoint created{block.vtx[1]->GetHash(), 0};
    const auto changed = [&](Coin replacement, const std::string& what) {
        TestChain copy;
        copy.Grow(101);
        copy.ConnectOrFail(block);
        copy.View().SpendCoin(created);
        copy.View().AddCoin(created, std::move(replacement), false);
        BOOST_CHECK_MESSAGE(copy.DisconnectTip() == DisconnectResult::UNCLEAN, what);
        // Applied regardless: the output is gone and the input is back.
        BOOST_CHECK(!copy.View().HaveCoin(created));
        BOOST_CHECK(copy.View().HaveCoin(chain.CoinbaseOutpoint(1)));
    };
    changed(Coin{CTxOut{COIN + 1, KeyHashScript(1)}, 102, false}, "amount");
    changed(Coin{CTxOut{COIN, KeyHashScript(2)}, 102, false}, "script");
    changed(Coin{CTxOut{COIN, KeyHashScript(1)}, 102, true}, "coinbase flag");
    // The height is checked against the block's other coins (its coinbase).
    changed(Coin{CTxOut{COIN, KeyHashScript(1)}, 101, false}, "height");
}

BOOST_AUTO_TEST_CASE(disconnect_onto_existing_coin_is_unclean)
{
    TestChain chain;
    chain.Grow(101);
    const COutPoint input = chain.CoinbaseOutpoint(1);
    chain.ConnectOrFail(chain.MakeBlock({MakeSpend({input}, {COIN}, 1)}));
    // The spent coin is back already, as in a state half way through a
    // disconnect: the outputs match, but restoring the input overwrites.
    const Coin spent_coin = chain.Undo(102).vtxundo.at(0).vprevout.at(0);
    chain.View().AddCoin(input, Coin{spent_coin}, /*possible_overwrite=*/false);
    BOOST_CHECK(chain.DisconnectTip() == DisconnectResult::UNCLEAN);
    BOOST_CHECK(SameCoin(chain.View().AccessCoin(input), spent_coin));
    BOOST_CHECK_EQUAL(chain.Coins().size(), 101u);
}

BOOST_AUTO_TEST_CASE(rollforward_matches_connect)
{
    TestChain chain;
    chain.Grow(101);
    const CMutableTransaction parent = MakeSpend({chain.CoinbaseOutpoint(1)}, {20 * COIN, 20 * COIN}, 1);
    const CMutableTransaction child = MakeSpend({COutPoint{parent.GetHash(), 0}}, {COIN}, 2);
    const CBlock block = chain.MakeBlock({parent, child});
    const CoinMap before = chain.Coins();
    chain.ConnectOrFail(block);
    const CoinMap after = chain.Coins();
    BOOST_REQUIRE(chain.DisconnectTip() == DisconnectResult::OK);
    CheckSameCoins(chain.Coins(), before, "disconnected");

    // Twice over, as after a crash in the middle of writing it: same result.
    kernel::RollforwardBlockCoins(block, 102, chain.View());
    kernel::RollforwardBlockCoins(block, 102, chain.View());
    CheckSameCoins(chain.Coins(), after, "rolled forward");
}

// Core's blocks, connected into a CCoinsViewDB on disk, give the UTXO set
// Core reported; so do disconnecting and reconnecting the last three, and a
// reorg onto the stale branch and back.
BOOST_AUTO_TEST_CASE(shared_vectors_reproduce_core_utxo_set, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const CoreVector& vec : CoreVectors("blocks.dat")) {
        BOOST_TEST_CONTEXT(vec.dir.filename())
        {
            const nlohmann::json& expected = vec.expected;
            const auto [params, blocks, active] = ReadCoreChain(vec);
            const int tip = static_cast<int>(active.size()) - 1;
            BOOST_REQUIRE_EQUAL(tip, expected["height"].get<int>());
            BOOST_REQUIRE_GE(tip, 4);

            // The stale blocks, parents before children (the file's own
            // order guarantees nothing about a map): each extends the active
            // chain or an earlier stale block.
            const std::set<uint256> active_set(active.begin(), active.end());
            std::map<uint256, int> height_of;
            for (int h = 0; h <= tip; ++h) height_of[active[h]] = h;
            std::vector<uint256> stale;
            for (bool added = true; added;) {
                added = false;
                for (const auto& [hash, block] : blocks) {
                    if (height_of.contains(hash) || !height_of.contains(block.hashPrevBlock)) continue;
                    height_of[hash] = height_of.at(block.hashPrevBlock) + 1;
                    stale.push_back(hash);
                    added = true;
                }
            }
            BOOST_REQUIRE_EQUAL(stale.size(), expected["stale_blocks"].get<size_t>());
            BOOST_REQUIRE_EQUAL(blocks.size(), active.size() + stale.size());
            // One branch, which the reorg below walks in order.
            for (size_t i = 1; i < stale.size(); ++i) BOOST_REQUIRE(blocks.at(stale[i]).hashPrevBlock == stale[i - 1]);

            TempDirFixture tmp;
            VectorChain chain{params, blocks, tmp.m_path / "chainstate", /*overlay_workers=*/std::nullopt};
            // Where the stale branch leaves the active chain, and the coins there.
            const int fork = stale.empty() ? tip - 3 : height_of.at(blocks.at(stale.front()).hashPrevBlock);
            std::map<int, CoinMap> coins_at;
            for (int h = 0; h <= tip; ++h) {
                chain.Connect(active[h], h);
                if (h == fork || h == tip - 3) coins_at[h] = chain.Coins();
            }

            const auto check_expected = [&](const std::string& when) {
                const auto stats = chain.Stats();
                BOOST_TEST_CONTEXT(when)
                {
                    BOOST_CHECK_EQUAL(stats.hash_serialized.GetHex(), expected["hash_serialized_3"].get<std::string>());
                    BOOST_CHECK_EQUAL(stats.txouts, expected["txouts"].get<uint64_t>());
                    BOOST_CHECK_EQUAL(stats.transactions, expected["transactions"].get<uint64_t>());
                    BOOST_CHECK_EQUAL(stats.bogosize, expected["bogosize"].get<uint64_t>());
                    BOOST_CHECK_EQUAL(stats.total_amount, ParseBtc(expected["total_amount"].get<std::string>()));
                    BOOST_CHECK_EQUAL(stats.best_block.GetHex(), expected["base_blockhash"].get<std::string>());
                }
                return stats.hash_serialized;
            };
            const uint256 tip_hash = check_expected("first connect");

            // The last three blocks out and back in.
            for (int h = tip; h > tip - 3; --h) chain.Disconnect(active[h]);
            CheckSameCoins(chain.Coins(), coins_at.at(tip - 3), "tip - 3 after disconnecting");
            BOOST_CHECK(chain.Stats().hash_serialized != tip_hash);
            for (int h = tip - 2; h <= tip; ++h) chain.Connect(active[h], h);
            check_expected("reconnecting the last three");

            // Reorg onto the stale branch, then back to the active chain.
            for (int h = tip; h > fork; --h) chain.Disconnect(active[h]);
            CheckSameCoins(chain.Coins(), coins_at.at(fork), "fork point");
            for (const uint256& hash : stale) chain.Connect(hash, height_of.at(hash));
            if (!stale.empty()) {
                BOOST_CHECK(chain.Stats().best_block == stale.back());
                BOOST_CHECK(chain.Stats().hash_serialized != tip_hash);
            }
            for (auto it = stale.rbegin(); it != stale.rend(); ++it) chain.Disconnect(*it);
            CheckSameCoins(chain.Coins(), coins_at.at(fork), "fork point after the stale branch");
            for (int h = fork + 1; h <= tip; ++h) chain.Connect(active[h], h);
            check_expected("after the reorg back");
        }
    }
}

// Core's active chain connected in a CoinsViewOverlay, with and without
// fetch workers, gives Core's UTXO set too; so does connecting the last
// three blocks again after taking them out.
BOOST_AUTO_TEST_CASE(shared_vectors_through_overlay, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const CoreVector& vec : CoreVectors("blocks.dat")) {
        const nlohmann::json& expected = vec.expected;
        const auto [params, blocks, active] = ReadCoreChain(vec);
        const int tip = static_cast<int>(active.size()) - 1;
        for (int workers : {0, 1, 2}) {
            BOOST_TEST_CONTEXT(vec.dir.filename() << ", " << workers << " workers")
            {
                TempDirFixture tmp;
                VectorChain chain{params, blocks, tmp.m_path / "chainstate", workers};
                for (int h = 0; h <= tip; ++h) chain.Connect(active[h], h);
                BOOST_CHECK_EQUAL(chain.Stats().hash_serialized.GetHex(), expected["hash_serialized_3"].get<std::string>());
                for (int h = tip; h > tip - 3; --h) chain.Disconnect(active[h]);
                for (int h = tip - 2; h <= tip; ++h) chain.Connect(active[h], h);
                const auto stats = chain.Stats();
                BOOST_CHECK_EQUAL(stats.hash_serialized.GetHex(), expected["hash_serialized_3"].get<std::string>());
                BOOST_CHECK_EQUAL(stats.txouts, expected["txouts"].get<uint64_t>());
                BOOST_CHECK_EQUAL(stats.best_block.GetHex(), expected["base_blockhash"].get<std::string>());
            }
        }
    }
}

// Random blocks, about one in three invalid in one of six ways, connected
// into three chains built alike: in a plain child cache (the node with
// -prevoutfetchthreads=0), in an overlay without workers, and in an overlay
// with 1 or 2 fetch workers. Every result, reject reason, debug message and
// undo record agrees, and so do the coins every few blocks. The two
// overlays' tips stay identical down to their memory, whatever the workers
// did: the node flushes at the same blocks with 1 thread or 16. The plain
// cache's tip holds the same entries until a block is rejected (it keeps
// clean copies of the coins such a block read), but not always the same
// memory: its entry count peaks higher during a block (the coins read come
// in before the block's spends of fresh coins erase any), so its bucket
// array may grow a block earlier.
BOOST_AUTO_TEST_CASE(overlay_agrees_with_plain_cache_randomized)
{
    for (int workers : {1, 2}) {
        BOOST_TEST_CONTEXT(workers << " workers")
        {
            TestChain plain;
            TestChain serial{/*overlay_workers=*/0};
            TestChain overlay{workers};
            std::mt19937 rng{4242 + static_cast<unsigned>(workers)};
            // Spendable coins by outpoint: value, height, coinbase.
            CoinMap unspent;
            std::vector<COutPoint> spent_before;
            const auto record = [&](const CBlock& block, int height) {
                for (const CTransactionRef& tx : block.vtx) {
                    if (!tx->IsCoinBase()) {
                        for (const CTxIn& in : tx->vin) {
                            unspent.erase(in.prevout);
                            spent_before.push_back(in.prevout);
                        }
                    }
                    for (uint32_t n = 0; n < tx->vout.size(); ++n) unspent[COutPoint{tx->GetHash(), n}] = Coin{tx->vout[n], height, tx->IsCoinBase()};
                }
            };
            size_t rejected = 0, entry_checks = 0;
            bool rejected_since_write = false;
            for (int height = 1; height <= 150; ++height) {
                std::vector<COutPoint> mature, immature;
                for (const auto& [outpoint, coin] : unspent) {
                    (coin.IsCoinBase() && height - static_cast<int>(coin.nHeight) < kernel::COINBASE_MATURITY ? immature : mature).push_back(outpoint);
                }
                std::vector<CMutableTransaction> txs;
                CAmount fees = 0;
                for (int t = 0, n = mature.empty() ? 0 : static_cast<int>(rng() % 5); t < n && !mature.empty(); ++t) {
                    std::vector<COutPoint> inputs;
                    CAmount value_in = 0;
                    for (unsigned i = 0, k = 1 + rng() % 3; i < k && !mature.empty(); ++i) {
                        const size_t pick = rng() % mature.size();
                        inputs.push_back(mature[pick]);
                        value_in += unspent.at(mature[pick]).out.nValue;
                        mature[pick] = mature.back();
                        mature.pop_back();
                    }
                    const CAmount fee = value_in / 50;
                    CMutableTransaction tx = MakeSpend(inputs, {(value_in - fee) / 2, value_in - fee - (value_in - fee) / 2}, static_cast<uint32_t>(height) << 8 | t << 2);
                    fees += fee;
                    // Now and then a child spending its parent in the same block.
                    if (rng() % 3 == 0) {
                        const CAmount half = tx.vout[0].nValue;
                        txs.push_back(tx);
                        tx = MakeSpend({COutPoint{txs.back().GetHash(), 0}}, {half}, static_cast<uint32_t>(height) << 8 | t << 2 | 1);
                    }
                    txs.push_back(std::move(tx));
                }
                CAmount coinbase_extra = fees;
                const uint32_t bad_tag = static_cast<uint32_t>(height) << 8 | 0xff;
                int fault = rng() % 3 == 0 ? static_cast<int>(rng() % 6) : -1;
                switch (fault) {
                case 0: txs.push_back(MakeSpend({COutPoint{FilledHash(static_cast<unsigned char>(height)), 0}}, {COIN}, bad_tag)); break;
                case 1:
                    if (txs.empty()) break;
                    txs.push_back(MakeSpend({txs.front().vin[0].prevout}, {1}, bad_tag));
                    break;
                case 2:
                    if (txs.empty()) break;
                    txs.insert(txs.begin(), MakeSpend({COutPoint{txs.back().GetHash(), 0}}, {1}, bad_tag));
                    break;
                case 3: coinbase_extra = fees + 1; break;
                case 4:
                    if (immature.empty()) break;
                    txs.push_back(MakeSpend({immature[rng() % immature.size()]}, {1}, bad_tag));
                    break;
                case 5:
                    if (spent_before.empty()) break;
                    txs.push_back(MakeSpend({spent_before[rng() % spent_before.size()]}, {1}, bad_tag));
                    break;
                }
                const CBlock block = plain.MakeBlock(std::move(txs), coinbase_extra);
                BOOST_TEST_CONTEXT("height " << height << ", fault " << fault)
                {
                    BlockValidationState plain_state, serial_state, overlay_state;
                    CBlockUndo plain_undo, serial_undo, overlay_undo;
                    const bool plain_ok = plain.Connect(block, plain_state, plain_undo);
                    const bool serial_ok = serial.Connect(block, serial_state, serial_undo);
                    const bool overlay_ok = overlay.Connect(block, overlay_state, overlay_undo);
                    BOOST_REQUIRE_EQUAL(plain_ok, overlay_ok);
                    BOOST_REQUIRE_EQUAL(serial_ok, overlay_ok);
                    BOOST_CHECK_EQUAL(plain_state.ToString(), overlay_state.ToString());
                    BOOST_CHECK_EQUAL(serial_state.ToString(), overlay_state.ToString());
                    BOOST_CHECK(SameUndo(plain_undo, overlay_undo));
                    BOOST_CHECK(SameUndo(serial_undo, overlay_undo));
                    BOOST_CHECK_EQUAL(serial.View().GetCacheSize(), overlay.View().GetCacheSize());
                    BOOST_CHECK_EQUAL(serial.View().DynamicMemoryUsage(), overlay.View().DynamicMemoryUsage());
                    BOOST_CHECK_EQUAL(serial.View().GetDirtyCount(), overlay.View().GetDirtyCount());
                    if (plain_ok) {
                        record(block, height);
                    } else {
                        ++rejected;
                        rejected_since_write = true;
                        --height; // the next block is at this height again
                    }
                    if (!rejected_since_write) {
                        ++entry_checks;
                        BOOST_CHECK_EQUAL(plain.View().GetCacheSize(), overlay.View().GetCacheSize());
                        BOOST_CHECK_EQUAL(plain.View().GetDirtyCount(), overlay.View().GetDirtyCount());
                    }
                    if (rng() % 8 == 0) {
                        const CoinMap coins = overlay.Coins();
                        CheckSameCoins(plain.Coins(), coins, "plain");
                        CheckSameCoins(serial.Coins(), coins, "serial");
                        rejected_since_write = false;
                    }
                }
            }
            const CoinMap coins = overlay.Coins();
            CheckSameCoins(plain.Coins(), coins, "plain at the end");
            CheckSameCoins(serial.Coins(), coins, "serial at the end");
            BOOST_CHECK_GT(rejected, 20U);
            BOOST_CHECK_GT(entry_checks, 30U);
            BOOST_CHECK_EQUAL(plain.Height(), overlay.Height());
            BOOST_CHECK(plain.View().GetBestBlock() == overlay.View().GetBestBlock());
        }
    }
}

// ApplyTxInUndo: the result for each state the view may be in at the
// outpoint and each kind of undo coin, and what the view holds afterwards.
// A FAILED restore leaves the view exactly as it was.
BOOST_AUTO_TEST_CASE(apply_tx_in_undo_table)
{
    // Core's DISCONNECT_OK, _UNCLEAN, _FAILED: 0, 1, 2, as its enum counts them.
    static_assert(DISCONNECT_OK == 0 && DISCONNECT_UNCLEAN == 1 && DISCONNECT_FAILED == 2);
    enum class At { NOTHING, UNSPENT, SPENT_HERE };
    enum class Undo { PLAIN, COINBASE, SPENT, HEIGHT_0 };
    const COutPoint out{uint256::FromHex("5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a").value(), 3};
    const Coin other{CTxOut{777, KeyHashScript(1)}, 40, false};
    const auto undo_coin = [](Undo kind) {
        switch (kind) {
        case Undo::PLAIN: return Coin{CTxOut{1234, KeyHashScript(2)}, 50, false};
        case Undo::COINBASE: return Coin{CTxOut{5678, KeyHashScript(3)}, 60, true};
        case Undo::SPENT: return Coin{};
        case Undo::HEIGHT_0: return Coin{CTxOut{1234, KeyHashScript(2)}, 0, false};
        }
        throw std::logic_error("unknown undo kind");
    };
    struct Case {
        At at;
        Undo undo;
        DisconnectResult result;
    };
    // clang-format off
    const Case cases[]{
        // view at out     undo coin        result
        {At::NOTHING,    Undo::PLAIN,    DisconnectResult::OK},
        {At::NOTHING,    Undo::COINBASE, DisconnectResult::OK},
        {At::SPENT_HERE, Undo::PLAIN,    DisconnectResult::OK},
        {At::UNSPENT,    Undo::PLAIN,    DisconnectResult::UNCLEAN},
        {At::UNSPENT,    Undo::COINBASE, DisconnectResult::UNCLEAN},
        {At::NOTHING,    Undo::SPENT,    DisconnectResult::FAILED},
        {At::UNSPENT,    Undo::SPENT,    DisconnectResult::FAILED},
        {At::NOTHING,    Undo::HEIGHT_0, DisconnectResult::FAILED},
        {At::UNSPENT,    Undo::HEIGHT_0, DisconnectResult::FAILED},
        {At::SPENT_HERE, Undo::HEIGHT_0, DisconnectResult::FAILED},
    };
    // clang-format on
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT("view state " << static_cast<int>(c.at) << ", undo kind " << static_cast<int>(c.undo))
        {
            CCoinsViewCache parent{&CoinsViewEmpty::Get()};
            CCoinsViewCache view{&parent};
            if (c.at != At::NOTHING) parent.AddCoin(out, Coin{other}, /*possible_overwrite=*/false);
            if (c.at == At::SPENT_HERE) BOOST_REQUIRE(view.SpendCoin(out));
            const std::optional<Coin> before = view.GetCoin(out);
            const size_t entries = view.GetCacheSize();
            const size_t usage = view.DynamicMemoryUsage();

            const Coin undo = undo_coin(c.undo);
            BOOST_CHECK_EQUAL(ApplyTxInUndo(Coin{undo}, view, out), static_cast<int>(c.result));
            if (c.result == DisconnectResult::FAILED) {
                BOOST_CHECK(SameCoin(view.GetCoin(out), before));
                BOOST_CHECK_EQUAL(view.GetCacheSize(), entries);
                BOOST_CHECK_EQUAL(view.DynamicMemoryUsage(), usage);
                continue;
            }
            const std::optional<Coin> restored = view.GetCoin(out);
            BOOST_REQUIRE(restored);
            BOOST_CHECK(SameCoin(*restored, undo));
            BOOST_CHECK_EQUAL(restored->IsCoinBase(), undo.IsCoinBase());
            BOOST_CHECK_EQUAL(restored->nHeight, undo.nHeight);
            view.Flush();
            BOOST_CHECK(SameCoin(parent.GetCoin(out), undo));
        }
    }
}

// UpdateCoins spends the inputs into the undo record in input order and
// adds the outputs; a coinbase leaves the record alone. Spending the
// outputs and applying the record backwards restores the view.
BOOST_AUTO_TEST_CASE(update_coins_then_apply_undo)
{
    CCoinsViewDB db{DBParams{.path = "update_coins", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    CCoinsViewCache view{&db};
    const CTransaction coinbase{MakeCoinbase(10, 50 * COIN)};
    CTxUndo coinbase_undo;
    UpdateCoins(coinbase, view, coinbase_undo, 10);
    BOOST_CHECK(coinbase_undo.vprevout.empty());
    const COutPoint a{coinbase.GetHash(), 0};
    BOOST_CHECK(SameCoin(view.AccessCoin(a), Coin{coinbase.vout[0], 10, true}));
    BOOST_CHECK(view.AccessCoin(a).IsCoinBase());
    const CTransaction funding{MakeSpend({a}, {30 * COIN, 20 * COIN}, 100)};
    CTxUndo funding_undo;
    UpdateCoins(funding, view, funding_undo, 20);
    const COutPoint b{funding.GetHash(), 0}, c{funding.GetHash(), 1};
    view.SetBestBlock(FilledHash(1));
    view.Flush();
    const CoinMap start = ReadCoins(db);
    BOOST_REQUIRE_EQUAL(start.size(), 2U);

    // Inputs in the order c, b: the record follows the inputs, not the keys.
    const CTransaction tx{MakeSpend({c, b}, {10 * COIN, 15 * COIN, 24 * COIN}, 200)};
    CTxUndo undo;
    UpdateCoins(tx, view, undo, 30);
    BOOST_REQUIRE_EQUAL(undo.vprevout.size(), 2U);
    BOOST_CHECK(SameCoin(undo.vprevout[0], start.at(c)));
    BOOST_CHECK(SameCoin(undo.vprevout[1], start.at(b)));
    BOOST_CHECK_EQUAL(undo.vprevout[0].nHeight, 20U);
    BOOST_CHECK(!view.HaveCoin(b) && !view.HaveCoin(c));
    for (uint32_t n = 0; n < 3; ++n) {
        BOOST_CHECK(SameCoin(view.AccessCoin(COutPoint{tx.GetHash(), n}), Coin{tx.vout[n], 30, false}));
    }

    for (uint32_t n = 0; n < 3; ++n) BOOST_CHECK(view.SpendCoin(COutPoint{tx.GetHash(), n}));
    for (size_t j = tx.vin.size(); j-- > 0;) {
        BOOST_CHECK_EQUAL(ApplyTxInUndo(std::move(undo.vprevout[j]), view, tx.vin[j].prevout), DISCONNECT_OK);
    }
    view.SetBestBlock(FilledHash(1));
    view.Flush();
    CheckSameCoins(ReadCoins(db), start, "after undoing the transaction");
}

// Random transactions through UpdateCoins on the top of a stack of two
// caches over a database, some undone again through ApplyTxInUndo, layers
// flushed and synced at random, the top checked against a std::map after
// every step.
BOOST_AUTO_TEST_CASE(update_coins_and_undo_against_model)
{
    std::mt19937_64 rng{17};
    const auto below = [&rng](uint64_t n) { return rng() % n; };
    CCoinsViewDB db{DBParams{.path = "update_coins_model", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = 1000}};
    CCoinsViewCache middle{&db};
    CCoinsViewCache top{&middle};
    CoinMap model;
    std::set<COutPoint> seen;
    struct Applied {
        CTransaction tx;
        CTxUndo undo;
        std::vector<Coin> spent;
    };
    std::vector<Applied> history;
    size_t connected = 0, undone = 0, unclean = 0;

    for (int step = 0; step < 600; ++step) {
        const uint64_t roll = below(100);
        const int height = step + 1;
        if (roll < 60 || model.empty()) {
            CMutableTransaction mtx;
            const bool coinbase = model.empty() || below(8) == 0;
            std::vector<Coin> spent;
            if (coinbase) {
                mtx = MakeCoinbase(height, 50 * COIN);
            } else {
                std::set<COutPoint> inputs;
                const uint64_t wanted = 1 + below(3);
                while (inputs.size() < std::min<size_t>(wanted, model.size())) {
                    auto it = model.begin();
                    std::advance(it, below(model.size()));
                    inputs.insert(it->first);
                }
                for (const COutPoint& in : inputs) {
                    mtx.vin.emplace_back(in);
                    spent.push_back(model.at(in));
                }
                const uint64_t outputs = 1 + below(3);
                for (uint64_t n = 0; n < outputs; ++n) mtx.vout.emplace_back(1000 + below(1000), KeyHashScript(static_cast<uint32_t>(step * 4 + n)));
            }
            const CTransaction tx{mtx};
            CTxUndo undo;
            UpdateCoins(tx, top, undo, height);
            BOOST_REQUIRE_EQUAL(undo.vprevout.size(), spent.size());
            for (size_t j = 0; j < spent.size(); ++j) {
                BOOST_CHECK(SameCoin(undo.vprevout[j], spent[j]));
                model.erase(tx.vin[j].prevout);
            }
            for (uint32_t n = 0; n < tx.vout.size(); ++n) {
                model.insert_or_assign(COutPoint{tx.GetHash(), n}, Coin{tx.vout[n], height, coinbase});
                seen.insert(COutPoint{tx.GetHash(), n});
            }
            for (const CTxIn& in : tx.vin) seen.insert(in.prevout);
            history.push_back({tx, std::move(undo), std::move(spent)});
            ++connected;
        } else if (roll < 85 && !history.empty()) {
            // Undo the latest transaction whose outputs are all still unspent.
            Applied applied = std::move(history.back());
            history.pop_back();
            const CTransaction& tx = applied.tx;
            bool outputs_unspent = true;
            for (uint32_t n = 0; n < tx.vout.size(); ++n) outputs_unspent &= model.contains(COutPoint{tx.GetHash(), n});
            if (!outputs_unspent) continue;
            for (uint32_t n = 0; n < tx.vout.size(); ++n) {
                const COutPoint out{tx.GetHash(), n};
                Coin moved;
                BOOST_CHECK(top.SpendCoin(out, &moved) && SameCoin(moved, model.at(out)));
                model.erase(out);
            }
            for (size_t j = tx.vin.size(); j-- > 0 && !tx.IsCoinBase();) {
                const int result = ApplyTxInUndo(std::move(applied.undo.vprevout[j]), top, tx.vin[j].prevout);
                BOOST_CHECK_EQUAL(result, DISCONNECT_OK);
                unclean += result != DISCONNECT_OK;
                model.emplace(tx.vin[j].prevout, applied.spent[j]);
            }
            ++undone;
        } else {
            CCoinsViewCache& layer = below(2) ? top : middle;
            layer.SetBestBlock(FilledHash(static_cast<unsigned char>(1 + step % 200)));
            if (below(2)) {
                layer.Flush();
            } else {
                layer.Sync();
            }
        }
        for (const COutPoint& out : seen) {
            const auto it = model.find(out);
            const std::optional<Coin> expected = it == model.end() ? std::nullopt : std::optional{it->second};
            if (!SameCoin(top.GetCoin(out), expected)) {
                BOOST_ERROR("step " << step << ": the view differs from the model at " << out.ToString());
                return;
            }
        }
        top.SanityCheck();
        middle.SanityCheck();
    }
    BOOST_TEST_MESSAGE("connected " << connected << ", undone " << undone);
    BOOST_CHECK_GT(connected, 200U);
    BOOST_CHECK_GT(undone, 50U);
    BOOST_CHECK_EQUAL(unclean, 0U);
}

BOOST_AUTO_TEST_SUITE_END()
