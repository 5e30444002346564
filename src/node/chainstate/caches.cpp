#include <node/chainstate/caches.h>

#include <util/args.h>
#include <util/strencodings.h>

#include <unistd.h>

#include <limits>
#include <stdexcept>

namespace node {

void RegisterCacheOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string opts = "Options";
    // Negative and tiny values get the minimum, as upstream.
    args.AddIntArg("-dbcache=<n>", "Maximum database cache size <n> MiB (minimum " + std::to_string(MIN_DBCACHE_BYTES / MiB) + ", default: " + std::to_string(GetDefaultDBCache(GetTotalRAM()) / MiB) + "; " + std::to_string(HIGH_DEFAULT_DBCACHE / MiB) + " on a 64-bit machine with at least " + std::to_string(HIGH_DEFAULT_DBCACHE_MIN_TOTAL_RAM >> 30) + " GiB of RAM, else " + std::to_string(DEFAULT_DB_CACHE / MiB) + "). Make sure you have enough RAM: a value above 3/4 of the RAM beyond " + std::to_string(DBCACHE_WARNING_RESERVED_RAM >> 30) + " GiB gets a warning. The in-memory UTXO set gets what the LevelDB caches leave.", F::NONE, opts,
                   {.min = INT64_MIN, .max = INT64_MAX, .expected = "a size in MiB", .port = false});
}

std::optional<uint64_t> GetTotalRAM()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return std::nullopt;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

uint64_t GetDefaultDBCache(std::optional<uint64_t> total_ram)
{
    if constexpr (sizeof(void*) >= 8) {
        if (total_ram.value_or(0) >= HIGH_DEFAULT_DBCACHE_MIN_TOTAL_RAM) return HIGH_DEFAULT_DBCACHE;
    }
    return DEFAULT_DB_CACHE;
}

std::optional<kernel::CacheSizes> CalculateCacheSizes(const ArgsManager& args, std::optional<uint64_t> total_ram, std::string& error)
{
    size_t total = GetDefaultDBCache(total_ram);
    if (auto value = args.GetArg("dbcache")) {
        const auto mib = ParseInt64(*value);
        if (!mib) {
            error = "Invalid -dbcache value '" + *value + "': expected a size in MiB";
            return std::nullopt;
        }
        // Negative and tiny requests get the minimum, as upstream; sizes that
        // would overflow size_t saturate instead of wrapping.
        const uint64_t non_negative = static_cast<uint64_t>(std::max<int64_t>(*mib, 0));
        const uint64_t max_mib = std::numeric_limits<size_t>::max() / MiB;
        total = std::max(non_negative > max_mib ? std::numeric_limits<size_t>::max() : static_cast<size_t>(non_negative) * MiB,
                         MIN_DBCACHE_BYTES);
    }
    return kernel::CacheSizes{total};
}

CacheSizes CalculateCacheSizes(const ArgsManager& args, size_t n_indexes)
{
    std::string error;
    const auto kernel_sizes = CalculateCacheSizes(args, GetTotalRAM(), error);
    if (!kernel_sizes) throw std::invalid_argument{error};
    size_t left = kernel_sizes->Total();
    // An index takes an eighth of what is left, up to its cap.
    const auto take = [&left](bool enabled, size_t cap) {
        const size_t size = enabled ? std::min(left / 8, cap) : 0;
        left -= size;
        return size;
    };
    IndexCacheSizes index;
    index.tx_index = take(args.GetBoolArg("txindex", false), MAX_TX_INDEX_CACHE);
    index.txospender_index = take(args.GetBoolArg("txospenderindex", false), MAX_TXOSPENDER_INDEX_CACHE);
    if (n_indexes > 0) {
        index.filter_index = std::min(left / 8, MAX_FILTER_INDEX_CACHE) / n_indexes;
        left -= index.filter_index * n_indexes;
    }
    return {index, kernel::CacheSizes{left}};
}

} // namespace node
