#ifndef COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_H
#define COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_H

// Block replay: stores blocks, picks the chain with the most work and moves
// the chainstate's UTXO set along it, block by block, the way upstream's
// ProcessNewBlock / ActivateBestChain / FlushStateToDisk do. UTXO changes
// only: scripts and signatures are not verified.

#include <kernel/chainparams.h>
#include <kernel/connect.h>
#include <node/blockstorage/blockstorage.h>
#include <node/blockstorage/chain.h>
#include <node/chainstate/chainstate.h>
#include <node/replay/hinted_replay.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>

class ThreadPool;

namespace node {

// -flushinterval's default, in seconds (Core writes the coins cache hourly).
inline constexpr int64_t DEFAULT_FLUSH_INTERVAL_SECONDS{3600};

// -prevoutfetchthreads: Core's default and ceiling. 0 connects each block
// in a plain child cache of the tip, reading every input on the connecting
// thread, as before parallel fetching existed; N > 0 connects in a
// CoinsViewOverlay whose N workers read the block's inputs ahead (coins.h).
inline constexpr int32_t DEFAULT_PREVOUTFETCH_THREADS{8};
inline constexpr int32_t MAX_PREVOUTFETCH_THREADS{16};

struct BlockProcessorOptions {
    // -prune target in bytes; 0 keeps every block.
    uint64_t prune_target_bytes{0};
    // -flushinterval: write the cache's changes at least this often (a
    // Sync: the cache keeps its coins).
    std::chrono::seconds flush_interval{DEFAULT_FLUSH_INTERVAL_SECONDS};
    // -stopatheight: request shutdown after connecting this block (0: never).
    int stop_at_height{0};
    // -prevoutfetchthreads, 0 to MAX_PREVOUTFETCH_THREADS: the threads
    // reading each block's inputs ahead of the connecting thread.
    int32_t prevout_fetch_threads{DEFAULT_PREVOUTFETCH_THREADS};
};

enum class FlushMode { IF_NEEDED, PERIODIC, ALWAYS };

// A hinted replay's outcome, for getblockchaininfo and getchainstates.
struct SwiftSyncStatus {
    enum class State {
        UNVERIFIED, // blocks up to H are being connected with hints
        VERIFIED,   // the check at H passed; the chainstate is written
        FELL_BACK,  // a check failed; the blocks were replayed normally
    };
    State state{State::UNVERIFIED};
    int height{0};
    uint256 block_hash;
    // FELL_BACK: which check failed.
    std::string reason{};
    std::chrono::steady_clock::time_point started{std::chrono::steady_clock::now()};
    std::chrono::milliseconds took{0};
};
std::string ToString(SwiftSyncStatus::State state);

class BlockProcessor
{
public:
    // mutex is the chainstate lock (ChainstateManager::Mutex()): imports
    // take it block by block so RPCs can run in between.
    BlockProcessor(const CChainParams& params, BlockManager& blockman, Chainstate& chainstate,
                   BlockProcessorOptions options, std::atomic<bool>& shutdown, std::recursive_mutex& mutex);
    ~BlockProcessor();

    // Links the chainstate to the block index: repairs a flush a crash cut
    // short ('H' in the database) by replaying stored blocks, then sets the
    // active chain to the chainstate's best block. Throws on what cannot be
    // repaired.
    void LoadChain();
    // Stores and connects the genesis block when the index does not hold
    // it yet, as upstream does for every new block index: the chain then
    // starts at height 0 (getblockhash 0, size_on_disk) instead of empty.
    // Not before a -reindex scan, which must read blk00000.dat first.
    void LoadGenesisBlock();

    // Checks and stores a block; a block whose parent is not known yet
    // waits until it is. stored_at: the block is already in a blk file
    // there (-reindex) and is indexed, not written. serialized: the bytes
    // the block was parsed from, stored as they are (SaveBlock). Returns
    // false for an invalid block (logged).
    bool ProcessBlock(std::shared_ptr<const CBlock> block, std::optional<FlatFilePos> stored_at = std::nullopt,
                      std::span<const std::byte> serialized = {});
    // Moves the chainstate to the most-work chain of stored blocks.
    void ActivateBestChain();
    // Reads a blk-format file block by block (-loadblock).
    void ImportFile(const std::filesystem::path& path);
    // -reindex, on a wiped block index: indexes the blocks of blk00000.dat,
    // blk00001.dat, ... where they are, up to the first missing file. Does
    // not connect them (ActivateBestChain does). Returns the blocks found.
    size_t ReindexBlockFiles();

    void FlushStateToDisk(FlushMode mode);

    // -swiftsynchints: connects blocks 1..H with `hints` (HintedReplay)
    // from here on. Only on a chainstate at genesis with no coin; otherwise
    // logs why and changes nothing. Throws when the marker cannot be written.
    void StartHintedReplay(std::unique_ptr<HintSource> hints, const uint256& block_hash_at_h, const std::filesystem::path& swiftsync_dir);
    // Once StartHintedReplay started one: its state.
    std::optional<SwiftSyncStatus> GetSwiftSyncStatus() const;
    // The end of an import: a hinted replay that did not reach H (the
    // blocks ended, or one was refused on arrival) falls back, so that the
    // chainstate is never left unverified once the node is idle. Not when
    // shutting down: the marker makes the next start replay again.
    void FinishImport();

