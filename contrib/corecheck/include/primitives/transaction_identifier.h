#ifndef CORECHECK_PRIMITIVES_TRANSACTION_IDENTIFIER_H
#define CORECHECK_PRIMITIVES_TRANSACTION_IDENTIFIER_H

// Adapts: Core's Txid, a distinct type for transaction ids. coinsdb's txids
// are plain uint256 (COutPoint::hash, CTransaction::GetHash), so Txid here
// is a uint256 that converts both ways, with Core's FromUint256 and
// ToUint256.

#include <uint256.h>

class Txid : public uint256
{
public:
    Txid() = default;
    Txid(const uint256& hash) : uint256{hash} {}
    static Txid FromUint256(const uint256& hash) { return Txid{hash}; }
    const uint256& ToUint256() const { return *this; }
};

#endif // CORECHECK_PRIMITIVES_TRANSACTION_IDENTIFIER_H
