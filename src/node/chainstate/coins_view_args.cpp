#include <node/chainstate/coins_view_args.h>

#include <dbwrapper.h>
#include <kernel/caches.h>
#include <storage_profile.h>
#include <txdb.h>
#include <util/args.h>
#include <util/strencodings.h>

namespace node {

void RegisterCoinsViewOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string debug = "Debugging/Testing options";
    args.AddArg("-dbbatchsize=<n|auto>",
                "Maximum database write batch size in bytes, 1 to " + std::to_string(MAX_DB_BATCH_OPTION) + ", or auto: " + std::to_string(DEFAULT_DB_CACHE_BATCH / MiB) +
                    " MiB per whole " + std::to_string(DEFAULT_KERNEL_CACHE / MiB) + " MiB of -dbcache, at least " +
                    std::to_string(MIN_DB_CACHE_BATCH / MiB) + " MiB and at most " + std::to_string(MAX_DB_CACHE_BATCH / MiB) +
                    " MiB (default: " + std::to_string(DEFAULT_DB_CACHE_BATCH) + ")",
                F::DEBUG_ONLY, debug);
    args.AddArg("-debugstorage=<hdd|sdcard|MB/s,sync ms[,seek ms]>", "Make the chainstate databases' files behave as if on a slower device, for flush benchmarks: hdd is " + HDD_PROFILE.Rates() + ", sdcard " + SDCARD_PROFILE.Rates() + "; or give the write rate in MB/s, the delay of a sync and, optionally, of a non-sequential read in ms (default: none)", F::DEBUG_ONLY, debug);
    args.AddArg("-snapshotingest", "With -snapshotbulkload, hand a bulk load's batches in key order to LevelDB as table files coinsdb builds and installs itself; 0 writes them through LevelDB's own write path and leaves the rest of the bulk load as it is, to tell the two apart (default: 1)", F::DEBUG_ONLY, debug);
    args.AddArg("-ingesttablebuilder", "Build the table files a bulk load ingests with LevelDB's own TableBuilder instead of coinsdb's table encoder; the files are the same, only the CPU differs (measurement only; default: 0)", F::DEBUG_ONLY, debug);
    args.AddIntArg("-dbcrashratio=<n>", "Randomly crash while writing a flush, 1 in <n> batches (default: 0)", F::DEBUG_ONLY, debug, ArgsManager::IntForm::NonNegative());
}

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
    options.tables_by_leveldb = args.GetBoolArg("ingesttablebuilder", options.tables_by_leveldb);
    const auto value = args.GetArg("debugstorage");
    if (!value) return true;
    options.storage = ParseStorageProfile(*value, error);
    return options.storage.has_value();
}

} // namespace node
