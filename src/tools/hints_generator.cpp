#include <tools/hints_generator.h>

#include <crypto/sha256.h>
#include <kernel/connect.h>
#include <kernel/swiftsync/hints_file.h>
#include <kernel/swiftsync/spendable.h>
#include <node/blockstorage/blockstorage.h>
#include <node/snapshot/utxo_snapshot.h>
#include <tools/output_file.h>
#include <txdb.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>

using kernel::swiftsync::HintsFileReader;
using kernel::swiftsync::HintsFileWriter;
using kernel::swiftsync::SpendableOutputs;

namespace {

using BlockCallback = std::function<void(const CBlock& block, int height)>;

// The chain from genesis to one block, found in blk-format files.
class ChainInFiles
{
public:
    // First scan: every block's parent. Throws when `tip` is not in the
    // files or its ancestors do not reach the network's genesis block.
    ChainInFiles(const CChainParams& params, const HintsGeneratorOptions& options, const uint256& tip)
        : m_params{params}, m_options{options}
    {
        std::unordered_map<uint256, uint256, SaltedCoinsCacheHasher> parents;
        Scan([&](const std::shared_ptr<const CBlock>& block, uint64_t, std::span<const std::byte>) { parents.emplace(block->GetHash(), block->hashPrevBlock); });
        if (!parents.contains(tip)) throw std::runtime_error(fmt::format("the block files do not hold block {}, the UTXO set's base", tip.GetHex()));
        for (uint256 hash = tip; hash != params.GenesisHash();) {
            m_hashes.push_back(hash);
            const auto parent = parents.find(hash);
            if (parent == parents.end()) {
                throw std::runtime_error(fmt::format("block {}, an ancestor of {}, is not in the block files: they do not hold the chain from {}'s genesis block to it",
                                                     hash.GetHex(), tip.GetHex(), params.GetChainTypeString()));
            }
            hash = parent->second;
        }
        m_hashes.push_back(params.GenesisHash());
        std::ranges::reverse(m_hashes);
        for (size_t height = 0; height < m_hashes.size(); ++height) m_heights.emplace(m_hashes[height], height);
    }

    int TipHeight() const { return m_hashes.size() - 1; }

    // Second scan: blocks 1..TipHeight() in height order, each checked.
    void ForEachBlock(const BlockCallback& callback)
    {
        int next = 1;
        std::map<int, std::shared_ptr<const CBlock>> early;
        Scan([&](const std::shared_ptr<const CBlock>& block, uint64_t, std::span<const std::byte>) {
            const auto found = m_heights.find(block->GetHash());
            if (found == m_heights.end() || found->second < next) return;
            early.emplace(found->second, block);
            for (auto it = early.begin(); it != early.end() && it->first == next; it = early.erase(it), ++next) {
                Check(*it->second, next);
                callback(*it->second, next);
            }
        });
        if (next <= TipHeight()) throw std::runtime_error(fmt::format("block {} at height {} was not read back from the block files", m_hashes[next].GetHex(), next));
    }

private:
    void Scan(const node::BlockManager::BlockFileCallback& callback) const
    {
        for (const auto& path : m_options.block_files) {
            if (!node::BlockManager::ReadBlockFile(path, m_params.MessageStart(), callback, m_options.xor_key)) {
                throw std::runtime_error(fmt::format("cannot open block file {}", path.string()));
            }
        }
    }

    void Check(const CBlock& block, int height) const
    {
        kernel::BlockValidationState state;
        if (!kernel::CheckBlock(block, m_params, state)) {
            throw std::runtime_error(fmt::format("block {} at height {} is invalid: {}", block.GetHash().GetHex(), height, state.ToString()));
        }
    }

    const CChainParams& m_params;
    const HintsGeneratorOptions& m_options;
    std::vector<uint256> m_hashes;
    std::unordered_map<uint256, int, SaltedCoinsCacheHasher> m_heights;
};

// The UTXO set at H, sorted, each coin marked once found.
class CoinSet
{
public:
    void Add(const COutPoint& outpoint) { m_outpoints.push_back(outpoint); }
    void Sort()
    {
        std::ranges::sort(m_outpoints);
        m_found.assign(m_outpoints.size(), false);
    }
    size_t Size() const { return m_outpoints.size(); }

