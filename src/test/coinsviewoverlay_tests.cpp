// CoinsViewOverlay (coins.h), the view a block is connected in:
// - a table of the inputs a block can have (a coin in the database, cached
//   clean, added or spent in the tip, nowhere, made earlier in the block,
//   the block's coinbase, a second spend) with the answer, whether the
//   fetch queued it and whether the answer came from the queue;
// - random blocks over random tips, connected step by step in an overlay
//   with 0, 1, 2 and 4 workers and in a plain CCoinsViewCache over an
//   identical tip: every answer, every moved-out coin and the coin sets
//   after each block are the same, and the overlay's tip is never filled;
// - with `outputs`, the block's outputs are looked up first, in block
//   order, each answer taken from the queue (a table of where a coin with
//   the output's outpoint already is);
// - the inputs read by the workers are counted;
// - a read that throws on a worker is thrown again on the calling thread;
//   a pool that refuses the tasks leaves a serial read; Flush, Reset and
//   the guard end the fetch;
// - a concurrency stress over a LevelDB chainstate, for ThreadSanitizer
//   (contrib/sanitizers.sh thread): big blocks, accesses out of order and
//   fetches abandoned halfway, answers checked against the tip.

#include <coins.h>
#include <kernel/caches.h>
#include <primitives/block.h>
#include <test/util/coin_compare.h>
#include <test/util/random.h>
#include <test/util/setup.h>
#include <txdb.h>
#include <util/log.h>
#include <util/threadpool.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

uint256 HashFromByte(unsigned char byte)
{
    std::array<unsigned char, uint256::SIZE> bytes;
    bytes.fill(byte);
    return uint256{bytes};
}

// Scripts of a few sizes, beyond the 35 bytes a coin holds inline too, so
// that a lost or doubled coin shows in the memory accounting.
Coin RandomCoin(TestRand& rand, int height)
{
    CScript script(1 + rand.Below(60), static_cast<unsigned char>(0x51 + rand.Below(8)));
    return Coin{CTxOut{static_cast<CAmount>(1 + rand.Below(50 * COIN)), std::move(script)}, height, rand.OneIn(4)};
}

std::string Describe(const std::optional<Coin>& coin)
{
    if (!coin) return "none";
    return std::to_string(coin->out.nValue) + "@" + std::to_string(coin->nHeight) + (coin->IsCoinBase() ? "cb" : "") + "/" +
           std::to_string(coin->out.scriptPubKey.size());
}

std::string Describe(const Coin& coin) { return coin.IsSpent() ? "spent" : Describe(std::optional{coin}); }

std::map<COutPoint, Coin> ReadDatabase(const CCoinsViewDB& db)
{
    std::map<COutPoint, Coin> coins;
    for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) {
        COutPoint outpoint;
        Coin coin;
        BOOST_REQUIRE(cursor->GetKey(outpoint) && cursor->GetValue(coin));
        coins.emplace(outpoint, std::move(coin));
    }
    return coins;
}

std::shared_ptr<ThreadPool> StartedPool(int workers)
{
    if (workers == 0) return nullptr;
    auto pool = std::make_shared<ThreadPool>("overlay_test");
    pool->Start(workers);
    return pool;
}

// A database and the tip cache over it.
struct Chainstate {
    explicit Chainstate(const std::string& name)
        : db{DBParams{.path = name, .memory_only = true}, CoinsViewOptions{}}, tip{&db, /*deterministic=*/true} {}
    CCoinsViewDB db;
    CCoinsViewCache tip;
};

CTransactionRef MakeTx(const std::vector<COutPoint>& inputs, std::vector<Coin> outputs, uint32_t tag)
{
    CMutableTransaction tx;
    tx.nLockTime = tag; // distinct txids for otherwise equal transactions
    for (const COutPoint& in : inputs) tx.vin.emplace_back(in);
    for (Coin& coin : outputs) tx.vout.push_back(std::move(coin.out));
    return MakeTransactionRef(std::move(tx));
}

CTransactionRef MakeCoinbase(uint32_t tag, CAmount value)
{
    CMutableTransaction tx;
    tx.vin.emplace_back(COutPoint{}, CScript{0x04, static_cast<unsigned char>(tag), static_cast<unsigned char>(tag >> 8), 0x01});
    tx.vout.emplace_back(value, CScript(25, 0x76));
    return MakeTransactionRef(std::move(tx));
}

