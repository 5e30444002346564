#include <coins.h>

#include <crypto/random.h>
#include <primitives/block.h>
#include <util/check.h>
#include <util/log.h>
#include <util/threadpool.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

// The asserts here stop a flush from corrupting the UTXO set.
#ifdef NDEBUG
#error "coinsdb must be built with assertions enabled"
#endif

namespace {
const Coin EMPTY_COIN{};
} // namespace

SaltedCoinsCacheHasher::SaltedCoinsCacheHasher(bool deterministic)
    : m_k0{deterministic ? 0x8e819f2607a18de6ULL : GetRandUint64()},
      m_k1{deterministic ? 0xf4020d2e3983b0ebULL : GetRandUint64()}
{
}

CoinsViewEmpty& CoinsViewEmpty::Get()
{
    static CoinsViewEmpty instance;
    return instance;
}
std::optional<Coin> CoinsViewEmpty::GetCoin(const COutPoint&) const { return std::nullopt; }
std::optional<Coin> CoinsViewEmpty::PeekCoin(const COutPoint& outpoint) const { return GetCoin(outpoint); }
bool CoinsViewEmpty::HaveCoin(const COutPoint& outpoint) const { return GetCoin(outpoint).has_value(); }
uint256 CoinsViewEmpty::GetBestBlock() const { return uint256{}; }
std::vector<uint256> CoinsViewEmpty::GetHeadBlocks() const { return {}; }
void CoinsViewEmpty::BatchWrite(CoinsViewCacheCursor&, const uint256&)
{
    throw std::logic_error("CoinsViewEmpty::BatchWrite: this view stores nothing");
}
std::unique_ptr<CCoinsViewCursor> CoinsViewEmpty::Cursor() const { return nullptr; }
size_t CoinsViewEmpty::EstimateSize() const { return 0; }

std::optional<Coin> CCoinsViewBacked::GetCoin(const COutPoint& outpoint) const { return m_base->GetCoin(outpoint); }
std::optional<Coin> CCoinsViewBacked::PeekCoin(const COutPoint& outpoint) const { return m_base->PeekCoin(outpoint); }
bool CCoinsViewBacked::HaveCoin(const COutPoint& outpoint) const { return m_base->HaveCoin(outpoint); }
uint256 CCoinsViewBacked::GetBestBlock() const { return m_base->GetBestBlock(); }
std::vector<uint256> CCoinsViewBacked::GetHeadBlocks() const { return m_base->GetHeadBlocks(); }
void CCoinsViewBacked::BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) { m_base->BatchWrite(cursor, best_block); }

void CoinsViewCacheCursor::Release(CoinsCachePair& current)
{
    // A flush drops the whole map afterwards; only spent entries of a sync
    // go now, since a cache keeps no record of a spend its parent has.
    if (current.second.IsDirty()) {
        Assume(m_dirty_count > 0);
        --m_dirty_count;
    }
    m_list.SetClean(current);
    if (current.second.coin.IsSpent() && !m_will_erase) {
        if (m_usage) *m_usage -= current.second.coin.DynamicMemoryUsage();
        m_map.erase(current.first);
    }
}

CoinsCachePair* CoinsViewCacheCursor::NextAndMaybeErase(CoinsCachePair& current)
{
    Assume(&current == Begin());
    // Read before releasing: releasing unlinks current.
    CoinsCachePair* next = m_list.Next(current);
    Release(current);
    return next;
}

void CoinsViewCacheCursor::ReleaseUntil(const CoinsCachePair* stop)
{
    // A flush handing over all that is left: the map goes next, whole, so
    // the entries are not unlinked and cleaned one at a time. That was a
    // second walk over a big cache, after its write had finished.
    if (m_will_erase && stop == End()) {
        m_list.Forget();
        m_dirty_count = 0;
        return;
    }
    while (Begin() != stop) {
        assert(Begin() != End());
        Release(*Begin());
    }
}

