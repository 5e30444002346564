#ifndef COINSDB_KERNEL_CACHES_H
#define COINSDB_KERNEL_CACHES_H

#include <txdb.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

constexpr size_t MiB = size_t{1} << 20;

// -dbcache default: the total memory for the databases' caches and the
// in-memory coins cache together.
constexpr size_t DEFAULT_KERNEL_CACHE = 450 * MiB;
// The smallest -dbcache accepted; smaller requests are raised to it.
constexpr size_t MIN_DBCACHE_BYTES = 4 * MiB;
// LevelDB caches gain little past these sizes; the rest serves the coins
// cache, where it saves reads and, above all, writes.
constexpr size_t MAX_BLOCK_DB_CACHE = 2 * MiB;
constexpr size_t MAX_COINS_DB_CACHE = 8 * MiB;
// DEFAULT_DB_CACHE_BATCH, the -dbbatchsize default, lives in txdb.h beside
// the CoinsViewOptions it is the default of: the txdb layer cannot include
// this one.
// Bounds of a batch size derived from -dbcache (-dbbatchsize=auto).
constexpr size_t MIN_DB_CACHE_BATCH = 16 * MiB;
constexpr size_t MAX_DB_CACHE_BATCH = 256 * MiB;

// The write batch size -dbbatchsize=auto picks for a -dbcache total: one
// DEFAULT_DB_CACHE_BATCH per whole DEFAULT_KERNEL_CACHE, so the default
// cache gets the default batch. Dividing first keeps the steps whole
// (449 MiB is below one default cache, 899 MiB below two). The floor keeps
// small caches from writing in tiny batches; the ceiling bounds the memory a
// batch adds on top of the cache, past the point where larger batches stop
// paying off. Cannot overflow: the product never exceeds dbcache_bytes.
constexpr size_t GetDbBatchSize(size_t dbcache_bytes)
{
    return std::clamp((dbcache_bytes / DEFAULT_KERNEL_CACHE) * DEFAULT_DB_CACHE_BATCH, MIN_DB_CACHE_BATCH, MAX_DB_CACHE_BATCH);
}

// Whether flushes double-buffer their batches (CoinsViewOptions::
// overlap_batches) at a -dbcache total: only where a second batch is at
// most an eighth of it. Below that, the speed is not worth the memory: a
// load of coins with 10,000-byte scripts at -dbcache=64 peaked at 124 MiB
// over the idle node with two 32 MiB batches (64 + 32 + 21 staged), and
// the bound doc/reliability.md states is the cache plus one batch.
constexpr size_t MIN_CACHE_BATCHES_TO_OVERLAP = 8;
constexpr bool OverlapBatches(size_t dbcache_bytes, size_t batch_bytes)
{
    return dbcache_bytes / MIN_CACHE_BATCHES_TO_OVERLAP >= batch_bytes;
}

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

    constexpr size_t Total() const { return block_tree_db + coins_db + coins; }
};

} // namespace kernel

#endif // COINSDB_KERNEL_CACHES_H