// The steps of connecting `block`'s transactions in `view`, the order
// kernel::ConnectBlockCoins takes: each input looked up, read and spent,
// then the outputs added. Returns everything each step answered, so that
// two views can be compared step by step.
std::vector<std::string> ConnectSteps(const CBlock& block, int height, CCoinsViewCache& view)
{
    std::vector<std::string> answers;
    for (const CTransactionRef& tx : block.vtx) {
        if (!tx->IsCoinBase()) {
            for (const CTxIn& in : tx->vin) {
                answers.push_back("have " + std::to_string(view.HaveCoin(in.prevout)));
                answers.push_back("access " + Describe(view.AccessCoin(in.prevout)));
                Coin moved;
                const bool found = view.SpendCoin(in.prevout, &moved);
                answers.push_back("spend " + std::to_string(found) + " " + Describe(moved));
            }
        }
        AddCoins(view, *tx, height, /*check_for_overwrite=*/true);
    }
    return answers;
}

} // namespace

BOOST_AUTO_TEST_SUITE(coinsviewoverlay_tests)

// One input of each kind, in one block, connected in an overlay with two
// workers. Columns: what the input spends; the coin the overlay reports;
// whether StartFetching queued it; whether the answer was taken from the
// queue (the input matched the next queued one) rather than read serially.
BOOST_AUTO_TEST_CASE(input_kinds_table)
{
    enum class Kind { DB_ONLY, TIP_CLEAN, TIP_ADDED, TIP_SPENT, NOWHERE, EARLIER_IN_BLOCK, BLOCK_COINBASE, SECOND_SPEND, AFTER_SECOND_SPEND };
    struct Row {
        Kind kind;
        const char* name;
        bool has_coin;
        bool queued;
        bool from_queue;
    };
    using enum Kind;
    // clang-format off
    const std::vector<Row> rows{
        // kind                 name                   has coin  queued  from queue
        {DB_ONLY,              "in the database",      true,     true,   true},
        {TIP_CLEAN,            "cached clean",         true,     true,   true},
        {TIP_ADDED,            "added in the tip",     true,     true,   true},
        {TIP_SPENT,            "spent in the tip",     false,    true,   true},
        {NOWHERE,              "nowhere",              false,    true,   true},
        {EARLIER_IN_BLOCK,     "made earlier in block",true,     false,  false},
        {BLOCK_COINBASE,       "the block's coinbase", true,     false,  false},
        // Found spent in the overlay: the queue is not asked, and its next
        // slot (this input) is never taken, so the rest is read serially.
        {SECOND_SPEND,         "a second spend",       false,    true,   false},
        {AFTER_SECOND_SPEND,   "after a second spend", true,     true,   false},
    };
    // clang-format on

    Chainstate chain{"input_kinds"};
    TestRand rand{5};
    const auto old = [](uint32_t n) { return COutPoint{HashFromByte(0x31), n}; };
    {
        CCoinsViewCache loader{&chain.db};
        for (uint32_t n = 0; n < 8; ++n) loader.AddCoin(old(n), RandomCoin(rand, 10), /*possible_overwrite=*/false);
        loader.SetBestBlock(HashFromByte(0x01));
        loader.Flush();
    }
    BOOST_REQUIRE(chain.tip.HaveCoin(old(1))); // cached clean
    chain.tip.AddCoin(old(20), RandomCoin(rand, 11), /*possible_overwrite=*/false);
    BOOST_REQUIRE(chain.tip.SpendCoin(old(3)));

    CBlock block;
    block.vtx.push_back(MakeCoinbase(1, 50 * COIN));
    const CTransactionRef first = MakeTx({old(0)}, {RandomCoin(rand, 0)}, 1);
    std::map<Kind, COutPoint> spends{{DB_ONLY, old(0)}, {TIP_CLEAN, old(1)}, {TIP_ADDED, old(20)}, {TIP_SPENT, old(3)},
                                     {NOWHERE, old(30)}, {EARLIER_IN_BLOCK, {first->GetHash(), 0}},
                                     {BLOCK_COINBASE, {block.vtx[0]->GetHash(), 0}}, {SECOND_SPEND, old(0)},
                                     {AFTER_SECOND_SPEND, old(4)}};
    block.vtx.push_back(first);
    for (size_t i = 1; i < rows.size(); ++i) block.vtx.push_back(MakeTx({spends.at(rows[i].kind)}, {RandomCoin(rand, 0)}, 100 + i));

    const size_t tip_entries = chain.tip.GetCacheSize();
    const size_t tip_usage = chain.tip.DynamicMemoryUsage();
    size_t expected_queued = 0;
    for (const Row& row : rows) expected_queued += row.queued;

    CoinsViewOverlay overlay{&chain.tip, StartedPool(2), /*deterministic=*/true};
    {
        const auto guard = overlay.StartFetching(block);
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), expected_queued);
        AddCoins(overlay, *block.vtx[0], 1);
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row& row = rows[i];
            BOOST_TEST_CONTEXT("row " << i << ": " << row.name)
            {
                const CTransaction& tx = *block.vtx[i + 1];
                const size_t taken_before = overlay.InputsTaken();
                BOOST_CHECK_EQUAL(overlay.HaveCoin(tx.vin[0].prevout), row.has_coin);
                BOOST_CHECK_EQUAL(overlay.InputsTaken() - taken_before, row.from_queue ? 1U : 0U);
                if (row.has_coin) BOOST_CHECK(overlay.SpendCoin(tx.vin[0].prevout));
                AddCoins(overlay, tx, 1);
            }
        }
        // Nothing was written to the tip, and nothing cached in it.
        BOOST_CHECK_EQUAL(chain.tip.GetCacheSize(), tip_entries);
        BOOST_CHECK_EQUAL(chain.tip.DynamicMemoryUsage(), tip_usage);
        overlay.SetBestBlock(HashFromByte(0x02));
        overlay.Flush();
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), 0U);
    }
    BOOST_CHECK_EQUAL(overlay.GetCacheSize(), 0U);
    BOOST_CHECK(chain.tip.GetBestBlock() == HashFromByte(0x02));
    for (Kind spent : {DB_ONLY, TIP_CLEAN, TIP_ADDED, AFTER_SECOND_SPEND}) BOOST_CHECK(!chain.tip.PeekCoin(spends.at(spent)));
    BOOST_CHECK(chain.tip.PeekCoin({block.vtx.back()->GetHash(), 0}));
    chain.tip.SanityCheck();
}

