#ifndef CORECHECK_KERNEL_CHAINSTATEMANAGER_OPTS_H
#define CORECHECK_KERNEL_CHAINSTATEMANAGER_OPTS_H

// Adapts: Core's kernel/chainstatemanager_opts.h, for
// DEFAULT_PREVOUTFETCH_THREADS, which coinsdb keeps in node::
// (node/replay/block_processor.h, beside the replay that uses it).

#include <node/replay/block_processor.h>

using node::DEFAULT_PREVOUTFETCH_THREADS;

#endif // CORECHECK_KERNEL_CHAINSTATEMANAGER_OPTS_H
