#include <node/snapshot/rollback.h>

#include <coins.h>
#include <kernel/connect.h>
#include <kernel/undo.h>
#include <node/blockstorage/blockstorage.h>
#include <streams.h>
#include <util/log.h>

#include <stdexcept>

namespace node {
namespace {

constexpr uint64_t INTERRUPT_CHECK_COINS{10'000};

void FlushIfLarge(CCoinsViewCache& cache)
{
    if (cache.DynamicMemoryUsage() > ROLLBACK_CACHE_BYTES) cache.Flush();
}

void CopyCoins(const CCoinsView& source, CCoinsViewCache& cache, const RollbackRequest& request)
{
    // The copy's best block is the tip's from the start: a flush needs one.
    cache.SetBestBlock(request.tip.GetBlockHash());
    const auto cursor = source.Cursor();
    uint64_t copied = 0;
    for (; cursor->Valid(); cursor->Next()) {
        COutPoint outpoint;
        Coin coin;
        if (!cursor->GetKey(outpoint) || !cursor->GetValue(coin)) throw std::runtime_error("Unable to read the UTXO set");
        // The copy starts empty, so no coin can be there already.
        cache.EmplaceCoinInternalDANGER(std::move(outpoint), std::move(coin));
        if (++copied % INTERRUPT_CHECK_COINS == 0 && request.interruption_point) request.interruption_point();
        FlushIfLarge(cache);
    }
    cache.Flush();
    LogInfo("Copied {} coins to the temporary database {}", copied, request.temp_db.path.string());
}

void DisconnectDownTo(CCoinsViewCache& cache, const RollbackRequest& request)
{
    for (const CBlockIndex* index = &request.tip; index != &request.target; index = index->pprev) {
        CBlock block;
        const auto undo_bytes = request.blockman.ReadUndo(*index);
        if (!request.blockman.ReadBlock(block, *index) || !undo_bytes) {
            throw std::runtime_error("Failed to read block at height " + std::to_string(index->nHeight));
        }
        CBlockUndo undo;
        SpanReader{std::span{*undo_bytes}} >> undo;
        if (kernel::DisconnectBlockCoins(block, undo, cache) != kernel::DisconnectResult::OK) {
            throw std::runtime_error("Failed to roll back block " + index->GetBlockHash().GetHex() + " at height " +
                                     std::to_string(index->nHeight));
        }
        cache.SetBestBlock(index->pprev->GetBlockHash());
        FlushIfLarge(cache);
        if (request.interruption_point) request.interruption_point();
    }
    cache.Flush();
}

} // namespace

std::unique_ptr<CCoinsViewDB> BuildRolledBackCoins(const RollbackRequest& request)
{
    DBParams params = request.temp_db;
    params.wipe_data = true;
    auto db = std::make_unique<CCoinsViewDB>(params, request.coins_view);
    CCoinsViewCache cache{db.get()};
    LogInfo("Copying the current UTXO set to a temporary database");
    CopyCoins(request.source, cache, request);
    LogInfo("Rolling back from height {} to {}", request.tip.nHeight, request.target.nHeight);
    DisconnectDownTo(cache, request);
    return db;
}

} // namespace node
