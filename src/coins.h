#ifndef COINSDB_COINS_H
#define COINSDB_COINS_H

// Coin byte format (value of a chainstate 'C' entry, and each coin of a
// snapshot):
//   VARINT(height * 2 + coinbase), then the compressed TxOut of compressor.h.
// Example: a coinbase output of 50 BTC to P2PKH at height 1:
//   03 | 32 (50 BTC compressed) | 00 <20-byte key hash>

#include <compressor.h>
#include <crypto/siphash.h>
#include <memusage.h>
#include <primitives/transaction.h>
#include <uint256.h>
#include <util/slab_hash_map.h>

#include <atomic>
#include <cassert>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

class CBlock;
class ThreadPool;

// An unspent transaction output with the metadata validation needs.
// 48 bytes: the cache's memory per coin starts here (see script.h).
// A Coin whose output is null is "spent": caches use it to remember a spend
// that the layer below has not seen yet.
class Coin
{
public:
    // CTxOut holds 44 bytes (the amount and a 36-byte script) and is padded
    // to 48. [[no_unique_address]] lets the height and coinbase bit below
    // take that padding: the Itanium C++ ABI (GCC, Clang) reuses the tail
    // padding of such a member when its type is not a C-style POD, and
    // CTxOut is not. The static_assert below holds the compiler to it.
    [[no_unique_address]] CTxOut out;
    uint32_t fCoinBase : 1;
    uint32_t nHeight : 31;

    Coin() : fCoinBase{0}, nHeight{0} {}
    Coin(CTxOut out_in, int height, bool coinbase)
        : out{std::move(out_in)}, fCoinBase{coinbase}, nHeight{static_cast<uint32_t>(height)} {}

    void Clear()
    {
        out.SetNull();
        fCoinBase = 0;
        nHeight = 0;
    }
    bool IsSpent() const { return out.IsNull(); }
    bool IsCoinBase() const { return fCoinBase; }

    // Heap bytes owned by the coin (its script), for cache budgeting.
    size_t DynamicMemoryUsage() const { return memusage::DynamicUsage(static_cast<const CScriptBase&>(out.scriptPubKey)); }

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        assert(!IsSpent());
        WriteVarInt(s, uint64_t{nHeight} * 2 + fCoinBase);
        SerializeCompressedTxOut(s, out);
    }

    template <typename Stream>
    void Unserialize(Stream& s)
    {
        const uint64_t code = ReadVarInt(s);
        if (code > UINT32_MAX) throw std::ios_base::failure("ReadVarInt(): size too large");
        nHeight = static_cast<uint32_t>(code >> 1);
        fCoinBase = code & 1;
        UnserializeCompressedTxOut(s, out);
    }
};

static_assert(sizeof(Coin) == 48);

// Hashes outpoints for the cache map with a per-process random key, so that
// nobody can craft txids that all land in one bucket.
class SaltedCoinsCacheHasher
{
public:
    // deterministic: fixed key for reproducible tests and benchmarks.
    explicit SaltedCoinsCacheHasher(bool deterministic = false);

    size_t operator()(const COutPoint& outpoint) const
    {
        return static_cast<size_t>(SipHashUint256Extra(m_k0, m_k1, outpoint.hash.data(), outpoint.n));
    }
    // A txid alone, for sets of a block's txids (CoinsViewOverlay).
    size_t operator()(const uint256& txid) const
    {
        return static_cast<size_t>(SipHash24(m_k0, m_k1, std::span{txid.data(), uint256::SIZE}));
    }

private:
    uint64_t m_k0;
    uint64_t m_k1;
};

// A cache entry: a coin plus what this cache knows about the layer below.
//
// DIRTY: this entry differs from the parent's view and must be written on
//        the next flush.
// FRESH: the parent has no unspent coin here, so a spend can be dropped
//        instead of written as an erase.
//
// State table (spent?, DIRTY, FRESH):
//   unspent  -      -      clean copy read from the parent.        valid
//   unspent  DIRTY  -      changed/added; parent may hold a coin.  valid
//   unspent  DIRTY  FRESH  added here; parent holds nothing.       valid
//   unspent  -      FRESH  FRESH without DIRTY would never be written: the
//                          coin would vanish at flush.              invalid
//   spent    -      -      a spent entry that needs no write. No view's
//                          GetCoin returns a spent coin (a cache refuses
//                          one), so only this cache's own spend makes a
//                          spent entry, and that is DIRTY. Allowing it
//                          would let a spend survive a Sync.       invalid
//   spent    DIRTY  -      spend the parent must learn about: written as an
//                          erase. Marking it FRESH would lose the spend
//                          and resurrect the parent's coin.        valid
//   spent    DIRTY  FRESH  never kept: SpendCoin and BatchWrite drop it at
//                          once, since the parent holds nothing.    invalid
//   spent    -      FRESH  a spent FRESH entry is erased instead.   invalid
//
// The flagged list: each cache links its flagged entries into a circular
// doubly linked list through a sentinel, so that writing changes back walks
// only the changes, not every cached coin (CoinsFlaggedList, below).
// Invariants:
//   - an entry is on the list exactly once while it has a flag, and not at
//     all while it has none;
//   - entries are in the order they were first flagged: the first flag
//     links an entry in just before the sentinel, later flags leave it be;
//   - an entry leaves the list when the list's SetClean() drops its flags.
//     Nothing else unlinks it: an entry is erased from the map only once
//     clean, and a map cleared with flagged entries in it is followed by
//     the list's Forget();
//   - the sentinel is never in the map, never flagged and never erased
//     while the map exists; an empty list is the sentinel linked to itself;
//   - links stay valid because the map never moves its entries, which is
//     also why entries cannot be copied, and why only an entry on no list
//     (no flags) can be moved.
struct CCoinsCacheEntry {
    enum Flags : uint8_t {
        DIRTY = 1 << 0,
        FRESH = 1 << 1,
    };

