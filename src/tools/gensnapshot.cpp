// coinsdb-gensnapshot: writes a synthetic, deterministic UTXO snapshot (see
// tools/snapshot_generator.h) and prints what -assumeutxo needs to load it.

#include <kernel/chainparams.h>
#include <tools/snapshot_generator.h>
#include <tools/tool_args.h>
#include <util/args.h>
#include <util/strencodings.h>

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace {

constexpr const char* USAGE{"coinsdb-gensnapshot -output=<path> -coins=<n> [options]"};
constexpr const char* OUTPUT_HELP{"Snapshot file to write (must not exist yet)"};

// Coins and heights beyond these are typos, not benchmarks; the height bound
// also caps the one-bit-per-block coinbase map at 6 MB.
constexpr uint64_t MAX_COINS = 1'000'000'000;
constexpr int64_t MAX_BASE_HEIGHT = 50'000'000;

void SetupArgs(ArgsManager& args)
{
    const std::string cat{"Options"};
    args.AddArg("-coins=<n>", fmt::format("Number of coins, 1 to {}", MAX_COINS), ArgsManager::NONE, cat);
    args.AddArg("-height=<n>", fmt::format("Base block height, 1 to {} (default: 840000)", MAX_BASE_HEIGHT), ArgsManager::NONE, cat);
    args.AddArg("-chain=<chain>", "Network magic to write: regtest, signet, test or testnet4 (default: regtest)", ArgsManager::NONE, cat);
    args.AddArg("-blockhash=<hex>", "Base block hash (default: derived from seed, coins and height)", ArgsManager::NONE, cat);
}

CChainParams ParseChain(const ArgsManager& args)
{
    const std::string name = args.GetArg("chain", "regtest");
    const auto chain = ChainTypeFromString(name);
    if (!chain) throw std::invalid_argument(fmt::format("-chain={} is not a chain: use regtest, signet, test or testnet4", name));
    // Mainnet takes no -assumeutxo entries, so it could never load the file.
    if (*chain == ChainType::MAIN) throw std::invalid_argument("-chain=main is not supported: mainnet accepts no -assumeutxo entries");
    return CChainParams::ForChain(*chain);
}

SnapshotGeneratorOptions ParseOptions(const ArgsManager& args)
{
    if (!args.IsArgSet("coins")) throw std::invalid_argument("-coins=<n> is required");
    SnapshotGeneratorOptions options;
    options.coins = ParseBounded(args, "coins", 0, 1, MAX_COINS);
    options.seed = ParseSeed(args);
    options.base_height = static_cast<int>(ParseBounded(args, "height", 840'000, 1, MAX_BASE_HEIGHT));
    if (const auto hex = args.GetArg("blockhash")) {
        const auto hash = uint256::FromHex(*hex);
        if (!hash || hash->IsNull()) throw std::invalid_argument(fmt::format("-blockhash={} is not a non-zero 64-digit hex hash", *hex));
        options.base_blockhash = *hash;
    }
    return options;
}

std::string Generate(const ArgsManager& args, const std::string& output)
{
    const CChainParams params = ParseChain(args);
    const SnapshotGeneratorOptions options = ParseOptions(args);
    return SnapshotInfoJson(GenerateSnapshotFile(output, params, options), output, params.GetChainTypeString());
}

} // namespace

int main(int argc, char* argv[]) { return RunGeneratorTool(argc, argv, {USAGE, OUTPUT_HELP, SetupArgs, Generate}); }
