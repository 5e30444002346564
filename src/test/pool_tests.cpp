// PoolResource and PoolAllocator: blocks of one size are recycled, not
// returned to the system; sizes round up to the alignment; large or
// over-aligned requests bypass the pool; a rewound pool hands blocks out in
// address order again; a map on the allocator gives
// every node back when cleared and refills from the same chunks.

#include <util/pool.h>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

BOOST_AUTO_TEST_SUITE(pool_tests)

BOOST_AUTO_TEST_CASE(block_sizes_round_up_to_the_alignment)
{
    using Pool = PoolResource<128, 8>;
    struct Case {
        size_t bytes;
        size_t block;
    };
    for (const Case c : {Case{1, 8}, Case{8, 8}, Case{9, 16}, Case{120, 120}, Case{121, 128}, Case{128, 128}}) {
        BOOST_TEST_CONTEXT("bytes " << c.bytes) { BOOST_CHECK_EQUAL(Pool::BlockBytesFor(c.bytes), c.block); }
    }
    BOOST_CHECK(Pool::IsPooled(128, 8));
    BOOST_CHECK(!Pool::IsPooled(129, 8));
    BOOST_CHECK(!Pool::IsPooled(64, 16));
}

BOOST_AUTO_TEST_CASE(freed_blocks_are_reused_before_new_memory)
{
    PoolResource<64, 8> pool{/*chunk_bytes=*/1024};
    std::vector<void*> blocks;
    // 1024 / 24 = 42 blocks of 24 bytes fit in one chunk.
    for (int i = 0; i < 42; ++i) blocks.push_back(pool.Allocate(20, 8));
    BOOST_CHECK_EQUAL(pool.ChunkBytes(), 1024U);
    BOOST_CHECK_EQUAL(pool.PooledBytesInUse(), 42U * 24);
    BOOST_CHECK_EQUAL(std::set<void*>(blocks.begin(), blocks.end()).size(), 42U);
    for (void* p : blocks) BOOST_CHECK_EQUAL(reinterpret_cast<uintptr_t>(p) % 8, 0U);

    // The 43rd needs a second chunk.
    void* extra = pool.Allocate(24, 8);
    BOOST_CHECK_EQUAL(pool.ChunkBytes(), 2048U);

    // Freed blocks come back, last freed first, without a new chunk.
    pool.Deallocate(blocks[3], 20, 8);
    pool.Deallocate(blocks[7], 20, 8);
    BOOST_CHECK_EQUAL(pool.PooledBytesInUse(), 41U * 24);
    BOOST_CHECK_EQUAL(pool.Allocate(17, 8), blocks[7]);
    BOOST_CHECK_EQUAL(pool.Allocate(24, 8), blocks[3]);
    BOOST_CHECK_EQUAL(pool.ChunkBytes(), 2048U);

    // Another size has its own free list.
    pool.Deallocate(extra, 24, 8);
    void* other_size = pool.Allocate(40, 8);
    BOOST_CHECK_NE(other_size, extra);
    BOOST_CHECK_EQUAL(pool.PooledBytesInUse(), 42U * 24 + 40);
}

BOOST_AUTO_TEST_CASE(rewind_hands_out_blocks_in_address_order_again)
{
    PoolResource<64, 8> pool{/*chunk_bytes=*/1024};
    std::vector<void*> first;
    for (int i = 0; i < 100; ++i) first.push_back(pool.Allocate(24, 8));
    BOOST_CHECK_EQUAL(pool.ChunkBytes(), 3U * 1024);
    // Freed in a scrambled order, as a hash map clears.
    for (size_t i = 0; i < first.size(); ++i) pool.Deallocate(first[(i * 37) % first.size()], 24, 8);
    pool.Rewind();
    for (int i = 0; i < 100; ++i) BOOST_CHECK_EQUAL(pool.Allocate(24, 8), first[i]);
    // The same chunks, none new.
    BOOST_CHECK_EQUAL(pool.ChunkBytes(), 3U * 1024);
}

BOOST_AUTO_TEST_CASE(large_requests_bypass_the_pool)
{
    PoolResource<64, 8> pool{/*chunk_bytes=*/1024};
    void* big = pool.Allocate(4096, 8);
    void* aligned = pool.Allocate(32, 64);
    BOOST_CHECK_EQUAL(pool.ChunkBytes(), 0U);
    BOOST_CHECK_EQUAL(pool.PooledBytesInUse(), 0U);
    BOOST_CHECK_EQUAL(reinterpret_cast<uintptr_t>(aligned) % 64, 0U);
    pool.Deallocate(big, 4096, 8);
    pool.Deallocate(aligned, 32, 64);
}

BOOST_AUTO_TEST_CASE(map_nodes_come_back_on_clear)
{
    using Alloc = PoolAllocator<std::pair<const uint64_t, uint64_t>, 64, 8>;
    Alloc::Resource pool;
    std::unordered_map<uint64_t, uint64_t, std::hash<uint64_t>, std::equal_to<uint64_t>, Alloc> map{0, std::hash<uint64_t>{}, std::equal_to<uint64_t>{}, Alloc{&pool}};
    for (uint64_t i = 0; i < 10'000; ++i) map.emplace(i, i * 3);
    const size_t in_use = pool.PooledBytesInUse();
    const size_t chunks = pool.ChunkBytes();
    BOOST_CHECK_GE(in_use, 10'000U * 24);
    const size_t buckets = map.bucket_count();

    map.clear();
    BOOST_CHECK_EQUAL(pool.PooledBytesInUse(), 0U);
    BOOST_CHECK_EQUAL(map.bucket_count(), buckets);
    // The refill takes no new chunk: the nodes land where the old ones were.
    for (uint64_t i = 0; i < 10'000; ++i) map.emplace(i + 1'000'000, i);
    BOOST_CHECK_EQUAL(pool.ChunkBytes(), chunks);
    BOOST_CHECK_EQUAL(pool.PooledBytesInUse(), in_use);
    BOOST_CHECK_EQUAL(map.at(1'000'123), 123U);
}

BOOST_AUTO_TEST_SUITE_END()