// StartFetching with `outputs`: every output of the block is queued before
// the inputs, in block order, as the BIP30 check asks for them. Columns:
// where a coin with the output's outpoint already is; what HaveCoin says.
// Each answer comes from the queue, and the inputs after them still do.
BOOST_AUTO_TEST_CASE(outputs_are_looked_up_first_in_block_order)
{
    enum class Where {
        NOWHERE,
        DATABASE,
        TIP_ADDED,
        TIP_SPENT,
    };
    struct Row {
        Where where;
        const char* name;
        bool has_coin;
    };
    using enum Where;
    // clang-format off
    const std::vector<Row> rows{
        // where       name                        has coin
        {NOWHERE,      "a new output",             false},
        {DATABASE,     "an unspent one on disk",   true},
        {TIP_ADDED,    "an unspent one in the tip",true},
        {TIP_SPENT,    "one spent in the tip",     false},
    };
    // clang-format on

    Chainstate chain{"outputs_first"};
    TestRand rand{8};
    const COutPoint funding{HashFromByte(0x44), 0};
    CBlock block;
    block.vtx.push_back(MakeCoinbase(2, 50 * COIN));
    // One transaction with an output per row, spending a coin on disk.
    std::vector<Coin> outputs;
    for (size_t i = 0; i < rows.size(); ++i) outputs.push_back(RandomCoin(rand, 0));
    block.vtx.push_back(MakeTx({funding}, outputs, 7));
    const uint256 txid = block.vtx[1]->GetHash();
    {
        CCoinsViewCache loader{&chain.db};
        loader.AddCoin(funding, RandomCoin(rand, 3), /*possible_overwrite=*/false);
        for (uint32_t n = 0; n < rows.size(); ++n) {
            if (rows[n].where == DATABASE || rows[n].where == TIP_SPENT) loader.AddCoin({txid, n}, RandomCoin(rand, 4), false);
        }
        loader.SetBestBlock(HashFromByte(0x01));
        loader.Flush();
    }
    for (uint32_t n = 0; n < rows.size(); ++n) {
        if (rows[n].where == TIP_ADDED) chain.tip.AddCoin({txid, n}, RandomCoin(rand, 5), false);
        if (rows[n].where == TIP_SPENT) BOOST_REQUIRE(chain.tip.SpendCoin({txid, n}));
    }

    CoinsViewOverlay overlay{&chain.tip, StartedPool(2), /*deterministic=*/true};
    {
        const auto guard = overlay.StartFetching(block, /*outputs=*/true);
        // The coinbase's output, the transaction's, then its input.
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), 1 + rows.size() + 1);
        BOOST_CHECK(!overlay.HaveCoin({block.vtx[0]->GetHash(), 0}));
        for (uint32_t n = 0; n < rows.size(); ++n) {
            BOOST_TEST_CONTEXT("output " << n << ": " << rows[n].name)
            {
                BOOST_CHECK_EQUAL(overlay.HaveCoin({txid, n}), rows[n].has_coin);
                BOOST_CHECK_EQUAL(overlay.InputsTaken(), 2 + n);
            }
        }
        BOOST_CHECK(overlay.HaveCoin(funding));
        BOOST_CHECK_EQUAL(overlay.InputsTaken(), overlay.InputsQueued());
    }
    BOOST_CHECK_EQUAL(overlay.OutputsQueuedTotal(), 1 + rows.size());
    BOOST_CHECK_EQUAL(overlay.InputsQueuedTotal(), 1U);
    // Without `outputs`, only the input.
    {
        const auto guard = overlay.StartFetching(block);
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), 1U);
    }
    BOOST_CHECK_EQUAL(overlay.OutputsQueuedTotal(), 1 + rows.size());
}

