#ifndef CORECHECK_CONSENSUS_AMOUNT_H
#define CORECHECK_CONSENSUS_AMOUNT_H

// Adapts: Core's consensus/amount.h (CAmount, COIN, MAX_MONEY, MoneyRange),
// which coinsdb keeps in primitives/amount.h.
#include <primitives/amount.h>

#endif // CORECHECK_CONSENSUS_AMOUNT_H
