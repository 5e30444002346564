#ifndef COINSDB_UTIL_SLAB_HASH_MAP_H
#define COINSDB_UTIL_SLAB_HASH_MAP_H

// A hash map for one very large population of small entries (the coins
// cache), built to spend as few bytes per entry as it can:
//
//                             std::unordered_map + pool   SlabHashMap
//   next-node pointer                       8                   -
//   cached hash code                        8                   -
//   bucket (at load factor 1)               8                   4
//   link to the next entry in the bucket    -            4, in the entry's
//                                                        own padding
//
// Layout:
// - Entries live in a SlabArena: chunk c holds FIRST_CHUNK << c entries, so
//   a 32-bit index finds its entry with one bit scan, and a small map (a
//   child cache of one block) only ever allocates a small chunk. Entries
//   never move: pointers and references to one stay valid until it is
//   erased, which the coins cache's flagged list relies on.
// - A bucket holds the index of the first entry hashed to it; each entry's
//   `map_link` (a uint32_t member the entry type provides, typically where
//   alignment would leave padding) holds the next index in that bucket.
//   NIL ends a chain. The bucket count is any number, not a power of two:
//   a hash's upper 32 bits are scaled into it (multiply and shift).
// - The map grows its bucket array x2 when it would hold more entries than
//   buckets; reserve() sizes it once for a known count.
// - Erased entries wait on the arena's free list for the next insert.
//   clear() destroys every entry in slot order and rewinds the arena, so a
//   refill lays entries out in order again; chunks and buckets are kept.
// - A bitmap of live slots drives iteration and clear(), in slot order:
//   address order within a chunk, chunk after chunk.
//
// Not thread-safe, except that const lookups may run concurrently with each
// other.

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

// INDEX_BITS: every slot index fits in that many bits, so that an entry
// type may keep indexes of its own in fewer than 32 (the coins cache's
// flagged list does).
template <typename T, unsigned INDEX_BITS = 32>
class SlabArena
{
public:
    static constexpr uint32_t NIL = UINT32_MAX;
    static constexpr unsigned FIRST_CHUNK_BITS = 6;
    static constexpr uint32_t FIRST_CHUNK = uint32_t{1} << FIRST_CHUNK_BITS;
    static_assert(INDEX_BITS > FIRST_CHUNK_BITS && INDEX_BITS <= 32);
    static constexpr unsigned CHUNKS = INDEX_BITS - FIRST_CHUNK_BITS;
    // FIRST_CHUNK * (2^CHUNKS - 1) slots in all: every index is below
    // 2^INDEX_BITS - FIRST_CHUNK, hence below NIL too.
    static constexpr uint32_t MAX_SLOTS = FIRST_CHUNK * ((uint32_t{1} << CHUNKS) - 1);

    SlabArena() = default;
    SlabArena(const SlabArena&) = delete;
    SlabArena& operator=(const SlabArena&) = delete;
    ~SlabArena()
    {
        for (unsigned c = 0; c < CHUNKS; ++c) {
            if (m_slots[c]) ::operator delete(m_slots[c], std::align_val_t{alignof(T)});
        }
    }

    // The slot of `index`, constructed or not.
    T* At(uint32_t index) const
    {
        const unsigned c = ChunkOf(index);
        return m_slots[c] + (index - ChunkStart(c));
    }

    bool IsLive(uint32_t index) const
    {
        const unsigned c = ChunkOf(index);
        const uint32_t i = index - ChunkStart(c);
        return (m_live[c][i / 64] >> (i % 64)) & 1;
    }

