#ifndef COINSDB_UTIL_POOL_H
#define COINSDB_UTIL_POOL_H

// A memory pool for node-based containers whose nodes are all one small
// size (the coins cache's map): blocks are carved from large chunks and
// recycled through per-size free lists, so a node costs its own bytes and
// nothing more (glibc's malloc adds a header and rounds up), and allocating
// or freeing one is a pointer swap instead of a trip through malloc.
//
// Memory is never handed back while the pool lives: freed blocks wait for
// the next allocation of their size. A cache that is flushed and refilled
// therefore reuses the same chunks, and its resident memory stays at the
// peak it reached, which the cache's budget already bounds.
//
// Requests larger than MAX_BLOCK_BYTES (the map's bucket array) or more
// aligned than ALIGN go to the global operator new.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

template <size_t MAX_BLOCK_BYTES, size_t ALIGN = alignof(std::max_align_t)>
class PoolResource
{
    static_assert(ALIGN >= sizeof(void*) && (ALIGN & (ALIGN - 1)) == 0, "a free block holds a pointer");
    static_assert(MAX_BLOCK_BYTES % ALIGN == 0);

public:
    static constexpr size_t DEFAULT_CHUNK_BYTES = size_t{256} << 10;

    explicit PoolResource(size_t chunk_bytes = DEFAULT_CHUNK_BYTES) : m_chunk_bytes{chunk_bytes}
    {
        assert(chunk_bytes >= MAX_BLOCK_BYTES && chunk_bytes % ALIGN == 0);
    }
    PoolResource(const PoolResource&) = delete;
    PoolResource& operator=(const PoolResource&) = delete;

    void* Allocate(size_t bytes, size_t alignment)
    {
        if (!IsPooled(bytes, alignment)) return ::operator new(bytes, std::align_val_t{alignment});
        const size_t cls = SizeClass(bytes);
        m_pooled_bytes_in_use += BlockBytes(cls);
        if (FreeBlock* block = m_free[cls]) {
            m_free[cls] = block->next;
            return block;
        }
        const size_t block_bytes = BlockBytes(cls);
        if (m_chunk_left < block_bytes) NewChunk();
        void* block = m_chunk_cursor;
        m_chunk_cursor += block_bytes;
        m_chunk_left -= block_bytes;
        return block;
    }

    void Deallocate(void* p, size_t bytes, size_t alignment) noexcept
    {
        if (!IsPooled(bytes, alignment)) {
            ::operator delete(p, std::align_val_t{alignment});
            return;
        }
        const size_t cls = SizeClass(bytes);
        m_pooled_bytes_in_use -= BlockBytes(cls);
        m_free[cls] = new (p) FreeBlock{m_free[cls]};
    }

    // Starts carving blocks from the first chunk again, forgetting the free
    // lists; the chunks stay. Only when no block is in use. Blocks freed
    // one by one go on the free lists in whatever order they were freed
    // (for a cleared hash map: bucket order, i.e. random), and handing
    // them out again in that order scatters the next nodes, which a later
    // walk in allocation order then pays for in cache misses.
    void Rewind()
    {
        assert(m_pooled_bytes_in_use == 0);
        std::fill(std::begin(m_free), std::end(m_free), nullptr);
        m_next_chunk = 0;
        m_chunk_cursor = nullptr;
        m_chunk_left = 0;
    }

    // Bytes of the blocks handed out and not yet returned.
    size_t PooledBytesInUse() const { return m_pooled_bytes_in_use; }
    // Bytes of every chunk taken from the system.
    size_t ChunkBytes() const { return m_chunks.size() * m_chunk_bytes; }
    // What one pooled block of `bytes` really occupies.
    static constexpr size_t BlockBytesFor(size_t bytes) { return BlockBytes(SizeClass(bytes)); }
    static constexpr bool IsPooled(size_t bytes, size_t alignment) { return bytes <= MAX_BLOCK_BYTES && alignment <= ALIGN; }

private:
    struct FreeBlock {
        FreeBlock* next;
    };
    struct ChunkDeleter {
        void operator()(std::byte* chunk) const { ::operator delete(chunk, std::align_val_t{ALIGN}); }
    };

    static constexpr size_t SizeClass(size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / ALIGN; }
    static constexpr size_t BlockBytes(size_t cls) { return (cls + 1) * ALIGN; }

    void NewChunk()
    {
        // The tail of the old chunk is too small for this block; it stays
        // unused rather than being split into free lists of other sizes.
        if (m_next_chunk == m_chunks.size()) {
            m_chunks.emplace_back(static_cast<std::byte*>(::operator new(m_chunk_bytes, std::align_val_t{ALIGN})));
        }
        m_chunk_cursor = m_chunks[m_next_chunk++].get();
        m_chunk_left = m_chunk_bytes;
    }

    const size_t m_chunk_bytes;
    std::vector<std::unique_ptr<std::byte, ChunkDeleter>> m_chunks;
    // The chunk NewChunk() carves next: chunks before it are in use.
    size_t m_next_chunk{0};
    std::byte* m_chunk_cursor{nullptr};
    size_t m_chunk_left{0};
    FreeBlock* m_free[MAX_BLOCK_BYTES / ALIGN]{};
    size_t m_pooled_bytes_in_use{0};
};

// A standard allocator over a PoolResource, for std::unordered_map and the
// like. Copies (and rebound copies) share the resource, which must outlive
// every container using it.
template <typename T, size_t MAX_BLOCK_BYTES, size_t ALIGN = alignof(std::max_align_t)>
class PoolAllocator
{
public:
    using value_type = T;
    using Resource = PoolResource<MAX_BLOCK_BYTES, ALIGN>;

    explicit PoolAllocator(Resource* resource) noexcept : m_resource{resource} {}
    template <typename U>
    PoolAllocator(const PoolAllocator<U, MAX_BLOCK_BYTES, ALIGN>& other) noexcept : m_resource{other.resource()}
    {
    }
    template <typename U>
    struct rebind {
        using other = PoolAllocator<U, MAX_BLOCK_BYTES, ALIGN>;
    };

    T* allocate(size_t n) { return static_cast<T*>(m_resource->Allocate(n * sizeof(T), alignof(T))); }
    void deallocate(T* p, size_t n) noexcept { m_resource->Deallocate(p, n * sizeof(T), alignof(T)); }

    Resource* resource() const noexcept { return m_resource; }

    template <typename U>
    friend bool operator==(const PoolAllocator& a, const PoolAllocator<U, MAX_BLOCK_BYTES, ALIGN>& b) noexcept
    {
        return a.resource() == b.resource();
    }

private:
    Resource* m_resource;
};

#endif // COINSDB_UTIL_POOL_H
