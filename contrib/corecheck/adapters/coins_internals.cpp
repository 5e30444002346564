// The coins.h adapters (include/coins.h): Core's AccessByTxid, and the
// CCoinsViewCache internals Core's coins_tests read. The members are
// private in coinsdb; the standard lets an explicit template instantiation
// name them ([temp.spec.general]), which is how this one file reaches them
// without changing coins.h.

#include <coins.h>

namespace {

template <typename Tag, typename Tag::type Member>
struct Grant {
    friend typename Tag::type MemberOf(Tag) { return Member; }
};

struct CacheCoinsTag {
    using type = CCoinsMap CCoinsViewCache::*;
    friend type MemberOf(CacheCoinsTag);
};
struct CachedCoinsUsageTag {
    using type = size_t CCoinsViewCache::*;
    friend type MemberOf(CachedCoinsUsageTag);
};
struct SentinelTag {
    using type = CoinsCachePair CCoinsViewCache::*;
    friend type MemberOf(SentinelTag);
};

template struct Grant<CacheCoinsTag, &CCoinsViewCache::m_cache_coins>;
template struct Grant<CachedCoinsUsageTag, &CCoinsViewCache::m_cached_coins_usage>;
template struct Grant<SentinelTag, &CCoinsViewCache::m_sentinel>;

// Core's MAX_OUTPUTS_PER_BLOCK: a block's weight limit over the weight of
// the smallest output (4'000'000 / (4 * 9)).
constexpr uint32_t MAX_OUTPUTS_PER_BLOCK{111'111};

} // namespace

// The three members are mutable in coinsdb, so writing through them from a
// const cache is what coinsdb's own const methods do.
CCoinsMap& corecheck::CacheCoins(const CCoinsViewCache& cache)
{
    return const_cast<CCoinsViewCache&>(cache).*MemberOf(CacheCoinsTag{});
}

size_t& corecheck::CachedCoinsUsage(const CCoinsViewCache& cache)
{
    return const_cast<CCoinsViewCache&>(cache).*MemberOf(CachedCoinsUsageTag{});
}

CoinsCachePair& corecheck::Sentinel(const CCoinsViewCache& cache)
{
    return const_cast<CCoinsViewCache&>(cache).*MemberOf(SentinelTag{});
}

const Coin& AccessByTxid(const CCoinsViewCache& view, const Txid& txid)
{
    static const Coin empty;
    for (COutPoint out{txid, 0}; out.n < MAX_OUTPUTS_PER_BLOCK; ++out.n) {
        const Coin& coin{view.AccessCoin(out)};
        if (!coin.IsSpent()) return coin;
    }
    return empty;
}