// Random blocks over random tips: an overlay (with 0, 1, 2 or 4 workers,
// reused block after block as the node reuses it) and a fresh plain cache
// per block over an identical tip answer every step alike, end with the
// same coins after each block, flushed or dropped, and the overlay never
// fills its tip. The blocks spend coins of the database, of the tip (clean,
// added, spent), nothing at all, outputs made earlier in the block, the
// block's coinbase, and the same coin twice; some steps read random coins
// out of the block's order, others drop them from the cache.
BOOST_AUTO_TEST_CASE(same_answers_as_a_plain_cache_randomized)
{
    for (int workers : {0, 1, 2, 4}) {
        BOOST_TEST_CONTEXT(workers << " workers")
        {
            TestRand rand{100 + static_cast<uint64_t>(workers)};
            Chainstate with_overlay{"overlay_side"};
            Chainstate with_cache{"cache_side"};
            const auto both = [&](const auto& step) { step(with_overlay); step(with_cache); };

            std::vector<COutPoint> universe;
            for (uint32_t n = 0; n < 120; ++n) universe.emplace_back(HashFromByte(static_cast<unsigned char>(0x40 + n % 30)), n / 30);
            // The same random history on both sides.
            std::vector<std::pair<COutPoint, Coin>> initial;
            for (const COutPoint& outpoint : universe) {
                if (!rand.OneIn(3)) initial.emplace_back(outpoint, RandomCoin(rand, 1 + static_cast<int>(rand.Below(100))));
            }
            both([&](Chainstate& side) {
                CCoinsViewCache loader{&side.db};
                for (const auto& [outpoint, coin] : initial) loader.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
                loader.SetBestBlock(HashFromByte(0x01));
                loader.Flush();
            });

            CoinsViewOverlay overlay{&with_overlay.tip, StartedPool(workers), /*deterministic=*/true};
            size_t flushed = 0, dropped = 0, from_queue = 0;
            for (int height = 1; height <= 40; ++height) {
                BOOST_TEST_CONTEXT("height " << height)
                {
                    // The tips change between blocks: coins cached, added, spent.
                    for (int i = 0; i < 6; ++i) {
                        const COutPoint& outpoint = universe[rand.Below(universe.size())];
                        const uint64_t what = rand.Below(3);
                        const Coin coin = RandomCoin(rand, height);
                        both([&](Chainstate& side) {
                            if (what == 0) side.tip.HaveCoin(outpoint);
                            if (what == 1) side.tip.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/true);
                            if (what == 2) side.tip.SpendCoin(outpoint);
                        });
                    }
                    if (rand.OneIn(5)) both([](Chainstate& side) { side.tip.Sync(); });

                    // The block: inputs of every kind.
                    CBlock block;
                    block.vtx.push_back(MakeCoinbase(static_cast<uint32_t>(height), 50 * COIN));
                    std::vector<COutPoint> made{{block.vtx[0]->GetHash(), 0}};
                    std::vector<COutPoint> spent_in_block;
                    const uint64_t txs = 1 + rand.Below(12);
                    for (uint64_t t = 0; t < txs; ++t) {
                        std::vector<COutPoint> inputs;
                        const uint64_t count = 1 + rand.Below(4);
                        for (uint64_t i = 0; i < count; ++i) {
                            const uint64_t kind = rand.Below(10);
                            if (kind < 5) {
                                inputs.push_back(universe[rand.Below(universe.size())]);
                            } else if (kind < 7) {
                                inputs.push_back(made[rand.Below(made.size())]);
                            } else if (kind < 8 && !spent_in_block.empty()) {
                                inputs.push_back(spent_in_block[rand.Below(spent_in_block.size())]);
                            } else {
                                inputs.emplace_back(rand.Hash(), static_cast<uint32_t>(rand.Below(3)));
                            }
                        }
                        std::vector<Coin> outputs;
                        for (uint64_t o = 0, n = 1 + rand.Below(3); o < n; ++o) outputs.push_back(RandomCoin(rand, height));
                        block.vtx.push_back(MakeTx(inputs, std::move(outputs), static_cast<uint32_t>(height * 100 + t)));
                        for (uint32_t o = 0; o < block.vtx.back()->vout.size(); ++o) made.emplace_back(block.vtx.back()->GetHash(), o);
                        spent_in_block.insert(spent_in_block.end(), inputs.begin(), inputs.end());
                    }

                    const size_t tip_entries = with_overlay.tip.GetCacheSize();
                    const size_t tip_usage = with_overlay.tip.DynamicMemoryUsage();
                    const bool keep = !rand.OneIn(3);
                    const uint256 hash = rand.Hash();
                    {
                        const auto guard = overlay.StartFetching(block);
                        CCoinsViewCache plain{&with_cache.tip, /*deterministic=*/true};
                        // Out-of-order reads and drops before, between and after.
                        const auto disturb = [&] {
                            const COutPoint& outpoint = rand.OneIn(2) ? universe[rand.Below(universe.size())] : made[rand.Below(made.size())];
                            const uint64_t what = rand.Below(4);
                            if (what == 0) BOOST_CHECK_EQUAL(Describe(overlay.GetCoin(outpoint)), Describe(plain.GetCoin(outpoint)));
                            if (what == 1) BOOST_CHECK_EQUAL(Describe(overlay.PeekCoin(outpoint)), Describe(plain.PeekCoin(outpoint)));
                            if (what == 2) BOOST_CHECK_EQUAL(overlay.HaveCoinInCache(outpoint), plain.HaveCoinInCache(outpoint));
                            if (what == 3) {
                                overlay.Uncache(outpoint);
                                plain.Uncache(outpoint);
                            }
                        };
                        if (rand.OneIn(4)) disturb();
                        CBlock first_half = block, second_half = block;
                        const size_t split = 1 + rand.Below(block.vtx.size());
                        first_half.vtx.resize(split);
                        second_half.vtx.erase(second_half.vtx.begin(), second_half.vtx.begin() + split);
                        const auto overlay_answers = ConnectSteps(first_half, height, overlay);
                        const auto cache_answers = ConnectSteps(first_half, height, plain);
                        BOOST_CHECK_EQUAL_COLLECTIONS(overlay_answers.begin(), overlay_answers.end(), cache_answers.begin(), cache_answers.end());
                        if (rand.OneIn(4)) disturb();
                        const auto overlay_rest = ConnectSteps(second_half, height, overlay);
                        const auto cache_rest = ConnectSteps(second_half, height, plain);
                        BOOST_CHECK_EQUAL_COLLECTIONS(overlay_rest.begin(), overlay_rest.end(), cache_rest.begin(), cache_rest.end());
                        if (rand.OneIn(4)) disturb();

                        BOOST_CHECK_EQUAL(overlay.GetCacheSize(), plain.GetCacheSize());
                        BOOST_CHECK_EQUAL(overlay.GetDirtyCount(), plain.GetDirtyCount());
                        BOOST_CHECK_EQUAL(with_overlay.tip.GetCacheSize(), tip_entries);
                        BOOST_CHECK_EQUAL(with_overlay.tip.DynamicMemoryUsage(), tip_usage);
                        if (workers == 0) BOOST_CHECK_EQUAL(overlay.InputsQueued(), 0U);
                        from_queue += overlay.InputsTaken();
                        overlay.SanityCheck();
                        if (keep) {
                            overlay.SetBestBlock(hash);
                            plain.SetBestBlock(hash);
                            overlay.Flush();
                            plain.Flush();
                            ++flushed;
                        } else {
                            ++dropped;
                        }
                    }
                    BOOST_CHECK_EQUAL(overlay.GetCacheSize(), 0U);
                    BOOST_CHECK_EQUAL(overlay.InputsQueued(), 0U);
                    BOOST_CHECK(with_overlay.tip.GetBestBlock() == with_cache.tip.GetBestBlock());
                    std::vector<COutPoint> checked = universe;
                    checked.insert(checked.end(), made.begin(), made.end());
                    for (const COutPoint& outpoint : checked) {
                        BOOST_CHECK_EQUAL(Describe(with_overlay.tip.PeekCoin(outpoint)), Describe(with_cache.tip.PeekCoin(outpoint)));
                    }
                    with_overlay.tip.SanityCheck();
                }
            }
            both([](Chainstate& side) { side.tip.Flush(); });
            BOOST_CHECK(SameCoins(ReadDatabase(with_overlay.db), ReadDatabase(with_cache.db)));
            BOOST_CHECK_GT(flushed, 10U);
            BOOST_CHECK_GT(dropped, 5U);
            BOOST_TEST_MESSAGE(workers << " workers: " << flushed << " blocks flushed, " << dropped << " dropped, " << from_queue << " inputs from the queue");
            // With workers, inputs were handed over from the queue.
            if (workers > 0) BOOST_CHECK_GT(from_queue, 100U);
        }
    }
}

