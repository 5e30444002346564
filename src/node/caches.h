#ifndef COINSDB_NODE_CACHES_H
#define COINSDB_NODE_CACHES_H

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
// The -dbcache floor under Core's name here (node/caches.h):
// kernel/caches.h's MIN_DBCACHE_BYTES.
constexpr uint64_t MIN_DB_CACHE{MIN_DBCACHE_BYTES};
constexpr uint64_t HIGH_DEFAULT_DBCACHE{uint64_t{1} << 30};
constexpr uint64_t HIGH_DEFAULT_DBCACHE_MIN_TOTAL_RAM{uint64_t{4} << 30};
// What the operating system and the rest of the process are assumed to need.
constexpr uint64_t DBCACHE_WARNING_RESERVED_RAM{uint64_t{2} << 30};

namespace node {

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

} // namespace node

#endif // COINSDB_NODE_CACHES_H
