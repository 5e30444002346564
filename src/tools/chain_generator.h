#ifndef COINSDB_TOOLS_CHAIN_GENERATOR_H
#define COINSDB_TOOLS_CHAIN_GENERATOR_H

// Synthetic regtest chains, to replay realistic UTXO churn through the node.
//
// File format: Bitcoin Core's block files (blk?????.dat). Each record is
//   network magic (fa bf b5 da on regtest) | LE32 block size | the block
// (primitives/block.h), with no padding between records. The first record
// is the regtest genesis block exactly as Bitcoin Core builds it; then come
// heights 1..blocks, each building on the one before. Unlike Core's blk
// files, which roll over at 128 MiB, the whole chain is one file.
//
// What the chain satisfies: every consensus rule a node checks short of
// running scripts (kernel/connect.h checks the UTXO-relevant ones):
//   - headers: version 0x20000000, the previous block's hash, the merkle
//     root of the txids, strictly increasing times (so above the median of
//     the last 11), nBits 0x207fffff and a nonce ground until
//     SHA256d(header) <= target;
//   - a coinbase first, BIP34 height push at the start of a 2..100 byte
//     scriptSig, paying at most the regtest subsidy (50 BTC halved every
//     150 blocks) plus the block's fees;
//   - legacy (witness-free) transactions of 1-3 inputs and 1-4 outputs,
//     spending only coins that exist and are unspent, each outpoint once,
//     coinbase outputs only after 100 confirmations, outputs of the same
//     block only after the transaction creating them; fees are never
//     negative;
//   - at most 1,000,000 bytes (weight 4,000,000 without witness) and 20,000
//     legacy sigops (cost 80,000) per block.
// Scripts are never executed by coinsdb, so the scriptSigs are signature-
// shaped filler (Bitcoin Core itself would reject the chain for that) and
// output scripts come from the mainnet-like mix of tools/coin_shape.h.
// There are no OP_RETURN outputs: every output is a coin. Amounts can't be
// mainnet's (regtest mints 15,000 BTC in all); chain_generator.cpp says how
// they are split instead.
//
// Deterministic: the file is a function of the options alone.
//
// Memory: the generator never looks a coin up by outpoint, it only draws
// coins to spend, so it keeps the spendable coins in a vector in creation
// order (12 bytes each) and every transaction's txid once (32 bytes),
// dropping txids none of whose outputs are left. The peak is about 31 bytes
// per coin (620 MB for a chain grown to 20 million).

#include <kernel/chainparams.h>
#include <primitives/amount.h>
#include <primitives/block.h>
#include <streams.h>
#include <uint256.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

// Enough transactions that every block shows the whole script mix, and, at
// about 280 bytes each, blocks of about half a megabyte.
constexpr uint32_t DEFAULT_TXS_PER_BLOCK = 2000;
// A full block holds about 4,000 of the generated transactions, so a larger
// average only means full blocks.
constexpr uint32_t MAX_TXS_PER_BLOCK = 10'000;
// Block times advance 600 s on average from genesis (February 2011); this
// many blocks end around 2020, well before any node's clock, which rejects
// blocks more than two hours ahead of it.
constexpr int MAX_CHAIN_BLOCKS = 500'000;

struct ChainGeneratorOptions {
    uint64_t seed{0};
    // Blocks above genesis; the tip is at this height.
    int blocks{0};
    // Average non-coinbase transactions per block; each block draws its
    // count from [avg/2, avg*3/2] and stops early when it is full.
    uint32_t txs_per_block{DEFAULT_TXS_PER_BLOCK};
    // 0: no target, transactions follow a mildly growing mainnet-like mix.
    // Otherwise the mix creates more outputs than it spends while the set
    // is below this size and slightly fewer once it is reached, so the set
    // climbs to it and then churns around it.
    uint64_t target_utxos{0};
    // Called after every 1,000th block with its height and the set's size.
    std::function<void(int height, uint64_t utxos)> progress;
};

struct GeneratedChainInfo {
    int tip_height{0};
    uint256 tip_hash;
    // Unspent outputs at the tip, immature coinbase outputs included and the
    // genesis output (never spendable, never in a UTXO set) left out.
    uint64_t utxos{0};
    CAmount total_amount{0};
    // Every transaction in the file, the genesis coinbase included: the
    // chain tx count of the tip.
    uint64_t transactions{0};
    uint64_t file_bytes{0};
    double seconds{0};
};

// Bitcoin Core's regtest genesis block.
CBlock RegtestGenesisBlock();

// The regtest block subsidy at height.
CAmount RegtestSubsidy(int height);

// Writes the chain to file. Throws std::invalid_argument for options out of
// range and std::ios_base::failure on write errors.
GeneratedChainInfo WriteGeneratedChain(AutoFile& file, const ChainGeneratorOptions& options);

// Writes the chain to `path` through "<path>.incomplete", renamed once
// complete, refusing to replace an existing file. Throws std::runtime_error
// with a message for the user.
GeneratedChainInfo GenerateChainFile(const std::filesystem::path& path, const ChainGeneratorOptions& options);

// The one-line JSON object coinsdb-genchain prints:
// {"path","blocks","tip_hash","tip_height","utxos","transactions","total_amount","seconds"};
// "blocks" is the tip height (the file holds that many blocks plus genesis).
std::string ChainInfoJson(const GeneratedChainInfo& info, const std::filesystem::path& path);

#endif // COINSDB_TOOLS_CHAIN_GENERATOR_H
