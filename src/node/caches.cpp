#include <node/caches.h>

#include <util/args.h>
#include <util/strencodings.h>

#include <algorithm>

namespace node {

std::optional<kernel::CacheSizes> CalculateCacheSizes(const ArgsManager& args, std::string& error)
{
    size_t total = DEFAULT_KERNEL_CACHE;
    if (auto value = args.GetArg("dbcache")) {
        const auto mib = ParseInt64(*value);
        if (!mib) {
            error = "Invalid -dbcache value '" + *value + "': expected a size in MiB";
            return std::nullopt;
        }
        // Negative and tiny requests get the minimum, as upstream; sizes that
        // would overflow are capped instead of wrapping.
        const int64_t capped = std::clamp<int64_t>(*mib, 0, int64_t{1} << 40);
        total = std::max(static_cast<size_t>(capped) * MiB, MIN_DB_CACHE);
    }
    return kernel::CacheSizes{total};
}

} // namespace node
