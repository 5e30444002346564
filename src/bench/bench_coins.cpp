#include <bench/bench_coins.h>

#include <map>
#include <memory>

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