    Coin coin;

    CCoinsCacheEntry() = default;
    explicit CCoinsCacheEntry(Coin&& coin_in) : coin{std::move(coin_in)} {}
    // An entry lives in one cache's map and nowhere else: a copy carrying
    // the flags would be a second claim on the same pending write.
    CCoinsCacheEntry(const CCoinsCacheEntry&) = delete;
    CCoinsCacheEntry& operator=(const CCoinsCacheEntry&) = delete;
    // Takes the coin of an entry built outside a map, to move it into one
    // (Core's tests do: map.emplace(outpoint, std::move(entry))). The new
    // entry has no flags. A flagged entry is linked into its cache's list,
    // which would keep pointing at the old one: moving it asserts.
    CCoinsCacheEntry(CCoinsCacheEntry&& other) noexcept : coin{std::move(other.coin)}
    {
        assert(other.FlagBits() == 0);
    }

    bool IsDirty() const { return FlagBits() & DIRTY; }
    bool IsFresh() const { return FlagBits() & FRESH; }

    // The links are slots of the map's arena (CCoinsMap::Arena::At), not
    // pointers: two 32-bit words instead of two 64-bit ones make a cached
    // coin 8 bytes cheaper. The flags take the low bits of the next link,
    // so a slot has LINK_BITS bits; the map's arena hands out no more.
    static constexpr unsigned LINK_BITS = 30;

private:
    friend class CoinsFlaggedList;

    static constexpr unsigned FLAG_BITS = 32 - LINK_BITS;
    static constexpr uint32_t FLAG_MASK = DIRTY | FRESH;
    static_assert(FLAG_MASK < (1U << FLAG_BITS));

    uint8_t FlagBits() const { return static_cast<uint8_t>(m_next_and_flags & FLAG_MASK); }
    uint32_t NextSlot() const { return m_next_and_flags >> FLAG_BITS; }
    void SetNext(uint32_t slot) { m_next_and_flags = (slot << FLAG_BITS) | FlagBits(); }

    // Meaningful only while the entry is flagged.
    uint32_t m_prev{0};
    uint32_t m_next_and_flags{0};
};

// 48 + 4 + 4.
static_assert(sizeof(CCoinsCacheEntry) == 56);

// One cached coin as the map stores it: Core's std::pair<const COutPoint,
// CCoinsCacheEntry> (`first`, `second`, structured bindings), plus the map's
// link to the next entry of its bucket in the 4 bytes that alignment leaves
// between the two halves. 96 bytes, all of a cached coin but its bucket
// and a script longer than SCRIPT_INLINE_BYTES.
struct CoinsCachePair {
    const COutPoint first{};
    // CCoinsMap's (util/slab_hash_map.h); nobody else reads or writes it.
    uint32_t map_link{0};
    CCoinsCacheEntry second{};

    CoinsCachePair() = default;
    template <typename Key, typename... Args>
    explicit CoinsCachePair(Key&& key, Args&&... args) : first{std::forward<Key>(key)}, second{std::forward<Args>(args)...} {}

    template <size_t I>
    auto& get()
    {
        if constexpr (I == 0) return first;
        else return second;
    }
    template <size_t I>
    const auto& get() const
    {
        if constexpr (I == 0) return first;
        else return second;
    }
};
// 36 + 4 + 56: map_link takes the padding, nothing more.
static_assert(sizeof(CoinsCachePair) == 96);

template <>
struct std::tuple_size<CoinsCachePair> : std::integral_constant<size_t, 2> {
};
template <>
struct std::tuple_element<0, CoinsCachePair> {
    using type = const COutPoint;
};
template <>
struct std::tuple_element<1, CoinsCachePair> {
    using type = CCoinsCacheEntry;
};

