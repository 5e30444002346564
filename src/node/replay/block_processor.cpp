#include <node/replay/block_processor.h>

#include <kernel/connect.h>
#include <kernel/pow.h>
#include <kernel/undo.h>
#include <streams.h>
#include <util/log.h>
#include <util/threadpool.h>

#include <fmt/format.h>

#include <cmath>
#include <ctime>

namespace node {
namespace {

std::string FormatBlockTime(int64_t time)
{
    const std::time_t t = time;
    std::tm utc{};
    gmtime_r(&t, &utc);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                       utc.tm_hour, utc.tm_min, utc.tm_sec);
}

double Log2Work(const arith_uint256& work)
{
    // Hex to double is exact enough for a log line.
    double value = 0;
    for (char c : ArithToUint256(work).GetHex()) value = value * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
    return value > 0 ? std::log2(value) : 0;
}

} // namespace

BlockProcessor::BlockProcessor(const CChainParams& params, BlockManager& blockman, Chainstate& chainstate,
                               BlockProcessorOptions options, std::atomic<bool>& shutdown, std::recursive_mutex& mutex)
    : m_params{params}, m_blockman{blockman}, m_chainstate{chainstate}, m_options{options}, m_shutdown{shutdown}, m_mutex{mutex}
{
    if (m_options.prevout_fetch_threads <= 0) return;
    m_prevout_fetch_pool = std::make_shared<ThreadPool>("prevout");
    m_prevout_fetch_pool->Start(m_options.prevout_fetch_threads);
    m_connect_view = std::make_unique<CoinsViewOverlay>(&m_chainstate.CoinsTip(), m_prevout_fetch_pool);
    LogInfo("Block input prevout fetching uses {} additional threads", m_options.prevout_fetch_threads);
}

BlockProcessor::~BlockProcessor() = default;

void BlockProcessor::LogPrevoutFetchSummary() const
{
    if (!m_connect_view) return;
    LogInfo("Block input prevout fetching: the workers read {} of the {} inputs queued, and looked up {} of the {} outputs the BIP30 check queued",
            m_connect_view->InputsReadByWorkers(), m_connect_view->InputsQueuedTotal(),
            m_connect_view->OutputsReadByWorkers(), m_connect_view->OutputsQueuedTotal());
}

void BlockProcessor::MarkLinked(CBlockIndex& first)
{
    // Linking a block can link the stored descendants that waited for it.
    std::vector<CBlockIndex*> todo{&first};
    while (!todo.empty()) {
        CBlockIndex* index = todo.back();
        todo.pop_back();
        if (!m_linked.insert(index).second) continue;
        // Its parent is linked already (or it has none), so counted.
        index->SetChainTxFromParent();
        if (!(index->nStatus & BLOCK_FAILED_MASK)) m_candidates.insert(index);
        auto [begin, end] = m_unlinked.equal_range(index);
        for (auto it = begin; it != end; ++it) todo.push_back(it->second);
        m_unlinked.erase(begin, end);
    }
}

void BlockProcessor::LoadChain()
{
    // Rebuild the link state of every stored block, parents first.
    std::vector<CBlockIndex*> by_height;
    for (const auto& [hash, index] : m_blockman.BlockIndex()) by_height.push_back(index.get());
    std::ranges::sort(by_height, {}, [](const CBlockIndex* i) { return i->nHeight; });
    for (CBlockIndex* index : by_height) {
        if (!(index->nStatus & BLOCK_HAVE_DATA)) continue;
        if (!index->pprev || m_linked.contains(index->pprev)) {
            MarkLinked(*index);
        } else {
            m_unlinked.emplace(index->pprev, index);
        }
    }

    const std::vector<uint256> heads = m_chainstate.CoinsDB().GetHeadBlocks();
    if (!heads.empty()) RollForwardCrashedFlush(heads);

    const uint256 best = m_chainstate.TipHash();
    if (CBlockIndex* tip = m_blockman.LookupBlockIndex(best)) {
        m_chain.SetTip(tip);
        m_chainstate.SetTip(best, tip->nHeight);
        LogInfo("Loaded best chain: hashBestChain={} height={}", best.GetHex(), tip->nHeight);
    } else if (best != m_params.GenesisHash()) {
        throw std::runtime_error("The chainstate's best block " + best.GetHex() +
                                 " is not in the block index; restart with -reindex-chainstate");
    }
}