Coin CoinsViewCacheCursor::MoveOrCopyCoin(CoinsCachePair& current)
{
    if (!WillErase(current)) return current.second.coin;
    // The script's heap block leaves with the coin (a moved-from vector
    // owns none), so it leaves the accounting now; releasing the entry
    // then subtracts nothing more for it.
    if (m_usage) *m_usage -= current.second.coin.DynamicMemoryUsage();
    return std::move(current.second.coin);
}
std::unique_ptr<CCoinsViewCursor> CCoinsViewBacked::Cursor() const { return m_base->Cursor(); }
size_t CCoinsViewBacked::EstimateSize() const { return m_base->EstimateSize(); }

CCoinsViewCache::CCoinsViewCache(CCoinsView* base, bool deterministic)
    : CCoinsViewBacked{base},
      m_cache_coins{0, SaltedCoinsCacheHasher{deterministic}, std::equal_to<COutPoint>{}, &m_cache_coins_memory_resource}
{
}

size_t CCoinsViewCache::DynamicMemoryUsage() const
{
    return memusage::DynamicUsage(m_cache_coins) + m_cached_coins_usage + memusage::DynamicUsage(m_heap_slots);
}

CCoinsMap::iterator CCoinsViewCache::FetchCoin(const COutPoint& outpoint) const
{
    if (auto it = m_cache_coins.find(outpoint); it != m_cache_coins.end()) return it;
    if (m_holds_every_parent_coin) return m_cache_coins.end();
    auto coin = FetchCoinFromBase(outpoint);
    if (!coin) return m_cache_coins.end();
    // Cached, it would be a spent entry that is not DIRTY, which no state
    // allows: a view that answers with a spent coin breaks the contract.
    if (coin->IsSpent()) throw std::logic_error("CCoinsViewCache: the parent view returned a spent coin");
    // Read from the parent, so clean: nothing to write back.
    auto [it, inserted] = m_cache_coins.try_emplace(outpoint, std::move(*coin));
    m_cached_coins_usage += it->second.coin.DynamicMemoryUsage();
    return it;
}

std::optional<Coin> CCoinsViewCache::GetCoin(const COutPoint& outpoint) const
{
    if (auto it = FetchCoin(outpoint); it != m_cache_coins.end() && !it->second.coin.IsSpent()) {
        return it->second.coin;
    }
    return std::nullopt;
}

std::optional<Coin> CCoinsViewCache::PeekCoin(const COutPoint& outpoint) const
{
    if (auto it = m_cache_coins.find(outpoint); it != m_cache_coins.end()) {
        // A spent entry is a spend the parent may not know of yet: asking
        // it would resurrect the coin.
        if (it->second.coin.IsSpent()) return std::nullopt;
        return it->second.coin;
    }
    if (m_holds_every_parent_coin) return std::nullopt;
    return m_base->PeekCoin(outpoint);
}

bool CCoinsViewCache::HaveCoin(const COutPoint& outpoint) const
{
    auto it = FetchCoin(outpoint);
    return it != m_cache_coins.end() && !it->second.coin.IsSpent();
}

bool CCoinsViewCache::HaveCoinInCache(const COutPoint& outpoint) const
{
    auto it = m_cache_coins.find(outpoint);
    return it != m_cache_coins.end() && !it->second.coin.IsSpent();
}

const Coin& CCoinsViewCache::AccessCoin(const COutPoint& outpoint) const
{
    auto it = FetchCoin(outpoint);
    return it == m_cache_coins.end() ? EMPTY_COIN : it->second.coin;
}

uint256 CCoinsViewCache::GetBestBlock() const
{
    if (m_best_block.IsNull()) m_best_block = m_base->GetBestBlock();
    return m_best_block;
}

void CCoinsViewCache::SetBestBlock(const uint256& block_hash) { m_best_block = block_hash; }