// The cache's map: 96 + 4 bytes per coin, where std::unordered_map with a
// node pool would cost a 120-byte node and an 8-byte bucket (the layout is
// in util/slab_hash_map.h). The arena holds the entries, as Core's
// CCoinsMapMemoryResource holds its nodes; its slots fit the entries' links.
using CCoinsMap = SlabHashMap<CoinsCachePair, SaltedCoinsCacheHasher, std::equal_to<COutPoint>, CCoinsCacheEntry::LINK_BITS>;
using CCoinsMapMemoryResource = CCoinsMap::Arena;

// The flagged list of the entries of one map (see the invariants above
// CCoinsCacheEntry): the sentinel, and the arena that turns the entries'
// links back into entries. One per map, and not copyable: a copy would be
// a second list claiming the same entries.
class CoinsFlaggedList
{
public:
    // The slot that names the sentinel in a link: no arena slot has it.
    static constexpr uint32_t SENTINEL = (uint32_t{1} << CCoinsCacheEntry::LINK_BITS) - 1;
    static_assert(CCoinsMapMemoryResource::MAX_SLOTS <= SENTINEL);

    explicit CoinsFlaggedList(const CCoinsMapMemoryResource& arena) : m_arena{arena} { Forget(); }
    CoinsFlaggedList(const CoinsFlaggedList&) = delete;
    CoinsFlaggedList& operator=(const CoinsFlaggedList&) = delete;

    // The oldest flagged entry, or End() when there is none.
    CoinsCachePair* First() const { return At(m_sentinel.second.NextSlot()); }
    CoinsCachePair* Last() const { return At(m_sentinel.second.m_prev); }
    // The sentinel: what the walk reaches after the newest entry.
    CoinsCachePair* End() const { return &m_sentinel; }
    bool Empty() const { return m_sentinel.second.NextSlot() == SENTINEL; }
    // Neighbours of a flagged entry, or of the sentinel.
    CoinsCachePair* Next(const CoinsCachePair& pair) const { return At(pair.second.NextSlot()); }
    CoinsCachePair* Prev(const CoinsCachePair& pair) const { return At(pair.second.m_prev); }

    // Flags are only ever added one at a time and only ever cleared all
    // together; adding the first one puts the entry at the tail.
    void SetDirty(CCoinsMap::iterator it) { AddFlags(CCoinsCacheEntry::DIRTY, it); }
    void SetFresh(CCoinsMap::iterator it) { AddFlags(CCoinsCacheEntry::FRESH, it); }
    // The parent now holds exactly this entry's coin: off the list.
    void SetClean(CoinsCachePair& pair);
    // Empties the list without reading its members, for a map that has
    // just destroyed them all (clear()).
    void Forget()
    {
        m_sentinel.second.m_prev = SENTINEL;
        m_sentinel.second.m_next_and_flags = SENTINEL << CCoinsCacheEntry::FLAG_BITS;
    }

private:
    CoinsCachePair* At(uint32_t slot) const { return slot == SENTINEL ? &m_sentinel : m_arena.At(slot); }
    void AddFlags(uint8_t flags, CCoinsMap::iterator it);

    const CCoinsMapMemoryResource& m_arena;
    mutable CoinsCachePair m_sentinel;
};

inline void CoinsFlaggedList::AddFlags(uint8_t flags, CCoinsMap::iterator it)
{
    CCoinsCacheEntry& entry = it->second;
    if (entry.FlagBits() == 0) {
        const uint32_t slot = it.slot();
        CCoinsCacheEntry& sentinel = m_sentinel.second;
        entry.m_prev = sentinel.m_prev;
        entry.m_next_and_flags = SENTINEL << CCoinsCacheEntry::FLAG_BITS;
        At(sentinel.m_prev)->second.SetNext(slot);
        sentinel.m_prev = slot;
    }
    entry.m_next_and_flags |= flags;
}

inline void CoinsFlaggedList::SetClean(CoinsCachePair& pair)
{
    CCoinsCacheEntry& entry = pair.second;
    if (entry.FlagBits() == 0) return;
    CCoinsCacheEntry& prev = At(entry.m_prev)->second;
    CCoinsCacheEntry& next = At(entry.NextSlot())->second;
    next.m_prev = entry.m_prev;
    prev.SetNext(entry.NextSlot());
    entry.m_prev = 0;
    entry.m_next_and_flags = 0;
}

namespace memusage {
inline size_t DynamicUsage(const CCoinsMap& map) { return map.DynamicMemoryUsage(); }
} // namespace memusage

