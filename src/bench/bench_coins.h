#ifndef COINSDB_BENCH_BENCH_COINS_H
#define COINSDB_BENCH_BENCH_COINS_H

// What the microbenchmarks share: mainnet-shaped coins and the views they
// run against.
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
#include <span>
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

// An outpoint no generated coin has: the generator's vouts stay far below
// this offset.
COutPoint MissingOutpoint(const COutPoint& present);

// `items` shuffled with a fixed seed: lookups and writes in this order land
// at random places in the cache's memory, as a block's inputs do.
void DeterministicShuffle(std::span<COutPoint> items, uint64_t stream);

// The empty view, but accepting every write and keeping none of it.
// Under a cache it makes a miss cost only the cache's own lookup plus one
// virtual call, and a Sync or Flush cost only the child's walk.
class DiscardingView final : public CoinsViewEmpty
{
public:
    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) override;
};

// Adds the coins to a cache over a DiscardingView and syncs it, leaving
// every coin cached and clean, as coins read from the database are.
void FillClean(CCoinsViewCache& cache, std::span<const BenchCoin> coins);

#endif // COINSDB_BENCH_BENCH_COINS_H
