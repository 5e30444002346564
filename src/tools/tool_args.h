#ifndef COINSDB_TOOLS_TOOL_ARGS_H
#define COINSDB_TOOLS_TOOL_ARGS_H

// What coinsdb-gensnapshot and coinsdb-genchain share: the -output, -seed
// and -help options, bounded whole-number options, and a main() that parses
// them and reports any failure as "Error: <what>" with exit status 1.

#include <util/args.h>

#include <cstdint>
#include <optional>
#include <string>

// -name as a whole number from min to max; fallback when it is not given.
uint64_t ParseBounded(const ArgsManager& args, const std::string& name, uint64_t fallback, uint64_t min, uint64_t max);

// -seed (default 0).
uint64_t ParseSeed(const ArgsManager& args);

// One generator: its usage line, the help text of its -output, the
// options it takes besides the shared ones, and what it does with them.
struct GeneratorTool {
    std::string usage;
    std::string output_help;
    void (*add_args)(ArgsManager& args);
    // Writes the file at output and returns the line printed on success.
    std::string (*generate)(const ArgsManager& args, const std::string& output);
};

// The whole main() of a generator: adds the shared options (-output, -seed,
// -help, -?) and the tool's own, parses the command line, prints the usage
// and the options for -help, and otherwise requires -output and prints
// what generate() returns. Anything the tool cannot take or do is reported
// as "Error: <what>" on stderr with exit status 1.
int RunGeneratorTool(int argc, char* argv[], const GeneratorTool& tool);

#endif // COINSDB_TOOLS_TOOL_ARGS_H