// What a cache hands its parent's BatchWrite: its flagged entries, oldest
// flag first, and nothing else, so a write-back costs what changed rather
// than what is cached.
//
// An entry is released (cleaned, or erased when spent) only once the parent
// holds it: a parent that applies entries one by one releases each as it
// goes (NextAndMaybeErase); a database releases a batch's entries only
// after that batch was written (ReleaseUntil), so a failed write leaves
// every entry it did not store flagged in the cache. A flush (will_erase)
// erases nothing while it walks: the cache drops the whole map once the
// parent has everything, which is cheaper than erasing entry by entry.
class CoinsViewCacheCursor
{
public:
    // dirty_count: the cache's count of DIRTY entries, counted down as each
    // is released, so it is 0 after a complete write and, after a failed
    // one, the number of DIRTY entries still waiting (Core's meaning).
    // usage: the cache's accounting of its coins' heap bytes, kept exact
    // as entries are erased or have their coin moved out; null for a
    // caller that keeps none.
    CoinsViewCacheCursor(size_t& dirty_count, CoinsFlaggedList& list, CCoinsMap& map, bool will_erase, size_t* usage = nullptr)
        : m_dirty_count{dirty_count}, m_usage{usage}, m_list{list}, m_map{map}, m_will_erase{will_erase} {}

    // The oldest entry not released yet.
    // Entries to write (the dirty ones) and entries cached, for log lines.
    size_t DirtyCount() const { return m_dirty_count; }
    size_t CachedCount() const { return m_map.size(); }
    CoinsCachePair* Begin() const { return m_list.First(); }
    CoinsCachePair* End() const { return m_list.End(); }
    // The entry after `current` on the list (End() after the last), for
    // parents that read ahead of what they release.
    CoinsCachePair* Next(const CoinsCachePair& current) const { return m_list.Next(current); }

    // Releases `current`, which must be Begin(), and returns the entry
    // after it: for parents that hold each entry as soon as they apply it.
    CoinsCachePair* NextAndMaybeErase(CoinsCachePair& current);
    // Releases every entry from Begin() up to, not including, `stop`:
    // the parent now holds all of them. `stop` is End() or an entry after
    // Begin() on the list. With will_erase, releasing up to End() only
    // empties the list: the caller must then drop the whole map, whether
    // the write returns or throws (CCoinsViewCache::Flush).
    void ReleaseUntil(const CoinsCachePair* stop);

    // Whether the cache drops `current` once the parent holds it.
    bool WillErase(const CoinsCachePair& current) const { return m_will_erase || current.second.coin.IsSpent(); }

    // The coin of `current` for a parent to keep: moved out when the entry
    // is about to be erased anyway, copied when the cache keeps it. Only
    // for parents that release `current` right after taking its coin.
    Coin MoveOrCopyCoin(CoinsCachePair& current);

private:
    void Release(CoinsCachePair& current);

    size_t& m_dirty_count;
    size_t* m_usage;
    CoinsFlaggedList& m_list;
    CCoinsMap& m_map;
    bool m_will_erase;
};

// Walks coins in database key order: by txid, then by the VARINT of the
// output index (numeric for indexes up to 16511, see serialize.h).
class CCoinsViewCursor
{
public:
    explicit CCoinsViewCursor(const uint256& best_block) : m_best_block{best_block} {}
    virtual ~CCoinsViewCursor() = default;

    virtual bool GetKey(COutPoint& key) const = 0;
    virtual bool GetValue(Coin& coin) const = 0;
    virtual bool Valid() const = 0;
    virtual void Next() = 0;

    const uint256& GetBestBlock() const { return m_best_block; }

private:
    uint256 m_best_block;
};

// The UTXO set as every layer answers for it (Core's pure abstract view):
// the database, a cache over another view, the empty view. No layer stands
// for "no backing": that is CoinsViewEmpty. GetCoin and PeekCoin never
// return a spent coin: a view with none at an outpoint answers nullopt,
// whatever it keeps there. A cache refuses a spent coin from its parent
// (std::logic_error), so its spent entries are all its own spends.
class CCoinsView
{
public:
    virtual ~CCoinsView() = default;

    // The unspent coin at outpoint, if any.
    virtual std::optional<Coin> GetCoin(const COutPoint& outpoint) const = 0;
    // The same answer as GetCoin, but no cache on the way down keeps a copy:
    // for a reader (a prefetcher, a one-off lookup) whose coins should not
    // displace what the caches hold or count against their memory.
    virtual std::optional<Coin> PeekCoin(const COutPoint& outpoint) const = 0;
    virtual bool HaveCoin(const COutPoint& outpoint) const = 0;
    // A hint that outpoint will be looked up soon, which changes nothing:
    // a view that can start loading its memory for it does (a cache, in
    // two steps: first its bucket, then, once that is in, its chain); the
    // others ignore it.
    enum class PrefetchStep : uint8_t {
        BUCKET,
        CHAIN,
    };
    virtual void PrefetchCoin(const COutPoint& outpoint, PrefetchStep step) const {}
    // The block this view's coins are the state after; null when unknown.
    virtual uint256 GetBestBlock() const = 0;
    // Empty, or [new, old] while a multi-batch flush from old to new is not
    // known to have completed (see txdb.h).
    virtual std::vector<uint256> GetHeadBlocks() const = 0;
    // Applies the DIRTY entries the cursor walks over and sets the best
    // block. Releases every entry unless it throws; when it throws, the
    // entries it did not store stay flagged in the cache (see the cursor).
    virtual void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) = 0;
    // Every coin in key order, or null for a view that cannot walk them.
    virtual std::unique_ptr<CCoinsViewCursor> Cursor() const = 0;
    // Bytes the view takes on disk, roughly; 0 when unknown.
    virtual size_t EstimateSize() const = 0;
};

