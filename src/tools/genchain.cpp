// coinsdb-genchain: writes a synthetic, deterministic regtest chain in block
// file format (see tools/chain_generator.h) and prints what it holds.

#include <tools/chain_generator.h>
#include <tools/tool_args.h>
#include <util/args.h>
#include <util/strencodings.h>

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

constexpr const char* USAGE{"coinsdb-genchain -output=<path> -blocks=<n> [options]"};
constexpr const char* OUTPUT_HELP{"Block file to write (must not exist yet)"};

// A target beyond this is a typo: the generator would need tens of GB.
constexpr uint64_t MAX_TARGET_UTXOS = 1'000'000'000;

void SetupArgs(ArgsManager& args)
{
    const std::string cat{"Options"};
    args.AddArg("-blocks=<n>", fmt::format("Blocks above genesis, 1 to {}", MAX_CHAIN_BLOCKS), ArgsManager::NONE, cat);
    args.AddArg("-txs-per-block=<n>",
                fmt::format("Average transactions per block besides the coinbase, 0 to {} (default: {})", MAX_TXS_PER_BLOCK,
                            DEFAULT_TXS_PER_BLOCK),
                ArgsManager::NONE, cat);
    args.AddArg("-target-utxos=<n>",
                fmt::format("Grow the UTXO set towards this size, then churn around it, 1 to {} (default: no target, "
                            "slow mainnet-like growth)",
                            MAX_TARGET_UTXOS),
                ArgsManager::NONE, cat);
}

ChainGeneratorOptions ParseOptions(const ArgsManager& args)
{
    if (!args.IsArgSet("blocks")) throw std::invalid_argument("-blocks=<n> is required");
    ChainGeneratorOptions options;
    options.blocks = static_cast<int>(ParseBounded(args, "blocks", 0, 1, MAX_CHAIN_BLOCKS));
    options.seed = ParseSeed(args);
    options.txs_per_block = static_cast<uint32_t>(
        ParseBounded(args, "txs-per-block", DEFAULT_TXS_PER_BLOCK, 0, MAX_TXS_PER_BLOCK));
    options.target_utxos = ParseBounded(args, "target-utxos", 0, 1, MAX_TARGET_UTXOS);
    options.progress = [](int height, uint64_t utxos) {
        std::fprintf(stderr, "height %d: %llu utxos\n", height, static_cast<unsigned long long>(utxos));
    };
    return options;
}

std::string Generate(const ArgsManager& args, const std::string& output)
{
    const ChainGeneratorOptions options = ParseOptions(args);
    return ChainInfoJson(GenerateChainFile(output, options), output);
}

} // namespace

int main(int argc, char* argv[]) { return RunGeneratorTool(argc, argv, {USAGE, OUTPUT_HELP, SetupArgs, Generate}); }
