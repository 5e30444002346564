#ifndef CORECHECK_NODE_CACHES_H
#define CORECHECK_NODE_CACHES_H

// Adapts: Core's node/caches.h, which caches_tests includes. coinsdb keeps
// the same declarations in node/chainstate/caches.h, beside the chainstate
// they size.

#include <node/chainstate/caches.h>

#endif // CORECHECK_NODE_CACHES_H