std::unique_ptr<CCoinsViewCursor> CCoinsViewCache::Cursor() const
{
    throw std::logic_error("CCoinsViewCache cursor iteration not supported.");
}

void CCoinsViewCache::AddCoin(const COutPoint& outpoint, Coin&& coin, bool possible_overwrite)
{
    assert(!coin.IsSpent());
    if (coin.out.scriptPubKey.IsUnspendable()) return;
    auto [it, inserted] = m_cache_coins.try_emplace(outpoint);
    bool fresh = false;
    if (!possible_overwrite) {
        if (!it->second.coin.IsSpent()) {
            throw std::logic_error("Attempted to overwrite an unspent coin (when possible_overwrite is false)");
        }
        // A spent DIRTY entry carries a spend the parent has not seen. Were
        // the re-added coin FRESH, spending it again would drop the entry
        // and that older spend with it, resurrecting the parent's coin.
        fresh = !it->second.IsDirty();
    }
    m_cached_coins_usage -= it->second.coin.DynamicMemoryUsage();
    it->second.coin = std::move(coin);
    MarkDirty(it);
    if (fresh) m_flagged.SetFresh(it);
    m_cached_coins_usage += it->second.coin.DynamicMemoryUsage();
}

void CCoinsViewCache::EmplaceCoinInternalDANGER(COutPoint&& outpoint, Coin&& coin)
{
    auto [it, inserted] = m_cache_coins.try_emplace(std::move(outpoint), std::move(coin));
    if (!inserted) return;
    MarkDirty(it);
    m_cached_coins_usage += it->second.coin.DynamicMemoryUsage();
}

void CCoinsViewCache::EmplaceNewCoinInternalDANGER(COutPoint&& outpoint, Coin&& coin)
{
    auto it = m_cache_coins.emplace_absent(std::move(outpoint), std::move(coin));
    MarkDirty(it);
    const size_t heap = it->second.coin.DynamicMemoryUsage();
    m_cached_coins_usage += heap;
    if (heap > 0) m_heap_slots.push_back(it.slot());
}

bool CCoinsViewCache::SpendCoin(const COutPoint& outpoint, Coin* moveout)
{
    auto it = FetchCoin(outpoint);
    if (it == m_cache_coins.end()) return false;
    m_cached_coins_usage -= it->second.coin.DynamicMemoryUsage();
    if (moveout) *moveout = std::move(it->second.coin);
    if (it->second.IsFresh()) {
        // The parent never saw this coin: forgetting it is the whole spend.
        // A cache makes FRESH entries DIRTY too, but the count must follow
        // the flag, not the cache's habits.
        if (it->second.IsDirty()) --m_dirty_count;
        EraseEntry(it);
    } else {
        MarkDirty(it);
        it->second.coin.Clear();
    }
    return true;
}

namespace {
// How many entries ahead of the one it applies a cache's BatchWrite starts
// loading the map's memory for one (twice that for its bucket).
constexpr size_t BATCH_PREFETCH_DISTANCE = 8;
} // namespace

