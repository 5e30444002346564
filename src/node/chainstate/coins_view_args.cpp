#include <node/chainstate/coins_view_args.h>

#include <dbwrapper.h>
#include <kernel/caches.h>
#include <txdb.h>
#include <util/args.h>
#include <util/strencodings.h>

namespace node {

std::optional<DbBatchSize> ParseDbBatchSize(const std::optional<std::string>& value, size_t dbcache_bytes, std::string& error)
{
    if (!value) return DbBatchSize{DEFAULT_DB_CACHE_BATCH, "default"};
    if (*value == "auto") {
        return DbBatchSize{GetDbBatchSize(dbcache_bytes), "derived from -dbcache=" + std::to_string(dbcache_bytes / MiB)};
    }
    const auto bytes = ParseInt64(*value);
    if (!bytes || *bytes <= 0 || static_cast<uint64_t>(*bytes) > MAX_DB_BATCH_OPTION) {
        error = "Invalid -dbbatchsize value '" + *value + "': expected a number of bytes from 1 to " +
                std::to_string(MAX_DB_BATCH_OPTION) + ", or auto";
        return std::nullopt;
    }
    return DbBatchSize{static_cast<size_t>(*bytes), "fixed by -dbbatchsize"};
}

std::optional<std::string> ReadCoinsViewArgs(const ArgsManager& args, size_t dbcache_bytes, CoinsViewOptions& options, std::string& error)
{
    const auto batch = ParseDbBatchSize(args.GetArg("dbbatchsize"), dbcache_bytes, error);
    if (!batch) return std::nullopt;
    options.batch_write_bytes = batch->bytes;
    options.ingest_tables = args.GetBoolArg("snapshotingest", options.ingest_tables);
    options.overlap_batches = OverlapBatches(dbcache_bytes, batch->bytes);
    if (auto value = args.GetArg("dbcrashratio")) {
        const auto ratio = ParseInt64(*value);
        if (!ratio || *ratio < 0 || *ratio > INT32_MAX) {
            error = "Invalid -dbcrashratio value '" + *value + "': expected a non-negative integer";
            return std::nullopt;
        }
        options.simulate_crash_ratio = static_cast<int>(*ratio);
    }
    return batch->source;
}

bool ReadChainstateDBArgs(const ArgsManager& args, DBOptions& options, std::string& error)
{
    const auto value = args.GetArg("debugstorage");
    if (!value) return true;
    options.storage = ParseStorageProfile(*value, error);
    return options.storage.has_value();
}

} // namespace node
