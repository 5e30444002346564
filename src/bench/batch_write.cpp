// Writing coins to the chainstate database, at two depths.
//
// CDBBatchWrite: serializing k coins into a CDBBatch, with the key and
// value CCoinsViewDB::BatchWrite writes ('C' txid VARINT(vout) -> Coin) and
// an obfuscated database, so the value's XOR is paid. Nothing reaches
// LevelDB: the batch is staged and cleared (CDBWrapper::WriteBatch's sort
// and its hand-over to LevelDB are not measured). The database is
// memory-only; it only lends the batch its obfuscation key.
//
// CCoinsViewDBSync: CCoinsViewCache::Sync of k dirty coins into a
// CCoinsViewDB on disk, in a fresh LevelDB under $TMPDIR with the node's
// default coins-database cache (kernel/caches.h): the serialization, the
// sorted hand-over, and LevelDB's log write and memtable insert, plus
// whatever compaction LevelDB does meanwhile. Each timed Sync overwrites
// the same k coins, written once before timing. Not measured: fsync
// (BatchWrite does not sync), reads, the disk's own write-back.

#include <bench/bench_coins.h>

#include <dbwrapper.h>
#include <kernel/caches.h>
#include <txdb.h>

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <string>

namespace {

// The layout of txdb.cpp's coin key, which that file keeps private: the
// bytes, and so the cost, are the same.
struct ChainstateCoinKey {
    const COutPoint& outpoint;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        s << uint8_t{'C'} << outpoint.hash;
        WriteVarInt(s, outpoint.n);
    }
};

void CDBBatchWrite(benchmark::State& state)
{
    const auto& coins = SharedCoins(static_cast<uint64_t>(state.range(0)));
    DBParams params;
    params.path = "bench_batch";
    params.memory_only = true;
    params.obfuscate = true;
    CDBWrapper db{params};
    CDBBatch batch{db};
    size_t bytes = 0;
    for (auto _ : state) {
        for (const auto& [outpoint, coin] : coins) batch.Write(ChainstateCoinKey{outpoint}, coin);
        bytes += batch.SizeEstimate();
        batch.Clear();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * coins.size()));
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

uint256 BenchBlockHash()
{
    std::array<unsigned char, uint256::SIZE> bytes;
    bytes.fill(0xbe);
    return uint256{bytes};
}

void CCoinsViewDBSync(benchmark::State& state)
{
    const auto& coins = SharedCoins(static_cast<uint64_t>(state.range(0)));
    const std::filesystem::path path = std::filesystem::temp_directory_path() / ("coinsdb_bench_" + std::to_string(getpid()));
    {
        DBParams params;
        params.path = path;
        params.cache_bytes = kernel::CacheSizes{DEFAULT_KERNEL_CACHE}.coins_db;
        params.wipe_data = true;
        CCoinsViewDB db{params, CoinsViewOptions{}};
        CCoinsViewCache cache{&db, /*deterministic=*/true};
        cache.SetBestBlock(BenchBlockHash());
        for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
        cache.Sync();
        for (auto _ : state) {
            for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/true);
            const auto start = std::chrono::steady_clock::now();
            cache.Sync();
            state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        if (db.LastFlushStats().changed != coins.size() || cache.GetDirtyCount() != 0) {
            state.SkipWithError("the sync did not write every coin");
        }
        state.counters["batches"] = static_cast<double>(db.LastFlushStats().batches);
    }
    std::filesystem::remove_all(path);
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * coins.size()));
}

} // namespace

BENCHMARK(CDBBatchWrite)->ArgName("coins")->Arg(10'000)->Unit(benchmark::kMillisecond);
BENCHMARK(CCoinsViewDBSync)->ArgName("k")->Arg(1'000)->Arg(100'000)->UseManualTime()->Unit(benchmark::kMillisecond);