void BlockProcessor::LoadGenesisBlock()
{
    const CBlockIndex* known = m_blockman.LookupBlockIndex(m_params.GenesisHash());
    if (known && (known->nStatus & BLOCK_HAVE_DATA)) return;
    if (!ProcessBlock(std::make_shared<const CBlock>(m_params.GenesisBlock()))) throw std::runtime_error("Failed to store the genesis block");
    // On disk at once, index and block: the block files hold records back
    // until a sync (RecordFileWriter), and a -reindex or -reindex-chainstate
    // after a crash checks that blk00000.dat starts with this block.
    if (!m_blockman.WriteIndex()) throw std::runtime_error("Failed to write the genesis block");
    ActivateBestChain();
    LogInfo("Stored the genesis block {}", m_params.GenesisHash().GetHex());
}

void BlockProcessor::RollForwardCrashedFlush(const std::vector<uint256>& heads)
{
    if (heads.size() != 2) throw std::runtime_error("The coins database has a malformed head-blocks record");
    CBlockIndex* target = m_blockman.LookupBlockIndex(heads[0]);
    if (!target) throw std::runtime_error("The coins database was cut short while flushing to an unknown block " + heads[0].GetHex());
    const CBlockIndex* old = heads[1].IsNull() ? nullptr : m_blockman.LookupBlockIndex(heads[1]);
    if (!heads[1].IsNull() && !old) throw std::runtime_error("The coins database was cut short while flushing from an unknown block");
    LogInfo("Replaying blocks: the last flush from {} to {} did not finish", heads[1].GetHex(), heads[0].GetHex());

    // The fork point of the two states; everything between it and each end
    // may or may not be on disk, so apply it again leniently.
    const CBlockIndex* fork = old;
    while (fork && target->GetAncestor(fork->nHeight) != fork) fork = fork->pprev;

    CCoinsViewCache& cache = m_chainstate.CoinsTip();
    for (const CBlockIndex* index = old; index != fork; index = index->pprev) {
        CBlock block;
        const auto undo_bytes = m_blockman.ReadUndo(*index);
        if (!m_blockman.ReadBlock(block, *index) || !undo_bytes) throw std::runtime_error("Replay: cannot read block or undo of " + index->hash.GetHex());
        CBlockUndo undo;
        SpanReader{std::span{*undo_bytes}} >> undo;
        LogInfo("Rolling back {} ({})", index->hash.GetHex(), index->nHeight);
        if (kernel::DisconnectBlockCoins(block, undo, cache) == kernel::DisconnectResult::FAILED) {
            throw std::runtime_error("Replay: failed to roll back " + index->hash.GetHex());
        }
    }
    std::vector<const CBlockIndex*> forward;
    for (const CBlockIndex* index = target; index != fork; index = index->pprev) forward.push_back(index);
    for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
        const CBlockIndex* index = *it;
        if (index->nHeight == 0) continue;
        CBlock block;
        if (!m_blockman.ReadBlock(block, *index)) throw std::runtime_error("Replay: cannot read block " + index->hash.GetHex());
        LogInfo("Rolling forward {} ({})", index->hash.GetHex(), index->nHeight);
        kernel::RollforwardBlockCoins(block, index->nHeight, cache);
    }
    cache.SetBestBlock(target->hash);
    m_chainstate.SetTip(target->hash, target->nHeight);
    m_chainstate.Flush();
    LogInfo("Replay: finished at {} ({})", target->hash.GetHex(), target->nHeight);
}

