"""What run.sh compiles of Bitcoin Core's test files, and what it changes.

Read by prepare.py. Every entry says why; doc/design.md ("Bitcoin Core's
tests against coinsdb") explains the whole.
"""

# Core's test files (under <core-src>/src/test/), one suite or more each.
FILES = [
    "coins_tests.cpp",
    "coinscachepair_tests.cpp",
    "dbwrapper_tests.cpp",
    "compress_tests.cpp",
    "caches_tests.cpp",
    "coinsviewoverlay_tests.cpp",
]

# Core's test utilities compiled in as they are. test/util/random.h and
# test/util/poolresourcetester.h are used from <core-src> through the
# include path; setup_common.h and common.h are our stand-ins (include/).
UTILS = [
    "util/random.cpp",
]

# Cases of the stored copies that Bitcoin Core does not have: the closest
# stored dbwrapper_tests.cpp and compress_tests.cpp come from a fork of
# recent Core that added these. Removed, and not counted.
FORK_ONLY = {
    "dbwrapper_tests.cpp": {
        "block_index_key_prefix_preserves_parser_boundaries": "the fork's CDBIterator::KeyHasPrefix",
        "small_table_cache_preserves_reads_across_eviction": "the fork's patched LevelDB (Options::small_table_cache)",
        "read_cache_reclamation_preserves_db_contents": "the fork's DBParams::reclaim_read_cache",
        "iterator_failed_read_does_not_consume_storage": "the fork's CDBIterator::GetKey(key, direct_read)",
    },
    "compress_tests.cpp": {
        case: "the fork's ReconstructableScript serialization"
        for case in [
            "reconstructable_script_p2pkh",
            "reconstructable_script_p2sh",
            "reconstructable_script_p2tr",
            "reconstructable_script_p2wpkh",
            "reconstructable_script_p2wsh",
            "reconstructable_script_p2pk_odd",
            "reconstructable_script_p2pk_even",
            "reconstructable_script_p2pk_uncompressed",
            "reconstructable_script_unknown",
        ]
    },
}