    // Whether the outpoint is a coin; marks it found (twice is an error).
    bool Find(const COutPoint& outpoint)
    {
        const auto it = std::ranges::lower_bound(m_outpoints, outpoint);
        if (it == m_outpoints.end() || *it != outpoint) return false;
        const size_t index = it - m_outpoints.begin();
        if (m_found[index]) throw std::runtime_error(fmt::format("coin {} is created twice by the chain's spendable outputs", outpoint.ToString()));
        m_found[index] = true;
        return true;
    }

    // Throws unless every coin was found.
    void CheckAllFound(int height) const
    {
        const auto missing = std::ranges::find(m_found, false);
        if (missing == m_found.end()) return;
        const size_t count = std::ranges::count(m_found, false);
        throw std::runtime_error(fmt::format("the UTXO set holds {} coins that no spendable output of blocks 1..{} created (the first: {}): "
                                             "it is not the UTXO set of this chain at {}",
                                             count, height, m_outpoints[missing - m_found.begin()].ToString(), height));
    }

private:
    std::vector<COutPoint> m_outpoints;
    std::vector<bool> m_found;
};

// Reads the set's base block hash first, its coins once H is known.
class UtxoSource
{
public:
    UtxoSource(const CChainParams& params, const HintsGeneratorOptions& options) : m_params{params}, m_options{options}
    {
        if (options.snapshot.empty() == options.chainstate_dir.empty()) throw std::invalid_argument("give either a snapshot or a chainstate");
        if (!options.snapshot.empty()) {
            m_file = std::make_unique<AutoFile>(std::fopen(options.snapshot.c_str(), "rb"));
            if (m_file->IsNull()) throw std::runtime_error(fmt::format("cannot open snapshot {}", options.snapshot.string()));
            m_metadata = SnapshotMetadata::Read(*m_file, params.MessageStart());
            m_base = m_metadata.base_blockhash;
            return;
        }
        if (!std::filesystem::is_directory(options.chainstate_dir)) {
            throw std::runtime_error(fmt::format("no chainstate at {}", options.chainstate_dir.string()));
        }
        try {
            m_db = std::make_unique<CCoinsViewDB>(DBParams{.path = options.chainstate_dir, .obfuscate = false}, CoinsViewOptions{});
        } catch (const std::exception& e) {
            throw std::runtime_error(fmt::format("cannot open the chainstate at {} (is bitcoind still running on it?): {}", options.chainstate_dir.string(), e.what()));
        }
        if (!m_db->GetHeadBlocks().empty()) throw std::runtime_error("the chainstate was left in the middle of a flush: start bitcoind on it once to finish it");
        m_base = m_db->GetBestBlock();
        if (m_base.IsNull()) throw std::runtime_error(fmt::format("the chainstate at {} holds no block", options.chainstate_dir.string()));
    }

    const uint256& Base() const { return m_base; }

    void Read(int height, CoinSet& coins)
    {
        COutPoint outpoint;
        Coin coin;
        if (m_db) {
            for (auto cursor = m_db->Cursor(); cursor->Valid(); cursor->Next()) {
                if (!cursor->GetKey(outpoint)) throw std::runtime_error("unreadable chainstate key");
                coins.Add(outpoint);
            }
        } else {
            SnapshotCoinReader reader{*m_file, m_metadata, height};
            while (reader.Next(outpoint, coin)) coins.Add(outpoint);
        }
        coins.Sort();
    }

private:
    const CChainParams& m_params;
    const HintsGeneratorOptions& m_options;
    std::unique_ptr<AutoFile> m_file;
    SnapshotMetadata m_metadata;
    std::unique_ptr<CCoinsViewDB> m_db;
    uint256 m_base;
};

} // namespace

