#ifndef CORECHECK_COINS_H
#define CORECHECK_COINS_H

// Adapts two things Core's coins.h has and coinsdb's does not (doc/design.md
// lists what coins.h itself would need for the rest):
//  - AccessByTxid(view, txid), the first unspent output of a txid;
//  - access to the cache's internals. Core keeps CCoinsViewCache's map,
//    coin-usage counter and flagged-list sentinel protected, as cacheCoins,
//    cachedCoinsUsage and m_sentinel, and its coins_tests read them from a
//    subclass; coinsdb keeps them private, as m_cache_coins,
//    m_cached_coins_usage and m_sentinel. With CORECHECK_CACHE_INTERNALS
//    defined (run.sh does, for coins_tests.cpp only) the three names
//    become calls to adapters/coins_internals.cpp, which reaches the
//    private members.

#include_next <coins.h>

#include <primitives/transaction_identifier.h>

#include <cstddef>

const Coin& AccessByTxid(const CCoinsViewCache& view, const Txid& txid);

namespace corecheck {
CCoinsMap& CacheCoins(const CCoinsViewCache& cache);
size_t& CachedCoinsUsage(const CCoinsViewCache& cache);
CoinsCachePair& Sentinel(const CCoinsViewCache& cache);
} // namespace corecheck

#ifdef CORECHECK_CACHE_INTERNALS
#define cacheCoins (::corecheck::CacheCoins(*this))
#define cachedCoinsUsage (::corecheck::CachedCoinsUsage(*this))
#define m_sentinel (::corecheck::Sentinel(*this))
#endif

#endif // CORECHECK_COINS_H