    // The first live slot at or after `index`, or NIL.
    uint32_t NextLive(uint32_t index) const
    {
        while (index < m_high_water) {
            const unsigned c = ChunkOf(index);
            const uint32_t start = ChunkStart(c);
            const uint32_t size = FIRST_CHUNK << c;
            uint32_t i = index - start;
            uint64_t word = m_live[c][i / 64] >> (i % 64);
            if (word) return std::min(index + static_cast<uint32_t>(std::countr_zero(word)), NIL);
            for (i = (i / 64 + 1) * 64; i < size; i += 64) {
                if (start + i >= m_high_water) return NIL;
                if (m_live[c][i / 64]) return start + i + static_cast<uint32_t>(std::countr_zero(m_live[c][i / 64]));
            }
            index = start + size;
        }
        return NIL;
    }

    // A slot to construct an entry in: the last one freed, else the next
    // never used. Marked live; the caller constructs the entry or gives
    // the slot back. Throws std::length_error when all MAX_SLOTS are live.
    uint32_t Take()
    {
        uint32_t index = m_free;
        if (index != NIL) {
            std::memcpy(&m_free, static_cast<void*>(At(index)), sizeof(m_free));
        } else {
            if (m_high_water == MAX_SLOTS) throw std::length_error("SlabArena: every slot is in use");
            index = m_high_water;
            const unsigned c = ChunkOf(index);
            if (!m_slots[c]) NewChunk(c);
            ++m_high_water;
        }
        SetLive(index, true);
        ++m_in_use;
        return index;
    }

    // Takes back a slot whose entry was destroyed (or never constructed).
    void Give(uint32_t index) noexcept
    {
        SetLive(index, false);
        std::memcpy(static_cast<void*>(At(index)), &m_free, sizeof(m_free));
        m_free = index;
        --m_in_use;
    }

    // Frees every slot, whose entries the caller has destroyed, and starts
    // again from slot 0: the next entries fill the chunks in address order.
    void Rewind() noexcept
    {
        m_in_use = 0;
        for (unsigned c = 0; c < CHUNKS && ChunkStart(c) < m_high_water; ++c) {
            const uint32_t used = std::min<uint32_t>(m_high_water - ChunkStart(c), FIRST_CHUNK << c);
            std::fill_n(m_live[c], (used + 63) / 64, uint64_t{0});
        }
        m_high_water = 0;
        m_free = NIL;
    }

    uint32_t HighWater() const { return m_high_water; }
    size_t InUse() const { return m_in_use; }
    // Bytes of the live bitmaps of the chunks allocated so far.
    size_t BitmapBytes() const { return m_bitmap_bytes; }

private:
    static unsigned ChunkOf(uint32_t index) { return std::bit_width((index >> FIRST_CHUNK_BITS) + 1) - 1; }
    static uint32_t ChunkStart(unsigned c) { return FIRST_CHUNK * ((uint32_t{1} << c) - 1); }

    void SetLive(uint32_t index, bool live)
    {
        const unsigned c = ChunkOf(index);
        const uint32_t i = index - ChunkStart(c);
        const uint64_t bit = uint64_t{1} << (i % 64);
        if (live) {
            m_live[c][i / 64] |= bit;
        } else {
            m_live[c][i / 64] &= ~bit;
        }
    }

    void NewChunk(unsigned c)
    {
        assert(c < CHUNKS);
        const size_t slots = size_t{FIRST_CHUNK} << c;
        // Large chunks come from mmap: pages are only paid for once touched.
        m_live_storage[c] = std::make_unique<uint64_t[]>(slots / 64);
        m_live[c] = m_live_storage[c].get();
        m_slots[c] = static_cast<T*>(::operator new(slots * sizeof(T), std::align_val_t{alignof(T)}));
        m_bitmap_bytes += slots / 8;
    }

    T* m_slots[CHUNKS]{};
    uint64_t* m_live[CHUNKS]{};
    std::unique_ptr<uint64_t[]> m_live_storage[CHUNKS];
    uint32_t m_high_water{0};
    uint32_t m_free{NIL};
    size_t m_in_use{0};
    size_t m_bitmap_bytes{0};
};