void CCoinsViewCache::BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block)
{
    // Our map is the big one, and each entry the walk applies costs a
    // cache miss on its bucket and one on the entry it finds there: both
    // are started a few entries ahead (the child's list is in cache).
    CoinsCachePair* bucket_ahead = cursor.Begin();
    CoinsCachePair* chain_ahead = cursor.Begin();
    for (size_t i = 0; i < 2 * BATCH_PREFETCH_DISTANCE && bucket_ahead != cursor.End(); ++i) {
        m_cache_coins.prefetch(bucket_ahead->first);
        bucket_ahead = cursor.Next(*bucket_ahead);
        if (i >= BATCH_PREFETCH_DISTANCE) {
            m_cache_coins.prefetch_chain(chain_ahead->first);
            chain_ahead = cursor.Next(*chain_ahead);
        }
    }
    for (auto it = cursor.Begin(); it != cursor.End(); it = cursor.NextAndMaybeErase(*it)) {
        if (bucket_ahead != cursor.End()) {
            m_cache_coins.prefetch(bucket_ahead->first);
            bucket_ahead = cursor.Next(*bucket_ahead);
        }
        if (chain_ahead != cursor.End()) {
            m_cache_coins.prefetch_chain(chain_ahead->first);
            chain_ahead = cursor.Next(*chain_ahead);
        }
        CCoinsCacheEntry& child = it->second;
        // FRESH alone (never made by a cache) carries nothing to write.
        if (!child.IsDirty()) continue;
        auto ours = m_cache_coins.find(it->first);
        if (ours == m_cache_coins.end()) {
            // A FRESH spent child entry was created and spent below us:
            // nobody above has it, so there is nothing to record.
            if (child.IsFresh() && child.coin.IsSpent()) continue;
            auto [added, inserted] = m_cache_coins.try_emplace(it->first, cursor.MoveOrCopyCoin(*it));
            m_cached_coins_usage += added->second.coin.DynamicMemoryUsage();
            // FRESH carries over only when the child knew its parent (us)
            // had nothing; a non-FRESH child entry may exist further down.
            MarkDirty(added);
            if (child.IsFresh()) m_flagged.SetFresh(added);
            continue;
        }
        if (child.IsFresh() && !ours->second.coin.IsSpent()) {
            throw std::logic_error("FRESH flag misapplied to coin that exists in parent cache");
        }
        if (ours->second.IsFresh() && child.coin.IsSpent()) {
            // Our parent never saw the coin and it is now spent: drop it.
            m_cached_coins_usage -= ours->second.coin.DynamicMemoryUsage();
            if (ours->second.IsDirty()) --m_dirty_count;
            EraseEntry(ours);
            continue;
        }
        m_cached_coins_usage -= ours->second.coin.DynamicMemoryUsage();
        ours->second.coin = cursor.MoveOrCopyCoin(*it);
        m_cached_coins_usage += ours->second.coin.DynamicMemoryUsage();
        // Never add FRESH here: our entry may be a spend our parent still
        // has to learn about.
        MarkDirty(ours);
    }
    m_best_block = best_block;
}

void CCoinsViewCache::Flush()
{
    // Whatever happens below, the parent may hold coins this cache drops,
    // unless it holds no entry at all (the first write of a new
    // chainstate, which records only its best block).
    if (!m_cache_coins.empty()) m_holds_every_parent_coin = false;
    CoinsViewCacheCursor cursor{m_dirty_count, m_flagged, m_cache_coins, /*will_erase=*/true, &m_cached_coins_usage};
    try {
        m_base->BatchWrite(cursor, GetBestBlock());
    } catch (...) {
        // Released all the same: the parent holds every entry, whose flags
        // the release left as they were. The map must go now.
        if (m_flagged.Empty()) DropEntries();
        throw;
    }
    Assume(m_dirty_count == 0 && m_flagged.Empty());
    // The parent holds everything and only clean entries are left. The
    // map keeps its chunks and bucket array, so refilling the cache neither
    // allocates nor rehashes its way up again, and it rewinds its arena:
    // the refill is laid out in address order, which the next flush walks.
    DropEntries();
}

void CCoinsViewCache::DropEntries() noexcept
{
    // All an entry's destructor frees is its script's heap block. When the
    // listed entries hold every heap byte of the cache's coins, freeing
    // theirs leaves no destructor anything to do, and the map is dropped
    // without a walk over every entry: that walk was about a tenth of a
    // snapshot load's flush (it reads the whole cache again, after the
    // write has). A script freed here adds nothing if its slot is listed
    // twice. Any other count (an entry put in by another path) takes the
    // full walk.
    // The listed entries are few and far apart: each is a cache miss,
    // fetched a few places ahead.
    constexpr size_t PREFETCH_AHEAD{16};
    size_t freed = 0;
    for (size_t i = 0; i < m_heap_slots.size(); ++i) {
        if (i + PREFETCH_AHEAD < m_heap_slots.size()) m_cache_coins.prefetch_slot(m_heap_slots[i + PREFETCH_AHEAD]);
        if (CoinsCachePair* entry = m_cache_coins.live_at(m_heap_slots[i])) {
            freed += entry->second.coin.DynamicMemoryUsage();
            entry->second.coin.out.scriptPubKey = CScript{};
        }
    }
    if (freed == m_cached_coins_usage) {
        m_cache_coins.clear_without_destructors();
    } else {
        m_cache_coins.clear();
    }
    m_heap_slots.clear();
    m_cached_coins_usage = 0;
}

