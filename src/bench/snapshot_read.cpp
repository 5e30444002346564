// Reading a snapshot's coins the way loadtxoutset does: the node's own
// SnapshotMetadata::Read, then SnapshotCoinReader::Next until it returns
// false (node/snapshot/utxo_snapshot.h), through an AutoFile.
//
// The file is a generated snapshot of M coins (tools/snapshot_generator.h)
// held in memory and opened with fmemopen, so reading the disk or the page
// cache is not measured; stdio's buffering and the reader's per-field fread
// calls are, as in the node. Not measured: what the node does with each
// coin (hashing it, EmplaceCoinInternalDANGER, flushing).

#include <bench/bench_coins.h>

#include <kernel/chainparams.h>
#include <node/snapshot/utxo_snapshot.h>
#include <streams.h>
#include <tools/snapshot_generator.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace {

struct SnapshotBytes {
    std::vector<char> bytes;
    GeneratedSnapshotInfo info;
};

SnapshotBytes GenerateInMemory(uint64_t coins, const MessageStartChars& network)
{
    char* buffer = nullptr;
    size_t size = 0;
    SnapshotBytes snapshot;
    {
        AutoFile file{open_memstream(&buffer, &size)};
        if (file.IsNull()) throw std::runtime_error("open_memstream failed");
        snapshot.info = WriteGeneratedSnapshot(file, network, BenchSnapshotOptions(coins));
        // The buffer and its size are final once the stream is closed.
        if (file.fclose() != 0) throw std::runtime_error("writing the snapshot into memory failed");
    }
    snapshot.bytes.assign(buffer, buffer + size);
    std::free(buffer);
    return snapshot;
}

void SnapshotRead(benchmark::State& state)
{
    const CChainParams params = CChainParams::ForChain(ChainType::REGTEST);
    SnapshotBytes snapshot = GenerateInMemory(static_cast<uint64_t>(state.range(0)), params.MessageStart());
    uint64_t read = 0;
    for (auto _ : state) {
        // fmemopen wants a writable buffer even to read it.
        AutoFile file{fmemopen(snapshot.bytes.data(), snapshot.bytes.size(), "rb")};
        const SnapshotMetadata metadata = SnapshotMetadata::Read(file, params.MessageStart());
        SnapshotCoinReader reader{file, metadata, snapshot.info.base_height};
        COutPoint outpoint;
        Coin coin;
        while (reader.Next(outpoint, coin)) benchmark::DoNotOptimize(coin.out.nValue);
        read = reader.CoinsRead();
    }
    if (read != snapshot.info.coins) state.SkipWithError("the reader did not return every coin");
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * read));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * snapshot.bytes.size()));
}

} // namespace

BENCHMARK(SnapshotRead)->ArgName("coins")->Arg(100'000)->Unit(benchmark::kMillisecond);