// The view with no coins (Core's CoinsViewEmpty), for a cache with nothing
// below it: every read finds nothing, the best block is null, the head
// blocks are empty, there is no cursor and the size is 0. It stores
// nothing, so a write to it throws std::logic_error and leaves the writer's
// entries flagged, where Core's takes them and drops them: a cache flushed
// into it would otherwise lose its coins without a word. It has no state:
// Get() is the one instance. A test view that keeps coins of its own
// derives from it and overrides what it keeps; HaveCoin and PeekCoin go
// through GetCoin.
class CoinsViewEmpty : public CCoinsView
{
protected:
    CoinsViewEmpty() = default;

public:
    static CoinsViewEmpty& Get();

    CoinsViewEmpty(const CoinsViewEmpty&) = delete;
    CoinsViewEmpty& operator=(const CoinsViewEmpty&) = delete;

    std::optional<Coin> GetCoin(const COutPoint& outpoint) const override;
    std::optional<Coin> PeekCoin(const COutPoint& outpoint) const override;
    bool HaveCoin(const COutPoint& outpoint) const override;
    uint256 GetBestBlock() const override;
    std::vector<uint256> GetHeadBlocks() const override;
    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) override;
    std::unique_ptr<CCoinsViewCursor> Cursor() const override;
    size_t EstimateSize() const override;
};

// Forwards every call to another view.
class CCoinsViewBacked : public CCoinsView
{
public:
    explicit CCoinsViewBacked(CCoinsView* view) : m_base{view} {}

    std::optional<Coin> GetCoin(const COutPoint& outpoint) const override;
    std::optional<Coin> PeekCoin(const COutPoint& outpoint) const override;
    bool HaveCoin(const COutPoint& outpoint) const override;
    uint256 GetBestBlock() const override;
    std::vector<uint256> GetHeadBlocks() const override;
    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) override;
    std::unique_ptr<CCoinsViewCursor> Cursor() const override;
    size_t EstimateSize() const override;

    void SetBackend(CCoinsView& view) { m_base = &view; }

protected:
    CCoinsView* m_base;
};

// An in-memory layer of changes on top of another view.
class CCoinsViewCache : public CCoinsViewBacked
{
public:
    explicit CCoinsViewCache(CCoinsView* base, bool deterministic = false);
    CCoinsViewCache(const CCoinsViewCache&) = delete;
    CCoinsViewCache& operator=(const CCoinsViewCache&) = delete;

