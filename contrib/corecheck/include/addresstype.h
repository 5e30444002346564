#ifndef CORECHECK_ADDRESSTYPE_H
#define CORECHECK_ADDRESSTYPE_H

// Adapts: Core's addresstype.h, for the P2PKH destination coins_tests
// builds: PKHash and GetScriptForDestination (Core takes any
// CTxDestination; here only the PKHash case).

#include <pubkey.h>
#include <script/script.h>
#include <uint256.h>

class PKHash : public uint160
{
public:
    PKHash() = default;
    explicit PKHash(const uint160& hash) : uint160{hash} {}
};

inline CScript GetScriptForDestination(const PKHash& dest)
{
    return CScript() << OP_DUP << OP_HASH160 << ToByteVector(dest) << OP_EQUALVERIFY << OP_CHECKSIG;
}

#endif // CORECHECK_ADDRESSTYPE_H
