#include <node/replay/loadblock_heights.h>

#include <coins.h>
#include <node/blockstorage/blockstorage.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace node {

LoadBlockHeights FindLoadBlockHeights(const std::vector<std::filesystem::path>& files, const CChainParams& params, int height)
{
    LoadBlockHeights result;
    // Children by parent: files may hold blocks out of order, and forks.
    const SaltedCoinsCacheHasher hasher;
    const auto hash_of = [&](const uint256& h) { return hasher(h); };
    std::unordered_map<uint256, std::vector<uint256>, decltype(hash_of)> children{0, hash_of};
    std::unordered_set<uint256, decltype(hash_of)> seen{0, hash_of};
    for (const auto& file : files) {
        BlockManager::ReadBlockFileHeaders(file, params.MessageStart(), [&](const CBlockHeader& header) {
            ++result.headers;
            const uint256 hash = header.GetHash();
            if (header.hashPrevBlock.IsNull() || !seen.insert(hash).second) return;
            children[header.hashPrevBlock].push_back(hash);
        });
    }
    // Heights from genesis, one level at a time.
    std::vector<uint256> level{params.GenesisHash()};
    for (int h = 0; !level.empty(); ++h) {
        result.max_height = h;
        if (h == height) result.at_height = level;
        std::vector<uint256> next;
        for (const uint256& hash : level) {
            if (const auto it = children.find(hash); it != children.end()) next.insert(next.end(), it->second.begin(), it->second.end());
        }
        level = std::move(next);
    }
    return result;
}

} // namespace node