CBlockIndex* BlockProcessor::AcceptHeader(BlockManager& blockman, const CChainParams& params, const CBlockHeader& header,
                                          kernel::BlockValidationState& state)
{
    if (CBlockIndex* known = blockman.LookupBlockIndex(header.GetHash())) {
        if (known->nStatus & BLOCK_FAILED_MASK) {
            state.Invalid(kernel::BlockValidationResult::CONSENSUS, "duplicate-invalid");
            return nullptr;
        }
        return known;
    }
    if (!kernel::CheckBlockHeader(header, params, state)) return nullptr;
    const CBlockIndex* parent = blockman.LookupBlockIndex(header.hashPrevBlock);
    if (!parent) throw std::logic_error("AcceptHeader: the parent of " + header.GetHash().GetHex() + " is not in the index");
    if (parent->nStatus & BLOCK_FAILED_MASK) {
        state.Invalid(kernel::BlockValidationResult::CONSENSUS, "bad-prevblk");
        return nullptr;
    }
    return blockman.AddToBlockIndex(header);
}

bool BlockProcessor::AcceptBlock(const std::shared_ptr<const CBlock>& shared, const std::optional<FlatFilePos>& stored_at,
                                 std::span<const std::byte> serialized)
{
    const CBlock& block = *shared;
    const uint256 hash = block.GetHash();
    if (CBlockIndex* known = m_blockman.LookupBlockIndex(hash); known && (known->nStatus & BLOCK_HAVE_DATA)) return true;
    if (block.hashPrevBlock.IsNull() && hash != m_params.GenesisHash()) {
        LogError("AcceptBlock: {} claims to be a genesis block of another chain", hash.GetHex());
        return false;
    }
    kernel::BlockValidationState state;
    if (!kernel::CheckBlock(block, m_params, state)) {
        LogError("AcceptBlock: block {} rejected: {}", hash.GetHex(), state.ToString());
        return false;
    }
    CBlockIndex* index = m_blockman.AddToBlockIndex(block.GetBlockHeader());
    if (!index) return false;
    if (index->pprev && (index->pprev->nStatus & BLOCK_FAILED_MASK)) {
        index->nStatus |= BLOCK_FAILED_CHILD;
        m_blockman.SetDirty(*index);
        m_blockman.RecomputeBestHeader();
        LogError("AcceptBlock: block {} builds on an invalid block", hash.GetHex());
        return false;
    }
    if (stored_at) {
        m_blockman.SetBlockStored(block, *index, *stored_at);
    } else if (m_blockman.SaveBlock(block, *index, serialized).IsNull()) {
        throw std::runtime_error("Failed to write block " + hash.GetHex());
    } else {
        m_accepted.emplace(index, shared);
    }
    index->RaiseValidity(BLOCK_VALID_TRANSACTIONS);
    m_blockman.SetDirty(*index);
    if (!index->pprev || m_linked.contains(index->pprev)) {
        MarkLinked(*index);
    } else {
        m_unlinked.emplace(index->pprev, index);
    }
    // The chainstate starts at genesis before the genesis block is stored.
    if (!m_chain.Tip() && hash == m_chainstate.TipHash()) m_chain.SetTip(index);
    return true;
}