// A base whose read of one outpoint fails, as LevelDB's may: the failure
// happens on a worker, and is thrown again on the calling thread when it
// asks for that coin, exactly as it would be without workers. The other
// inputs are unaffected and the overlay stays usable.
BOOST_AUTO_TEST_CASE(failed_read_is_thrown_on_the_calling_thread)
{
    class FailingView : public CoinsViewEmpty
    {
    public:
        explicit FailingView(COutPoint bad) : m_bad{bad} {}
        std::optional<Coin> GetCoin(const COutPoint& outpoint) const override
        {
            if (outpoint == m_bad) throw std::runtime_error{"read failed"};
            return Coin{CTxOut{outpoint.n + 1, CScript(10, 0x51)}, 5, false};
        }

    private:
        COutPoint m_bad;
    };
    const auto out = [](uint32_t n) { return COutPoint{HashFromByte(0x22), n}; };
    FailingView base{out(2)};
    for (int workers : {0, 1, 3}) {
        BOOST_TEST_CONTEXT(workers << " workers")
        {
            CoinsViewOverlay overlay{&base, StartedPool(workers), /*deterministic=*/true};
            CBlock block;
            block.vtx.push_back(MakeCoinbase(9, COIN));
            for (uint32_t n = 0; n < 5; ++n) block.vtx.push_back(MakeTx({out(n)}, {Coin{CTxOut{1, CScript(5, 0x52)}, 0, false}}, n));
            const auto guard = overlay.StartFetching(block);
            BOOST_CHECK_EQUAL(overlay.AccessCoin(out(0)).out.nValue, 1);
            BOOST_CHECK_EQUAL(overlay.AccessCoin(out(1)).out.nValue, 2);
            BOOST_CHECK_EXCEPTION(overlay.AccessCoin(out(2)), std::runtime_error, [](const std::runtime_error& e) { return std::string{e.what()} == "read failed"; });
            BOOST_CHECK_EQUAL(overlay.AccessCoin(out(3)).out.nValue, 4);
            BOOST_CHECK_EQUAL(overlay.AccessCoin(out(4)).out.nValue, 5);
            BOOST_CHECK_EQUAL(overlay.InputsTaken(), workers > 0 ? 5U : 0U);
            BOOST_CHECK_EQUAL(overlay.GetCacheSize(), 4U);
        }
    }
}

