// Amount and script compression (compressor.h), one value per iteration.
//
// Amounts are those of generated coins (mainnet-shaped: dust-heavy, with
// round sums). Scripts are drawn per shape, 256 of each, and go through the
// stream forms a Coin's serialization uses (SerializeCompressedScript,
// UnserializeCompressedScript): VARINT(nSize) and the body, into a reused
// DataStream or out of a SpanReader. P2PKH, P2SH and both P2PK forms have
// special encodings; P2WPKH, P2WSH, P2TR and bare multisig (the "other"
// shape: a 1-of-3, longer than a CScript holds inline) take the generic
// one. Decompressing an uncompressed P2PK recomputes the key's y from x on
// the curve (libsecp256k1). Not measured: the amount's VARINT, the rest of
// a Coin.

#include <bench/bench_coins.h>

#include <compressor.h>
#include <streams.h>
#include <tools/coin_shape.h>
#include <tools/gen_random.h>

#include <benchmark/benchmark.h>

#include <vector>

namespace {

constexpr size_t SCRIPTS_PER_SHAPE = 256;
constexpr uint64_t AMOUNT_COINS = 10'000;

std::vector<uint64_t> Amounts()
{
    std::vector<uint64_t> amounts;
    for (const auto& [outpoint, coin] : SharedCoins(AMOUNT_COINS)) amounts.push_back(static_cast<uint64_t>(coin.out.nValue));
    return amounts;
}

void AmountCompress(benchmark::State& state)
{
    const std::vector<uint64_t> amounts = Amounts();
    size_t next = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(CompressAmount(amounts[next]));
        if (++next == amounts.size()) next = 0;
    }
    state.SetItemsProcessed(state.iterations());
}

void AmountDecompress(benchmark::State& state)
{
    std::vector<uint64_t> compressed = Amounts();
    for (uint64_t& value : compressed) value = CompressAmount(value);
    size_t next = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(DecompressAmount(compressed[next]));
        if (++next == compressed.size()) next = 0;
    }
    state.SetItemsProcessed(state.iterations());
}

std::vector<CScript> Scripts(ScriptType type)
{
    GenRandom rng{BENCH_SEED, /*stream=*/100 + static_cast<uint64_t>(type)};
    std::vector<CScript> scripts;
    for (size_t i = 0; i < SCRIPTS_PER_SHAPE; ++i) scripts.push_back(MakeScript(type, rng));
    return scripts;
}

void ScriptCompress(benchmark::State& state, ScriptType type)
{
    const std::vector<CScript> scripts = Scripts(type);
    DataStream stream;
    size_t next = 0;
    for (auto _ : state) {
        stream.Clear();
        SerializeCompressedScript(stream, scripts[next]);
        benchmark::DoNotOptimize(stream.Unread().data());
        if (++next == scripts.size()) next = 0;
    }
    state.SetItemsProcessed(state.iterations());
}

void ScriptDecompress(benchmark::State& state, ScriptType type)
{
    const std::vector<CScript> scripts = Scripts(type);
    DataStream serialized;
    for (const CScript& script : scripts) SerializeCompressedScript(serialized, script);
    const std::span<const std::byte> bytes = serialized.Unread();
    SpanReader reader{bytes};
    CScript script;
    size_t next = 0;
    for (auto _ : state) {
        UnserializeCompressedScript(reader, script);
        benchmark::DoNotOptimize(script.data());
        if (++next == scripts.size()) {
            next = 0;
            reader = SpanReader{bytes};
        }
    }
    // The last pass must have read back exactly the scripts written.
    if (script != scripts[(next + scripts.size() - 1) % scripts.size()]) state.SkipWithError("a script did not round-trip");
    state.SetItemsProcessed(state.iterations());
}

} // namespace

BENCHMARK(AmountCompress);
BENCHMARK(AmountDecompress);
BENCHMARK_CAPTURE(ScriptCompress, p2pkh, ScriptType::P2PKH);
BENCHMARK_CAPTURE(ScriptCompress, p2sh, ScriptType::P2SH);
BENCHMARK_CAPTURE(ScriptCompress, p2wpkh, ScriptType::P2WPKH);
BENCHMARK_CAPTURE(ScriptCompress, p2wsh, ScriptType::P2WSH);
BENCHMARK_CAPTURE(ScriptCompress, p2tr, ScriptType::P2TR);
BENCHMARK_CAPTURE(ScriptCompress, p2pk_compressed, ScriptType::P2PK_COMPRESSED);
BENCHMARK_CAPTURE(ScriptCompress, p2pk_uncompressed, ScriptType::P2PK_UNCOMPRESSED);
BENCHMARK_CAPTURE(ScriptCompress, bare_multisig, ScriptType::BARE_MULTISIG);
BENCHMARK_CAPTURE(ScriptDecompress, p2pkh, ScriptType::P2PKH);
BENCHMARK_CAPTURE(ScriptDecompress, p2sh, ScriptType::P2SH);
BENCHMARK_CAPTURE(ScriptDecompress, p2wpkh, ScriptType::P2WPKH);
BENCHMARK_CAPTURE(ScriptDecompress, p2wsh, ScriptType::P2WSH);
BENCHMARK_CAPTURE(ScriptDecompress, p2tr, ScriptType::P2TR);
BENCHMARK_CAPTURE(ScriptDecompress, p2pk_compressed, ScriptType::P2PK_COMPRESSED);
BENCHMARK_CAPTURE(ScriptDecompress, p2pk_uncompressed, ScriptType::P2PK_UNCOMPRESSED);
BENCHMARK_CAPTURE(ScriptDecompress, bare_multisig, ScriptType::BARE_MULTISIG);