bool BlockProcessor::ProcessBlock(std::shared_ptr<const CBlock> first, std::optional<FlatFilePos> stored_at,
                                  std::span<const std::byte> serialized)
{
    bool all_ok = true;
    // The bytes are the first block's, for this call only: a block that
    // waits for its parent is serialized when it is stored.
    const CBlock* const with_bytes = first.get();
    std::vector<WaitingBlock> todo{{std::move(first), stored_at}};
    while (!todo.empty()) {
        auto next = todo.back();
        todo.pop_back();
        const CBlock& block = *next.block;
        if (!block.hashPrevBlock.IsNull() && !m_blockman.LookupBlockIndex(block.hashPrevBlock)) {
            m_waiting.emplace(block.hashPrevBlock, std::move(next));
            continue;
        }
        all_ok &= AcceptBlock(next.block, next.stored_at, next.block.get() == with_bytes ? serialized : std::span<const std::byte>{});
        const uint256 hash = block.GetHash();
        auto [begin, end] = m_waiting.equal_range(hash);
        for (auto it = begin; it != end; ++it) todo.push_back(it->second);
        m_waiting.erase(begin, end);
    }
    return all_ok;
}

CBlockIndex* BlockProcessor::FindMostWorkChain() const
{
    for (CBlockIndex* candidate : m_candidates) {
        if (!(candidate->nStatus & BLOCK_FAILED_MASK)) return candidate;
    }
    return nullptr;
}

void BlockProcessor::InvalidBlockFound(CBlockIndex& index, const std::string& reason)
{
    LogError("ConnectBlock {} at height {} failed: {}", index.hash.GetHex(), index.nHeight, reason);
    index.nStatus |= BLOCK_FAILED_VALID;
    m_blockman.SetDirty(index);
    // Every stored descendant is now unusable too.
    for (auto it = m_candidates.begin(); it != m_candidates.end();) {
        if ((*it)->GetAncestor(index.nHeight) == &index) {
            if (*it != &index) (*it)->nStatus |= BLOCK_FAILED_CHILD;
            m_blockman.SetDirty(**it);
            it = m_candidates.erase(it);
        } else {
            ++it;
        }
    }
    m_blockman.RecomputeBestHeader();
}

bool BlockProcessor::ConnectTip(CBlockIndex& index)
{
    std::shared_ptr<const CBlock> kept;
    if (const auto it = m_accepted.find(&index); it != m_accepted.end()) kept = it->second;
    if (!kept) {
        auto read = std::make_shared<CBlock>();
        if (!m_blockman.ReadBlock(*read, index)) throw std::runtime_error("Failed to read block " + index.hash.GetHex());
        kept = std::move(read);
    }
    const CBlock& block = *kept;
    if (m_hinted && index.nHeight > 0) return ConnectHinted(index, block);
    CCoinsViewCache& cache = m_chainstate.CoinsTip();
    if (!m_cache_reserved && index.nHeight > 0) {
        // The whole bucket array for as many coins as the budget holds,
        // before the first block: growing it x2 at a time re-linked every
        // entry each time (3% of a pruned replay's samples, on this
        // thread), and the last doubling can leave it up to twice this
        // size. A flush keeps it. Not at genesis, which a new node connects
        // before it knows whether it will replay anything, nor in a hinted
        // replay's connects below H, whose coins are not cached (its runs
        // have the budget).
        cache.ReserveEntries(std::min<size_t>(m_chainstate.CoinsCacheRoom() / CCoinsViewCache::MIN_BYTES_PER_ENTRY, CCoinsViewCache::MAX_ENTRIES));
        m_cache_reserved = true;
    }
    kernel::BlockValidationState state;
    CBlockUndo undo;
    if (index.nHeight == 0) {
        // The genesis outputs are not spendable: nothing enters the set.
        cache.SetBestBlock(index.hash);
    } else if (!(m_connect_view ? kernel::ConnectBlockCoins(block, index.nHeight, m_params, *m_connect_view, undo, state)
                                : kernel::ConnectBlockCoins(block, index.nHeight, m_params, cache, undo, state))) {
        InvalidBlockFound(index, state.ToString());
        return false;
    }
    if (index.nHeight > 0) {
        DataStream undo_bytes;
        undo_bytes << undo;
        if (!m_blockman.WriteUndo(undo_bytes.Unread(), index)) throw std::runtime_error("Failed to write undo data for " + index.hash.GetHex());
    }
    index.RaiseValidity(BLOCK_VALID_SCRIPTS);
    m_blockman.SetDirty(index);
    m_chain.SetTip(&index);
    m_chainstate.SetTip(index.hash, index.nHeight);
    ++m_connected_blocks;
    m_connected_txs += block.vtx.size();
    LogUpdateTip(index);
    return true;
}