// A pool that refuses the tasks (shutting down) leaves every input to be
// read when asked, with a warning; the answers are the same.
BOOST_AUTO_TEST_CASE(refused_tasks_fall_back_to_serial_reads)
{
    Chainstate chain{"refused"};
    const COutPoint outpoint{HashFromByte(0x23), 0};
    chain.tip.AddCoin(outpoint, Coin{CTxOut{7, CScript(5, 0x53)}, 3, false}, /*possible_overwrite=*/false);
    auto pool = StartedPool(2);
    CoinsViewOverlay overlay{&chain.tip, pool, /*deterministic=*/true};
    pool->Interrupt();
    CBlock block;
    block.vtx.push_back(MakeCoinbase(10, COIN));
    block.vtx.push_back(MakeTx({outpoint}, {Coin{CTxOut{1, CScript(5, 0x52)}, 0, false}}, 1));
    logging::StartCapture();
    const auto guard = overlay.StartFetching(block);
    const std::string log = logging::StopCapture();
    BOOST_CHECK_MESSAGE(log.find("Failed to submit prevout fetch tasks (Interrupted); falling back to single-threaded fetching for this block.") != std::string::npos, log);
    BOOST_CHECK_EQUAL(overlay.InputsQueued(), 0U);
    BOOST_CHECK_EQUAL(overlay.AccessCoin(outpoint).out.nValue, 7);
}