// Entry: has `first` (the key), `second` (the value), a `uint32_t map_link`
// this map owns, and a constructor Entry(key, value-args...). INDEX_BITS:
// the arena's (SlabArena), which caps the map at Arena::MAX_SLOTS entries.
template <typename Entry, typename Hash, typename KeyEqual = std::equal_to<std::remove_const_t<decltype(Entry::first)>>, unsigned INDEX_BITS = 32>
class SlabHashMap
{
public:
    using key_type = std::remove_const_t<decltype(Entry::first)>;
    using mapped_type = decltype(Entry::second);
    using value_type = Entry;
    using hasher = Hash;
    using key_equal = KeyEqual;
    using size_type = size_t;
    using Arena = SlabArena<Entry, INDEX_BITS>;
    // Where std::unordered_map takes an allocator, this map takes its arena.
    using allocator_type = Arena*;
    static constexpr uint32_t NIL = Arena::NIL;

    template <bool CONST>
    class Iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Entry;
        using difference_type = std::ptrdiff_t;
        using reference = std::conditional_t<CONST, const Entry&, Entry&>;
        using pointer = std::conditional_t<CONST, const Entry*, Entry*>;

        Iterator() = default;
        // iterator -> const_iterator
        template <bool OTHER, typename = std::enable_if_t<CONST && !OTHER>>
        Iterator(const Iterator<OTHER>& other) : m_arena{other.m_arena}, m_index{other.m_index}, m_bucket{other.m_bucket} {}

        reference operator*() const { return *m_arena->At(m_index); }
        // The entry's slot in the arena (Arena::At finds it again), the
        // same until the entry is erased.
        uint32_t slot() const { return m_index; }
        pointer operator->() const { return m_arena->At(m_index); }
        Iterator& operator++()
        {
            m_index = m_index + 1 == NIL ? NIL : m_arena->NextLive(m_index + 1);
            m_bucket = NIL;
            return *this;
        }
        Iterator operator++(int)
        {
            Iterator old{*this};
            ++*this;
            return old;
        }
        friend bool operator==(const Iterator& a, const Iterator& b) { return a.m_index == b.m_index; }

    private:
        friend class SlabHashMap;
        template <bool>
        friend class Iterator;
        Iterator(const Arena* arena, uint32_t index, uint32_t bucket) : m_arena{arena}, m_index{index}, m_bucket{bucket} {}