bool BlockProcessor::ConnectHinted(CBlockIndex& index, const CBlock& block)
{
    std::string failure;
    if (!m_hinted->ConnectBlock(block, index.nHeight, failure)) {
        FallBackFromHints(failure);
        return false;
    }
    index.RaiseValidity(BLOCK_VALID_SCRIPTS);
    m_blockman.SetDirty(index);
    m_chain.SetTip(&index);
    ++m_connected_blocks;
    m_connected_txs += block.vtx.size();
    if (index.nHeight % 1000 == 0) {
        LogInfo("SwiftSync: height {} of {} ({:.1f}%), {} coins kept, {} outpoints in the aggregate", index.nHeight, m_hinted->Height(),
                100.0 * index.nHeight / m_hinted->Height(), m_hinted->KeptCoins(), m_hinted->AggregatedOutpoints());
    }
    if (index.nHeight < m_hinted->Height()) {
        LogUpdateTip(index);
        return true;
    }
    // Block H's UpdateTip line follows the check and the chainstate's
    // write: a replay's log then ends where its work does.
    if (index.hash != m_hinted->BlockHashAtH()) {
        FallBackFromHints(fmt::format("the block at height {} is {}, not {} the hints were made for", index.nHeight, index.hash.GetHex(),
                                      m_hinted->BlockHashAtH().GetHex()));
        return false;
    }
    if (!m_hinted->Verify(failure)) {
        FallBackFromHints(failure);
        return false;
    }
    const uint64_t kept = m_hinted->KeptCoins();
    const uint64_t aggregated = m_hinted->AggregatedOutpoints();
    const auto hashing = m_hinted->HashingTime();
    // The index must know every block the chainstate is about to point at.
    if (!m_blockman.WriteIndex()) throw std::runtime_error("Failed to write the block index");
    m_hinted->WriteChainstate(m_chainstate, index.hash);
    m_hinted.reset();
    m_swiftsync->state = SwiftSyncStatus::State::VERIFIED;
    m_swiftsync->took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_swiftsync->started);
    LogInfo("SwiftSync: verified at height {} ({}) in {:.2f}s: {} coins written, {} outpoints hashed into a zero aggregate ({:.2f}s on the hashing thread)",
            index.nHeight, index.hash.GetHex(), m_swiftsync->took.count() / 1000.0, kept, aggregated, hashing.count() / 1000.0);
    LogUpdateTip(index);
    return true;
}

void BlockProcessor::FallBackFromHints(const std::string& reason)
{
    LogWarning("SwiftSync: {}; discarding the unverified chainstate and replaying the stored blocks from genesis without hints", reason);
    // Nothing below H reached the chainstate database (FlushStateToDisk
    // writes none of it), so discarding is dropping the gathered coins
    // and moving the chain back to genesis. The marker goes last.
    m_hinted.reset();
    CBlockIndex* genesis = m_blockman.LookupBlockIndex(m_params.GenesisHash());
    if (!genesis) throw std::logic_error("SwiftSync fall back without a genesis block");
    m_chain.SetTip(genesis);
    m_chainstate.SetTip(genesis->hash, 0);
    std::error_code ec;
    std::filesystem::remove(UnverifiedMarker(m_swiftsync_dir), ec);
    m_swiftsync->state = SwiftSyncStatus::State::FELL_BACK;
    m_swiftsync->reason = reason;
    m_swiftsync->took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_swiftsync->started);
}

