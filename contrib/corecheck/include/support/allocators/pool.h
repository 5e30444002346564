#ifndef CORECHECK_SUPPORT_ALLOCATORS_POOL_H
#define CORECHECK_SUPPORT_ALLOCATORS_POOL_H

// Adapts: Core's support/allocators/pool.h, for Core's
// test/util/poolresourcetester.h, which includes it. coinsdb has no
// PoolResource: its cache map keeps entries in a slab arena
// (util/slab_hash_map.h, CCoinsMapMemoryResource). The template is only
// declared, so that the tester's templates parse; the one case that
// instantiates them (coins_resource_is_used) cannot compile. The ASan
// macros are the no-ops Core's header defines without ASan.

#include <cstddef>

template <std::size_t MAX_BLOCK_SIZE_BYTES, std::size_t ALIGN_BYTES>
class PoolResource;

#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

#endif // CORECHECK_SUPPORT_ALLOCATORS_POOL_H