// The workers' count is what tells a replay whose workers read ahead from
// one whose calling thread read everything: the answers are the same. With
// the calling thread asking for nothing, only the workers can read the
// queued inputs; the totals add up over fetches, and stay 0 without workers.
BOOST_AUTO_TEST_CASE(inputs_read_by_workers_are_counted)
{
    Chainstate chain{"counted"};
    const auto out = [](uint32_t n) { return COutPoint{HashFromByte(0x25), n}; };
    for (uint32_t n = 0; n < 30; ++n) chain.tip.AddCoin(out(n), Coin{CTxOut{n + 1, CScript(5, 0x53)}, 3, false}, /*possible_overwrite=*/false);
    CBlock block;
    block.vtx.push_back(MakeCoinbase(12, COIN));
    for (uint32_t n = 0; n < 30; ++n) block.vtx.push_back(MakeTx({out(n)}, {Coin{CTxOut{1, CScript(5, 0x52)}, 0, false}}, n));
    // An input spending an output of the block is never queued.
    block.vtx.push_back(MakeTx({COutPoint{block.vtx[1]->GetHash(), 0}}, {Coin{CTxOut{1, CScript(5, 0x52)}, 0, false}}, 99));

    CoinsViewOverlay overlay{&chain.tip, StartedPool(2), /*deterministic=*/true};
    BOOST_CHECK_EQUAL(overlay.InputsQueuedTotal(), 0U);
    BOOST_CHECK_EQUAL(overlay.InputsReadByWorkers(), 0U);
    for (uint64_t fetch = 1; fetch <= 2; ++fetch) {
        const auto guard = overlay.StartFetching(block);
        BOOST_CHECK_EQUAL(overlay.InputsQueuedTotal(), 30 * fetch);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
        while (overlay.InputsReadByWorkers() < 30 * fetch && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds{1});
        }
        BOOST_CHECK_EQUAL(overlay.InputsReadByWorkers(), 30 * fetch);
    }

    CoinsViewOverlay serial{&chain.tip, nullptr, /*deterministic=*/true};
    {
        const auto guard = serial.StartFetching(block);
        BOOST_CHECK_EQUAL(serial.AccessCoin(out(0)).out.nValue, 1);
    }
    BOOST_CHECK_EQUAL(serial.InputsQueuedTotal(), 0U);
    BOOST_CHECK_EQUAL(serial.InputsReadByWorkers(), 0U);
}

// Each way out of a block ends its fetch: Flush before writing, Reset, the
// guard at the end of its scope, and a new StartFetching.
BOOST_AUTO_TEST_CASE(every_exit_ends_the_fetch)
{
    Chainstate chain{"exits"};
    const auto out = [](uint32_t n) { return COutPoint{HashFromByte(0x24), n}; };
    for (uint32_t n = 0; n < 50; ++n) chain.tip.AddCoin(out(n), Coin{CTxOut{n + 1, CScript(5, 0x53)}, 3, false}, /*possible_overwrite=*/false);
    CBlock block;
    block.vtx.push_back(MakeCoinbase(11, COIN));
    for (uint32_t n = 0; n < 50; ++n) block.vtx.push_back(MakeTx({out(n)}, {Coin{CTxOut{1, CScript(5, 0x52)}, 0, false}}, n));
    CoinsViewOverlay overlay{&chain.tip, StartedPool(2), /*deterministic=*/true};

    {
        const auto guard = overlay.StartFetching(block);
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), 50U);
        BOOST_CHECK(overlay.SpendCoin(out(0)));
        overlay.SetBestBlock(HashFromByte(0x03));
        overlay.Flush();
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), 0U);
        BOOST_CHECK(!chain.tip.PeekCoin(out(0)));
    }
    {
        const auto guard = overlay.StartFetching(block);
        BOOST_CHECK(overlay.SpendCoin(out(1)));
        overlay.Reset();
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), 0U);
        BOOST_CHECK_EQUAL(overlay.GetCacheSize(), 0U);
    }
    {
        const auto guard = overlay.StartFetching(block);
        BOOST_CHECK(overlay.SpendCoin(out(1)));
        const auto again = overlay.StartFetching(block);
        BOOST_CHECK_EQUAL(overlay.InputsTaken(), 0U);
        BOOST_CHECK_EQUAL(overlay.InputsQueued(), 50U);
    }
    BOOST_CHECK_EQUAL(overlay.InputsQueued(), 0U);
    BOOST_CHECK_EQUAL(overlay.GetCacheSize(), 0U);
    // Nothing but the flushed block reached the tip.
    BOOST_CHECK(chain.tip.PeekCoin(out(1)));
    BOOST_CHECK(chain.tip.GetBestBlock() == HashFromByte(0x03));
}

