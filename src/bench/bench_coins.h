#ifndef COINSDB_BENCH_BENCH_COINS_H
#define COINSDB_BENCH_BENCH_COINS_H

// What the microbenchmarks share: mainnet-shaped coins.
//
// Coins come from the snapshot generator (tools/snapshot_generator.h): its
// script-type mix, amounts, heights and txid/vout layout follow the mainnet
// UTXO set (tools/coin_shape.h), and a fixed seed gives the same coins on
// every run and host. They come in chainstate key order, which matters
// only where a benchmark says so.

#include <coins.h>
#include <tools/snapshot_generator.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

constexpr uint64_t BENCH_SEED = 20240420;

// The generator's options for `coins` coins with the benchmarks' seed.
SnapshotGeneratorOptions BenchSnapshotOptions(uint64_t coins);

using BenchCoin = std::pair<COutPoint, Coin>;

// The first `count` generated coins, one at a time, without keeping them.
void ForEachGeneratedCoin(uint64_t count, const std::function<void(const COutPoint&, const Coin&)>& fn);

// The first `count` generated coins, generated once per count and kept
// until the process exits.
const std::vector<BenchCoin>& SharedCoins(uint64_t count);

#endif // COINSDB_BENCH_BENCH_COINS_H
