#include <node/replay/hinted_replay.h>

#include <kernel/chainparams.h>
#include <kernel/connect.h>
#include <node/chainstate/chainstate.h>
#include <util/log.h>

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace node {
namespace {

using kernel::swiftsync::AggregateSum;

// Blocks whose outpoints may wait for the hashing thread: enough to ride
// out a run of large blocks, little memory (a block's outpoints are at
// most a few hundred KB).
constexpr size_t MAX_QUEUED_BLOCKS = 64;

void SyncPath(const std::filesystem::path& path, int flags)
{
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0 || ::fsync(fd) != 0) {
        if (fd >= 0) ::close(fd);
        throw std::runtime_error("Cannot sync " + path.string());
    }
    ::close(fd);
}

void WriteMarker(const std::filesystem::path& marker, int height, const uint256& hash)
{
    std::filesystem::create_directories(marker.parent_path());
    const std::string text = fmt::format("SwiftSync hinted replay to height {} ({}): the chainstate is unverified\n", height, hash.GetHex());
    const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw std::runtime_error("Cannot create " + marker.string());
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
    ::close(fd);
    if (!written) throw std::runtime_error("Cannot write " + marker.string());
    SyncPath(marker.parent_path(), O_RDONLY | O_DIRECTORY);
}

} // namespace

std::filesystem::path SwiftSyncDir(const std::filesystem::path& net_dir) { return net_dir / "swiftsync"; }

std::filesystem::path UnverifiedMarker(const std::filesystem::path& swiftsync_dir) { return swiftsync_dir / "unverified"; }

// Hashes the outpoints of queued blocks into a running sum.
class HintedReplay::Hasher
{
public:
    Hasher() : m_hasher{kernel::swiftsync::NewSalt()}, m_thread{[this] { Run(); }} {}

    ~Hasher()
    {
        {
            std::lock_guard lock{m_mutex};
            m_stop = true;
        }
        m_work.notify_all();
        m_thread.join();
    }

    void Submit(std::vector<COutPoint>&& created, std::vector<COutPoint>&& spent)
    {
        std::unique_lock lock{m_mutex};
        m_room.wait(lock, [&] { return m_queue.size() < MAX_QUEUED_BLOCKS; });
        m_queue.push_back({std::move(created), std::move(spent)});
        m_work.notify_one();
    }

    // Waits until every submitted block is in the sum.
    AggregateSum Sum()
    {
        std::unique_lock lock{m_mutex};
        m_room.wait(lock, [&] { return m_queue.empty() && !m_busy; });
        return m_sum;
    }

    uint64_t Hashed() const
    {
        std::lock_guard lock{m_mutex};
        return m_hashed;
    }

    std::chrono::milliseconds Time() const
    {
        std::lock_guard lock{m_mutex};
        return std::chrono::duration_cast<std::chrono::milliseconds>(m_time);
    }

private:
    struct Block {
        std::vector<COutPoint> created;
        std::vector<COutPoint> spent;
    };

    void Run()
    {
        std::unique_lock lock{m_mutex};
        while (true) {
            m_work.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty()) return;
            Block block = std::move(m_queue.front());
            m_queue.pop_front();
            m_busy = true;
            lock.unlock();
            const auto start = std::chrono::steady_clock::now();
            AggregateSum part;
            m_hasher.AddAll(block.created, part);
            m_hasher.SubtractAll(block.spent, part);
            const auto took = std::chrono::steady_clock::now() - start;
            lock.lock();
            m_sum += part;
            m_hashed += block.created.size() + block.spent.size();
            m_time += took;
            m_busy = false;
            m_room.notify_all();
        }
    }

    const kernel::swiftsync::OutpointHasher m_hasher;
    mutable std::mutex m_mutex;
    std::condition_variable m_work;
    std::condition_variable m_room;
    std::deque<Block> m_queue;
    bool m_busy{false};
    bool m_stop{false};
    AggregateSum m_sum;
    uint64_t m_hashed{0};
    std::chrono::steady_clock::duration m_time{};
    // Last: started once everything it uses exists.
    std::thread m_thread;
};

