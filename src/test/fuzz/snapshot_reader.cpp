// snapshot_reader: arbitrary bytes as a regtest snapshot file. Every input
// must end in a clean SnapshotError or in coins that pass the loader's
// checks; nothing else may escape and nothing may crash.

#include <test/fuzz/fuzz.h>

#include <kernel/chainparams.h>
#include <node/snapshot/utxo_snapshot.h>
#include <primitives/amount.h>
#include <streams.h>

#include <cstdio>
#include <vector>

namespace {

// The base height used when the metadata names a block regtest has no
// assumeutxo entry for. Above the tip of the shared/vectors chain (160), so
// that snapshots Bitcoin Core dumped there are read to the end: the fuzzer
// should not have to guess a trusted block hash before it reaches the coins.
constexpr int UNKNOWN_BASE_HEIGHT = 200;

const CChainParams& Regtest()
{
    static const CChainParams params = CChainParams::ForChain(ChainType::REGTEST);
    return params;
}

} // namespace

SnapshotReadOutcome ReadSnapshotForFuzz(std::span<const uint8_t> file_bytes)
{
    // The loader reads through a FILE*; fmemopen gives it one over a private
    // copy (fmemopen wants a writable buffer even for reading).
    std::vector<uint8_t> buffer(file_bytes.begin(), file_bytes.end());
    AutoFile file{fmemopen(buffer.data(), buffer.size(), "rb")};
    FUZZ_CHECK(!file.IsNull());

    SnapshotReadOutcome outcome;
    try {
        const SnapshotMetadata metadata = SnapshotMetadata::Read(file, Regtest().MessageStart());
        outcome.coins_announced = metadata.coins_count;
        int base_height = UNKNOWN_BASE_HEIGHT;
        try {
            base_height = CheckSnapshotBase(metadata, Regtest()).height;
        } catch (const SnapshotError& e) {
            FUZZ_CHECK(!Regtest().AssumeutxoForBlockhash(metadata.base_blockhash));
        }

        SnapshotCoinReader reader{file, metadata, base_height};
        COutPoint outpoint;
        Coin coin;
        while (reader.Next(outpoint, coin)) {
            ++outcome.coins_read;
            FUZZ_CHECK(reader.CoinsRead() == outcome.coins_read);
            FUZZ_CHECK(outcome.coins_read <= metadata.coins_count);
            // What the loader relies on before it puts a coin in the cache
            // without any further check (EmplaceCoinInternalDANGER).
            FUZZ_CHECK(!coin.IsSpent());
            FUZZ_CHECK(coin.nHeight <= static_cast<uint32_t>(base_height));
            FUZZ_CHECK(MoneyRange(coin.out.nValue));
            FUZZ_CHECK(outpoint.n != COutPoint::NULL_INDEX);
            CheckCoinRoundTrip(coin);
        }
        FUZZ_CHECK(outcome.coins_read == metadata.coins_count);
        // Next() returning false promises the file ended there.
        FUZZ_CHECK(file.AtEnd());
        outcome.complete = true;
    } catch (const SnapshotError& e) {
        outcome.error = e.what();
        FUZZ_CHECK(!outcome.error.empty());
    }
    return outcome;
}

void FuzzSnapshotReader(std::span<const uint8_t> input)
{
    const SnapshotReadOutcome outcome = ReadSnapshotForFuzz(input);
    // A refusal and a complete read are the only two ends.
    FUZZ_CHECK(outcome.complete != !outcome.error.empty());
}
