#ifndef COINSDB_TEST_UTIL_CACHE_INTERNALS_H
#define COINSDB_TEST_UTIL_CACHE_INTERNALS_H

// White-box access to a CCoinsViewCache's private map, flagged list,
// coin-usage counter and dirty count, for tests that put an entry
// in a state the public API never makes (FRESH alone, spent and clean) and
// check what the cache then does with it, as Bitcoin Core's coins_tests do
// through a subclass (the members are protected there). Whoever writes
// through these keeps the counters right, or means not to.
//
// The standard lets an explicit template instantiation name private
// members ([temp.spec.general]); the tags live in an anonymous namespace,
// so every file that includes this header instantiates its own.

#include <coins.h>

#include <cstddef>

namespace cache_internals_detail {
namespace {

template <typename Tag, typename Tag::type Member>
struct Grant {
    friend typename Tag::type MemberOf(Tag) { return Member; }
};

struct MapTag {
    using type = CCoinsMap CCoinsViewCache::*;
    friend type MemberOf(MapTag);
};
struct FlaggedTag {
    using type = CoinsFlaggedList CCoinsViewCache::*;
    friend type MemberOf(FlaggedTag);
};
struct UsageTag {
    using type = size_t CCoinsViewCache::*;
    friend type MemberOf(UsageTag);
};
struct DirtyCountTag {
    using type = size_t CCoinsViewCache::*;
    friend type MemberOf(DirtyCountTag);
};

template struct Grant<MapTag, &CCoinsViewCache::m_cache_coins>;
template struct Grant<FlaggedTag, &CCoinsViewCache::m_flagged>;
template struct Grant<UsageTag, &CCoinsViewCache::m_cached_coins_usage>;
template struct Grant<DirtyCountTag, &CCoinsViewCache::m_dirty_count>;

} // namespace
} // namespace cache_internals_detail

namespace {

// The cache's own members, writable: coinsdb's const methods write to the
// mutable ones too, and tests build states on a cache they own.
inline CCoinsMap& CacheMap(const CCoinsViewCache& cache)
{
    return const_cast<CCoinsViewCache&>(cache).*MemberOf(cache_internals_detail::MapTag{});
}
inline CoinsFlaggedList& CacheFlagged(const CCoinsViewCache& cache)
{
    return const_cast<CCoinsViewCache&>(cache).*MemberOf(cache_internals_detail::FlaggedTag{});
}
inline size_t& CacheUsage(const CCoinsViewCache& cache)
{
    return const_cast<CCoinsViewCache&>(cache).*MemberOf(cache_internals_detail::UsageTag{});
}
inline size_t& CacheDirtyCount(const CCoinsViewCache& cache)
{
    return const_cast<CCoinsViewCache&>(cache).*MemberOf(cache_internals_detail::DirtyCountTag{});
}

} // namespace

#endif // COINSDB_TEST_UTIL_CACHE_INTERNALS_H
