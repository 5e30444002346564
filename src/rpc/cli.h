#ifndef COINSDB_RPC_CLI_H
#define COINSDB_RPC_CLI_H

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

class ArgsManager;

// bitcoin-cli: reads the same options and bitcoin.conf as bitcoind, makes
// one JSON-RPC call and prints the answer. src/bitcoin-cli.cpp is only a
// main() around RunBitcoinCli.

// Where a network's node listens and keeps its files.
struct CliNetwork {
    // Subdirectory of the datadir holding .cookie: "" for main.
    std::string data_dir_name;
    uint16_t rpc_port;
};
// For an ArgsManager chain name: main, test, testnet4, signet, regtest.
std::optional<CliNetwork> CliNetworkForChain(const std::string& chain);

void SetupCliArgs(ArgsManager& args);

// Returns the exit code: 0 on success, 1 for an RPC error and for anything
// else (bad options, no connection, authorization failure).
int RunBitcoinCli(int argc, const char* const argv[], std::istream& in, std::ostream& out, std::ostream& err);

#endif // COINSDB_RPC_CLI_H
