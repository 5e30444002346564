#ifndef CORECHECK_COMMON_ARGS_H
#define CORECHECK_COMMON_ARGS_H

// Adapts: Core's common/args.h (ArgsManager), which coinsdb keeps in
// util/args.h.

#include <util/args.h>

#endif // CORECHECK_COMMON_ARGS_H