void BlockProcessor::StartHintedReplay(std::unique_ptr<HintSource> hints, const uint256& block_hash_at_h, const std::filesystem::path& swiftsync_dir)
{
    const int tip_height = m_chain.Tip() ? m_chain.Height() : -1;
    if (tip_height != 0 || m_chainstate.TipHash() != m_params.GenesisHash() || m_chainstate.CoinsDB().Cursor()->Valid()) {
        LogWarning("SwiftSync: -swiftsynchints ignored: the chainstate is at height {}, and hints apply only to a replay from genesis", tip_height);
        return;
    }
    if (hints->Height() < 1) {
        LogWarning("SwiftSync: -swiftsynchints ignored: the hints file is for height {}", hints->Height());
        return;
    }
    const int height = hints->Height();
    // Stored blocks (-reindex-chainstate) tell the block at H before any is
    // connected: hints for another chain are refused there and then.
    if (const CBlockIndex* best = m_blockman.BestHeader(); best && best->nHeight >= height) {
        const CBlockIndex* at_h = best->GetAncestor(height);
        if (at_h->hash != block_hash_at_h) {
            throw std::runtime_error(fmt::format("-swiftsyncblockhash: the block at height {} is {}, not {}", height, at_h->hash.GetHex(),
                                                 block_hash_at_h.GetHex()));
        }
    }
    m_swiftsync_dir = swiftsync_dir;
    // Below H nothing is looked up in the database, and the coins written
    // at H would all have to go through the filter: its memory serves the
    // hinted replay's runs better (6.0M chain, -dbcache=100: 9.42 s with
    // the filter, 8.48 s without). Blocks above H then read LevelDB for
    // their BIP30 checks, as before the filter. No worker reads yet.
    m_chainstate.CoinsDB().DropTxidFilter();
    m_hinted = std::make_unique<HintedReplay>(m_params, std::move(hints), block_hash_at_h, swiftsync_dir, m_chainstate.CoinsCacheRoom());
    m_swiftsync = SwiftSyncStatus{.state = SwiftSyncStatus::State::UNVERIFIED, .height = height, .block_hash = block_hash_at_h};
    LogInfo("SwiftSync: connecting blocks 1 to {} with hints; the chainstate stays unverified until block {} at height {} checks out",
            height, block_hash_at_h.GetHex(), height);
}

std::optional<SwiftSyncStatus> BlockProcessor::GetSwiftSyncStatus() const { return m_swiftsync; }

void BlockProcessor::FinishImport()
{
    if (!m_hinted || m_shutdown) return;
    FallBackFromHints(fmt::format("the blocks ended at height {}, below the hints' height {}", m_chain.Height(), m_hinted->Height()));
    ActivateBestChain();
}

std::string ToString(SwiftSyncStatus::State state)
{
    switch (state) {
    case SwiftSyncStatus::State::UNVERIFIED: return "unverified";
    case SwiftSyncStatus::State::VERIFIED: return "verified";
    case SwiftSyncStatus::State::FELL_BACK: return "fell back";
    }
    return "?";
}

bool BlockProcessor::DisconnectTip()
{
    CBlockIndex* tip = m_chain.Tip();
    if (!tip || !tip->pprev) return false;
    if (m_hinted) {
        FallBackFromHints(fmt::format("a chain with more work forks below height {}", tip->nHeight));
        return false;
    }
    if (m_swiftsync && m_swiftsync->state == SwiftSyncStatus::State::VERIFIED && tip->nHeight <= m_swiftsync->height) {
        throw std::runtime_error(fmt::format("Cannot disconnect block {} at height {}: SwiftSync connected the blocks up to height {} "
                                             "without undo data; restart with -reindex-chainstate",
                                             tip->hash.GetHex(), tip->nHeight, m_swiftsync->height));
    }
    CBlock block;
    const auto undo_bytes = m_blockman.ReadUndo(*tip);
    if (!m_blockman.ReadBlock(block, *tip) || !undo_bytes) throw std::runtime_error("Failed to read block or undo data of " + tip->hash.GetHex());
    CBlockUndo undo;
    SpanReader{std::span{*undo_bytes}} >> undo;
    if (kernel::DisconnectBlockCoins(block, undo, m_chainstate.CoinsTip()) != kernel::DisconnectResult::OK) {
        throw std::runtime_error("Failed to disconnect block " + tip->hash.GetHex());
    }
    m_chain.SetTip(tip->pprev);
    m_chainstate.SetTip(tip->pprev->hash, tip->pprev->nHeight);
    LogInfo("DisconnectTip: disconnected {} at height {}", tip->hash.GetHex(), tip->nHeight);
    return true;
}