    // Adds a header without its block (submitheader): checked alone
    // (kernel::CheckBlockHeader) and refused as "bad-prevblk" when its
    // parent is invalid. nullptr, with state saying why, when refused; the
    // parent must be in the index. A static member: the index takes
    // headers while a snapshot chainstate, which has no BlockProcessor, is
    // active.
    static CBlockIndex* AcceptHeader(BlockManager& blockman, const CChainParams& params, const CBlockHeader& header,
                                     kernel::BlockValidationState& state);

    const CChain& ActiveChain() const { return m_chain; }
    const BlockProcessorOptions& Options() const { return m_options; }
    size_t WaitingBlocks() const { return m_waiting.size(); }
    uint64_t ConnectedBlocks() const { return m_connected_blocks; }
    uint64_t ConnectedTxs() const { return m_connected_txs; }
    // With fetch threads, logs how many of the inputs queued for them so
    // far the workers read (the proof, for a test, that they did).
    void LogPrevoutFetchSummary() const;

private:
    // Connects the block of `index`: the copy kept in m_accepted when there
    // is one, else the block read back from disk.
    bool ConnectTip(CBlockIndex& index);
    void ActivateBestChainSteps();
    bool DisconnectTip();
    // The stored, valid chain end with the most work, or nullptr.
    CBlockIndex* FindMostWorkChain() const;
    bool AcceptBlock(const std::shared_ptr<const CBlock>& block, const std::optional<FlatFilePos>& stored_at,
                     std::span<const std::byte> serialized);
    void MarkLinked(CBlockIndex& index);
    void InvalidBlockFound(CBlockIndex& index, const std::string& reason);
    void RollForwardCrashedFlush(const std::vector<uint256>& heads);
    void LogUpdateTip(const CBlockIndex& index) const;
    void PruneIfNeeded();
    // For ReadBlockFile: kernel::CheckBlock ahead of the connecting
    // thread (on ReadBlockFile's prepare thread), so that the connecting
    // thread only hashes a block that is refused.
    BlockManager::BlockPrepare CheckAhead() const;
    // ConnectTip below and at H. False after a fall back (the chain is back
    // at genesis and the next ActivateBestChain step replays normally).
    bool ConnectHinted(CBlockIndex& index, const CBlock& block);
    void FallBackFromHints(const std::string& reason);

    const CChainParams& m_params;
    BlockManager& m_blockman;
    Chainstate& m_chainstate;
    BlockProcessorOptions m_options;
    std::atomic<bool>& m_shutdown;
    std::recursive_mutex& m_mutex;

    CChain m_chain;
    // With -prevoutfetchthreads above 0, the view every block is connected
    // in, over the chainstate's tip cache, and the workers that read the
    // block's inputs for it. A fetch only runs inside ConnectTip, under
    // m_mutex, which every other writer of the tip cache holds too (the
    // overlay's rule 1, coins.h). Null with 0.
    std::shared_ptr<ThreadPool> m_prevout_fetch_pool;
    std::unique_ptr<CoinsViewOverlay> m_connect_view;
    // Blocks whose parent has not arrived, by parent hash, with where they
    // are stored already (-reindex).
    struct WaitingBlock {
        std::shared_ptr<const CBlock> block;
        std::optional<FlatFilePos> stored_at;
    };
    std::multimap<uint256, WaitingBlock> m_waiting;
    // Blocks written by AcceptBlock since the last ActivateBestChain, which
    // connects them from here instead of reading and parsing them back from
    // disk, and then forgets them all: at most the blocks of one
    // ProcessBlock call are kept. -reindex's blocks are not (they are
    // connected after the whole scan).
    std::map<const CBlockIndex*, std::shared_ptr<const CBlock>> m_accepted;
    // Stored blocks whose every ancestor is stored too: the only ones a
    // chain can be built from. Ordered by work, then arrival.
    struct MoreWork {
        bool operator()(const CBlockIndex* a, const CBlockIndex* b) const
        {
            if (a->nChainWork != b->nChainWork) return a->nChainWork > b->nChainWork;
            if (a->nSequenceId != b->nSequenceId) return a->nSequenceId < b->nSequenceId;
            return a < b;
        }
    };
    std::set<CBlockIndex*, MoreWork> m_candidates;
    // Stored blocks waiting for an ancestor's data, by parent.
    std::multimap<CBlockIndex*, CBlockIndex*> m_unlinked;
    std::set<const CBlockIndex*> m_linked;

    // Set from StartHintedReplay until block H is verified or a check fails.
    std::unique_ptr<HintedReplay> m_hinted;
    std::optional<SwiftSyncStatus> m_swiftsync;
    std::filesystem::path m_swiftsync_dir;

    std::chrono::steady_clock::time_point m_last_write{std::chrono::steady_clock::now()};
    uint64_t m_connected_blocks{0};
    // Whether ConnectTip has sized the cache's buckets for its budget.
    bool m_cache_reserved{false};
    uint64_t m_connected_txs{0};
};

} // namespace node

#endif // COINSDB_NODE_REPLAY_BLOCK_PROCESSOR_H
