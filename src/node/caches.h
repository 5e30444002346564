#ifndef COINSDB_NODE_CACHES_H
#define COINSDB_NODE_CACHES_H

#include <kernel/caches.h>

#include <optional>
#include <string>

class ArgsManager;

namespace node {

// -dbcache in MiB, raised to MIN_DB_CACHE, split by kernel::CacheSizes.
// Returns nullopt with error set when the value is not a number.
std::optional<kernel::CacheSizes> CalculateCacheSizes(const ArgsManager& args, std::string& error);

} // namespace node

#endif // COINSDB_NODE_CACHES_H