void BlockProcessor::ActivateBestChain()
{
    ActivateBestChainSteps();
    m_accepted.clear();
}

void BlockProcessor::ActivateBestChainSteps()
{
    while (!m_shutdown) {
        CBlockIndex* target = FindMostWorkChain();
        CBlockIndex* tip = m_chain.Tip();
        if (!target || (tip && target->nChainWork <= tip->nChainWork) || target == tip) return;
        if (!tip && target->GetAncestor(0)->hash != m_chainstate.TipHash()) return;

        const CBlockIndex* fork = tip ? m_chain.FindFork(target) : nullptr;
        while (m_chain.Tip() && m_chain.Tip() != fork) {
            if (!DisconnectTip()) break;
        }
        // A hinted replay cannot disconnect: it fell back to genesis
        // instead, and the fork point is found again from there.
        if (m_chain.Tip() != fork) continue;
        std::vector<CBlockIndex*> path;
        for (CBlockIndex* index = target; index && index != fork; index = index->pprev) path.push_back(index);
        bool failed = false;
        for (auto it = path.rbegin(); it != path.rend() && !m_shutdown; ++it) {
            if (!ConnectTip(**it)) {
                failed = true;
                break;
            }
            FlushStateToDisk(FlushMode::PERIODIC);
            if (m_options.stop_at_height > 0 && (*it)->nHeight >= m_options.stop_at_height) {
                LogInfo("-stopatheight={} reached at block {}; shutting down", m_options.stop_at_height, (*it)->hash.GetHex());
                m_shutdown = true;
                return;
            }
        }
        if (!failed) continue;
        // Another candidate may still beat the tip; the loop looks again.
    }
}

BlockManager::BlockPrepare BlockProcessor::CheckAhead() const
{
    // The verdict is not kept: a block that passes is marked (m_checked),
    // so AcceptBlock's CheckBlock returns at once; one that fails is
    // checked again there, and rejected with its reason in the log.
    return [this](const CBlock& block) {
        kernel::BlockValidationState state;
        kernel::CheckBlock(block, m_params, state);
    };
}

void BlockProcessor::ImportFile(const std::filesystem::path& path)
{
    LogInfo("Importing blocks file {}...", path.string());
    size_t accepted = 0;
    const auto process = [&](const std::shared_ptr<const CBlock>& block, uint64_t, std::span<const std::byte> serialized) {
        if (m_shutdown) return;
        std::lock_guard lock{m_mutex};
        if (ProcessBlock(block, std::nullopt, serialized)) ++accepted;
        ActivateBestChain();
    };
    const auto scan = BlockManager::ReadBlockFile(path, m_params.MessageStart(), process, {}, CheckAhead());
    if (!scan) {
        LogError("Could not open blocks file {}", path.string());
        return;
    }
    LogInfo("Loaded {} blocks from external file {} ({} bytes skipped)", scan->blocks, path.string(), scan->skipped_bytes);
    if (!m_waiting.empty()) LogInfo("{} blocks wait for a parent that has not been seen", m_waiting.size());
}

