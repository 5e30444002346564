// The coins.h adapters (include/coins.h): Core's AccessByTxid, and the
// CCoinsViewCache internals Core's coins_tests read. The members are
// private in coinsdb; coinsdb's own white-box tests reach them through
// test/util/cache_internals.h, and so does this file.

#include <coins.h>
#include <test/util/cache_internals.h>

namespace {

// Core's MAX_OUTPUTS_PER_BLOCK: a block's weight limit over the weight of
// the smallest output (4'000'000 / (4 * 9)).
constexpr uint32_t MAX_OUTPUTS_PER_BLOCK{111'111};

} // namespace

CCoinsMap& corecheck::CacheCoins(const CCoinsViewCache& cache) { return CacheMap(cache); }
size_t& corecheck::CachedCoinsUsage(const CCoinsViewCache& cache) { return CacheUsage(cache); }
CoinsCachePair& corecheck::Sentinel(const CCoinsViewCache& cache) { return CacheSentinel(cache); }

const Coin& AccessByTxid(const CCoinsViewCache& view, const Txid& txid)
{
    static const Coin empty;
    for (COutPoint out{txid, 0}; out.n < MAX_OUTPUTS_PER_BLOCK; ++out.n) {
        const Coin& coin{view.AccessCoin(out)};
        if (!coin.IsSpent()) return coin;
    }
    return empty;
}
