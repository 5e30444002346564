#ifndef COINSDB_MEMUSAGE_H
#define COINSDB_MEMUSAGE_H

#include <prevector.h>
#include <util/pool.h>

#include <cstddef>
#include <type_traits>
#include <unordered_map>
#include <vector>

// Estimates of heap memory as glibc's malloc hands it out on a 64-bit host:
// every allocation carries an 8-byte header and is rounded up to 16 bytes,
// with a 32-byte minimum. The coins cache budgets -dbcache with these.
namespace memusage {

constexpr size_t MallocUsage(size_t bytes)
{
    if (bytes == 0) return 0;
    return ((bytes + 31) >> 4) << 4;
}

template <typename T, typename A>
size_t DynamicUsage(const std::vector<T, A>& v)
{
    return MallocUsage(v.capacity() * sizeof(T));
}

// A prevector owns a heap block only once it outgrows its inline bytes.
template <unsigned int N, typename T>
size_t DynamicUsage(const prevector<N, T>& v)
{
    return MallocUsage(v.allocated_memory());
}

// libstdc++ keeps each element in its own node behind a singly linked next
// pointer (no cached hash code when the hasher is noexcept), plus one
// pointer per bucket.
template <typename K, typename V, typename H = std::hash<K>>
constexpr size_t UnorderedNodeSize()
{
    // libstdc++ stores each node's hash code too when the hasher may throw
    // (it assumes every other hasher worth caching for is one that may).
    constexpr bool code_cached = !std::is_nothrow_invocable_v<const H&, const K&>;
    return sizeof(void*) + sizeof(std::pair<const K, V>) + (code_cached ? sizeof(size_t) : 0);
}

template <typename K, typename V, typename H, typename E, typename A>
size_t DynamicUsage(const std::unordered_map<K, V, H, E, A>& m)
{
    return MallocUsage(UnorderedNodeSize<K, V, H>()) * m.size() + MallocUsage(sizeof(void*) * m.bucket_count());
}

// With nodes from a PoolResource: each node costs its pool block and no
// malloc header; the bucket array, larger than any pooled block once the
// map holds more than a handful of entries, comes from malloc.
template <typename K, typename V, typename H, typename E, size_t MAX_BLOCK_BYTES, size_t ALIGN>
size_t DynamicUsage(const std::unordered_map<K, V, H, E, PoolAllocator<std::pair<const K, V>, MAX_BLOCK_BYTES, ALIGN>>& m)
{
    using Resource = PoolResource<MAX_BLOCK_BYTES, ALIGN>;
    const size_t bucket_bytes = sizeof(void*) * m.bucket_count();
    const size_t buckets = Resource::IsPooled(bucket_bytes, alignof(void*)) ? Resource::BlockBytesFor(bucket_bytes) : MallocUsage(bucket_bytes);
    return Resource::BlockBytesFor(UnorderedNodeSize<K, V, H>()) * m.size() + buckets;
}

} // namespace memusage

#endif // COINSDB_MEMUSAGE_H
