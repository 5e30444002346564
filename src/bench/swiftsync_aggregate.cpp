// SwiftSync's aggregate (kernel/swiftsync/aggregate.h), one outpoint per
// iteration: the salted SHA-256 of the outpoint, then its addition to the
// 256-bit sum; the same for a block's worth of outpoints at once (AddAll,
// four hashed side by side where the CPU has the SHA extensions; items are
// outpoints); and, for comparison, the same hash through CSHA256 from
// scratch (the salt absorbed again for every outpoint). A hinted replay
// pays this once per output it does not store and once per input. Not measured: gathering the outpoints from a block, or
// spreading the hashing over threads.

#include <crypto/sha256.h>
#include <kernel/swiftsync/aggregate.h>

#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

namespace {

using kernel::swiftsync::AggregateSum;

std::vector<COutPoint> Outpoints()
{
    std::vector<COutPoint> outpoints(4096);
    uint64_t x = 0x9e3779b97f4a7c15;
    for (COutPoint& outpoint : outpoints) {
        for (size_t i = 0; i < 32; i += 8) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            std::memcpy(outpoint.hash.data() + i, &x, 8);
        }
        outpoint.n = static_cast<uint32_t>(x >> 60);
    }
    return outpoints;
}

void SwiftSyncAggregateAdd(benchmark::State& state)
{
    const std::vector<COutPoint> outpoints = Outpoints();
    const kernel::swiftsync::OutpointHasher hasher{kernel::swiftsync::NewSalt()};
    AggregateSum sum;
    size_t next = 0;
    for (auto _ : state) {
        sum.Add(hasher.Hash(outpoints[next]));
        if (++next == outpoints.size()) next = 0;
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}

void SwiftSyncAggregateAddAll(benchmark::State& state)
{
    const std::vector<COutPoint> outpoints = Outpoints();
    const kernel::swiftsync::OutpointHasher hasher{kernel::swiftsync::NewSalt()};
    AggregateSum sum;
    for (auto _ : state) hasher.AddAll(outpoints, sum);
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations() * outpoints.size());
}

void SwiftSyncHashFromScratch(benchmark::State& state)
{
    const std::vector<COutPoint> outpoints = Outpoints();
    const kernel::swiftsync::Salt salt = kernel::swiftsync::NewSalt();
    CSHA256 sha;
    std::array<unsigned char, 32> out;
    size_t next = 0;
    for (auto _ : state) {
        sha.Write(salt).Write({outpoints[next].hash.data(), 32});
        const uint32_t n = outpoints[next].n;
        sha.Write({reinterpret_cast<const unsigned char*>(&n), 4}).Finalize(out);
        benchmark::DoNotOptimize(out);
        if (++next == outpoints.size()) next = 0;
    }
    state.SetItemsProcessed(state.iterations());
}

} // namespace

BENCHMARK(SwiftSyncAggregateAdd);
BENCHMARK(SwiftSyncAggregateAddAll);
BENCHMARK(SwiftSyncHashFromScratch);
