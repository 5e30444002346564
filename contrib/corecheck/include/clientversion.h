#ifndef CORECHECK_CLIENTVERSION_H
#define CORECHECK_CLIENTVERSION_H

// Adapts: Core's clientversion.h, included by coins_tests though nothing
// in it is used; coinsdb's version header is util/clientversion.h.
#include <util/clientversion.h>

#endif // CORECHECK_CLIENTVERSION_H
