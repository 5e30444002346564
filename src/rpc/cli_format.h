#ifndef COINSDB_RPC_CLI_FORMAT_H
#define COINSDB_RPC_CLI_FORMAT_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// What bitcoin-cli sends and prints, apart from the connection.

// A command-line argument as a JSON value. Arguments are JSON where they
// parse ("5", "true", "[1,2]", "{\"a\":1}", "0.00010000" with its text
// kept) and strings otherwise, except the parameters listed in cli_format.cpp
// as always strings (paths, hashes, help's command name): "dumptxoutset 123"
// must write a file named 123, not send a number.
nlohmann::json ConvertCliArgument(const std::string& method, size_t position, const std::string& name, const std::string& text);

// The "params" of a call. Positional: an array. With -named, "name=value"
// arguments become members of an object and arguments without '=' go, in
// order, to its "args" member. Throws std::runtime_error when a name is
// given twice.
nlohmann::json BuildCliParams(const std::string& method, const std::vector<std::string>& args, bool named);

// What one reply makes bitcoin-cli print, and its exit code: a string
// result bare, null nothing, anything else indented by 2, as upstream; an
// error object as "error code: <code>\nerror message:\n<message>" on stderr
// with exit code 1 (upstream exits |code|, which the shell wraps modulo 256).
struct CliOutput {
    std::string text; // without the final newline; empty prints nothing
    bool to_stderr{false};
    int exit_code{0};
};
CliOutput FormatCliReply(const nlohmann::json& reply);

// -getinfo's text from a getblockchaininfo result, in Core's layout:
//
//   Chain: regtest
//   Blocks: 0
//   Headers: 0
//   Verification progress: ▒░░░░░░░░░░░░░░░░░░░░ 0.0002%
//   Difficulty: 4.656542373906925e-10
//
//   Warnings: (none)
//
// The bar (one block per 5%, shown below 99%) and the percentage with four
// decimals are Core's. Core's network and wallet parts are left out:
// coinsdb has neither. Each further warning goes on a line of its own.
std::string FormatGetInfo(const nlohmann::json& blockchain_info);

#endif // COINSDB_RPC_CLI_FORMAT_H