    std::optional<Coin> GetCoin(const COutPoint& outpoint) const override;
    // This cache's entry if it has one (a spent entry reads as no coin),
    // else the parent's PeekCoin; inserts nothing here.
    std::optional<Coin> PeekCoin(const COutPoint& outpoint) const override;
    bool HaveCoin(const COutPoint& outpoint) const override;
    void PrefetchCoin(const COutPoint& outpoint, PrefetchStep step) const override
    {
        if (step == PrefetchStep::BUCKET) {
            m_cache_coins.prefetch(outpoint);
        } else {
            m_cache_coins.prefetch_chain(outpoint);
        }
    }
    uint256 GetBestBlock() const override;
    void SetBestBlock(const uint256& block_hash);
    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) override;
    // A cache has no stable key order to walk.
    std::unique_ptr<CCoinsViewCursor> Cursor() const override;

    // True when an unspent coin is already cached; never reads the parent.
    bool HaveCoinInCache(const COutPoint& outpoint) const;

    // A reference valid until the next change to this cache; a spent,
    // empty coin when there is none.
    const Coin& AccessCoin(const COutPoint& outpoint) const;

    // Adds an unspent coin. possible_overwrite says an unspent coin may
    // already exist (BIP30 duplicates); without it, overwriting one throws
    // std::logic_error. Unspendable outputs are ignored.
    void AddCoin(const COutPoint& outpoint, Coin&& coin, bool possible_overwrite);

    // Bulk-load path for snapshots: inserts a DIRTY coin without reading the
    // parent and without any check. Only safe when the parent is known not
    // to hold the outpoint.
    void EmplaceCoinInternalDANGER(COutPoint&& outpoint, Coin&& coin);
    // The same for a coin this cache is known not to hold either: the map
    // does not look for it first. A snapshot read in strictly ascending key
    // order into a cache that held nothing else is that case.
    void EmplaceNewCoinInternalDANGER(COutPoint&& outpoint, Coin&& coin);
    // A hint, changes nothing: a bulk load about to insert outpoint a few
    // coins from now, so the map's memory for it is in the CPU cache by then.
    void PrefetchEntry(const COutPoint& outpoint) const { m_cache_coins.prefetch(outpoint); }

    // Spends a coin, optionally moving it out first. Returns false when
    // neither this cache nor its parents have an entry; an entry that is
    // already spent here counts as found, as upstream.
    bool SpendCoin(const COutPoint& outpoint, Coin* moveout = nullptr);

    // Writes every change to the parent, then empties this cache: for
    // when the memory is wanted back. Afterwards the parent shows what this
    // cache showed, best block included, and this cache holds no entry:
    // nothing flagged, a dirty count of 0 and no coin memory, only the
    // bucket array kept for the refill. When the parent's BatchWrite
    // throws, the entries it did not store stay flagged (see the cursor).
    virtual void Flush();
    // Writes every change to the parent and keeps the unspent coins cached,
    // so that the blocks that follow still find them here. Afterwards the
    // parent shows what this cache showed, best block included; no entry
    // here is DIRTY or FRESH (the dirty count is 0), every spent entry is
    // gone, and every unspent entry is still cached with the same coin,
    // clean. When the parent's BatchWrite throws, as for Flush.
    void Sync();

    // Forgets everything, flagged entries included, and the best block, as
    // if the cache had just been made over its parent: nothing reaches the
    // parent. For a view reused block after block whose changes are wanted
    // only when the block connects (and were then flushed before this).
    virtual void Reset() noexcept;

    // Calls Reset() on the cache when it goes out of scope, so that every
    // way out of the scope using an ephemeral view, a throw or an early
    // return on an invalid block included, leaves the view empty for the
    // next use.
    class ResetGuard
    {
    public:
        ResetGuard(const ResetGuard&) = delete;
        ResetGuard& operator=(const ResetGuard&) = delete;
        ~ResetGuard() { m_cache.Reset(); }

    private:
        friend class CCoinsViewCache;
        explicit ResetGuard(CCoinsViewCache& cache) noexcept : m_cache{cache} {}
        CCoinsViewCache& m_cache;
    };
    [[nodiscard]] ResetGuard CreateResetGuard() noexcept { return ResetGuard{*this}; }

    // Drops a clean entry to free memory; flagged entries stay.
    void Uncache(const COutPoint& outpoint);

    // Declares that this cache holds every unspent coin its parent has: the
    // caller knows the parent holds no coin (a new or wiped chainstate) and
    // that nothing but this cache writes to it. While that lasts, a coin
    // this cache has no entry for exists nowhere, so FetchCoin and PeekCoin
    // answer "none" without asking the parent. It lasts as long as the
    // cache lets go of no unspent coin: Sync keeps it (the spent entries it
    // erases are erased in the parent too), and so does a Flush of a cache
    // without entries; any other Flush, Reset, Uncache of an entry and a
    // new parent end it. A replay whose UTXO set fits the cache
    // so reads nothing from the database, where every output's BIP30 check
    // would otherwise be a LevelDB read that finds nothing.
    void MarkHoldsEveryParentCoin() { m_holds_every_parent_coin = true; }
    bool HoldsEveryParentCoin() const { return m_holds_every_parent_coin; }
    // Ends MarkHoldsEveryParentCoin, then as CCoinsViewBacked's.
    void SetBackend(CCoinsView& view);

    size_t GetCacheSize() const { return m_cache_coins.size(); }
    // The most entries the map can hold (its arena's slots, see
    // CoinsFlaggedList): past them an insert throws std::length_error.
    // About 100 GB of entries, so only a -dbcache above that reaches it.
    static constexpr size_t MAX_ENTRIES = CCoinsMapMemoryResource::MAX_SLOTS;
    // Sizes the map's bucket array for `entries` coins at once, so a bulk
    // load does not rehash its way up; the array counts as cache memory.
    void ReserveEntries(size_t entries) { m_cache_coins.reserve(entries); }
    // Memory one more cached coin costs at least: its map entry and bucket.
    static constexpr size_t MIN_BYTES_PER_ENTRY = sizeof(CoinsCachePair) + sizeof(uint32_t);
    size_t DynamicMemoryUsage() const;
    // Entries with a DIRTY flag, kept as they change rather than counted:
    // also the length of the flagged list, since a cache never holds FRESH
    // without DIRTY. Zero right after a Flush, a Sync or a Reset.
    size_t GetDirtyCount() const { return m_dirty_count; }

    // DynamicMemoryUsage() recomputed entry by entry, to check the running
    // count against. Walks the whole map. For tests.
    size_t RecomputeDynamicMemoryUsage() const;
    // Checks the flag invariants, the flagged list and the memory accounting;
    // asserts on a violation. For tests.
    void SanityCheck() const;

