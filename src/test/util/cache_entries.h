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
inline void SetFlags(CCoinsCacheEntry& entry, int flags)
{
    if (flags & CCoinsCacheEntry::DIRTY) entry.SetDirty();
    if (flags & CCoinsCacheEntry::FRESH) entry.SetFresh();
}

#endif // COINSDB_TEST_UTIL_CACHE_ENTRIES_H
