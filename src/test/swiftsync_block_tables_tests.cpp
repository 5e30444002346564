// BlockTables (kernel/swiftsync/block_tables.h), the per-block txid and
// spent-outpoint sets of a hinted connect: against std::map and std::set
// models over many blocks of random sizes in one object (a later block
// must not see an earlier one's entries), with txids that share their
// leading bytes and outpoints that share their txid; the first position
// of a txid stays; room beyond what Start made is refused.

#include <kernel/swiftsync/block_tables.h>
#include <test/util/random.h>

#include <boost/test/unit_test.hpp>

#include <map>
#include <set>
#include <stdexcept>
#include <vector>

using kernel::swiftsync::BlockTables;

BOOST_AUTO_TEST_SUITE(swiftsync_block_tables_tests)

BOOST_AUTO_TEST_CASE(matches_a_model_block_after_block)
{
    TestRand rand{41};
    BlockTables tables{/*deterministic=*/true};
    // Txids of earlier blocks, looked up again in later ones.
    std::vector<uint256> earlier;
    for (int block = 0; block < 200; ++block) {
        // Mostly small blocks, some large, so the tables grow and are then
        // reused at a smaller size.
        const size_t txs = rand.OneIn(10) ? 1 + rand.Below(3000) : 1 + rand.Below(40);
        const size_t inputs = rand.Below(3 * txs);
        tables.Start(txs, inputs);

        std::map<uint256, uint32_t> positions;
        std::vector<uint256> txids;
        for (uint32_t i = 0; i < txs; ++i) {
            // Now and then a txid repeated, or one that shares 31 bytes
            // with the one before.
            uint256 txid = rand.Hash();
            if (!txids.empty() && rand.OneIn(8)) txid = txids[rand.Below(txids.size())];
            if (!txids.empty() && rand.OneIn(8)) {
                txid = txids.back();
                *txid.begin() ^= 1;
            }
            txids.push_back(txid);
            positions.emplace(txid, i);
            tables.AddTxid(txid, i);
        }
        for (const uint256& txid : txids) {
            const auto found = tables.PositionOf(txid);
            BOOST_REQUIRE(found);
            BOOST_REQUIRE_EQUAL(*found, positions.at(txid));
        }
        for (int i = 0; i < 20 && !earlier.empty(); ++i) {
            const uint256& old = earlier[rand.Below(earlier.size())];
            BOOST_REQUIRE_EQUAL(tables.PositionOf(old).has_value(), positions.contains(old));
        }
        BOOST_REQUIRE(!tables.PositionOf(rand.Hash()));

        std::set<COutPoint> spent;
        for (size_t i = 0; i < inputs; ++i) {
            // Outputs of this block's txids, repeats included, and others.
            const COutPoint outpoint{rand.Bool() ? txids[rand.Below(txids.size())] : rand.Hash(), static_cast<uint32_t>(rand.Below(4))};
            const bool fresh = spent.insert(outpoint).second;
            // A repeat is refused without taking room, so the room left
            // stays with the fresh ones: stop at the count given to Start.
            if (fresh && spent.size() > inputs) break;
            BOOST_REQUIRE_EQUAL(tables.AddSpent(outpoint), fresh);
        }
        earlier.insert(earlier.end(), txids.begin(), txids.begin() + std::min<size_t>(txids.size(), 5));
        BOOST_REQUIRE_GE(tables.TxidSlots(), 2 * txs);
        BOOST_REQUIRE_GE(tables.SpentSlots(), 2 * inputs);
    }
}

BOOST_AUTO_TEST_CASE(room_beyond_start_is_refused)
{
    TestRand rand{42};
    BlockTables tables;
    tables.Start(2, 1);
    tables.AddTxid(rand.Hash(), 0);
    const uint256 second = rand.Hash();
    tables.AddTxid(second, 1);
    // A txid already there takes no room.
    tables.AddTxid(second, 7);
    BOOST_CHECK_EQUAL(*tables.PositionOf(second), 1U);
    BOOST_CHECK_THROW(tables.AddTxid(rand.Hash(), 2), std::logic_error);
    const COutPoint outpoint{rand.Hash(), 0};
    BOOST_CHECK(tables.AddSpent(outpoint));
    BOOST_CHECK(!tables.AddSpent(outpoint));
    BOOST_CHECK_THROW(tables.AddSpent(COutPoint{rand.Hash(), 1}), std::logic_error);
    // The next block starts empty, with room again.
    tables.Start(1, 1);
    BOOST_CHECK(!tables.PositionOf(second));
    BOOST_CHECK(tables.AddSpent(outpoint));
}

BOOST_AUTO_TEST_SUITE_END()
