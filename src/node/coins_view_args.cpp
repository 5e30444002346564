#include <node/coins_view_args.h>

#include <kernel/caches.h>
#include <txdb.h>
#include <util/args.h>
#include <util/strencodings.h>

namespace node {

bool ReadCoinsViewArgs(const ArgsManager& args, CoinsViewOptions& options, std::string& error)
{
    options.batch_write_bytes = DEFAULT_DB_CACHE_BATCH;
    if (auto value = args.GetArg("dbbatchsize")) {
        const auto bytes = ParseInt64(*value);
        if (!bytes || *bytes <= 0) {
            error = "Invalid -dbbatchsize value '" + *value + "': expected a positive number of bytes";
            return false;
        }
        options.batch_write_bytes = static_cast<size_t>(*bytes);
    }
    if (auto value = args.GetArg("dbcrashratio")) {
        const auto ratio = ParseInt64(*value);
        if (!ratio || *ratio < 0 || *ratio > INT32_MAX) {
            error = "Invalid -dbcrashratio value '" + *value + "': expected a non-negative integer";
            return false;
        }
        options.simulate_crash_ratio = static_cast<int>(*ratio);
    }
    return true;
}

} // namespace node
