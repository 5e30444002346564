#include <bench/bench_coins.h>

#include <tools/gen_random.h>

#include <map>
#include <memory>

namespace {

// Far above any vout the generator writes (batch payouts stop at a few
// thousand outputs) and below COutPoint::NULL_INDEX.
constexpr uint32_t MISSING_VOUT_OFFSET = 1'000'000'000;

} // namespace

SnapshotGeneratorOptions BenchSnapshotOptions(uint64_t coins)
{
    SnapshotGeneratorOptions options;
    options.seed = BENCH_SEED;
    options.coins = coins;
    return options;
}

void ForEachGeneratedCoin(uint64_t count, const std::function<void(const COutPoint&, const Coin&)>& fn)
{
    GeneratedCoinsCursor cursor{BenchSnapshotOptions(count)};
    COutPoint outpoint;
    Coin coin;
    for (; cursor.Valid(); cursor.Next()) {
        cursor.GetKey(outpoint);
        cursor.GetValue(coin);
        fn(outpoint, coin);
    }
}

const std::vector<BenchCoin>& SharedCoins(uint64_t count)
{
    // Benchmarks run one at a time on one thread: no lock.
    static std::map<uint64_t, std::unique_ptr<std::vector<BenchCoin>>> generated;
    auto& coins = generated[count];
    if (!coins) {
        coins = std::make_unique<std::vector<BenchCoin>>();
        coins->reserve(count);
        ForEachGeneratedCoin(count, [&](const COutPoint& outpoint, const Coin& coin) { coins->emplace_back(outpoint, coin); });
    }
    return *coins;
}

COutPoint MissingOutpoint(const COutPoint& present) { return COutPoint{present.hash, present.n + MISSING_VOUT_OFFSET}; }

void DeterministicShuffle(std::span<COutPoint> items, uint64_t stream)
{
    GenRandom rng{BENCH_SEED, stream};
    for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.Below(i)]);
}

void DiscardingView::BatchWrite(CoinsViewCacheCursor& cursor, const uint256&)
{
    for (CoinsCachePair* it = cursor.Begin(); it != cursor.End(); it = cursor.NextAndMaybeErase(*it)) {
    }
}

void FillClean(CCoinsViewCache& cache, std::span<const BenchCoin> coins)
{
    cache.ReserveEntries(cache.GetCacheSize() + coins.size());
    for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
    cache.Sync();
}
