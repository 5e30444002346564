#ifndef COINSDB_SCRIPT_SCRIPT_H
#define COINSDB_SCRIPT_SCRIPT_H

#include <prevector.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

constexpr size_t MAX_SCRIPT_SIZE = 10'000;
constexpr unsigned char OP_RETURN = 0x6a;

// Scripts up to this many bytes live inside the script object, with no heap
// block of their own. Bitcoin Core keeps 28 (P2PKH, P2SH, P2WPKH); 36 also
// holds the 34-byte P2TR and P2WSH scripts, a quarter of a mainnet-shaped
// UTXO set, at no extra cost per cached coin: a Coin is 56 bytes from 29 to
// 36 (alignment pads the rest), and 64 from 37 on.
inline constexpr unsigned int SCRIPT_INLINE_BYTES = 36;
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
