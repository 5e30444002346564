#ifndef COINSDB_NODE_INIT_CONTEXT_H
#define COINSDB_NODE_INIT_CONTEXT_H

#include <kernel/caches.h>
#include <node/replay/block_processor.h>
#include <node/blockstorage/blockstorage.h>
#include <node/chainstate/chainstate.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

class ArgsManager;

namespace node {

// Everything a running node shares between init, RPC handlers and shutdown.
struct NodeContext {
    ArgsManager* args{nullptr};
    std::unique_ptr<ChainstateManager> chainman;
    // The block index and files; open once start-up is past the chainstates.
    std::unique_ptr<BlockManager> blockman;
    // Block replay onto the normal chainstate; absent when a snapshot
    // chainstate was active at start-up.
    std::unique_ptr<BlockProcessor> processor;
    std::optional<kernel::CacheSizes> cache_sizes;
    std::chrono::steady_clock::time_point start_time{std::chrono::steady_clock::now()};
    // Set while -reindex, -reindex-chainstate or -loadblock feed blocks in.
    std::atomic<bool> importing{false};
    // Once the node has left initial block download it never returns to
    // it, as upstream's latch (getblockchaininfo's initialblockdownload).
    std::atomic<bool> left_initial_download{false};

    // Set by a signal or the stop RPC; everything long-running polls it.
    std::atomic<bool> shutdown_requested{false};
    // Set with shutdown_requested by an error the node cannot go on after
    // (a failed chainstate write): bitcoind then exits non-zero.
    std::atomic<bool> fatal_error{false};
    std::mutex shutdown_mutex;
    std::condition_variable shutdown_cv;

    void RequestShutdown()
    {
        shutdown_requested = true;
        shutdown_cv.notify_all();
    }
    void AbortNode()
    {
        fatal_error = true;
        RequestShutdown();
    }
};

} // namespace node

#endif // COINSDB_NODE_INIT_CONTEXT_H
