#ifndef COINSDB_NODE_INIT_INIT_H
#define COINSDB_NODE_INIT_INIT_H

// bitcoind's life cycle: options, datadir and lock, logging, RPC server,
// chainstates, waiting for a shutdown request, and the final flush.

#include <stdexcept>
#include <string_view>

namespace node {

// A reason start-up cannot go on: AppMain reports it as "Error: <what>"
// and exits with status 1.
struct InitError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Runs the node; returns the process exit code.
// `allocator`: what the binary allocates memory with, when not the C
// library's malloc, for the log's start-up lines.
int AppMain(int argc, char* argv[], std::string_view allocator = {});

} // namespace node

#endif // COINSDB_NODE_INIT_INIT_H
