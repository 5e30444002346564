#include <node/snapshot/snapshot_args.h>

#include <kernel/chainparams.h>
#include <node/chainstate/chainstate.h>
#include <node/init/init.h>
#include <util/args.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace node {

void RegisterSnapshotOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string debug = "Debugging/Testing options";
    args.AddArg("-snapshotbulkload", "Write a snapshot load's chainstate without crash markers, which an unfinished load does not need (it is removed), so that LevelDB does not compact the whole set at every flush; 0 writes each flush as Bitcoin Core does, for comparing flush behaviour (default: " + std::to_string(DEFAULT_SNAPSHOT_BULK_LOAD) + ")", F::DEBUG_ONLY, debug);
    args.AddArg("-assumeutxo=<height>:<blockhash>:<hash_serialized_3>[:<nchaintx>]", "Trust a UTXO snapshot at this block (regtest and signet only; repeatable). nchaintx, the transactions of the chain up to the block, defaults to height + 1 (default: only the chain's built-in entries)", F::DEBUG_ONLY, debug);
}

void ApplyAssumeutxoArgs(const ArgsManager& args, CChainParams& params)
{
    for (const std::string& value : args.GetArgs("assumeutxo")) {
        if (params.GetChainType() != ChainType::REGTEST && params.GetChainType() != ChainType::SIGNET) {
            throw InitError("-assumeutxo is only available on regtest and signet, not on " + params.GetChainTypeString());
        }
        std::vector<std::string> parts;
        for (size_t start = 0;;) {
            const size_t colon = value.find(':', start);
            parts.push_back(value.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
        const auto height = parts.size() >= 3 ? ParseInt64(parts[0]) : std::nullopt;
        const auto blockhash = parts.size() >= 3 ? uint256::FromHex(parts[1]) : std::nullopt;
        const auto hash = parts.size() >= 3 ? uint256::FromHex(parts[2]) : std::nullopt;
        const auto tx_count = parts.size() == 4 ? ParseUInt64(parts[3]) : std::optional<uint64_t>{};
        if (parts.size() < 3 || parts.size() > 4 || !height || *height < 0 || *height > INT32_MAX || !blockhash || !hash ||
            (parts.size() == 4 && !tx_count)) {
            throw InitError("Invalid -assumeutxo value '" + value + "': expected <height>:<blockhash>:<hash_serialized_3>[:<nchaintx>]");
        }
        // Without a block index the chain's transaction count is unknown;
        // height + 1 (one transaction a block) is the smallest it can be.
        params.AddAssumeutxo({static_cast<int>(*height), *blockhash, *hash, tx_count.value_or(static_cast<uint64_t>(*height) + 1)});
        LogInfo("Added assumeutxo entry at height {} for block {}", *height, blockhash->GetHex());
    }
}

bool ReadSnapshotBulkLoadArg(const ArgsManager& args)
{
    return args.GetBoolArg("snapshotbulkload", DEFAULT_SNAPSHOT_BULK_LOAD);
}

} // namespace node
