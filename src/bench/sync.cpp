// CCoinsViewCache::Sync with N coins cached, k of them dirty.
//
// A Sync walks only the flagged entries (design.md: Flush and Sync), so its
// cost should follow k and not N; N shows what the cache's size does to it
// through memory locality alone. The child holds N clean coins; before each
// timed Sync, k of them (spread evenly over the generated set, dirtied in a
// shuffled order) are overwritten with themselves, which flags them DIRTY
// but not FRESH, as a coin changed since the last write is. The parent is a
// CCoinsViewCache over an empty view that already holds those k coins, so
// each timed Sync overwrites k parent entries and adds no map node.
//
// Timed: the Sync alone (manual timing): the child's walk and release, the
// parent's lookup and copy of each coin. Not timed: dirtying the k coins,
// building the cache. Not measured: a Sync to CCoinsViewDB (see
// batch_write.cpp), spent coins (a Sync erases those from the child), FRESH
// entries.

#include <bench/bench_coins.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <vector>

namespace {

// The largest k: each fixture keeps this many outpoints to dirty.
constexpr uint64_t MAX_DIRTY = 1'000'000;

struct SyncFixture {
    explicit SyncFixture(uint64_t n) : coins{n}
    {
        child.ReserveEntries(n);
        // Every (n / kept)-th coin is kept, so any k up to MAX_DIRTY can be
        // spread evenly by taking every (kept / k)-th of these.
        const uint64_t kept = std::min(n, MAX_DIRTY);
        spread.reserve(kept);
        uint64_t index = 0;
        ForEachGeneratedCoin(n, [&](const COutPoint& outpoint, const Coin& coin) {
            child.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
            if (index++ % (n / kept) == 0 && spread.size() < kept) spread.push_back(outpoint);
        });
        child.Sync();
        child.SetBackend(parent);
    }

    uint64_t coins;
    DiscardingView base;
    CCoinsViewCache parent{&base, /*deterministic=*/true};
    // Starts over `base`, whose sync leaves every coin clean, then sits
    // over `parent`.
    CCoinsViewCache child{&base, /*deterministic=*/true};
    std::vector<COutPoint> spread;
};

// One fixture at a time: the 10M-coin one takes about 1.5 GB. The
// benchmarks run N-major, so each N is built once.
SyncFixture& FixtureFor(uint64_t n)
{
    static std::unique_ptr<SyncFixture> fixture;
    if (!fixture || fixture->coins != n) {
        fixture.reset();
        fixture = std::make_unique<SyncFixture>(n);
    }
    return *fixture;
}

void Sync(benchmark::State& state)
{
    const auto n = static_cast<uint64_t>(state.range(0));
    const auto k = static_cast<uint64_t>(state.range(1));
    SyncFixture& fixture = FixtureFor(n);

    std::vector<COutPoint> dirty;
    dirty.reserve(k);
    const uint64_t stride = fixture.spread.size() / k;
    for (uint64_t i = 0; i < k; ++i) dirty.push_back(fixture.spread[i * stride]);
    DeterministicShuffle(dirty, /*stream=*/k);

    CCoinsViewCache& child = fixture.child;
    const auto make_dirty = [&] {
        for (const COutPoint& outpoint : dirty) {
            child.AddCoin(outpoint, Coin{child.AccessCoin(outpoint)}, /*possible_overwrite=*/true);
        }
    };
    // From here on the parent holds the k coins: every timed Sync is the
    // same overwrite.
    fixture.parent.Reset();
    make_dirty();
    child.Sync();

    for (auto _ : state) {
        make_dirty();
        const auto start = std::chrono::steady_clock::now();
        child.Sync();
        const auto stop = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
    }
    if (child.GetDirtyCount() != 0 || child.GetCacheSize() != n || fixture.parent.GetCacheSize() != k) {
        state.SkipWithError("the sync left the caches in an unexpected state");
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * k));
}

void SyncSizes(benchmark::internal::Benchmark* bench)
{
    for (int64_t n : {100'000, 1'000'000, 10'000'000}) {
        for (int64_t k : {10, 10'000, 1'000'000}) {
            if (k <= n) bench->Args({n, k});
        }
    }
}

} // namespace

BENCHMARK(Sync)->Apply(SyncSizes)->ArgNames({"N", "k"})->UseManualTime()->Unit(benchmark::kMicrosecond);
