#ifndef COINSDB_TOOLS_HINTS_GENERATOR_H
#define COINSDB_TOOLS_HINTS_GENERATOR_H

// coinsdb-genhints' logic: a SwiftSync hints file (kernel/swiftsync/
// hints_file.h) for height H, from the UTXO set at H and the chain's blocks.
//
// The UTXO set is a snapshot (dumptxoutset's format) or a stopped node's
// chainstate, which is only read: its best block must be whole (no flush
// left half done). Its base block is the block at H: it must be in the
// block files, on a chain that goes back to the network's genesis block,
// and at the height the caller names, if one is named.
//
// The blocks come from blk-format files as -loadblock takes them (ours,
// coinsdb-genchain's, Bitcoin Core's), in any order, stale blocks
// included: a first scan records each block's parent, the chain is the
// base block's ancestors, and a second scan takes the chain's blocks in
// height order (a block found before its turn waits in memory; Core's blk
// files are out of order by a few hundred blocks at most). Each block's
// merkle root and proof of work are checked (kernel::CheckBlock): a block
// whose transactions do not match its header would give hints for outputs
// that do not exist.
//
// Every coin of the set must be a spendable output of blocks 1..H, and is
// hinted exactly once; otherwise the set is not this chain's at H and
// nothing is written.
//
// Memory: the set as a sorted std::vector<COutPoint> (36 bytes a coin,
// looked up by binary search) and a bit per coin marking the ones found:
// about 6.5 GB at mainnet's 180 million coins. The first scan keeps about
// 100 bytes per block in the files (a hash map of hash -> parent).

#include <kernel/chainparams.h>
#include <node/blockstorage/obfuscation.h>
#include <uint256.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

struct HintsGeneratorOptions {
    // Exactly one of the two.
    std::filesystem::path snapshot;
    std::filesystem::path chainstate_dir;
    std::vector<std::filesystem::path> block_files;
    // The key of the block files (a datadir's blocks/xor.dat); all zeros
    // for -loadblock files.
    node::BlockFileXorKey xor_key{};
    // H, when the caller names it: the base block must be there.
    std::optional<int> height;
};

struct GeneratedHintsInfo {
    int height{0};
    uint256 block_hash;
    uint64_t coins{0};
    // Spendable outputs of blocks 1..H: what the file's indices range over
    // (its size per output is comparable across chains).
    uint64_t outputs{0};
    uint64_t file_bytes{0};
    uint256 file_sha256;
    double seconds{0};
};

// Writes the file at `output` (which must not exist) through a temporary
// name. Throws std::runtime_error saying what is wrong.
GeneratedHintsInfo GenerateHintsFile(const std::filesystem::path& output, const CChainParams& params,
                                     const HintsGeneratorOptions& options);

// What coinsdb-genhints prints: one JSON object.
std::string HintsInfoJson(const GeneratedHintsInfo& info, const std::filesystem::path& output);

// coinsdb-genhints -print: the outputs a hints file names, as
// "<height> <txid>:<n>" lines in block order, the blocks found as above
// from the block at the file's height, which is `block_hash`. Throws
// std::runtime_error for a file the reader refuses or a hint beyond its
// block's spendable outputs.
void PrintHintedOutputs(const std::filesystem::path& hints, const uint256& block_hash, const CChainParams& params,
                        const HintsGeneratorOptions& options, std::FILE* out);

// SHA-256 of a whole file (the format holds no checksum of its own).
uint256 FileSha256(const std::filesystem::path& path);

#endif // COINSDB_TOOLS_HINTS_GENERATOR_H
