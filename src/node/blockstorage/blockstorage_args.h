#ifndef COINSDB_NODE_BLOCKSTORAGE_BLOCKSTORAGE_ARGS_H
#define COINSDB_NODE_BLOCKSTORAGE_BLOCKSTORAGE_ARGS_H

// Block storage's options in one place: their defaults, their help texts
// (RegisterBlockStorageOptions) and their readers. A value start-up refuses
// throws InitError with the message the user sees.

#include <cstdint>
#include <string>

class ArgsManager;

namespace node {

// Defaults that the help text states too.
inline constexpr bool DEFAULT_BLOCKS_XOR{true};

// -blocksxor, -prune and -fastprune.
void RegisterBlockStorageOptions(ArgsManager& args);

struct BlockStorageOptions {
    // -blocksxor
    bool blocks_xor{DEFAULT_BLOCKS_XOR};
    // -fastprune
    bool fast_prune{false};
    // -prune as given (MiB); PruneTargetBytes checks it when block replay
    // is set up.
    std::string prune{"0"};
};

// Reads BlockStorageOptions.
BlockStorageOptions ReadBlockStorageArgs(const ArgsManager& args);

// BlockStorageOptions::prune in bytes: 0 keeps every block; otherwise at
// least 550 MiB, as upstream, unless fast_prune.
uint64_t PruneTargetBytes(const std::string& prune, bool fast_prune);

} // namespace node

#endif // COINSDB_NODE_BLOCKSTORAGE_BLOCKSTORAGE_ARGS_H
