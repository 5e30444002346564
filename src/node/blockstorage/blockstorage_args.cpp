#include <node/blockstorage/blockstorage_args.h>

#include <kernel/caches.h>
#include <node/init/init.h>
#include <util/args.h>
#include <util/strencodings.h>

#include <cstdint>

namespace node {

void RegisterBlockStorageOptions(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string opts = "Options";
    args.AddArg("-blocksxor", "Whether blk/rev files are stored XORed with the key in blocks/xor.dat, as Bitcoin Core stores them. A new key is random for a new, empty blocks directory and all zeros (plain files) for one that already holds files or with -blocksxor=0; a stored non-zero key cannot be disabled (default: " + std::to_string(DEFAULT_BLOCKS_XOR) + ")", F::NONE, opts);
    // At most what a byte count in an int64_t can hold.
    args.AddIntArg("-prune=<n>", "Reduce storage by deleting old block and undo files, keeping them under <n> MiB (0 = off, otherwise at least 550). The last 288 blocks are always kept (default: 0)", F::NONE, opts,
                   {.min = 0, .max = INT64_MAX / static_cast<int64_t>(MiB), .expected = "a size in MiB", .port = false});
    const std::string debug = "Debugging/Testing options";
    args.AddArg("-fastprune", "Use 64 KiB block files and accept -prune targets from 1 MiB, so tests can see pruning on small chains (default: 0)", F::DEBUG_ONLY, debug);
}

BlockStorageOptions ReadBlockStorageArgs(const ArgsManager& args)
{
    BlockStorageOptions options;
    options.blocks_xor = args.GetBoolArg("blocksxor", options.blocks_xor);
    options.fast_prune = args.GetBoolArg("fastprune", options.fast_prune);
    options.prune = args.GetArg("prune", options.prune);
    return options;
}

uint64_t PruneTargetBytes(const std::string& prune, bool fast_prune)
{
    const std::string& value = prune;
    const auto mib = ParseInt64(value);
    if (!mib || *mib < 0) throw InitError("Invalid -prune value '" + value + "': expected a size in MiB");
    if (*mib == 0) return 0;
    // In Bitcoin Core 1 means manual pruning, driven by the pruneblockchain
    // RPC; coinsdb has no such RPC, so the mode would never prune. With the
    // test-only -fastprune it stays what it was here: a 1 MiB target.
    if (*mib == 1 && !fast_prune) {
        throw InitError("-prune=1 (manual pruning with the pruneblockchain RPC) is not supported: coinsdb has no "
                        "pruneblockchain RPC. Use -prune=<n> with n >= 550 to prune automatically, or -prune=0.");
    }
    // -fastprune (tests) lifts the minimum so pruning shows on small chains.
    if (*mib < 550 && !fast_prune) {
        throw InitError("Prune configured below the minimum of 550 MiB. Please use a higher number.");
    }
    return static_cast<uint64_t>(*mib) * MiB;
}

} // namespace node
