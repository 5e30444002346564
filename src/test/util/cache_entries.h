#ifndef COINSDB_TEST_UTIL_CACHE_ENTRIES_H
#define COINSDB_TEST_UTIL_CACHE_ENTRIES_H

#include <coins.h>

// A cache entry's flags as the DIRTY/FRESH bit mask the state tables use.
inline int FlagsOf(const CCoinsCacheEntry& entry)
{
    return (entry.IsDirty() ? CCoinsCacheEntry::DIRTY : 0) | (entry.IsFresh() ? CCoinsCacheEntry::FRESH : 0);
}

// Gives an unflagged entry exactly these flags, including states the cache
// itself never creates (FRESH alone), so tests can hand them to BatchWrite.
inline void SetFlags(CoinsCachePair& pair, CoinsCachePair& sentinel, int flags)
{
    if (flags & CCoinsCacheEntry::DIRTY) CCoinsCacheEntry::SetDirty(pair, sentinel);
    if (flags & CCoinsCacheEntry::FRESH) CCoinsCacheEntry::SetFresh(pair, sentinel);
}

// Entries in a map with their own flagged list, as a cache holds them, for
// handing hand-made states to BatchWrite. The sentinel comes first so that
// it outlives the entries linked to it; linked, the whole is immovable.
struct FlaggedMap {
    CoinsCachePair sentinel;
    CCoinsMapMemoryResource resource;
    CCoinsMap map{0, SaltedCoinsCacheHasher{/*deterministic=*/true}, std::equal_to<COutPoint>{}, CCoinsMap::allocator_type{&resource}};
    // The coins' heap bytes and the DIRTY entries, as a cache would count
    // them.
    size_t usage{0};
    size_t dirty_count{0};

    FlaggedMap() { sentinel.second.SelfRef(sentinel); }
    FlaggedMap(const FlaggedMap&) = delete;
    FlaggedMap& operator=(const FlaggedMap&) = delete;

    CoinsCachePair& Add(const COutPoint& outpoint, Coin coin, int flags)
    {
        auto [it, inserted] = map.try_emplace(outpoint, std::move(coin));
        if (inserted) usage += it->second.coin.DynamicMemoryUsage();
        if (!it->second.IsDirty() && (flags & CCoinsCacheEntry::DIRTY)) ++dirty_count;
        SetFlags(*it, sentinel, flags);
        return *it;
    }

    // Entries still on the flagged list: none once a write released them.
    size_t FlaggedCount() const
    {
        size_t count = 0;
        for (const CoinsCachePair* it = sentinel.second.Next(); it != &sentinel; it = it->second.Next()) ++count;
        return count;
    }

    // view.BatchWrite() of the flagged entries, as a Flush (will_erase) or
    // a Sync would hand them over.
    void WriteTo(CCoinsView& view, const uint256& best_block, bool will_erase = true)
    {
        CoinsViewCacheCursor cursor{dirty_count, sentinel, map, will_erase, &usage};
        view.BatchWrite(cursor, best_block);
    }
};

#endif // COINSDB_TEST_UTIL_CACHE_ENTRIES_H
