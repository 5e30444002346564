#ifndef COINSDB_NODE_CHAINSTATE_COINS_VIEW_ARGS_H
#define COINSDB_NODE_CHAINSTATE_COINS_VIEW_ARGS_H

#include <cstddef>
#include <optional>
#include <string>

class ArgsManager;
struct CoinsViewOptions;
struct DBOptions;

namespace node {

// -dbbatchsize, -snapshotingest and -dbcrashratio, which ReadCoinsViewArgs
// reads, and -debugstorage, which ReadChainstateDBArgs reads.
void RegisterCoinsViewOptions(ArgsManager& args);

// -dbbatchsize, value by value:
//   value                    batch size                         logged as
//   (unset)                  DEFAULT_DB_CACHE_BATCH (32 MiB)    default
//   1 .. 4294967296          that many bytes                    fixed by -dbbatchsize
//   auto                     GetDbBatchSize(-dbcache total)     derived from -dbcache=<MiB>
//   0, -nodbbatchsize, negative, not a number, above 4 GiB: start-up error
// The 4 GiB ceiling only catches typos: a batch is held in memory whole,
// and the auto mode never goes past MAX_DB_CACHE_BATCH.
constexpr size_t MAX_DB_BATCH_OPTION = size_t{4} << 30;

struct DbBatchSize {
    size_t bytes;
    // How the startup log explains the size (the right column above).
    std::string source;
};

// The table above for one -dbbatchsize value (nullopt when unset).
// Returns nullopt with error set for a rejected value.
std::optional<DbBatchSize> ParseDbBatchSize(const std::optional<std::string>& value, size_t dbcache_bytes, std::string& error);

// Fills CoinsViewOptions from -dbbatchsize, -snapshotingest and -dbcrashratio; dbcache_bytes
// is the -dbcache total the auto mode scales with. Returns the batch size's
// source for the startup log, or nullopt with error set for a bad value.
std::optional<std::string> ReadCoinsViewArgs(const ArgsManager& args, size_t dbcache_bytes, CoinsViewOptions& options, std::string& error);

// Fills the chainstate databases' DBOptions from -debugstorage (table in
// storage_profile.h). False, with error set, for a bad value.
bool ReadChainstateDBArgs(const ArgsManager& args, DBOptions& options, std::string& error);

} // namespace node

#endif // COINSDB_NODE_CHAINSTATE_COINS_VIEW_ARGS_H