        const Arena* m_arena{nullptr};
        uint32_t m_index{NIL};
        // The entry's bucket when the iterator came from a lookup, so that
        // erasing through it need not hash the key again; NIL otherwise.
        uint32_t m_bucket{NIL};
    };
    using iterator = Iterator<false>;
    using const_iterator = Iterator<true>;

    explicit SlabHashMap(size_t bucket_count = 0, const Hash& hash = Hash{}, const KeyEqual& equal = KeyEqual{}, Arena* arena = nullptr)
        : m_hash{hash}, m_equal{equal}, m_arena{arena}
    {
        if (!m_arena) {
            m_own_arena = std::make_unique<Arena>();
            m_arena = m_own_arena.get();
        }
        // One map per arena: iteration walks the arena's live slots.
        assert(m_arena->InUse() == 0);
        if (bucket_count) Rehash(bucket_count);
    }
    SlabHashMap(const SlabHashMap&) = delete;
    SlabHashMap& operator=(const SlabHashMap&) = delete;
    ~SlabHashMap() { clear(); }

    iterator begin() { return {m_arena, m_arena->NextLive(0), NIL}; }
    iterator end() { return {m_arena, NIL, NIL}; }
    const_iterator begin() const { return {m_arena, m_arena->NextLive(0), NIL}; }
    const_iterator end() const { return {m_arena, NIL, NIL}; }

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    size_t bucket_count() const { return m_bucket_count; }

    iterator find(const key_type& key) { return Find(key); }
    const_iterator find(const key_type& key) const { return Find(key); }
    size_t count(const key_type& key) const { return contains(key); }
    bool contains(const key_type& key) const { return Find(key) != end(); }

    // Inserts Entry(key, args...) unless key is present; either way the
    // entry for key and whether it was inserted.
    template <typename K, typename... Args>
    std::pair<iterator, bool> try_emplace(K&& key, Args&&... args)
    {
        const size_t hash = m_hash(key);
        if (m_bucket_count) {
            const uint32_t bucket = BucketOf(hash);
            if (const uint32_t index = IndexIn(bucket, key); index != NIL) return {iterator{m_arena, index, bucket}, false};
        }
        return {Insert(hash, std::forward<K>(key), std::forward<Args>(args)...), true};
    }

    // The same insertion under std::unordered_map's name, as Core's code
    // calls it: emplace(key, value-args...). Unlike the standard one, which
    // may build the entry before looking, a present key leaves the
    // arguments untouched, as try_emplace does.
    template <typename K, typename... Args>
    std::pair<iterator, bool> emplace(K&& key, Args&&... args)
    {
        return try_emplace(std::forward<K>(key), std::forward<Args>(args)...);
    }

    // Inserts Entry(key, args...) without looking for key first: for bulk
    // loads whose keys are known to be absent (and distinct). A key that is
    // present ends up in the map twice, so the caller must be sure.
    template <typename K, typename... Args>
    iterator emplace_absent(K&& key, Args&&... args)
    {
        const size_t hash = m_hash(key);
        return Insert(hash, std::forward<K>(key), std::forward<Args>(args)...);
    }

    // Starts loading key's bucket into the CPU cache. An insert's one cache
    // miss is its bucket (entries are laid out in slot order); a bulk
    // insert that knows its keys a few ahead can hide it this way.
    void prefetch(const key_type& key) const
    {
        if (m_bucket_count) __builtin_prefetch(&m_buckets[BucketOf(m_hash(key))], /*rw=*/1);
    }

    // The next step for a lookup: once key's bucket is in cache (prefetch
    // a few steps earlier), starts loading the first entry of its chain.
    void prefetch_chain(const key_type& key) const
    {
        if (!m_bucket_count) return;
        if (const uint32_t index = m_buckets[BucketOf(m_hash(key))]; index != NIL) __builtin_prefetch(m_arena->At(index), /*rw=*/1);
    }

    void erase(const_iterator it)
    {
        const uint32_t index = it.m_index;
        Entry* entry = m_arena->At(index);
        const uint32_t bucket = it.m_bucket != NIL ? it.m_bucket : BucketOf(m_hash(entry->first));
        uint32_t* link = &m_buckets[bucket];
        while (*link != index) {
            assert(*link != NIL);
            link = &m_arena->At(*link)->map_link;
        }
        *link = entry->map_link;
        entry->~Entry();
        m_arena->Give(index);
        --m_size;
    }

    size_t erase(const key_type& key)
    {
        const const_iterator it = Find(key);
        if (it == end()) return 0;
        erase(it);
        return 1;
    }

    // Destroys every entry, in slot order. Keeps the bucket array and
    // the arena's chunks for the refill.
    void clear() noexcept
    {
        for (uint32_t index = m_arena->NextLive(0); index != NIL; index = m_arena->NextLive(index + 1)) {
            m_arena->At(index)->~Entry();
        }
        Forget();
    }

    // clear() without running a destructor: for a caller that knows none
    // of the entries' destructors has anything left to free. Their slots
    // are reused as they are. It saves a walk over every entry, which for
    // a large map is a read of all its memory.
    void clear_without_destructors() noexcept { Forget(); }

    // Starts loading the entry in `slot` into the CPU cache, if the arena
    // has got that far.
    void prefetch_slot(uint32_t slot) const
    {
        if (slot < m_arena->HighWater()) __builtin_prefetch(m_arena->At(slot));
    }

    // The live entry in `slot` (iterator::slot()), or null when that slot
    // holds none.
    Entry* live_at(uint32_t slot) const
    {
        if (slot >= m_arena->HighWater() || !m_arena->IsLive(slot)) return nullptr;
        return m_arena->At(slot);
    }

    // Buckets for `count` entries, so that inserting them does not rehash.
    void reserve(size_t count)
    {
        if (count > m_bucket_count) Rehash(count);
    }

    // Bytes this map holds for its entries: one Entry each (no allocation
    // header: the arena's chunks are large), the bucket array, and the live
    // bitmaps. Free slots awaiting reuse are not counted, as they would not
    // be for a pool.
    size_t DynamicMemoryUsage() const
    {
        return m_size * sizeof(Entry) + m_bucket_count * sizeof(uint32_t) + m_arena->BitmapBytes();
    }

