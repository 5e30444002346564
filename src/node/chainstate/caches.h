#ifndef COINSDB_NODE_CHAINSTATE_CACHES_H
#define COINSDB_NODE_CHAINSTATE_CACHES_H

#include <kernel/caches.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

class ArgsManager;

// -dbcache as Bitcoin Core (master b88bffe5) sizes and checks it:
//
// | machine (total RAM)            | default -dbcache        |
// |--------------------------------|-------------------------|
// | 64-bit, >= 4 GiB, or unknown   | 1 GiB (HIGH_DEFAULT...) |
// | anything else, or RAM unknown  | 450 MiB (DEFAULT_...)   |
//
// A -dbcache above max(DEFAULT_DB_CACHE, 3/4 of the RAM left after
// DBCACHE_WARNING_RESERVED_RAM) gets a start-up warning, not a refusal:
// the operator may know better (swap, a dedicated machine).
constexpr uint64_t DEFAULT_DB_CACHE{DEFAULT_KERNEL_CACHE};
// The -dbcache floor under Core's name in its node/caches.h:
// kernel/caches.h's MIN_DBCACHE_BYTES.
constexpr uint64_t MIN_DB_CACHE{MIN_DBCACHE_BYTES};
constexpr uint64_t HIGH_DEFAULT_DBCACHE{uint64_t{1} << 30};
constexpr uint64_t HIGH_DEFAULT_DBCACHE_MIN_TOTAL_RAM{uint64_t{4} << 30};
// What the operating system and the rest of the process are assumed to need.
constexpr uint64_t DBCACHE_WARNING_RESERVED_RAM{uint64_t{2} << 30};

namespace node {

// -dbcache, whose help text states the table above.
void RegisterCacheOptions(ArgsManager& args);

// Physical memory (sysconf), or nullopt when the system does not say.
std::optional<uint64_t> GetTotalRAM();

uint64_t GetDefaultDBCache(std::optional<uint64_t> total_ram);

constexpr bool ShouldWarnOversizedDbCache(uint64_t dbcache, uint64_t total_ram) noexcept
{
    const uint64_t left{total_ram > DBCACHE_WARNING_RESERVED_RAM ? total_ram - DBCACHE_WARNING_RESERVED_RAM : 0};
    return dbcache > std::max<uint64_t>(DEFAULT_DB_CACHE, left / 4 * 3);
}

// -dbcache in MiB (default GetDefaultDBCache(total_ram)), raised to
// MIN_DBCACHE_BYTES, split by kernel::CacheSizes. Values too large for
// size_t saturate. Returns nullopt with error set when the value is not a
// number.
std::optional<kernel::CacheSizes> CalculateCacheSizes(const ArgsManager& args, std::optional<uint64_t> total_ram, std::string& error);

// Bitcoin Core's split of -dbcache with its indexes (node/caches.h there),
// for code and tests written against Core. coinsdb has no indexes: its node
// calls the function above, which gives the kernel all of -dbcache, as this
// one does with no index flag set and n_indexes 0.
//
// | cache            | size, taken from what is left in this order        |
// |------------------|-----------------------------------------------------|
// | tx_index         | -txindex: min(1/8, MAX_TX_INDEX_CACHE), else 0      |
// | txospender_index | -txospenderindex: min(1/8, MAX_TXOSPENDER_...)      |
// | filter_index     | each of n_indexes: min(1/8, MAX_FILTER_...) / n     |
// | kernel           | the rest, split by kernel::CacheSizes               |
constexpr size_t MAX_TX_INDEX_CACHE{1024 * MiB};
constexpr size_t MAX_TXOSPENDER_INDEX_CACHE{1024 * MiB};
constexpr size_t MAX_FILTER_INDEX_CACHE{1024 * MiB};

struct IndexCacheSizes {
    size_t tx_index{0};
    size_t txospender_index{0};
    // Each filter index's; there are n_indexes of them.
    size_t filter_index{0};
};
struct CacheSizes {
    IndexCacheSizes index;
    kernel::CacheSizes kernel;
};
// The default -dbcache is this machine's (GetTotalRAM()). Throws
// std::invalid_argument for a -dbcache that is not a number (Core checks
// it before; coinsdb's node, through the function above).
CacheSizes CalculateCacheSizes(const ArgsManager& args, size_t n_indexes = 0);

} // namespace node

#endif // COINSDB_NODE_CHAINSTATE_CACHES_H