void CCoinsViewCache::Sync()
{
    CoinsViewCacheCursor cursor{m_dirty_count, m_flagged, m_cache_coins, /*will_erase=*/false, &m_cached_coins_usage};
    m_base->BatchWrite(cursor, GetBestBlock());
    // Every flagged entry was released: cleaned, or erased if spent. As
    // every spent entry is DIRTY, none is left.
    Assume(m_dirty_count == 0 && m_flagged.Empty());
}

void CCoinsViewCache::Reset() noexcept
{
    // The entries go without being unlinked one by one: the list is
    // emptied with the map. As after a flush, the bucket array and chunks
    // stay for the next use.
    m_cache_coins.clear();
    m_heap_slots.clear();
    m_flagged.Forget();
    m_cached_coins_usage = 0;
    m_dirty_count = 0;
    m_best_block = uint256{};
    m_holds_every_parent_coin = false;
}

void CCoinsViewCache::Uncache(const COutPoint& outpoint)
{
    auto it = m_cache_coins.find(outpoint);
    if (it == m_cache_coins.end() || it->second.IsDirty() || it->second.IsFresh()) return;
    m_cached_coins_usage -= it->second.coin.DynamicMemoryUsage();
    m_cache_coins.erase(it);
    m_holds_every_parent_coin = false;
}

void CCoinsViewCache::SetBackend(CCoinsView& view)
{
    m_holds_every_parent_coin = false;
    CCoinsViewBacked::SetBackend(view);
}

void CCoinsViewCache::MarkDirty(CCoinsMap::iterator it)
{
    if (!it->second.IsDirty()) ++m_dirty_count;
    m_flagged.SetDirty(it);
}

void CCoinsViewCache::EraseEntry(CCoinsMap::iterator it)
{
    m_flagged.SetClean(*it);
    m_cache_coins.erase(it);
}

size_t CCoinsViewCache::RecomputeDynamicMemoryUsage() const
{
    size_t usage = memusage::DynamicUsage(m_cache_coins) + memusage::DynamicUsage(m_heap_slots);
    for (const auto& [outpoint, entry] : m_cache_coins) usage += entry.coin.DynamicMemoryUsage();
    return usage;
}

void CCoinsViewCache::SanityCheck() const
{
    size_t recomputed_usage = 0;
    size_t flagged = 0;
    size_t dirty = 0;
    for (const auto& [outpoint, entry] : m_cache_coins) {
        dirty += entry.IsDirty();
        // Rows of the state table in coins.h that may never exist: FRESH
        // without DIRTY, and a spent entry that is not exactly DIRTY.
        assert(!(entry.IsFresh() && !entry.IsDirty()));
        if (entry.coin.IsSpent()) assert(entry.IsDirty() && !entry.IsFresh());
        flagged += entry.IsDirty() || entry.IsFresh();
        recomputed_usage += entry.coin.DynamicMemoryUsage();
    }
    assert(recomputed_usage == m_cached_coins_usage);
    assert(dirty == m_dirty_count);

    // Both directions of the list agree, every member is a flagged entry of
    // this map, and there are exactly as many members as flagged entries:
    // together, every flagged entry is on the list exactly once.
    size_t linked = 0;
    for (const CoinsCachePair* it = m_flagged.First(); it != m_flagged.End(); it = m_flagged.Next(*it)) {
        assert(m_flagged.Prev(*m_flagged.Next(*it)) == it);
        assert(it->second.IsDirty() || it->second.IsFresh());
        const auto found = m_cache_coins.find(it->first);
        assert(found != m_cache_coins.end() && &*found == it);
        assert(++linked <= flagged);
    }
    assert(m_flagged.Prev(*m_flagged.First()) == m_flagged.End());
    assert(linked == flagged);
}

