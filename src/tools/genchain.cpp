// coinsdb-genchain: writes a synthetic, deterministic regtest chain in block
// file format (see tools/chain_generator.h) and prints what it holds.

#include <tools/chain_generator.h>
#include <util/args.h>
#include <util/strencodings.h>

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

// A target beyond this is a typo: the generator would need tens of GB.
constexpr uint64_t MAX_TARGET_UTXOS = 1'000'000'000;

void SetupArgs(ArgsManager& args)
{
    const std::string cat{"Options"};
    args.AddArg("-output=<path>", "Block file to write (must not exist yet)", ArgsManager::NONE, cat);
    args.AddArg("-blocks=<n>", fmt::format("Blocks above genesis, 1 to {}", MAX_CHAIN_BLOCKS), ArgsManager::NONE, cat);
    args.AddArg("-seed=<n>", "Seed; the same seed and options give the same file (default: 0)", ArgsManager::NONE, cat);
    args.AddArg("-txs-per-block=<n>",
                fmt::format("Average transactions per block besides the coinbase, 0 to {} (default: {})", MAX_TXS_PER_BLOCK,
                            DEFAULT_TXS_PER_BLOCK),
                ArgsManager::NONE, cat);
    args.AddArg("-target-utxos=<n>",
                fmt::format("Grow the UTXO set towards this size, then churn around it, 1 to {} (default: no target, "
                            "slow mainnet-like growth)",
                            MAX_TARGET_UTXOS),
                ArgsManager::NONE, cat);
    args.AddArg("-help", "Print this help message and exit", ArgsManager::NONE, cat);
    args.AddArg("-?", "Print this help message and exit", ArgsManager::NONE, cat);
}

uint64_t ParseBounded(const ArgsManager& args, const std::string& name, uint64_t fallback, uint64_t min, uint64_t max)
{
    const auto text = args.GetArg(name);
    if (!text) return fallback;
    const auto value = ParseUInt64(*text);
    if (!value || *value < min || *value > max) {
        throw std::invalid_argument(fmt::format("-{}={} is not a whole number from {} to {}", name, *text, min, max));
    }
    return *value;
}

ChainGeneratorOptions ParseOptions(const ArgsManager& args)
{
    if (!args.IsArgSet("blocks")) throw std::invalid_argument("-blocks=<n> is required");
    ChainGeneratorOptions options;
    options.blocks = static_cast<int>(ParseBounded(args, "blocks", 0, 1, MAX_CHAIN_BLOCKS));
    options.seed = ParseBounded(args, "seed", 0, 0, UINT64_MAX);
    options.txs_per_block = static_cast<uint32_t>(
        ParseBounded(args, "txs-per-block", DEFAULT_TXS_PER_BLOCK, 0, MAX_TXS_PER_BLOCK));
    options.target_utxos = ParseBounded(args, "target-utxos", 0, 1, MAX_TARGET_UTXOS);
    options.progress = [](int height, uint64_t utxos) {
        std::fprintf(stderr, "height %d: %llu utxos\n", height, static_cast<unsigned long long>(utxos));
    };
    return options;
}

int Run(int argc, char* argv[])
{
    ArgsManager args;
    SetupArgs(args);
    std::string error;
    if (!args.ParseParameters(argc, argv, error)) throw std::invalid_argument(error);
    if (!args.Positionals().empty()) throw std::invalid_argument("unexpected argument " + args.Positionals().front());
    if (args.IsArgSet("help") || args.IsArgSet("?")) {
        const std::string usage{"Usage: coinsdb-genchain -output=<path> -blocks=<n> [options]\n\n"};
        std::fputs((usage + args.GetHelpMessage(false)).c_str(), stdout);
        return 0;
    }
    const auto output = args.GetArg("output");
    if (!output || output->empty()) throw std::invalid_argument("-output=<path> is required");
    const ChainGeneratorOptions options = ParseOptions(args);

    const auto info = GenerateChainFile(*output, options);
    std::puts(ChainInfoJson(info, *output).c_str());
    return 0;
}

} // namespace

int main(int argc, char* argv[])
{
    try {
        return Run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "Error: %s\n", e.what());
        return 1;
    }
}
