// coinsdb-genhints: writes the SwiftSync hints file for the UTXO set of a
// snapshot or a stopped node's chainstate (see tools/hints_generator.h) and
// prints what it wrote; -print lists the outputs a hints file names.

#include <kernel/chainparams.h>
#include <tools/hints_generator.h>
#include <tools/tool_args.h>
#include <util/args.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

constexpr const char* USAGE{
    "coinsdb-genhints -output=<path> (-snapshot=<path> | -datadir=<dir>) [-loadblock=<file> ...] [options]\n"
    "       coinsdb-genhints -print=<hints> -blockhash=<hash> -loadblock=<file> ... [-chain=<chain>]"};

void SetupArgs(ArgsManager& args)
{
    const std::string cat{"Options"};
    args.AddArg("-output=<path>", "Hints file to write (must not exist yet)", ArgsManager::NONE, cat);
    args.AddArg("-snapshot=<path>", "UTXO set at H: a snapshot in dumptxoutset's format", ArgsManager::NONE, cat);
    args.AddArg("-datadir=<dir>", "UTXO set at H: the chainstate of a stopped node's datadir, only read; also its block files unless -loadblock is given", ArgsManager::NONE, cat);
    args.AddArg("-loadblock=<file>", "A blk-format file holding blocks of the chain (may be repeated; any order, as bitcoind -loadblock)", ArgsManager::NONE, cat);
    args.AddArg("-chain=<chain>", "main, test, testnet4, signet or regtest (default: regtest)", ArgsManager::NONE, cat);
    args.AddArg("-height=<n>", "H; refused unless the UTXO set's base block is at this height (default: the base block's height)", ArgsManager::NONE, cat);
    args.AddArg("-print=<hints>", "Print the outputs a hints file names, \"<height> <txid>:<n>\" per line, instead of writing one", ArgsManager::NONE, cat);
    args.AddArg("-blockhash=<hash>", "With -print: the block at the file's height", ArgsManager::NONE, cat);
    args.AddArg("-help", "Print this help message and exit", ArgsManager::NONE, cat);
    args.AddArg("-?", "Print this help message and exit", ArgsManager::NONE, cat);
}

CChainParams ParseChain(const ArgsManager& args)
{
    const std::string name = args.GetArg("chain", "regtest");
    const auto chain = ChainTypeFromString(name);
    if (!chain) throw std::invalid_argument(fmt::format("-chain={} is not a chain: use main, test, testnet4, signet or regtest", name));
    return CChainParams::ForChain(*chain);
}

HintsGeneratorOptions ParseOptions(const ArgsManager& args, const CChainParams& params)
{
    HintsGeneratorOptions options;
    for (const std::string& file : args.GetArgs("loadblock")) options.block_files.emplace_back(file);
    if (const auto snapshot = args.GetArg("snapshot")) options.snapshot = *snapshot;
    if (const auto datadir = args.GetArg("datadir")) {
        const std::filesystem::path net_dir = std::filesystem::path{*datadir} / params.DataDirName();
        options.chainstate_dir = net_dir / "chainstate";
        if (options.block_files.empty()) {
            std::string error;
            const auto key = node::ReadXorKey(net_dir / "blocks", error);
            if (!key) throw std::runtime_error(error);
            options.xor_key = *key;
            for (int file = 0; std::filesystem::exists(net_dir / "blocks" / fmt::format("blk{:05d}.dat", file)); ++file) {
                options.block_files.push_back(net_dir / "blocks" / fmt::format("blk{:05d}.dat", file));
            }
        }
    }
    if (options.block_files.empty()) throw std::invalid_argument("no block files: give -loadblock=<file> (or -datadir=<dir> with blocks)");
    if (args.IsArgSet("height")) options.height = static_cast<int>(ParseBounded(args, "height", 0, 1, 0x7fffffff));
    return options;
}

void Run(const ArgsManager& args)
{
    const CChainParams params = ParseChain(args);
    if (const auto hints = args.GetArg("print")) {
        const auto hash = uint256::FromHex(args.GetArg("blockhash", ""));
        if (!hash) throw std::invalid_argument("-print needs -blockhash=<hash>, the block at the file's height");
        PrintHintedOutputs(*hints, *hash, params, ParseOptions(args, params), stdout);
        return;
    }
    const auto output = args.GetArg("output");
    if (!output || output->empty()) throw std::invalid_argument("-output=<path> is required");
    if (args.IsArgSet("snapshot") == args.IsArgSet("datadir")) throw std::invalid_argument("give one of -snapshot=<path> and -datadir=<dir>");
    std::puts(HintsInfoJson(GenerateHintsFile(*output, params, ParseOptions(args, params)), *output).c_str());
}

} // namespace

int main(int argc, char* argv[])
{
    try {
        ArgsManager args;
        SetupArgs(args);
        std::string error;
        if (!args.ParseParameters(argc, argv, error)) throw std::invalid_argument(error);
        if (!args.Positionals().empty()) throw std::invalid_argument("unexpected argument " + args.Positionals().front());
        if (args.IsArgSet("help") || args.IsArgSet("?")) {
            std::fputs((std::string{"Usage: "} + USAGE + "\n\n" + args.GetHelpMessage(false)).c_str(), stdout);
            return 0;
        }
        Run(args);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "Error: %s\n", e.what());
        return 1;
    }
}
