#ifndef COINSDB_UTIL_MEMORY_H
#define COINSDB_UTIL_MEMORY_H

#include <cstddef>
#include <optional>

// This process's resident set size in bytes (Linux /proc/self/statm), or
// nullopt where it cannot be read. Cheap enough to call once per database
// write batch, not once per coin.
std::optional<size_t> GetResidentBytes();

#endif // COINSDB_UTIL_MEMORY_H
