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
inline void SetFlags(CCoinsMap::iterator it, CoinsFlaggedList& list, int flags)
{
    if (flags & CCoinsCacheEntry::DIRTY) list.SetDirty(it);
    if (flags & CCoinsCacheEntry::FRESH) list.SetFresh(it);
}

// Entries in a map with their own flagged list, as a cache holds them, for
// handing hand-made states to BatchWrite. The list comes before the map so
// that it outlives the entries linked to it; the whole is immovable.
struct FlaggedMap {
    CCoinsMapMemoryResource resource;
    CoinsFlaggedList list{resource};
    CCoinsMap map{0, SaltedCoinsCacheHasher{/*deterministic=*/true}, std::equal_to<COutPoint>{}, CCoinsMap::allocator_type{&resource}};
    // The coins' heap bytes and the DIRTY entries, as a cache would count
    // them.
    size_t usage{0};
    size_t dirty_count{0};

    FlaggedMap() = default;
    FlaggedMap(const FlaggedMap&) = delete;
    FlaggedMap& operator=(const FlaggedMap&) = delete;

    CoinsCachePair& Add(const COutPoint& outpoint, Coin coin, int flags)
    {
        auto [it, inserted] = map.try_emplace(outpoint, std::move(coin));
        if (inserted) usage += it->second.coin.DynamicMemoryUsage();
        if (!it->second.IsDirty() && (flags & CCoinsCacheEntry::DIRTY)) ++dirty_count;
        SetFlags(it, list, flags);
        return *it;
    }

    // Entries still on the flagged list: none once a write released them.
    size_t FlaggedCount() const
    {
        size_t count = 0;
        for (const CoinsCachePair* it = list.First(); it != list.End(); it = list.Next(*it)) ++count;
        return count;
    }

    // view.BatchWrite() of the flagged entries, as a Flush (will_erase) or
    // a Sync would hand them over.
    void WriteTo(CCoinsView& view, const uint256& best_block, bool will_erase = true)
    {
        CoinsViewCacheCursor cursor{dirty_count, list, map, will_erase, &usage};
        view.BatchWrite(cursor, best_block);
    }
};

#endif // COINSDB_TEST_UTIL_CACHE_ENTRIES_H