# API-version rewrites. The closest stored coins_tests.cpp predates Core
# b88bffe5 and calls three coins.h APIs as Core did before changing them.
# Core's own later code (the stored fuzz test src/test/fuzz/coins_view.cpp
# and coinsviewoverlay_tests.cpp of the overlay's time) shows the
# b88bffe5 forms: BatchWrite, Flush and Sync return void, and
# CoinsViewCacheCursor takes the cache's dirty count first. coinsdb has
# those forms. Each rewrite turns the old call into the form Core's later
# code uses, and changes nothing else. With --as-stored they are not applied and
# the cases listed count as not compiled instead, the definitions listed
# being removed with them.
REWRITES = [
    {
        "id": "batchwrite-void",
        "file": "coins_tests.cpp",
        "why": "CCoinsView::BatchWrite returns bool in the stored file, void in Core b88bffe5 and coinsdb",
        "old": "    bool BatchWrite(CoinsViewCacheCursor& cursor, const uint256& hashBlock) override\n",
        "new": "    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& hashBlock) override\n",
        "count": 1,
        "cases": ["coins_cache_base_simulation_test", "updatecoins_simulation_test"],
        "drop": ["class CCoinsViewTest : public CCoinsView"],
    },
    {
        "id": "batchwrite-void-return",
        "file": "coins_tests.cpp",
        "why": "(the same change: the override's `return true;` goes)",
        "old": "            hashBestBlock_ = hashBlock;\n        return true;\n",
        "new": "            hashBestBlock_ = hashBlock;\n",
        "count": 1,
        "cases": [],
    },
    {
        "id": "flush-sync-void",
        "file": "coins_tests.cpp",
        "why": "CCoinsViewCache::Flush/Sync return bool in the stored file (BOOST_CHECK(cache.Flush())), void in Core b88bffe5 and coinsdb",
        "old": "BOOST_CHECK(should_erase ? stack[flushIndex]->Flush() : stack[flushIndex]->Sync());",
        "new": "should_erase ? stack[flushIndex]->Flush() : stack[flushIndex]->Sync();",
        "count": 1,
        "cases": ["coins_cache_base_simulation_test", "coins_cache_dbbase_simulation_test", "updatecoins_simulation_test"],
        "drop": ["struct CacheTest : BasicTestingSetup {"],
    },
    {
        "id": "flush-sync-void-2",
        "file": "coins_tests.cpp",
        "why": "(the same change)",
        "old": "BOOST_CHECK(should_erase ? stack.back()->Flush() : stack.back()->Sync());",
        "new": "should_erase ? stack.back()->Flush() : stack.back()->Sync();",
        "count": 1,
        "cases": [],
    },
    {
        "id": "flush-sync-void-3",
        "file": "coins_tests.cpp",
        "why": "(the same change)",
        "old": "BOOST_CHECK(stack[flushIndex]->Flush());",
        "new": "stack[flushIndex]->Flush();",
        "count": 1,
        "cases": [],
    },
    {
        "id": "flush-sync-void-4",
        "file": "coins_tests.cpp",
        "why": "(the same change)",
        "old": "BOOST_CHECK(stack.back()->Flush());",
        "new": "stack.back()->Flush();",
        "count": 1,
        "cases": [],
    },
    {
        "id": "cursor-dirty-count",
        "file": "coins_tests.cpp",
        "why": "CoinsViewCacheCursor(sentinel, map, will_erase) and bool BatchWrite in the stored file; Core b88bffe5 and coinsdb take the dirty count first and return void",
        "old": "    auto cursor{CoinsViewCacheCursor(sentinel, map, /*will_erase=*/true)};\n    BOOST_CHECK(view.BatchWrite(cursor, {}));\n",
        "new": "    size_t dirty_count{cache_coin && cache_coin->IsDirty()};\n    auto cursor{CoinsViewCacheCursor(dirty_count, sentinel, map, /*will_erase=*/true)};\n    view.BatchWrite(cursor, {});\n",
        "count": 1,
        "cases": ["ccoins_access", "ccoins_spend", "ccoins_add", "ccoins_write"],
        "drop": [
            "static void WriteCoinsViewEntry(",
            "class SingleEntryCacheTest",
            "static void CheckAccessCoin(",
            "static void CheckSpendCoins(",
            "static void CheckAddCoin(",
            "static void CheckWriteCoins(",
        ],
    },
    # CCoinsView became pure abstract in Core (PR #34124): a bare CCoinsView
    # can no longer be made, and a test view must override every member.
    # Core's later code takes CoinsViewEmpty::Get() for an empty root and
    # derives its test views from CoinsViewEmpty, as its coinscache_sim fuzz
    # test's CoinsViewBottom does (stored id 55051612295).
    {
        "id": "empty-root",
        "file": "coins_tests.cpp",
        "why": "a bare CCoinsView as the empty root in the stored file; CCoinsView is pure abstract in Core "
               "b88bffe5 and coinsdb, whose empty view is CoinsViewEmpty::Get()",
        "old": "    CCoinsView root;\n",
        "new": "    CoinsViewEmpty& root{CoinsViewEmpty::Get()};\n",
        "count": 3,
        "cases": [
            "ccoins_access",
            "ccoins_spend",
            "ccoins_add",
            "ccoins_write",
            "ccoins_addcoin_exception_keeps_usage_balanced",
            "ccoins_emplace_duplicate_keeps_usage_balanced",
        ],
        "drop": [
            "class SingleEntryCacheTest",
            "static void CheckAccessCoin(",
            "static void CheckSpendCoins(",
            "static void CheckAddCoin(",
            "static void CheckWriteCoins(",
        ],
    },
    {
        "id": "test-view-base",
        "file": "coins_tests.cpp",
        "why": "CCoinsViewTest derives from CCoinsView and overrides three of its members in the stored file; with "
               "CCoinsView pure abstract (Core b88bffe5 and coinsdb) a test view derives from CoinsViewEmpty",
        "old": "class CCoinsViewTest : public CCoinsView\n",
        "new": "class CCoinsViewTest : public CoinsViewEmpty\n",
        "count": 1,
        "cases": ["coins_cache_base_simulation_test", "updatecoins_simulation_test"],
        "drop": ["class CCoinsViewTest : public CCoinsView"],
    },
    # Core made every GetCoin return unspent coins only (PR #34207): its
    # CCoinsViewCache::FetchCoin asserts a parent's coin is unspent, and its
    # test views stopped returning the spent coins they keep. coinsdb's
    # cache refuses a spent coin from its parent the same way.
    {
        "id": "getcoin-unspent-only",
        "file": "coins_tests.cpp",
        "why": "CCoinsViewTest::GetCoin returns a spent coin it keeps half the time in the stored file (\"TODO spent "
               "coins shouldn't be returned\"); in Core b88bffe5 and coinsdb no view's GetCoin returns a spent coin",
        "old": "            if (!it->second.IsSpent() || m_rng.randbool()) {\n"
               "                return it->second; // TODO spent coins shouldn't be returned\n",
        "new": "            if (!it->second.IsSpent()) {\n"
               "                return it->second;\n",
        "count": 1,
        "cases": ["coins_cache_base_simulation_test", "updatecoins_simulation_test"],
        "drop": ["class CCoinsViewTest : public CCoinsView"],
    },
]

# Core cases that do not compile against coinsdb, with the helpers only
# they use, and why (the API coinsdb lacks). run.sh --explain shows the
# compiler's first error for each.
SKIPPED = [
    {
        "file": "coins_tests.cpp",
        "cases": ["coins_resource_is_used"],
        "why": "coins.h: CCoinsMapMemoryResource is coinsdb's SlabArena, not Core's PoolResource, so Core's "
               "test/util/poolresourcetester.h (CheckAllDataAccountedFor) and resource.ChunkSizeBytes() have "
               "nothing to apply to; the case also needs CCoinsMap::operator[] (a default entry for a new key)",
    },
]
