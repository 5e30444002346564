#ifndef COINSDB_TOOLS_COIN_SHAPE_H
#define COINSDB_TOOLS_COIN_SHAPE_H

// The "mainnet-like" content of a generated coin: its script type, script,
// amount and height. snapshot_generator.h decides which outpoints exist;
// this file decides what each one holds.
//
// Script-type mix, in coins per 10,000 (SCRIPT_MIX below). The shares are
// rough, rounded readings of public UTXO-set breakdowns around block 840,000
// (April 2024); the point is the proportions, not the decimals:
//   P2WPKH 33%, P2TR 20%: together about half the set, and the newest: the
//     2023-24 inscription wave left tens of millions of small P2TR outputs.
//   P2PKH 26%: a decade of legacy wallets still holds a quarter of the coins.
//   P2SH 11% (mostly wrapped segwit and old multisig), P2WSH 4.5%.
//   Bare multisig 2%: mostly 1-of-3 "stamps" data carriers.
//   P2PK 1% (0.4% compressed, 0.6% uncompressed): mainnet has only ~0.03%,
//     but every generated snapshot, even a test's 5,000 coins, must exercise
//     the compressor's P2PK forms (nSize 2..5), so the share is inflated.
//   Odd 2.5%: pay-to-anchor, future witness versions, the empty script,
//     OP_TRUE and random nonstandard scripts up to MAX_SCRIPT_SIZE; inflated
//     for the same reason, since these take the generic nSize >= 6 path.
// Never OP_RETURN: unspendable outputs are not in a UTXO set.
//
// Each type may only appear at heights after it existed (ERA in the .cpp,
// scaled to the base height), so that P2TR coins are never older than
// taproot.

#include <primitives/amount.h>
#include <script/script.h>
#include <tools/gen_random.h>

#include <array>
#include <cstdint>
#include <string_view>

enum class ScriptType : uint8_t {
    P2WPKH,
    P2TR,
    P2PKH,
    P2SH,
    P2WSH,
    BARE_MULTISIG,
    P2PK_COMPRESSED,
    P2PK_UNCOMPRESSED,
    ODD,
};
constexpr size_t SCRIPT_TYPE_COUNT = 9;

// Coins per 10,000, indexed by ScriptType; see the reasoning above.
constexpr std::array<uint32_t, SCRIPT_TYPE_COUNT> SCRIPT_MIX{3300, 2000, 2600, 1100, 450, 200, 40, 60, 250};

std::string_view ScriptTypeName(ScriptType type);

// The generated type a script belongs to, by its shape alone. Used by tests
// to check the mix of a file read back from disk.
ScriptType ClassifyScript(const CScript& script);

// Draws a script of the given type. P2PK keys are valid curve points.
CScript MakeScript(ScriptType type, GenRandom& rng);

// The type of a transaction's first output, from SCRIPT_MIX.
ScriptType DrawScriptType(GenRandom& rng);

// Whether the type existed at height, for a chain whose tip is base_height.
bool TypeExistsAt(ScriptType type, int height, int base_height);

// A height in 1..base_height where the type existed, skewed to recent
// blocks as the mainnet set is.
int DrawHeight(ScriptType type, int base_height, GenRandom& rng);

// A spendable output's amount: dust-heavy and close to log-uniform from
// 1 sat to 500 BTC (see coin_shape.cpp for the decade weights). The script
// matters for pay-to-anchor outputs, which hold 0 or 240 sat.
CAmount DrawAmount(ScriptType type, const CScript& script, GenRandom& rng);

// What one of `outputs` outputs of a coinbase at height pays: the mainnet
// subsidy at that height plus fees, split evenly.
CAmount CoinbaseOutputAmount(int height, uint32_t outputs, GenRandom& rng);

#endif // COINSDB_TOOLS_COIN_SHAPE_H