CoinsViewOverlay::CoinsViewOverlay(CCoinsView* base, std::shared_ptr<ThreadPool> thread_pool, bool deterministic)
    : CCoinsViewCache{base, deterministic}, m_thread_pool{std::move(thread_pool)},
      m_block_txids{0, SaltedCoinsCacheHasher{deterministic}}
{
}

CoinsViewOverlay::~CoinsViewOverlay() { StopFetching(); }

CCoinsViewCache::ResetGuard CoinsViewOverlay::StartFetching(const CBlock& block, bool outputs)
{
    StopFetching();
    const size_t workers = m_thread_pool ? m_thread_pool->WorkersCount() : 0;
    if (workers == 0) return CreateResetGuard();

    if (outputs) {
        size_t count = 0;
        for (const CTransactionRef& tx : block.vtx) count += tx->vout.size();
        m_outputs.reserve(count);
        for (const CTransactionRef& tx : block.vtx) {
            for (uint32_t n = 0; n < tx->vout.size(); ++n) m_inputs.emplace_back(m_outputs.emplace_back(tx->GetHash(), n));
        }
    }
    m_block_txids.clear();
    for (const CTransactionRef& tx : block.vtx) m_block_txids.insert(tx->GetHash());
    for (size_t i = 1; i < block.vtx.size(); ++i) {
        for (const CTxIn& in : block.vtx[i]->vin) {
            if (!m_block_txids.contains(in.prevout.hash)) m_inputs.emplace_back(in.prevout);
        }
    }
    if (m_inputs.empty()) return CreateResetGuard();
    m_block = &block;

    // One task per worker, each reading inputs until none is left. The
    // base is captured now: the workers never read this overlay's members
    // but m_inputs and m_input_head.
    std::vector<std::function<void()>> readers(std::min(workers, m_inputs.size()), [this, base = m_base] {
        uint64_t inputs = 0, outputs = 0;
        for (Claimed claimed; (claimed = ProcessInput(*base)) != Claimed::NONE;) ++(claimed == Claimed::INPUT ? inputs : outputs);
        m_inputs_read_by_workers.fetch_add(inputs, std::memory_order_relaxed);
        m_outputs_read_by_workers.fetch_add(outputs, std::memory_order_relaxed);
    });
    auto futures = m_thread_pool->Submit(std::move(readers));
    if (!futures) {
        // The pool is stopping (shutdown): read on this thread instead.
        LogWarning("Failed to submit prevout fetch tasks ({}); falling back to single-threaded fetching for this block.",
                   SubmitErrorString(futures.error()));
        m_inputs.clear();
        m_outputs.clear();
        m_block = nullptr;
        return CreateResetGuard();
    }
    m_futures = std::move(*futures);
    m_inputs_queued_total += m_inputs.size() - m_outputs.size();
    m_outputs_queued_total += m_outputs.size();
    return CreateResetGuard();
}

namespace {
// How many claims ahead ProcessInput starts a lookup's chain (twice as far,
// its bucket). The workers and the calling thread share the order, so a
// slot a few claims ahead is a few lookups away whoever claims it.
constexpr size_t FETCH_PREFETCH_DISTANCE = 4;
} // namespace

