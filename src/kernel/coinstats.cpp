#include <kernel/coinstats.h>

#include <hash.h>
#include <streams.h>

namespace kernel {

uint64_t GetBogoSize(const CScript& script)
{
    return 32 /* txid */ + 4 /* vout */ + 4 /* height + coinbase */ + 8 /* amount */ + 2 /* script length */ +
           script.size();
}

void ApplyCoinHash(HashWriter& writer, const COutPoint& outpoint, const Coin& coin)
{
    writer << outpoint;
    writer << static_cast<uint32_t>(coin.nHeight * 2 + coin.fCoinBase);
    writer << coin.out;
}

void ApplyCoinHash(MuHash3072& muhash, const COutPoint& outpoint, const Coin& coin)
{
    DataStream record;
    record << outpoint;
    record << static_cast<uint32_t>(coin.nHeight * 2 + coin.fCoinBase);
    record << coin.out;
    const auto bytes = record.Unread();
    muhash.Insert(std::span{reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
}

std::optional<CCoinsStats> ComputeUTXOStats(CoinStatsHashType hash_type, const CCoinsView& view,
                                            const std::function<void()>& interruption_point)
{
    std::unique_ptr<CCoinsViewCursor> cursor = view.Cursor();
    if (!cursor) return std::nullopt;

    CCoinsStats stats;
    stats.best_block = cursor->GetBestBlock();
    HashWriter writer;
    MuHash3072 muhash;
    uint256 previous_txid;
    bool first = true;
    for (; cursor->Valid(); cursor->Next()) {
        COutPoint outpoint;
        Coin coin;
        if (!cursor->GetKey(outpoint) || !cursor->GetValue(coin)) return std::nullopt;
        if (first || outpoint.hash != previous_txid) {
            ++stats.transactions;
            previous_txid = outpoint.hash;
            first = false;
            if (interruption_point && stats.transactions % 1000 == 0) interruption_point();
        }
        ++stats.txouts;
        stats.total_amount += coin.out.nValue;
        stats.bogosize += GetBogoSize(coin.out.scriptPubKey);
        if (hash_type == CoinStatsHashType::HASH_SERIALIZED) ApplyCoinHash(writer, outpoint, coin);
        if (hash_type == CoinStatsHashType::MUHASH) ApplyCoinHash(muhash, outpoint, coin);
    }
    if (hash_type == CoinStatsHashType::HASH_SERIALIZED) stats.hash_serialized = writer.GetHash();
    if (hash_type == CoinStatsHashType::MUHASH) stats.hash_serialized = uint256{muhash.Finalize()};
    return stats;
}

} // namespace kernel
