#include <node/init/init_args.h>

#include <kernel/chainparams.h>
#include <node/chainstate/chainstate.h>
#include <node/init/init.h>
#include <util/args.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <optional>
#include <vector>

namespace node {

InitOptions ReadInitArgs(const ArgsManager& args, const std::filesystem::path& net_dir)
{
    InitOptions options;
    options.daemon = args.GetBoolArg("daemon", options.daemon) || args.GetBoolArg("daemonwait", options.daemon);
    options.allow_foreign_datadir = args.GetBoolArg("allowforeigndatadir", options.allow_foreign_datadir);
    if (args.IsArgNegated("pid")) {
        options.pid_file.reset();
    } else {
        options.pid_file = AbsPathInDir(net_dir, args.GetArg("pid", options.pid_file->string()));
    }
    options.block_import = ReadBlockImportArgs(args);
    options.block_storage = ReadBlockStorageArgs(args);
    options.rpc_credentials = ReadRpcCredentialArgs(args, net_dir);
    return options;
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
