#ifndef COINSDB_PRIMITIVES_AMOUNT_H
#define COINSDB_PRIMITIVES_AMOUNT_H

#include <cstdint>

// Amounts are in satoshis.
using CAmount = int64_t;

constexpr CAmount COIN = 100'000'000;
// Not the circulating supply: the consensus sanity bound on any single amount or sum.
constexpr CAmount MAX_MONEY = 21'000'000 * COIN;

constexpr bool MoneyRange(CAmount value) { return value >= 0 && value <= MAX_MONEY; }

#endif // COINSDB_PRIMITIVES_AMOUNT_H
