#include <tools/tool_args.h>

#include <util/strencodings.h>

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <stdexcept>

namespace {

// -output=<path> (described by output_help), -seed=<n>, -help and -?.
void AddGeneratorArgs(ArgsManager& args, const std::string& output_help)
{
    const std::string cat{"Options"};
    args.AddArg("-output=<path>", output_help, ArgsManager::NONE, cat);
    args.AddArg("-seed=<n>", "Seed; the same seed and options give the same file (default: 0)", ArgsManager::NONE, cat);
    args.AddArg("-help", "Print this help message and exit", ArgsManager::NONE, cat);
    args.AddArg("-?", "Print this help message and exit", ArgsManager::NONE, cat);
}

// Prints the usage and the options and returns nullopt for -help; otherwise
// returns the -output path. Throws std::invalid_argument for anything the
// tool cannot take.
std::optional<std::string> ParseGeneratorArgs(ArgsManager& args, int argc, char* argv[], const std::string& usage)
{
    std::string error;
    if (!args.ParseParameters(argc, argv, error)) throw std::invalid_argument(error);
    if (!args.Positionals().empty()) throw std::invalid_argument("unexpected argument " + args.Positionals().front());
    if (args.IsArgSet("help") || args.IsArgSet("?")) {
        std::fputs(("Usage: " + usage + "\n\n" + args.GetHelpMessage(false)).c_str(), stdout);
        return std::nullopt;
    }
    const auto output = args.GetArg("output");
    if (!output || output->empty()) throw std::invalid_argument("-output=<path> is required");
    return *output;
}

} // namespace

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

uint64_t ParseSeed(const ArgsManager& args) { return ParseBounded(args, "seed", 0, 0, UINT64_MAX); }

int RunGeneratorTool(int argc, char* argv[], const GeneratorTool& tool)
{
    try {
        ArgsManager args;
        AddGeneratorArgs(args, tool.output_help);
        tool.add_args(args);
        const auto output = ParseGeneratorArgs(args, argc, argv, tool.usage);
        if (!output) return 0;
        std::puts(tool.generate(args, *output).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "Error: %s\n", e.what());
        return 1;
    }
}
