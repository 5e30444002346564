#ifndef COINSDB_TEST_UTIL_DB_PARAMS_H
#define COINSDB_TEST_UTIL_DB_PARAMS_H

#include <dbwrapper.h>

#include <cstddef>
#include <filesystem>
#include <optional>

// A database on disk at path with a 1 MiB LevelDB cache: small enough that
// tests reach table files and compactions with little data.
// fail_writes_after_bytes makes writes fail once that many bytes went out
// (DBOptions::fail_writes_after_bytes), for disk-full tests.
inline DBParams OnDisk(const std::filesystem::path& path, bool obfuscate = true,
                       std::optional<size_t> fail_writes_after_bytes = std::nullopt)
{
    return DBParams{.path = path, .cache_bytes = 1 << 20, .obfuscate = obfuscate,
                    .options = {.fail_writes_after_bytes = fail_writes_after_bytes}};
}

#endif // COINSDB_TEST_UTIL_DB_PARAMS_H