protected:
    // How FetchCoin reads a coin this cache has no entry for: the parent's
    // GetCoin, so that every cache below keeps a copy on the way up.
    virtual std::optional<Coin> FetchCoinFromBase(const COutPoint& outpoint) const { return m_base->GetCoin(outpoint); }

private:
    // The entry for outpoint, reading it from the parent if needed; end()
    // when nobody has an unspent coin.
    CCoinsMap::iterator FetchCoin(const COutPoint& outpoint) const;
    // Flags the entry DIRTY, counting it if it was not already.
    void MarkDirty(CCoinsMap::iterator it);
    // Erases an entry, taking it off the flagged list first.
    void EraseEntry(CCoinsMap::iterator it);
    // Empties the map (and its heap accounting) after a flush.
    void DropEntries() noexcept;

    mutable uint256 m_best_block;
    // Declared before the map, which destroys its entries in it.
    mutable CCoinsMapMemoryResource m_cache_coins_memory_resource;
    // Declared before the map so that it outlives the entries linked to it.
    CoinsFlaggedList m_flagged{m_cache_coins_memory_resource};
    mutable CCoinsMap m_cache_coins;
    // Heap bytes of the cached coins' scripts; the map's own nodes are
    // added in DynamicMemoryUsage().
    mutable size_t m_cached_coins_usage{0};
    // Slots of the entries EmplaceNewCoinInternalDANGER put in with a
    // script on the heap, until the map is next emptied (DropEntries). A
    // slot may since hold another entry, or none.
    std::vector<uint32_t> m_heap_slots;
    // Entries flagged DIRTY; the cursor counts it down as a write releases
    // them.
    size_t m_dirty_count{0};
    // See MarkHoldsEveryParentCoin. Read by the overlay's workers through
    // PeekCoin, and changed only while no fetch runs.
    bool m_holds_every_parent_coin{false};
};

// The view a block is connected in, on top of the tip cache (Core's
// CoinsViewOverlay). Two things set it apart from a plain child cache:
//  - it reads its base through PeekCoin, so the caches below are not filled
//    with the coins of a block that may yet prove invalid, and it writes to
//    its base only when flushed, which the caller does once the block is
//    known to connect;
//  - StartFetching(block) has the thread pool's workers read the block's
//    inputs from the base, in block order, while the calling thread
//    connects it. When the calling thread then needs the coin of the next
//    input in that order, it takes the worker's copy instead of reading.
// Its answers are a plain cache's over the same base: a worker reads what
// the calling thread would have read, since nothing writes to the base
// while a fetch runs (rule 1 below). An input whose coin the calling thread
// asks for out of that order is read again, serially.
//
// Thread-safety. A fetch runs from StartFetching until Flush, Reset (which
// the guard StartFetching returns calls at the end of its scope) or
// destruction. During it the workers call PeekCoin on the base, at the same
// time as each other and as the calling thread. Hence:
//  1. Nothing may write to the base, or to any view below it, while a fetch
//     runs. The overlay itself writes to its base only in Flush, which ends
//     the fetch first; Sync and SetBackend are deleted. Other threads are
//     the caller's to keep out: the node connects blocks under the
//     chainstate lock, which every other writer of the tip takes too.
//  2. The PeekCoin of every view below must be a read that several threads
//     may make at once: a CCoinsViewCache's looks its map up and, unlike
//     GetCoin, inserts nothing; a CCoinsViewDB's is a LevelDB Get, which
//     LevelDB allows from any thread.
//  3. Everything else in the overlay (its map, flags, counters, the
//     progress of the fetch) belongs to the calling thread, which must be
//     the only thread calling it. A worker writes only the slot of the input
//     it claimed, then publishes it by storing the slot's state with release
//     order; the calling thread reads the coin only after loading that state
//     with acquire order.
class CoinsViewOverlay : public CCoinsViewCache
{
public:
    // thread_pool: the workers StartFetching uses; with none (null, or not
    // started) nothing is read ahead and the overlay reads each coin when
    // it is asked for, still through PeekCoin.
    CoinsViewOverlay(CCoinsView* base, std::shared_ptr<ThreadPool> thread_pool, bool deterministic = false);
    ~CoinsViewOverlay() override;

    // Starts reading the coins `block`'s inputs spend on the workers. Inputs
    // spending an output of the block itself (a txid of the block, coinbase
    // included) are left out: such a coin is created in this overlay, not
    // read. With `outputs`, the workers first look up every output of the
    // block, in block order, as the BIP30 check (no output may replace an
    // unspent coin) asks for them before any input: each is a read of the
    // base that finds nothing, and on a database larger than the cache the
    // costliest part of connecting a block. `block` must outlive the fetch.
    // A fetch still running is ended first. The overlay is meant to be
    // empty (new, or after Reset). The guard resets the overlay, which ends
    // the fetch, when its scope ends: flush before that to keep the changes.
    [[nodiscard]] ResetGuard StartFetching(const CBlock& block, bool outputs = false);

