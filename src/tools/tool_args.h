#ifndef COINSDB_TOOLS_TOOL_ARGS_H
#define COINSDB_TOOLS_TOOL_ARGS_H

// What coinsdb-gensnapshot and coinsdb-genchain share: the -output, -seed
// and -help options, bounded whole-number options, and a main() that
// reports any failure as "Error: <what>" with exit status 1.

#include <util/args.h>

#include <cstdint>
#include <optional>
#include <string>

// Adds -output=<path> (described by output_help), -seed=<n>, -help and -?.
void AddGeneratorArgs(ArgsManager& args, const std::string& output_help);

// Parses the command line. Prints usage and the options and returns
// nullopt for -help; otherwise returns the -output path. Throws
// std::invalid_argument for anything the tool cannot take.
std::optional<std::string> ParseGeneratorArgs(ArgsManager& args, int argc, char* argv[], const std::string& usage);

// -name as a whole number from min to max; fallback when it is not given.
uint64_t ParseBounded(const ArgsManager& args, const std::string& name, uint64_t fallback, uint64_t min, uint64_t max);

// -seed (default 0).
uint64_t ParseSeed(const ArgsManager& args);

// Runs run(argc, argv) and turns an exception into "Error: ..." on stderr
// and exit status 1.
int RunGeneratorTool(int argc, char* argv[], int (*run)(int, char*[]));

#endif // COINSDB_TOOLS_TOOL_ARGS_H