uint256 FileSha256(const std::filesystem::path& path)
{
    AutoFile file{std::fopen(path.c_str(), "rb")};
    if (file.IsNull()) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
    CSHA256 sha;
    std::vector<unsigned char> buffer(1 << 20);
    while (const size_t got = std::fread(buffer.data(), 1, buffer.size(), file.Get())) sha.Write(std::span{buffer}.first(got));
    std::array<unsigned char, CSHA256::OUTPUT_SIZE> digest;
    sha.Finalize(digest);
    // Printed as sha256sum prints it: the bytes in order, not reversed as a block hash.
    std::ranges::reverse(digest);
    return uint256{digest};
}

GeneratedHintsInfo GenerateHintsFile(const std::filesystem::path& output, const CChainParams& params, const HintsGeneratorOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    UtxoSource source{params, options};
    ChainInFiles chain{params, options, source.Base()};
    GeneratedHintsInfo info;
    info.height = chain.TipHeight();
    info.block_hash = source.Base();
    if (options.height && *options.height != info.height) {
        throw std::runtime_error(fmt::format("the UTXO set's base block {} is at height {}, not at -height={}", info.block_hash.GetHex(), info.height, *options.height));
    }
    if (info.height == 0) throw std::runtime_error("the UTXO set is at the genesis block: there is nothing to hint");
    CoinSet coins;
    source.Read(info.height, coins);
    info.coins = coins.Size();
    WriteOutputFile(output, [&](AutoFile& file) {
        HintsFileWriter writer{file, static_cast<uint32_t>(info.height)};
        std::vector<uint32_t> hints;
        chain.ForEachBlock([&](const CBlock& block, int height) {
            hints.clear();
            const auto outputs = SpendableOutputs(block, height, params);
            for (uint32_t index = 0; index < outputs.size(); ++index) {
                if (coins.Find(outputs[index])) hints.push_back(index);
            }
            info.outputs += outputs.size();
            writer.Append(hints);
        });
        writer.Finish();
        coins.CheckAllFound(info.height);
        info.file_bytes = writer.BytesWritten();
    });
    info.file_sha256 = FileSha256(output);
    info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return info;
}

std::string HintsInfoJson(const GeneratedHintsInfo& info, const std::filesystem::path& output)
{
    const nlohmann::ordered_json json{
        {"path", output.string()},
        {"height", info.height},
        {"blockhash", info.block_hash.GetHex()},
        {"sha256", info.file_sha256.GetHex()},
        {"bytes", info.file_bytes},
        {"coins", info.coins},
        {"outputs", info.outputs},
        {"seconds", std::round(info.seconds * 1000) / 1000},
    };
    return json.dump();
}

void PrintHintedOutputs(const std::filesystem::path& hints, const uint256& block_hash, const CChainParams& params,
                        const HintsGeneratorOptions& options, std::FILE* out)
{
    auto reader = HintsFileReader::Open(hints);
    if (!reader) throw std::runtime_error(fmt::format("hints file {}: {}", hints.string(), reader.error()));
    ChainInFiles chain{params, options, block_hash};
    if (chain.TipHeight() != static_cast<int>(reader->Height())) {
        throw std::runtime_error(fmt::format("hints file {} is for height {}, but block {} is at height {}", hints.string(), reader->Height(), block_hash.GetHex(), chain.TipHeight()));
    }
    chain.ForEachBlock([&](const CBlock& block, int height) {
        const auto indices = reader->Next();
        if (!indices) throw std::runtime_error(fmt::format("hints file {}: {}", hints.string(), indices.error()));
        const auto outputs = SpendableOutputs(block, height, params);
        for (const uint32_t index : *indices) {
            if (index >= outputs.size()) {
                throw std::runtime_error(fmt::format("hints file {}: block {} has {} spendable outputs, no index {}", hints.string(), height, outputs.size(), index));
            }
            std::fprintf(out, "%d %s:%u\n", height, outputs[index].hash.GetHex().c_str(), outputs[index].n);
        }
    });
    if (const auto end = reader->Finish(); !end) throw std::runtime_error(fmt::format("hints file {}: {}", hints.string(), end.error()));
}
