#ifndef COINSDB_KERNEL_COINSTATS_H
#define COINSDB_KERNEL_COINSTATS_H

// Statistics of a UTXO set, as gettxoutsetinfo reports them.
//
// hash_serialized_3 is SHA256d over, for every coin in chainstate key order
// (see CCoinsViewCursor):
//   txid (32) | LE32 vout | LE32 (height * 2 + coinbase) | LE64 amount |
//   CompactSize(script length) | script (uncompressed)
// shown byte-reversed like every hash.
//
// muhash is MuHash3072 (crypto/muhash.h) over the same per-coin records,
// each inserted as one element, so it does not depend on the order.

#include <coins.h>
#include <crypto/muhash.h>
#include <hash.h>
#include <primitives/amount.h>
#include <uint256.h>

#include <cstdint>
#include <functional>
#include <optional>

namespace kernel {

struct CCoinsStats {
    uint256 best_block;
    uint64_t transactions{0};
    uint64_t txouts{0};
    uint64_t bogosize{0};
    CAmount total_amount{0};
    // hash_serialized_3 or muhash, as asked for; null for NONE.
    uint256 hash_serialized;
};

enum class CoinStatsHashType { HASH_SERIALIZED, MUHASH, NONE };

// The bytes a coin adds to the "bogosize" figure: a rough serialized size
// that does not depend on the storage format.
uint64_t GetBogoSize(const CScript& script);

// Feeds one coin's hash_serialized_3 record to a writer.
void ApplyCoinHash(HashWriter& writer, const COutPoint& outpoint, const Coin& coin);
// Inserts one coin's record into a MuHash3072.
void ApplyCoinHash(MuHash3072& muhash, const COutPoint& outpoint, const Coin& coin);

// Walks the view's cursor. interruption_point is called every so often and
// may throw to abandon a long walk. Returns nullopt when the view has no
// cursor or a value fails to read.
std::optional<CCoinsStats> ComputeUTXOStats(CoinStatsHashType hash_type, const CCoinsView& view,
                                            const std::function<void()>& interruption_point = {});

} // namespace kernel

#endif // COINSDB_KERNEL_COINSTATS_H
