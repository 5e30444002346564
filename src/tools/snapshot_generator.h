#ifndef COINSDB_TOOLS_SNAPSHOT_GENERATOR_H
#define COINSDB_TOOLS_SNAPSHOT_GENERATOR_H

// Synthetic UTXO snapshots (version 2, node/snapshot/utxo_snapshot.h) with a
// mainnet-like shape, for the demo and the benchmarks.
//
// Deterministic: the file is a function of the options alone (seed, coins,
// base height, base block hash, network). The same options give identical
// bytes on every run and host; gensnapshot_tests checks it.
//
// Streaming: coins are generated one transaction at a time, already in
// chainstate key order (tx_layout.h), fed to WriteSnapshot through a cursor
// and hashed for hash_serialized_3 on the way. Memory stays constant in the
// number of coins: one transaction's outputs, plus one bit per block height
// to give each coinbase its own block.

#include <coins.h>
#include <hash.h>
#include <kernel/chainparams.h>
#include <primitives/amount.h>
#include <streams.h>
#include <tools/coin_shape.h>
#include <tools/gen_random.h>
#include <tools/tx_layout.h>
#include <uint256.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct SnapshotGeneratorOptions {
    uint64_t seed{0};
    uint64_t coins{0};
    // Height of the (fictitious) block the snapshot is the state after.
    int base_height{840'000};
    // Null: derived from seed, coins and height (see BaseBlockhashFor).
    uint256 base_blockhash;
    // The amounts never add up to more: a coin drawn past it is clamped,
    // down to zero. The default shape averages about 0.165 BTC per coin, so
    // MAX_MONEY lasts for about 125 million coins.
    CAmount max_total{MAX_MONEY};
};

// What gettxoutsetinfo would report for the generated set, and what
// -assumeutxo needs to trust it.
struct GeneratedSnapshotInfo {
    uint256 base_blockhash;
    int base_height{0};
    uint64_t coins{0};
    uint64_t transactions{0};
    uint64_t coinbase_transactions{0};
    CAmount total_amount{0};
    uint64_t bogosize{0};
    uint256 hash_serialized;
    // A chain that could hold this set has at least one coinbase per block
    // (genesis included) plus every non-coinbase transaction in the set.
    uint64_t chain_tx_count{0};
};

// options.base_blockhash, or a hash of the other options when it is null.
uint256 BaseBlockhashFor(const SnapshotGeneratorOptions& options);

// Yields the generated coins in key order. Info() is complete once Valid()
// turns false.
class GeneratedCoinsCursor final : public CCoinsViewCursor
{
public:
    explicit GeneratedCoinsCursor(const SnapshotGeneratorOptions& options);

    bool GetKey(COutPoint& key) const override;
    bool GetValue(Coin& coin) const override;
    bool Valid() const override { return m_pos < m_group.size(); }
    void Next() override;

    const GeneratedSnapshotInfo& Info() const { return m_info; }

private:
    // What all outputs of the current transaction share. first_type is the
    // type of its first unspent output; change outputs repeat it.
    struct TxContext {
        ScriptType first_type{ScriptType::P2WPKH};
        int height{0};
        bool coinbase{false};
    };

    // Fills m_group with the next transaction's coins, or leaves it empty
    // and completes m_info after the last one.
    void LoadNextTransaction();
    // The height, at or a little below `height`, that this transaction takes
    // as its block's coinbase; nullopt when there is none free nearby.
    std::optional<int> ClaimCoinbaseHeight(int height, ScriptType type);
    TxContext DrawTxContext();
    Coin MakeCoin(const TxContext& tx, bool first_output);
    void Record(const COutPoint& outpoint, const Coin& coin);

    SnapshotGeneratorOptions m_options;
    TxCount m_count;
    TxShapeSource m_shapes;
    SortedTxids m_txids;
    GenRandom m_content;
    uint64_t m_tx_index{0};
    CAmount m_budget_left;
    std::vector<bool> m_coinbase_heights;

    TxShape m_shape;
    uint256 m_txid;
    std::vector<std::pair<uint32_t, Coin>> m_group;
    size_t m_pos{0};

    HashWriter m_hasher;
    GeneratedSnapshotInfo m_info;
};

// Writes the whole snapshot to file. Throws SnapshotError or
// std::ios_base::failure.
GeneratedSnapshotInfo WriteGeneratedSnapshot(AutoFile& file, const MessageStartChars& network,
                                             const SnapshotGeneratorOptions& options);

// Writes the snapshot to `path` the way dumptxoutset does: into
// "<path>.incomplete", renamed once complete, refusing to replace an
// existing file. Throws std::runtime_error with a message for the user.
GeneratedSnapshotInfo GenerateSnapshotFile(const std::filesystem::path& path, const CChainParams& params,
                                           const SnapshotGeneratorOptions& options);

// The one-line JSON object coinsdb-gensnapshot prints; "assumeutxo" is the
// "<height>:<blockhash>:<hash_serialized_3>" value -assumeutxo= takes.
std::string SnapshotInfoJson(const GeneratedSnapshotInfo& info, const std::filesystem::path& path,
                             const std::string& chain);

#endif // COINSDB_TOOLS_SNAPSHOT_GENERATOR_H
