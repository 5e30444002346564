#ifndef COINSDB_MEMUSAGE_H
#define COINSDB_MEMUSAGE_H

#include <prevector.h>

#include <cstddef>
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

} // namespace memusage

#endif // COINSDB_MEMUSAGE_H