CoinsViewOverlay::Claimed CoinsViewOverlay::ProcessInput(const CCoinsView& base) const noexcept
{
    // Relaxed: the slots were written before the workers were handed their
    // task (under the pool's lock), and each slot's own state orders what
    // happens to it afterwards.
    const size_t index = m_input_head.fetch_add(1, std::memory_order_relaxed);
    if (index >= m_inputs.size()) return Claimed::NONE;
    // Slots are claimed in order, by whichever thread comes: the lookups a
    // few claims ahead get their memory started now (outpoints are set up
    // before any worker starts and never change during the fetch).
    if (index + 2 * FETCH_PREFETCH_DISTANCE < m_inputs.size()) {
        base.PrefetchCoin(*m_inputs[index + 2 * FETCH_PREFETCH_DISTANCE].outpoint, PrefetchStep::BUCKET);
    }
    if (index + FETCH_PREFETCH_DISTANCE < m_inputs.size()) {
        base.PrefetchCoin(*m_inputs[index + FETCH_PREFETCH_DISTANCE].outpoint, PrefetchStep::CHAIN);
    }
    InputToFetch& slot = m_inputs[index];
    SlotState result = SlotState::READY;
    try {
        slot.coin = base.PeekCoin(*slot.outpoint);
    } catch (...) {
        result = SlotState::FAILED;
    }
    slot.state.store(result, std::memory_order_release);
    slot.state.notify_one();
    return index < m_outputs.size() ? Claimed::OUTPUT : Claimed::INPUT;
}

CoinsViewOverlay::SlotState CoinsViewOverlay::AwaitInput(InputToFetch& slot) const noexcept
{
    for (;;) {
        const SlotState state = slot.state.load(std::memory_order_acquire);
        if (state != SlotState::PENDING) return state;
        // Rather than idle, read an input nobody has claimed yet; with none
        // left, sleep until the thread reading this one is done.
        if (ProcessInput(*m_base) == Claimed::NONE) slot.state.wait(SlotState::PENDING, std::memory_order_acquire);
    }
}

std::optional<Coin> CoinsViewOverlay::FetchCoinFromBase(const COutPoint& outpoint) const
{
    if (m_input_tail < m_inputs.size() && *m_inputs[m_input_tail].outpoint == outpoint) {
        InputToFetch& slot = m_inputs[m_input_tail++];
        if (AwaitInput(slot) == SlotState::READY) return std::move(slot.coin);
    }
    return m_base->PeekCoin(outpoint);
}

void CoinsViewOverlay::StopFetching() noexcept
{
    if (m_inputs.empty()) {
        Assume(m_futures.empty());
        return;
    }
    // Every slot is claimed from now on, so each worker returns once done
    // with the one it is reading.
    m_input_head.store(m_inputs.size(), std::memory_order_relaxed);
    for (const auto& future : m_futures) future.wait();
    m_futures.clear();
    m_inputs.clear();
    m_outputs.clear();
    m_input_head.store(0, std::memory_order_relaxed);
    m_input_tail = 0;
    m_block = nullptr;
}

void CoinsViewOverlay::Flush()
{
    if (m_input_tail < m_inputs.size()) {
        LogDebug(logging::Category::COINDB, "Block {} input prevout prefetch queue was not fully consumed ({} of {}); inputs were accessed out of order, so prefetching degraded to serial lookups for this block.",
                 m_block->GetHash().GetHex(), m_input_tail, m_inputs.size());
    }
    StopFetching();
    CCoinsViewCache::Flush();
}

void CoinsViewOverlay::Reset() noexcept
{
    StopFetching();
    CCoinsViewCache::Reset();
}

void AddCoins(CCoinsViewCache& view, const CTransaction& tx, int height, bool check_for_overwrite)
{
    const bool coinbase = tx.IsCoinBase();
    for (uint32_t n = 0; n < tx.vout.size(); ++n) {
        const COutPoint outpoint{tx.GetHash(), n};
        const bool overwrite = check_for_overwrite ? view.HaveCoin(outpoint) : coinbase;
        view.AddCoin(outpoint, Coin{tx.vout[n], height, coinbase}, overwrite);
    }
}
