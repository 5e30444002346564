// The cache's single-coin operations, each over N cached coins: AddCoin
// (insert), AccessCoin and HaveCoin (lookup, hit and miss), SpendCoin
// (a clean coin is flagged spent, a FRESH one is erased).
//
// N = 10,000 fits in the CPU caches; N = 1,000,000 (about 130 MB of map
// nodes) does not, so its lookups pay for memory. Every cache sits on a
// DiscardingView, so a miss costs the cache's own lookup and one virtual
// call: not measured is what a real parent (another cache, the database)
// adds to a miss. Keys are visited in a shuffled order.

#include <bench/bench_coins.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

namespace {

std::vector<COutPoint> ShuffledOutpoints(const std::vector<BenchCoin>& coins)
{
    std::vector<COutPoint> outpoints;
    outpoints.reserve(coins.size());
    for (const auto& [outpoint, coin] : coins) outpoints.push_back(outpoint);
    DeterministicShuffle(outpoints, /*stream=*/coins.size());
    return outpoints;
}

double Seconds(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// AddCoin of N new coins into an empty cache: FRESH and DIRTY inserts, as
// a block's new outputs are. The map already had N entries once, so its
// bucket array is sized and its node pool rewound, as after a flush: no
// rehash is timed. Timed per iteration: the N inserts, each with the copy
// of its coin AddCoins also makes. Not timed: emptying the cache.
void CacheAddCoin(benchmark::State& state)
{
    const auto& coins = SharedCoins(static_cast<uint64_t>(state.range(0)));
    DiscardingView base;
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    FillClean(cache, coins);
    cache.Reset();
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
        state.SetIterationTime(Seconds(start));
        cache.Reset();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * coins.size()));
}

enum class Lookup {
    ACCESS_HIT,
    ACCESS_MISS,
    HAVE_HIT,
    HAVE_MISS,
};

// One lookup per iteration in a cache of N clean coins. A miss asks the
// parent and caches nothing, so every miss is the same miss.
void CacheLookup(benchmark::State& state, Lookup lookup)
{
    const auto& coins = SharedCoins(static_cast<uint64_t>(state.range(0)));
    DiscardingView base;
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    FillClean(cache, coins);
    std::vector<COutPoint> keys = ShuffledOutpoints(coins);
    const bool miss = lookup == Lookup::ACCESS_MISS || lookup == Lookup::HAVE_MISS;
    if (miss) {
        for (COutPoint& key : keys) key = MissingOutpoint(key);
    }
    size_t next = 0;
    size_t found = 0;
    for (auto _ : state) {
        const COutPoint& key = keys[next];
        if (++next == keys.size()) next = 0;
        if (lookup == Lookup::ACCESS_HIT || lookup == Lookup::ACCESS_MISS) {
            const Coin& coin = cache.AccessCoin(key);
            benchmark::DoNotOptimize(&coin);
            found += !coin.IsSpent();
        } else {
            found += cache.HaveCoin(key);
        }
    }
    if (found != (miss ? 0 : static_cast<size_t>(state.iterations())) || cache.GetCacheSize() != coins.size()) {
        state.SkipWithError("a lookup found what it should not have, or missed what it should have");
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// SpendCoin of all N cached coins, with the spent coin moved out as
// UpdateCoins moves it into the undo data. Clean coins (read from the
// database) stay as spent DIRTY entries; FRESH coins (created since the
// last write) are erased. Timed: the N spends. Not timed: refilling.
void CacheSpendCoin(benchmark::State& state, bool fresh)
{
    const auto& coins = SharedCoins(static_cast<uint64_t>(state.range(0)));
    const std::vector<COutPoint> keys = ShuffledOutpoints(coins);
    DiscardingView base;
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    cache.ReserveEntries(coins.size());
    size_t spent = 0;
    for (auto _ : state) {
        cache.Reset();
        if (fresh) {
            for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
        } else {
            FillClean(cache, coins);
        }
        Coin undo;
        const auto start = std::chrono::steady_clock::now();
        for (const COutPoint& key : keys) spent += cache.SpendCoin(key, &undo);
        state.SetIterationTime(Seconds(start));
    }
    const size_t left = fresh ? 0 : coins.size();
    if (spent != static_cast<size_t>(state.iterations()) * coins.size() || cache.GetCacheSize() != left) {
        state.SkipWithError("the spends left the cache in an unexpected state");
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * coins.size()));
}

constexpr int64_t SMALL = 10'000;
constexpr int64_t LARGE = 1'000'000;

} // namespace

BENCHMARK(CacheAddCoin)->ArgName("N")->Arg(SMALL)->Arg(LARGE)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(CacheLookup, AccessCoinHit, Lookup::ACCESS_HIT)->ArgName("N")->Arg(SMALL)->Arg(LARGE);
BENCHMARK_CAPTURE(CacheLookup, AccessCoinMiss, Lookup::ACCESS_MISS)->ArgName("N")->Arg(SMALL)->Arg(LARGE);
BENCHMARK_CAPTURE(CacheLookup, HaveCoinHit, Lookup::HAVE_HIT)->ArgName("N")->Arg(SMALL)->Arg(LARGE);
BENCHMARK_CAPTURE(CacheLookup, HaveCoinMiss, Lookup::HAVE_MISS)->ArgName("N")->Arg(SMALL)->Arg(LARGE);
BENCHMARK_CAPTURE(CacheSpendCoin, Clean, /*fresh=*/false)->ArgName("N")->Arg(SMALL)->Arg(LARGE)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(CacheSpendCoin, Fresh, /*fresh=*/true)->ArgName("N")->Arg(SMALL)->Arg(LARGE)->UseManualTime()->Unit(benchmark::kMillisecond);