HintedReplay::HintedReplay(const CChainParams& params, std::unique_ptr<HintSource> hints, const uint256& block_hash_at_h,
                           std::filesystem::path swiftsync_dir, size_t memory_budget)
    : m_params{params}, m_hints{std::move(hints)}, m_height{m_hints->Height()}, m_block_hash_at_h{block_hash_at_h},
      m_dir{std::move(swiftsync_dir)}, m_runs{m_dir / "runs", memory_budget}, m_hasher{std::make_unique<Hasher>()}
{
    WriteMarker(UnverifiedMarker(m_dir), m_height, m_block_hash_at_h);
}

HintedReplay::~HintedReplay() = default;

uint64_t HintedReplay::AggregatedOutpoints() const { return m_hasher->Hashed(); }

std::chrono::milliseconds HintedReplay::HashingTime() const { return m_hasher->Time(); }

bool HintedReplay::ConnectBlock(const CBlock& block, int height, std::string& failure)
{
    if (height != m_connected_height + 1 || height > m_height) {
        throw std::logic_error(fmt::format("HintedReplay: block {} after block {} of {}", height, m_connected_height, m_height));
    }
    if (!m_hints->Next(m_block_hints, failure)) {
        failure = fmt::format("the hints file is malformed at height {}: {}", height, failure);
        return false;
    }
    kernel::swiftsync::HintedBlock out;
    kernel::BlockValidationState state;
    if (!kernel::swiftsync::ConnectBlockHinted(block, height, m_params, m_block_hints, m_coinbases, m_block_tables, out, state)) {
        failure = fmt::format("block {} at height {} failed: {}", block.GetHash().GetHex(), height, state.ToString());
        return false;
    }
    // Everything created by this height and still unspent at H, plus what
    // was burnt, cannot exceed the coins created so far: a check at each
    // block catches an inflating block at once, and keeps every sum within
    // MAX_MONEY.
    m_subsidies += kernel::GetBlockSubsidy(height, m_params);
    m_kept_value += out.kept_value;
    m_unspendable_value += out.unspendable_value;
    if (m_kept_value + m_unspendable_value > m_subsidies) {
        failure = fmt::format("bad supply at height {}: {} satoshis kept or burnt, more than the {} the subsidies created", height,
                              m_kept_value + m_unspendable_value, m_subsidies);
        return false;
    }
    for (auto& [outpoint, coin] : out.kept) m_runs.Add(outpoint, std::move(coin));
    m_hasher->Submit(std::move(out.created), std::move(out.spent));
    m_connected_height = height;
    return true;
}

bool HintedReplay::Verify(std::string& failure)
{
    if (m_connected_height != m_height) throw std::logic_error("HintedReplay::Verify before block H");
    if (std::string error; !m_hints->Finish(error)) {
        failure = "the hints file is malformed after height " + std::to_string(m_height) + ": " + error;
        return false;
    }
    const AggregateSum sum = m_hasher->Sum();
    if (!sum.IsZero()) {
        failure = fmt::format("the aggregate is not zero at height {} ({}): a hint is wrong, or a block spends a coin that did not exist",
                              m_height, sum.ToHex());
        return false;
    }
    return true;
}

void HintedReplay::WriteChainstate(Chainstate& chainstate, const uint256& hash_at_h)
{
    CCoinsViewCache& cache = chainstate.CoinsTip();
    if (cache.GetCacheSize() != 0) throw std::logic_error("HintedReplay: the coins cache is not empty at H");
    // Straight from the merge into the database, in key order: the coins
    // never enter the cache, so the memory is the runs' read buffers plus
    // a write batch. The marker, not crash markers, protects the write.
    chainstate.CoinsDB().WriteSortedCoins([&](const CCoinsViewDB::CoinSink& sink) { m_runs.Merge(sink); }, hash_at_h);
    // The cache was told its parent had no coin (Chainstate's constructor);
    // now the parent has them all. Reset ends that, with nothing to lose.
    cache.Reset();
    chainstate.SetTip(hash_at_h, m_height);
    const auto marker = UnverifiedMarker(m_dir);
    std::filesystem::remove(marker);
    SyncPath(m_dir, O_RDONLY | O_DIRECTORY);
}

} // namespace node
