#ifndef COINSDB_KERNEL_CACHES_H
#define COINSDB_KERNEL_CACHES_H

#include <algorithm>
#include <cstddef>
#include <cstdint>

constexpr size_t MiB = size_t{1} << 20;

// -dbcache default: the total memory for the databases' caches and the
// in-memory coins cache together.
constexpr size_t DEFAULT_KERNEL_CACHE = 450 * MiB;
// The smallest -dbcache accepted; smaller requests are raised to it.
constexpr size_t MIN_DB_CACHE = 4 * MiB;
// LevelDB caches gain little past these sizes; the rest serves the coins
// cache, where it saves reads and, above all, writes.
constexpr size_t MAX_BLOCK_DB_CACHE = 2 * MiB;
constexpr size_t MAX_COINS_DB_CACHE = 8 * MiB;
// -dbbatchsize default: a flush hands LevelDB its changes in batches of
// about this many bytes. Larger batches mean fewer, cheaper writes; the
// serialized batch is held in memory on top of the cache.
constexpr size_t DEFAULT_DB_CACHE_BATCH = 32 * MiB;

namespace kernel {

// How a -dbcache total is split.
struct CacheSizes {
    size_t block_tree_db;
    size_t coins_db;
    size_t coins;

    explicit constexpr CacheSizes(size_t total)
        : block_tree_db{std::min(total / 8, MAX_BLOCK_DB_CACHE)},
          coins_db{std::min((total - block_tree_db) / 2, MAX_COINS_DB_CACHE)},
          coins{total - block_tree_db - coins_db}
    {
    }
};

} // namespace kernel

#endif // COINSDB_KERNEL_CACHES_H