size_t BlockProcessor::ReindexBlockFiles()
{
    size_t found = 0;
    for (int file = 0; !m_shutdown; ++file) {
        const auto path = m_blockman.BlockFilePath(file);
        if (!std::filesystem::exists(path)) break;
        LogInfo("Reindexing block file blk{:05}.dat...", file);
        const auto index = [&](const std::shared_ptr<const CBlock>& block, uint64_t data_pos, std::span<const std::byte>) {
            if (m_shutdown) return;
            std::lock_guard lock{m_mutex};
            ProcessBlock(block, FlatFilePos{file, static_cast<unsigned int>(data_pos)});
        };
        const auto scan = BlockManager::ReadBlockFile(path, m_params.MessageStart(), index, m_blockman.XorKey(), CheckAhead());
        if (!scan) throw std::runtime_error("Cannot read " + path.string());
        found += scan->blocks;
        LogInfo("Loaded {} blocks from blk{:05}.dat ({} bytes skipped)", scan->blocks, file, scan->skipped_bytes);
    }
    LogInfo("Reindexing finished: {} blocks{}", found, m_waiting.empty() ? "" : fmt::format(", {} without a parent", m_waiting.size()));
    return found;
}

void BlockProcessor::PruneIfNeeded()
{
    if (m_options.prune_target_bytes == 0 || !m_chain.Tip()) return;
    const auto files = m_blockman.FindFilesToPrune(m_options.prune_target_bytes, m_chain.Height());
    if (files.empty()) return;
    LogDebug(logging::Category::PRUNE, "Pruning {} block files below height {}", files.size(), m_chain.Height() - MIN_BLOCKS_TO_KEEP);
    m_blockman.PruneFiles(files);
}

void BlockProcessor::FlushStateToDisk(FlushMode mode)
{
    const auto now = std::chrono::steady_clock::now();
    const bool cache_full = m_chainstate.GetCoinsCacheSizeState() == CoinsCacheSizeState::CRITICAL;
    const bool periodic = now - m_last_write >= m_options.flush_interval;
    const bool prune = m_options.prune_target_bytes > 0 && m_blockman.CalculateCurrentUsage() > m_options.prune_target_bytes;
    if (m_hinted) {
        // Below H the chainstate has nothing to write (the kept coins are
        // in runs) and its best block must stay genesis until H checks
        // out; and every stored block must stay for a fall back, so no
        // pruning either. The index is still written.
        if (mode == FlushMode::ALWAYS || periodic) {
            if (!m_blockman.WriteIndex()) throw std::runtime_error("Failed to write the block index");
            m_last_write = now;
        }
        return;
    }
    if (mode == FlushMode::IF_NEEDED && !cache_full && !prune) return;
    if (mode == FlushMode::PERIODIC && !cache_full && !prune && !periodic) return;

    // The index must know every block the chainstate is about to point at.
    if (!m_blockman.WriteIndex()) throw std::runtime_error("Failed to write the block index");
    // Only a cache over budget needs its memory back. A prune needs the
    // coins on disk before it deletes the blocks they came from, and a
    // periodic write bounds what a crash can lose; neither needs memory,
    // and emptying the cache would make the next blocks read every coin
    // they spend back from disk.
    if (cache_full) {
        m_chainstate.Flush();
    } else {
        m_chainstate.Sync();
    }
    m_last_write = now;
    if (prune) PruneIfNeeded();
}

void BlockProcessor::LogUpdateTip(const CBlockIndex& index) const
{
    const CCoinsViewCache& cache = m_chainstate.CoinsTip();
    LogInfo("UpdateTip: new best={} height={} version=0x{:08x} log2_work={:.6f} tx={} date='{}' cache={:.1f}MiB({}txo)",
            index.hash.GetHex(), index.nHeight, static_cast<uint32_t>(index.nVersion), Log2Work(index.nChainWork),
            m_connected_txs, FormatBlockTime(index.nTime), cache.DynamicMemoryUsage() * (1.0 / (1 << 20)), cache.GetCacheSize());
}

} // namespace node
