#ifndef COINSDB_NODE_REPLAY_HINTED_REPLAY_H
#define COINSDB_NODE_REPLAY_HINTED_REPLAY_H

// SwiftSync's hinted replay of blocks 1..H (doc/design.md, "Hinted
// replay"): each block goes through kernel::swiftsync::ConnectBlockHinted;
// the coins it keeps are gathered by CoinRuns; the outpoints it creates
// without keeping and those it spends are hashed into the aggregate on a
// thread of their own (the aggregate does not depend on order, so hashing
// runs behind the blocks). At H, Verify() proves hints and blocks right
// (aggregate zero, supply within the subsidies), and WriteChainstate()
// writes the kept coins once, in key order, as a bulk load.
//
// Nothing of it is on disk but the block files, the run files and a
// marker: the chainstate database is not written below H. A start that
// finds the marker (UnverifiedMarker) discards the chainstate and the runs
// and replays the stored blocks again.

#include <kernel/swiftsync/aggregate.h>
#include <kernel/swiftsync/hinted_connect.h>
#include <node/replay/coin_runs.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

class CChainParams;

namespace node {

class Chainstate;

// The hints of blocks 1..H, in height order: the hints file's reader.
class HintSource
{
public:
    virtual ~HintSource() = default;
    // H.
    virtual int Height() const = 0;
    // The next block's hints (strictly rising). False with `error` set for
    // a file that is malformed there.
    virtual bool Next(std::vector<uint32_t>& hints, std::string& error) = 0;
    // After block H's hints: false with `error` set when more follows.
    virtual bool Finish(std::string& error) = 0;
};

// Where a replay keeps its runs and marker: <datadir>/<network>/swiftsync.
std::filesystem::path SwiftSyncDir(const std::filesystem::path& net_dir);
// Exists from the start of a hinted replay until the chainstate at H is on
// disk in full.
std::filesystem::path UnverifiedMarker(const std::filesystem::path& swiftsync_dir);

class HintedReplay
{
public:
    // Creates the marker (synced) before any block is connected.
    HintedReplay(const CChainParams& params, std::unique_ptr<HintSource> hints, const uint256& block_hash_at_h,
                 std::filesystem::path swiftsync_dir, size_t memory_budget);
    // Stops the hashing thread and removes the runs. The marker stays
    // unless Done() removed it.
    ~HintedReplay();
    HintedReplay(const HintedReplay&) = delete;
    HintedReplay& operator=(const HintedReplay&) = delete;

    int Height() const { return m_height; }
    const uint256& BlockHashAtH() const { return m_block_hash_at_h; }

    // Block `height` (the one after the last connected). False, with
    // `failure` saying why, when the hinted replay cannot go on.
    bool ConnectBlock(const CBlock& block, int height, std::string& failure);
    // After block H: the aggregate is zero and the kept coins plus the
    // burnt outputs are within the subsidies of blocks 1..H.
    bool Verify(std::string& failure);
    // After Verify: writes the kept coins into the (empty) chainstate as a
    // bulk load, with `hash_at_h` as its best block, and removes the
    // marker. Throws on a write failure (the marker then stays).
    void WriteChainstate(Chainstate& chainstate, const uint256& hash_at_h);

    // For progress lines and getblockchaininfo.
    int ConnectedHeight() const { return m_connected_height; }
    uint64_t KeptCoins() const { return m_runs.Count(); }
    uint64_t AggregatedOutpoints() const;
    std::chrono::milliseconds HashingTime() const;

private:
    class Hasher;

    const CChainParams& m_params;
    std::unique_ptr<HintSource> m_hints;
    const int m_height;
    const uint256 m_block_hash_at_h;
    const std::filesystem::path m_dir;
    CoinRuns m_runs;
    std::unique_ptr<Hasher> m_hasher;
    kernel::swiftsync::CoinbaseHistory m_coinbases;
    kernel::swiftsync::BlockTables m_block_tables;
    int m_connected_height{0};
    CAmount m_subsidies{0};
    CAmount m_kept_value{0};
    CAmount m_unspendable_value{0};
    std::vector<uint32_t> m_block_hints;
};

} // namespace node

#endif // COINSDB_NODE_REPLAY_HINTED_REPLAY_H