private:
    // Empties the map whose entries are destroyed or need not be.
    void Forget() noexcept
    {
        m_size = 0;
        m_arena->Rewind();
        std::fill_n(m_buckets.get(), m_bucket_count, NIL);
    }

    // Links a new Entry(key, args...) at the head of its bucket, growing
    // the bucket array first if the map is at load factor 1.
    template <typename K, typename... Args>
    iterator Insert(size_t hash, K&& key, Args&&... args)
    {
        if (m_size >= m_bucket_count) Rehash(std::max<size_t>(m_bucket_count * 2, 16));
        const uint32_t index = m_arena->Take();
        try {
            new (m_arena->At(index)) Entry(std::forward<K>(key), std::forward<Args>(args)...);
        } catch (...) {
            m_arena->Give(index);
            throw;
        }
        const uint32_t bucket = BucketOf(hash);
        m_arena->At(index)->map_link = m_buckets[bucket];
        m_buckets[bucket] = index;
        ++m_size;
        return {m_arena, index, bucket};
    }

    // The index of key's entry in `bucket`'s chain, or NIL.
    uint32_t IndexIn(uint32_t bucket, const key_type& key) const
    {
        for (uint32_t index = m_buckets[bucket]; index != NIL; index = m_arena->At(index)->map_link) {
            if (m_equal(m_arena->At(index)->first, key)) return index;
        }
        return NIL;
    }

    uint32_t BucketOf(size_t hash) const
    {
        return static_cast<uint32_t>((static_cast<uint64_t>(hash >> 32) * m_bucket_count) >> 32);
    }

    const_iterator Find(const key_type& key) const
    {
        if (m_size == 0) return end();
        const uint32_t bucket = BucketOf(m_hash(key));
        const uint32_t index = IndexIn(bucket, key);
        return index == NIL ? end() : const_iterator{m_arena, index, bucket};
    }
    iterator Find(const key_type& key)
    {
        const const_iterator it = std::as_const(*this).Find(key);
        return {m_arena, it.m_index, it.m_bucket};
    }

    // Redistributes every entry over `bucket_count` buckets, walking the
    // arena in slot order.
    void Rehash(size_t bucket_count)
    {
        assert(bucket_count <= UINT32_MAX);
        auto buckets = std::make_unique_for_overwrite<uint32_t[]>(bucket_count);
        std::fill_n(buckets.get(), bucket_count, NIL);
        m_buckets = std::move(buckets);
        m_bucket_count = bucket_count;
        for (uint32_t index = m_arena->NextLive(0); index != NIL; index = m_arena->NextLive(index + 1)) {
            Entry* entry = m_arena->At(index);
            const uint32_t bucket = BucketOf(m_hash(entry->first));
            entry->map_link = m_buckets[bucket];
            m_buckets[bucket] = index;
        }
    }

    Hash m_hash;
    KeyEqual m_equal;
    std::unique_ptr<Arena> m_own_arena;
    Arena* m_arena;
    std::unique_ptr<uint32_t[]> m_buckets;
    size_t m_bucket_count{0};
    size_t m_size{0};
};

#endif // COINSDB_UTIL_SLAB_HASH_MAP_H
