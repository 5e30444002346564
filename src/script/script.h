#ifndef COINSDB_SCRIPT_SCRIPT_H
#define COINSDB_SCRIPT_SCRIPT_H

#include <prevector.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

constexpr size_t MAX_SCRIPT_SIZE = 10'000;

// Script opcodes under Bitcoin Core's names and values. coinsdb names only
// the ones it builds or recognises (the script shapes compression and the
// generators know, sigop counting, the genesis coinbase); every other byte
// is just data to it: this list implies no interpreter. Related opcodes
// share a line.
// clang-format off
enum opcodetype {
    // Pushes: a byte below OP_PUSHDATA1 pushes that many bytes; OP_1 .. OP_16
    // push the numbers 1 to 16 (OP_n is OP_1 - 1 + n).
    OP_0 = 0x00, OP_FALSE = OP_0,
    OP_PUSHDATA1 = 0x4c, OP_PUSHDATA2 = 0x4d, OP_PUSHDATA4 = 0x4e,
    OP_1NEGATE = 0x4f,
    OP_1 = 0x51, OP_TRUE = OP_1, OP_2 = 0x52, OP_3 = 0x53, OP_16 = 0x60,
    // Flow control, stack and splice.
    OP_NOP = 0x61, OP_IF = 0x63, OP_RETURN = 0x6a,
    OP_DROP = 0x75, OP_DUP = 0x76, OP_SIZE = 0x82,
    // Comparison, hashing and signatures.
    OP_EQUAL = 0x87, OP_EQUALVERIFY = 0x88,
    OP_HASH160 = 0xa9,
    OP_CHECKSIG = 0xac, OP_CHECKSIGVERIFY = 0xad, OP_CHECKMULTISIG = 0xae, OP_CHECKMULTISIGVERIFY = 0xaf,
    // Timelocks (BIP65, BIP112).
    OP_CHECKLOCKTIMEVERIFY = 0xb1, OP_CHECKSEQUENCEVERIFY = 0xb2,
};
// clang-format on

// Scripts up to this many bytes live inside the script object, with no heap
// block of their own. Bitcoin Core keeps 28 (P2PKH, P2SH, P2WPKH); 35 also
// holds the 34-byte P2TR and P2WSH scripts, a quarter of a mainnet-shaped
// UTXO set, and the 35-byte compressed P2PK. With the prevector's one-byte
// tag a script is then 36 bytes and a Coin 48, as in Core; one more inline
// byte would make the Coin 56.
inline constexpr unsigned int SCRIPT_INLINE_BYTES = 35;
using CScriptBase = prevector<SCRIPT_INLINE_BYTES, unsigned char>;

// A script as raw bytes. coinsdb never interprets scripts beyond recognising
// the shapes that script compression stores specially.
class CScript : public CScriptBase
{
public:
    using CScriptBase::CScriptBase;
    CScript() = default;
    explicit CScript(const std::vector<unsigned char>& bytes) : CScriptBase(bytes.begin(), bytes.end()) {}

    // Provably unspendable outputs are never added to the UTXO set.
    bool IsUnspendable() const { return (!empty() && front() == OP_RETURN) || size() > MAX_SCRIPT_SIZE; }
};

#endif // COINSDB_SCRIPT_SCRIPT_H
