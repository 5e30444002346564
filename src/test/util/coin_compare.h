#ifndef COINSDB_TEST_UTIL_COIN_COMPARE_H
#define COINSDB_TEST_UTIL_COIN_COMPARE_H

// How tests compare coins. Coin has no operator==, as in Bitcoin Core, whose
// tests define their own: a member one here would make theirs ambiguous
// when they are compiled against coinsdb (contrib/corecheck). Every test
// compares through these functions, so there is one definition of "the
// same coin".

#include <coins.h>
#include <kernel/undo.h>
#include <primitives/transaction.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

// The same output, height and coinbase flag. Any two spent coins are the
// same: what else a spent coin holds is stale and means nothing.
inline bool SameCoin(const Coin& a, const Coin& b)
{
    if (a.IsSpent() && b.IsSpent()) return true;
    return a.out == b.out && a.nHeight == b.nHeight && a.fCoinBase == b.fCoinBase;
}

// Both absent, or both present and the same coin.
inline bool SameCoin(const std::optional<Coin>& a, const std::optional<Coin>& b)
{
    if (!a || !b) return a.has_value() == b.has_value();
    return SameCoin(*a, *b);
}

// The same coins in the same order.
inline bool SameCoins(const std::vector<Coin>& a, const std::vector<Coin>& b)
{
    return std::ranges::equal(a, b, [](const Coin& x, const Coin& y) { return SameCoin(x, y); });
}

// The same outpoints, each with the same coin.
inline bool SameCoins(const std::map<COutPoint, Coin>& a, const std::map<COutPoint, Coin>& b)
{
    return std::ranges::equal(a, b, [](const auto& x, const auto& y) { return x.first == y.first && SameCoin(x.second, y.second); });
}

// The same spent coins, transaction by transaction.
inline bool SameUndo(const CBlockUndo& a, const CBlockUndo& b)
{
    return std::ranges::equal(a.vtxundo, b.vtxundo, [](const CTxUndo& x, const CTxUndo& y) { return SameCoins(x.vprevout, y.vprevout); });
}

#endif // COINSDB_TEST_UTIL_COIN_COMPARE_H