    void Flush() override;
    void Reset() noexcept override;
    // Would write to the base, or re-point it, while workers may be reading.
    void Sync() = delete;
    void SetBackend(CCoinsView& view) = delete;

    // Lookups the running fetch reads ahead (its outputs, then its inputs),
    // and how many of them the calling thread has taken so far, in order.
    // 0 and 0 with no fetch.
    size_t InputsQueued() const { return m_inputs.size(); }
    size_t InputsTaken() const { return m_input_tail; }
    // Over every fetch since construction: the inputs queued, and how many
    // of them the workers read (the calling thread reads the others while
    // it waits). Without the second, a replay with workers that never ran
    // would look exactly like one where they did: the answers are the same.
    uint64_t InputsQueuedTotal() const { return m_inputs_queued_total; }
    uint64_t InputsReadByWorkers() const { return m_inputs_read_by_workers.load(std::memory_order_relaxed); }
    // The same for the outputs looked up (StartFetching with `outputs`).
    uint64_t OutputsQueuedTotal() const { return m_outputs_queued_total; }
    uint64_t OutputsReadByWorkers() const { return m_outputs_read_by_workers.load(std::memory_order_relaxed); }

protected:
    std::optional<Coin> FetchCoinFromBase(const COutPoint& outpoint) const override;

private:
    // The states of one input's slot:
    //   PENDING  nobody has read it yet, or its reader is still at it.
    //   READY    `coin` holds the base's PeekCoin answer (nullopt: no coin).
    //   FAILED   PeekCoin threw; the calling thread reads the coin again
    //            itself, so the error is thrown where it would be without
    //            workers.
    // PENDING -> READY or FAILED, once, by the one thread that claimed the
    // slot; the calling thread takes a slot's coin at most once.
    enum class SlotState : uint8_t { PENDING, READY, FAILED };
    struct InputToFetch {
        const COutPoint* outpoint;
        std::optional<Coin> coin;
        std::atomic<SlotState> state{SlotState::PENDING};

        explicit InputToFetch(const COutPoint& out) : outpoint{&out} {}
        // For the vector's growth in StartFetching, before any worker runs.
        InputToFetch(InputToFetch&& other) noexcept
            : outpoint{other.outpoint}, coin{std::move(other.coin)}, state{other.state.load(std::memory_order_relaxed)} {}
    };

    // Claims the next unclaimed slot and reads its coin from `base`; NONE
    // when none is left. Called by the workers and by the calling thread
    // while it waits.
    enum class Claimed : uint8_t {
        NONE,
        OUTPUT,
        INPUT,
    };
    Claimed ProcessInput(const CCoinsView& base) const noexcept;
    // Waits until `slot` is READY or FAILED, reading other inputs meanwhile.
    SlotState AwaitInput(InputToFetch& slot) const noexcept;
    // Makes the remaining inputs unclaimable, waits for the workers and
    // forgets the fetch.
    void StopFetching() noexcept;

    std::shared_ptr<ThreadPool> m_thread_pool;
    // The txids of the block being fetched; kept to reuse its buckets.
    std::unordered_set<uint256, SaltedCoinsCacheHasher> m_block_txids;
    const CBlock* m_block{nullptr};
    // Set up before the workers start and left alone until they are done,
    // but for each slot's coin and state (rule 3).
    mutable std::vector<InputToFetch> m_inputs;
    // The outpoints of the outputs looked up, which the first slots of
    // m_inputs point to (reserved in full first, so they never move).
    std::vector<COutPoint> m_outputs;
    // The next slot nobody has claimed; workers and the calling thread
    // claim slots by incrementing it.
    mutable std::atomic<size_t> m_input_head{0};
    // The next slot the calling thread will take, if asked for its coin.
    mutable size_t m_input_tail{0};
    std::vector<std::future<void>> m_futures;
    uint64_t m_inputs_queued_total{0};
    std::atomic<uint64_t> m_inputs_read_by_workers{0};
    uint64_t m_outputs_queued_total{0};
    std::atomic<uint64_t> m_outputs_read_by_workers{0};
};

// Adds every output of `tx` to `view` as a coin of `height`: Core's step of
// connecting one transaction's outputs. Without check_for_overwrite only a
// coinbase may replace an unspent coin, as the two duplicate coinbases BIP30
// grandfathered did; any other output must be new. With it, each output
// replaces whatever coin is there: a crash replay re-applies blocks that may
// already be partly in the view. Unspendable outputs are skipped (AddCoin).
void AddCoins(CCoinsViewCache& view, const CTransaction& tx, int height, bool check_for_overwrite = false);

#endif // COINSDB_COINS_H
