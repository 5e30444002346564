// SHA256d as block replay uses it, through HashWriter (hash.h): a txid (a
// fresh writer per transaction, 226 bytes: one input, two outputs), a
// merkle node (one writer reused for 64-byte pairs), and a whole block's
// merkle root over 2000 txids. These are per-hash costs on the block
// reader's and the connecting thread's critical paths; not measured:
// serializing the transaction, or anything OpenSSL does once per process.
// And SHA-256's compression function alone on 1, 2 and 4 lanes
// (crypto/sha256_lanes.h), items being 64-byte blocks: what interleaving
// independent messages gains over one at a time, and over OpenSSL hashing
// one long message.

#include <consensus/merkle.h>
#include <crypto/sha256_lanes.h>
#include <hash.h>

#include <benchmark/benchmark.h>

#include <array>
#include <cstring>
#include <vector>

namespace {

std::vector<uint256> Leaves(size_t count)
{
    std::vector<uint256> leaves(count);
    uint64_t x = 0x2545f4914f6cdd1d;
    for (uint256& leaf : leaves) {
        for (size_t i = 0; i < 32; i += 8) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            std::memcpy(leaf.data() + i, &x, 8);
        }
    }
    return leaves;
}

void Sha256dTransaction(benchmark::State& state)
{
    std::array<std::byte, 226> tx{};
    for (size_t i = 0; i < tx.size(); ++i) tx[i] = std::byte(i * 131);
    for (auto _ : state) {
        HashWriter writer;
        writer.write(tx);
        const uint256 txid = writer.GetHash();
        benchmark::DoNotOptimize(txid);
        tx[0] = std::byte(txid.data()[0]);
    }
    state.SetItemsProcessed(state.iterations());
}

void Sha256dMerkleNode(benchmark::State& state)
{
    uint256 left = Leaves(1)[0];
    uint256 right = left;
    HashWriter writer;
    for (auto _ : state) {
        writer << left << right;
        right = left;
        left = writer.GetHash();
    }
    benchmark::DoNotOptimize(left);
    state.SetItemsProcessed(state.iterations());
}

void MerkleRoot(benchmark::State& state)
{
    const std::vector<uint256> leaves = Leaves(static_cast<size_t>(state.range(0)));
    for (auto _ : state) {
        bool mutated = false;
        const uint256 root = ComputeMerkleRoot(leaves, &mutated);
        benchmark::DoNotOptimize(root);
        if (mutated) state.SkipWithError("distinct leaves reported as mutated");
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

// OpenSSL's SHA-256 over a long message (CSHA256::Write of 64 KiB), items
// being 64-byte blocks: one stream at a time, what Sha256LanesCompress/1
// is to be compared with.
void Sha256OpenSslBlocks(benchmark::State& state)
{
    std::vector<unsigned char> message(64 * 1024, 0x5a);
    CSHA256 sha;
    std::array<unsigned char, CSHA256::OUTPUT_SIZE> digest;
    for (auto _ : state) {
        sha.Write(message).Finalize(digest);
        benchmark::DoNotOptimize(digest);
    }
    state.SetItemsProcessed(state.iterations() * message.size() / 64);
}

void Sha256LanesCompress(benchmark::State& state)
{
    const size_t lanes = static_cast<size_t>(state.range(0));
    if (!sha256_lanes::Available()) {
        state.SetLabel("no SHA extensions on this CPU: nothing measured");
        for (auto _ : state) {
        }
        return;
    }
    std::array<sha256_lanes::State, sha256_lanes::MAX_LANES> states;
    states.fill(sha256_lanes::INITIAL_STATE);
    std::array<std::array<unsigned char, sha256_lanes::BLOCK_SIZE>, sha256_lanes::MAX_LANES> blocks{};
    std::array<const unsigned char*, sha256_lanes::MAX_LANES> block_pointers;
    for (size_t lane = 0; lane < blocks.size(); ++lane) {
        blocks[lane][0] = static_cast<unsigned char>(lane);
        block_pointers[lane] = blocks[lane].data();
    }
    for (auto _ : state) sha256_lanes::Compress(states.data(), block_pointers.data(), lanes);
    benchmark::DoNotOptimize(states);
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

} // namespace

BENCHMARK(Sha256dTransaction);
BENCHMARK(Sha256dMerkleNode);
BENCHMARK(MerkleRoot)->Arg(2000);
BENCHMARK(Sha256OpenSslBlocks);
BENCHMARK(Sha256LanesCompress)->Arg(1)->Arg(2)->Arg(4);