// For ThreadSanitizer: four workers reading a LevelDB chainstate and the
// tip cache above it while the calling thread connects big blocks in the
// overlay, takes inputs out of order, and abandons some blocks halfway.
// Between blocks the tip changes and is written to the database. Every
// answer is the tip's, read before the block.
BOOST_AUTO_TEST_CASE(concurrent_fetch_stress)
{
    TempDirFixture tmp;
    CCoinsViewDB db{DBParams{.path = tmp.m_path / "chainstate", .cache_bytes = 1 << 20}, CoinsViewOptions{}};
    CCoinsViewCache tip{&db, /*deterministic=*/true};
    TestRand rand{77};
    std::vector<COutPoint> universe;
    for (uint32_t n = 0; n < 3000; ++n) universe.emplace_back(HashFromByte(static_cast<unsigned char>(n % 251)), n);
    {
        CCoinsViewCache loader{&db};
        for (const COutPoint& outpoint : universe) {
            if (!rand.OneIn(5)) loader.AddCoin(outpoint, RandomCoin(rand, 1), /*possible_overwrite=*/false);
        }
        loader.SetBestBlock(HashFromByte(0x01));
        loader.Flush();
    }
    CoinsViewOverlay overlay{&tip, StartedPool(4), /*deterministic=*/true};
    size_t abandoned = 0, taken = 0;
    for (int round = 0; round < 25; ++round) {
        for (int i = 0; i < 100; ++i) {
            const COutPoint& outpoint = universe[rand.Below(universe.size())];
            if (rand.OneIn(2)) tip.HaveCoin(outpoint);
            else if (rand.OneIn(2)) tip.SpendCoin(outpoint);
            else tip.AddCoin(outpoint, RandomCoin(rand, round), /*possible_overwrite=*/true);
        }
        if (rand.OneIn(3)) tip.Sync();

        CBlock block;
        block.vtx.push_back(MakeCoinbase(static_cast<uint32_t>(round), COIN));
        std::set<COutPoint> used;
        while (used.size() < 800) {
            std::vector<COutPoint> inputs;
            for (int i = 0; i < 4; ++i) {
                const COutPoint& outpoint = universe[rand.Below(universe.size())];
                if (used.insert(outpoint).second) inputs.push_back(outpoint);
            }
            if (!inputs.empty()) block.vtx.push_back(MakeTx(inputs, {Coin{CTxOut{1, CScript(5, 0x52)}, 0, false}}, static_cast<uint32_t>(block.vtx.size())));
        }
        std::map<COutPoint, std::optional<Coin>> expected;
        for (const COutPoint& outpoint : used) expected[outpoint] = tip.PeekCoin(outpoint);

        const auto guard = overlay.StartFetching(block);
        const size_t stop_after = rand.OneIn(3) ? rand.Below(used.size()) : used.size();
        std::set<COutPoint> spent;
        for (size_t t = 1; t < block.vtx.size() && spent.size() < stop_after; ++t) {
            for (const CTxIn& in : block.vtx[t]->vin) {
                // Now and then an input of the block ahead of its turn.
                if (rand.OneIn(400)) {
                    const COutPoint& other = universe[rand.Below(universe.size())];
                    if (expected.contains(other)) {
                        BOOST_CHECK_EQUAL(Describe(overlay.GetCoin(other)), Describe(spent.contains(other) ? std::nullopt : expected.at(other)));
                    }
                }
                BOOST_CHECK_EQUAL(Describe(overlay.GetCoin(in.prevout)), Describe(expected.at(in.prevout)));
                overlay.SpendCoin(in.prevout);
                spent.insert(in.prevout);
            }
        }
        taken += overlay.InputsTaken();
        if (stop_after < used.size()) {
            ++abandoned;
            continue; // the guard resets the overlay while workers may still read
        }
        overlay.SetBestBlock(rand.Hash());
        overlay.Flush();
        for (const COutPoint& outpoint : used) BOOST_CHECK(!tip.PeekCoin(outpoint));
    }
    BOOST_TEST_MESSAGE(abandoned << " of 25 blocks abandoned, " << taken << " inputs from the queue");
    BOOST_CHECK_GT(abandoned, 3U);
    BOOST_CHECK_GT(taken, 5000U);
    tip.SanityCheck();
}

BOOST_AUTO_TEST_SUITE_END()
