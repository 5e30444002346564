#ifndef CORECHECK_UTIL_HASHER_H
#define CORECHECK_UTIL_HASHER_H

// Adapts: Core's util/hasher.h SaltedTxidHasher (a salted SipHash of a
// txid), onto coinsdb's SaltedCoinsCacheHasher, which hashes a txid alone
// with its salted SipHash-2-4.

#include <coins.h>
#include <primitives/transaction_identifier.h>

#include <cstddef>

class SaltedTxidHasher
{
public:
    size_t operator()(const uint256& txid) const { return m_hasher(txid); }

private:
    SaltedCoinsCacheHasher m_hasher;
};

#endif // CORECHECK_UTIL_HASHER_H
